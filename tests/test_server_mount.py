"""The server mounted in another Starlette app, as docs/server.md shows it: with the
mounted app's lifespan run by the outer app, its tables answer; without it (the first
example of the docs did that) every table request was a 500 and a traceback, and is now
a 503 that says what to do (a hostile-server trial, 2026-12-04)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from starlette.applications import Starlette  # noqa: E402
from starlette.routing import Mount  # noqa: E402

from fourcards.server import create_app  # noqa: E402


async def _get(app: Any, path: str, method: str = "GET", body: bytes = b"") -> tuple[int, Any]:
    """One request through the ASGI interface (no network, no client library)."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"host", b"127.0.0.1:8000")] + ([(b"content-type", b"application/json")] if body else [])
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
             "headers": headers, "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}
    await app(scope, receive, send)
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(answer) if answer else None


def test_a_mounted_server_answers_with_its_lifespan_and_says_why_without(tmp_path: Path) -> None:
    async def scenario() -> None:
        cards = create_app(db=str(tmp_path / "tables.db"))
        bare = Starlette(routes=[Mount("/cards", app=cards)])
        status, body = await _get(bare, "/cards/api/tables")
        assert status == 503 and "lifespan" in body["error"]["reason"], body
        cards = create_app(db=str(tmp_path / "tables.db"))
        host = Starlette(routes=[Mount("/cards", app=cards)], lifespan=cards.router.lifespan_context)
        async with host.router.lifespan_context(host):
            status, body = await _get(host, "/cards/api/tables")
            assert status == 200, body
            before = body
            # HEAD is routed with GET: with a body it created a table, past the POST checks
            create = json.dumps({"game": "duelo", "seats": [{"bot": "random"}, {"bot": "random"}]}).encode()
            status, _ = await _get(host, "/cards/api/tables", "HEAD", create)
            assert status == 200
            assert await _get(host, "/cards/api/tables") == (200, before)

    asyncio.run(scenario())


def test_speedster_bot_reaction_is_bounded_whether_an_int_or_a_float() -> None:
    """``-1`` and ``100000`` (JSON integers) were taken; ``-1.0`` and ``61.0`` refused."""
    from fourcards import FourCardsError
    from fourcards.server.speedster import MAX_BOT_REACTION, RULES, check_rules

    assert check_rules({"bot_reaction": 2})[1]["bot_reaction"] == 2.0
    assert check_rules({"bot_reaction": 60})[1]["bot_reaction"] == MAX_BOT_REACTION
    listed = next(o for o in RULES if o["name"] == "bot_reaction")  # the catalogue says the range
    assert (listed["low"], listed["high"]) == (0.0, MAX_BOT_REACTION)
    for bad in (-1, 100000, -0.5, 61.0, float("nan")):
        with pytest.raises(FourCardsError, match="bot_reaction"):
            check_rules({"bot_reaction": bad})


def test_a_seat_name_cannot_reorder_or_hide_text() -> None:
    """A name with U+202E (right-to-left override), a zero-width space or U+FFFF was taken:
    it could read as another seat's in the lobby."""
    from fourcards.server.admission import Refusal
    from fourcards.server.app import _checked_name

    assert _checked_name("Zoë 🂡", "'name'", "bad_request") == "Zoë 🂡"
    assert _checked_name("👨\u200d👩\u200d👧", "'name'", "bad_request")  # a joined emoji keeps its joiner
    for bad in ("abc\u202edcba", "ann\u200b", "x\uffff", "y\ufdd0", "tab\there"):
        with pytest.raises(Refusal) as refused:
            _checked_name(bad, "'name'", "bad_request")
        assert refused.value.status == 400


def test_a_reader_that_falls_behind_by_more_bytes_than_the_limit_is_closed() -> None:
    """The queue to a slow reader was bounded in messages only: three seats that never read
    held 160 MB in half a minute. It is bounded in bytes too (``max_queued_bytes``)."""
    from fourcards.server.app import WebSocketClient

    class NeverReads:
        def __init__(self) -> None:
            self.closed = False

        async def send_text(self, text: str) -> None:
            await asyncio.Event().wait()  # the peer never reads: the first write never ends

        async def close(self) -> None:
            self.closed = True

    async def scenario() -> None:
        socket = NeverReads()
        client = WebSocketClient(socket, max_queued=1000, max_queued_bytes=10_000)  # type: ignore[arg-type]
        big = {"type": "state", "pad": "x" * 3000}
        for _ in range(3):
            client.send(big)
        await asyncio.sleep(0)
        assert not client.closed
        client.send(big)
        client.send(big)  # past 10,000 bytes waiting
        assert client.closed
        client.writer.cancel()

    asyncio.run(scenario())


def test_an_all_bot_table_nobody_attends_expires(tmp_path: Path) -> None:
    """All-bot tables never expired (their bots' moves counted as activity): a few
    addresses could fill ``max_tables`` with them, and they ran on for good."""
    import time

    from .server_helpers import GENEROUS, ServerProcess, create_table, request

    server = ServerProcess(tmp_path / "tables.db", options=(*GENEROUS, "--idle-seconds", "2"),
                           bot_delay=0.3).start()  # a match far longer than the test: the bots play on
    try:
        bots = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
        created = create_table(server, "gang-of-four", {"players": 2, "target_score": 100000}, bots)
        table = created.get("table") or created["id"]
        deadline = time.monotonic() + 20
        status = 200
        while time.monotonic() < deadline and status == 200:
            time.sleep(0.5)
            status, _ = request("GET", f"{server.http}/api/tables/{table}")
        assert status == 404, "the all-bot table was still open after 20 s with --idle-seconds 2"
    finally:
        server.stop()


def test_a_speedster_table_nobody_is_connected_to_expires_though_it_has_seats_for_people(tmp_path: Path) -> None:
    """A Speedster table does not wait for its people: with one seat for a person (here
    claimed, and nobody connected) its bots played on, every event counted as activity, and
    the table was stored event after event for as long as its rounds lasted."""
    import time

    from .server_helpers import GENEROUS, ServerProcess, claim, create_table, request

    server = ServerProcess(tmp_path / "tables.db", options=(*GENEROUS, "--idle-seconds", "2")).start()
    try:
        seats = [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}, {"kind": "human"}]
        # Zangles are rare with this deck: rounds end with no Zangle and no hit left, and the
        # bots go on into the next (with the person's Zangles waiting, a round would stall)
        rules = {"players": 3, "rounds": 300, "bot_reaction": 0.0, "deck": {"Z": 380, "1": 4, "4a": 4}}
        created = create_table(server, "zangle-speedster", rules, seats)
        table = created.get("table") or created["id"]
        claim(server, table, 2)
        deadline = time.monotonic() + 20
        status, body = request("GET", f"{server.http}/api/tables/{table}")
        versions = [body.get("version")]
        while time.monotonic() < deadline and status == 200:
            time.sleep(0.5)
            status, body = request("GET", f"{server.http}/api/tables/{table}")
            versions.append(body.get("version") if status == 200 else None)
        assert status == 404, "the Speedster table was still open after 20 s with --idle-seconds 2"
        assert len({v for v in versions if v is not None}) > 1, "its bots were playing"
    finally:
        server.stop()


def test_a_game_built_for_a_new_table_does_not_hold_up_the_other_requests(tmp_path: Path) -> None:
    """A Zangle deck of 13 Z cards builds its action tables the first time (about a second:
    89,000 actions); the rules check and the table were built on the event loop, so every other
    request waited (a hostile-input review: 12 s of 14 stalled by cycling Z counts)."""
    import threading
    import time

    from .server_helpers import GENEROUS, ServerProcess, request

    server = ServerProcess(tmp_path / "tables.db", options=GENEROUS).start()
    try:
        took: dict[str, float] = {}

        def create() -> None:
            body = {"game": "zangle", "rules": {"players": 2, "deck": {"Z": 13, "1": 20, "2": 20, "3": 20}}}
            start = time.monotonic()
            status, _ = request("POST", server.http + "/api/tables", body)
            took["create"] = time.monotonic() - start if status == 201 else -1.0

        creating = threading.Thread(target=create)
        creating.start()
        time.sleep(0.1)
        start = time.monotonic()
        status, _ = request("GET", server.http + "/api/games")
        took["games"] = time.monotonic() - start
        creating.join(30)
        assert status == 200 and took.get("create", -1.0) > 0
        # a ratio, not a time: the listing is answered while the game is built, not after
        assert took["games"] < took["create"] / 2, took
    finally:
        server.stop()


def test_rules_above_what_this_server_takes_are_refused_where_they_enter() -> None:
    from fourcards.server.admission import Refusal
    from fourcards.server.app import _check_rule_values

    for rules in ({"max_asks": 10_001}, {"hand_limit": 100_000}, {"target_score": 100_001}):
        with pytest.raises(Refusal) as refused:
            _check_rule_values(rules)
        assert refused.value.status == 400 and refused.value.code == "bad_rules" and next(iter(rules)) in str(
            refused.value.reason)
    _check_rule_values({"max_asks": 10_000, "hand_limit": 10_000, "target_score": 100_000})


def test_a_rule_below_its_range_is_refused_naming_what_this_server_takes() -> None:
    """``max_asks=0`` was refused with the engine's range (1..1,000,000), which the server does
    not take: the refusal names the range ``GET /api/games`` advertises."""
    from fourcards.server.admission import Refusal
    from fourcards.server.app import RULE_HIGHS, _checked_rules

    for game, rule in (("four-pack", "max_asks"), ("duelo", "hand_limit")):
        for value in (0, -1, RULE_HIGHS[rule] + 1):
            with pytest.raises(Refusal) as refused:
                _checked_rules(game, {rule: value})
            reason = str(refused.value.reason)
            assert refused.value.code == "bad_rules" and f"{rule}={value}" in reason, reason
            assert f"1..{RULE_HIGHS[rule]}" in reason and "1000000" not in reason.replace(",", ""), reason
        assert _checked_rules(game, {rule: RULE_HIGHS[rule]})[1] == {rule: RULE_HIGHS[rule]}


def test_the_catalogue_advertises_the_bounds_this_server_takes() -> None:
    """``GET /api/games`` advertised Four Pack's ``max_asks`` and Duelo's ``hand_limit`` up to
    1,000,000 (the engine's bound) while the server refuses rule values above 100,000."""
    from fourcards.server.app import MAX_INT_RULE, RULE_HIGHS, games_catalogue

    highs = {(game["name"], option["name"]): option["high"] for game in games_catalogue()
             for option in game["rules"] if "high" in option}
    # and lower still for these: every view lists the match's asks or hands (a hostile-input
    # review: 100,000 asks made each action cost the event loop 335 ms, a state 5 MB)
    assert highs[("four-pack", "max_asks")] == highs[("duelo", "hand_limit")] == 10_000 == RULE_HIGHS["max_asks"]
    assert highs[("four-color", "rounds")] == 1000 and all(high <= MAX_INT_RULE for high in highs.values())
