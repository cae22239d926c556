"""Admission on its own (issue 27): one ``Limits`` in, refusals out, no server running.

Addresses (IPv6 counted per /64), forwarded addresses trusted only from the
configured proxies, origins, connection caps, token buckets, and the ASGI
middleware refusing a WebSocket handshake before the app sees it. The same
decisions are checked end to end, against ``fourcards serve``, in
``tests/test_server_hostile.py``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import ipaddress
import subprocess
import sys
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards.errors import FourCardsError, InvalidTypeError
from fourcards.server.admission import (
    CLIENT_KEY, LIMIT_FLAGS, Admission, AdmissionMiddleware, ConnectionCounter, Limits, OriginPolicy, RateLimiter,
    Refusal, TokenBucket, TrustedProxies, address_key,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "server.md"


# -- Limits ------------------------------------------------------------------------------------------

def test_every_limit_is_a_flag_with_its_default_documented() -> None:
    """Each ``Limits`` field has a ``fourcards serve`` flag, a one-line meaning, and a row in
    docs/server.md naming the flag and its default."""
    text = DOCS.read_text(encoding="utf-8")
    defaults = Limits()
    for spec in dataclasses.fields(Limits):
        flag = LIMIT_FLAGS[spec.name]
        assert Limits.help(spec.name)
        value = getattr(defaults, spec.name)
        default = str(value) if isinstance(value, int) else f"{value:g}"
        row = re.search(rf"^\| `{re.escape(flag)}` \| `{spec.name}` \| {re.escape(default)} \|", text, re.M)
        assert row, f"docs/server.md has no row '| `{flag}` | `{spec.name}` | {default} |'"


def test_the_serve_command_takes_every_limit() -> None:
    from fourcards.cli import build_parser

    parser = build_parser()
    args = parser.parse_args(["serve", "--sockets-per-address", "3", "--hint-seconds", "0.01", "--message-rate", "7"])
    assert (args.limit_sockets_per_address, args.limit_hint_seconds, args.limit_rate) == (3, 0.01, 7.0)
    assert args.forwarded_allow_ips == []  # no proxy trusted unless told
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--ipv6-prefix", "129"])
    # refusal_delay may be 0 (at once), at most 10; the other times must be above 0
    assert parser.parse_args(["serve", "--refusal-delay", "0"]).limit_refusal_delay == 0.0
    for wrong in (["--refusal-delay", "11"], ["--refusal-delay", "-1"], ["--refusal-delay", "nan"],
                  ["--header-timeout", "0"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", *wrong])


@pytest.mark.parametrize(("field", "value", "error"), [
    ("ipv6_prefix", 129, FourCardsError), ("ipv6_prefix", 0, FourCardsError), ("hint_workers", 65, FourCardsError),
    ("header_timeout", 0.0, FourCardsError), ("body_timeout", float("nan"), FourCardsError),
    ("sockets_per_address", 1.5, InvalidTypeError), ("hint_share", "1", InvalidTypeError),
    ("max_sockets", True, InvalidTypeError),
    ("refusal_delay", -0.5, FourCardsError), ("refusal_delay", float("inf"), FourCardsError),
    ("refusal_delay", 11, FourCardsError),
    ("list_cache_seconds", 0, FourCardsError),
])
def test_new_limits_are_checked_when_made(field: str, value: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=f"Limits.{field}"):
        Limits(**{field: value})


def test_a_page_may_not_be_longer_than_the_longest_page() -> None:
    with pytest.raises(FourCardsError, match="list_page"):
        Limits(list_page=300)


# -- addresses -----------------------------------------------------------------------------------------

def test_ipv6_clients_are_counted_per_network_and_ipv4_per_address() -> None:
    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("2001:db8:1:2::1", 48) == address_key("2001:db8:1:3::1", 48) == "2001:db8:1::/48"
    assert address_key("2001:db8::1", 128) != address_key("2001:db8::2", 128)
    assert address_key("::ffff:198.51.100.7") == "198.51.100.7"  # a v4 client on a dual-stack socket
    assert address_key("198.51.100.7") != address_key("198.51.100.8")
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert address_key("") == "" and address_key("testclient") == "testclient"


@given(st.one_of(st.ip_addresses(v=4).map(str), st.text(alphabet="0123456789.%abc", max_size=20)))
def test_the_ipv4_shortcut_keys_as_the_parsed_address_does(host: str) -> None:
    """A host without ':' skips the parser (every refused connection asks): same key as parsing it."""
    try:
        parsed = str(ipaddress.ip_address(host.split("%", 1)[0]))
    except ValueError:
        parsed = host
    assert address_key(host) == parsed


def test_forwarded_addresses_are_read_from_trusted_proxies_only() -> None:
    nobody = TrustedProxies()
    assert not nobody and nobody.client("127.0.0.1", ["203.0.113.9"]) == "127.0.0.1"
    proxy = TrustedProxies(["127.0.0.1, 10.0.0.0/8", "::1"])
    assert proxy.client("127.0.0.1", ["203.0.113.9"]) == "203.0.113.9"
    assert proxy.client("::1", ["203.0.113.9"]) == "203.0.113.9"
    assert proxy.client("192.0.2.1", ["203.0.113.9"]) == "192.0.2.1"  # not a proxy of ours: its header is a lie
    # The client cannot choose its address: the right-most address no trusted proxy owns.
    assert proxy.client("127.0.0.1", ["6.6.6.6, 203.0.113.9"]) == "203.0.113.9"
    assert proxy.client("127.0.0.1", ["6.6.6.6", "203.0.113.9, 10.1.2.3"]) == "203.0.113.9"
    assert proxy.client("127.0.0.1", ["10.1.2.3"]) == "10.1.2.3"  # every hop is ours: the first one
    assert proxy.client("127.0.0.1", ["garbage, 203.0.113.9"]) == "203.0.113.9"
    assert proxy.client("127.0.0.1", ["203.0.113.9, garbage"]) == "127.0.0.1"  # garbage from our proxy: the peer
    assert proxy.client("127.0.0.1", []) == "127.0.0.1"
    assert proxy.client("127.0.0.1", ["[2001:db8::5]:4711"]) == "2001:db8::5"
    assert proxy.client("127.0.0.1", ["203.0.113.9:4711"]) == "203.0.113.9"
    assert proxy.trusts("::ffff:127.0.0.1")
    assert TrustedProxies(["*"]).client("192.0.2.1", ["203.0.113.9"]) == "203.0.113.9"
    with pytest.raises(ValueError, match="not an IP address"):
        TrustedProxies(["proxy.example"])


def test_origins() -> None:
    policy = OriginPolicy(["https://friend.example"])
    assert policy.allows(None, "cards.example")  # not from a browser
    assert policy.allows("https://cards.example", "cards.example")
    assert policy.allows("http://cards.example:8000", "cards.example:8000")
    assert policy.allows("https://friend.example:443", "cards.example")
    assert not policy.allows("https://evil.example", "cards.example")
    assert not policy.allows("null", "cards.example")
    assert not policy.allows("http://cards.example:8001", "cards.example:8000")
    with pytest.raises(ValueError, match="not an origin"):
        OriginPolicy(["friend.example"])


# -- counting ------------------------------------------------------------------------------------------

def test_connections_are_capped_per_address_and_in_all() -> None:
    counter = ConnectionCounter(per_address=2, total=4, what="WebSockets")
    assert counter.open("a1", "A") is None and counter.open("a2", "A") is None
    refused = counter.open("a3", "A")
    assert refused is not None and (refused.status, refused.code) == (429, "too_many_connections")
    assert counter.open("b1", "B") is None
    assert counter.open("p1", "proxy", capped=False) is None  # a trusted proxy: the server-wide cap only
    full = counter.open("c1", "C")
    assert full is not None and (full.status, full.code) == (503, "too_many_connections")
    counter.close("a1")
    counter.close("a1")  # again: nothing more is given back
    assert counter.count("A") == 1 and len(counter) == 3
    assert counter.open("a3", "A") is None
    assert counter.refused == 2


def test_a_rate_limiter_refuses_with_the_wait_and_forgets_full_buckets() -> None:
    limiter = RateLimiter(rate=2.0, burst=3.0, what="seat claims")
    for _ in range(3):
        limiter.take("A")
    with pytest.raises(Refusal) as refused:
        limiter.take("A")
    assert refused.value.status == 429 and refused.value.code == "rate_limited"
    assert refused.value.retry_after is not None and 0 < refused.value.retry_after <= 0.5
    limiter.take("B")  # another address has its own allowance
    limiter.buckets["B"].tokens = 3.0
    limiter.sweep()
    assert set(limiter.buckets) == {"A"}
    bounded = RateLimiter(rate=1000.0, burst=1.0, what="x", max_keys=10)
    for key in range(100):
        bounded.take(key)
        time.sleep(0.001)
    assert len(bounded.buckets) <= 10


def test_a_token_bucket_refills_at_its_rate() -> None:
    bucket = TokenBucket(rate=10.0, burst=2.0, now=0.0)
    assert bucket.take(now=0.0) and bucket.take(now=0.0) and not bucket.take(now=0.0)
    assert not bucket.take(now=0.05) and bucket.take(now=0.1)


def test_a_refusal_is_a_whole_http_answer() -> None:
    refusal = Refusal(429, "too_many_connections", "at most 2", {"retry_after": 4.2})
    head, _, body = refusal.http_bytes().partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 429 Too Many Requests"
    assert b"retry-after: 5" in lines and b"connection: close" in lines
    assert json.loads(body) == {"error": {"code": "too_many_connections", "reason": "at most 2", "retry_after": 4.2}}


# -- the whole admission, and its ASGI middleware ----------------------------------------------------------

def scope(kind: str = "websocket", peer: str = "127.0.0.1", headers: dict[str, str] | None = None,
          method: str = "GET") -> dict[str, Any]:
    found: dict[str, Any] = {"type": kind, "client": (peer, 50000), "path": "/ws",
                             "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
                             "extensions": {"websocket.http.response": {}}}
    if kind == "http":
        found["method"] = method
    return found


def test_the_client_is_the_forwarded_one_only_behind_a_trusted_proxy() -> None:
    plain = Admission(Limits())
    assert plain.client(scope(headers={"X-Forwarded-For": "203.0.113.9"})) == "127.0.0.1"
    behind = Admission(Limits(), forwarded_allow_ips=["127.0.0.1"])
    assert behind.client(scope(headers={"X-Forwarded-For": "2001:db8::7"})) == "2001:db8::/64"
    assert behind.client(scope(peer="192.0.2.1", headers={"X-Forwarded-For": "203.0.113.9"})) == "192.0.2.1"


def test_a_state_changing_request_must_be_json_from_an_allowed_origin() -> None:
    admission = Admission(Limits())
    assert admission.check_request(scope("http", method="GET")) is None
    refused = admission.check_request(scope("http", method="POST", headers={"Content-Type": "text/plain"}))
    assert refused is not None and refused.status == 415
    refused = admission.check_request(scope("http", method="POST", headers={
        "Content-Type": "application/json", "Origin": "https://evil.example", "Host": "cards.example"}))
    assert refused is not None and (refused.status, refused.code) == (403, "forbidden_origin")
    assert admission.refused == {"unsupported_media_type": 1, "forbidden_origin": 1}


def test_http_requests_of_one_address_are_rate_limited() -> None:
    admission = Admission(Limits(request_rate=1.0, request_burst=3.0))
    assert [admission.check_request(scope("http")) for _ in range(3)] == [None] * 3
    refused = admission.check_request(scope("http"))
    assert refused is not None and (refused.status, refused.code) == (429, "rate_limited")
    assert admission.check_request(scope("http", peer="127.0.0.2")) is None


def run_socket(middleware: AdmissionMiddleware, found: dict[str, Any],
               hold: asyncio.Event | None = None) -> list[dict[str, Any]]:
    """One WebSocket handshake through ``middleware`` (its app accepts, and waits for ``hold``)."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    async def main() -> None:
        await middleware(found, receive, send)

    asyncio.run(main())
    return sent


def test_the_middleware_refuses_a_websocket_past_the_caps_before_the_app_sees_it() -> None:
    seen: list[tuple[str, str]] = []
    admission = Admission(Limits(sockets_per_address=2, socket_burst=100.0), forwarded_allow_ips=["127.0.0.1"])

    async def app(found: Any, receive: Any, send: Any) -> None:
        seen.append((found["client"][0], found[CLIENT_KEY]))
        assert len(admission.sockets) >= 1  # a slot is held while the app runs
        await send({"type": "websocket.accept"})

    middleware = AdmissionMiddleware(app, admission)
    for _ in range(3):
        assert run_socket(middleware, scope(headers={"X-Forwarded-For": "2001:db8::1"}))[0]["type"] == \
            "websocket.accept"
    assert seen[0] == ("2001:db8::1", "2001:db8::/64")  # the route sees the forwarded client
    assert len(admission.sockets) == 0  # each slot given back when its app returned
    # Past the cap: the handshake is answered with an HTTP refusal, the app never runs.
    admission.sockets.open("held-1", "2001:db8::/64")
    admission.sockets.open("held-2", "2001:db8::/64")
    answer = run_socket(middleware, scope(headers={"X-Forwarded-For": "2001:db8::ffff"}))
    assert answer[0]["type"] == "websocket.http.response.start" and answer[0]["status"] == 429
    assert json.loads(answer[1]["body"])["error"]["code"] == "too_many_connections"
    assert len(seen) == 3
    # Another client is not affected; a foreign origin is refused.
    assert run_socket(middleware, scope(headers={"X-Forwarded-For": "2001:db9::1"}))[0]["type"] == "websocket.accept"
    answer = run_socket(middleware, scope(headers={"Origin": "https://evil.example", "Host": "cards.example"}))
    assert answer[0]["status"] == 403


def test_new_websockets_of_one_address_are_rate_limited() -> None:
    admission = Admission(Limits(socket_rate=1.0, socket_burst=2.0))
    assert admission.open_socket("a", scope()) is None
    assert admission.open_socket("b", scope()) is None
    refused = admission.open_socket("c", scope())
    assert refused is not None and refused.code == "rate_limited" and refused.retry_after
    assert admission.open_socket("d", scope(peer="127.0.0.2")) is None


def test_new_tcp_connections_of_one_address_are_rate_limited_but_not_a_proxys() -> None:
    admission = Admission(Limits(connection_rate=1.0, connection_burst=2.0), forwarded_allow_ips=["127.0.0.1"])
    assert admission.open_connection("a", "192.0.2.1") is None
    assert admission.open_connection("b", "192.0.2.1") is None
    refused = admission.open_connection("c", "192.0.2.1")
    assert refused is not None and refused.code == "rate_limited" and refused.status == 429
    assert all(admission.open_connection(f"p{n}", "127.0.0.1") is None for n in range(10))


def test_a_refusal_over_a_rate_waits_holding_a_slot_of_its_address() -> None:
    """``delay``: ``refusal_delay`` for ``rate_limited`` only; ``hold_connection``: a slot of the
    address's cap taken while the refused connection is held, none free: no wait."""
    admission = Admission(Limits(connection_rate=1.0, connection_burst=1.0, connections_per_address=2,
                                 refusal_delay=0.75))
    assert admission.open_connection("a", "192.0.2.1") is None
    refused = admission.open_connection("b", "192.0.2.1")
    assert refused is not None and refused.code == "rate_limited"
    assert admission.hold_connection("b", "192.0.2.1", refused) == 0.75
    assert admission.connections.count(admission.key("192.0.2.1")) == 2  # a and the held b
    again = admission.open_connection("c", "192.0.2.1")
    assert again is not None and admission.hold_connection("c", "192.0.2.1", again) == 0.0  # no slot: at once
    admission.close_connection("b")
    assert admission.connections.count(admission.key("192.0.2.1")) == 1
    capped = Refusal(429, "too_many_connections", "full")
    assert admission.delay(capped) == 0.0 and admission.hold_connection("d", "192.0.2.9", capped) == 0.0
    assert admission.stats()["delayed"] == 1
    assert Admission(Limits(refusal_delay=0)).delay(refused) == 0.0  # 0: at once


def test_a_request_over_its_rate_is_answered_after_the_delay() -> None:
    """The middleware's 429 for an address over its request rate waits ``refusal_delay``."""
    admission = Admission(Limits(request_rate=0.01, request_burst=1.0, refusal_delay=0.3))
    sent: list[dict[str, Any]] = []

    async def app(found: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    async def main() -> list[float]:
        middleware, waits = AdmissionMiddleware(app, admission), []
        for _ in range(2):
            began = time.perf_counter()
            await middleware(scope("http"), receive, send)
            waits.append(time.perf_counter() - began)
        return waits

    waits = asyncio.run(main())
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [200, 429]
    assert waits[1] >= 0.28 and waits[1] - waits[0] >= 0.2


def test_refusals_waiting_are_capped_per_client_even_behind_a_proxy() -> None:
    """Behind a trusted proxy the held connection is the proxy's (not capped per address): the
    waiting refusals are counted by the client's address, and past its share go at once."""
    admission = Admission(Limits(connections_per_address=2, refusal_delay=0.4), forwarded_allow_ips=["127.0.0.1"])
    refused = Refusal(429, "rate_limited", "over")

    async def timed(client: str) -> float:
        began = time.perf_counter()
        await admission.wait_refusal(refused, client)
        return time.perf_counter() - began

    async def main() -> list[float]:
        return list(await asyncio.gather(*(timed("198.51.100.7") for _ in range(3)), timed("198.51.100.8")))

    waits = asyncio.run(main())
    assert sorted(waits[:3])[0] < 0.2 and sorted(waits[:3])[1] >= 0.35 and waits[3] >= 0.35
    assert len(admission.waiting) == 0  # every slot given back
    assert asyncio.run(timed("198.51.100.7")) >= 0.35  # free again
    other = Refusal(429, "too_many_tables", "full")
    began = time.perf_counter()
    asyncio.run(admission.wait_refusal(other, "198.51.100.9"))
    assert time.perf_counter() - began < 0.2  # not over a rate: at once


def test_tcp_connections_from_a_trusted_proxy_are_not_capped_per_address() -> None:
    admission = Admission(Limits(connections_per_address=1), forwarded_allow_ips=["127.0.0.1"])
    assert admission.open_connection("p1", "127.0.0.1") is None
    assert admission.open_connection("p2", "127.0.0.1") is None
    assert admission.open_connection("x1", "192.0.2.1") is None
    refused = admission.open_connection("x2", "192.0.2.1")
    assert refused is not None and refused.status == 429
    admission.close_connection("x1")
    assert admission.open_connection("x2", "192.0.2.1") is None


# -- what a refusal leaves behind -------------------------------------------------------------------


def test_refusals_leave_no_cycles_for_the_collector() -> None:
    """A flood of refused connections, requests and WebSockets: every refusal is freed as soon as
    its caller drops it. (Raised and caught, each refusal's traceback tied its caller's frame, and
    the connection it held, into a cycle: 17 objects a refused connection for the collector, whose
    full passes then took 40 to 60 ms with every request waiting.)"""
    admission = Admission(Limits(connection_rate=1, connection_burst=1, request_rate=1, request_burst=1,
                                 socket_rate=1, socket_burst=1))
    scope = {"type": "http", "method": "GET", "client": ("192.0.2.9", 1), "headers": [], "path": "/"}

    def connection_made(handle: object) -> bool:  # the frame a protocol's connection_made runs in
        refusal = admission.open_connection(handle, "192.0.2.9")
        return refusal is not None

    def request(number: int) -> bool:
        refusal = admission.check_request(dict(scope))
        return refusal is not None

    def socket(number: int) -> bool:
        refusal = admission.open_socket(object(), {**scope, "type": "websocket"})
        return refusal is not None

    gc.collect()
    gc.disable()
    try:
        refused = [sum(call(n) for n in range(200)) for call in (connection_made, request, socket)]
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert min(refused) >= 195
    assert unreachable == 0


def test_the_server_process_freezes_its_startup_heap() -> None:
    """``fourcards serve`` moves what is alive at start (modules, the games' shared tables) out of
    the collector's walks, and makes full collections rarer."""
    pytest.importorskip("uvicorn", reason="fourcards serve runs on uvicorn (the server extra)")
    code = ("import gc; from fourcards.server.http_server import settle_heap, FULL_COLLECTION_EVERY; "
            "before = gc.get_freeze_count(); settle_heap(); "
            "print(before, gc.get_freeze_count(), gc.get_threshold()[2] == FULL_COLLECTION_EVERY)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    before, after, rarer = out.stdout.split()
    assert int(before) == 0 and int(after) > 10_000 and rarer == "True"
