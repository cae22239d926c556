"""The pure-Python twin of the compiled Zangle kernel (``_core.pyx``): the
same functions, the same answers, written to be obviously right.

A search input is two packed card counts (4 bits a kind, kind ``k`` at bit
``4k``; kinds 0 = Z, 1..10 = shapes): the centre and a player's own cards.
A result row is ``[target kind, target place (0 centre, 1 own)]`` followed by
the count of pieces of each (kind, place), kind 0..10, centre then own: 24
bytes.  The rows come in the compiled kernel's order (target, target place,
tiling, how each kind's pieces split between the places, the centre's Z
cards, the player's Z cards).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import FourCardsError, InvalidTypeError

__all__ = ["zangle_init", "zangle_find_packed", "zangle_any_packed", "check_packed", "KINDS", "ROW"]

KINDS = 11
"""Card kinds: Z and the 10 shapes."""
ROW = 2 + 2 * KINDS
"""Bytes in a result row."""

_tilings: dict[int, tuple[tuple[int, ...], ...]] = {}


def zangle_init(tilings: Mapping[int, Sequence[Sequence[int]]]) -> None:
    """Load the tiling table: ``tilings[target]`` lists the piece count vectors
    (11 kinds) that cover the shape of kind ``target``."""
    _tilings.clear()
    for target in range(KINDS):
        _tilings[target] = tuple(tuple(int(n) for n in row) for row in tilings.get(target, ()))


def check_packed(packed: object, name: str = "packed") -> int:
    """Packed card counts, checked: an int of 44 bits (no bool, no float)."""
    if not isinstance(packed, int) or isinstance(packed, bool):
        raise InvalidTypeError(f"{name} must be packed card counts (an int), not {type(packed).__name__}")
    if not 0 <= packed < 1 << (4 * KINDS):
        raise FourCardsError(f"{name}={packed:#x}: packed card counts use 4 bits for each of 11 kinds")
    return packed


def _unpack(packed: int) -> list[int]:
    return [(packed >> (4 * kind)) & 15 for kind in range(KINDS)]


def zangle_find_packed(centre: Any, own: Any) -> npt.NDArray[np.uint8]:
    """Every Zangle from packed counts, as rows of a ``uint8`` array (see above)."""
    places = (_unpack(check_packed(centre, "centre")), _unpack(check_packed(own, "own")))
    if not _tilings:
        raise RuntimeError("the Zangle tables are not loaded")
    rows: list[list[int]] = []
    for target in range(1, KINDS):
        for place in (0, 1):
            if places[place][target] == 0:
                continue
            rest = [list(places[0]), list(places[1])]
            rest[place][target] -= 1
            for tiling in _tilings[target]:
                kinds = [kind for kind in range(1, KINDS) if tiling[kind]]
                # each kind's pieces: how many from the centre (the rest from the own cards)
                ranges = [range(max(0, tiling[k] - rest[1][k]), min(tiling[k], rest[0][k]) + 1) for k in kinds]
                for split in product(*ranges):
                    counts = [0] * (2 * KINDS)
                    for kind, from_centre in zip(kinds, split):
                        counts[2 * kind] = from_centre
                        counts[2 * kind + 1] = tiling[kind] - from_centre
                    for z_centre in range(rest[0][0] + 1):
                        for z_own in range(rest[1][0] + 1):
                            counts[0], counts[1] = z_centre, z_own
                            pieces = sum(counts)
                            uses_centre = place == 0 or any(counts[0::2])
                            uses_own = place == 1 or any(counts[1::2])
                            if pieces >= 2 and uses_centre and uses_own:
                                rows.append([target, place, *counts])
    return np.array(rows, dtype=np.uint8).reshape(len(rows), ROW)


def zangle_any_packed(centre: Any, own: Any) -> bool:
    """Whether there is any Zangle, from packed counts (checked as above)."""
    return len(zangle_find_packed(centre, own)) > 0
