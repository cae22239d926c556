"""What every command's arguments share (moved below the games to
:mod:`fourcards.terminal.args`; these names stay importable from here)."""

from __future__ import annotations

from ..terminal.args import SEED, CommandLineError, Parser, ProgressBar, executor_for, int_in, quote

__all__ = ["CommandLineError", "Parser", "ProgressBar", "SEED", "int_in", "quote", "executor_for"]
