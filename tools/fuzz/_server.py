"""The game server driven in-process, for the protocol fuzzer (``fuzz_server.py``) and its
replay in the test suite (``tests/test_server_fuzz.py``).

:class:`Driver` runs the real app (``fourcards.server.create_app``) with its real
SQLite store in an event loop of its own thread, and speaks ASGI to it directly:
HTTP requests and WebSocket sessions, frame by frame. :func:`one_input` turns
arbitrary bytes into one hostile input (an HTTP body, a path and query, a
WebSocket session of arbitrary frames, or of near-valid messages after a real
join), sends it, and then checks that a normal table creation, seat claim, join
and action still succeed within a second. A ``5xx`` answer (but the
documented ``503``s) or a ``server_error`` message is a finding too: some input
reached code that could not take it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any


class Finding(AssertionError):
    """The server stopped serving normal clients, or failed on an input."""


class Bytes:
    """Arbitrary bytes read as choices, numbers and text (what atheris's FuzzedDataProvider
    does, here so that the test suite can replay inputs without atheris)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def left(self) -> int:
        return len(self.data) - self.at

    def byte(self) -> int:
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]

    def int_in(self, low: int, high: int) -> int:
        span = high - low + 1
        value = 0
        for _ in range(max(1, (span.bit_length() + 7) // 8)):
            value = value * 256 + self.byte()
        return low + value % span

    def bool(self) -> bool:
        return self.byte() & 1 == 1

    def raw(self, limit: int) -> bytes:
        size = self.int_in(0, limit)
        chunk = self.data[self.at:self.at + size]
        self.at += len(chunk)
        return chunk

    def text(self, limit: int) -> str:
        """Text of any code points, lone surrogates and NUL included."""
        size = self.int_in(0, limit)
        chars = []
        for _ in range(size):
            if self.left() <= 0:
                break
            kind = self.byte() % 4
            if kind == 0:
                chars.append(chr(self.int_in(0, 0x7F)))
            elif kind == 1:
                chars.append(chr(self.int_in(0xD800, 0xDFFF)))  # a lone surrogate
            else:
                chars.append(chr(self.int_in(0, 0x10FFFF)))
        return "".join(chars)

    def value(self, depth: int = 0) -> Any:
        """An arbitrary JSON value (numbers huge, negative and fractional; text of any code point)."""
        kind = self.int_in(0, 9 if depth < 3 else 6)
        if kind == 0:
            return None
        if kind == 1:
            return self.bool()
        if kind == 2:
            return self.int_in(-3, 5)
        if kind == 3:
            return self.int_in(0, 2**64) * (-1 if self.bool() else 1) * (10 ** self.int_in(0, 40))
        if kind == 4:
            return [1e308 * 10, -0.0, 0.5, float(self.int_in(0, 100))][self.int_in(0, 3)]
        if kind in (5, 6):
            return self.text(24)
        if kind == 7:
            return [self.value(depth + 1) for _ in range(self.int_in(0, 4))]
        return {self.text(8) if self.bool() else self.pick(KEYS): self.value(depth + 1)
                for _ in range(self.int_in(0, 4))}

    def pick(self, options: list[Any]) -> Any:
        return options[self.int_in(0, len(options) - 1)]


KEYS = ["type", "id", "version", "action", "table", "token", "invite", "game", "rules", "seats", "deck", "private",
        "name", "kind", "bot", "players", "zangle", "target_score", "mode", "rounds"]
TYPES = ["join", "watch", "act", "hint", "ping", "call", "hit", "shout", ""]
GAMES = ["gang-of-four", "four-color", "zangle", "zangle-speedster", "four-pack", "duelo", "nope"]


class Driver:
    """The app and its SQLite store, in-process, on a loop of their own thread."""

    def __init__(self, work: str | None = None) -> None:
        from fourcards.server import create_app
        from fourcards.server.admission import Limits

        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        self.work = Path(work or tempfile.mkdtemp(prefix="fourcards-fuzz-", dir=base))
        # Every input comes from one address: the per-address allowances lifted, the caps kept.
        limits = Limits(create_rate=1e6, create_burst=1e6, claim_rate=1e6, claim_burst=1e6, list_rate=1e6,
                        list_burst=1e6, socket_rate=1e6, socket_burst=1e6, hint_rate=1e6, hint_burst=1e6,
                        request_rate=1e6, request_burst=1e6,
                        tables_per_client=10**6, max_tables=10**6, join_timeout=2.0)
        self.app = create_app(db=self.work / "tables.db", bot_delay=0.0, limits=limits)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fuzz-server", daemon=True)
        self.thread.start()
        self.run(self._start(), 30)
        self.server = self.app.state.server
        self.inputs = 0

    def run(self, coroutine: Awaitable[Any], timeout: float = 10.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)  # type: ignore[arg-type]

    async def _start(self) -> None:
        started = asyncio.Event()
        inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        await inbox.put({"type": "lifespan.startup"})

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "lifespan.startup.complete":
                started.set()
            elif message["type"] == "lifespan.startup.failed":
                raise RuntimeError(message.get("message"))

        self.lifespan_inbox = inbox
        self.lifespan = asyncio.ensure_future(self.app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                                                       inbox.get, send))
        await asyncio.wait_for(started.wait(), 30)

    def close(self) -> None:
        """Shut the app down (its store closed) and stop the loop."""
        async def stop() -> None:
            await self.lifespan_inbox.put({"type": "lifespan.shutdown"})
            await asyncio.wait_for(self.lifespan, 30)
        try:
            self.run(stop(), 40)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    # -- HTTP -------------------------------------------------------------------------------------------
    async def http(self, method: str, path: str, body: bytes = b"",
                   headers: list[tuple[bytes, bytes]] | None = None) -> tuple[int, bytes]:
        # As an HTTP server hands them on: the target percent-encoded ASCII (h11 takes nothing else),
        # the path decoded from it (what cannot be decoded replaced), the query as sent.
        text_path, _, text_query = path.partition("?")
        raw_path = urllib.parse.quote(text_path, safe="/%", errors="surrogatepass")
        query = urllib.parse.quote(text_query, safe="=&%+", errors="surrogatepass")
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": urllib.parse.unquote(raw_path), "raw_path": raw_path.encode("ascii"),
                 "query_string": query.encode("ascii"), "root_path": "",
                 "headers": headers if headers is not None else [(b"content-type", b"application/json"),
                                                                 (b"host", b"fuzz")],
                 "client": ("192.0.2.1", 4000), "server": ("127.0.0.1", 80), "state": {}}
        sent = False
        answer: dict[str, Any] = {"status": 0, "body": b""}

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
            elif message["type"] == "http.response.body":
                answer["body"] += message.get("body", b"")

        await self.app(scope, receive, send)
        return answer["status"], answer["body"]

    # -- WebSockets -------------------------------------------------------------------------------------------
    async def session(self, frames: list[dict[str, Any]], until: Callable[[list[dict[str, Any]]], bool] | None = None,
                      timeout: float = 1.0) -> list[dict[str, Any]]:
        """One WebSocket session: the frames (``{"text": ...}`` or ``{"bytes": ...}``) sent one by
        one, then a ping, until its pong (or the server closed the socket); every message back."""
        session = Session(self)
        try:
            await session.open()
            for frame in frames:
                await session.inbox.put({"type": "websocket.receive", **frame})
            await session.inbox.put({"type": "websocket.receive", "text": '{"type": "ping"}'})
            await session.wait(until or (lambda got: any(m.get("type") == "pong" for m in got)), timeout)
        finally:
            await session.close()
        return session.received


class Session:
    """One WebSocket connection to the app: frames in, JSON messages out."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.received: list[dict[str, Any]] = []
        self.closed = asyncio.Event()
        self.changed = asyncio.Event()
        self.task: asyncio.Future[Any] | None = None

    async def open(self) -> None:
        scope = {"type": "websocket", "asgi": {"version": "3.0"}, "http_version": "1.1", "scheme": "ws",
                 "path": "/ws", "raw_path": b"/ws", "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"fuzz")], "client": ("192.0.2.1", 4001), "server": ("127.0.0.1", 80),
                 "subprotocols": [], "state": {}, "extensions": {"websocket.http.response": {}}}
        await self.inbox.put({"type": "websocket.connect"})
        self.task = asyncio.ensure_future(self.driver.app(scope, self.inbox.get, self._send))
        self.task.add_done_callback(lambda _: self.closed.set())

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "websocket.send":
            text = message.get("text")
            self.received.append(json.loads(text if text is not None else message.get("bytes") or b"null"))
            self.changed.set()
        elif message["type"] in ("websocket.close", "websocket.http.response.start"):
            self.received.append({"type": "closed", "status": message.get("status")})
            self.closed.set()
            self.changed.set()

    async def send(self, message: Any) -> None:
        await self.inbox.put({"type": "websocket.receive", "text": json.dumps(message)})

    async def wait(self, done: Callable[[list[dict[str, Any]]], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done(self.received) and not self.closed.is_set():
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer in {timeout} s; got {self.received[-3:]}")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def close(self) -> None:
        await self.inbox.put({"type": "websocket.disconnect", "code": 1000})
        if self.task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self.task), 5)
            except asyncio.TimeoutError:
                self.task.cancel()


# -- the property -------------------------------------------------------------------------------------------

def _check_answer(status: int, body: bytes, what: str) -> None:
    if status >= 500 and b"too_many_connections" not in body and b"table_elsewhere" not in body:
        raise Finding(f"{what}: HTTP {status} {body[:300]!r}")


def _check_messages(messages: list[dict[str, Any]], what: str) -> None:
    for message in messages:
        if message.get("type") == "error" and message.get("code") == "server_error":
            raise Finding(f"{what}: server_error {message}")


async def normal_play(driver: Driver) -> None:
    """A normal creation, claim, join and action, each answered in time (Finding otherwise)."""
    status, body = await driver.http("POST", "/api/tables", json.dumps(
        {"game": "gang-of-four", "rules": {"players": 2}, "seats": [{"kind": "human"}, {"kind": "human"}]}).encode())
    if status != 201:
        raise Finding(f"a normal table could not be created: {status} {body[:300]!r}")
    table = json.loads(body)["id"]
    tokens = []
    for seat in range(2):
        status, body = await driver.http("POST", f"/api/tables/{table}/seats/{seat}", b'{"name": "Ana"}')
        if status != 201:
            raise Finding(f"a normal seat could not be claimed: {status} {body[:300]!r}")
        tokens.append(json.loads(body)["token"])
    sessions = [Session(driver) for _ in tokens]
    try:
        states = []
        for session, token in zip(sessions, tokens):
            await session.open()
            await session.send({"type": "join", "table": table, "token": token})
            await session.wait(lambda got: any(m.get("type") == "state" for m in got), 1.0)
            found = [m for m in session.received if m.get("type") == "state"]
            if not found:
                raise Finding(f"a normal join got no state: {session.received[-3:]}")
            states.append(found[-1])
        mover = next((i for i, s in enumerate(states) if s["legal_actions"]), None)
        if mover is None:
            raise Finding("no seat may act at a new table")
        await sessions[mover].send({"type": "act", "id": "ok", "version": states[mover]["version"],
                                    "action": states[mover]["legal_actions"][0]["action"]})
        await sessions[mover].wait(lambda got: any(m.get("type") in ("ack", "error") and m.get("id") == "ok"
                                                   for m in got), 1.0)
        if not any(m.get("type") == "ack" and m.get("id") == "ok" for m in sessions[mover].received):
            raise Finding(f"a normal action was not acknowledged: {sessions[mover].received[-3:]}")
    finally:
        for session in sessions:
            await session.close()
    await driver.server.drop(driver.server.tables[table], "checked")


def _mutated(data: Bytes, message: dict[str, Any]) -> dict[str, Any]:
    """A valid message with up to three of its fields replaced by arbitrary values (or added)."""
    message = dict(message)
    for _ in range(data.int_in(0, 3)):
        keys = list(message)
        key = data.pick(keys) if keys and data.int_in(0, 3) else data.pick(KEYS)
        message[key] = data.text(24) if data.bool() else data.value()
    return message


def _create_body(data: Bytes) -> dict[str, Any]:
    game = data.pick(GAMES)
    seats: list[Any] = [{"kind": "human", "name": "Ana"}, {"kind": "human"}]
    if data.bool():
        seats[1] = _mutated(data, {"kind": "bot", "bot": data.pick(["random", "greedy", "search", "best", "x"])})
    if data.bool():
        seats[0] = _mutated(data, seats[0])
    body = {"game": game, "rules": {"players": 2}, "seats": seats}
    if data.bool():
        body["rules"] = _mutated(data, body["rules"])
    if data.bool():
        body["private"] = data.value()
    return _mutated(data, body) if data.bool() else body


async def hostile(driver: Driver, data: Bytes) -> None:
    """One hostile input from ``data``."""
    kind = data.int_in(0, 5)
    tables = list(driver.server.tables.values())
    some = tables[data.int_in(0, len(tables) - 1)] if tables and data.int_in(0, 3) else None
    table_id = some.id if some is not None else data.text(16)
    if kind == 0:  # a table's creation: arbitrary bytes, or a near-valid body
        body = data.raw(512) if not data.int_in(0, 3) else json.dumps(_create_body(data)).encode()
        status, answer = await driver.http("POST", "/api/tables", body)
        _check_answer(status, answer, "POST /api/tables")
    elif kind == 1:  # a seat's claim
        body = data.raw(256) if not data.int_in(0, 3) else json.dumps(
            _mutated(data, {"name": "Ana", "invite": "x" * 32})).encode()
        seat = str(data.int_in(0, 9)) if data.int_in(0, 3) else data.text(8)
        status, answer = await driver.http("POST", f"/api/tables/{table_id}/seats/{seat}", body)
        _check_answer(status, answer, "POST seats")
    elif kind == 2:  # reading: any path and query
        path = data.pick(["/api/tables", f"/api/tables/{table_id}", f"/api/tables/{table_id}/replay",
                          f"/api/tables/{table_id}/replay/{data.text(6)}", "/api/games", f"/games/{data.text(8)}.js"])
        query = data.text(40) if data.bool() else data.pick(["limit=", "after=", "order=", "invite="]) + data.text(20)
        status, answer = await driver.http("GET", f"{path}?{query}" if query else path, b"")
        _check_answer(status, answer, f"GET {path}")
    elif kind == 3:  # a WebSocket session of arbitrary frames
        frames = []
        for _ in range(data.int_in(0, 6)):
            frames.append({"bytes": data.raw(300)} if data.bool() else {"text": data.text(300)})
        _check_messages(await driver.session(frames), "a session of arbitrary frames")
    else:  # near-valid messages, after a real join when a seat can be taken
        frames = []
        token = "t" * 43
        version = 0
        if some is not None:
            version = some.version
            if data.int_in(0, 3):
                token = await _seat(driver, some.id) or token
                if data.int_in(0, 3):
                    frames.append({"text": json.dumps(_mutated(data, {"type": "join", "table": table_id,
                                                                      "token": token}) if not data.int_in(0, 4)
                                                      else {"type": "join", "table": table_id, "token": token})})
        templates = [
            {"type": "join", "table": table_id, "token": token},
            {"type": "watch", "table": table_id},
            {"type": "act", "id": "a1", "version": version, "action": data.int_in(0, 12352)},
            {"type": "hint", "id": "h1"},
            {"type": "call", "id": "c1", "version": version, "zangle": "1(own) = 1(own)"},
            {"type": "hit", "id": "h2", "version": version},
            {"type": "ping"},
        ]
        for _ in range(data.int_in(1, 6)):
            frames.append({"text": json.dumps(_mutated(data, data.pick(templates)))})
        _check_messages(await driver.session(frames), "a session of near-valid messages")


async def _seat(driver: Driver, table_id: str) -> str | None:
    table = driver.server.tables.get(table_id)
    if table is None:
        return None
    for seat, record in enumerate(table.seats):
        if record.kind == "human" and record.token_hash is None:
            status, body = await driver.http("POST", f"/api/tables/{table_id}/seats/{seat}", b"{}")
            return json.loads(body)["token"] if status == 201 else None
    return None


def one_input(driver: Driver, raw: bytes) -> None:
    """The property: after any input, normal play still works within a second."""
    driver.inputs += 1
    try:
        driver.run(hostile(driver, Bytes(raw)), 30)
    except Finding:
        raise
    except TimeoutError as error:
        raise Finding(f"the server did not answer the input in time: {error}") from None
    driver.run(normal_play(driver), 5)
    if len(driver.server.tables) > 300:  # keep memory and the sweeps small: forget the fuzz's tables
        async def forget() -> None:
            for table in list(driver.server.tables.values()):
                await driver.server.drop(table, "fuzz cleanup")
        driver.run(forget(), 60)
