"""Run :mod:`fourcards.benchmarks.search` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.search import main

if __name__ == "__main__":
    raise SystemExit(main())
