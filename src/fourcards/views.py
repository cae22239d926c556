"""JSON views of a game's values: what the server sends, the page draws, the
terminal prints and RL ``render()`` shows.

Every game gets these defaults from the engine contract (see
:meth:`fourcards.engine.Game.observation_view`, ``record_view`` and
``action_view``), built from the dataclass fields of its observations, records
and readable actions; a game overrides them only to say more.

- Values with a notation of their own (a class that defines ``__str__``:
  cards, combinations, Zangles) are their text.
- Dataclasses are objects of their fields; at the top of a view they carry
  their class under ``kind`` in snake case (``CardGiven`` -> ``card_given``).
- Tuples and lists are lists, mappings are objects with text keys, numpy
  values are plain numbers, enums their name.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Played:
...     player: int
...     cards: tuple[str, ...]
>>> fields_view(Played(2, ("G3", "Y3")))
{'kind': 'played', 'player': 2, 'cards': ['G3', 'Y3']}
>>> record_text(Played(2, ("G3", "Y3")))
'P2 played: cards G3 Y3'
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["plain", "kind_of", "fields_view", "record_text", "has_notation"]


def has_notation(value: Any) -> bool:
    """Whether ``value``'s class prints itself (defines its own ``__str__``)."""
    own: Any = type(value).__str__
    return own is not object.__str__ and not isinstance(value, (int, float, str, bool))


def kind_of(value: Any) -> str:
    """A class name in snake case: ``CardGiven`` -> ``card_given``."""
    name = type(value).__name__
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def plain(value: Any) -> Any:
    """``value`` as JSON data (see the module's rules)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, (tuple, list, frozenset, set)):
        items = [plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if has_notation(value):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return str(value)


def fields_view(value: Any) -> dict[str, Any]:
    """A dataclass at the top of a view: ``kind`` then its fields as JSON data
    (even when the class prints itself: its fields say more than its text)."""
    data: dict[str, Any] = {"kind": kind_of(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if not f.name.startswith("_"):
                data[f.name] = plain(getattr(value, f.name))
    else:
        data["value"] = plain(value)
    return data


def _words(name: str, value: Any) -> str:
    if isinstance(value, list):
        return " ".join(_words("", v) for v in value) or "none"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {_words('', v)}" for k, v in value.items()) + "}"
    return str(value)


def record_text(record: Any) -> str:
    """A readable line for a record a game gave no text of its own: the record's
    own text if it prints itself, else its kind (after its ``player`` as ``P2``)
    and its fields."""
    if has_notation(record):
        return str(record)
    view = fields_view(record)
    kind = view.pop("kind").replace("_", " ")
    player = view.pop("player", None)
    head = f"P{player} {kind}" if isinstance(player, int) else kind
    rest = "; ".join(f"{name.replace('_', ' ')} {_words(name, value)}" for name, value in view.items())
    return f"{head}: {rest}" if rest else head
