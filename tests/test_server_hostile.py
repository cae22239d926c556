"""``fourcards serve`` against the attacks of issue 27, for real: a server process on
127.0.0.1, clients from their own loopback addresses (127.0.0.x), raw sockets
where a client misbehaves below HTTP.

Text no store can hold refused where it enters (and the store still writes
afterwards); an id reused for another action; WebSockets and TCP connections
held to a share per address; dribbled requests cut off; unjoined sockets and
refused spectators closed; forwarded addresses trusted only when configured
(and through a real nginx with the snippet of docs/server.md); the listing
paged, cached and rate limited; client errors logged once per connection;
hints under their budget, never ahead of the bots.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

pytestmark = pytest.mark.engine

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from fourcards.errors import InvalidTypeError  # noqa: E402
from fourcards.server.admission import Limits  # noqa: E402
from fourcards.server.compute import Compute  # noqa: E402

from .server_helpers import Seat, ServerProcess, free_port, request, request_from  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs" / "server.md"

#: The module's server: the default limits, but short deadlines (so that the tests are quick), few
#: spectators a table, and a large burst of new WebSockets (the per-address cap is what is tested).
OPTIONS = ("--join-timeout", "1", "--header-timeout", "1", "--body-timeout", "1", "--max-spectators", "3",
           "--socket-burst", "1000", "--connection-burst", "1000", "--log-level", "info")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    work = tmp_path_factory.mktemp("hostile")
    process = ServerProcess(work / "tables.db", options=OPTIONS, log=work / "server.log").start()
    yield process
    process.stop()


def humans(count: int) -> list[dict[str, str]]:
    return [{"kind": "human"} for _ in range(count)]


def new_table(server: ServerProcess, source: str, game: str = "gang-of-four", rules: dict[str, Any] | None = None,
              seats: list[dict[str, Any]] | None = None) -> str:
    status, answer, _ = request_from(source, "POST", server.http + "/api/tables",
                                     {"game": game, "rules": rules or {"players": 2}, "seats": seats or humans(2)})
    assert status == 201, answer
    return str(answer["id"])


def take_seat(server: ServerProcess, source: str, table: str, seat: int) -> str:
    status, answer, _ = request_from(source, "POST", f"{server.http}/api/tables/{table}/seats/{seat}", {})
    assert status == 201, answer
    return str(answer["token"])


async def open_socket(server: ServerProcess, source: str, url: str | None = None) -> ClientConnection:
    return await connect(url or server.ws, local_addr=(source, 0), open_timeout=10)


async def normal_play_works(server: ServerProcess, source: str) -> None:
    """A normal creation, claim, join and action still succeed, each within a second."""
    began = time.monotonic()
    table = new_table(server, source)
    tokens = [take_seat(server, source, table, s) for s in range(2)]
    seats = [Seat(server, table, token) for token in tokens]
    for seat in seats:
        await seat.join()
    states = [await seat.until("state", 1) for seat in seats]
    mover = next(i for i, s in enumerate(states) if s["legal_actions"])
    action = states[mover]["legal_actions"][0]["action"]
    await seats[mover].send({"type": "act", "id": "ok", "version": states[mover]["version"], "action": action})
    ack = await seats[mover].until("ack", 1, id="ok")
    assert ack["version"] == states[mover]["version"] + 1
    for seat in seats:
        await seat.close()
    assert time.monotonic() - began < 10


# -- text no store can hold ----------------------------------------------------------------------------

def test_text_no_store_can_hold_is_refused_where_it_enters(server: ServerProcess) -> None:
    """Issue 27: a lone surrogate in a seat claim's name killed the SQLite writer for good."""
    source = "127.0.0.31"
    url = server.http + "/api/tables"
    for bad in ("\ud800", "a\udfffb", "nul\x00"):
        seats = [{"kind": "human", "name": bad}, {"kind": "human"}]
        status, answer, _ = request_from(source, "POST", url, {"game": "duelo", "seats": seats})
        assert status == 400 and "seats[0].name" in answer["error"]["reason"], answer
        table = new_table(server, source, "duelo")
        status, answer, _ = request_from(source, "POST", f"{url}/{table}/seats/0", {"name": bad})
        assert status == 400 and "name" in answer["error"]["reason"], answer
        status, answer, _ = request_from(source, "POST", f"{url}/{table}/seats/0", {"invite": bad})
        assert status == 400, answer
        status, answer, _ = request_from(source, "POST", url, {"game": "duelo", "rules": {bad: 1}})
        assert status == 400, answer
    status, answer, _ = request_from(source, "POST", f"{url}/{table}/seats/0", {"name": "line\nbreak"})
    assert status == 400 and "control character" in answer["error"]["reason"]

    async def main() -> None:
        table = new_table(server, source)
        token = take_seat(server, source, table, 0)
        async with await open_socket(server, source) as ws:
            for hello, field in (({"type": "join", "table": table, "token": "\ud800"}, "token"),
                                 ({"type": "join", "table": "\ud800", "token": token}, "table"),
                                 ({"type": "watch", "table": table, "invite": "x\x00"}, "invite")):
                await ws.send(json.dumps(hello))
                error = json.loads(await ws.recv())
                assert error["code"] == "bad_message" and repr(field) in error["reason"], error
            await ws.send(json.dumps({"type": "join", "table": table, "token": token}))
            welcome = json.loads(await ws.recv())
            assert welcome["type"] == "welcome"
            state = json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "act", "id": "\ud800", "version": state["version"], "action": 0}))
            error = json.loads(await ws.recv())
            assert error["code"] == "bad_message" and "'id'" in error["reason"], error
        # The store still writes: a table, a claim, an action, each in time.
        await normal_play_works(server, source)

    asyncio.run(main())


# -- message ids -----------------------------------------------------------------------------------------

def test_an_id_reused_for_another_action_is_refused_and_a_retry_is_acknowledged(server: ServerProcess) -> None:
    """Issue 27: a client that restarted its ids after a reconnect got its old acks back, nothing applied."""
    source = "127.0.0.32"

    async def main() -> None:
        table = new_table(server, source, rules={"players": 2})
        tokens = [take_seat(server, source, table, s) for s in range(2)]
        seats = [Seat(server, table, token) for token in tokens]
        for seat in seats:
            await seat.join()
        states = [await seat.until("state") for seat in seats]
        mover = next(i for i, s in enumerate(states) if s["legal_actions"])
        version = states[mover]["version"]
        act = {"type": "act", "id": "m1", "version": version, "action": states[mover]["legal_actions"][0]["action"]}
        await seats[mover].send(act)
        assert (await seats[mover].until("ack", id="m1"))["version"] == version + 1
        # After a reconnect: the same message again is a retry (acknowledged again, applied once).
        await seats[mover].close()
        await seats[mover].join()
        await seats[mover].send(act)
        assert (await seats[mover].until("ack", id="m1"))["version"] == version + 1
        # The same id for another message (a client that started counting again) is refused.
        state = [m for m in seats[mover].messages if m["type"] == "state"][-1]  # the state after the rejoin
        assert state["version"] == version + 1
        await seats[mover].send(act | {"version": state["version"]})
        error = await seats[mover].until("error", id="m1")
        assert error["code"] == "id_reused" and f"version {version + 1}" in error["reason"], error
        for seat in seats:
            await seat.close()

    asyncio.run(main())


# -- WebSockets ---------------------------------------------------------------------------------------------

def test_websockets_are_held_to_a_share_per_address(server: ServerProcess) -> None:
    """64 open WebSockets from one address (the default); the next is refused before the handshake
    with 429 too_many_connections; another address is not affected; a closed one frees its slot."""
    source = "127.0.0.33"
    tables = [new_table(server, f"127.0.1.{n}", "duelo") for n in range(22)]  # 3 spectators each at most

    async def main() -> None:
        sockets: list[ClientConnection] = []
        for number in range(Limits().sockets_per_address):
            ws = await open_socket(server, source)
            await ws.send(json.dumps({"type": "watch", "table": tables[number // 3]}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            sockets.append(ws)
        with pytest.raises(InvalidStatus) as refused:
            await open_socket(server, source)
        assert refused.value.response.status_code == 429
        assert json.loads(refused.value.response.body or b"{}")["error"]["code"] == "too_many_connections"
        other = await open_socket(server, "127.0.0.35")  # another client: its own share
        await other.close()
        await sockets.pop().close()
        await asyncio.sleep(0.3)
        again = await open_socket(server, source)
        await again.close()
        for ws in sockets:
            await ws.close()

    asyncio.run(main())


def test_unjoined_sockets_and_refused_spectators_are_closed_at_once_or_within_the_join_timeout(
        server: ServerProcess) -> None:
    source = "127.0.0.36"
    table = new_table(server, source, "duelo")

    async def main() -> None:
        idle = await open_socket(server, source)
        began = time.monotonic()
        error = json.loads(await asyncio.wait_for(idle.recv(), 5))
        assert error["code"] == "not_joined"
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(idle.recv(), 5)
        assert time.monotonic() - began < 3  # --join-timeout 1
        watchers = []
        for _ in range(3):
            ws = await open_socket(server, source)
            await ws.send(json.dumps({"type": "watch", "table": table}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            watchers.append(ws)
        refused = await open_socket(server, source)
        await refused.send(json.dumps({"type": "watch", "table": table}))
        began = time.monotonic()
        assert json.loads(await refused.recv())["code"] == "too_many_spectators"
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(refused.recv(), 5)
        assert time.monotonic() - began < 0.9  # at once, not at the join timeout
        for ws in watchers:
            await ws.close()

    asyncio.run(main())


# -- HTTP below the app: deadlines and TCP caps ----------------------------------------------------------

def raw_connection(server: ServerProcess, source: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=(source, 0))


def seconds_until_closed(sock: socket.socket, dribble: list[bytes], every: float, limit: float = 8.0) -> float:
    """Send ``dribble`` one piece every ``every`` seconds (then nothing) until the server closes
    the connection; the seconds it took (``limit`` when it never did)."""
    began = time.monotonic()
    sock.settimeout(every)
    pieces = list(dribble)
    while time.monotonic() - began < limit:
        try:
            if not sock.recv(65536):
                return time.monotonic() - began
        except TimeoutError:
            pass
        except ConnectionError:
            return time.monotonic() - began
        if pieces:
            try:
                sock.sendall(pieces.pop(0))
            except OSError:
                return time.monotonic() - began
    return limit


def test_a_request_dribbled_slowly_is_cut_off(server: ServerProcess) -> None:
    """Issue 27: connections that send a header line every 2 s were never timed out."""
    source = "127.0.0.37"
    with raw_connection(server, source) as sock:  # nothing at all
        assert seconds_until_closed(sock, [], 0.2) < 3
    with raw_connection(server, source) as sock:  # the headers, a line at a time, for ever
        head = [b"GET /api/games HTTP/1.1\r\n"] + [b"X-Slow: %d\r\n" % n for n in range(40)]
        assert seconds_until_closed(sock, head, 0.2) < 3
    with raw_connection(server, source) as sock:  # the whole head, then the body a byte at a time
        whole = (b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 200\r\n\r\n")
        assert seconds_until_closed(sock, [whole] + [b" "] * 100, 0.2) < 3
    with raw_connection(server, source) as sock:  # a normal client on a kept-alive connection is served
        for _ in range(2):
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200"), answer[:40]
            length = int(re.search(rb"content-length: (\d+)", answer, re.I).group(1))  # type: ignore[union-attr]
            body = answer.partition(b"\r\n\r\n")[2]
            while len(body) < length:
                body += sock.recv(65536)
    assert "did not arrive in time" in server.log_text()


def test_a_body_declared_too_long_is_refused_before_it_comes(server: ServerProcess) -> None:
    """A first user's trial: ``Content-Length: 1000000000000`` got no answer; the connection
    waited for the body deadline and was closed."""
    with raw_connection(server, "127.0.0.47") as sock:
        sock.sendall(f"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: "
                     "application/json\r\nContent-Length: 1000000000000\r\n\r\n{".encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            more = sock.recv(4096)
            assert more, answer  # closed without an answer
            answer += more
    assert answer.startswith(b"HTTP/1.1 413"), answer


def test_tcp_connections_are_capped_per_address_and_in_all(tmp_path: Path) -> None:
    process = ServerProcess(tmp_path / "t.db", options=("--connections-per-address", "4", "--max-connections", "7",
                                                        "--header-timeout", "30")).start()
    try:
        held = [raw_connection(process, "127.0.0.41") for _ in range(4)]
        with raw_connection(process, "127.0.0.41") as refused:
            answer = refused.recv(4096)
            assert answer.startswith(b"HTTP/1.1 429") and b"too_many_connections" in answer
            assert refused.recv(4096) == b""  # closed at once
        held += [raw_connection(process, "127.0.0.42") for _ in range(3)]
        with raw_connection(process, "127.0.0.43") as refused:  # the server is full
            assert refused.recv(4096).startswith(b"HTTP/1.1 503")
        for sock in held:
            sock.close()
        time.sleep(0.3)
        status, _, _ = request_from("127.0.0.41", "GET", process.http + "/api/games")
        assert status == 200
    finally:
        process.stop()


# -- forwarded addresses -------------------------------------------------------------------------------

def test_forwarded_addresses_are_trusted_only_when_configured_and_ipv6_counts_per_64(tmp_path: Path) -> None:
    """Issue 27: X-Forwarded-For was trusted from 127.0.0.1 by default, so one local client created
    990 tables; limits were per exact address, so an IPv6 /64 was unlimited."""
    url_of = "{}/api/tables"
    body = {"game": "duelo"}
    plain = ServerProcess(tmp_path / "plain.db", options=("--tables-per-client", "1")).start()
    try:
        url = url_of.format(plain.http)
        assert request_from("127.0.0.51", "POST", url, body, {"X-Forwarded-For": "203.0.113.1"})[0] == 201
        status, answer, _ = request_from("127.0.0.51", "POST", url, body, {"X-Forwarded-For": "203.0.113.2"})
        assert (status, answer["error"]["code"]) == (429, "too_many_tables")  # the header changed nothing
    finally:
        plain.stop()
    proxied = ServerProcess(tmp_path / "proxied.db", options=("--tables-per-client", "1", "--forwarded-allow-ips",
                                                              "127.0.0.1")).start()
    try:
        url = url_of.format(proxied.http)
        for client in ("203.0.113.1", "203.0.113.2", "2001:db8:0:1::1"):
            assert request_from("127.0.0.1", "POST", url, body, {"X-Forwarded-For": client})[0] == 201, client
        for client in ("2001:db8:0:1::ffff", "6.6.6.6, 203.0.113.1"):  # same /64; a spoofed first hop
            status, answer, _ = request_from("127.0.0.1", "POST", url, body, {"X-Forwarded-For": client})
            assert (status, answer["error"]["code"]) == (429, "too_many_tables"), client
        # A peer that is not the proxy is counted as itself, whatever it says.
        assert request_from("127.0.0.52", "POST", url, body, {"X-Forwarded-For": "203.0.113.3"})[0] == 201
        assert request_from("127.0.0.52", "POST", url, body, {"X-Forwarded-For": "203.0.113.4"})[0] == 429
    finally:
        proxied.stop()


def nginx_snippet() -> str:
    """The nginx configuration docs/server.md gives (the block after its 'nginx snippet' marker)."""
    text = DOCS.read_text(encoding="utf-8")
    found = re.search(r"<!-- nginx snippet -->\s*```nginx\n(.*?)```", text, re.S)
    assert found, "docs/server.md has no nginx snippet"
    return found.group(1)


def test_the_documented_nginx_snippet_forwards_clients_and_websockets(tmp_path: Path) -> None:
    """docs/server.md's nginx configuration, run for real on loopback in front of ``fourcards serve
    --forwarded-allow-ips 127.0.0.1``: each client is counted by its own address (not nginx's),
    a spoofed X-Forwarded-For changes nothing, and a seat plays over a WebSocket through it."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if nginx is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light); CI installs it")
    backend = ServerProcess(tmp_path / "t.db", options=("--tables-per-client", "1", "--forwarded-allow-ips",
                                                        "127.0.0.1")).start()
    port = free_port()
    config = nginx_snippet().replace("127.0.0.1:8080", f"127.0.0.1:{port}") \
        .replace("127.0.0.1:8000", f"127.0.0.1:{backend.port}")
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    os.chmod(prefix, 0o777)
    temps = " ".join(f"{kind}_temp_path {prefix}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                        "scgi"))
    (prefix / "nginx.conf").write_text(
        f"worker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\nevents {{}}\n"
        f"http {{\naccess_log off;\n{temps}\n{config}\n}}\n")
    process = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    proxy = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                request("GET", proxy + "/api/games")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {(prefix / 'error.log').read_text()}") from None
                time.sleep(0.1)
        url = proxy + "/api/tables"
        assert request_from("127.0.0.61", "POST", url, {"game": "duelo"})[0] == 201
        status, answer, _ = request_from("127.0.0.61", "POST", url, {"game": "duelo"})
        assert (status, answer["error"]["code"]) == (429, "too_many_tables")  # counted as 127.0.0.61 ...
        status, answer, _ = request_from("127.0.0.62", "POST", url, {"game": "gang-of-four", "rules": {"players": 2},
                                                                     "seats": humans(2)})
        assert status == 201, answer  # ... and 127.0.0.62 as itself, not as nginx's 127.0.0.1
        table = answer["id"]
        spoofed = request_from("127.0.0.62", "POST", url, {"game": "duelo"}, {"X-Forwarded-For": "198.51.100.9"})
        assert spoofed[0] == 429  # nginx appends the real peer: the spoofed first hop is ignored
        tokens = [take_seat(backend, "127.0.0.62", table, s) for s in range(2)]

        async def play() -> None:
            ws_url = f"ws://127.0.0.1:{port}/ws"
            sockets = [await open_socket(backend, "127.0.0.62", ws_url) for _ in tokens]
            states = []
            for ws, token in zip(sockets, tokens):
                await ws.send(json.dumps({"type": "join", "table": table, "token": token}))
                assert json.loads(await ws.recv())["type"] == "welcome"
                states.append(json.loads(await ws.recv()))
            mover = next(i for i, s in enumerate(states) if s["legal_actions"])
            await sockets[mover].send(json.dumps({"type": "act", "id": "p1", "version": states[mover]["version"],
                                                  "action": states[mover]["legal_actions"][0]["action"]}))
            while (message := json.loads(await asyncio.wait_for(sockets[mover].recv(), 10)))["type"] != "ack":
                pass
            assert message["id"] == "p1"
            for ws in sockets:
                await ws.close()

        asyncio.run(play())
    finally:
        process.terminate()
        process.wait(10)
        backend.stop()


# -- the listing ----------------------------------------------------------------------------------------

def test_the_listing_is_paged_and_rate_limited(server: ServerProcess) -> None:
    source = "127.0.0.38"
    made = [new_table(server, source, "duelo") for _ in range(5)]
    url = server.http + "/api/tables"
    seen: list[str] = []
    query = "?limit=2"
    while True:  # each page from another address (a loop from one address is rate limited: below)
        status, page, _ = request_from(f"127.0.2.{len(seen) % 250 + 1}", "GET", url + query)
        assert status == 200 and len(page["tables"]) <= 2
        seen += [t["id"] for t in page["tables"]]
        if page["next"] is None:
            break
        query = f"?limit=2&after={page['next']}"
    assert seen[-5:] == made and len(seen) == len(set(seen)) == page["total"]
    status, newest, _ = request_from("127.0.0.39", "GET", url + "?limit=3&order=newest")
    assert [t["id"] for t in newest["tables"]] == made[::-1][:3]
    status, older, _ = request_from("127.0.0.39", "GET", url + f"?limit=3&order=newest&after={newest['next']}")
    assert [t["id"] for t in older["tables"]][:2] == made[::-1][3:]
    for query in ("?limit=0", "?limit=201", "?limit=x", "?after=nonsense", "?order=random"):
        status, answer, _ = request_from("127.0.0.39", "GET", url + query)
        assert (status, answer["error"]["code"]) == (400, "bad_request"), query
    # A loop on the listing from one address is refused past its allowance, with Retry-After.
    codes = []
    for _ in range(40):
        status, answer, headers = request_from("127.0.0.40", "GET", url)
        codes.append(status)
        if status == 429:
            break
    assert codes[:20] == [200] * 20 and codes[-1] == 429
    assert int(headers["retry-after"]) >= 1 and answer["error"]["code"] == "rate_limited"


def test_a_client_over_its_rate_waits_for_its_refusal(tmp_path: Path) -> None:
    """A 429 over a rate comes after ``--refusal-delay``, its connection held unread meanwhile and
    counted in its address's cap (no free slot: answered at once); a refusal for another reason
    is never delayed."""
    process = ServerProcess(tmp_path / "t.db", options=(
        "--refusal-delay", "1.5", "--connection-rate", "0.01", "--connection-burst", "2",
        "--connections-per-address", "3", "--list-rate", "0.01", "--list-burst", "1", "--header-timeout", "30",
    )).start()

    def answer_after(sock: socket.socket, ask: bool = True, end: bool = False) -> tuple[bytes, float]:
        began = time.perf_counter()
        if ask:  # (not to a connection answered and closed at once: the bytes would meet a reset)
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
        if end:  # the client closes its side: the held answer still comes
            sock.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := sock.recv(4096):
            data += chunk
        return data, time.perf_counter() - began

    try:
        # The listing over its rate (an app-level 429): the second request waits for its answer.
        assert request_from("127.0.0.44", "GET", process.http + "/api/tables")[0] == 200
        began = time.perf_counter()
        status, answer, headers = request_from("127.0.0.44", "GET", process.http + "/api/tables")
        assert (status, answer["error"]["code"]) == (429, "rate_limited") and "retry-after" in headers
        assert time.perf_counter() - began >= 1.4
        # New connections over their rate (refused at the socket): held, then answered and closed.
        kept = [raw_connection(process, "127.0.0.45") for _ in range(2)]  # the burst: admitted
        with raw_connection(process, "127.0.0.45") as held:
            answer, waited = answer_after(held)
            assert answer.startswith(b"HTTP/1.1 429") and b"rate_limited" in answer and waited >= 1.4
        held = raw_connection(process, "127.0.0.45")  # held: the address's third slot
        time.sleep(0.1)
        with raw_connection(process, "127.0.0.45") as fourth:  # no slot left: answered at once
            answer, waited = answer_after(fourth, ask=False)
            assert answer.startswith(b"HTTP/1.1 429") and b"rate_limited" in answer and waited < 1.0
        answer, waited = answer_after(held, end=True)
        assert answer.startswith(b"HTTP/1.1 429") and b"rate_limited" in answer
        held.close()
        for sock in kept:
            sock.close()
    finally:
        process.stop()


def test_a_refusal_waiting_when_the_server_stops_is_answered(tmp_path: Path) -> None:
    """Stopping the server while a 429 waits (``--refusal-delay 10``): the client gets its 429,
    not a 500, and the log has no traceback."""
    log = tmp_path / "server.log"
    process = ServerProcess(tmp_path / "t.db", log=log, options=(
        "--refusal-delay", "10", "--list-rate", "0.01", "--list-burst", "1")).start()
    url = process.http + "/api/tables"
    found: list[tuple[int, Any]] = []
    try:
        assert request_from("127.0.0.46", "GET", url)[0] == 200
        waiting = threading.Thread(target=lambda: found.append(request_from("127.0.0.46", "GET", url)[:2]))
        waiting.start()
        time.sleep(0.5)
    finally:
        process.stop()
    waiting.join(15)
    assert found and found[0][0] == 429 and found[0][1]["error"]["code"] == "rate_limited"
    assert "Traceback" not in log.read_text(errors="replace")


# -- logging -------------------------------------------------------------------------------------------------

def test_client_errors_are_logged_once_per_connection(server: ServerProcess) -> None:
    """Issue 27: a join with an unencodable token logged a traceback each time (20 a second)."""
    source = "127.0.0.44"
    table = new_table(server, source, "duelo")

    async def main() -> None:
        async with await open_socket(server, source) as ws:
            for _ in range(30):
                await ws.send(json.dumps({"type": "join", "table": table, "token": "\udc80"}))
                assert json.loads(await ws.recv())["code"] in ("bad_message", "rate_limited")

    asyncio.run(main())
    deadline = time.monotonic() + 5
    while "connection from 127.0.0.44" not in server.log_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    lines = [line for line in server.log_text().splitlines() if "connection from 127.0.0.44" in line]
    assert len(lines) == 1 and "30 messages refused (bad_message 30)" in lines[0], lines
    assert "Traceback" not in server.log_text()


def test_a_text_message_that_is_not_utf8_closes_the_socket_with_one_line(server: ServerProcess) -> None:
    """A first user's trial: each text frame that is not UTF-8 logged uvicorn's traceback at
    ``error`` (17 KB a thirty connections, before any join)."""
    source = "127.0.0.46"
    for with_close in (False, False, False, True):
        with raw_connection(server, source) as sock:
            key = "dGhlIHNhbXBsZSBub25jZQ=="
            sock.sendall(f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                         .encode())
            received = b""
            while b"\r\n\r\n" not in received:
                received += sock.recv(4096)
            head, _, received = received.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 101"), head
            mask = os.urandom(4)
            bad = bytes([0x81, 0x81]) + mask + bytes([0xFF ^ mask[0]])  # one masked text frame: 0xff
            closing = bytes([0x88, 0x82]) + mask + bytes([0x03 ^ mask[0], 0xE8 ^ mask[1]])  # close 1000
            sock.sendall(bad + closing if with_close else bad)  # a reviewer's trial: both in one packet
            while True:
                try:
                    more = sock.recv(4096)
                except ConnectionResetError:
                    break
                if not more:
                    break
                received += more
            if not with_close:
                assert received[:1] == b"\x88" and int.from_bytes(received[2:4], "big") == 1007, received
    deadline = time.monotonic() + 5
    while server.log_text().count("connection from 127.0.0.46") < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    lines = [line for line in server.log_text().splitlines() if "connection from 127.0.0.46" in line]
    assert len(lines) == 4 and all("not UTF-8" in line for line in lines), lines
    assert "Traceback" not in server.log_text() and "Invalid UTF-8" not in server.log_text()
    assert "InvalidState" not in server.log_text()


def test_a_connection_logs_its_first_failure_with_a_traceback_and_counts_the_rest(
        caplog: pytest.LogCaptureFixture) -> None:
    from fourcards.server.app import ConnectionLog

    class Server:
        def __init__(self) -> None:
            self.refused_messages: dict[str, int] = {}
            self.failed_messages = 0

    server = Server()
    record = ConnectionLog(server, "192.0.2.7")  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="fourcards.server"):
        for _ in range(5):
            try:
                raise RuntimeError("boom")
            except RuntimeError:
                record.failure()
        record.refusal("bad_message")
        record.close()
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 1 and len(caplog.records) == 2
    assert "5 messages failed, 1 messages refused (bad_message 1)" in caplog.records[1].getMessage()
    assert server.failed_messages == 5 and server.refused_messages == {"bad_message": 1}


# -- hints ------------------------------------------------------------------------------------------------

async def movers(process: ServerProcess, source: str, count: int) -> list[Seat]:
    """The seat on turn at each of ``count`` new two-person Gang of Four tables (its hint is a search:
    0.02 s of CPU, Gang of Four's own budget, charged to the budget as spent)."""
    found = []
    for _ in range(count):
        table = new_table(process, source, "gang-of-four", {"players": 2})
        seats = [Seat(process, table, take_seat(process, source, table, s)) for s in range(2)]
        for seat in seats:
            await seat.join()
        states = [await seat.until("state") for seat in seats]
        found.append(seats[next(i for i, s in enumerate(states) if s["legal_actions"])])
    return found


def test_a_seat_may_ask_for_hints_at_its_rate(server: ServerProcess) -> None:
    async def main() -> None:
        (mover,) = await movers(server, "127.0.0.45", 1)
        for n in range(2):  # its burst
            await mover.send({"type": "hint", "id": f"h{n}"})
            assert (await mover.until("hint", id=f"h{n}"))["action"] >= 0
        # Over its rate: the refusal comes after --refusal-delay (1 s), the socket served meanwhile.
        began = time.perf_counter()
        await mover.send({"type": "hint", "id": "h2"})
        await mover.send({"type": "ping"})
        first = await mover.recv()
        while first["type"] not in ("pong", "error"):  # (a state or update may come too)
            first = await mover.recv()
        assert first["type"] == "pong", first  # the ping's answer first: the refusal waits
        refused = await mover.until("error", id="h2")
        assert refused["code"] == "rate_limited" and refused["retry_after"] > 0
        assert time.perf_counter() - began >= 0.9
        await mover.close()

    asyncio.run(main())


def test_the_hints_have_a_cpu_budget_server_wide(tmp_path: Path) -> None:
    process = ServerProcess(tmp_path / "t.db", options=("--hint-share", "0.01", "--hint-rate", "1000",
                                                        "--hint-burst", "1000")).start()
    try:
        async def main() -> None:
            seats = await movers(process, "127.0.0.46", 3)
            outcomes = []
            # 0.01 cores: about 0.2 s of hints' CPU at once, then 0.01 s a second. A hint is charged
            # the CPU time it took: a few hints use it up when they have a core, more on a busy machine.
            for n in range(200):
                seat = seats[n % 3]
                await seat.send({"type": "hint", "id": f"b{n}"})
                while (answer := await seat.recv())["type"] not in ("hint", "error") or answer.get("id") != f"b{n}":
                    pass
                outcomes.append(answer)
                if answer["type"] == "error":
                    break
            assert outcomes[0]["type"] == "hint"
            assert outcomes[-1]["type"] == "error" and outcomes[-1]["code"] == "busy", outcomes[-1]
            assert outcomes[-1]["retry_after"] > 0
        asyncio.run(main())
    finally:
        process.stop()


def test_a_hint_never_goes_ahead_of_a_bot_turn() -> None:
    """Bot turns waiting for a worker go first; the hint starts after the last of them started."""
    compute = Compute(Limits(), bot_workers=1)
    started: dict[str, float] = {}

    def job(name: str, seconds: float) -> str:
        started[name] = time.monotonic()
        time.sleep(seconds)
        return name

    async def main() -> None:
        loop = asyncio.get_running_loop()
        bots = [loop.run_in_executor(compute, job, f"bot{n}", 0.15) for n in range(3)]
        await asyncio.sleep(0.02)
        hint = await compute.hint(("t", 0), job, "hint", 0.01)
        assert hint == "hint"
        await asyncio.gather(*bots)

    try:
        asyncio.run(main())
    finally:
        compute.shutdown()
    assert started["hint"] >= started["bot2"]
    assert compute.stats()["hints"]["done"] == 1


def test_one_creator_holds_at_most_half_the_bot_threads() -> None:
    """A hostile client's trial: two tables of 32 Four Pack search bots made another table's
    greedy bot wait 44 s for a thread. One creator's bot turns now hold at most half the
    threads (waiting or running); another creator's turn starts on the next free thread."""
    compute = Compute(Limits(), bot_workers=2)
    order: list[str] = []

    def job(name: str) -> str:
        order.append(name)
        time.sleep(0.05)
        return name

    async def main() -> None:
        busy = [asyncio.ensure_future(compute.bot_turn("203.0.113.9", job, f"heavy{n}")) for n in range(6)]
        await asyncio.sleep(0)  # the heavy creator's turns are queued first
        other = asyncio.ensure_future(compute.bot_turn("198.51.100.7", job, "other"))
        unowned = asyncio.ensure_future(compute.bot_turn(None, job, "restored"))
        assert await other == "other" and await unowned == "restored"
        assert [await turn for turn in busy] == [f"heavy{n}" for n in range(6)]

    try:
        asyncio.run(main())
    finally:
        compute.shutdown()
    assert order.index("other") <= 2, order  # not behind the five other heavy turns
    assert sorted(order) == sorted([f"heavy{n}" for n in range(6)] + ["other", "restored"])
    assert compute._owners == {}  # every share given back


def test_every_tables_bots_take_their_turns_within_a_share(tmp_path: Path) -> None:
    """A turn table's bot turns go through its creator's share; a table recovered from the
    store (no creator) shares as its own creator, where it used to take every bot thread.
    (Speedster's bots call the same ``Table.run_bot``.)"""
    from fourcards.server.store import SeatRecord, SQLiteStore, TableRecord
    from fourcards.server.tables import TurnTable, make_table

    class Recording(Compute):
        owners: list[Any] = []

        async def bot_turn(self, owner: Any, fn: Any, *args: Any) -> Any:
            self.owners.append(owner)
            return await super().bot_turn(owner, fn, *args)

    compute = Recording(Limits(), bot_workers=2)
    key = b"a key for the share test, long enough"
    bots = (SeatRecord("bot", "a", "category"), SeatRecord("bot", "b", "category"))

    async def play(table_id: str, creator: str | None) -> None:
        record = TableRecord(table_id, "duelo", {"players": 2}, 5, bots)
        table = make_table(record, store, compute, 0.0, lambda text: None, key)
        assert isinstance(table, TurnTable)
        table.creator = creator
        await store.create_table(record, table.first_version())
        table.schedule_bots()
        for _ in range(500):
            if table.terminal:
                break
            await asyncio.sleep(0.01)
        assert table.terminal

    async def speedster() -> None:
        from fourcards.server.speedster import check_rules
        _, rules = check_rules({"players": 2, "rounds": 1, "bot_reaction": 0.0})
        record = TableRecord("speedy", "zangle-speedster", rules, 5,
                             (SeatRecord("bot", "a", "best"), SeatRecord("bot", "b", "best")))
        table = make_table(record, store, compute, 0.0, lambda text: None, key)
        table.creator = "203.0.113.9"
        await store.create_table(record)
        table.start()
        for _ in range(1000):
            if table.terminal:
                break
            await asyncio.sleep(0.01)
        table.closed = True
        assert table.terminal

    store = SQLiteStore(tmp_path / "t.db")
    try:
        asyncio.run(play("made", "198.51.100.7"))
        made = len(Recording.owners)
        asyncio.run(play("recovered", None))
        recovered = len(Recording.owners)
        asyncio.run(speedster())
    finally:
        store.close()
        compute.shutdown()
    assert made > 0 and set(Recording.owners[:made]) == {"198.51.100.7"}
    assert set(Recording.owners[made:recovered]) == {"table recovered"}
    assert len(Recording.owners) > recovered and set(Recording.owners[recovered:]) == {"203.0.113.9"}
    assert compute._owners == {}


def test_a_bot_turn_cancelled_before_it_ran_is_not_counted_as_waiting() -> None:
    """A reviewer's trial: a turn cancelled while it waited for a thread (its table closed or
    taken over) stayed counted as waiting, so every later hint waited and was refused busy."""
    compute = Compute(Limits(), bot_workers=2)

    def job(name: str) -> str:
        time.sleep(0.1)
        return name

    async def main() -> None:
        turns = [asyncio.ensure_future(compute.bot_turn(f"198.51.100.{n}", job, n)) for n in range(3)]
        await asyncio.sleep(0.03)
        turns[2].cancel()  # the third waits for one of the two threads
        await asyncio.gather(*turns[:2])
        await asyncio.sleep(0.05)

    try:
        asyncio.run(main())
    finally:
        compute.shutdown()
    assert compute.stats()["bots"] == {"waiting": 0, "running": 0} and not compute.bots_busy()
    assert compute._owners == {}


def test_hints_run_at_a_lower_priority_than_the_server() -> None:
    if not hasattr(os, "setpriority") or not hasattr(threading, "get_native_id"):
        pytest.skip("this system has no per-thread priority (os.setpriority): nothing to check")
    compute = Compute(Limits())

    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    try:
        assert asyncio.run(compute.hint(("t", 0), niceness)) >= os.getpriority(os.PRIO_PROCESS, 0) + 10 or \
            os.getpriority(os.PRIO_PROCESS, 0) + 10 > 19  # already at the lowest priority there is
    finally:
        compute.shutdown()


def test_a_seat_has_one_hint_at_a_time() -> None:
    from fourcards.server.protocol import ProtocolError

    compute = Compute(Limits(hint_queue=1))
    gate = threading.Event()

    async def main() -> None:
        first = asyncio.ensure_future(compute.hint(("t", 0), gate.wait, 5))
        await asyncio.sleep(0.05)
        with pytest.raises(ProtocolError, match="rate_limited"):
            await compute.hint(("t", 0), time.sleep, 0)
        gate.set()
        assert await first is True

    try:
        asyncio.run(main())
    finally:
        compute.shutdown()


# -- a first user's trial (2026-12-04) --------------------------------------------------------------------

def test_a_seat_claim_body_that_is_no_json_object_is_refused_and_takes_no_seat(server: ServerProcess) -> None:
    """``null``, ``5``, ``"x"`` and ``[1]`` claimed the seat (and got a token); ``POST /api/tables``
    already refused them. The seat stays free for a proper claim."""
    source = "127.0.0.41"
    table = new_table(server, source, "duelo")
    url = f"{server.http}/api/tables/{table}/seats/1"
    for body in (5, "x", [1], True):
        status, answer, _ = request_from(source, "POST", url, body)
        assert status == 400 and answer["error"]["code"] == "bad_request", (body, answer)
        assert "JSON object" in answer["error"]["reason"]
    status, answer, _ = request_from(source, "POST", url, {"name": "Ada"})
    assert status == 201 and answer["token"], answer


def test_unknown_paths_and_methods_answer_in_the_api_json_shape(server: ServerProcess) -> None:
    """``GET /nope`` answered plain text ``Not Found``; a very long id is not echoed whole."""
    source = "127.0.0.42"
    status, answer, _ = request_from(source, "GET", server.http + "/nope")
    assert status == 404 and answer["error"]["code"] == "not_found", answer
    status, answer, _ = request_from(source, "DELETE", server.http + "/api/tables")
    assert status == 405 and answer["error"]["code"] == "bad_request", answer
    status, answer, _ = request_from(source, "GET", server.http + "/api/tables/" + "t" * 5000)
    assert status == 404 and answer["error"]["code"] == "unknown_table", answer
    assert len(answer["error"]["reason"]) < 200, answer


def test_create_app_refuses_a_key_that_is_a_number_and_a_bad_bot_delay(tmp_path: Path) -> None:
    """``key=32`` was taken as ``bytes(32)``: a signing key of 32 zero bytes anyone could forge."""
    from fourcards import FourCardsError
    from fourcards.server import create_app

    keys: list[Any] = [32, 5, True, 3.5]
    for key in keys:
        with pytest.raises(InvalidTypeError, match="str or bytes"):
            create_app(tmp_path / "t.db", key=key)
    with pytest.raises(FourCardsError, match="at least 16"):
        create_app(tmp_path / "t.db", key=b"short")
    for delay in (-1, float("nan"), float("inf"), 61):
        with pytest.raises(FourCardsError, match="bot_delay"):
            create_app(tmp_path / "t.db", bot_delay=delay)
    text: Any = "1"
    with pytest.raises(InvalidTypeError, match="bot_delay"):
        create_app(tmp_path / "t.db", bot_delay=text)
    assert create_app(tmp_path / "t.db", key="k" * 16, bot_delay=0) is not None
