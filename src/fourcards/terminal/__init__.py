"""The terminal toolkit the games build on: the tables that draw a game and
the session around them (:mod:`.table`), argument helpers, one-line errors and
a progress bar (:mod:`.args`), and whether to colour (:mod:`.colour`).

It sits below the games and knows none of them, nor the registry: each game's
``terminal.py`` subclasses :class:`Table`, and the command line
(:mod:`fourcards.cli`, which sits above the games) opens a game's table from
its registry entry and seats the bots.
"""

from __future__ import annotations

from .args import SEED, CommandLineError, Parser, ProgressBar, executor_for, file_name, int_in, quote
from .colour import colour_enabled
from .table import MAX_LINE, Confirm, DeckTable, Session, Table, draw_view, in_player_words, plural

__all__ = ["Table", "DeckTable", "Session", "Confirm", "plural", "quote", "int_in", "SEED", "CommandLineError",
           "Parser", "ProgressBar", "file_name", "executor_for", "colour_enabled", "draw_view", "in_player_words",
           "MAX_LINE"]
