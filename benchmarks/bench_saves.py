"""Run :mod:`fourcards.benchmarks.saves` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.saves import main

if __name__ == "__main__":
    raise SystemExit(main())
