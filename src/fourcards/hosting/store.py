"""Where hosted matches live between requests: a small interface, in memory and in SQLite.

A :class:`MatchStore` keeps one :class:`StoredMatch` per match id and changes
it only by **compare-and-swap on the step**: :meth:`MatchStore.replace` writes
a new version only while the stored one is still at the step the writer
loaded. Two requests that loaded the same version and both acted: one
replaces it, the other is told it lost (and nothing of it is stored).

The interface is four synchronous calls, each atomic and thread-safe. Any
database with a conditional update implements it: ``UPDATE ... WHERE id=?
AND step=?`` (one row changed or none), or an append-only log whose key
``(match, step)`` refuses a second entry at the same step (``log`` carries
the actions to append; see ``docs/embedding.md``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable

from ..errors import FourCardsError, InvalidTypeError

__all__ = ["LoggedAction", "StoredMatch", "MatchStore", "MemoryMatchStore", "SQLiteMatchStore"]


@dataclass(frozen=True)
class LoggedAction:
    """One action applied to a match: at ``step`` (the match's step before it), by ``seat``;
    ``bot`` when a bot of the match chose it; ``message``: the client's message id that
    asked for it, when the host keeps them (the bundled server does, to apply a retry once)."""

    step: int
    seat: int
    action: int
    bot: bool = False
    message: str | None = None


@dataclass(frozen=True)
class StoredMatch:
    """One version of a hosted match, as a store keeps it.

    ``step``: the match's step (its version: what compare-and-swap compares);
    ``save``: the signed snapshot of the match (``State.to_json(key,
    snapshot=True)``: it reveals every hand, so it is never sent to a client);
    ``data``: the host's JSON text (seats, bots' memory, the journal of recent
    updates); ``log``: the actions applied since the version it replaces (for
    a store that appends them to a log; the save holds them all anyway)."""

    id: str
    step: int
    save: str
    data: str
    log: tuple[LoggedAction, ...] = ()


@runtime_checkable
class MatchStore(Protocol):
    """The storage a :class:`~fourcards.hosting.MatchService` needs (each call atomic, thread-safe)."""

    def get(self, match_id: str) -> StoredMatch | None:
        """The stored version of ``match_id``, or None when there is none."""

    def create(self, match: StoredMatch) -> bool:
        """Store a new match; False (and nothing stored) when its id is taken."""

    def replace(self, match: StoredMatch, expected_step: int) -> bool:
        """Store ``match`` over the stored version of its id if that is at ``expected_step``;
        False (and nothing stored) when it is not, or when there is none."""

    def delete(self, match_id: str) -> bool:
        """Forget ``match_id``; False when there was nothing to forget."""


def check_match_id(match_id: Any) -> str:
    """A store's ``match_id`` argument: :class:`~fourcards.errors.InvalidTypeError` unless a str,
    a :class:`FourCardsError` for text no database can hold (a lone surrogate)."""
    if not isinstance(match_id, str):
        raise InvalidTypeError(f"match_id must be a str, not {type(match_id).__name__} {match_id!r:.80}")
    _check_text(match_id, "match_id")
    return match_id


def _check_text(text: str, name: str) -> None:
    """Refuse text that is not Unicode a database can store (UTF-8: no lone surrogate)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise FourCardsError(f"{name} holds {text[error.start:error.end]!r}, which is not Unicode text "
                                 "a store can hold (a lone surrogate)") from None


def check_stored_match(match: Any, expected_step: Any = 0) -> StoredMatch:
    """A store's ``match`` (and ``expected_step``) argument: :class:`~fourcards.errors.InvalidTypeError`
    unless a :class:`StoredMatch` with a str id, an int step and str save and data (and an int)."""
    if not isinstance(match, StoredMatch):
        raise InvalidTypeError(f"match must be a StoredMatch, not {type(match).__name__} {match!r:.80}")
    for name, value, kind in (("id", match.id, str), ("step", match.step, int), ("save", match.save, str),
                              ("data", match.data, str)):
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InvalidTypeError(f"match.{name} must be a {kind.__name__}, not {type(value).__name__} "
                                   f"{value!r:.80}")
    if type(expected_step) is not int:
        raise InvalidTypeError(f"expected_step must be an int, not {type(expected_step).__name__} "
                               f"{expected_step!r:.80}")
    for name, step in (("match.step", match.step), ("expected_step", expected_step)):
        if not 0 <= step <= MAX_STEP:
            raise FourCardsError(f"{name}={step} must be a step 0..2**63-1 (what a store's integer holds)")
    for name, text in (("match.id", match.id), ("match.save", match.save), ("match.data", match.data)):
        _check_text(text, name)
    return match


#: The highest step a store holds (a signed 64-bit integer in SQLite and PostgreSQL).
MAX_STEP: Final = 2**63 - 1


class MemoryMatchStore:
    """Matches in a dict, behind a lock: one process, nothing kept after it (tests, demos)."""

    def __init__(self) -> None:
        self._matches: dict[str, StoredMatch] = {}
        self._lock = threading.Lock()

    def get(self, match_id: str) -> StoredMatch | None:
        check_match_id(match_id)
        with self._lock:
            return self._matches.get(match_id)

    def create(self, match: StoredMatch) -> bool:
        check_stored_match(match)
        with self._lock:
            if match.id in self._matches:
                return False
            self._matches[match.id] = match
            return True

    def replace(self, match: StoredMatch, expected_step: int) -> bool:
        check_stored_match(match, expected_step)
        with self._lock:
            stored = self._matches.get(match.id)
            if stored is None or stored.step != expected_step:
                return False
            self._matches[match.id] = match
            return True

    def delete(self, match_id: str) -> bool:
        check_match_id(match_id)
        with self._lock:
            return self._matches.pop(match_id, None) is not None

    def __len__(self) -> int:
        with self._lock:
            return len(self._matches)


def check_database_path(path: object) -> str:
    """An SQLite file's ``path`` (a str or a Path; ``":memory:"``) as text, refused when it names no
    file a database can be (None, a number, '', a NUL, a lone surrogate, a folder or a device):
    :class:`~fourcards.errors.InvalidTypeError` or :class:`FourCardsError`."""
    if not isinstance(path, (str, os.PathLike)):  # None or 5 made a file "None" or "5" here
        raise InvalidTypeError(f"path must be a file path (str or Path) or ':memory:', not "
                               f"{type(path).__name__} {path!r:.80}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise InvalidTypeError(f"path must be a text path, not {type(text).__name__}")
    if not text or "\0" in text:
        raise FourCardsError(f"path {text!r:.80} is not a file name (empty, or a NUL character)")
    _check_text(text, "path")
    if text != ":memory:" and os.path.exists(text) and not os.path.isfile(text):
        raise FourCardsError(f"path {text!r:.80} is not a regular file (a folder or a device): no database")
    return text


_SCHEMA = """
CREATE TABLE IF NOT EXISTS hosted_matches (
    id TEXT PRIMARY KEY, step INTEGER NOT NULL, save TEXT NOT NULL, data TEXT NOT NULL,
    created REAL NOT NULL, updated REAL NOT NULL)
"""


class SQLiteMatchStore:
    """Matches in an SQLite file (created when missing; ``":memory:"`` for none), one row
    each; compare-and-swap is ``UPDATE ... WHERE id=? AND step=?``, so it holds across
    threads and across processes sharing the file (WAL mode; a writer waits up to
    ``timeout`` seconds for another). ``synchronous``: SQLite's ``FULL`` (default: a
    replaced match is on disk when :meth:`replace` returns) or ``NORMAL``."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0, synchronous: str = "FULL") -> None:
        if synchronous not in ("FULL", "NORMAL"):
            raise FourCardsError(f"synchronous must be 'FULL' or 'NORMAL', not {synchronous!r}")
        self.path = check_database_path(path)
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=timeout, check_same_thread=False, isolation_level=None)
            self._lock = threading.Lock()
            with self._lock:
                if self.path != ":memory:":
                    self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(f"PRAGMA synchronous={synchronous}")
                self._db.execute(_SCHEMA)
        except (sqlite3.Error, OSError) as error:
            raise FourCardsError(f"cannot keep matches in the SQLite file {self.path!r:.80}: "
                                 f"{getattr(error, 'strerror', None) or error}") from None

    def get(self, match_id: str) -> StoredMatch | None:
        check_match_id(match_id)
        with self._lock:
            row = self._db.execute("SELECT step, save, data FROM hosted_matches WHERE id=?", (match_id,)).fetchone()
        return None if row is None else StoredMatch(match_id, int(row[0]), row[1], row[2])

    def create(self, match: StoredMatch) -> bool:
        check_stored_match(match)
        now = time.time()
        try:
            with self._lock:
                self._db.execute("INSERT INTO hosted_matches (id, step, save, data, created, updated) "
                                 "VALUES (?,?,?,?,?,?)", (match.id, match.step, match.save, match.data, now, now))
        except sqlite3.IntegrityError:
            return False
        return True

    def replace(self, match: StoredMatch, expected_step: int) -> bool:
        check_stored_match(match, expected_step)
        with self._lock:
            done = self._db.execute("UPDATE hosted_matches SET step=?, save=?, data=?, updated=? "
                                    "WHERE id=? AND step=?",
                                    (match.step, match.save, match.data, time.time(), match.id, expected_step))
        return done.rowcount == 1

    def delete(self, match_id: str) -> bool:
        check_match_id(match_id)
        with self._lock:
            done = self._db.execute("DELETE FROM hosted_matches WHERE id=?", (match_id,))
        return done.rowcount == 1

    def __len__(self) -> int:
        with self._lock:
            count: int = self._db.execute("SELECT COUNT(*) FROM hosted_matches").fetchone()[0]
        return count

    def close(self) -> None:
        with self._lock:
            self._db.close()
