"""The Four Color kernels in use: compiled, or the pure-Python twin.

The batch entry points check their rows here, at the Python boundary, before
the unchecked C (the twin runs the same check): a count must be an integer in
0..255 (counts 5..255 answer -2, "a count above 4"); floats, bools and values
that do not fit are refused, never truncated or wrapped.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._backend import load
from ..engine import check_flag
from . import _deck, _reference
from ._reference import FALLBACK, check_rows

#: The compiled modules, one per concern, in load order.
MODULES = ("_melds", "_parse", "_bots", "_sim")

#: The names :func:`kernels` switches (the callers look them up here at call time), by
#: their name in the compiled module.
SWITCHED: dict[str, str] = {
    "FALLBACK": "FALLBACK", "best_points": "fc_best_points", "best_points_packed": "fc_best_points_packed",
    "block_best": "fc_block_best", "split": "fc_split", "wait_points": "fc_wait_points",
    "hand_value": "fc_hand_value", "greedy_choose": "fc_greedy_choose",
    "lookahead_choose": "fc_lookahead_choose", "register": "fc_register",
    "is_complete_hand": "fc_is_complete_hand", "best_points_hand": "fc_best_points_hand",
    "best_split_hand": "fc_best_split_hand", "waits_hand": "fc_waits_hand",
    "_best_points_batch": "fc_best_points_batch", "_best_split_batch": "fc_best_split_batch",
    "_waits_batch": "fc_waits_batch",
}


def _load_all() -> tuple[ModuleType | None, ...]:
    """Every compiled module, or all None (the twin) when any is missing: the
    game never mixes compiled and pure-Python kernels."""
    modules = tuple(load(f"{__package__}.{name}") for name in MODULES)
    return modules if all(module is not None for module in modules) else (None,) * len(modules)


#: The compiled modules (``fourcards.fourcolor._melds``: the meld splitter,
#: which owns the tables; ``_parse``: the public functions' fast path;
#: ``_bots``: the rule-based player; ``_sim``: the simulator), or None each
#: for the twin.
melds, parse, bots, sim = _load_all()
#: Whether the compiled kernels are in use.
COMPILED: bool = melds is not None
#: The compiled modules by their attribute name here, when they loaded (what :func:`kernels` switches back to).
_COMPILED: dict[str, ModuleType] | None = (
    {name: module for name, module in zip(("melds", "parse", "bots", "sim"), (melds, parse, bots, sim))
     if module is not None} if COMPILED else None)

if TYPE_CHECKING or melds is None or parse is None or bots is None:
    from ._reference import (
        best_points, best_points_hand, best_points_packed, best_split_hand, block_best, greedy_choose, hand_value,
        is_complete_hand, lookahead_choose, register, split, wait_points, waits_hand,
    )
    from ._reference import best_points_batch as _best_points_batch
    from ._reference import best_split_batch as _best_split_batch
    from ._reference import waits_batch as _waits_batch
else:
    melds.fc_init([[(_deck.meld_kind(m), m) for m in with_kind] for with_kind in _reference.MELDS_WITH],
                  _deck.POINTS, _reference.MELDS)
    FALLBACK = parse.FALLBACK  # noqa: F811
    best_points = melds.fc_best_points
    best_points_packed = melds.fc_best_points_packed
    block_best = melds.fc_block_best
    split = melds.fc_split
    wait_points = melds.fc_wait_points
    hand_value = bots.fc_hand_value
    greedy_choose = bots.fc_greedy_choose
    lookahead_choose = bots.fc_lookahead_choose
    register = parse.fc_register
    is_complete_hand = parse.fc_is_complete_hand
    best_points_hand = parse.fc_best_points_hand
    best_split_hand = parse.fc_best_split_hand
    waits_hand = parse.fc_waits_hand
    _best_points_batch = melds.fc_best_points_batch
    _best_split_batch = melds.fc_best_split_batch
    _waits_batch = melds.fc_waits_batch


_prepared: list[tuple[Any, ...]] = []


def prepare(*public: Any) -> None:
    """Give the kernels in use, and any switched to later, the public objects
    their fast path answers with (``register``'s arguments); the package calls it once."""
    _prepared[:] = [public]
    register(*public)


def kernels(kind: str) -> dict[str, Any]:
    """The kernels of ``kind`` (``"compiled"`` or ``"reference"``) by name, with
    the compiled modules (each None for the twin) and ``COMPILED``, ready to use
    (registered with the public card and meld objects :func:`prepare` was
    given); RuntimeError when the compiled ones are not available (for
    :func:`fourcards._backend.using`)."""
    table: dict[str, Any]
    if kind == "reference":
        table = {name: getattr(_reference, name[1:] if name.startswith("_") else name) for name in SWITCHED}
        table.update({name: None for name in ("melds", "parse", "bots", "sim")})
        table["COMPILED"] = False
    elif kind == "compiled" and _COMPILED is not None:
        modules = _COMPILED
        table = {name: next(getattr(m, compiled) for m in modules.values() if hasattr(m, compiled))
                 for name, compiled in SWITCHED.items()}
        table.update(modules)
        table["COMPILED"] = True
    elif kind == "compiled":
        raise RuntimeError("the compiled Four Color kernels are not available")
    else:
        raise ValueError(f"kernels are 'compiled' or 'reference', not {kind!r}")
    for public in _prepared:
        table["register"](*public)
    return table


def best_points_batch(counts: Any, exposed: Any = None) -> npt.NDArray[np.int16]:
    """Best points (int16; -1 none, -2 a count above 4) of rows of 28 counts, without the GIL."""
    rows = check_rows(counts, "counts")
    return _best_points_batch(rows, None if exposed is None else _reference.check_exposed(exposed, len(rows)))


def best_split_batch(counts: Any, exposed: Any = None) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int8]]:
    """Best splits of rows of 28 counts, without the GIL: points (int16; -1 none,
    -2 a count above 4) and the melds' action indices (int8, rows x 64, padded with -1)."""
    rows = check_rows(counts, "counts")
    return _best_split_batch(rows, None if exposed is None else _reference.check_exposed(exposed, len(rows)))


def waits_batch(counts: Any, from_discard: bool = False) -> npt.NDArray[np.int16]:
    """Per row of 28 counts and per kind, the points one more card of that kind
    completes the hand with (int16, rows x 28; -1: not a wait), without the GIL."""
    from_discard = check_flag(from_discard, "from_discard")
    return _waits_batch(check_rows(counts, "counts"), from_discard)


def simulate_games(seeds: npt.NDArray[np.uint64], policies: list[int], players: int, threshold: int,
                   rounds: int, lucky_rank_only: bool, record: bool, bot_seeds: Any = None,
                   same_colour_soldiers: bool = True, generals_hu: bool = True) -> Any:
    """Whole games in C (the compiled core only)."""
    if sim is None:
        raise RuntimeError("the compiled Four Color core is not available")
    return sim.fc_simulate(seeds, policies, players, threshold, rounds, lucky_rank_only, record, bot_seeds,
                           same_colour_soldiers, generals_hu)


__all__ = ["COMPILED", "MODULES", "melds", "parse", "bots", "sim", "kernels", "prepare", "SWITCHED",
           "FALLBACK", "best_points", "best_points_packed", "block_best", "best_points_batch", "best_split_batch",
           "waits_batch", "split", "wait_points", "hand_value", "greedy_choose", "lookahead_choose", "register",
           "is_complete_hand", "best_points_hand", "best_split_hand", "waits_hand", "simulate_games"]
