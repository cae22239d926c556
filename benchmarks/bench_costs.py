"""Run :mod:`fourcards.benchmarks.costs` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.costs import main

if __name__ == "__main__":
    raise SystemExit(main())
