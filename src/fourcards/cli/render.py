"""Whether to colour the terminal output (moved below the games to
:mod:`fourcards.terminal.colour`; the name stays importable from here)."""

from __future__ import annotations

from ..terminal.colour import colour_enabled

__all__ = ["colour_enabled"]
