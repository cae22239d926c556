"""Run :mod:`fourcards.benchmarks.rl_steps` (see its docstring and benchmarks/README.md)."""

from fourcards.benchmarks.rl_steps import main

if __name__ == "__main__":
    raise SystemExit(main())
