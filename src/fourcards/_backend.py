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
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from importlib.machinery import EXTENSION_SUFFIXES
from types import ModuleType

__all__ = ["COMPILED", "EXTENSIONS", "load", "native", "using"]

#: Every compiled module the package ships.
EXTENSIONS = (
    "fourcards._cyutility",  # Cython's utility code, shared by the others (setup.py)
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


#: The modules that hold each game's kernels in use (``kernels(kind)``, ``SWITCHED``, ``core``).
KERNEL_MODULES = ("fourcards.gangoffour._kernels", "fourcards.fourcolor._kernels", "fourcards.zangle._kernels")


@contextmanager
def using(kind: str) -> Iterator[None]:
    """Run the block with every game's ``"compiled"`` or ``"reference"``
    kernels, then put back the ones in use: private, for tests that run the
    public API on both kernel sets in one process.

    Each game's ``_kernels`` module has its attributes swapped (the callers
    look them up there at call time); a module of the package that keeps a
    kernel under its own name (a fast path bound without a wrapper, such as
    ``fourcards.gangoffour.combos.legal_actions``) has it swapped too.  Raises
    RuntimeError, changing nothing, when the compiled kernels are not
    available.  Not thread-safe: no other thread may use the games meanwhile."""
    modules = [import_module(name) for name in KERNEL_MODULES]
    tables = [module.kernels(kind) for module in modules]  # all of them first: refuse before changing
    changed: list[tuple[ModuleType, str, object]] = []
    try:
        replaced: dict[int, object] = {}
        for module, table in zip(modules, tables):
            for name, value in table.items():
                old = getattr(module, name)
                if old is not value:
                    if old is not None and not isinstance(old, (bool, int, str)):
                        replaced[id(old)] = value
                    changed.append((module, name, old))
                    setattr(module, name, value)
        # fast paths bound under another module's name
        for name, module in list(sys.modules.items()):
            if not name.startswith("fourcards.") or name in KERNEL_MODULES or name.endswith("._reference"):
                continue
            for attr, old in list(vars(module).items()):
                if id(old) in replaced and not attr.startswith("__"):
                    changed.append((module, attr, old))
                    setattr(module, attr, replaced[id(old)])
        yield
    finally:
        for module, name, old in reversed(changed):
            setattr(module, name, old)
