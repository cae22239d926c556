"""Where tables live between restarts: one small interface, and SQLite behind it.

A table is stored as what it was created with (game, rules, seed, setup, an
uploaded deck, the seats, whether it is private and its invitation's SHA-256),
its latest version (``step``, a signed ``snapshot`` of the match and the host's
``data``: what :mod:`fourcards.hosting` stores) and its log: one entry per
applied action (or real-time event), with the seat and the client's message id.
Recovery restores a turn table from its snapshot (no replay) and reads the
log's message ids; a table without a snapshot (a real-time table, or one
written by an older server) is replayed from its log.

Every store of the server is a :class:`fourcards.hosting.MatchStore` too
(``get``, ``create``, ``replace`` with a compare-and-swap on the step,
``delete``): the server acts through ``replace`` (``replace_async``), and any
:class:`~fourcards.hosting.MatchService` may keep its matches in the same
database.

:class:`SQLiteStore` writes from one thread, in WAL mode with
``synchronous=FULL``; entries waiting at the same moment are committed in one
transaction (group commit), and each write returns only once it is on disk, so
the server acknowledges nothing it could lose.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import json
import os
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Union

from ..errors import FourCardsError
from .._files import read_at_most
from ..hosting.store import MatchStore, StoredMatch, check_database_path, check_match_id, check_stored_match

__all__ = ["SeatRecord", "TableRecord", "LogEntry", "StoredTable", "Store", "SharedStore", "SQLiteStore",
           "read_key_file", "kept_key"]


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
    """A stored table: what it was made with, its latest version (``match``: the step, the
    signed snapshot and the host's data; None for a table that has no snapshot) and its
    log. When ``match`` is there, ``log`` is empty (the snapshot is the match: nothing of
    the log is read at start; the entries with a client message id are read when the
    table's first action comes, :meth:`SQLiteStore.read_ids`); else the whole log, to
    replay. :meth:`SQLiteStore.read_log` reads the whole log of one table."""

    table: TableRecord
    log: list[LogEntry]
    match: StoredMatch | None = None


class Store(MatchStore, Protocol):
    """The storage interface the server needs (another database only implements these).

    It is a :class:`fourcards.hosting.MatchStore` (``get``, ``create``, ``replace``,
    ``delete``: synchronous, thread-safe, for any caller but the event loop) and has the
    server's own calls besides (``async``: durable when they return)."""

    def load(self) -> list[StoredTable]:
        """Every table of the server with its latest version and its log, in creation order
        (called once, at start; see :class:`StoredTable`)."""

    def read_log(self, table_id: str) -> list[LogEntry]:
        """The whole log of one table, in order (a table whose snapshot does not load is
        replayed from it)."""

    def read_ids(self, table_id: str) -> list[LogEntry]:
        """The entries of one table's log that carry a client message id, in order (what a
        table restored from its snapshot needs to apply a retry once)."""

    async def create_table(self, table: TableRecord, match: StoredMatch | None = None) -> None:
        """Store a new table with its first version (``match``; none for a real-time table)."""

    async def set_seat(self, table_id: str, seat: int, record: SeatRecord) -> None:
        """Replace one seat's record (a claimed seat; durable when it returns)."""

    async def append(self, table_id: str, entry: LogEntry) -> None:
        """Add one log entry (a real-time table's event; durable when it returns; in order)."""

    async def replace_async(self, match: StoredMatch, expected_step: int) -> bool:
        """:meth:`replace` for the event loop: the new version of a table stored (and the
        actions of ``match.log`` appended to its log) if the stored one is still at
        ``expected_step``; False, and nothing stored, when it is not."""

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
        """Take a table over when no live process holds it: the table, its version and its
        log (as :meth:`load` gives them); else an ``Elsewhere`` (where it is); None when no
        table has this id."""

    def release(self, table_id: str) -> None:
        """Stop holding a table (it is no longer served here)."""

    async def load_table(self, table_id: str) -> StoredTable | None:
        """One table, its version and its log, read without a lease."""

    async def summaries(self) -> list[tuple[str, dict[str, Any] | None]]:
        """Every public table's id and the summary its owner stored, in creation order."""

    async def save_summary(self, table_id: str, summary: dict[str, Any]) -> None:
        """Store a held table's summary (for the other processes' listing)."""

    async def expired(self, limit: int = 100) -> list[str]:
        """Tables no live process holds (their lease expired)."""


def hosted_game(match: StoredMatch) -> str:
    """The game a match stored through :meth:`~fourcards.hosting.MatchStore.create` names in its
    data (``""`` when it names none): the ``game`` column of a row no server table owns."""
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        game = json.loads(match.data).get("game")
        if isinstance(game, str):
            return game
    return ""


#: Settles a job: its asyncio future (an event loop's caller) or its concurrent one (a thread's).
Future = Union["asyncio.Future[Any]", "concurrent.futures.Future[Any]"]


@dataclass
class WriteJob:
    """Statements a writer commits together, for one caller (``future``). ``cas``: the first
    statement is a compare-and-swap, which must change exactly one row; when it changes none,
    the job's other statements are skipped and its result is False (its neighbours go on).
    ``fence`` (PostgreSQL): ``(table, epoch)``, written only while this process holds that lease."""

    statements: list[tuple[str, Sequence[Any]]]
    future: Future
    cas: bool = False
    fence: tuple[str, int] | None = None


async def wait_job(job: WriteJob) -> Any:
    """Wait (in the event loop) for a job queued with an asyncio future."""
    return await job.future  # type: ignore[misc]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seed TEXT NOT NULL,
    setup TEXT NOT NULL, deck TEXT, created REAL NOT NULL, position INTEGER NOT NULL,
    private INTEGER NOT NULL DEFAULT 0, invite_hash TEXT, step INTEGER, snapshot TEXT, data TEXT);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    bot TEXT, token_hash TEXT, PRIMARY KEY (table_id, seat));
CREATE TABLE IF NOT EXISTS log (
    table_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL, client_id TEXT,
    action INTEGER, event TEXT, PRIMARY KEY (table_id, idx));
"""

#: Columns added to ``tables`` since its first version, added to an older file when it is opened.
_ADDED_COLUMNS = (("private", "INTEGER NOT NULL DEFAULT 0"), ("invite_hash", "TEXT"), ("step", "INTEGER"),
                  ("snapshot", "TEXT"), ("data", "TEXT"))

#: A table written by a server before snapshots: its step is its log's length (one entry an action).
_STEP_FROM_LOG = ("UPDATE tables SET step = (SELECT COUNT(*) FROM log WHERE log.table_id = tables.id) "
                  "WHERE step IS NULL")

#: The compare-and-swap of :meth:`~fourcards.hosting.MatchStore.replace`, and the log entries it appends.
REPLACE_SQL = "UPDATE tables SET step=?, snapshot=?, data=? WHERE id=? AND step=?"
INSERT_LOG_SQL = "INSERT INTO log (table_id, idx, seat, client_id, action, event) VALUES (?,?,?,?,?,?)"
DELETE_SQL = tuple(f"DELETE FROM {name} WHERE {column}=?"
                   for name, column in (("log", "table_id"), ("seats", "table_id"), ("tables", "id")))


def replace_statements(match: StoredMatch, expected_step: int, mark: str = "?") -> list[tuple[str, Sequence[Any]]]:
    """The statements of ``replace(match, expected_step)``: the compare-and-swap, then one log
    entry for each action of ``match.log`` (``mark``: the database's parameter mark)."""
    statements: list[tuple[str, Sequence[Any]]] = [
        (REPLACE_SQL.replace("?", mark), (match.step, match.save, match.data, match.id, expected_step))]
    statements.extend((INSERT_LOG_SQL.replace("?", mark), (match.id, a.step, a.seat, a.message, a.action, None))
                      for a in match.log)
    return statements


class SQLiteStore:
    """An embedded SQLite file (created when missing): no set-up.

    One writer thread commits every write (group commit); reads use connections of their
    own (WAL: they never wait for the writer), but for ``":memory:"``, where everything
    goes through the writer's connection under a lock."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = check_database_path(path)  # SQLiteStore(None) made a file named None
        self._memory = self.path == ":memory:"
        try:
            if not self._memory:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except (sqlite3.Error, OSError) as error:
            raise FourCardsError(f"cannot keep tables in the SQLite file {self.path!r:.80}: "
                                 f"{getattr(error, 'strerror', None) or error}") from None
        self._migrate()
        last: int = self._db.execute("SELECT COALESCE(MAX(position), 0) FROM tables").fetchone()[0]
        self._positions = itertools.count(last + 1)
        self._positions_lock = threading.Lock()
        #: Held around each transaction of an in-memory database (its readers share the connection).
        self._memory_lock = threading.Lock()
        self._memory_key: bytes | None = None
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._queue: queue.Queue[WriteJob | None] = queue.Queue()
        self._thread = threading.Thread(target=self._writer, name="fourcards-store", daemon=True)
        self._thread.start()
        self.commits = 0
        """Transactions committed (each may hold many entries)."""

    def _migrate(self) -> None:
        """Bring a file written by an older server up to the current schema (columns added;
        the tables written before snapshots get their step from their log)."""
        present = {row[1] for row in self._db.execute("PRAGMA table_info(tables)")}
        for name, declaration in _ADDED_COLUMNS:
            if name not in present:
                self._db.execute(f"ALTER TABLE tables ADD COLUMN {name} {declaration}")
        if "step" not in present:
            self._db.execute(_STEP_FROM_LOG)

    def _position(self) -> int:
        with self._positions_lock:
            return next(self._positions)

    # -- reading ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _reader(self) -> Iterator[sqlite3.Connection]:
        """A connection to read with (one of a small pool; the writer's, locked, in memory)."""
        if self._memory:
            with self._memory_lock:
                yield self._db
            return
        with self._readers_lock:
            db = self._readers.pop() if self._readers else None
        if db is None:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            yield db
        except BaseException:
            db.close()
            raise
        with self._readers_lock:
            if len(self._readers) < 4:
                self._readers.append(db)
                return
        db.close()

    def load(self) -> list[StoredTable]:
        with self._reader() as db:
            return read_tables(db, None, "?")

    def key(self) -> bytes:
        """The server's signing key kept beside the file (``PATH.key``, made on first use, readable
        by its owner only); a new random one for an in-memory database (nothing outlives it)."""
        if self._memory:
            if self._memory_key is None:
                self._memory_key = secrets.token_bytes(32)
            return self._memory_key
        return kept_key(Path(self.path + ".key"))

    def read_log(self, table_id: str) -> list[LogEntry]:
        with self._reader() as db:
            return read_entries(db, table_id, "?", False)

    def read_ids(self, table_id: str) -> list[LogEntry]:
        with self._reader() as db:
            return read_entries(db, table_id, "?", True)

    # -- the MatchStore calls (any thread but the event loop) --------------------------------------------
    def get(self, match_id: str) -> StoredMatch | None:
        check_match_id(match_id)
        with self._reader() as db:
            row = db.execute("SELECT step, snapshot, data FROM tables WHERE id=?", (match_id,)).fetchone()
        if row is None or row[1] is None or row[0] is None:
            return None
        return StoredMatch(match_id, int(row[0]), row[1], row[2] or "")

    def create(self, match: StoredMatch) -> bool:
        """Store a match of a :class:`~fourcards.hosting.MatchService` (a row of its own, with
        no seats: the server does not serve it); False when the id is taken."""
        check_stored_match(match)
        statement = ("INSERT INTO tables (id, game, rules, seed, setup, deck, created, position, private, "
                     "invite_hash, step, snapshot, data) VALUES (?,?,'{}','0','{}',NULL,?,?,1,NULL,?,?,?)",
                     (match.id, hosted_game(match), time.time(), self._position(), match.step, match.save,
                      match.data))
        try:
            self._run(WriteJob([statement], concurrent.futures.Future()))
        except sqlite3.IntegrityError:
            return False
        return True

    def replace(self, match: StoredMatch, expected_step: int) -> bool:
        check_stored_match(match, expected_step)
        return bool(self._run(WriteJob(replace_statements(match, expected_step), concurrent.futures.Future(),
                                       cas=True)))

    def delete(self, match_id: str) -> bool:
        check_match_id(match_id)
        # The row first, as the compare-and-swap: nothing to forget, nothing done (False).
        statements: list[tuple[str, Sequence[Any]]] = [(sql, (match_id,))
                                                       for sql in (DELETE_SQL[2], DELETE_SQL[0], DELETE_SQL[1])]
        return bool(self._run(WriteJob(statements, concurrent.futures.Future(), cas=True)))

    def _run(self, job: WriteJob) -> Any:
        """Queue a job and wait for it in this thread (never call from the event loop)."""
        self._queue.put(job)
        assert isinstance(job.future, concurrent.futures.Future)
        return job.future.result()

    # -- the server's calls (the event loop) ---------------------------------------------------------
    async def _write(self, statements: list[tuple[str, Sequence[Any]]], cas: bool = False) -> Any:
        job = WriteJob(statements, asyncio.get_running_loop().create_future(), cas)
        self._queue.put(job)
        return await wait_job(job)

    async def create_table(self, table: TableRecord, match: StoredMatch | None = None) -> None:
        statements: list[tuple[str, Sequence[Any]]] = [(
            "INSERT INTO tables (id, game, rules, seed, setup, deck, created, position, private, invite_hash, "
            "step, snapshot, data) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (table.id, table.game, json.dumps(table.rules), str(table.seed), json.dumps(table.setup), table.deck,
             table.created, self._position(), int(table.private), table.invite_hash,
             0 if match is None else match.step, None if match is None else match.save,
             None if match is None else match.data))]
        for seat, record in enumerate(table.seats):
            statements.append(("INSERT INTO seats (table_id, seat, kind, name, bot, token_hash) VALUES (?,?,?,?,?,?)",
                               (table.id, seat, record.kind, record.name, record.bot, record.token_hash)))
        await self._write(statements)

    async def set_seat(self, table_id: str, seat: int, record: SeatRecord) -> None:
        await self._write([("UPDATE seats SET kind=?, name=?, bot=?, token_hash=? WHERE table_id=? AND seat=?",
                            (record.kind, record.name, record.bot, record.token_hash, table_id, seat))])

    async def append(self, table_id: str, entry: LogEntry) -> None:
        await self._write([(INSERT_LOG_SQL, (table_id, entry.index, entry.seat, entry.client_id, entry.action,
                                             None if entry.event is None else json.dumps(entry.event)))])

    async def replace_async(self, match: StoredMatch, expected_step: int) -> bool:
        return bool(await self._write(replace_statements(match, expected_step), cas=True))

    async def delete_table(self, table_id: str) -> None:
        await self._write([(sql, (table_id,)) for sql in DELETE_SQL])

    # -- the writer thread ----------------------------------------------------------------------------
    def _writer(self) -> None:
        """Commit what waits, batch after batch, until told to stop. It survives anything: a
        batch that fails is committed again one entry at a time, so that a bad entry fails only
        itself (its caller gets the error) and never its neighbours."""
        while True:
            batch = next_batch(self._queue)
            if batch is None:
                return
            try:
                outcomes = self._commit(batch)
            except BaseException as error:  # not expected (_commit catches): the writer must go on
                outcomes = [Outcome(error=error)] * len(batch)
            settle([job.future for job in batch], outcomes)

    def _commit(self, batch: list[WriteJob]) -> list[Outcome]:
        """Commit the batch in one transaction; when that fails, each job in its own."""
        lock = self._memory_lock if self._memory else contextlib.nullcontext()
        try:
            with lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    values = [run_job(self._db, job) for job in batch]
                    self._db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(Exception):
                        self._db.execute("ROLLBACK")
                    raise
            self.commits += 1
            return [Outcome(value) for value in values]
        except Exception as failure:  # sqlite3.Error, and what a value may raise (UnicodeEncodeError...)
            if len(batch) == 1:
                return [Outcome(error=failure)]
        return [self._commit([job])[0] for job in batch]

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)
        self._db.close()
        with self._readers_lock:
            for db in self._readers:
                db.close()
            self._readers.clear()


MIN_KEY_BYTES = 16
"""The shortest signing key a key file may hold."""
MAX_KEY_FILE_BYTES = 65_536
"""The largest key file read."""


def read_key_file(path: str | os.PathLike[str]) -> bytes:
    """The signing key in a key file: its text (UTF-8) without the whitespace around it, at least
    :data:`MIN_KEY_BYTES` long (``ValueError`` otherwise; ``OSError`` when it cannot be read)."""
    raw = read_at_most(path, MAX_KEY_FILE_BYTES)
    if raw is None:  # /dev/zero, or a file that is no key file
        raise FourCardsError(f"the key file {os.fspath(path)!r:.80} holds more than {MAX_KEY_FILE_BYTES:,} bytes: "
                             "a key is a line of text")
    key = raw.strip()
    if len(key) < MIN_KEY_BYTES:
        raise FourCardsError(f"the key file {os.fspath(path)} holds {len(key)} bytes: a key needs at least "
                         f"{MIN_KEY_BYTES}")
    return key


def kept_key(path: Path) -> bytes:
    """The key in the file ``path``, made first when there is none (32 random bytes as hex text,
    the file readable and writable by its owner only; two processes making it at once agree)."""
    try:
        return read_key_file(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it meanwhile
        for _ in range(50):
            with contextlib.suppress(ValueError):
                return read_key_file(path)
            time.sleep(0.02)
        return read_key_file(path)
    with os.fdopen(handle, "w") as file:
        file.write(secrets.token_hex(32) + "\n")
        file.flush()
        os.fsync(file.fileno())
    return read_key_file(path)


def run_job(db: Any, job: WriteJob) -> bool | None:
    """Execute a job's statements in the open transaction: True/False for a compare-and-swap
    (False: it changed no row, and the job's other statements were skipped), else None."""
    statements = job.statements
    if job.cas:
        if db.execute(statements[0][0], statements[0][1]).rowcount != 1:
            return False
        statements = statements[1:]
    for sql, parameters in statements:
        db.execute(sql, parameters)
    return True if job.cas else None


def read_entries(db: Any, table_id: str, mark: str, ids_only: bool) -> list[LogEntry]:
    """One table's log entries in order (``ids_only``: those with a client message id)."""
    where = " AND client_id IS NOT NULL" if ids_only else ""
    return [LogEntry(idx, seat, client_id, action, None if event is None else json.loads(event))
            for idx, seat, client_id, action, event in db.execute(
                f"SELECT idx, seat, client_id, action, event FROM log WHERE table_id={mark}{where} ORDER BY idx",
                (table_id,))]


def read_tables(db: Any, table_id: str | None, mark: str) -> list[StoredTable]:
    """Every table of the server (or the one ``table_id``) with its version and log, as
    :class:`StoredTable` says, in creation order (``mark``: the database's parameter mark).
    A row with no seats is a hosted match of a :class:`~fourcards.hosting.MatchService`, not
    a table of the server: left out."""
    where, parameters = ("", ()) if table_id is None else (f" WHERE table_id={mark}", (table_id,))
    seats: dict[str, list[SeatRecord]] = {}
    for tid, _seat, kind, name, bot, token_hash in db.execute(
            "SELECT table_id, seat, kind, name, bot, token_hash FROM seats" + where + " ORDER BY table_id, seat",
            parameters):
        seats.setdefault(tid, []).append(SeatRecord(kind, name, bot, token_hash))
    table_where = "" if table_id is None else f" WHERE id={mark}"
    rows = [row for row in db.execute(
        "SELECT id, game, rules, seed, setup, deck, created, private, invite_hash, step, snapshot, data FROM tables"
        + table_where + " ORDER BY position", parameters) if row[0] in seats]
    snapshots = {row[0] for row in rows if row[10] is not None and row[9] is not None}
    logs: dict[str, list[LogEntry]] = {}
    # Where the snapshot is the match, nothing of the log is read (its ids: when the table's first action comes).
    log_where = "" if table_id is None else f" AND l.table_id={mark}"
    for tid, idx, seat, client_id, action, event in db.execute(
            "SELECT l.table_id, l.idx, l.seat, l.client_id, l.action, l.event FROM log l JOIN tables t "
            "ON t.id = l.table_id WHERE (t.snapshot IS NULL OR t.step IS NULL)"
            + log_where + " ORDER BY l.table_id, l.idx", parameters):
        logs.setdefault(tid, []).append(
            LogEntry(idx, seat, client_id, action, None if event is None else json.loads(event)))
    result = []
    for tid, game, rules, seed, setup, deck, created, private, invite_hash, step, snapshot, data in rows:
        record = TableRecord(tid, game, json.loads(rules), int(seed), tuple(seats[tid]), json.loads(setup), deck,
                             created, bool(private), invite_hash)
        match = StoredMatch(tid, int(step), snapshot, data or "") if tid in snapshots else None
        result.append(StoredTable(record, logs.get(tid, []), match))
    return result


@dataclass(frozen=True)
class Outcome:
    """What a written job gives its caller: its ``value``, or the ``error`` it raised."""

    value: Any = None
    error: BaseException | None = None


def settle(futures: Sequence[Future], outcomes: Sequence[Outcome]) -> None:
    """Settle each future with its outcome: a thread's at once; an event loop's with one
    wake-up of the loop for the whole batch, not one per entry (a loop already closed is
    skipped)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Outcome]]] = {}
    for future, outcome in zip(futures, outcomes):
        if isinstance(future, concurrent.futures.Future):
            if outcome.error is None:
                future.set_result(outcome.value)
            else:
                future.set_exception(outcome.error)
        else:
            by_loop.setdefault(future.get_loop(), []).append((future, outcome))
    for loop, pairs in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a loop already closed
            loop.call_soon_threadsafe(_settle_pairs, pairs)


def _settle_pairs(pairs: list[tuple[asyncio.Future[Any], Outcome]]) -> None:
    for future, outcome in pairs:
        if future.done():
            continue
        if outcome.error is None:
            future.set_result(outcome.value)
        else:
            future.set_exception(outcome.error)
