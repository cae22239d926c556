"""The hostile mix of ``server_load.py --hostile`` (issue 27): normal clients play while the
attacks run, next to a quiet run of the same clients in the same invocation.

Every client has its own loopback address (127.x.y.z: the server counts clients by
address), so that the attackers' shares are theirs alone. Both runs start a fresh
``fourcards serve`` with its **default limits** (``--bot-delay 0``) and the same
background: a few hundred public tables (the listing is large), normal tables of
four people (each answering its turns after a think time), one table of four
search bots watched by a spectator (its bot turns timed), and one client reading
the listing every 0.1 s (its latency timed). The hostile run adds, all at once:

- **bad text**: lone surrogates and NULs in seat names, claims, act ids, join
  tokens (each must be refused; the store must go on writing);
- **connections**: one address opening WebSockets until refused and holding
  them; one address holding idle and dribbling TCP connections (slowloris);
- **hints**: ten seats asking for a hint as fast as they may;
- **the listing**: eight clients looping on ``GET /api/tables``;
- **forwarded addresses**: one address creating tables with a new
  ``X-Forwarded-For`` each time (it must not get past its own share);
- **id reuse**: a client sending new actions under an id already used.

Reported side by side: the normal clients' act -> ack latency (p50, p99), the bot
turns' p50, the listing reader's p50, what each attack got, and the check that
nothing acknowledged was lost (acknowledged-but-lost must be 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import random
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus, WebSocketException

#: The background tables every run starts with (public, listed): created from many addresses.
BACKGROUND_TABLES = 400


def address(group: int, number: int) -> str:
    """The loopback address of client ``number`` of a group (normal clients 1, attackers 66, ...)."""
    return f"127.{group}.{number // 250}.{number % 250 + 1}"


def request(source: str, port: int, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None, raw: bytes | None = None) -> tuple[int, Any]:
    """One HTTP request from the loopback address ``source``: (status, JSON answer or None)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        sent = {"Content-Type": "application/json"}
        sent.update(headers or {})
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        connection.request(method, path, body=data, headers=sent)
        answer = connection.getresponse()
        text = answer.read()
        try:
            return answer.status, json.loads(text)
        except ValueError:
            return answer.status, None
    finally:
        connection.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


@dataclass
class Observed:
    """What the watchers of one run measured, and what the attacks got."""

    bot_turns: list[float] = field(default_factory=list)
    listing: list[float] = field(default_factory=list)
    attacks: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, attack: str, outcome: str, amount: int = 1) -> None:
        found = self.attacks.setdefault(attack, {})
        found[outcome] = found.get(outcome, 0) + amount


def make_background(port: int, count: int) -> None:
    """``count`` public Duelo tables of two people, from as many addresses (none is played)."""
    def make(number: int) -> None:
        status, answer = request(address(9, number), port, "POST", "/api/tables", {"game": "duelo"})
        if status != 201:
            raise RuntimeError(f"a background table was refused: {status} {answer}")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(make, range(count)))


# -- the watchers (both runs) ------------------------------------------------------------------------------

async def watch_bots(port: int, observed: Observed, deadline: float) -> None:
    """A table of four search bots (a new one when it ends), watched: the time between versions."""
    url = f"ws://127.0.0.1:{port}/ws"
    number = 0
    while time.monotonic() < deadline:
        number += 1
        source = address(7, number)
        status, answer = await asyncio.to_thread(
            request, source, port, "POST", "/api/tables",
            {"game": "gang-of-four", "rules": {"players": 4, "target_score": 100},
             "seats": [{"kind": "bot", "bot": "search"}] * 4})
        if status != 201:
            raise RuntimeError(f"the bot table was refused: {status} {answer}")
        try:
            async with connect(url, local_addr=(source, 0), max_size=2**22, ping_interval=None) as ws:
                await ws.send(json.dumps({"type": "watch", "table": answer["id"]}))
                last: tuple[int, float] | None = None
                async for raw in ws:
                    message = json.loads(raw)
                    if message["type"] == "end" or time.monotonic() >= deadline:
                        break
                    if message["type"] != "state":
                        continue
                    now = time.perf_counter()
                    if last is not None and message["version"] == last[0] + 1:
                        observed.bot_turns.append(now - last[1])
                    last = (message["version"], now)
        except (OSError, WebSocketException):
            await asyncio.sleep(0.1)


async def read_listing(port: int, observed: Observed, deadline: float) -> None:
    """One client reading the first page of the listing every 0.1 s (its own address): the latency."""
    source = address(8, 1)
    while time.monotonic() < deadline:
        began = time.perf_counter()
        status, _ = await asyncio.to_thread(request, source, port, "GET", "/api/tables")
        if status == 200:
            observed.listing.append(time.perf_counter() - began)
        await asyncio.sleep(0.1)


# -- the attacks (the hostile run) -------------------------------------------------------------------------------

async def bad_text(port: int, observed: Observed, deadline: float) -> None:
    """Lone surrogates and NULs where a store could choke: names, claims, act ids, join tokens."""
    url = f"ws://127.0.0.1:{port}/ws"
    rng = random.Random(5)
    number = 0
    while time.monotonic() < deadline:
        number += 1
        source = address(66, number % 200)
        bad = rng.choice(["\ud800", "a\udfffb", "nul\x00"])
        status, _ = await asyncio.to_thread(request, source, port, "POST", "/api/tables",
                                            {"game": "duelo", "seats": [{"kind": "human", "name": bad},
                                                                        {"kind": "human"}]})
        observed.count("bad text", "refused" if status == 400 else f"HTTP {status}")
        status, listed = await asyncio.to_thread(request, source, port, "GET", "/api/tables?limit=5&order=newest")
        if status == 200 and listed["tables"]:
            table = listed["tables"][0]["id"]
            status, _ = await asyncio.to_thread(request, source, port, "POST", f"/api/tables/{table}/seats/1",
                                                {"name": bad})
            observed.count("bad text", "refused" if status in (400, 429) else f"HTTP {status}")
            try:
                async with connect(url, local_addr=(source, 0), ping_interval=None, open_timeout=10) as ws:
                    await ws.send(json.dumps({"type": "join", "table": table, "token": bad}))
                    answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    observed.count("bad text", "refused" if answer.get("code") == "bad_message" else
                                   f"ws {answer.get('code')}")
                    await ws.send(json.dumps({"type": "act", "id": bad, "version": 0, "action": 0}))
                    answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    observed.count("bad text", "refused" if answer.get("code") == "bad_message" else
                                   f"ws {answer.get('code')}")
            except (OSError, WebSocketException, asyncio.TimeoutError):
                observed.count("bad text", "connection failed")
        await asyncio.sleep(0.05)


async def socket_flood(port: int, observed: Observed, deadline: float) -> None:
    """One address opening WebSockets until refused, holding them (and trying again every second)."""
    url = f"ws://127.0.0.1:{port}/ws"
    source = address(67, 1)
    held = []
    try:
        while time.monotonic() < deadline:
            try:
                ws = await connect(url, local_addr=(source, 0), ping_interval=None, open_timeout=10)
                held.append(ws)
                observed.count("WebSocket flood (one address)", "opened")
            except InvalidStatus as refused:
                observed.count("WebSocket flood (one address)", f"refused {refused.response.status_code}")
                await asyncio.sleep(1.0)
            except (OSError, WebSocketException, asyncio.TimeoutError):
                observed.count("WebSocket flood (one address)", "failed")
                await asyncio.sleep(1.0)
            held = [ws for ws in held if ws.state.name == "OPEN"]
            await asyncio.sleep(0.01)
    finally:
        observed.count("WebSocket flood (one address)", "open at the end", len(held))
        for ws in held:
            await ws.close()


def slowloris(port: int, observed: Observed, deadline: float, connections: int = 150) -> None:
    """One address holding ``connections`` TCP connections that dribble a header line every 2 s."""
    source = address(68, 1)
    open_now: list[socket.socket] = []
    sent_at = 0.0
    while time.monotonic() < deadline:
        while len(open_now) < connections and time.monotonic() < deadline:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
                sock.setblocking(False)
                sock.send(b"GET /api/games HTTP/1.1\r\n")
                open_now.append(sock)
                observed.count("slowloris (one address)", "opened")
            except OSError:
                observed.count("slowloris (one address)", "refused")
                break
        if time.monotonic() - sent_at >= 2.0:
            sent_at = time.monotonic()
            kept = []
            for sock in open_now:
                try:
                    data = sock.recv(4096)
                    if data == b"" or data.startswith(b"HTTP/1.1 4") or data.startswith(b"HTTP/1.1 5"):
                        observed.count("slowloris (one address)", "cut or refused by the server")
                        sock.close()
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    observed.count("slowloris (one address)", "cut or refused by the server")
                    sock.close()
                    continue
                try:
                    sock.send(b"X-Slow: 1\r\n")
                    kept.append(sock)
                except OSError:
                    observed.count("slowloris (one address)", "cut or refused by the server")
                    sock.close()
            open_now = kept
        time.sleep(0.2)
    for sock in open_now:
        sock.close()


async def two_seat_table(port: int, source: str) -> tuple[str, list[str], list[Any]]:
    """A new two-person Gang of Four table from ``source``, both seats claimed and connected (not
    joined yet): its id, the seats' tokens, their WebSockets."""
    status, table = await asyncio.to_thread(request, source, port, "POST", "/api/tables",
                                            {"game": "gang-of-four", "rules": {"players": 2},
                                             "seats": [{"kind": "human"}, {"kind": "human"}]})
    if status != 201:
        raise RuntimeError(f"a table was refused: {status} {table}")
    tokens = [(await asyncio.to_thread(request, source, port, "POST", f"/api/tables/{table['id']}/seats/{s}",
                                       {}))[1]["token"] for s in range(2)]
    url = f"ws://127.0.0.1:{port}/ws"
    sockets = [await connect(url, local_addr=(source, 0), ping_interval=None) for _ in tokens]
    return table["id"], tokens, sockets


async def hint_flood(port: int, observed: Observed, deadline: float, seats: int = 10) -> None:
    """Ten seats (each at its own two-person table, always on turn) asking for hints as fast as they may."""
    async def one(number: int) -> None:
        table, tokens, sockets = await two_seat_table(port, address(69, number))
        try:
            mover = None
            for seat, (ws, token) in enumerate(zip(sockets, tokens)):
                await ws.send(json.dumps({"type": "join", "table": table, "token": token}))
                while True:
                    message = json.loads(await ws.recv())
                    if message["type"] == "state":
                        if message["legal_actions"]:
                            mover = seat
                        break
            assert mover is not None
            ws = sockets[mover]
            count = 0
            while time.monotonic() < deadline:
                count += 1
                await ws.send(json.dumps({"type": "hint", "id": f"h{count}"}))
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if message.get("id") == f"h{count}":
                        break
                outcome = "answered" if message["type"] == "hint" else f"refused ({message['code']})"
                observed.count("hint flood (10 seats)", outcome)
                await asyncio.sleep(0.02)
        finally:
            for ws in sockets:
                await ws.close()

    await asyncio.gather(*(one(n) for n in range(seats)))


async def listing_flood(port: int, observed: Observed, deadline: float, clients: int = 8) -> None:
    """Eight clients (each its own address) looping on the whole listing."""
    async def one(number: int) -> None:
        source = address(70, number)
        while time.monotonic() < deadline:
            status, _ = await asyncio.to_thread(request, source, port, "GET", "/api/tables?limit=200")
            observed.count("listing flood (8 clients)", "answered" if status == 200 else f"refused {status}")

    await asyncio.gather(*(one(n) for n in range(clients)))


async def forwarded_spoof(port: int, observed: Observed, deadline: float) -> None:
    """One address creating tables, each with a new X-Forwarded-For (no proxy is trusted)."""
    source = address(71, 1)
    number = 0
    while time.monotonic() < deadline:
        number += 1
        status, _ = await asyncio.to_thread(request, source, port, "POST", "/api/tables", {"game": "duelo"},
                                            {"X-Forwarded-For": f"203.0.113.{number % 250}"})
        observed.count("X-Forwarded-For spoof (one address)", "created" if status == 201 else f"refused {status}")
        await asyncio.sleep(0.05)


async def id_reuse(port: int, observed: Observed, deadline: float) -> None:
    """A client at a two-person table sending each new action under the id it used first."""
    table, tokens, sockets = await two_seat_table(port, address(72, 1))
    try:
        for ws, token in zip(sockets, tokens):
            await ws.send(json.dumps({"type": "join", "table": table, "token": token}))
        states: dict[int, dict[str, Any]] = {}
        while time.monotonic() < deadline and len(states) < 2:
            for seat, ws in enumerate(sockets):
                message = json.loads(await ws.recv())
                if message["type"] == "state":
                    states[seat] = message
        while time.monotonic() < deadline:
            mover = next((s for s, m in states.items() if m["legal_actions"] and not m["terminal"]), None)
            if mover is None:
                break
            state = states[mover]
            await sockets[mover].send(json.dumps({"type": "act", "id": "same", "version": state["version"],
                                                  "action": state["legal_actions"][0]["action"]}))
            while True:
                message = json.loads(await asyncio.wait_for(sockets[mover].recv(), 30))
                if message["type"] in ("ack", "error"):
                    observed.count("id reuse", "acknowledged" if message["type"] == "ack" else
                                   f"refused ({message['code']})")
                    break
            if message["type"] == "error":
                break
            for seat, ws in enumerate(sockets):
                while True:
                    update = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if update["type"] == "state":
                        states[seat] = update
                        break
    finally:
        for ws in sockets:
            await ws.close()


ATTACKS: dict[str, Callable[..., Any]] = {
    "text": bad_text, "sockets": socket_flood, "hints": hint_flood, "listing": listing_flood,
    "forwarded": forwarded_spoof, "ids": id_reuse, "slowloris": slowloris}


async def attack(port: int, seconds: float, names: list[str]) -> dict[str, dict[str, int]]:
    """Run the attacks ``names`` against the server on ``port`` for ``seconds``; what each got."""
    observed = Observed()
    deadline = time.monotonic() + seconds
    tasks = []
    for name in names:
        run = ATTACKS[name]
        if name == "slowloris":  # blocking sockets: a thread of its own
            tasks.append(asyncio.create_task(asyncio.to_thread(run, port, observed, deadline)))
        else:
            tasks.append(asyncio.create_task(run(port, observed, deadline)))
    for name, task in zip(names, tasks):
        try:
            await asyncio.wait_for(task, max(1.0, deadline - time.monotonic() + 30))
        except Exception as error:  # an attack that broke is reported, not hidden
            observed.count("errors of the benchmark itself", f"{name}: {type(error).__name__}: {error}"[:100])
    return observed.attacks


def main() -> None:
    """The attacks in a process of their own (``server_load.py --hostile`` starts it), so that their
    CPU does not slow the measuring clients' event loop: JSON of what each got on the last line."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--attacks", default=",".join(ATTACKS), help=f"comma separated, of {', '.join(ATTACKS)}")
    args = parser.parse_args()
    names = [name for name in args.attacks.split(",") if name]
    unknown = set(names) - set(ATTACKS)
    if unknown:
        parser.error(f"unknown attacks {sorted(unknown)}")
    # On one machine the attackers' own CPU would slow the server as no remote attacker can: they
    # run at the lowest priority, so that what is measured is what their requests cost the server.
    with contextlib.suppress(OSError, AttributeError):
        os.nice(19)
    result = asyncio.run(attack(args.port, args.seconds, names))
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
