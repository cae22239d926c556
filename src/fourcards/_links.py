"""What the engine and its snapshots share about a state's layout: its slots and its links.

A state keeps its history as links ``(newest, (older, (..., None)))``, so that
``clone()`` shares them; :func:`unroll` reads one, oldest first.
"""

from __future__ import annotations

from typing import Any

__all__ = ["unroll", "slot_names"]


def unroll(node: Any) -> tuple[Any, ...]:
    """The items of a linked log ``(newest, (older, (..., None)))``, oldest first.

    States keep their history as such links so that ``clone()`` shares it."""
    items = []
    while node is not None:
        items.append(node[0])
        node = node[1]
    items.reverse()
    return tuple(items)


def slot_names(cls: type) -> list[str]:
    """The slots of ``cls`` and its bases, base first."""
    slots: list[str] = []
    for klass in reversed(cls.__mro__):
        for name in klass.__dict__.get("__slots__", ()):
            if name not in ("__weakref__", "__dict__") and name not in slots:
                slots.append(name)
    return slots
