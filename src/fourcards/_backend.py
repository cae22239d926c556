"""Choose between the compiled kernels and their pure-Python twins.

Each game's compiled kernels are extensions in that game's folder, one per
concern (Gang of Four: ``_combos``, ``_parse``, ``_sim``, ``_bots``,
``_search``, ``_playouts`` and ``_vector``; Four Color: ``_melds``,
``_parse``, ``_bots``, ``_sim``; Zangle: ``_core``); what the games share is
``fourcards._native``.  ``FOURCARDS_NO_EXTENSIONS=1`` selects the pure-Python
twins.  Otherwise a game's compiled kernels are used when they all import;
``FOURCARDS_REQUIRE_EXTENSIONS=1`` turns a failed import into an error
instead of a silent fallback (the wheel tests set it, so a wheel whose
extensions did not build cannot pass).
"""

from __future__ import annotations

import os
from importlib import import_module
from importlib.machinery import EXTENSION_SUFFIXES
from types import ModuleType

__all__ = ["COMPILED", "EXTENSIONS", "load", "native"]

#: Every compiled module the package ships.
EXTENSIONS = (
    "fourcards._native",
    "fourcards.gangoffour._combos", "fourcards.gangoffour._parse", "fourcards.gangoffour._sim",
    "fourcards.gangoffour._bots", "fourcards.gangoffour._search", "fourcards.gangoffour._playouts",
    "fourcards.gangoffour._vector",
    "fourcards.fourcolor._melds", "fourcards.fourcolor._parse", "fourcards.fourcolor._bots",
    "fourcards.fourcolor._sim",
    "fourcards.zangle._core",
)


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def load(name: str) -> ModuleType | None:
    """The compiled module ``name`` (one of :data:`EXTENSIONS`), or None when
    the twins are selected or it did not build."""
    if name not in EXTENSIONS:
        raise ValueError(f"{name!r} is not one of fourcards' compiled modules")
    if _flag("FOURCARDS_NO_EXTENSIONS"):
        return None
    try:
        return import_module(name)
    except ImportError:
        if _flag("FOURCARDS_REQUIRE_EXTENSIONS"):
            raise
        return None


def _built(name: str) -> bool:
    """Whether the extension's file is there (without importing the game's package)."""
    *folders, module = name.split(".")[1:]
    where = os.path.join(os.path.dirname(__file__), *folders)
    return any(os.path.exists(os.path.join(where, module + suffix)) for suffix in EXTENSION_SUFFIXES)


native: ModuleType | None = load("fourcards._native")
COMPILED: bool = native is not None and all(_built(name) for name in EXTENSIONS)
"""Whether the compiled kernels are in use (each game imports its own when it is imported)."""
