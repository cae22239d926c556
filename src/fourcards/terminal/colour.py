"""What every command's terminal output shares: whether to colour it."""

from __future__ import annotations

import os
import sys
from typing import TextIO

__all__ = ["colour_enabled"]


def colour_enabled(choice: str, stream: TextIO | None = None) -> bool:
    """``always``, ``never``, or ``auto``: a terminal, and ``NO_COLOR`` unset."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    stream = stream if stream is not None else sys.stdout
    try:
        return bool(stream.isatty()) and "NO_COLOR" not in os.environ
    except (AttributeError, ValueError):
        return False
