"""Choose between the compiled core and its pure-Python twin.

``FOURCARDS_NO_EXTENSIONS=1`` selects the pure-Python kernels.  Otherwise the
compiled core is used when it imports; ``FOURCARDS_REQUIRE_EXTENSIONS=1``
turns a failed import into an error instead of a silent fallback (the wheel
tests set it, so a wheel whose extension did not build cannot pass).
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["COMPILED", "core"]


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def _load() -> ModuleType | None:
    if _flag("FOURCARDS_NO_EXTENSIONS"):
        return None
    try:
        from . import _core
    except ImportError:
        if _flag("FOURCARDS_REQUIRE_EXTENSIONS"):
            raise
        return None
    return _core


core: ModuleType | None = _load()
COMPILED: bool = core is not None
"""Whether the compiled core is in use."""
