"""Run :mod:`fourcards.benchmarks.core` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.core import main

if __name__ == "__main__":
    raise SystemExit(main())
