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
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from fourcards.server.pgstore import Elsewhere, LeaseLost, PostgresStore
from fourcards.server.store import LogEntry, SeatRecord, SQLiteStore, TableRecord

from .pg_cluster import ENV, Cluster, find_bin

_psycopg_missing = False
try:
    import psycopg  # noqa: F401
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
