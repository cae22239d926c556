"""The Four Color kernels in use: compiled, or the pure-Python twin."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._backend import load
from . import _deck, _reference

#: The compiled kernels (``fourcards.fourcolor._core``), or None for the twin.
core = load("fourcards.fourcolor._core")

if TYPE_CHECKING or core is None:
    from ._reference import best_points, best_points_batch, best_points_packed, block_best
else:
    core.fc_init([[(_deck.meld_kind(m), m) for m in melds] for melds in _reference.MELDS_WITH],
                 _deck.POINTS)
    best_points = core.fc_best_points
    best_points_packed = core.fc_best_points_packed
    block_best = core.fc_block_best
    best_points_batch = core.fc_best_points_batch

__all__ = ["core", "best_points", "best_points_packed", "block_best", "best_points_batch"]
