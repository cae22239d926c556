"""Reading a file a person names, bounded: ``/dev/zero`` or a huge file is refused, not read for ever."""

from __future__ import annotations

import os

__all__ = ["read_at_most"]


def read_at_most(path: str | os.PathLike[str], most: int) -> bytes | None:
    """The bytes of the file ``path``, or None when it holds more than ``most`` bytes (read no
    further than one byte past them: a device that never ends is refused at once).
    ``OSError`` (and ``ValueError`` for a NUL in the name) when it cannot be read."""
    with open(path, "rb") as file:
        data = file.read(most + 1)
    return data if len(data) <= most else None
