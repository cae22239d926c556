"""Run :mod:`fourcards.benchmarks.engine` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.engine import main

if __name__ == "__main__":
    raise SystemExit(main())
