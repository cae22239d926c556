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

from .engine import Bot, check_count, check_to_act, checked_legal
from .errors import FourCardsError
from .rng import Rng

__all__ = ["Bot", "RandomBot"]


class RandomBot:
    """Picks uniformly among the legal actions with its own seeded
    :class:`~fourcards.rng.Rng` (``legal[rng.below(len(legal))]``); it plays
    any game. ``num_actions`` (the registry gives the game's) refuses an action
    outside ``0..num_actions-1``; an observation with ``player`` and
    ``current_player`` must be the seat to act's."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True
    #: Actions at or above it are refused; None (a bot pickled before it had one, too): no bound.
    num_actions: int | None = None

    def __init__(self, seed: int = 0, num_actions: int | None = None) -> None:
        if num_actions is not None and check_count(num_actions, "num_actions") < 1:
            raise FourCardsError(f"num_actions must be at least 1 (or None: no bound), got {num_actions}")
        self.rng = Rng(seed)
        self.num_actions = None if num_actions is None else int(num_actions)

    def choose(self, observation: Any, legal_actions: Sequence[int]) -> int:
        legal_actions = checked_legal(legal_actions, self.num_actions, observation)
        if hasattr(observation, "player") and hasattr(observation, "current_player"):
            check_to_act(observation)
        return int(legal_actions[self.rng.below(len(legal_actions))])

    def __repr__(self) -> str:
        return f"RandomBot(state={self.rng.state:#x})"
