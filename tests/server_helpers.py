"""Helpers of the server tests: a real server in a subprocess, real WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import http.client
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


#: The per-client limits lifted: the tests create many tables, open many WebSockets and ask for
#: many hints from one address (``tests/test_server_security.py`` and ``tests/test_server_hostile.py``
#: check the limits with their defaults).
GENEROUS = ("--tables-per-client", "100000", "--create-rate", "100000", "--claim-rate", "100000",
            "--socket-rate", "100000", "--sockets-per-address", "100000", "--list-rate", "100000",
            "--hint-rate", "100000", "--connections-per-address", "100000", "--connection-rate", "100000",
            "--request-rate", "100000")


class ServerProcess:
    """``fourcards serve`` on 127.0.0.1 and a free port, in its own process (so kill -9 is real).

    ``options``: more ``serve`` options (default :data:`GENEROUS`); ``url``: a database URL
    (PostgreSQL) to use instead of the SQLite file ``db``."""

    def __init__(self, db: Path, port: int | None = None, bot_delay: float = 0.0,
                 options: tuple[str, ...] = GENEROUS, url: str | None = None, log: Path | None = None) -> None:
        self.db = db
        self.url = url
        self.log = log
        self.port = port or free_port()
        self.bot_delay = bot_delay
        self.options = options
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ServerProcess:
        env = dict(os.environ)
        errors: Any = subprocess.PIPE if self.log is None else self.log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fourcards", "serve", "--port", str(self.port), "--db", self.url or str(self.db),
             "--bot-delay", str(self.bot_delay), *self.options],
            env=env, stdout=subprocess.DEVNULL, stderr=errors)
        if self.log is not None:
            errors.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode() if self.process.stderr else self.log_text()
                raise RuntimeError(f"the server stopped: {error}")
            try:
                urllib.request.urlopen(self.http + "/api/games", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start in 30 s")

    def log_text(self) -> str:
        """What the server logged so far (when started with ``log``)."""
        return self.log.read_text(errors="replace") if self.log is not None and self.log.exists() else ""

    def kill9(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def request(method: str, url: str, body: Any = None, raw: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """An HTTP request with a JSON body; (status, JSON answer). ``headers`` replace the defaults."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    sent = {"Content-Type": "application/json"}
    sent.update(headers or {})
    req = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def request_from(source: str, method: str, url: str, body: Any = None,
                 headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    """An HTTP request sent from the loopback address ``source`` (127.0.0.x: each its own client
    address to the server); (status, JSON answer, headers)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=10,
                                            source_address=(source, 0))
    try:
        sent = {"Content-Type": "application/json"}
        sent.update(headers or {})
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=data, headers=sent)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read()), {k.lower(): v for k, v in answer.getheaders()}
    finally:
        connection.close()


def create_table(server: ServerProcess, game: str, rules: dict[str, Any] | None = None,
                 seats: list[dict[str, Any]] | None = None, deck: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"game": game, "rules": rules or {}}
    if seats is not None:
        body["seats"] = seats
    if deck is not None:
        body["deck"] = deck
    status, answer = request("POST", server.http + "/api/tables", body)
    assert status == 201, answer
    return dict(answer)


def claim(server: ServerProcess, table: str, seat: int) -> str:
    status, answer = request("POST", f"{server.http}/api/tables/{table}/seats/{seat}", {"name": f"p{seat}"})
    assert status == 201, answer
    return str(answer["token"])


def stored_match(db: Path, table: str) -> tuple[int, list[int]]:
    """The seed and the actions the server stored for ``table``."""
    con = sqlite3.connect(db)
    try:
        seed = int(con.execute("SELECT seed FROM tables WHERE id=?", (table,)).fetchone()[0])
        actions = [a for (a,) in con.execute("SELECT action FROM log WHERE table_id=? ORDER BY idx", (table,))]
        return seed, actions
    finally:
        con.close()


def stored_client_ids(db: Path, table: str) -> int:
    """How many stored actions came from clients (each with its own message id)."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT seat, client_id FROM log WHERE table_id=? AND client_id IS NOT NULL",
                           (table,)).fetchall()
        assert len(rows) == len(set(rows)), "a client message was stored twice"
        return len(rows)
    finally:
        con.close()


HISTORY_KEPT = 20


def apply_update(state: dict[str, Any] | None, update: dict[str, Any]) -> dict[str, Any]:
    """The ``state`` a protocol-2 client holds after ``update`` (what the page's updates.js does)."""
    assert state is not None and update["since"] == state["version"], (update, state and state["version"])
    view = {k: v for k, v in state["view"].items() if k not in update["removed"]}
    view.update(update["view"])
    for name, items in update["appended"].items():
        view[name] = list(view.get(name, [])) + list(items)
    records = [{k: v for k, v in r.items() if k != "step"} for r in update["records"]]
    return {**state, "version": update["version"], "current_player": update["current_player"],
            "terminal": update["terminal"], "view": view, "legal_actions": update["legal_actions"],
            "scores": update["scores"], "history": (state["history"] + records)[-HISTORY_KEPT:]}


class Seat:
    """One scripted client: joins with its token, keeps every message it receives. With
    ``protocol=2`` it applies each ``update`` to its copy of the state (``states``: the state
    it held after each ``state`` or ``update``, in order; ``state``: the latest)."""

    def __init__(self, server: ServerProcess, table: str, token: str, protocol: int = 1) -> None:
        self.server, self.table, self.token, self.protocol = server, table, token, protocol
        self.messages: list[dict[str, Any]] = []
        self.states: list[dict[str, Any]] = []
        self.ws: ClientConnection | None = None

    @property
    def state(self) -> dict[str, Any] | None:
        return self.states[-1] if self.states else None

    async def join(self) -> dict[str, Any]:
        self.ws = await connect(self.server.ws, max_size=2**24)
        hello: dict[str, Any] = {"type": "join", "table": self.table, "token": self.token}
        if self.protocol != 1:
            hello["protocol"] = self.protocol
        await self.send(hello)
        welcome = await self.recv()
        assert welcome["type"] == "welcome", welcome
        return welcome

    async def send(self, message: Any) -> None:
        assert self.ws is not None
        await self.ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    async def recv(self, timeout: float = 30) -> dict[str, Any]:
        assert self.ws is not None
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.messages.append(message)
        if message["type"] == "state":
            self.states.append(message)
        elif message["type"] == "update":
            self.states.append(apply_update(self.state, message))
        return message

    async def until(self, kind: str, timeout: float = 30, **fields: Any) -> dict[str, Any]:
        """Receive until a message of ``kind`` (with ``fields``) arrives."""
        while True:
            message = await self.recv(timeout)
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return message

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None


async def play_to_end(seat: Seat, rng: random.Random, retry: float = 0.0) -> dict[str, Any]:
    """Answer every state with a random legal action (or a Speedster call/hit) until ``end``.

    With probability ``retry`` an action is sent twice (a client retry)."""
    acted: set[int] = set()
    last: dict[str, Any] | None = None
    backlog = seat.states[-1:]  # a state already read
    while True:
        message = backlog.pop() if backlog else await seat.recv(60)
        if message["type"] == "update":
            message = seat.states[-1]  # the state it brought the seat's copy to
        if message["type"] == "end":
            return message
        if message["type"] == "error" and message["code"] == "rate_limited" and last is not None \
                and message.get("id") == last["id"]:
            await asyncio.sleep(0.5)  # the server's allowance refills; send it again
            await seat.send(last)
            continue
        if message["type"] != "state" or message["terminal"] or message["version"] in acted:
            continue
        version = message["version"]
        if message["legal_actions"]:
            action = rng.choice(message["legal_actions"])["action"]
            out: dict[str, Any] = {"type": "act", "id": f"a{version}", "version": version, "action": action}
        elif "zangles" in message["view"] and message["view"]["seat"] in message["view"]["playing"]:
            zangles = message["view"]["zangles"]
            if zangles:
                out = {"type": "call", "id": f"c{version}", "version": version, "zangle": zangles[0]["text"]}
            elif message["view"]["centre_pile"]:
                out = {"type": "hit", "id": f"h{version}", "version": version}
            else:
                continue
        else:
            continue
        acted.add(version)
        last = out
        await seat.send(out)
        if rng.random() < retry:
            await seat.send(out)
