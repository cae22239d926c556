"""Run :mod:`fourcards.benchmarks.strength` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.strength import main

if __name__ == "__main__":
    raise SystemExit(main())
