"""Reinforcement-learning environments over the fourcards engines.

:class:`VectorGangOfFour` (in :mod:`fourcards.rl.vector`): many Gang of Four
matches stepped together in C, for one learning seat against built-in bots.
"""

from __future__ import annotations

from typing import Any

__all__ = ["VectorGangOfFour"]


def __getattr__(name: str) -> Any:
    if name == "VectorGangOfFour":
        from .vector import VectorGangOfFour

        return VectorGangOfFour
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
