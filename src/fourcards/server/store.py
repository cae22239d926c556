"""Where tables live between restarts: one small interface, and SQLite behind it.

A table is stored as what it was created with (game, rules, seed, setup, an
uploaded deck, the seats, whether it is private and its invitation's SHA-256) and its log: one entry per applied action (or
real-time event), with the seat and the client's message id. Recovery is
replay: the log, applied again in order, gives the same match.

:class:`SQLiteStore` writes from one thread, in WAL mode with
``synchronous=FULL``; entries waiting at the same moment are committed in one
transaction (group commit), and :meth:`SQLiteStore.append` returns only once
its entry is on disk, so the server acknowledges nothing it could lose.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

__all__ = ["SeatRecord", "TableRecord", "LogEntry", "StoredTable", "Store", "SharedStore", "SQLiteStore"]



def next_batch(jobs: queue.Queue[Any], limit: int = 512) -> list[Any] | None:
    """A writer thread's next group commit: the next job and those already waiting
    (at most ``limit``), or None once the queue says stop (a None job, left in
    the queue for the next look)."""
    job = jobs.get()
    if job is None:
        return None
    batch = [job]
    while len(batch) < limit:
        try:
            more = jobs.get_nowait()
        except queue.Empty:
            break
        if more is None:
            jobs.put(None)
            break
        batch.append(more)
    return batch

@dataclass(frozen=True)
class SeatRecord:
    """A seat: ``kind`` ``human`` (``token_hash`` once claimed) or ``bot`` (``bot`` its kind)."""

    kind: str
    name: str = ""
    bot: str | None = None
    token_hash: str | None = None


@dataclass(frozen=True)
class TableRecord:
    """What a table was created with."""

    id: str
    game: str
    rules: dict[str, Any]
    seed: int
    seats: tuple[SeatRecord, ...]
    setup: dict[str, Any] = field(default_factory=dict)
    deck: str | None = None
    created: float = 0.0
    #: A private table is not listed; seeing, watching or joining it needs its invitation.
    private: bool = False
    #: The invitation's SHA-256 (hex): the secret itself is never stored.
    invite_hash: str | None = None


@dataclass(frozen=True)
class LogEntry:
    """One applied action (``action``) or real-time event (``event``), in order."""

    index: int
    seat: int
    client_id: str | None
    action: int | None = None
    event: dict[str, Any] | None = None


@dataclass
class StoredTable:
    table: TableRecord
    log: list[LogEntry]


class Store(Protocol):
    """The storage interface the server needs (another database only implements these)."""

    def load(self) -> list[StoredTable]:
        """Every table with its log, in creation order (called once, at start)."""

    async def create_table(self, table: TableRecord) -> None:
        """Store a new table (durable when it returns)."""

    async def set_seat(self, table_id: str, seat: int, record: SeatRecord) -> None:
        """Replace one seat's record (a claimed seat; durable when it returns)."""

    async def append(self, table_id: str, entry: LogEntry) -> None:
        """Add one log entry (durable when it returns; entries of a table in order)."""

    async def delete_table(self, table_id: str) -> None:
        """Forget a table, its seats and its log (an expired or dropped table; durable when it returns)."""

    def close(self) -> None: ...


class SharedStore(Store, Protocol):
    """A store several server processes share (``shared = True``; :class:`~fourcards.server.pgstore.PostgresStore`):
    each table is held by one process at a time under a lease, and its writes are refused once
    another process took it over."""

    shared: bool
    lease_seconds: float
    #: Called in the event loop with a table's id when this process lost its lease.
    on_lost: Callable[[str], None] | None

    async def acquire(self, table_id: str) -> StoredTable | Any | None:
        """Take a table over when no live process holds it: the table and its log; else an
        ``Elsewhere`` (where it is); None when no table has this id."""

    def release(self, table_id: str) -> None:
        """Stop holding a table (it is no longer served here)."""

    async def load_table(self, table_id: str) -> StoredTable | None:
        """One table and its log, read without a lease."""

    async def summaries(self) -> list[tuple[str, dict[str, Any] | None]]:
        """Every public table's id and the summary its owner stored, in creation order."""

    async def save_summary(self, table_id: str, summary: dict[str, Any]) -> None:
        """Store a held table's summary (for the other processes' listing)."""

    async def expired(self, limit: int = 100) -> list[str]:
        """Tables no live process holds (their lease expired)."""


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seed TEXT NOT NULL,
    setup TEXT NOT NULL, deck TEXT, created REAL NOT NULL, position INTEGER NOT NULL,
    private INTEGER NOT NULL DEFAULT 0, invite_hash TEXT);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    bot TEXT, token_hash TEXT, PRIMARY KEY (table_id, seat));
CREATE TABLE IF NOT EXISTS log (
    table_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL, client_id TEXT,
    action INTEGER, event TEXT, PRIMARY KEY (table_id, idx));
"""

#: Columns added to ``tables`` since its first version, added to an older file when it is opened.
_ADDED_COLUMNS = (("private", "INTEGER NOT NULL DEFAULT 0"), ("invite_hash", "TEXT"))


class SQLiteStore:
    """An embedded SQLite file (created when missing): no set-up."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        self._migrate()
        self._position = self._db.execute("SELECT COALESCE(MAX(position), 0) FROM tables").fetchone()[0]
        self._queue: queue.Queue[tuple[list[tuple[str, Sequence[Any]]], asyncio.Future[None]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._writer, name="fourcards-store", daemon=True)
        self._thread.start()
        self.commits = 0
        """Transactions committed (each may hold many entries)."""

    def _migrate(self) -> None:
        """Bring a file written by an older server up to the current schema (columns added)."""
        present = {row[1] for row in self._db.execute("PRAGMA table_info(tables)")}
        for name, declaration in _ADDED_COLUMNS:
            if name not in present:
                self._db.execute(f"ALTER TABLE tables ADD COLUMN {name} {declaration}")

    # -- reading (at start) --------------------------------------------------------------------
    def load(self) -> list[StoredTable]:
        db = sqlite3.connect(self.path)
        try:
            seats: dict[str, list[SeatRecord]] = {}
            for table_id, _seat, kind, name, bot, token_hash in db.execute(
                    "SELECT table_id, seat, kind, name, bot, token_hash FROM seats ORDER BY table_id, seat"):
                seats.setdefault(table_id, []).append(SeatRecord(kind, name, bot, token_hash))
            logs: dict[str, list[LogEntry]] = {}
            for table_id, idx, seat, client_id, action, event in db.execute(
                    "SELECT table_id, idx, seat, client_id, action, event FROM log ORDER BY table_id, idx"):
                logs.setdefault(table_id, []).append(
                    LogEntry(idx, seat, client_id, action, None if event is None else json.loads(event)))
            result = []
            for table_id, game, rules, seed, setup, deck, created, private, invite_hash in db.execute(
                    "SELECT id, game, rules, seed, setup, deck, created, private, invite_hash FROM tables "
                    "ORDER BY position"):
                record = TableRecord(table_id, game, json.loads(rules), int(seed), tuple(seats.get(table_id, ())),
                                     json.loads(setup), deck, created, bool(private), invite_hash)
                result.append(StoredTable(record, logs.get(table_id, [])))
            return result
        finally:
            db.close()

    # -- writing ----------------------------------------------------------------------------------
    async def _write(self, statements: list[tuple[str, Sequence[Any]]]) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put((statements, future))
        await future

    async def create_table(self, table: TableRecord) -> None:
        self._position += 1
        statements: list[tuple[str, Sequence[Any]]] = [(
            "INSERT INTO tables (id, game, rules, seed, setup, deck, created, position, private, invite_hash) "
            "VALUES (?,?,?,?,?,?,?,?,?,?)",
            (table.id, table.game, json.dumps(table.rules), str(table.seed), json.dumps(table.setup), table.deck,
             table.created, self._position, int(table.private), table.invite_hash))]
        for seat, record in enumerate(table.seats):
            statements.append(("INSERT INTO seats (table_id, seat, kind, name, bot, token_hash) VALUES (?,?,?,?,?,?)",
                               (table.id, seat, record.kind, record.name, record.bot, record.token_hash)))
        await self._write(statements)

    async def set_seat(self, table_id: str, seat: int, record: SeatRecord) -> None:
        await self._write([("UPDATE seats SET kind=?, name=?, bot=?, token_hash=? WHERE table_id=? AND seat=?",
                            (record.kind, record.name, record.bot, record.token_hash, table_id, seat))])

    async def append(self, table_id: str, entry: LogEntry) -> None:
        await self._write([("INSERT INTO log (table_id, idx, seat, client_id, action, event) VALUES (?,?,?,?,?,?)",
                            (table_id, entry.index, entry.seat, entry.client_id, entry.action,
                             None if entry.event is None else json.dumps(entry.event)))])

    async def delete_table(self, table_id: str) -> None:
        await self._write([(f"DELETE FROM {name} WHERE {column}=?", (table_id,))
                           for name, column in (("log", "table_id"), ("seats", "table_id"), ("tables", "id"))])

    def _writer(self) -> None:
        """Commit what waits, batch after batch, until told to stop. It survives anything: a
        batch that fails is committed again one entry at a time, so that a bad entry fails only
        itself (its future gets the error) and never its neighbours."""
        while True:
            batch = next_batch(self._queue)
            if batch is None:
                return
            try:
                errors = self._commit(batch)
            except BaseException as error:  # not expected (_commit catches): the writer must go on
                errors = [error] * len(batch)
            settle([future for _, future in batch], errors)

    def _commit(self, batch: list[tuple[list[tuple[str, Sequence[Any]]], asyncio.Future[None]]]
                ) -> list[BaseException | None]:
        """Commit the batch in one transaction; when that fails, each entry in its own."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for statements, _ in batch:
                for sql, parameters in statements:
                    self._db.execute(sql, parameters)
            self._db.execute("COMMIT")
            self.commits += 1
            return [None] * len(batch)
        except Exception as failure:  # sqlite3.Error, and what a value may raise (UnicodeEncodeError...)
            with contextlib.suppress(Exception):
                self._db.execute("ROLLBACK")
            if len(batch) == 1:
                return [failure]
        return [self._commit([job])[0] for job in batch]

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)
        self._db.close()


def settle(futures: Sequence[asyncio.Future[None]], errors: Sequence[BaseException | None]) -> None:
    """Settle each future with its error (or its result): one wake-up of each event loop for
    the whole batch, not one per entry. A loop already closed is skipped."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]] = {}
    for future, error in zip(futures, errors):
        by_loop.setdefault(future.get_loop(), []).append((future, error))
    for loop, pairs in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a loop already closed
            loop.call_soon_threadsafe(_settle_pairs, pairs)


def _settle_pairs(pairs: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    for future, error in pairs:
        if future.done():
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)
