"""``python -m fourcards``: the command line (see :mod:`fourcards.cli`)."""

from __future__ import annotations

from .cli import main
from .cli.demo import demo_lines

__all__ = ["main", "demo_lines"]

if __name__ == "__main__":
    raise SystemExit(main())
