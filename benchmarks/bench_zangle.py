"""Run :mod:`fourcards.benchmarks.zangle` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.zangle import main

if __name__ == "__main__":
    raise SystemExit(main())
