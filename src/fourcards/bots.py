"""What every game's bots share: the bot protocol and a seeded random player.

A bot is anything with ``choose(observation, legal_actions) -> int`` (see
:class:`fourcards.engine.Bot`); each game adds its own rule-based players in
its ``bots`` module.

>>> bot = RandomBot(seed=3)
>>> bot.choose(None, [4, 8, 15]) in (4, 8, 15)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .engine import Bot, checked_legal
from .rng import Rng

__all__ = ["Bot", "RandomBot"]


class RandomBot:
    """Picks uniformly among the legal actions with its own seeded
    :class:`~fourcards.rng.Rng` (``legal[rng.below(len(legal))]``); it plays
    any game."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def __init__(self, seed: int = 0) -> None:
        self.rng = Rng(seed)

    def choose(self, observation: Any, legal_actions: Sequence[int]) -> int:
        legal_actions = checked_legal(legal_actions)
        return int(legal_actions[self.rng.below(len(legal_actions))])

    def __repr__(self) -> str:
        return f"RandomBot(state={self.rng.state:#x})"
