"""Gang of Four players on the shared bot protocol (``choose(observation, legal_actions)``).

>>> from fourcards.engine import play_match
>>> from fourcards.gangoffour.match import GangOfFour
>>> state = play_match(GangOfFour(target_score=30).new_match(3),
...                    [GreedyBot(), RandomBot(1), RandomBot(2), RandomBot(3)])
>>> state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..rng import Rng
from . import _kernels
from .match import GIVE_BACK, PHASE_NAMES, Observation

__all__ = ["RandomBot", "GreedyBot"]


class RandomBot:
    """Picks uniformly among the legal actions with its own seeded
    :class:`~fourcards.rng.Rng` (``legal[rng.below(len(legal))]``)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = Rng(seed)

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        return int(legal_actions[self.rng.below(len(legal_actions))])

    def __repr__(self) -> str:
        return f"RandomBot(state={self.rng.state:#x})"


class GreedyBot:
    """The rule-based player: sheds low cards first, keeps gangs and phoenixes
    for when they matter, plays hard-to-beat leads when an opponent is about to
    go out, and gives back a lone low card.  It calls the same policy code as
    the compiled simulator (``fourcards._core.greedy_choose``; see
    ``_reference.greedy_choose`` for the rules it follows)."""

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int:
        table = -1 if observation.table is None else observation.table.action
        phase = 1 if observation.phase == PHASE_NAMES[GIVE_BACK] else 0
        legal = np.asarray(legal_actions, dtype=np.int32)
        return int(_kernels.greedy_choose(
            observation.hand_mask, table, phase, observation.player, observation.hand_sizes, legal
        ))

    def __repr__(self) -> str:
        return "GreedyBot()"
