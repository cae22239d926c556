"""Names a package exports at the top but loads on first use (PEP 562), so
that importing a game's cards stays quick while ``fourcards.<game>.<Game>``
still works."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(namespace: dict[str, Any], where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from the relative module
    ``where[name]`` on first use and keeps it in ``namespace`` (the package's
    ``globals()``); it also puts a ``__dir__`` in ``namespace`` so that ``dir()``
    and completion list the names before their first use."""
    package = namespace["__name__"]

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    namespace["__dir__"] = __dir__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, package), name)
        namespace[name] = value
        return value

    return __getattr__
