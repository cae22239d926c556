"""The pure-Python twin of the Four Color kernels in ``fourcards._core``.

It searches plainly: take the lowest card left, try every meld that holds it,
and keep the best total (memoised on what is left).  The compiled core uses
precomputed block tables instead; the tests check that they agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from . import _deck as d


def _all_melds() -> list[tuple[int, ...]]:
    melds: list[tuple[int, ...]] = []
    for colour in range(4):
        g = d.code(colour, d.GENERAL)
        melds += [(g,), (g,) * 4, (g, g + 1, g + 2), (g + 3, g + 4, g + 5)]
        for rank in range(1, 7):
            k = d.code(colour, rank)
            if rank != d.SOLDIER:
                melds.append((k, k))
            melds += [(k,) * 3, (k,) * 4]
    soldiers = [d.code(c, d.SOLDIER) for c in range(4)]
    for skip in range(4):
        melds.append(tuple(s for i, s in enumerate(soldiers) if i != skip))
    melds.append(tuple(soldiers))
    assert all(d.meld_kind(tuple(sorted(m))) >= 0 for m in melds)
    return [tuple(sorted(m)) for m in melds]


MELDS = _all_melds()
MELDS_WITH: list[list[tuple[int, ...]]] = [[m for m in MELDS if k in m] for k in range(d.NUM_KINDS)]


@lru_cache(maxsize=200_000)
def _search(counts: tuple[int, ...], pending: int) -> int:
    """Best points for ``counts`` (concealed), one meld holding ``pending`` scored exposed; -1 if none."""
    first = next((k for k, n in enumerate(counts) if n), -1)
    if first < 0:
        return -1 if pending >= 0 else 0
    best = -1
    for meld in MELDS_WITH[first]:
        rest = list(counts)
        for k in meld:
            rest[k] -= 1
        if min(rest) < 0:
            continue
        kind = d.meld_kind(meld)
        exposed, concealed = d.POINTS[kind]
        options = [(concealed, pending)]
        if pending >= 0 and pending in meld:
            options.append((exposed, -1))
        for points, still in options:
            tail = _search(tuple(rest), still)
            if tail >= 0 and points + tail > best:
                best = points + tail
    return best


def _check_counts(counts: Any) -> tuple[int, ...]:
    values = tuple(int(c) for c in counts)
    if len(values) != d.NUM_KINDS:
        raise ValueError(f"a hand is 28 counts, got {len(values)}")
    return values


def best_points(counts: Sequence[int], exposed_code: int = -1) -> int:
    """Best points of a complete split (-1: none; -2: a count above 4); the
    meld holding one card of ``exposed_code`` (if >= 0) is scored exposed."""
    if not -1 <= exposed_code < d.NUM_KINDS:
        raise ValueError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")
    values = _check_counts(counts)
    if max(values) > d.COPIES:
        return -2
    return _search(values, exposed_code)


def unpack(packed: int) -> tuple[int, ...]:
    """Counts from the packed form: 3 bits a kind, kind ``k`` at bit ``3 * k``."""
    return tuple((packed >> (3 * k)) & 7 for k in range(d.NUM_KINDS))


def best_points_packed(packed: int, exposed_code: int = -1) -> int:
    if packed < 0 or packed >> (3 * d.NUM_KINDS):
        raise OverflowError(f"packed hand {packed:#x} does not fit in 84 bits")
    counts = unpack(packed)
    if max(counts) > d.COPIES:
        return -2
    return _search(counts, exposed_code)


def block_best(block: int, index: int) -> int:
    """Best concealed points of one block state (-1: it does not split)."""
    counts = [0] * d.NUM_KINDS
    if block < 4:
        for rank in range(6):
            counts[d.code(block, rank)] = index // 5 ** rank % 5
    else:
        for colour in range(4):
            counts[d.code(colour, d.SOLDIER)] = index // 5 ** colour % 5
    return _search(tuple(counts), -1)


def best_points_batch(counts: Any, exposed: Any = None) -> np.ndarray[Any, np.dtype[np.int16]]:
    """Best points (int16; -1 none, -2 a count above 4) of rows of 28 counts."""
    rows = np.asarray(counts, dtype=np.uint8)
    if rows.ndim != 2 or rows.shape[1] != d.NUM_KINDS:
        raise ValueError(f"rows must hold 28 counts, got shape {rows.shape}")
    if exposed is not None and len(exposed) != rows.shape[0]:
        raise ValueError("one exposed code a row")
    out = np.empty(rows.shape[0], dtype=np.int16)
    for i, row in enumerate(rows.tolist()):
        out[i] = best_points(row, -1 if exposed is None else int(exposed[i]))
    return out
