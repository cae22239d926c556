"""The Gang of Four kernels in use: compiled, or the pure-Python twin."""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from .._backend import load
from . import _deck

#: One canonical card mask per action, in action order (generated data, see
#: ``tools/generate_tables.py``).
COMBO_MASKS: np.ndarray = np.frombuffer(
    resources.files(__package__).joinpath("combos.bin").read_bytes(), dtype="<u8"
).astype(np.uint64)
assert COMBO_MASKS.shape == (_deck.NUM_ACTIONS,)

#: The compiled kernels (``fourcards.gangoffour._core``), or None for the twin.
core = load("fourcards.gangoffour._core")
_COMPILED = core

#: The names :func:`kernels` switches (the callers look them up here at call time).
SWITCHED = ("beats", "classify_batch", "classify_mask", "legal_actions", "legal_mask", "fast_mask",
            "fast_classify", "set_card_type", "greedy_choose")

if TYPE_CHECKING or core is None:
    from ._reference import (
        beats, classify_batch, classify_mask, fast_classify, fast_mask, greedy_choose, legal_actions,
        legal_mask, set_card_type,
    )
else:
    core.gof_init(COMBO_MASKS)
    beats = core.beats
    classify_batch = core.classify_batch
    classify_mask = core.classify_mask
    legal_actions = core.legal_actions
    legal_mask = core.legal_mask
    fast_mask = core.fast_mask
    fast_classify = core.fast_classify
    set_card_type = core.set_card_type
    greedy_choose = core.greedy_choose


_prepared: list[type] = []


def prepare(card_type: type) -> None:
    """Give the kernels in use, and any switched to later, the ``Card`` type
    (their fast path accepts its instances); :mod:`.cards` calls it once."""
    _prepared[:] = [card_type]
    set_card_type(card_type)


def kernels(kind: str) -> dict[str, Any]:
    """The kernels of ``kind`` (``"compiled"`` or ``"reference"``) by name, with
    ``core``, ready to use (given what :func:`prepare` was given); RuntimeError
    when the compiled ones are not available (for :func:`fourcards._backend.using`)."""
    if kind == "reference":
        from . import _reference as chosen
    elif kind == "compiled" and _COMPILED is not None:
        chosen = _COMPILED  # loaded with the tables at import
    elif kind == "compiled":
        raise RuntimeError("the compiled Gang of Four kernels are not available")
    else:
        raise ValueError(f"kernels are 'compiled' or 'reference', not {kind!r}")
    for card_type in _prepared:
        chosen.set_card_type(card_type)
    table = {name: getattr(chosen, name) for name in SWITCHED}
    table["core"] = _COMPILED if kind == "compiled" else None
    return table


def pack_rules(rules: Any) -> dict[str, int]:
    """A Gang of Four :class:`~fourcards.gangoffour.match.Rules` as the compiled
    kernels take it: by name, the fields of their ``GofRules`` struct (Cython
    converts the dict field by field, so no positional tuple crosses the boundary).

    >>> from fourcards.gangoffour.match import Rules
    >>> pack_rules(Rules(players=3))["players"]
    3
    """
    return {
        "players": int(rules.players),
        "target": int(rules.target_score),
        "dealer": int(rules.dealer),
        "pass_is_final": int(bool(rules.pass_is_final)),
        "manual": int(bool(rules.manual_last_card)),
        "may_pass": int(bool(rules.last_card_may_pass)),
        "chinese": int(bool(rules.chinese_dealing)),
    }


__all__ = [
    "COMBO_MASKS", "core", "kernels", "prepare", "SWITCHED", "pack_rules",
    "beats", "classify_batch", "classify_mask", "fast_classify", "fast_mask",
    "greedy_choose", "legal_actions", "legal_mask", "set_card_type",
]
