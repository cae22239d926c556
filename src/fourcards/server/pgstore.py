"""The tables in PostgreSQL, shared by several server processes (the ``postgres`` extra).

:class:`PostgresStore` keeps the schema and the promise of
:class:`~fourcards.server.store.SQLiteStore` (an entry is acknowledged only
after its commit; the entries waiting at one moment are committed in one
transaction) and adds what several processes need: each table is **owned** by
one process at a time through a lease row (``leases``: the owner's instance
token, its advertised address, an ``epoch`` and an expiry time, renewed by a
thread of the owner). Every write of an owned table (an action, a claimed
seat, a deletion, its listing summary) carries the epoch its owner acquired,
and the writing transaction locks the table's lease row (``FOR SHARE``) and
compares the epoch before it writes: a process whose lease was taken over
(the epoch moved on) has its write refused with :class:`LeaseLost`, nothing
changed. A takeover (``acquire``) bumps the epoch under the row lock, so it
waits for the old owner's running transaction and its log read afterwards
sees every entry that owner committed: two owners can never both append.

The database's clock (``now()``) decides expiry, so the processes' clocks
need not agree.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import FourCardsError
from ..hosting.store import StoredMatch, check_match_id, check_stored_match
from .store import (
    DELETE_SQL, INSERT_LOG_SQL, LogEntry, Outcome, SeatRecord, StoredTable, TableRecord, WriteJob, hosted_game,
    next_batch, read_entries, read_tables, replace_statements, run_job, settle, wait_job,
)

__all__ = ["PostgresStore", "LeaseLost", "Elsewhere", "is_postgres_url"]


def _pipeline(cursor: Any, statements: list[tuple[str, Sequence[Any]]]) -> None:
    """Execute ``statements`` in order (runs of one statement as one ``executemany``) and empty the list."""
    start = 0
    while start < len(statements):
        end = start + 1
        while end < len(statements) and statements[end][0] == statements[start][0]:
            end += 1
        if end - start == 1:
            cursor.execute(statements[start][0], statements[start][1])
        else:
            cursor.executemany(statements[start][0], [p for _, p in statements[start:end]])
        start = end
    statements.clear()


def is_postgres_url(db: object) -> bool:
    """Whether ``db`` names a PostgreSQL database (``postgresql://...`` or ``postgres://...``)."""
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


class LeaseLost(Exception):
    """A write of a table this process no longer owns (another process took it over): refused."""


@dataclass(frozen=True)
class Elsewhere:
    """A table another process owns: its advertised address (or None) and the seconds its lease has left."""

    owner: str | None
    retry_after: float


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seed TEXT NOT NULL,
    setup TEXT NOT NULL, deck TEXT, created DOUBLE PRECISION NOT NULL, position BIGSERIAL,
    private BOOLEAN NOT NULL DEFAULT FALSE, invite_hash TEXT, summary TEXT, step INTEGER, snapshot TEXT, data TEXT);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    bot TEXT, token_hash TEXT, PRIMARY KEY (table_id, seat));
CREATE TABLE IF NOT EXISTS log (
    table_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL, client_id TEXT,
    action INTEGER, event TEXT, PRIMARY KEY (table_id, idx));
CREATE TABLE IF NOT EXISTS leases (
    table_id TEXT PRIMARY KEY, owner TEXT NOT NULL, address TEXT, epoch BIGINT NOT NULL,
    expires TIMESTAMPTZ NOT NULL);
CREATE TABLE IF NOT EXISTS server_key (id INTEGER PRIMARY KEY, key TEXT NOT NULL);
"""

#: Columns added to ``tables`` since its first version (a database of an older server gains them).
_ADDED_COLUMNS = (("step", "INTEGER"), ("snapshot", "TEXT"), ("data", "TEXT"))

#: Any number: the advisory lock that keeps two processes from creating the schema at once.
_SCHEMA_LOCK = 0x46344344

_INSERT_LOG = INSERT_LOG_SQL.replace("?", "%s")


class _NoSuchTable(Exception):
    """Raised inside a lease's transaction to roll it back: the table asked for does not exist."""


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("a PostgreSQL database needs the postgres extra: pip install 'fourcards[postgres]'") \
            from error
    return psycopg


class PostgresStore:
    """Tables, seats, the log and the leases in PostgreSQL (the schema is created when missing).

    ``lease_seconds``: how long a lease lasts unless renewed (every third of it);
    ``address``: this process's URL, told to clients that ask it for a table
    another process owns; ``instance``: this process's owner token (default:
    host, process id and random bytes)."""

    shared = True
    """Several processes may share the database: the server takes leases (see :mod:`.pgstore`)."""

    def __init__(self, url: str, *, lease_seconds: float = 5.0, address: str | None = None,
                 instance: str | None = None) -> None:
        if not lease_seconds > 0:
            raise FourCardsError("lease_seconds must be above 0")
        self._pg = _psycopg()
        self.url = url
        self.lease_seconds = float(lease_seconds)
        self.address = address
        self.instance = instance or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(6)}"
        self.commits = 0
        """Transactions committed by the writer (each may hold many entries)."""
        self.on_lost: Callable[[str], None] | None = None
        """Called (in the event loop that wrote) with a table's id when this process lost its lease."""
        self._epochs: dict[str, int] = {}  # the leases held: table -> epoch
        self._epochs_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._idle: list[Any] = []  # connections of the readers and lease calls, free for reuse
        self._idle_lock = threading.Lock()
        with self._connect() as db, db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            present = {name for (name,) in db.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'tables' "
                "AND table_schema = current_schema()")}
            for name, declaration in _ADDED_COLUMNS:
                if name not in present:
                    db.execute(f"ALTER TABLE tables ADD COLUMN {name} {declaration}")
            if "step" not in present:  # tables written before snapshots: their step is their log's length
                db.execute("UPDATE tables SET step = (SELECT COUNT(*) FROM log WHERE log.table_id = tables.id) "
                           "WHERE step IS NULL")
        self._db = self._connect()
        self._queue: queue.Queue[WriteJob | None] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._writer, name="fourcards-pg-store", daemon=True)
        self._thread.start()
        self._renewer = threading.Thread(target=self._renew_forever, name="fourcards-pg-leases", daemon=True)
        self._renewer.start()

    # -- connections -----------------------------------------------------------------------------
    def _connect(self) -> Any:
        return self._pg.connect(self.url, autocommit=True, connect_timeout=10)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        """A connection of the small pool (opened when none is free; a broken one is dropped)."""
        with self._idle_lock:
            db = self._idle.pop() if self._idle else None
        if db is None or db.closed:
            db = self._connect()
        try:
            yield db
        except BaseException:
            with contextlib.suppress(Exception):
                db.close()
            raise
        if db.closed or db.broken:
            return
        with self._idle_lock:
            if len(self._idle) < 4:
                self._idle.append(db)
                return
        db.close()

    def _interval(self) -> str:
        return f"now() + make_interval(secs => {self.lease_seconds!r})"

    # -- reading ------------------------------------------------------------------------------------
    def load(self) -> list[StoredTable]:
        """Every table with its log, in creation order."""
        with self._connection() as db:
            return self._read(db, None)

    async def load_table(self, table_id: str) -> StoredTable | None:
        """One table with its log (reading only: no lease), or None when it does not exist."""
        def read() -> StoredTable | None:
            with self._connection() as db:
                found = self._read(db, table_id)
            return found[0] if found else None
        return await asyncio.to_thread(read)

    def _read(self, db: Any, table_id: str | None) -> list[StoredTable]:
        with db.transaction():
            db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")  # one snapshot for the three reads
            return read_tables(db, table_id, "%s")

    def read_log(self, table_id: str) -> list[LogEntry]:
        """The whole log of one table, in order."""
        with self._connection() as db:
            return read_entries(db, table_id, "%s", False)

    def read_ids(self, table_id: str) -> list[LogEntry]:
        """The entries of one table's log with a client message id, in order."""
        with self._connection() as db:
            return read_entries(db, table_id, "%s", True)

    def key(self) -> bytes:
        """The servers' signing key kept in the database (made by the first process that asks),
        so that every process sharing it restores the others' snapshots."""
        made = secrets.token_hex(32)
        with self._connection() as db:
            db.execute("INSERT INTO server_key (id, key) VALUES (1, %s) ON CONFLICT (id) DO NOTHING", (made,))
            row = db.execute("SELECT key FROM server_key WHERE id = 1").fetchone()
        return bytes.fromhex(row[0])

    # -- the MatchStore calls (any thread but the event loop) ------------------------------------------
    def get(self, match_id: str) -> StoredMatch | None:
        check_match_id(match_id)
        with self._connection() as db:
            row = db.execute("SELECT step, snapshot, data FROM tables WHERE id=%s", (match_id,)).fetchone()
        if row is None or row[0] is None or row[1] is None:
            return None
        return StoredMatch(match_id, int(row[0]), row[1], row[2] or "")

    def create(self, match: StoredMatch) -> bool:
        """Store a match of a :class:`~fourcards.hosting.MatchService` (a private row with no
        seats: no server process serves it); False when the id is taken."""
        check_stored_match(match)
        statement = ("INSERT INTO tables (id, game, rules, seed, setup, deck, created, private, step, snapshot, data) "
                     "VALUES (%s,%s,'{}','0','{}',NULL,%s,TRUE,%s,%s,%s)",
                     (match.id, hosted_game(match), time.time(), match.step, match.save, match.data))
        try:
            self._run(WriteJob([statement], concurrent.futures.Future()))
        except self._pg.errors.UniqueViolation:
            return False
        return True

    def replace(self, match: StoredMatch, expected_step: int) -> bool:
        check_stored_match(match, expected_step)
        return bool(self._run(WriteJob(replace_statements(match, expected_step, "%s"), concurrent.futures.Future(),
                                       cas=True)))

    def delete(self, match_id: str) -> bool:
        check_match_id(match_id)
        statements: list[tuple[str, Sequence[Any]]] = [
            (sql.replace("?", "%s"), (match_id,)) for sql in (DELETE_SQL[2], DELETE_SQL[0], DELETE_SQL[1])]
        statements.append(("DELETE FROM leases WHERE table_id=%s", (match_id,)))
        return bool(self._run(WriteJob(statements, concurrent.futures.Future(), cas=True)))

    def _run(self, job: WriteJob) -> Any:
        """Queue a job and wait for it in this thread (never call from the event loop)."""
        self._queue.put(job)
        assert isinstance(job.future, concurrent.futures.Future)
        return job.future.result()

    async def summaries(self) -> list[tuple[str, dict[str, Any] | None]]:
        """Every public table's id and stored summary (its owner's, written now and then), in creation order."""
        def read() -> list[tuple[str, dict[str, Any] | None]]:
            with self._connection() as db:
                rows = db.execute("SELECT id, summary FROM tables WHERE NOT private ORDER BY position").fetchall()
            return [(tid, None if text is None else json.loads(text)) for tid, text in rows]
        return await asyncio.to_thread(read)

    # -- leases ---------------------------------------------------------------------------------------
    def owns(self, table_id: str) -> bool:
        with self._epochs_lock:
            return table_id in self._epochs

    def release(self, table_id: str) -> None:
        """Forget this process's lease of a table (it is no longer served here); the lease expires."""
        with self._epochs_lock:
            self._epochs.pop(table_id, None)

    async def acquire(self, table_id: str) -> StoredTable | Elsewhere | None:
        """Take a table over: when its lease expired (or it has none, or it is this process's),
        the lease becomes this process's with the next epoch and the table is read with its
        whole log; else where it is. None when no such table exists."""
        self._loop = asyncio.get_running_loop()

        def take() -> StoredTable | Elsewhere | None:
            with self._connection() as db:
                # The lease row first, then the table's row: the order the writer locks them in
                # (a writer holds the lease FOR SHARE, then updates the table), so that a join here
                # and a write by the owner elsewhere never wait on each other in a circle.
                try:
                    with db.transaction():
                        row = db.execute(
                            "INSERT INTO leases (table_id, owner, address, epoch, expires) "
                            f"VALUES (%s, %s, %s, 1, {self._interval()}) "
                            "ON CONFLICT (table_id) DO UPDATE SET owner=EXCLUDED.owner, address=EXCLUDED.address, "
                            "epoch=leases.epoch + 1, expires=EXCLUDED.expires "
                            "WHERE leases.expires <= now() OR leases.owner = EXCLUDED.owner RETURNING epoch",
                            (table_id, self.instance, self.address)).fetchone()
                        if row is None:
                            owner = db.execute(
                                "SELECT address, GREATEST(0, EXTRACT(EPOCH FROM expires - now()))::float8 "
                                "FROM leases WHERE table_id=%s", (table_id,)).fetchone()
                            return Elsewhere(owner[0], float(owner[1])) if owner else Elsewhere(None, 0.0)
                        if db.execute("SELECT 1 FROM tables WHERE id=%s", (table_id,)).fetchone() is None:
                            raise _NoSuchTable  # rolls the lease row back
                except _NoSuchTable:
                    return None
                epoch = int(row[0])
                with self._epochs_lock:
                    self._epochs[table_id] = epoch
                # After the commit: the old owner's last append committed before the lease row
                # was ours (it held the row FOR SHARE), so this read sees all of them.
                found = self._read(db, table_id)
            if not found:  # deleted meanwhile (cannot happen while the lease is ours)
                self.release(table_id)
                return None
            return found[0]
        return await asyncio.to_thread(take)

    async def expired(self, limit: int = 100) -> list[str]:
        """Tables whose lease expired (their owner stopped renewing) or that have none, oldest first."""
        def read() -> list[str]:
            with self._connection() as db:
                rows = db.execute(
                    "SELECT t.id FROM tables t LEFT JOIN leases l ON l.table_id = t.id "
                    "WHERE (l.table_id IS NULL OR l.expires <= now()) "
                    "AND EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id) ORDER BY t.position LIMIT %s",
                    (limit,)).fetchall()
            return [tid for (tid,) in rows]
        return await asyncio.to_thread(read)

    def renew(self) -> list[str]:
        """Extend every lease held (one statement); the ones found taken over are forgotten and returned."""
        with self._epochs_lock:
            held = dict(self._epochs)
        if not held:
            return []
        ids, epochs = list(held), [held[t] for t in held]
        with self._connection() as db:
            rows = db.execute(
                f"UPDATE leases l SET expires = {self._interval()} "
                "FROM unnest(%s::text[], %s::bigint[]) AS m(id, epoch) "
                "WHERE l.table_id = m.id AND l.epoch = m.epoch AND l.owner = %s RETURNING l.table_id",
                (ids, epochs, self.instance)).fetchall()
        kept = {tid for (tid,) in rows}
        lost = []
        with self._epochs_lock:
            for tid, epoch in held.items():
                if tid not in kept and self._epochs.get(tid) == epoch:
                    del self._epochs[tid]
                    lost.append(tid)
        for tid in lost:
            self._lost(tid)
        return lost

    def _renew_forever(self) -> None:
        while not self._stop.wait(self.lease_seconds / 3):
            try:
                self.renew()
            except Exception:  # the database is away: try again (the fencing keeps writes safe)
                pass

    def _lost(self, table_id: str) -> None:
        callback, loop = self.on_lost, self._loop
        if callback is not None and loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed
                loop.call_soon_threadsafe(callback, table_id)

    # -- writing --------------------------------------------------------------------------------------
    async def _write(self, fence: str | None, statements: list[tuple[str, Sequence[Any]]], cas: bool = False) -> Any:
        loop = asyncio.get_running_loop()
        self._loop = loop
        stamp: tuple[str, int] | None = None
        if fence is not None:
            with self._epochs_lock:
                epoch = self._epochs.get(fence)
            if epoch is None:
                raise LeaseLost(f"table {fence} is not owned by this process")
            stamp = (fence, epoch)
        job = WriteJob(statements, loop.create_future(), cas, stamp)
        self._queue.put(job)
        return await wait_job(job)

    async def create_table(self, table: TableRecord, match: StoredMatch | None = None) -> None:
        """Store a new table, its first version, its seats and this process's lease of it (epoch 1)."""
        statements: list[tuple[str, Sequence[Any]]] = [(
            "INSERT INTO tables (id, game, rules, seed, setup, deck, created, private, invite_hash, step, snapshot, "
            "data) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
            (table.id, table.game, json.dumps(table.rules), str(table.seed), json.dumps(table.setup), table.deck,
             table.created, table.private, table.invite_hash, 0 if match is None else match.step,
             None if match is None else match.save, None if match is None else match.data))]
        for seat, record in enumerate(table.seats):
            statements.append(("INSERT INTO seats (table_id, seat, kind, name, bot, token_hash) "
                               "VALUES (%s,%s,%s,%s,%s,%s)",
                               (table.id, seat, record.kind, record.name, record.bot, record.token_hash)))
        statements.append(("INSERT INTO leases (table_id, owner, address, epoch, expires) "
                           f"VALUES (%s,%s,%s,1,{self._interval()})", (table.id, self.instance, self.address)))
        await self._write(None, statements)
        # Held from the commit on (not before: a renewal meanwhile would find no lease row).
        with self._epochs_lock:
            self._epochs[table.id] = 1

    async def replace_async(self, match: StoredMatch, expected_step: int) -> bool:
        """The new version of a table this process holds (fenced by its lease: ``LeaseLost``
        once another process took it over), by compare-and-swap on its step."""
        return bool(await self._write(match.id, replace_statements(match, expected_step, "%s"), cas=True))

    async def set_seat(self, table_id: str, seat: int, record: SeatRecord) -> None:
        await self._write(table_id, [("UPDATE seats SET kind=%s, name=%s, bot=%s, token_hash=%s "
                                      "WHERE table_id=%s AND seat=%s",
                                      (record.kind, record.name, record.bot, record.token_hash, table_id, seat))])

    async def append(self, table_id: str, entry: LogEntry) -> None:
        await self._write(table_id, [(_INSERT_LOG, (table_id, entry.index, entry.seat, entry.client_id, entry.action,
                                                    None if entry.event is None else json.dumps(entry.event)))])

    async def delete_table(self, table_id: str) -> None:
        await self._write(table_id, [*((sql.replace("?", "%s"), (table_id,)) for sql in DELETE_SQL),
                                     ("DELETE FROM leases WHERE table_id=%s", (table_id,))])
        self.release(table_id)

    async def save_summary(self, table_id: str, summary: dict[str, Any]) -> None:
        """Store a table's summary for the listing of the other processes (its owner only)."""
        await self._write(table_id, [("UPDATE tables SET summary=%s WHERE id=%s", (json.dumps(summary), table_id))])

    def _writer(self) -> None:
        """Commit what waits, batch after batch, until told to stop. It survives anything: a
        batch that fails is committed again one job at a time, so that a bad job fails only
        itself (its caller gets the error) and never its neighbours."""
        while True:
            batch = next_batch(self._queue)
            if batch is None:
                return
            try:
                self._commit(batch)
            except BaseException as error:  # not expected (_commit catches): the writer must go on
                settle([job.future for job in batch], [Outcome(error=error)] * len(batch))

    def _commit(self, batch: list[WriteJob]) -> None:
        try:
            results = self._retrying(batch)
        except Exception as failure:  # the database's refusal, or what a value raised
            if len(batch) == 1:
                results = [Outcome(error=failure)]
            else:
                for job in batch:
                    self._commit([job])
                return
        lost = [job for job, result in zip(batch, results) if isinstance(result.error, LeaseLost)]
        for job in lost:
            assert job.fence is not None
            with self._epochs_lock:
                gone = self._epochs.get(job.fence[0]) == job.fence[1]
                if gone:
                    del self._epochs[job.fence[0]]
            if gone:
                self._lost(job.fence[0])
        settle([job.future for job in batch], results)

    def _retrying(self, batch: list[WriteJob]) -> list[Outcome]:
        """The batch's transaction, run again (at most 4 times in all) when the database rolled
        it back to break a deadlock or a serialization conflict: nothing of it was written."""
        for attempt in range(4):
            try:
                return self._transaction(batch)
            except self._pg.Error as error:
                if attempt == 3 or not (error.sqlstate or "").startswith("40"):  # class 40: transaction rollback
                    raise
                time.sleep(0.005 * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    def _transaction(self, batch: list[WriteJob]) -> list[Outcome]:
        """Commit the batch's jobs whose lease is still held in one transaction: each job's
        outcome (a compare-and-swap's True or False; a :class:`LeaseLost` for each job refused;
        raises when the transaction fails). Runs of one statement go as one ``executemany``
        (pipelined); a compare-and-swap runs alone (its row count decides the job)."""
        if self._db.closed or self._db.broken:
            self._db = self._connect()
        db = self._db
        results: list[Outcome] = []
        with db.transaction():
            fences = {job.fence[0] for job in batch if job.fence is not None}
            held: dict[str, int] = {}
            if fences:
                # The lease rows locked until the commit: a takeover waits for it.
                held = dict(db.execute("SELECT table_id, epoch FROM leases WHERE owner=%s AND "
                                       "table_id = ANY(%s) FOR SHARE", (self.instance, list(fences))).fetchall())
            with db.cursor() as cursor:
                waiting: list[tuple[str, Sequence[Any]]] = []
                for job in batch:
                    if job.fence is not None and held.get(job.fence[0]) != job.fence[1]:
                        results.append(Outcome(error=LeaseLost("this process's lease of the table was taken "
                                                               "over; nothing was written")))
                        continue
                    if job.cas:
                        _pipeline(cursor, waiting)
                        results.append(Outcome(run_job(cursor, job)))
                    else:
                        waiting.extend(job.statements)
                        results.append(Outcome())
                _pipeline(cursor, waiting)
        self.commits += 1
        return results

    def close(self) -> None:
        """Stop writing and renewing; the leases held expire at once (the others may take the tables over)."""
        self._queue.put(None)
        self._thread.join(timeout=10)
        self._stop.set()
        self._renewer.join(timeout=10)
        with self._epochs_lock:
            held = dict(self._epochs)
            self._epochs.clear()
        with contextlib.suppress(Exception):
            if held:
                with self._connection() as db:
                    db.execute("UPDATE leases l SET expires = now() FROM unnest(%s::text[], %s::bigint[]) "
                               "AS m(id, epoch) WHERE l.table_id = m.id AND l.epoch = m.epoch AND l.owner = %s",
                               (list(held), [held[t] for t in held], self.instance))
        for db in [self._db, *self._idle]:
            with contextlib.suppress(Exception):
                db.close()
        self._idle.clear()
