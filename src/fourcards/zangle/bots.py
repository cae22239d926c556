"""Zangle players for turn style and solitaire (Speedster: ``SpeedsterBot``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..bots import RandomBot
from .game import ZangleObservation
from .speedster import SpeedsterBot
from ..engine import check_to_act, checked_legal
from ..errors import InvalidTypeError

__all__ = ["RandomBot", "GreedyBot", "SpeedsterBot"]


class GreedyBot:
    """Makes the Zangle that uses the most of its own cards (ties: the most
    cards, then the order of ``best_zangle``); a hit is dealt automatically,
    and only when no Zangle is possible."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def choose(self, observation: ZangleObservation, legal_actions: Sequence[int]) -> int:
        if not isinstance(observation, ZangleObservation):
            raise InvalidTypeError(f"observation must be a Zangle observation, not {type(observation).__name__}")
        check_to_act(observation)
        legal = checked_legal(legal_actions, observation=observation)
        zangle_of = dict(zip(observation.legal_actions, observation.legal_zangles))
        if not zangle_of or len(zangle_of) != len(observation.legal_actions):  # made by hand, not by the engine
            return legal[0]
        return min(legal, key=lambda a: (-zangle_of[a].own_cards, -zangle_of[a].cards, zangle_of[a].target,
                                         zangle_of[a].target_place, zangle_of[a].pieces))

    def __repr__(self) -> str:
        return "GreedyBot()"
