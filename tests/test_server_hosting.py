"""The bundled server on :mod:`fourcards.hosting` (issue 29): every version of a turn table
stored as a signed snapshot by a compare-and-swap on its step, restored without a replay;
the server's key; a database of an older server; another writer on the same database;
bots made for each turn (stateless, or their memory kept with the match); protocol 2's
updates, which do not grow with the match.

Real servers in subprocesses over real WebSockets, and the tables and stores in-process
where a test must reach inside (a game registered for it, a store's rows)."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

pytestmark = pytest.mark.engine

import fourcards  # noqa: E402
from fourcards.errors import InvalidStateError  # noqa: E402
from fourcards.games import GameEntry, get_game  # noqa: E402
from fourcards.hosting import MatchService  # noqa: E402

from .hosting_helpers import counting_game as counting_game_registered  # noqa: E402
from .server_helpers import (  # noqa: E402
    GENEROUS, Seat, ServerProcess, claim, create_table, play_to_end, request, stored_match,
)
from .test_server import humans  # noqa: E402


def row(db: Path, table: str) -> tuple[int, str | None, str | None]:
    """The stored version of a table: its step, snapshot and data."""
    con = sqlite3.connect(db)
    try:
        found = con.execute("SELECT step, snapshot, data FROM tables WHERE id=?", (table,)).fetchone()
        assert found is not None
        return int(found[0]), found[1], found[2]
    finally:
        con.close()


def list_tables(db: Path) -> list[str]:
    con = sqlite3.connect(db)
    try:
        return [table for (table,) in con.execute("SELECT id FROM tables")]
    finally:
        con.close()


def key_of(db: Path) -> bytes:
    return (db.parent / (db.name + ".key")).read_bytes().strip()


async def play(seat: Seat, count: int, rng: random.Random) -> None:
    """``count`` actions of ``seat`` (each acknowledged), whenever it is to act; then wait until
    it is to act again (the bots have played) or the match is over."""
    done = 0
    while True:
        state = seat.state
        if state is not None and (state["terminal"] or (state["legal_actions"] and done == count)):
            return
        if state is None or not state["legal_actions"]:
            await seat.recv()
            continue
        act = {"type": "act", "id": f"p{state['version']}", "version": state["version"],
               "action": rng.choice(state["legal_actions"])["action"]}
        await seat.send(act)
        await seat.until("ack", id=act["id"])
        done += 1
        while seat.state is state or (seat.state is not None and seat.state["version"] < act["version"] + 1):
            await seat.recv()


async def match_under_way(server: ServerProcess, game: str, rules: dict[str, Any], bots: list[dict[str, Any]],
                          count: int, rng: random.Random) -> tuple[dict[str, Any], str, Seat]:
    """A new table whose seat 0 (a human) has played ``count`` actions and whose match is not
    over: the deal is the server's random one, so a match that ended that soon (rarely: a bot
    went out at once) is left, and another table made."""
    for _ in range(10):
        table = create_table(server, game, rules, humans(1) + bots)
        token = claim(server, table["id"], 0)
        seat = Seat(server, table["id"], token, protocol=2)
        await seat.join()
        await play(seat, count, rng)
        assert seat.state is not None
        if not seat.state["terminal"]:
            return table, token, seat
        await seat.close()
    raise AssertionError(f"10 {game} matches were over within {count} actions of seat 0")


# -- snapshots, the key, recovery ----------------------------------------------------------------

def test_every_version_is_a_signed_snapshot_restored_after_a_kill_9(tmp_path: Path) -> None:
    """Each acknowledged action stores the match's new version (step, snapshot, data) with its
    log entry; the key is made beside the database (its owner's only) and never sent; after a
    ``kill -9`` the table comes back from its snapshot (the log's ids: a retry is not applied
    again), and the match goes on to its end."""
    db = tmp_path / "tables.db"
    server = ServerProcess(db, options=(*GENEROUS, "--log-level", "info"), log=tmp_path / "server.log").start()

    async def main() -> None:
        table, token, seat = await match_under_way(server, "gang-of-four", {"players": 4, "target_score": 3},
                                                   [{"kind": "bot", "bot": "greedy"}] * 3, 6, random.Random(3))
        step, snapshot, data = row(db, table["id"])
        seed, actions = stored_match(db, table["id"])
        assert step == len(actions) > 6 and snapshot is not None and data is not None
        key = key_of(db)
        assert len(key) == 64 and stat.S_IMODE((db.parent / "tables.db.key").stat().st_mode) == 0o600
        restored = fourcards.load(snapshot, key)
        assert restored == get_game("gang-of-four").new_game(players=4, target_score=3).replay(seed, actions)
        with pytest.raises(InvalidStateError):
            fourcards.load(snapshot, b"another key of 32 bytes at least!")
        stored = json.loads(data)
        assert stored["format"] == "fourcards-hosted" and stored["seats"] == [None, "greedy", "greedy", "greedy"]
        assert all(key.decode() not in json.dumps(m) and snapshot[:60] not in json.dumps(m) for m in seat.messages)
        last = [m for m in seat.messages if m["type"] == "ack"][-1]
        await seat.close()
        server.kill9()
        server.start()
        made = len(list_tables(db))  # one, or more if a match was over too soon
        assert f"{made} tables recovered" in server.log_text() and f"({made} from their snapshot)" in server.log_text()
        again = Seat(server, table["id"], token, protocol=2)
        await again.join()
        state = await again.until("state")
        assert state["version"] == step and state["history"] == json.loads(json.dumps(
            [m for m in seat.states if m["version"] == step][-1]["history"]))
        retry = {"type": "act", "id": last["id"], "version": last["version"] - 1,
                 "action": actions[last["version"] - 1]}  # the same message again: a client's retry
        await again.send(retry)
        assert (await again.until("ack", id=last["id"]))["version"] == last["version"]  # a retry: not applied again
        assert row(db, table["id"])[0] == step
        end = await play_to_end(again, random.Random(4))
        seed, actions = stored_match(db, table["id"])
        final = get_game("gang-of-four").new_game(players=4, target_score=3).replay(seed, actions)
        assert end["winners"] == list(final.winners) and fourcards.load(row(db, table["id"])[1] or "", key) == final
        await again.close()

    try:
        asyncio.run(main())
    finally:
        server.stop()


def test_a_key_file_signs_and_a_snapshot_of_another_key_is_replayed(tmp_path: Path) -> None:
    """``--key-file``: that key signs the snapshots. Restarted with another key, the server
    cannot read them: each table is replayed from its log instead, and plays on."""
    db = tmp_path / "tables.db"
    first, second = tmp_path / "first.key", tmp_path / "second.key"
    first.write_text("the first secret key of this server\n")
    second.write_text("another secret, quite as long as it\n")
    log = tmp_path / "server.log"
    server = ServerProcess(db, options=(*GENEROUS, "--key-file", str(first), "--log-level", "info"), log=log).start()

    async def main() -> None:
        table, token, seat = await match_under_way(server, "duelo", {"players": 2},
                                                   [{"kind": "bot", "bot": "category"}], 4, random.Random(1))
        await seat.close()
        snapshot = row(db, table["id"])[1]
        assert snapshot is not None and fourcards.load(snapshot, b"the first secret key of this server") is not None
        assert not (db.parent / "tables.db.key").exists()  # a key was given: none is made
        server.stop()
        server.options = (*GENEROUS, "--key-file", str(second), "--log-level", "info")
        server.start()
        assert "its snapshot does not load" in log.read_text() and "(0 from their snapshot)" in log.read_text()
        seat = Seat(server, table["id"], token, protocol=2)
        await seat.join()
        assert (await seat.until("state"))["version"] == row(db, table["id"])[0]
        await play(seat, 2, random.Random(2))  # the new versions are signed with the second key
        assert fourcards.load(row(db, table["id"])[1] or "", b"another secret, quite as long as it")
        await seat.close()

    try:
        asyncio.run(main())
    finally:
        server.stop()
    for bad in ("short", ""):
        first.write_text(bad)
        broken = ServerProcess(db, options=(*GENEROUS, "--key-file", str(first)))
        with pytest.raises(RuntimeError, match="key"):
            broken.start()
    with pytest.raises(RuntimeError, match="key-file"):
        ServerProcess(db, options=(*GENEROUS, "--key-file", str(tmp_path / "missing"))).start()


def test_a_database_of_an_older_server_is_replayed_then_stored_as_snapshots(tmp_path: Path) -> None:
    """A file written before snapshots (no step, snapshot, data): its columns are added, each
    table's step taken from its log, the table replayed once; its next version is a snapshot."""
    db = tmp_path / "old.db"
    game = get_game("four-pack").new_game(players=3)
    state, rng, entries = game.new_match(42), random.Random(5), []
    for _ in range(12):
        entries.append((state.step, state.current_player, state.legal_actions()[rng.randrange(3)]))
        state.apply(entries[-1][2])
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seed TEXT NOT NULL,
            setup TEXT NOT NULL, deck TEXT, created REAL NOT NULL, position INTEGER NOT NULL,
            private INTEGER NOT NULL DEFAULT 0, invite_hash TEXT);
        CREATE TABLE seats (table_id TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
            bot TEXT, token_hash TEXT, PRIMARY KEY (table_id, seat));
        CREATE TABLE log (table_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL, client_id TEXT,
            action INTEGER, event TEXT, PRIMARY KEY (table_id, idx));
        INSERT INTO tables VALUES ('old1', 'four-pack', '{"players": 3}', '42', '{}', NULL, 1.0, 1, 0, NULL);
        INSERT INTO seats VALUES ('old1', 0, 'human', '', NULL, NULL), ('old1', 1, 'human', '', NULL, NULL),
            ('old1', 2, 'human', '', NULL, NULL);
    """)
    con.executemany("INSERT INTO log VALUES ('old1', ?, ?, NULL, ?, NULL)", entries)
    con.commit()
    con.close()
    server = ServerProcess(db).start()

    async def main() -> None:
        assert row(db, "old1")[:2] == (12, None)
        assert request("GET", server.http + "/api/tables/old1")[1]["version"] == 12
        seats = [Seat(server, "old1", claim(server, "old1", s), protocol=2) for s in range(3)]
        for seat in seats:
            await seat.join()
        mover = seats[state.current_player]
        version = (await mover.until("state"))["version"]
        legal = mover.state["legal_actions"] if mover.state else []
        await mover.send({"type": "act", "id": "n1", "version": version, "action": legal[0]["action"]})
        assert (await mover.until("ack", id="n1"))["version"] == 13
        step, snapshot, _ = row(db, "old1")
        assert step == 13 and snapshot is not None
        state.apply(legal[0]["action"])
        assert fourcards.load(snapshot, key_of(db)) == state
        for seat in seats:
            await seat.close()

    try:
        asyncio.run(main())
    finally:
        server.stop()


# -- another writer on the same database: the compare-and-swap ---------------------------------------

def test_a_table_another_writer_moved_refuses_the_stale_action_and_catches_up(tmp_path: Path) -> None:
    """The server's store is a MatchStore: a MatchService with the server's key acts on one of
    its tables through the same database file. The server's own next action at the old step
    loses the compare-and-swap: refused ``stale``, nothing of it stored; the table takes up the
    other writer's version and shows it, and play goes on from there."""
    from fourcards.server.store import SQLiteStore

    db = tmp_path / "tables.db"
    server = ServerProcess(db).start()

    async def main() -> None:
        table = create_table(server, "zangle", {"players": 2}, humans(2))
        tokens = [claim(server, table["id"], s) for s in range(2)]
        seats = [Seat(server, table["id"], t, protocol=2) for t in tokens]
        for seat in seats:
            await seat.join()
            await seat.until("state")
        first = seats[0].state
        assert first is not None
        mover = seats[first["current_player"]]
        legal = first["legal_actions"] or (seats[1].state or {})["legal_actions"]
        store = SQLiteStore(db)
        try:
            service = MatchService(store, key_of(db))
            moved = await asyncio.to_thread(service.act, table["id"], first["current_player"], legal[0]["action"],
                                            expected_step=first["version"])
        finally:
            await asyncio.to_thread(store.close)
        assert moved.step == first["version"] + 1 and row(db, table["id"])[0] == moved.step
        await mover.send({"type": "act", "id": "late", "version": first["version"], "action": legal[-1]["action"]})
        assert (await mover.until("error", id="late"))["code"] == "stale"
        await mover.until("state", version=moved.step)  # the other writer's version, shown whole
        assert stored_match(db, table["id"])[1] == [legal[0]["action"]]  # the late action: not stored
        seat = first["current_player"]
        assert mover.state is not None and mover.state["version"] == moved.step
        assert mover.state["view"] == json.loads(json.dumps(
            get_game("zangle").new_game(players=2).replay(stored_match(db, table["id"])[0], [legal[0]["action"]])
            .view(seats.index(mover))))
        assert seat in (0, 1)
        end = await asyncio.gather(*(play_to_end(seat, random.Random(9)) for seat in seats))
        seed, actions = stored_match(db, table["id"])
        final = get_game("zangle").new_game(players=2).replay(seed, actions)
        assert end[0]["winners"] == list(final.winners) and actions[0] == legal[0]["action"]
        for seat in seats:
            await seat.close()

    try:
        asyncio.run(main())
    finally:
        server.stop()


# -- bots made for each turn -------------------------------------------------------------------------

@pytest.fixture
def counting_game() -> Iterator[GameEntry]:
    with counting_game_registered("server-counting-ends", last=True) as entry:
        yield entry


def test_a_seat_whose_bot_declares_neither_is_refused(tmp_path: Path, counting_game: GameEntry) -> None:
    """The server refuses, as a MatchService does, a bot that declares neither ``stateless``
    nor its memory: it makes each bot again for each turn."""
    from fourcards.server.admission import Limits, Refusal
    from fourcards.server.app import GameServer
    from fourcards.server.store import SQLiteStore

    async def main() -> None:
        server = GameServer(SQLiteStore(tmp_path / "t.db"), 0.0, Limits())
        try:
            with pytest.raises(Refusal) as refused:
                await server.create_table({"game": counting_game.name,
                                           "seats": [{"kind": "human"}, {"kind": "bot", "bot": "forgetful"}]})
            assert (refused.value.status, refused.value.code) == (400, "bad_seats")
            assert "declares neither stateless = True nor its memory" in refused.value.reason
            assert server.tables == {} and server.store.load() == []
            table, _ = await server.create_table({"game": counting_game.name,
                                                  "seats": [{"kind": "human"}, {"kind": "bot", "bot": "counting"}]})
            assert table.id in server.tables
        finally:
            server.stop()

    asyncio.run(main())


def test_a_bots_memory_is_kept_with_the_match_and_given_back_after_a_restart(
        tmp_path: Path, counting_game: GameEntry) -> None:
    """A bot that hands its memory over is made again for each turn with it, and gets it back
    from the stored data after a restart (its count of decisions goes on, not from zero)."""
    from fourcards.server.store import SeatRecord, SQLiteStore, TableRecord
    from fourcards.server.tables import TurnTable, make_table

    record = TableRecord("mem", counting_game.name, {}, 77, (SeatRecord("human"), SeatRecord("bot", "b", "counting")))
    key = b"a key for the memory test, long enough"
    executor = ThreadPoolExecutor(2)

    async def person_then_bots(table: TurnTable, turns: int) -> None:
        for _ in range(turns):
            if table.terminal:
                return
            await table._apply(0, int(table.state.legal_actions()[0]), table.version, f"m{table.version}")
            table.schedule_bots()
            while table._bot_running:
                await asyncio.sleep(0.01)

    async def main() -> None:
        store = SQLiteStore(tmp_path / "t.db")
        table = make_table(record, store, executor, 0.0, lambda text: None, key)
        assert isinstance(table, TurnTable)
        await store.create_table(record, table.first_version())
        await person_then_bots(table, 3)
        made = json.loads(row(tmp_path / "t.db", "mem")[2] or "")["memory"]
        assert made == {"1": {"decisions": 3}}
        store.close()
        store = SQLiteStore(tmp_path / "t.db")
        (stored,) = store.load()
        again = make_table(stored.table, store, executor, 0.0, lambda text: None, key)
        assert isinstance(again, TurnTable) and stored.match is not None
        assert stored.log == []  # nothing of the log is read at start: the snapshot is the match
        again.restore(stored.match)
        assert again.data["memory"] == made and again.state == table.state
        assert again.applied[0] == {}
        await again._read_ids(None)  # what its first action does
        assert sorted(again.applied[0]) == ["m0", "m2", "m4"]  # the log's message ids, for retries
        await person_then_bots(again, 2)
        assert json.loads(row(tmp_path / "t.db", "mem")[2] or "")["memory"] == {"1": {"decisions": 5}}
        store.close()

    try:
        asyncio.run(main())
    finally:
        executor.shutdown()


# -- protocol 2: answers that do not grow with the match -------------------------------------------------

@pytest.mark.parametrize("game,rules", [("duelo", {"players": 2, "hand_limit": 60}), ("four-pack", {"players": 3})])
def test_updates_do_not_grow_with_the_match(tmp_path: Path, game: str, rules: dict[str, Any]) -> None:
    """Duelo's view lists every hand played, Four Pack's every ask: protocol 1 sends all of it
    after each action (its messages grow with the match), protocol 2 only what changed. Two
    people play one match, one of them on each protocol."""
    server = ServerProcess(tmp_path / "tables.db").start()

    grown, long_past = ("hands", 40) if game == "duelo" else ("asks", 120)

    async def main() -> None:
        players = get_game(game).new_game(**rules).num_players
        for attempt in range(6):  # the deal is the server's: play again until the past is long
            table = create_table(server, game, rules, humans(players))
            seats = [Seat(server, table["id"], claim(server, table["id"], s), protocol=1 + s % 2)
                     for s in range(players)]
            for seat in seats:
                await seat.join()
            await asyncio.gather(*(play_to_end(seat, random.Random(seat.protocol + attempt)) for seat in seats))
            final = [m for m in seats[0].messages if m["type"] == "state"][-1]
            if len(final["view"][grown]) >= long_past:
                break
            for seat in seats:
                await seat.close()
        assert len(final["view"][grown]) >= long_past
        sizes = {seat.protocol: [len(json.dumps(m)) for m in seat.messages if m["type"] in ("state", "update")]
                 for seat in seats[:2]}
        late = sizes[2][len(sizes[2]) // 2:]
        assert max(late) < 6000 < max(sizes[1]) and sum(sizes[2]) * 3 < sum(sizes[1]), (max(late), max(sizes[1]))
        assert seats[1].state is not None and seats[1].state["view"][grown] == final["view"][grown]
        for seat in seats:
            await seat.close()

    try:
        asyncio.run(main())
    finally:
        server.stop()


def test_a_join_names_a_protocol_the_server_speaks(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "tables.db").start()

    async def main() -> None:
        table = create_table(server, "duelo", {"players": 2}, humans(2))
        token = claim(server, table["id"], 0)
        for bad in (0, 3, "2", True, None, 2**40):
            seat = Seat(server, table["id"], token)
            seat.ws = None
            from websockets.asyncio.client import connect

            seat.ws = await connect(server.ws)
            await seat.send({"type": "join", "table": table["id"], "token": token, "protocol": bad})
            error = await seat.recv()
            assert error["type"] == "error" and error["code"] == "bad_message" and "protocol" in error["reason"]
            await seat.close()
        for protocol in (1, 2):
            seat = Seat(server, table["id"], token, protocol)
            assert (await seat.join())["protocol"] == protocol
            await seat.close()

    try:
        asyncio.run(main())
    finally:
        server.stop()
