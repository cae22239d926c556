"""The game server on the open internet (issue 22): ``fourcards serve`` for real, in a
subprocess on 127.0.0.1, over HTTP and real WebSockets.

Origins (JSON-only POSTs, an allow-list for POSTs and WebSocket handshakes),
private tables and their invitations across a restart, per-address creation
limits, idle tables expiring with their clients told, spectators of every game
(public views only, never an action), and the replay of a finished match.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

pytestmark = pytest.mark.engine

from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from fourcards.errors import FourCardsError, InvalidTypeError  # noqa: E402
from fourcards.games import get_game  # noqa: E402
from fourcards.views import plain  # noqa: E402

from .server_helpers import (  # noqa: E402
    GENEROUS, Seat, ServerProcess, claim, create_table, play_to_end, request, request_from, stored_match,
)
from .test_server import GAMES, _hand_tokens, _tokens, humans, seated  # noqa: E402

FRIEND = "https://friend.example"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path_factory.mktemp("secure") / "tables.db",
                            options=(*GENEROUS, "--allow-origin", FRIEND)).start()
    yield process
    process.stop()


def listed(server: ServerProcess) -> set[str]:
    """Every listed table's id, page after page."""
    found: set[str] = set()
    query = "?limit=200"
    while True:
        status, page = request("GET", server.http + "/api/tables" + query)
        assert status == 200, page
        found |= {t["id"] for t in page["tables"]}
        if page["next"] is None:
            return found
        query = f"?limit=200&after={page['next']}"


class Watcher(Seat):
    """A spectator: ``watch`` instead of ``join``."""

    def __init__(self, server: ServerProcess, table: str, invite: str | None = None, protocol: int = 1) -> None:
        super().__init__(server, table, "", protocol)
        self.invite = invite

    async def join(self) -> dict[str, Any]:
        self.ws = await connect(self.server.ws, max_size=2**24)
        message: dict[str, Any] = {"type": "watch", "table": self.table}
        if self.invite is not None:
            message["invite"] = self.invite
        if self.protocol != 1:
            message["protocol"] = self.protocol
        await self.send(message)
        return await self.recv()

    async def until_end(self, timeout: float = 60) -> dict[str, Any]:
        return await self.until("end", timeout)


# -- origins and media types ---------------------------------------------------------------------

def test_a_cross_site_form_post_is_refused_before_its_body_is_read(server: ServerProcess) -> None:
    url = server.http + "/api/tables"
    before = listed(server)
    form = b"game=duelo&rules=%7B%7D"
    for media in ("application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", ""):
        status, answer = request("POST", url, raw=form, headers={"Content-Type": media,
                                                                 "Origin": "https://evil.example"})
        assert (status, answer["error"]["code"]) == (415, "unsupported_media_type"), media
    table = create_table(server, "duelo", {"players": 2}, humans(2))
    status, answer = request("POST", f"{url}/{table['id']}/seats/0", raw=b"name=x",
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert (status, answer["error"]["code"]) == (415, "unsupported_media_type")
    assert listed(server) == before | {table["id"]}
    assert not request("GET", f"{url}/{table['id']}")[1]["seats"][0]["taken"]
    # JSON with parameters is JSON.
    status, _ = request("POST", url, {"game": "duelo"}, headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert status == 201


def test_a_cross_origin_json_post_is_refused_and_the_own_and_allowed_origins_are_not(
        server: ServerProcess) -> None:
    url = server.http + "/api/tables"
    before = listed(server)
    for origin in ("https://evil.example", "null", f"http://127.0.0.1:{server.port + 1}", f"http://localhost:{server.port}",
                   "https://friend.example:8443", "http://friend.example", "not a url"):
        status, answer = request("POST", url, {"game": "duelo"}, headers={"Origin": origin})
        assert (status, answer["error"]["code"]) == (403, "forbidden_origin"), origin
    assert listed(server) == before
    table = create_table(server, "duelo", {"players": 2}, humans(2))
    status, answer = request("POST", f"{url}/{table['id']}/seats/0", {}, headers={"Origin": "https://evil.example"})
    assert (status, answer["error"]["code"]) == (403, "forbidden_origin")
    allowed: list[str | None] = [f"http://127.0.0.1:{server.port}", FRIEND, FRIEND + "/", "HTTPS://Friend.Example:443",
                                 None]
    for allowed_origin in allowed:
        headers = {} if allowed_origin is None else {"Origin": allowed_origin}
        assert request("POST", url, {"game": "duelo"}, headers=headers)[0] == 201, allowed_origin
    # Reading is allowed from anywhere (the answers hold no secret).
    assert request("GET", url, headers={"Origin": "https://evil.example"})[0] == 200


def test_a_websocket_from_a_foreign_origin_is_refused_before_the_handshake(server: ServerProcess) -> None:
    async def main() -> None:
        for origin in ("https://evil.example", f"http://127.0.0.1:{server.port + 1}"):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(server.ws, origin=origin):  # type: ignore[arg-type]
                    pass
            assert refused.value.response.status_code == 403
            assert json.loads(bytes(refused.value.response.body or b""))["error"]["code"] == "forbidden_origin"
        for allowed in (FRIEND, f"http://127.0.0.1:{server.port}", None):
            async with connect(server.ws, origin=allowed) as ws:  # type: ignore[arg-type]
                await ws.send('{"type": "ping"}')
                assert json.loads(await ws.recv())["type"] == "pong"

    asyncio.run(main())


# -- private tables --------------------------------------------------------------------------------

def test_private_tables_need_their_invitation_and_keep_it_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "private.db"
    server = ServerProcess(db).start()
    try:
        url = server.http + "/api/tables"
        status, table = request("POST", url, {"game": "duelo", "rules": {"players": 2}, "private": True})
        assert status == 201 and table["private"] is True
        invite, tid = table["invite"], table["id"]
        assert isinstance(invite, str) and len(invite) >= 32
        public = create_table(server, "duelo", {"players": 2})
        assert "invite" not in public and public["private"] is False
        assert request("POST", url, {"game": "duelo", "private": "yes"})[0] == 400

        def check(after_restart: bool) -> None:
            assert tid not in listed(server) and public["id"] in listed(server)
            for query in ("", "?invite=", "?invite=guess", f"?invite={invite}x"):
                status, answer = request("GET", f"{url}/{tid}{query}")
                assert (status, answer["error"]["code"]) == (404, "unknown_table"), query
            status, answer = request("GET", f"{url}/{tid}?invite={invite}")
            assert status == 200 and answer["private"] is True and "invite" not in answer
            for body in ({}, {"invite": "guess"}, {"invite": 7}):
                status, answer = request("POST", f"{url}/{tid}/seats/{int(after_restart)}", body)
                assert (status, answer["error"]["code"]) == (403, "bad_invite"), body

        check(False)
        status, seat = request("POST", f"{url}/{tid}/seats/0", {"invite": invite, "name": "Ada"})
        assert status == 201 and seat["seat"] == 0
        # Only the invitation's SHA-256 is stored.
        con = sqlite3.connect(db)
        try:
            row = con.execute("SELECT private, invite_hash FROM tables WHERE id=?", (tid,)).fetchone()
            dump = "\n".join(con.iterdump())
        finally:
            con.close()
        assert row == (1, hashlib.sha256(invite.encode()).hexdigest()) and invite not in dump
        server.kill9()
        server.start()
        check(True)
        assert request("POST", f"{url}/{tid}/seats/1", {"invite": invite})[0] == 201

        async def watch() -> None:
            for guess in (None, "guess"):
                watcher = Watcher(server, tid, guess)
                answer = await watcher.join()
                assert answer["type"] == "error" and answer["code"] == "unknown_table"
                await watcher.close()
            watcher = Watcher(server, tid, invite)
            assert (await watcher.join())["seat"] is None
            await watcher.close()
            # A seat's token alone joins (it was claimed with the invitation).
            person = Seat(server, tid, seat["token"])
            assert (await person.join())["seat"] == 0
            await person.close()
            await person.join()
            await person.close()
            stranger = Seat(server, tid, "guess")
            stranger.ws = await connect(server.ws)
            await stranger.send({"type": "join", "table": tid, "token": "guess"})
            assert (await stranger.recv())["code"] == "unknown_table"
            await stranger.close()

        asyncio.run(watch())
    finally:
        server.stop()


def test_an_older_database_file_gains_the_new_columns(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE tables (id TEXT PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL, seed TEXT NOT NULL,
            setup TEXT NOT NULL, deck TEXT, created REAL NOT NULL, position INTEGER NOT NULL);
        CREATE TABLE seats (table_id TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
            bot TEXT, token_hash TEXT, PRIMARY KEY (table_id, seat));
        CREATE TABLE log (table_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL, client_id TEXT,
            action INTEGER, event TEXT, PRIMARY KEY (table_id, idx));
        INSERT INTO tables VALUES ('old1', 'duelo', '{"players": 2}', '42', '{}', NULL, 1.0, 1);
        INSERT INTO seats VALUES ('old1', 0, 'human', '', NULL, NULL), ('old1', 1, 'human', '', NULL, NULL);
    """)
    con.commit()
    con.close()
    server = ServerProcess(db).start()
    try:
        assert "old1" in listed(server)
        assert request("GET", server.http + "/api/tables/old1")[1]["private"] is False
        status, table = request("POST", server.http + "/api/tables", {"game": "duelo", "private": True})
        assert status == 201
    finally:
        server.stop()
    con = sqlite3.connect(db)
    try:
        columns = {row[1] for row in con.execute("PRAGMA table_info(tables)")}
        assert {"private", "invite_hash"} <= columns
        assert con.execute("SELECT private FROM tables WHERE id=?", (table["id"],)).fetchone() == (1,)
    finally:
        con.close()


# -- per-client limits ------------------------------------------------------------------------------

def test_table_creation_is_limited_per_client_address(tmp_path: Path) -> None:
    # The default rate (1 a second, bursts of 10); 3 open tables an address.
    server = ServerProcess(tmp_path / "limits.db", options=("--tables-per-client", "3")).start()
    try:
        url = server.http + "/api/tables"
        answers = [request("POST", url, {"game": "duelo", "rules": {"players": 2}}) for _ in range(14)]
        codes = [status if status == 201 else answer["error"]["code"] for status, answer in answers]
        assert codes[:3] == [201] * 3
        assert codes[3] == "too_many_tables" and answers[3][0] == 429
        # Every request counts against the rate: after the burst of 10, the 11th is refused.
        assert "rate_limited" in codes[10:] and set(codes[3:]) == {"too_many_tables", "rate_limited"}
        assert all(status == 429 for status, _ in answers[3:])
        assert len(listed(server)) == 3
        time.sleep(1.2)  # the allowance refills; the open-table limit still holds
        status, answer, headers = request_from("127.0.0.1", "POST", url, {"game": "duelo"})
        assert (status, answer["error"]["code"]) == (429, "too_many_tables")
        # When a slot could free up at the soonest: the first table's idle hour, then a sweep.
        wait = int(headers["retry-after"])
        assert answer["error"]["retry_after"] == wait and 3500 < wait <= 3600 + 60, wait
    finally:
        server.stop()


@pytest.mark.parametrize("field,value,error", [
    ("claim_rate", float("nan"), FourCardsError), ("claim_rate", -1.0, FourCardsError),
    ("create_burst", 0, FourCardsError), ("idle_seconds", float("inf"), FourCardsError),
    ("max_tables", 0, FourCardsError), ("max_tables", 1.5, InvalidTypeError), ("max_body", True, InvalidTypeError),
    ("rate", None, InvalidTypeError), ("max_spectators", "50", InvalidTypeError), ("max_finished", -1, FourCardsError),
])
def test_limits_are_checked_when_made(field: str, value: Any, error: type[Exception]) -> None:
    from fourcards.server.app import Limits

    with pytest.raises(error, match=f"Limits.{field}"):
        Limits(**{field: value})
    assert Limits(max_finished=0, max_tables=2**70).max_tables == 2**70  # no upper bound is needed


def test_seat_claims_are_limited_per_client_address(tmp_path: Path) -> None:
    # Bursts of 20 claims, refilled at 0.5 a second here: the 21st claim in a row is refused.
    options = ("--tables-per-client", "100000", "--create-rate", "100000", "--claim-rate", "0.5")
    server = ServerProcess(tmp_path / "claims.db", options=options).start()
    try:
        tables = [request("POST", server.http + "/api/tables", {"game": "duelo", "rules": {"players": 2}})[1]["id"]
                  for _ in range(11)]
        answers = [request("POST", f"{server.http}/api/tables/{t}/seats/{seat}", {}) for t in tables for seat in (0, 1)]
        codes = [status if status == 201 else answer["error"]["code"] for status, answer in answers]
        assert codes[:20] == [201] * 20 and codes[20:] == ["rate_limited"] * 2, codes
        assert answers[20][0] == 429 and "seat claims" in answers[20][1]["error"]["reason"]
        # A refused claim took nothing: the seat is still free, and claimable once the allowance refills.
        assert not request("GET", f"{server.http}/api/tables/{tables[10]}")[1]["seats"][0]["taken"]
        time.sleep(2.2)
        assert request("POST", f"{server.http}/api/tables/{tables[10]}/seats/0", {})[0] == 201
    finally:
        server.stop()


# -- idle tables expire ------------------------------------------------------------------------------

def test_an_idle_table_expires_and_its_clients_are_told(tmp_path: Path) -> None:
    db = tmp_path / "idle.db"
    server = ServerProcess(db, options=(*GENEROUS, "--idle-minutes", "0.03")).start()  # 1.8 s

    async def main() -> None:
        idle = create_table(server, "duelo", {"players": 2}, humans(2))
        busy = create_table(server, "four-pack", {"players": 3}, humans(3))
        done = create_table(server, "duelo", {"players": 2, "hand_limit": 40},
                            [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "category"}])
        players = await seated(server, idle)
        watcher = Watcher(server, idle["id"])
        await watcher.join()
        busy_seats = await seated(server, busy)
        for seat in busy_seats:
            await seat.until("state")
        began = time.monotonic()
        # The busy table acts every 0.5 s: it outlives the idle time.
        rng = random.Random(4)
        while time.monotonic() - began < 3.5:
            for seat in busy_seats:
                state = [m for m in seat.messages if m["type"] == "state"][-1]
                if state["legal_actions"] and not state["terminal"]:
                    act = {"type": "act", "id": f"b{state['version']}", "version": state["version"],
                           "action": rng.choice(state["legal_actions"])["action"]}
                    await seat.send(act)
                    await seat.until("ack", id=act["id"])
            for seat in busy_seats:
                while True:  # read what is waiting (the new states)
                    try:
                        await seat.recv(0.05)
                    except asyncio.TimeoutError:
                        break
            await asyncio.sleep(0.5)
        for client in (*players, watcher):
            error = await client.until("error", timeout=5)
            assert error["code"] == "table_expired", error
            with pytest.raises(ConnectionClosed):
                await client.recv(5)
        assert request("GET", f"{server.http}/api/tables/{idle['id']}")[0] == 404
        assert request("POST", f"{server.http}/api/tables/{idle['id']}/seats/0", {})[0] == 404
        con = sqlite3.connect(db)
        try:
            for name, column in (("tables", "id"), ("seats", "table_id"), ("log", "table_id")):
                assert con.execute(f"SELECT COUNT(*) FROM {name} WHERE {column}=?", (idle["id"],)).fetchone() == (0,)
        finally:
            con.close()
        assert request("GET", f"{server.http}/api/tables/{busy['id']}")[0] == 200
        # A finished table is kept (for its replay), however long ago it ended.
        summary = request("GET", f"{server.http}/api/tables/{done['id']}")[1]
        assert summary["terminal"]
        assert request("GET", f"{server.http}/api/tables/{done['id']}/replay")[0] == 200
        for seat in busy_seats:
            await seat.close()
        # A restart recovers no expired table.
        server.stop()
        server.start()
        assert idle["id"] not in listed(server) and {busy["id"], done["id"]} <= listed(server)

    try:
        asyncio.run(main())
    finally:
        server.stop()


def test_the_oldest_finished_tables_are_dropped_beyond_the_limit() -> None:
    from fourcards.server.app import GameServer, Limits
    from fourcards.server.store import LogEntry, SeatRecord, StoredTable, TableRecord
    from fourcards.server.tables import make_table

    class MemoryStore:
        def __init__(self) -> None:
            self.deleted: list[str] = []

        def load(self) -> list[StoredTable]:
            return []

        async def delete_table(self, table_id: str) -> None:
            self.deleted.append(table_id)

        def close(self) -> None:
            pass

    game = get_game("duelo").new_game(players=2)
    rng = random.Random(1)
    store = MemoryStore()

    async def main() -> None:
        server = GameServer(store, 0.0, Limits(max_finished=2))  # type: ignore[arg-type]
        for number, created in enumerate((30.0, 10.0, 20.0, 40.0)):
            state = game.new_match(number)
            entries = []
            while not state.is_terminal:
                seat, action = state.current_player, rng.choice(state.legal_actions())
                entries.append(LogEntry(state.step, seat, None, action))
                state.apply(action)
            record = TableRecord(f"t{number}", "duelo", {"players": 2}, number,
                                 (SeatRecord("human"), SeatRecord("human")), created=created)
            table = make_table(record, store, None, 0.0, lambda text: None)  # type: ignore[arg-type]
            table.replay(entries)
            assert table.terminal
            server.tables[table.id] = table
        await server.sweep()
        assert sorted(store.deleted) == ["t1", "t2"] and sorted(server.tables) == ["t0", "t3"]
        server.executor.shutdown()

    asyncio.run(main())


# -- spectators -----------------------------------------------------------------------------------

def _spectator_truths(game_name: str, rules: dict[str, Any], db: Path, table: str) -> list[tuple[Any, set[str]]]:
    """At every version: the engine's spectator view, and the hidden tokens (every seat's
    hand less every card a public record has named so far)."""
    game = get_game(game_name).new_game(**rules)
    seed, actions = stored_match(db, table)
    state = game.new_match(seed)
    truths = []
    public: set[str] = set()
    seen = 0
    for version in range(len(actions) + 1):
        history = state.history
        public |= {t for r in history[seen:] for t in _tokens(plain(r))}
        seen = len(history)
        hands = set().union(*(_hand_tokens(game_name, state, p) for p in range(game.num_players)))
        truths.append((json.loads(json.dumps(state.spectator_view())), hands - public))
        if version < len(actions):
            state.apply(actions[version])
    return truths


@pytest.mark.parametrize("game,rules,seats", GAMES[:8], ids=[f"{g}-{i}" for i, (g, _, _) in enumerate(GAMES[:8])])
def test_a_spectator_sees_every_state_with_no_hidden_card_and_cannot_act(
        server: ServerProcess, game: str, rules: dict[str, Any], seats: list[dict[str, Any]] | None) -> None:
    async def main() -> None:
        players = get_game(game).new_game(**rules).num_players
        table = create_table(server, game, rules, seats or humans(players))
        watcher = Watcher(server, table["id"])
        welcome = await watcher.join()
        assert welcome["type"] == "welcome" and welcome["seat"] is None and welcome["game"] == game
        follower = Watcher(server, table["id"], protocol=2)  # the page's protocol: updates
        assert (await follower.join())["protocol"] == 2 and welcome["protocol"] == 1
        clients = await seated(server, table)
        first = await watcher.until("state")
        for message, code in (({"type": "act", "id": "s1", "version": first["version"], "action": 0}, "spectator"),
                              ({"type": "hint", "id": "s2"}, "spectator"),
                              ({"type": "join", "table": table["id"], "token": "x"}, "already_joined"),
                              ({"type": "watch", "table": table["id"]}, "already_joined")):
            await watcher.send(message)
            assert (await watcher.until("error"))["code"] == code
        rng = random.Random(11)
        ends = await asyncio.gather(*(play_to_end(c, rng) for c in clients), watcher.until_end(),
                                    follower.until_end())
        assert ends[-1] == ends[-2] == ends[0]
        truths = _spectator_truths(game, rules, server.db, table["id"])
        # The spectator that speaks protocol 2: one whole state, then updates; its copy of the
        # public view, brought up to date by each, is the engine's spectator view at every version.
        kinds = [m["type"] for m in follower.messages]
        assert kinds.count("state") == 1 and kinds.count("update") == len(follower.states) - 1 > 0
        assert [s["version"] for s in follower.states] == sorted({s["version"] for s in follower.states})
        for held in follower.states:
            assert held["view"] == truths[held["version"]][0] and held["legal_actions"] == []
        for message in follower.messages:
            stamp = message.get("version")
            hidden = truths[stamp if isinstance(stamp, int) else -1][1]
            leaked = _tokens({k: v for k, v in message.items() if k not in ("deck", "table")}) & hidden  # not its id
            assert not leaked, f"the spectator received {leaked}: {message}"
        states = [m for m in watcher.messages if m["type"] == "state"]
        assert states[-1]["version"] == len(truths) - 1 and states[-1]["terminal"]
        checked = 0
        for message in watcher.messages:
            version = message.get("version")
            view, hidden = truths[version if isinstance(version, int) else -1]
            if message["type"] == "state":
                assert message["seat"] is None and message["legal_actions"] == []
                assert message["view"] == view and view["seat"] is None
                for field in get_game(game).game_class.private_view_fields:
                    assert field not in message["view"]
            leaked = _tokens({k: v for k, v in message.items() if k not in ("deck", "table")}) & hidden  # not its id
            assert not leaked, f"the spectator received {leaked}: {message}"
            checked += len(hidden)
        assert checked > 0 or game == "zangle"
        # The replay of the finished match: every public record, in order, and the result.
        status, replay = request("GET", f"{server.http}/api/tables/{table['id']}/replay")
        assert status == 200
        seed, actions = stored_match(server.db, table["id"])
        engine = get_game(game).new_game(**rules)
        final = engine.replay(seed, actions)
        assert replay["records"] == json.loads(json.dumps([engine.record_view(r) for r in final.history]))
        assert (replay["winners"], replay["scores"]) == (list(final.winners), list(final.scores))
        assert replay["seats"] == request("GET", f"{server.http}/api/tables/{table['id']}")[1]["seats"]
        assert replay["version"] == len(actions) and replay["game"] == game
        # ... and its boards: each record's step, the public table at any step, no hidden card.
        lengths = [len(engine.replay(seed, actions[:k]).history) for k in range(len(actions) + 1)]
        assert replay["boards"] is True
        assert replay["record_steps"] == [min(k for k, n in enumerate(lengths) if n > i)
                                          for i in range(len(replay["records"]))]
        last = len(actions)
        for step in sorted({0, 1, last - 1, last, *range(0, last, max(1, last // 40))}):
            status, board = request("GET", f"{server.http}/api/tables/{table['id']}/replay/{step}")
            assert status == 200 and board["type"] == "board" and board["step"] == step
            view, hidden = truths[step]
            assert board["view"] == view and board["terminal"] == (step == last)
            leaked = _tokens(board) & hidden
            assert not leaked, f"the replay's board at step {step} shows {leaked}"
        for bad in ("-1", str(last + 1), "1.5", "abc", "%EF%BC%91", "9" * 30, "0x1", "%20" + "1"):
            status, answer = request("GET", f"{server.http}/api/tables/{table['id']}/replay/{bad}")
            assert (status, answer["error"]["code"]) == (400, "bad_request"), bad
            assert "step" in answer["error"]["reason"]
        for c in (*clients, watcher, follower):
            await c.close()

    asyncio.run(main())


def test_a_speedster_spectator_sees_the_public_table(server: ServerProcess) -> None:
    async def main() -> None:
        table = create_table(server, "zangle-speedster", {"players": 2, "rounds": 1, "bot_reaction": 0.05},
                             [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
        watcher = Watcher(server, table["id"])
        assert (await watcher.join())["seat"] is None
        state = await watcher.until("state")
        await watcher.send({"type": "hit", "id": "w1", "version": state["version"]})
        assert (await watcher.until("error", id="w1"))["code"] == "spectator"
        (person,) = await seated(server, table)
        follower = Watcher(server, table["id"], protocol=2)
        await follower.join()
        ends = await asyncio.gather(play_to_end(person, random.Random(2)), watcher.until_end(), follower.until_end())
        assert ends[1]["winners"] == ends[0]["winners"] == ends[2]["winners"]
        # Protocol 2 at a real-time table: updates (each outcome a record), the same table in the end.
        assert [m["type"] for m in follower.messages].count("update") > 1
        assert follower.states[-1]["view"] == [m for m in watcher.messages if m["type"] == "state"][-1]["view"]
        assert follower.states[-1]["history"] == [m for m in watcher.messages if m["type"] == "state"][-1]["history"]
        seen = [m for m in watcher.messages if m["type"] == "state"]
        assert len(seen) > 2
        for message in seen:
            assert message["seat"] is None and message["legal_actions"] == []
            assert message["view"]["zangles"] == [] and message["view"]["seat"] is None
        mine = [m for m in person.messages if m["type"] == "state"]
        public = {k: v for k, v in mine[-1]["view"].items() if k not in ("seat", "zangles")}
        assert {k: v for k, v in seen[-1]["view"].items() if k not in ("seat", "zangles")} == public
        status, replay = request("GET", f"{server.http}/api/tables/{table['id']}/replay")
        assert status == 200 and replay["records"][-1]["kind"] == "game end"
        assert replay["records"][-len(seen[-1]["history"]):] == seen[-1]["history"]
        assert replay["boards"] is False and replay["record_steps"] is None  # a real-time table: records only
        status, answer = request("GET", f"{server.http}/api/tables/{table['id']}/replay/0")
        assert (status, answer["error"]["code"]) == (404, "no_boards")
        for c in (person, watcher, follower):
            await c.close()

    asyncio.run(main())


def test_spectators_per_table_are_limited_and_a_running_table_has_no_replay(server: ServerProcess) -> None:
    async def main() -> None:
        table = create_table(server, "duelo", {"players": 2}, humans(2))
        watchers = [Watcher(server, table["id"]) for _ in range(50)]
        for w in watchers:
            assert (await w.join())["type"] == "welcome"
        extra = Watcher(server, table["id"])
        answer = await extra.join()
        assert answer["type"] == "error" and answer["code"] == "too_many_spectators"
        await extra.close()
        await watchers[0].close()
        await asyncio.sleep(0.2)
        assert (await extra.join())["type"] == "welcome"  # a place came free (a new connection)
        for w in (*watchers[1:], extra):
            await w.close()
        status, answer = request("GET", f"{server.http}/api/tables/{table['id']}/replay")
        assert (status, answer["error"]["code"]) == (409, "not_finished")
        status, answer = request("GET", f"{server.http}/api/tables/{table['id']}/replay/0")
        assert (status, answer["error"]["code"]) == (409, "not_finished")
        assert request("GET", f"{server.http}/api/tables/nope/replay")[0] == 404
        assert request("GET", f"{server.http}/api/tables/nope/replay/0")[0] == 404
        private = request("POST", f"{server.http}/api/tables", {"game": "duelo", "private": True})[1]
        assert request("GET", f"{server.http}/api/tables/{private['id']}/replay")[0] == 404
        status, answer = request("GET", f"{server.http}/api/tables/{private['id']}/replay?invite={private['invite']}")
        assert (status, answer["error"]["code"]) == (409, "not_finished")
        assert request("GET", f"{server.http}/api/tables/{private['id']}/replay/0")[0] == 404

    asyncio.run(main())


def test_a_token_for_one_table_does_not_open_another(server: ServerProcess) -> None:
    async def main() -> None:
        one = create_table(server, "duelo", {"players": 2}, humans(2))
        two = create_table(server, "duelo", {"players": 2}, humans(2))
        token = claim(server, one["id"], 0)
        seat = Seat(server, two["id"], token)
        seat.ws = await connect(server.ws)
        await seat.send({"type": "join", "table": two["id"], "token": token})
        assert (await seat.recv())["code"] == "bad_token"
        await seat.close()

    asyncio.run(main())
