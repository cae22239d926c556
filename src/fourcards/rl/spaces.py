"""Bounds of each game's observation tensor, for the frameworks' Box spaces.

Read from each game's documented tensor layout: counts, one-hots and shares
are bounded; Gang of Four's totals are bounded by the target score and one
round's largest penalty; Four Color's and Zangle's running totals have no
bound the rules fix, so their spaces are open on that side.

>>> from fourcards.games import get_game
>>> observation_bounds(get_game("gang-of-four").new_game(players=2, target_score=10))
(0.0, 8.9)
>>> observation_bounds(get_game("four-pack").new_game())
(-1.0, 1.0)
"""

from __future__ import annotations

import math
from typing import Any

from ..engine import Game
from ..games import get_game

__all__ = ["observation_bounds"]


def observation_bounds(game: Game[Any]) -> tuple[float, float]:
    """``(low, high)`` holding every value of ``game``'s observation tensor."""
    name = get_game(game.name).name
    if name == "gang-of-four":
        from ..gangoffour import _deck

        worst_round = max(cards * per_card for cards, per_card in enumerate(_deck.PENALTY_PER_CARD))
        target = int(game.rules.target_score)
        return 0.0, max(2.0, (target - 1 + worst_round) / target)
    if name == "four-color":
        return -math.inf, math.inf   # totals / 100 move both ways without a bound
    if name == "zangle":
        return 0.0, math.inf         # totals / 50 grow each round
    if name == "four-pack":
        return -1.0, 1.0
    if name == "duelo":
        return 0.0, 1.0
    raise ValueError(f"no observation bounds for game {name!r}")
