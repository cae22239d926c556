"""Zangle players for turn style and solitaire (Speedster: ``SpeedsterBot``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..bots import RandomBot
from .game import ZangleObservation
from .speedster import SpeedsterBot
from ..engine import check_to_act, checked_legal

__all__ = ["RandomBot", "GreedyBot", "SpeedsterBot"]


class GreedyBot:
    """Makes the Zangle that uses the most of its own cards (ties: the most
    cards, then the order of ``best_zangle``); a hit is dealt automatically,
    and only when no Zangle is possible."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def choose(self, observation: ZangleObservation, legal_actions: Sequence[int]) -> int:
        if not isinstance(observation, ZangleObservation):
            raise TypeError(f"observation must be a Zangle observation, not {type(observation).__name__}")
        check_to_act(observation)
        legal_actions = checked_legal(legal_actions)
        zangles = observation.legal_zangles
        if len(zangles) != len(legal_actions):
            return int(legal_actions[0])
        best = min(range(len(zangles)), key=lambda i: (-zangles[i].own_cards, -zangles[i].cards,
                                                       zangles[i].target, zangles[i].target_place,
                                                       zangles[i].pieces))
        return int(legal_actions[best])

    def __repr__(self) -> str:
        return "GreedyBot()"
