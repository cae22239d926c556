"""Bounds of a game's observation tensor, for the frameworks' Box spaces.

Each game states them (:meth:`fourcards.engine.Game.observation_bounds`, open
by default): counts, one-hots and shares are bounded; running totals are
bounded by what the rules allow, or leave the space open on that side.

>>> from fourcards.games import DEFAULT_GAME, get_game
>>> low, high = observation_bounds(get_game(DEFAULT_GAME).new_game())
>>> low <= 0.0 < 1.0 <= high
True
"""

from __future__ import annotations

from typing import Any

from ..engine import Game

__all__ = ["observation_bounds"]


def observation_bounds(game: Game[Any]) -> tuple[float, float]:
    """``(low, high)`` holding every value of ``game``'s observation tensor."""
    low, high = game.observation_bounds()
    return float(low), float(high)
