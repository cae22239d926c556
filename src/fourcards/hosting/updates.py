"""Per-seat updates: what changed in a seat's view since a step, in a size that does not grow with the match.

A host keeps a short **journal** with each match: one entry per stored version
(``from`` and ``to`` steps), holding the history records that version added
(each with the seats that may see it) and, for every seat and for spectators,
which fields of their view changed and how (:func:`changes`). An update since
step ``N`` merges the entries after ``N`` (:func:`merge`): the fields replaced
are sent whole, a list that only grew (every ask made so far, say) sends only its new
items, and the records are the ones added since, filtered for the seat. Only
the seat's own view is compared, so what an update holds, and which fields it
names, depend on nothing the seat may not see.

>>> changes({"hand": ["G1", "G2"], "asks": [1], "round": 1}, {"hand": ["G2"], "asks": [1, 2], "round": 1})
{'hand': -1, 'asks': 1}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from ..engine import Game

__all__ = ["REPLACED", "REMOVED", "changes", "merge", "SPECTATOR", "delta", "records_for", "record_entries"]

#: A field whose new value replaces the old one.
REPLACED: Final = -1
#: A field the view no longer has.
REMOVED: Final = -2
#: The journal's key of the spectators' view (seats are keyed by their number as text).
SPECTATOR: Final = "spectator"


def changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, int]:
    """How each changed top-level field of a view changed from ``old`` to ``new``:
    :data:`REPLACED`, :data:`REMOVED`, or, for a list that only grew at its end,
    the length it had (the new items start there)."""
    marks: dict[str, int] = {}
    for name, value in new.items():
        if name not in old:
            marks[name] = REPLACED
            continue
        before = old[name]
        if before == value:
            continue
        if (isinstance(before, list) and isinstance(value, list) and len(value) > len(before)
                and value[:len(before)] == before):
            marks[name] = len(before)
        else:
            marks[name] = REPLACED
    for name in old:
        if name not in new:
            marks[name] = REMOVED
    return marks


def _compose(first: int, then: int) -> int:
    """Two marks of one field in a row, as one."""
    if then in (REPLACED, REMOVED):
        return then
    if first == REMOVED:  # removed, then back: whole
        return REPLACED
    return first  # appended after appended: from the first start; replaced stays replaced


def merge(marks: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """The marks of several journal entries in a row (oldest first), as one set of marks."""
    merged: dict[str, int] = {}
    for entry in marks:
        for name, mark in entry.items():
            merged[name] = mark if name not in merged else _compose(merged[name], mark)
    return merged


def delta(view: Mapping[str, Any], marks: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, list[Any]],
                                                                     list[str]]:
    """The parts of the current ``view`` that merged ``marks`` name: ``(fields replaced
    with their value, new items of lists that grew, fields removed)``."""
    replaced: dict[str, Any] = {}
    appended: dict[str, list[Any]] = {}
    removed: list[str] = []
    for name, mark in marks.items():
        if name not in view:
            removed.append(name)
        elif mark >= 0 and isinstance(view[name], list) and len(view[name]) >= mark:
            if len(view[name]) > mark:
                appended[name] = view[name][mark:]
        else:
            replaced[name] = view[name]
    return replaced, appended, sorted(removed)


def records_for(entries: Sequence[Mapping[str, Any]], key: str, since: int) -> list[dict[str, Any]]:
    """The record views of ``entries`` added after step ``since`` that ``key`` (a seat as
    text, or :data:`SPECTATOR`) may see, oldest first; each with its ``step``."""
    found = []
    for entry in entries:
        for step, seats, view in entry["records"]:
            if step > since and (seats is None or key in seats):
                found.append({"step": step, **view})
    return found


def record_entries(game: Game[Any], records: Iterable[tuple[int, Any]], keys: Sequence[str]) -> list[list[Any]]:
    """``[step, keys that may see it or None for all, view]`` for each ``(step, record)``
    (several entries for one record when seats see it differently): each record passed
    through ``game.seat_record_view`` for each of ``keys`` (seats as text, and
    :data:`SPECTATOR`); a game that does not override it (every record public) costs one
    ``record_view`` a record."""
    public = type(game).seat_record_view is Game.seat_record_view
    entries: list[list[Any]] = []
    for step, record in records:
        if public:
            entries.append([step, None, game.record_view(record)])
            continue
        groups: dict[str, list[Any]] = {}
        for key in keys:
            view = game.seat_record_view(record, None if key == SPECTATOR else int(key))
            if view is not None:
                text = json.dumps(view, sort_keys=True)
                groups.setdefault(text, [view, []])[1].append(key)
        for view, seen in groups.values():
            entries.append([step, None if len(seen) == len(keys) else seen, view])
    return entries
