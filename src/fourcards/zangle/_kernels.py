"""The Zangle kernels in use: compiled (``fourcards.zangle._core``), or the pure-Python twin.

Both are loaded with the tiling table by :mod:`fourcards.zangle.cards`
(:func:`prepare`); the callers look the kernels up here at call time, so
:func:`fourcards._backend.using` can switch them in a running process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._backend import load
from . import _reference

#: The compiled kernels, or None for the twin.
core = load("fourcards.zangle._core")
_COMPILED = core

#: The names :func:`kernels` switches.
SWITCHED = ("zangle_init", "zangle_find_packed", "zangle_any_packed")

if TYPE_CHECKING or core is None:
    from ._reference import zangle_any_packed, zangle_find_packed, zangle_init
else:
    zangle_init = core.zangle_init
    zangle_find_packed = core.zangle_find_packed
    zangle_any_packed = core.zangle_any_packed


_prepared: list[Any] = []


def prepare(tilings: Any) -> None:
    """Load the kernels in use, and any switched to later, with the tiling
    table (``zangle_init``'s argument); :mod:`.cards` calls it once."""
    _prepared[:] = [tilings]
    zangle_init(tilings)


def kernels(kind: str) -> dict[str, Any]:
    """The kernels of ``kind`` (``"compiled"`` or ``"reference"``) by name, with
    ``core``, loaded with the tiling table :func:`prepare` was given;
    RuntimeError when the compiled ones are not available (for
    :func:`fourcards._backend.using`)."""
    if kind == "reference":
        chosen: Any = _reference
    elif kind == "compiled" and _COMPILED is not None:
        chosen = _COMPILED
    elif kind == "compiled":
        raise RuntimeError("the compiled Zangle kernels are not available")
    else:
        raise ValueError(f"kernels are 'compiled' or 'reference', not {kind!r}")
    for tilings in _prepared:
        chosen.zangle_init(tilings)
    table = {name: getattr(chosen, name) for name in SWITCHED}
    table["core"] = _COMPILED if kind == "compiled" else None
    return table


__all__ = ["core", "kernels", "prepare", "SWITCHED", "zangle_init", "zangle_find_packed", "zangle_any_packed"]
