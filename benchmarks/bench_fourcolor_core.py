"""Run :mod:`fourcards.benchmarks.fourcolor` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.fourcolor import main

if __name__ == "__main__":
    raise SystemExit(main())
