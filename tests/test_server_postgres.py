"""The PostgreSQL store and several server processes sharing it.

The store's contract runs on both stores (SQLite and PostgreSQL); then the
leases: a fenced append refused once another process took the table over;
then real ``fourcards serve`` processes on one database: a table created on
one played through the other after a takeover, a ``kill -9`` of the owner in
the middle of a match finished on the other with nothing acknowledged lost.

PostgreSQL: ``FOURCARDS_TEST_POSTGRES=postgresql://...``, else a throwaway
cluster from the installed ``initdb`` (:mod:`tests.pg_cluster`); skipped
cleanly when neither is there (or psycopg is not installed).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import fourcards
from fourcards.games import get_game
from fourcards.server.pgstore import Elsewhere, LeaseLost, PostgresStore
from fourcards.server.store import LogEntry, SeatRecord, SQLiteStore, TableRecord

from .pg_cluster import ENV, Cluster, find_bin

pytest.importorskip("websockets")
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from .server_helpers import (  # noqa: E402
    GENEROUS, Seat, ServerProcess, claim, create_table, play_to_end, request,
)

# The server processes play on the compiled kernels; CI runs these in compiled mode.
pytestmark = pytest.mark.engine

_psycopg_missing = False
try:
    import psycopg
except ImportError:  # pragma: no cover - depends on the environment
    _psycopg_missing = True


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if _psycopg_missing:
        pytest.skip("psycopg is not installed (the postgres extra)")
    if not os.environ.get(ENV) and find_bin() is None:
        pytest.skip(f"PostgreSQL is not installed (no initdb) and {ENV} is not set")
    running = Cluster(fsync=False)
    try:
        running.start()
    except Exception as error:  # pragma: no cover - depends on the environment
        pytest.skip(f"no throwaway PostgreSQL cluster could start: {error}")
    yield running
    running.stop()


Store = SQLiteStore | PostgresStore


def record(table_id: str, private: bool = False, seats: int = 2) -> TableRecord:
    people = tuple(SeatRecord("human", f"p{s}") for s in range(seats - 1))
    return TableRecord(table_id, "gang-of-four", {"players": seats}, 2**61 + 17,
                       people + (SeatRecord("bot", "b", "random"),), {}, None, 1234.5, private,
                       "ab" * 32 if private else None)


@pytest.fixture(params=["sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """A factory of stores on one database (a second call opens the same data again)."""
    opened: list[Store] = []
    if request.param == "sqlite":
        def make() -> Store:
            opened.append(SQLiteStore(tmp_path / "tables.db"))
            return opened[-1]
    else:
        cluster = request.getfixturevalue("cluster")
        url = cluster.database()

        def make() -> Store:
            opened.append(PostgresStore(url))
            return opened[-1]
    yield make
    for store in opened:
        store.close()


# -- the store's contract (both stores) ---------------------------------------------------------

def test_a_table_its_seats_and_log_come_back_after_reopening(make_store: Callable[[], Store]) -> None:
    store = make_store()

    async def main() -> None:
        await store.create_table(record("t1"))
        await store.create_table(record("t2", private=True, seats=3))
        await store.set_seat("t1", 0, SeatRecord("human", "Ada", None, "cd" * 32))
        await asyncio.gather(*(store.append("t1", LogEntry(i, i % 2, f"m{i}" if i % 3 else None, 100 + i))
                               for i in range(5)))
        await store.append("t2", LogEntry(0, 1, "e", event={"kind": "hit", "timestamp": 0.25, "zangle": None}))

    asyncio.run(main())
    store.close()
    loaded = make_store().load()
    assert [s.table.id for s in loaded] == ["t1", "t2"]  # creation order
    t1, t2 = loaded
    assert t1.table == TableRecord("t1", "gang-of-four", {"players": 2}, 2**61 + 17,
                                   (SeatRecord("human", "Ada", None, "cd" * 32), SeatRecord("bot", "b", "random")),
                                   {}, None, 1234.5, False, None)
    assert t1.log == [LogEntry(i, i % 2, f"m{i}" if i % 3 else None, 100 + i) for i in range(5)]
    assert t2.table.private and t2.table.invite_hash == "ab" * 32 and len(t2.table.seats) == 3
    assert t2.log == [LogEntry(0, 1, "e", None, {"kind": "hit", "timestamp": 0.25, "zangle": None})]


def test_entries_waiting_together_are_committed_together(make_store: Callable[[], Store]) -> None:
    store = make_store()

    async def main() -> None:
        await asyncio.gather(*(store.create_table(record(f"t{n}")) for n in range(20)))
        before = store.commits
        await asyncio.gather(*(store.append(f"t{n}", LogEntry(i, 0, f"m{i}", i)) for n in range(20)
                               for i in range(10)))
        # 200 entries; the writer batches what waits at one moment (far fewer commits).
        assert store.commits - before < 100

    asyncio.run(main())
    assert sum(len(s.log) for s in store.load()) == 200


def test_a_duplicate_entry_is_refused_and_the_others_stay(make_store: Callable[[], Store]) -> None:
    store = make_store()

    async def main() -> None:
        await store.create_table(record("t1"))
        await store.append("t1", LogEntry(0, 0, "a", 1))
        with pytest.raises(Exception):  # noqa: B017 - sqlite3.IntegrityError / psycopg.errors.UniqueViolation
            await store.append("t1", LogEntry(0, 0, "b", 2))
        await store.append("t1", LogEntry(1, 0, "c", 3))

    asyncio.run(main())
    assert [e.client_id for e in store.load()[0].log] == ["a", "c"]


@pytest.mark.parametrize("bad", ["\ud800", "nul\x00", 2**70], ids=["lone surrogate", "NUL", "huge int"])
def test_a_bad_entry_fails_only_itself_and_the_writer_goes_on(make_store: Callable[[], Store], bad: Any) -> None:
    """Issue 27: a value the database cannot take (text no store can hold, an int too big for its
    column) once reached the writer, which died (SQLite) or failed the whole batch (PostgreSQL).
    Now the bad entry's own write fails; its batch neighbours, and every later write, succeed."""
    store = make_store()
    # SQLite holds a NUL in text (PostgreSQL refuses it); the server refuses it from the network anyway.
    accepted = isinstance(store, SQLiteStore) and bad == "nul\x00"

    async def main() -> None:
        await asyncio.gather(*(store.create_table(record(f"t{n}")) for n in range(8)))
        entries = [store.append(f"t{n}", LogEntry(0, 0, f"m{n}", n)) for n in range(8)]
        if isinstance(bad, str):
            poisoned = store.append("t3", LogEntry(1, 0, bad, 1))
        else:
            poisoned = store.append("t3", LogEntry(1, 0, "big", bad))
        results = await asyncio.gather(poisoned, *entries, return_exceptions=True)
        assert results[0] is None if accepted else isinstance(results[0], Exception), results[0]
        assert results[1:] == [None] * 8  # the neighbours of the batch were all written
        # The writer is alive: later writes of every kind go through.
        await store.append("t3", LogEntry(2, 0, "after", 7))
        await store.set_seat("t1", 0, SeatRecord("human", "Ana", None, "ef" * 32))
        await store.create_table(record("t9"))

    asyncio.run(main())
    loaded = {s.table.id: s for s in store.load()}
    assert [e.client_id for e in loaded["t3"].log] == ["m3", *([bad] if accepted else []), "after"]
    assert all(len(loaded[f"t{n}"].log) == 1 for n in range(8) if n != 3)
    assert loaded["t1"].table.seats[0].name == "Ana" and "t9" in loaded


def test_a_deleted_table_is_gone_with_its_seats_and_log(make_store: Callable[[], Store]) -> None:
    store = make_store()

    async def main() -> None:
        for name in ("t1", "t2"):
            await store.create_table(record(name))
            await store.append(name, LogEntry(0, 0, "a", 1))
        await store.delete_table("t1")

    asyncio.run(main())
    store.close()
    assert [s.table.id for s in make_store().load()] == ["t2"]


# -- leases (PostgreSQL) ------------------------------------------------------------------------

def test_two_processes_never_both_append_the_fencing(cluster: Cluster) -> None:
    url = cluster.database()
    first = PostgresStore(url, lease_seconds=0.6, instance="first", address="http://first")
    second = PostgresStore(url, lease_seconds=0.6, instance="second", address="http://second")
    lost: list[str] = []
    first.on_lost = lost.append
    try:
        async def main() -> None:
            await first.create_table(record("t1"))
            await first.append("t1", LogEntry(0, 0, "a", 1))
            # The lease is alive (the first renews it): the second is told where the table is.
            found = await second.acquire("t1")
            assert isinstance(found, Elsewhere) and found.owner == "http://first" and 0 < found.retry_after <= 0.6
            assert await second.acquire("nope") is None
            # The first stops renewing (as a process stopped by SIGSTOP would): the lease expires,
            # the second takes the table over with its log.
            first._stop.set()
            first._renewer.join()
            await asyncio.sleep(0.8)
            assert "t1" in await second.expired()
            taken = await second.acquire("t1")
            assert not isinstance(taken, Elsewhere) and taken is not None
            assert [e.client_id for e in taken.log] == ["a"]
            # The first still believes it owns the table: its append is refused, nothing written.
            with pytest.raises(LeaseLost):
                await first.append("t1", LogEntry(1, 0, "from-first", 7))
            with pytest.raises(LeaseLost):  # forgotten: refused at once now
                await first.append("t1", LogEntry(1, 0, "from-first", 7))
            await second.append("t1", LogEntry(1, 1, "from-second", 8))
            await asyncio.sleep(0.05)
            assert lost == ["t1"]
            with pytest.raises(LeaseLost):
                await first.set_seat("t1", 0, SeatRecord("human", "x", None, "ef" * 32))
            with pytest.raises(LeaseLost):
                await first.delete_table("t1")

        asyncio.run(main())
        log = second.load()[0]
        assert [e.client_id for e in log.log] == ["a", "from-second"]
        assert log.table.seats[0].token_hash is None
    finally:
        first.close()
        second.close()


def test_a_takeover_waits_for_the_owners_running_commit(cluster: Cluster) -> None:
    """Appends racing a takeover: every append the old owner saw committed is in the log the
    new owner loaded, and every later one is refused (the lease row is locked by the append)."""
    url = cluster.database()
    first = PostgresStore(url, lease_seconds=0.3, instance="first")
    second = PostgresStore(url, lease_seconds=0.3, instance="second")
    try:
        async def main() -> None:
            await first.create_table(record("t1"))
            first._stop.set()
            first._renewer.join()
            committed: list[int] = []

            async def appender() -> None:
                for i in range(10_000):
                    try:
                        await first.append("t1", LogEntry(i, 0, f"m{i}", i))
                    except LeaseLost:
                        return
                    committed.append(i)

            task = asyncio.create_task(appender())
            await asyncio.sleep(0.5)
            taken = await second.acquire("t1")
            assert taken is not None and not isinstance(taken, Elsewhere)
            await task
            assert [e.index for e in taken.log] == committed  # nothing acknowledged is missing
            assert len(committed) > 0

        asyncio.run(main())
    finally:
        first.close()
        second.close()


def test_a_join_for_a_table_held_elsewhere_never_deadlocks_with_the_owners_write(cluster: Cluster) -> None:
    """CI once saw ``deadlock detected`` on a two-process run: the owner's write locks the
    lease row (FOR SHARE), then updates the table's row; a join on the other process took the
    table's row first, then the lease row. Here the owner's write is held open at its first
    lock while the other process asks for the table: the write must finish, and the join be
    told where the table is, with no deadlock for the database to break."""
    url = cluster.database()
    first = PostgresStore(url, lease_seconds=30, instance="first")
    second = PostgresStore(url, lease_seconds=30, instance="second")
    try:
        asyncio.run(first.create_table(record("t1")))
        with psycopg.connect(url) as writer:  # a transaction, as the owner's writer opens one
            writer.execute("SET deadlock_timeout = '200ms'")
            writer.execute("SELECT epoch FROM leases WHERE table_id='t1' AND owner='first' FOR SHARE")
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                join = pool.submit(asyncio.run, second.acquire("t1"))
                deadline = time.monotonic() + 10
                while not _waiting_on_a_lock(url) and not join.done() and time.monotonic() < deadline:
                    time.sleep(0.02)
                assert not join.done(), "the join must wait for the owner's running write"
                writer.execute("UPDATE tables SET step = step WHERE id='t1'")  # no DeadlockDetected
                writer.commit()
                assert isinstance(join.result(timeout=10), Elsewhere)
    finally:
        first.close()
        second.close()


def _waiting_on_a_lock(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                         "AND datname = current_database()").fetchone()
        return row is not None and bool(row[0])


def test_a_write_the_database_rolled_back_to_break_a_deadlock_is_run_again(cluster: Cluster) -> None:
    """A deadlock or serialization failure rolls the whole transaction back: the writer runs
    it again (nothing of it was written) instead of failing the table's action."""
    store = PostgresStore(cluster.database(), lease_seconds=30)
    try:
        real = store._transaction
        failures = [psycopg.errors.DeadlockDetected("deadlock detected"),
                    psycopg.errors.SerializationFailure("could not serialize access")]

        def flaky(batch: Any) -> Any:
            if failures:
                raise failures.pop()
            return real(batch)

        store._transaction = flaky  # type: ignore[method-assign]

        async def main() -> None:
            await store.create_table(record("t1"))
            await store.append("t1", LogEntry(0, 0, "m0", 5))

        asyncio.run(main())
        assert failures == []
        assert [entry.action for entry in store.load()[0].log] == [5]
    finally:
        store.close()


def test_a_closed_store_hands_its_tables_over_at_once(cluster: Cluster) -> None:
    url = cluster.database()
    first = PostgresStore(url, lease_seconds=30, instance="first")
    second = PostgresStore(url, lease_seconds=30, instance="second")
    try:
        async def main() -> None:
            await first.create_table(record("t1"))
            assert isinstance(await second.acquire("t1"), Elsewhere)
            first.close()
            taken = await second.acquire("t1")
            assert taken is not None and not isinstance(taken, Elsewhere)

        asyncio.run(main())
    finally:
        second.close()


# -- several server processes on one database -------------------------------------------------

LEASE = "1"  # seconds: a stopped process's tables are taken over quickly


def _servers(cluster: Cluster, tmp_path: Path, count: int = 2) -> tuple[str, list[ServerProcess]]:
    pytest.importorskip("uvicorn")
    url = cluster.database()
    servers = [ServerProcess(tmp_path / "unused.db", url=url, log=tmp_path / f"server{number}.log",
                             options=(*GENEROUS, "--lease-seconds", LEASE, "--log-level", "info"))
               for number in range(count)]
    for server in servers:
        server.start()
    return url, servers


def pg_match(url: str, table: str) -> tuple[int, list[int], list[tuple[int, str | None]]]:
    """The seed, the actions and the (seat, client id) of each entry stored for ``table``."""
    with psycopg.connect(url) as db:
        row = db.execute("SELECT seed FROM tables WHERE id=%s", (table,)).fetchone()
        assert row is not None
        rows = db.execute("SELECT action, seat, client_id FROM log WHERE table_id=%s ORDER BY idx",
                          (table,)).fetchall()
    return int(row[0]), [a for a, _, _ in rows], [(s, c) for _, s, c in rows]


def lease_owner(url: str, table: str) -> str | None:
    with psycopg.connect(url) as db:
        row = db.execute("SELECT address FROM leases WHERE table_id=%s", (table,)).fetchone()
    return None if row is None else str(row[0])


async def join_somewhere(server: ServerProcess, table: str, token: str, timeout: float = 20) -> tuple[Seat, int]:
    """Join through ``server``, connecting again while it answers ``table_elsewhere`` (a live owner
    elsewhere, or a lease not yet expired): the seat and how many times it was told so."""
    deadline = time.monotonic() + timeout
    told = 0
    while True:
        seat = Seat(server, table, token)
        seat.ws = await connect(server.ws, max_size=2**24)
        await seat.send({"type": "join", "table": table, "token": token})
        first = await seat.recv()
        if first["type"] == "welcome":
            return seat, told
        assert first["type"] == "error" and first["code"] == "table_elsewhere", first
        assert isinstance(first["retry_after"], (int, float)) and "owner" in first
        told += 1
        await seat.close()
        assert time.monotonic() < deadline, "the table was never taken over"
        await asyncio.sleep(min(0.2, first["retry_after"]))


async def play_some(clients: list[Seat], count: int, rng: random.Random,
                    acked: dict[int, int]) -> None:
    """Answer turns with random legal actions until ``count`` more acknowledgements (version -> action)."""
    goal = len(acked) + count
    sent: dict[str, int] = {}
    backlog = {id(c): [m for m in c.messages if m["type"] == "state"][-1:] for c in clients}
    pending = {asyncio.ensure_future(c.recv()): c for c in clients}
    try:
        while len(acked) < goal:
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                c = pending.pop(task)
                messages = [task.result(), *backlog.pop(id(c), [])]
                for message in messages:
                    if message["type"] == "state" and message["legal_actions"] and not message["terminal"]:
                        action = rng.choice(message["legal_actions"])["action"]
                        act = {"type": "act", "id": f"p{message['version']}", "version": message["version"],
                               "action": action}
                        sent[act["id"]] = action
                        await c.send(act)
                    elif message["type"] == "ack" and message["id"] in sent:
                        acked[message["version"]] = sent[message["id"]]
                    elif message["type"] == "end":
                        return
                pending[asyncio.ensure_future(c.recv())] = c
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


async def quiet(clients: list[Seat], pause: float = 0.5) -> None:
    """Read every client's messages until none comes for ``pause`` seconds."""
    for c in clients:
        with contextlib.suppress(asyncio.TimeoutError):
            while True:
                await c.recv(pause)


def check_stored(url: str, table: str, acked: dict[int, int], ends: list[dict[str, Any]]) -> None:
    """Every acknowledged action stored at its version, none twice, and the stored match ends as told."""
    seed, actions, ids = pg_match(url, table)
    assert all(v <= len(actions) and actions[v - 1] == a for v, a in acked.items())
    client_ids = [i for i in ids if i[1] is not None]
    assert len(client_ids) == len(set(client_ids))
    final = get_game("gang-of-four").new_game(players=4, target_score=1).replay(seed, actions)
    assert final.is_terminal
    for end in ends:
        assert end["version"] == final.step and end["winners"] == list(final.winners)
        assert end["scores"] == list(final.scores)


def test_a_table_created_on_one_process_is_played_through_the_other_after_a_takeover(
        cluster: Cluster, tmp_path: Path) -> None:
    url, (first, second) = _servers(cluster, tmp_path)
    try:
        async def main() -> None:
            table = create_table(first, "gang-of-four", {"players": 4, "target_score": 1})
            tokens = [claim(first, table["id"], s) for s in range(4)]
            # The other process lists it and answers its summary, read from the store.
            status, listed = request("GET", second.http + "/api/tables")
            assert status == 200 and [t["id"] for t in listed["tables"]] == [table["id"]]
            status, summary = request("GET", f"{second.http}/api/tables/{table['id']}")
            assert status == 200 and summary["version"] == 0 and all(s["taken"] for s in summary["seats"])
            # Joining there: the table is held by the first process, which is named.
            seat = Seat(second, table["id"], tokens[0])
            seat.ws = await connect(second.ws)
            await seat.send({"type": "join", "table": table["id"], "token": tokens[0]})
            told = await seat.recv()
            assert told["code"] == "table_elsewhere" and told["owner"] == first.http
            assert 0 <= told["retry_after"] <= float(LEASE)
            # ... and it closes the connection: the client connects again.
            with pytest.raises(ConnectionClosed):
                await seat.recv(5)
            status, answer = request("POST", f"{second.http}/api/tables/{table['id']}/seats/0", {})
            assert status == 503 and answer["error"]["code"] == "table_elsewhere"
            clients = [Seat(first, table["id"], t) for t in tokens]
            for c in clients:
                await c.join()
            acked: dict[int, int] = {}
            await play_some(clients, 6, random.Random(1), acked)
            for c in clients:
                await c.close()
            first.stop()  # a clean stop hands its leases over at once
            moved = [await join_somewhere(second, table["id"], t, timeout=5) for t in tokens]
            clients = [c for c, _ in moved]
            assert lease_owner(url, table["id"]) == second.http
            states = [await c.until("state") for c in clients]
            assert {s["version"] for s in states} == {len(pg_match(url, table["id"])[1])}
            ends = await asyncio.gather(*(play_to_end(c, random.Random(2)) for c in clients))
            check_stored(url, table["id"], acked, list(ends))
            for c in clients:
                await c.close()

        asyncio.run(main())
    finally:
        first.stop()
        second.stop()


def test_kill_9_of_the_owner_mid_match_the_other_finishes_it(cluster: Cluster, tmp_path: Path) -> None:
    url, (first, second) = _servers(cluster, tmp_path)
    try:
        async def main() -> None:
            table = create_table(first, "gang-of-four", {"players": 4, "target_score": 1})
            tokens = [claim(first, table["id"], s) for s in range(4)]
            clients = [Seat(first, table["id"], t) for t in tokens]
            for c in clients:
                await c.join()
            acked: dict[int, int] = {}
            await play_some(clients, 10, random.Random(3), acked)
            first.kill9()
            killed = time.monotonic()
            # Nobody asks for the table: the second process's sweep takes it over by itself
            # once the lease has expired (within a lease and a half).
            while lease_owner(url, table["id"]) != second.http:
                assert time.monotonic() - killed < 10, "the table was not taken over"
                await asyncio.sleep(0.1)
            stored = pg_match(url, table["id"])[1]
            assert all(stored[v - 1] == a for v, a in acked.items())  # nothing acknowledged lost
            # Taken over from its snapshot (signed with the key the processes share in the database).
            deadline = time.monotonic() + 10
            while f"table {table['id']} taken over" not in second.log_text():
                assert time.monotonic() < deadline
                await asyncio.sleep(0.1)
            assert "(from its snapshot)" in second.log_text()
            with psycopg.connect(url) as db:
                key = bytes.fromhex(db.execute("SELECT key FROM server_key").fetchone()[0])  # type: ignore[index]
                step, snapshot = db.execute("SELECT step, snapshot FROM tables WHERE id=%s",
                                            (table["id"],)).fetchone()  # type: ignore[misc]
            seed = pg_match(url, table["id"])[0]
            assert step == len(stored) and fourcards.load(snapshot, key) == get_game("gang-of-four").new_game(
                players=4, target_score=1).replay(seed, stored)
            clients = [(await join_somewhere(second, table["id"], t))[0] for t in tokens]
            states = [await c.until("state") for c in clients]
            assert {s["version"] for s in states} == {len(stored)}
            # A retry of the last acknowledged action: acknowledged again, not applied twice.
            last = max(acked)
            state_before = states[0]["version"]
            mover = next(c for c in clients if c.messages[0]["seat"] == _seat_of(url, table["id"], last))
            await mover.send({"type": "act", "id": f"p{last - 1}", "version": last - 1, "action": acked[last]})
            assert (await mover.until("ack", id=f"p{last - 1}"))["version"] == last
            assert len(pg_match(url, table["id"])[1]) == state_before
            ends = await asyncio.gather(*(play_to_end(c, random.Random(4)) for c in clients))
            check_stored(url, table["id"], acked, list(ends))
            for c in clients:
                await c.close()

        asyncio.run(main())
    finally:
        first.stop()
        second.stop()


def _seat_of(url: str, table: str, version: int) -> int:
    return pg_match(url, table)[2][version - 1][0]


def test_a_paused_owner_cannot_append_once_taken_over(cluster: Cluster, tmp_path: Path) -> None:
    """SIGSTOP the owner past its lease: the other process takes the table over and plays on;
    woken up, the old owner's next action is refused (server_error, nothing stored), its
    clients are told table_elsewhere, and the log holds only what the new owner acknowledged."""
    url, (first, second) = _servers(cluster, tmp_path)
    assert first.process is not None
    try:
        async def main() -> None:
            table = create_table(first, "gang-of-four", {"players": 4, "target_score": 1})
            tokens = [claim(first, table["id"], s) for s in range(4)]
            old = [Seat(first, table["id"], t) for t in tokens]
            for c in old:
                await c.join()
            acked: dict[int, int] = {}
            await play_some(old, 4, random.Random(5), acked)
            await quiet(old)  # every seat has read everything (the actions in flight too)
            assert first.process is not None
            first.process.send_signal(signal.SIGSTOP)
            try:
                new = [(await join_somewhere(second, table["id"], t))[0] for t in tokens]
                await play_some(new, 3, random.Random(6), acked)
                await quiet(new)
                stored = pg_match(url, table["id"])[1]
                # A player at the old owner sends an action on the latest version it was shown (it
                # waits in the socket until the old owner runs again).
                latest = [[m for m in c.messages if m["type"] == "state"][-1] for c in old]
                top = max(s["version"] for s in latest)
                mover, state = next((c, s) for c, s in zip(old, latest) if s["legal_actions"] and s["version"] == top)
                await mover.send({"type": "act", "id": "late", "version": state["version"],
                                  "action": state["legal_actions"][0]["action"]})
            finally:
                first.process.send_signal(signal.SIGCONT)
            codes = []
            with contextlib.suppress(ConnectionClosed, asyncio.TimeoutError):
                while True:
                    message = await mover.recv(10)
                    if message["type"] in ("error", "ack"):
                        codes.append(message.get("code", "ack"))
            # Refused (server_error: the append's lease check) unless the old owner's renewal
            # found the lease lost first; either way told table_elsewhere, never acknowledged.
            assert codes[-1] == "table_elsewhere" and set(codes) <= {"server_error", "table_elsewhere"}, codes
            assert pg_match(url, table["id"])[1] == stored
            assert all(stored[v - 1] == a for v, a in acked.items())
            assert lease_owner(url, table["id"]) == second.http
            for c in old + new:
                await c.close()

        asyncio.run(main())
    finally:
        first.stop()
        second.stop()


def test_a_finished_tables_replay_reads_the_same_on_every_process(cluster: Cluster, tmp_path: Path) -> None:
    url, (first, second) = _servers(cluster, tmp_path)
    try:
        bots = [{"kind": "bot", "bot": "greedy"}] * 4
        table = create_table(first, "gang-of-four", {"players": 4, "target_score": 1}, bots)
        deadline = time.monotonic() + 60
        while not request("GET", f"{first.http}/api/tables/{table['id']}")[1]["terminal"]:
            assert time.monotonic() < deadline, "the bots' match does not end"
            time.sleep(0.1)
        status, replay = request("GET", f"{second.http}/api/tables/{table['id']}/replay")
        assert status == 200 and replay == request("GET", f"{first.http}/api/tables/{table['id']}/replay")[1]
        seed, actions, _ = pg_match(url, table["id"])
        engine = get_game("gang-of-four").new_game(players=4, target_score=1)
        assert replay["version"] == len(actions) and replay["boards"] is True
        for step in (0, len(actions) // 3, len(actions)):
            # The other process rebuilds the finished match from the store (once) and answers the same.
            answers = [request("GET", f"{s.http}/api/tables/{table['id']}/replay/{step}") for s in (second, first)]
            assert answers[0] == answers[1] and answers[0][0] == 200
            expected = json.loads(json.dumps(engine.replay(seed, actions[:step]).spectator_view()))
            assert answers[0][1]["view"] == expected
        assert lease_owner(url, table["id"]) in (first.http, None)  # reading took no lease
    finally:
        first.stop()
        second.stop()
