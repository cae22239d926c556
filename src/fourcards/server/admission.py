"""Admission: who may cost the server what, decided before any work is done.

One :class:`Limits` value in, refusals out. This module knows nothing of
tables, games or routes: it answers "may this peer open a connection, this
client open a WebSocket, create a table, claim a seat, read the listing, ask
for a hint, and which address is it?", so that the game code never has to
think about hostile clients.

- **Addresses** (:func:`address_key`): a client is counted by its IPv4
  address, or by its IPv6 network of ``Limits.ipv6_prefix`` bits (a /64 by
  default: one subscriber's whole allocation), so that a client cannot spread
  itself over the 2**64 addresses it owns.
- **Forwarded addresses** (:class:`TrustedProxies`): ``X-Forwarded-For`` is
  read only from the proxies configured (none by default); the client is the
  right-most address in it that is not one of them.
- **Origins** (:class:`OriginPolicy`): which pages may change anything or
  open WebSockets.
- **Connection caps** (:class:`ConnectionCounter`): per address and
  server-wide, for the HTTP server's sockets and for the app's WebSockets.
- **Rates** (:class:`RateLimiter`): token buckets per address (or per seat).
- **Timeouts**: the numbers in :class:`Limits`; the HTTP server applies the
  header and body deadlines (:mod:`fourcards.server.http`).

Every refusal is a :class:`Refusal` (an HTTP status, a code, a reason, and
``retry_after`` when waiting helps).

>>> limits = Limits(sockets_per_address=2)
>>> address_key("2001:db8::1", 64) == address_key("2001:db8::ffff:1", 64)
True
>>> sockets = ConnectionCounter(limits.sockets_per_address, limits.max_sockets, "WebSockets")
>>> sockets.open("a", "198.51.100.7") is None and sockets.open("b", "198.51.100.7") is None
True
>>> sockets.open("c", "198.51.100.7").code
'too_many_connections'
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import json
import math
import time
from collections.abc import Awaitable, Callable, Hashable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import FourCardsError, InvalidTypeError

__all__ = ["Limits", "Refusal", "OriginPolicy", "TrustedProxies", "ConnectionCounter", "RateLimiter",
           "TokenBucket", "Admission", "AdmissionMiddleware", "address_key", "LIMIT_FLAGS"]


def _limit(default: Any, help: str, low: float = 1, high: float | None = None) -> Any:
    """A :class:`Limits` field: its default, its one-line meaning (the flag's help), its bounds."""
    return field(default=default, metadata={"help": help, "low": low, "high": high})


@dataclass(frozen=True)
class Limits:
    """The server's limits: every one a ``fourcards serve`` flag (``--max-tables`` for
    ``max_tables``...) with the default documented in ``docs/server.md``. Checked when
    made: an int field must be an int, a rate, burst or time a finite number above 0
    (``refusal_delay`` from 0 to 10); ``TypeError`` for another type, ``FourCardsError`` naming
    the field otherwise."""

    # -- tables --------------------------------------------------------------------------------------
    max_tables: int = _limit(1000, "tables open (not finished) at once, server-wide")
    tables_per_client: int = _limit(20, "open tables one client address may have created")
    idle_seconds: float = _limit(3600.0, "an unfinished table where nothing happened for this long is closed")
    max_finished: int = _limit(1000, "finished tables kept for their replay (the oldest are dropped)", low=0)
    max_spectators: int = _limit(50, "spectators of one table")
    # -- HTTP ------------------------------------------------------------------------------------------
    max_body: int = _limit(256 * 1024, "bytes of an HTTP request body")
    header_timeout: float = _limit(10.0, "seconds a connection has to send a request's headers (from its "
                                   "start, or the end of the previous answer)")
    body_timeout: float = _limit(10.0, "seconds a request has to send its whole body once its headers are in")
    keep_alive: float = _limit(5.0, "seconds an idle keep-alive HTTP connection is kept open")
    max_connections: int = _limit(4000, "TCP connections open at once, server-wide (lowered to the open-file "
                                  "limit at start)")
    connections_per_address: int = _limit(128, "TCP connections one peer address may have open (a trusted "
                                           "proxy: no per-address cap)")
    connection_rate: float = _limit(20.0, "new TCP connections a second one peer address may open (a trusted "
                                    "proxy: no limit)...")
    connection_burst: float = _limit(60.0, "... and at once")
    request_rate: float = _limit(50.0, "HTTP requests a second one client address may make (any path)...")
    request_burst: float = _limit(200.0, "... and at once")
    create_rate: float = _limit(1.0, "table creations a second one client address may ask for...")
    create_burst: float = _limit(10.0, "... and at once")
    claim_rate: float = _limit(2.0, "seat claims a second one client address may ask for (every attempt)...")
    claim_burst: float = _limit(20.0, "... and at once")
    list_rate: float = _limit(5.0, "GET /api/tables a second one client address may ask for...")
    list_burst: float = _limit(20.0, "... and at once")
    list_page: int = _limit(50, "tables in one page of GET /api/tables when ?limit= is not given")
    list_page_max: int = _limit(200, "the largest ?limit= of GET /api/tables")
    list_cache_seconds: float = _limit(1.0, "seconds the listing is served from its cache before it is "
                                       "built again")
    refusal_delay: float = _limit(1.0, "seconds a refusal over a rate waits: an HTTP 429 (its connection held) "
                                  "or a WebSocket's rate_limited error (the socket served meanwhile); 0: at "
                                  "once; at most 10", low=0, high=10)
    # -- WebSockets ------------------------------------------------------------------------------------
    sockets_per_address: int = _limit(64, "WebSockets open at once from one client address")
    max_sockets: int = _limit(3000, "WebSockets open at once, server-wide")
    socket_rate: float = _limit(5.0, "new WebSockets a second one client address may open...")
    socket_burst: float = _limit(30.0, "... and at once")
    join_timeout: float = _limit(5.0, "seconds a new WebSocket has to join (or watch) before it is closed")
    rate: float = _limit(20.0, "messages a second a WebSocket may send on average...")
    burst: float = _limit(40.0, "... and at once")
    max_queued: int = _limit(1000, "messages waiting for a slow reader before it is disconnected")
    max_queued_bytes: int = _limit(4_000_000, "bytes of messages waiting for a slow reader before it is "
                                   "disconnected", low=4096)
    # -- hints -----------------------------------------------------------------------------------------
    hint_seconds: float = _limit(0.05, "seconds of search for one hint at most (the time budget given to the "
                                 "game's best bot, or the bot's own default when shorter)")
    hint_rate: float = _limit(0.5, "hints a second one seat may ask for...")
    hint_burst: float = _limit(2.0, "... and at once")
    hint_workers: int = _limit(1, "hints computed at once, server-wide (threads of their own, apart from "
                               "the bots')", high=64)
    hint_share: float = _limit(0.5, "cores the hints may use on average, server-wide (their CPU budget)")
    hint_queue: int = _limit(16, "hints waiting for a worker, server-wide; more are refused (busy)")
    # -- addresses -------------------------------------------------------------------------------------
    ipv6_prefix: int = _limit(64, "bits of an IPv6 address that name one client (64: a /64 counts as one)",
                              high=128)

    def __post_init__(self) -> None:
        # Checked once here, so that no bucket, sweep or queue ever runs on a nonsense limit.
        for spec in dataclasses.fields(self):
            value = getattr(self, spec.name)
            low, high = spec.metadata["low"], spec.metadata["high"]
            if spec.type == "int":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise InvalidTypeError(f"Limits.{spec.name} must be an int, not {type(value).__name__}")
                if value < low:
                    raise FourCardsError(f"Limits.{spec.name}={value!r}: at least {low}")
            else:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise InvalidTypeError(f"Limits.{spec.name} must be a number, not {type(value).__name__}")
                if not (math.isfinite(value) and (value > 0 or value == low == 0)):
                    raise FourCardsError(f"Limits.{spec.name}={value!r}: a finite number "
                                         f"{'from' if low == 0 else 'above'} 0")
            if high is not None and value > high:
                raise FourCardsError(f"Limits.{spec.name}={value!r}: at most {high}")
        if self.list_page > self.list_page_max:
            raise FourCardsError(f"Limits.list_page={self.list_page} is above list_page_max={self.list_page_max}")

    @property
    def sweep_every(self) -> float:
        """Seconds between two checks for idle tables (a quarter of the idle time, at most a minute)."""
        return min(60.0, max(0.05, self.idle_seconds / 4))

    @staticmethod
    def help(name: str) -> str:
        """The one-line meaning of the field ``name``."""
        text: str = _FIELDS[name].metadata["help"]
        return text


_FIELDS = {spec.name: spec for spec in dataclasses.fields(Limits)}

#: The ``fourcards serve`` flag of each :class:`Limits` field (``max_tables`` -> ``--max-tables``; ``rate``
#: and ``burst``, a WebSocket's messages, -> ``--message-rate``, ``--message-burst``; ``idle_seconds`` may
#: also be given in minutes as ``--idle-minutes``).
LIMIT_FLAGS: dict[str, str] = {name: "--" + {"rate": "message_rate", "burst": "message_burst"}.get(name, name)
                               .replace("_", "-") for name in _FIELDS}


class Refusal(Exception):
    """A request refused: the HTTP ``status``, a ``code``, a readable ``reason`` and more fields
    of the error body (``retry_after``: seconds after which trying again may succeed)."""

    def __init__(self, status: int, code: str, reason: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason
        self.details = details or {}

    @property
    def retry_after(self) -> float | None:
        value = self.details.get("retry_after")
        return float(value) if isinstance(value, (int, float)) else None

    def body(self) -> dict[str, Any]:
        """The JSON error body: ``{"error": {"code", "reason", ...details}}``."""
        return {"error": {"code": self.code, "reason": self.reason, **self.details}}

    def body_bytes(self) -> bytes:
        """:meth:`body` as compact JSON (as the app's own answers)."""
        return json.dumps(self.body(), separators=(",", ":")).encode()

    def headers(self) -> list[tuple[bytes, bytes]]:
        """The answer's headers (``Retry-After`` when waiting helps)."""
        headers = [(b"content-type", b"application/json")]
        if self.retry_after is not None:
            headers.append((b"retry-after", str(max(1, math.ceil(self.retry_after))).encode()))
        return headers

    def http_bytes(self) -> bytes:
        """The whole HTTP/1.1 answer, for a server that refuses before any request is parsed."""
        body = self.body_bytes()
        head = [f"HTTP/1.1 {self.status} {_REASONS.get(self.status, 'Error')}".encode()]
        head += [name + b": " + value for name, value in self.headers()]
        head += [b"content-length: " + str(len(body)).encode(), b"connection: close"]
        return b"\r\n".join(head) + b"\r\n\r\n" + body


_REASONS = {400: "Bad Request", 403: "Forbidden", 408: "Request Timeout", 413: "Content Too Large",
            415: "Unsupported Media Type", 429: "Too Many Requests", 503: "Service Unavailable"}


# -- addresses ---------------------------------------------------------------------------------------

def address_key(host: str, ipv6_prefix: int = 64) -> str:
    """The key a client is counted by: an IPv4 address as it is; an IPv6 address as its
    network of ``ipv6_prefix`` bits (an IPv4-mapped one as its IPv4 address); anything else
    (a Unix socket's empty peer, a name) as it is.

    >>> address_key("2001:db8:1:2:3:4:5:6")
    '2001:db8:1:2::/64'
    >>> address_key("::ffff:192.0.2.1")
    '192.0.2.1'
    """
    if ":" not in host and "%" not in host:
        return host  # an IPv4 address, as a socket gives it, is its own key (or a name: as it is)
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, ipv6_prefix), strict=False))
    return str(address)


class TrustedProxies:
    """The reverse proxies whose ``X-Forwarded-For`` is believed: addresses or networks
    (``127.0.0.1``, ``10.0.0.0/8``, ``::1``), or ``*`` for any peer. None by default: the
    client is then the connection's peer, whatever the headers say."""

    def __init__(self, proxies: Iterable[str] = ()) -> None:
        self.any = False
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for item in proxies:
            for text in str(item).split(","):
                text = text.strip()
                if not text:
                    continue
                if text == "*":
                    self.any = True
                    continue
                try:
                    self.networks.append(ipaddress.ip_network(text, strict=False))
                except ValueError:
                    raise FourCardsError(f"{text!r} is not an IP address or network (like 127.0.0.1 or "
                                     "10.0.0.0/8), nor *") from None

    def __bool__(self) -> bool:
        return self.any or bool(self.networks)

    def trusts(self, host: str) -> bool:
        if self.any:
            return True
        if not self.networks:
            return False
        try:
            address = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)

    def client(self, peer: str, forwarded_for: list[str]) -> str:
        """The client's address: the peer itself unless it is a trusted proxy; then the
        right-most ``X-Forwarded-For`` address that is not a trusted proxy (the left-most
        when every one is; the peer when the header is missing or holds garbage)."""
        if not self.trusts(peer):
            return peer
        hops = [hop.strip() for value in forwarded_for for hop in value.split(",")]
        found = peer
        for hop in reversed(hops):
            if hop.startswith("[") and "]" in hop:  # [v6]:port
                hop = hop[1:hop.index("]")]
            elif hop.count(":") == 1:  # v4:port
                hop = hop.split(":", 1)[0]
            try:
                ipaddress.ip_address(hop)
            except ValueError:
                return found  # garbage: stop at the last address a trusted proxy vouched for
            found = hop
            if not self.trusts(hop):
                return hop
        return found


# -- origins ------------------------------------------------------------------------------------------

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin_key(origin: str) -> tuple[str, int] | None:
    """``(host, port)`` of an origin (``scheme://host[:port]``), or None when it is not an http(s) origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.hostname.lower(), port if port is not None else _DEFAULT_PORTS[parts.scheme]


class OriginPolicy:
    """Which pages may make state-changing requests and open WebSockets: the server's
    own host (an ``Origin`` whose host and port are the request's ``Host``) and the
    origins allowed. A request without ``Origin`` (not from a browser) is allowed."""

    def __init__(self, allow_origins: Iterable[str] = ()) -> None:
        self.allowed: set[tuple[str, str, int]] = set()
        for origin in allow_origins:
            key = _origin_key(origin)
            parts = urlsplit(origin.strip()) if key is not None else None
            if key is None or parts is None or parts.path not in ("", "/") or parts.query or parts.fragment \
                    or parts.username is not None:
                raise FourCardsError(f"{origin!r:.80} is not an origin (http[s]://host[:port], with no path)")
            self.allowed.add((urlsplit(origin.strip()).scheme, *key))

    def allows(self, origin: str | None, host: str | None) -> bool:
        if origin is None:
            return True
        key = _origin_key(origin)
        if key is None:
            return False  # "null" (a sandboxed page, a file) or garbage
        scheme = urlsplit(origin.strip()).scheme
        if (scheme, *key) in self.allowed:
            return True
        if not host:
            return False
        try:
            own = urlsplit("//" + host.strip())
            port = own.port
        except ValueError:
            return False
        return own.hostname is not None and (own.hostname.lower(), port or _DEFAULT_PORTS[scheme]) == key


# -- counting -----------------------------------------------------------------------------------------

class ConnectionCounter:
    """Open connections by address: at most ``per_address`` for one address and ``total``
    in all. :meth:`open` takes a slot for a connection (any hashable handle) or refuses;
    :meth:`close` gives it back (again and again: only the first counts)."""

    def __init__(self, per_address: int, total: int, what: str) -> None:
        self.per_address, self.total, self.what = per_address, total, what
        self.by_address: dict[str, int] = {}
        self.open_now: dict[Hashable, tuple[str, bool]] = {}  # handle -> (address, counted per address)
        self.refused = 0

    def __len__(self) -> int:
        return len(self.open_now)

    def open(self, handle: Hashable, address: str, capped: bool = True) -> Refusal | None:
        """Take a slot for ``handle`` from ``address`` (``capped=False``: the server-wide cap only,
        for a trusted proxy); the refusal when a cap is reached."""
        if len(self.open_now) >= self.total:
            self.refused += 1
            return Refusal(503, "too_many_connections", f"the server has {self.total} {self.what} open: "
                           "try again in a moment", {"retry_after": 5})
        count = self.by_address.get(address, 0)
        if capped and count >= self.per_address:
            self.refused += 1
            return Refusal(429, "too_many_connections", f"at most {self.per_address} {self.what} from one "
                           "address: close one first", {"retry_after": 5})
        self.by_address[address] = count + 1
        self.open_now[handle] = (address, capped)
        return None

    def close(self, handle: Hashable) -> None:
        found = self.open_now.pop(handle, None)
        if found is None:
            return
        address = found[0]
        left = self.by_address.get(address, 1) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

    def count(self, address: str) -> int:
        return self.by_address.get(address, 0)


class TokenBucket:
    """``rate`` a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float, now: float | None = None) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic() if now is None else now

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, amount: float = 1.0, now: float | None = None) -> bool:
        self._refill(time.monotonic() if now is None else now)
        if self.tokens < amount:
            return False
        self.tokens -= amount
        return True

    def wait(self, amount: float = 1.0) -> float:
        """Seconds until ``amount`` can be taken."""
        self._refill(time.monotonic())
        return max(0.0, (amount - self.tokens) / self.rate)

    def full(self) -> bool:
        """Whether the bucket refilled to its burst (then forgetting it changes nothing)."""
        self._refill(time.monotonic())
        return self.tokens >= self.burst


class RateLimiter:
    """A :class:`TokenBucket` per key (an address, a seat): :meth:`take` refuses with ``429
    rate_limited`` when the key's allowance is spent. Full buckets are forgotten by
    :meth:`sweep` (and whenever more than ``max_keys`` are held), so memory stays bounded."""

    def __init__(self, rate: float, burst: float, what: str, max_keys: int = 100_000) -> None:
        self.rate, self.burst, self.what, self.max_keys = rate, burst, what, max_keys
        self.buckets: dict[Hashable, TokenBucket] = {}

    def take(self, key: Hashable) -> None:
        """Take one from ``key``'s allowance; raises the :class:`Refusal` when it is spent."""
        refusal = self.refusal(key)
        if refusal is not None:
            raise refusal

    def refusal(self, key: Hashable) -> Refusal | None:
        """Take one from ``key``'s allowance: None, or the refusal when it is spent, not raised
        (the paths every refused connection takes: an exception's traceback would tie the
        caller's frame, its connection with it, into a cycle only the collector frees)."""
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self.sweep()
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst)
        if bucket.take():
            return None
        return Refusal(429, "rate_limited", f"at most {self.rate:g} {self.what} a second (bursts of "
                       f"{self.burst:g}): try again in a moment", {"retry_after": round(bucket.wait(), 2)})

    def sweep(self) -> None:
        for key in [k for k, bucket in self.buckets.items() if bucket.full()]:
            del self.buckets[key]


# -- the whole admission -----------------------------------------------------------------------------

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_App = Callable[[_Scope, _Receive, _Send], Awaitable[None]]

#: The scope key holding the client's address key (:func:`address_key` of the forwarded address).
CLIENT_KEY = "fourcards.client"

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class Admission:
    """Every admission decision of one server, from one :class:`Limits`: the client's
    address (:meth:`client`), origins, the WebSocket and connection caps, the rates.

    ``allow_origins``: pages of these origins may use the server besides its own host's;
    ``forwarded_allow_ips``: the reverse proxies whose ``X-Forwarded-For`` is trusted."""

    def __init__(self, limits: Limits | None = None, allow_origins: Iterable[str] = (),
                 forwarded_allow_ips: Iterable[str] = ()) -> None:
        self.limits = limits = limits if limits is not None else Limits()
        self.origins = OriginPolicy(allow_origins)
        self.proxies = TrustedProxies(forwarded_allow_ips)
        self.sockets = ConnectionCounter(limits.sockets_per_address, limits.max_sockets, "WebSockets")
        self.connections = ConnectionCounter(limits.connections_per_address, limits.max_connections,
                                             "connections")
        self.creations = RateLimiter(limits.create_rate, limits.create_burst, "new tables from one address")
        self.claims = RateLimiter(limits.claim_rate, limits.claim_burst, "seat claims from one address")
        self.listings = RateLimiter(limits.list_rate, limits.list_burst, "table listings from one address")
        self.socket_opens = RateLimiter(limits.socket_rate, limits.socket_burst, "new WebSockets from one address")
        self.hints = RateLimiter(limits.hint_rate, limits.hint_burst, "hints for one seat")
        self.requests = RateLimiter(limits.request_rate, limits.request_burst, "HTTP requests from one address")
        self.connection_opens = RateLimiter(limits.connection_rate, limits.connection_burst,
                                            "new connections from one address")
        #: Refusals by code since the server started (what an operator watches).
        self.refused: dict[str, int] = {}
        #: Connections cut for sending their request too slowly (header or body deadline).
        self.timed_out = 0
        #: Refusals over a rate answered after ``Limits.refusal_delay`` (the connection held meanwhile).
        self.delayed = 0
        #: The HTTP refusals waiting for their answer, by client address (:meth:`wait_refusal`): behind a
        #: trusted proxy the held connection is the proxy's, so the client's share is counted here.
        self.waiting = ConnectionCounter(limits.connections_per_address, limits.max_connections,
                                         "refusals waiting")

    def key(self, host: str) -> str:
        """The address key of ``host`` (:func:`address_key` with this server's IPv6 prefix)."""
        return address_key(host, self.limits.ipv6_prefix)

    def client_host(self, scope: _Scope) -> str:
        """The client's address for a request: the peer's, or the forwarded one when the peer
        is a trusted proxy."""
        peer = scope.get("client")
        host = str(peer[0]) if peer else ""
        if self.proxies:
            forwarded = [value.decode("latin-1") for name, value in scope.get("headers", ())
                         if name.lower() == b"x-forwarded-for"]
            host = self.proxies.client(host, forwarded)
        return host

    def client(self, scope: _Scope) -> str:
        """The client's address key for a request (forwarded addresses read from trusted proxies
        only), worked out once a request."""
        found = scope.get(CLIENT_KEY)
        if isinstance(found, str):
            return found
        key = self.key(self.client_host(scope))
        scope[CLIENT_KEY] = key
        return key

    def count(self, refusal: Refusal) -> Refusal:
        """Count a refusal by its code; returned without a traceback (see :meth:`RateLimiter.refusal`)."""
        self.refused[refusal.code] = self.refused.get(refusal.code, 0) + 1
        return refusal.with_traceback(None)

    def check_request(self, scope: _Scope) -> Refusal | None:
        """An HTTP request: within its address's rate of requests; one that changes something
        must be JSON from an allowed origin."""
        limited = self.requests.refusal(self.client(scope))
        if limited is not None:
            return self.count(limited)
        if scope["method"] in _SAFE_METHODS:
            return None
        headers = _headers(scope)
        media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            return self.count(Refusal(415, "unsupported_media_type", "a request that changes anything must be "
                                      "JSON (Content-Type: application/json)"))
        if not self.origins.allows(headers.get("origin"), headers.get("host")):
            return self.count(Refusal(403, "forbidden_origin", "requests from this page's origin are not allowed"))
        return None

    def open_socket(self, handle: Hashable, scope: _Scope) -> Refusal | None:
        """May this WebSocket handshake go on: its origin, the address's rate of new WebSockets,
        the per-address and server-wide caps. None: a slot is taken (give it back with
        :meth:`close_socket`)."""
        headers = _headers(scope)
        if not self.origins.allows(headers.get("origin"), headers.get("host")):
            return self.count(Refusal(403, "forbidden_origin", "WebSockets from this page's origin are not allowed"))
        address = self.client(scope)
        limited = self.socket_opens.refusal(address)
        if limited is not None:
            return self.count(limited)
        refusal = self.sockets.open(handle, address)
        return None if refusal is None else self.count(refusal)

    def close_socket(self, handle: Hashable) -> None:
        self.sockets.close(handle)

    def open_connection(self, handle: Hashable, peer: str) -> Refusal | None:
        """May the HTTP server keep this new TCP connection from ``peer``: the server-wide cap, and,
        unless the peer is a trusted proxy, the per-address cap and rate of new connections."""
        capped = not self.proxies.trusts(peer)
        address = self.key(peer)
        if capped:
            limited = self.connection_opens.refusal(address)
            if limited is not None:
                return self.count(limited)
        refusal = self.connections.open(handle, address, capped=capped)
        return None if refusal is None else self.count(refusal)

    def close_connection(self, handle: Hashable) -> None:
        self.connections.close(handle)

    def delay(self, refusal: Refusal) -> float:
        """Seconds to wait before answering ``refusal`` on a connection that stays open meanwhile
        (and so counts against its address's caps): ``Limits.refusal_delay`` for a refusal over
        a rate (``rate_limited``), 0 for any other. A client looping on a limited path then makes
        a request a second or so, not hundreds, each costing the server its connection and answer."""
        return self.limits.refusal_delay if refusal.code == "rate_limited" else 0.0

    async def wait_refusal(self, refusal: Refusal, client: str) -> None:
        """Wait :meth:`delay` before answering ``refusal`` to ``client`` (an address key): at
        most ``connections_per_address`` refusals of one client wait at once, and
        ``max_connections`` in all; past that, no wait (the answer goes at once)."""
        seconds = self.delay(refusal)
        handle = object()
        if seconds <= 0 or self.waiting.open(handle, client) is not None:
            return
        self.delayed += 1
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            # The server is stopping (its graceful shutdown cancels what still runs): the refusal
            # is answered now, not turned into a 500 and a traceback in the log.
            pass
        finally:
            self.waiting.close(handle)

    def hold_connection(self, handle: Hashable, peer: str, refusal: Refusal) -> float:
        """A new TCP connection refused by :meth:`open_connection`: the seconds to hold it before
        its answer (:meth:`delay`), 0 to answer at once. A held connection takes a slot of its
        address's and the server's caps until it closes (:meth:`close_connection`); when none is
        free it is answered at once."""
        seconds = self.delay(refusal)  # (a trusted proxy is never over a rate here: always capped)
        if seconds <= 0 or self.connections.open(handle, self.key(peer)) is not None:
            return 0.0
        self.delayed += 1
        return seconds

    def sweep(self) -> None:
        """Forget the allowances that refilled (bounded memory)."""
        for limiter in (self.creations, self.claims, self.listings, self.socket_opens, self.hints,
                        self.connection_opens, self.requests):
            limiter.sweep()

    def stats(self) -> dict[str, Any]:
        """What admission holds and refused (for an operator)."""
        return {"connections": len(self.connections), "websockets": len(self.sockets),
                "refused": dict(self.refused), "timed_out": self.timed_out, "delayed": self.delayed}


def _headers(scope: _Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the last one of a repeated name)."""
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}


class AdmissionMiddleware:
    """ASGI middleware in front of every route: the client's address resolved once
    (``scope["client"]`` becomes the forwarded one when a trusted proxy sent it); a
    state-changing HTTP request must be JSON (415, before the body is read) from an
    allowed origin (403); a WebSocket handshake is refused before it is accepted (HTTP
    403 ``forbidden_origin``, 429 ``rate_limited`` or ``too_many_connections``, 503 when
    the server-wide cap is reached), and its slot is given back when it closes."""

    def __init__(self, app: _App, admission: Admission) -> None:
        self.app, self.admission = app, admission

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        admission = self.admission
        peer = scope.get("client")
        host = admission.client_host(scope)
        scope[CLIENT_KEY] = admission.key(host)
        if admission.proxies and peer:  # the routes see the forwarded client
            scope["client"] = (host, peer[1])
        if kind == "http":
            refusal = admission.check_request(scope)
            if refusal is not None:
                await admission.wait_refusal(refusal, scope[CLIENT_KEY])
                await _refuse_http(send, refusal)
                return
            await self.app(scope, receive, send)
            return
        handle = object()
        refusal = admission.open_socket(handle, scope)
        if refusal is not None:
            await _refuse_websocket(scope, receive, send, refusal, admission)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            admission.close_socket(handle)


async def _refuse_http(send: _Send, refusal: Refusal) -> None:
    body = refusal.body_bytes()
    await send({"type": "http.response.start", "status": refusal.status,
                "headers": [*refusal.headers(), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _refuse_websocket(scope: _Scope, receive: _Receive, send: _Send, refusal: Refusal,
                            admission: Admission) -> None:
    """Refuse a WebSocket handshake (over a rate: after :meth:`Admission.wait_refusal`): an HTTP
    answer with the refusal's status and JSON body (a server without the ASGI denial-response
    extension answers a bare 403)."""
    connect = await receive()
    if connect["type"] != "websocket.connect":
        return
    await admission.wait_refusal(refusal, admission.client(scope))
    if "websocket.http.response" in scope.get("extensions", {}):
        body = refusal.body_bytes()
        await send({"type": "websocket.http.response.start", "status": refusal.status,
                    "headers": [*refusal.headers(), (b"content-length", str(len(body)).encode())]})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})
