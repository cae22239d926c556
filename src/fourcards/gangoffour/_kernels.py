"""The Gang of Four kernels in use: compiled, or the pure-Python twin."""

from __future__ import annotations

from importlib import resources
from types import ModuleType
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

#: The compiled modules, one per concern, in load order.
MODULES = ("_combos", "_parse", "_sim", "_bots", "_search", "_playouts")

#: The names :func:`kernels` switches (the callers look them up here at call time).
SWITCHED = ("beats", "classify_batch", "classify_mask", "legal_actions", "legal_mask", "fast_mask",
            "fast_classify", "set_card_type", "greedy_choose")


def _load_all() -> tuple[ModuleType | None, ...]:
    """Every compiled module, or all None (the twin) when any is missing: the
    game never mixes compiled and pure-Python kernels."""
    modules = tuple(load(f"{__package__}.{name}") for name in MODULES)
    return modules if all(module is not None for module in modules) else (None,) * len(modules)


#: The compiled modules (``fourcards.gangoffour._combos``: the combination
#: kernels, which own the tables; ``_parse``: the card parser; ``_sim``: the
#: simulator; ``_bots``: the rule-based player; ``_search``: the search;
#: ``_playouts``: the random playouts), or None each for the twin.
combos, parse, sim, bots, search, playouts = _load_all()
#: Whether the compiled kernels are in use.
COMPILED: bool = combos is not None
#: The compiled modules by their attribute name here, when they loaded (what :func:`kernels` switches back to).
_COMPILED: dict[str, ModuleType] | None = (
    {name: module for name, module in zip(("combos", "parse", "sim", "bots", "search", "playouts"),
                                          (combos, parse, sim, bots, search, playouts)) if module is not None}
    if COMPILED else None)

if TYPE_CHECKING or combos is None or parse is None or bots is None:
    from ._reference import (
        beats, classify_batch, classify_mask, fast_classify, fast_mask, greedy_choose, legal_actions,
        legal_mask, set_card_type,
    )
else:
    combos.gof_init(COMBO_MASKS)
    beats = combos.beats
    classify_batch = combos.classify_batch
    classify_mask = combos.classify_mask
    legal_actions = combos.legal_actions
    legal_mask = combos.legal_mask
    fast_mask = parse.fast_mask
    fast_classify = parse.fast_classify
    set_card_type = parse.set_card_type
    greedy_choose = bots.greedy_choose


_prepared: list[type] = []


def prepare(card_type: type) -> None:
    """Give the kernels in use, and any switched to later, the ``Card`` type
    (their fast path accepts its instances); :mod:`.cards` calls it once."""
    _prepared[:] = [card_type]
    set_card_type(card_type)


def kernels(kind: str) -> dict[str, Any]:
    """The kernels of ``kind`` (``"compiled"`` or ``"reference"``) by name, with
    the compiled modules (each None for the twin) and ``COMPILED``, ready to use
    (given what :func:`prepare` was given); RuntimeError when the compiled ones
    are not available (for :func:`fourcards._backend.using`)."""
    table: dict[str, Any]
    if kind == "reference":
        from . import _reference

        for card_type in _prepared:
            _reference.set_card_type(card_type)
        table = {name: getattr(_reference, name) for name in SWITCHED}
        table.update({name: None for name in ("combos", "parse", "sim", "bots", "search", "playouts")})
        table["COMPILED"] = False
    elif kind == "compiled" and _COMPILED is not None:
        owners = {"fast_mask": "parse", "fast_classify": "parse", "set_card_type": "parse", "greedy_choose": "bots"}
        for card_type in _prepared:
            _COMPILED["parse"].set_card_type(card_type)
        table = {name: getattr(_COMPILED[owners.get(name, "combos")], name) for name in SWITCHED}
        table.update(_COMPILED)
        table["COMPILED"] = True
    elif kind == "compiled":
        raise RuntimeError("the compiled Gang of Four kernels are not available")
    else:
        raise ValueError(f"kernels are 'compiled' or 'reference', not {kind!r}")
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
    "COMBO_MASKS", "COMPILED", "MODULES", "bots", "combos", "parse", "playouts", "search", "sim", "pack_rules",
    "kernels", "prepare", "SWITCHED",
    "beats", "classify_batch", "classify_mask", "fast_classify", "fast_mask",
    "greedy_choose", "legal_actions", "legal_mask", "set_card_type",
]
