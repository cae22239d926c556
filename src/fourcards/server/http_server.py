"""The HTTP server under the app: uvicorn, with admission at the socket.

uvicorn (0.30 and later) has no deadline for a request's headers or body (a
connection that sends a header line every two seconds is kept for ever) and
no cap of connections per address, and it trusts ``X-Forwarded-For`` from
127.0.0.1 by default. So ``fourcards serve`` runs uvicorn with protocol
classes of its own (:func:`protocols`), built on uvicorn's h11 protocol and
its WebSocket protocol, which ask :class:`~fourcards.server.admission.Admission`:

- when a TCP connection is accepted: the server-wide cap
  (``Limits.max_connections``) and the per-address cap
  (``Limits.connections_per_address``; not for a trusted proxy's address).
  A refused connection gets a ``503``/``429`` JSON answer and is closed: at once,
  or, over its address's rate of new connections, after ``Limits.refusal_delay``
  seconds (what it sends dropped; holding a slot of its address's cap meanwhile), so that a
  client looping on new connections waits for each refusal;
- while a request comes in: its headers must be complete within
  ``Limits.header_timeout`` seconds of the connection's start (or of the end of
  the previous answer on a kept-alive connection), and its body within
  ``Limits.body_timeout`` seconds of its headers; a connection that dribbles is
  closed. An idle kept-alive connection is closed after ``Limits.keep_alive``;
- uvicorn's own reading of ``X-Forwarded-For`` is off: the app reads it from
  the configured proxies only (:class:`~fourcards.server.admission.TrustedProxies`).

The WebSocket caps per client address, the join deadline and the message rates
live in the app (:class:`~fourcards.server.admission.AdmissionMiddleware`), so
they hold under any ASGI server; the deadlines and TCP caps above need this
module's protocols (another server must bring its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import os
import socket
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

try:
    from websockets.protocol import State as _State

    _OPEN: Any = _State.OPEN
except ImportError:  # pragma: no cover - the server extra installs websockets
    _OPEN = None

from .admission import Admission

__all__ = ["protocols", "listen", "serve", "raise_open_file_limit"]

log = logging.getLogger("fourcards.server")

FILE_RESERVE = 64
"""Open files kept apart from the connections (the store, its logs, the page's files)."""


BACKLOG = 2048
"""Connections the kernel queues for the server (uvicorn's default)."""


def protocols(admission: Admission) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """uvicorn's HTTP and WebSocket protocol classes (``http=``, ``ws=``), with ``admission``'s
    connection caps and request deadlines."""
    limits = admission.limits
    if AutoWebSocketsProtocol is None:  # pragma: no cover - the server extra installs websockets
        raise ImportError("the server needs the websockets package (the server extra)")
    socket_base: Any = AutoWebSocketsProtocol

    class AdmittedHTTP(H11Protocol):
        """uvicorn's h11 protocol with the TCP caps and the header and body deadlines."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self.deadline: asyncio.TimerHandle | None = None
            self.reading = ""  # what the deadline running is for: "head", "body" or nothing
            self.held: asyncio.TimerHandle | None = None
            peer = transport.get_extra_info("peername")
            host = str(peer[0]) if isinstance(peer, tuple) and peer else ""
            refusal = admission.open_connection(transport, host)
            self.refused = refusal is not None
            if refusal is not None:  # refused before uvicorn does any work for it (a flood costs little)
                answer = refusal.http_bytes()
                wait = admission.hold_connection(transport, host, refusal)
                if wait > 0:  # over its rate: answered later (a looping client waits); what it sends is
                    # read and dropped meanwhile (unread bytes would turn the close into a reset)
                    self.transport = transport  # (uvicorn's setup is skipped for a refused connection)
                    self.held = self.loop.call_later(wait, _answer, transport, answer)
                    return
                _answer(transport, answer)
                return
            super().connection_made(transport)
            self._expect("head", limits.header_timeout)

        def data_received(self, data: bytes) -> None:
            if self.refused:
                return
            super().data_received(data)
            self._follow()

        def eof_received(self) -> bool | None:  # type: ignore[override]  # (asyncio: True keeps it open)
            if self.refused:  # a held refusal's client that closed its side still gets its answer
                return True if self.held is not None else None
            return super().eof_received()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._expect("head", limits.header_timeout)  # the next request's head, on time
                self._follow()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop()
            if self.refused:
                if self.held is not None:  # a held refusal: its slot back, its answer no longer due
                    self.held.cancel()
                    self.held = None
                    admission.close_connection(self.transport)
                return
            admission.close_connection(self.transport)
            super().connection_lost(exc)

        def _follow(self) -> None:
            """Move the deadline with the request: its head, then its body, then none."""
            if self.transport.get_protocol() is not self or self.transport.is_closing():
                self._stop()  # upgraded to a WebSocket (its own protocol now), or closing
                return
            state = self.conn.their_state
            if state is h11.IDLE:
                return  # the head is still coming: its deadline runs on
            if state is h11.SEND_BODY:
                if self.reading != "body":
                    self._expect("body", limits.body_timeout)
                return
            self._stop()  # the request is in (or the connection is done)

        def _expect(self, what: str, seconds: float) -> None:
            self._stop()
            self.reading = what
            self.deadline = self.loop.call_later(seconds, self._late)

        def _stop(self) -> None:
            if getattr(self, "deadline", None) is not None:
                assert self.deadline is not None
                self.deadline.cancel()
            self.deadline, self.reading = None, ""

        def _late(self) -> None:
            self.deadline = None
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return
            admission.timed_out += 1
            what = "headers" if self.reading == "head" else "body"
            log.info("connection from %s closed: its request's %s did not arrive in time",
                     self.client[0] if self.client else "?", what)
            self.transport.close()

    class AdmittedWebSocket(socket_base):  # type: ignore[misc]
        """uvicorn's WebSocket protocol, giving the connection's slot back when it closes."""

        def connection_lost(self, exc: Exception | None) -> None:
            admission.close_connection(self.transport)
            super().connection_lost(exc)

        close_sent: bool  # uvicorn's: whether its close went out

        def send_receive_event_to_app(self) -> None:
            """A text message that is not UTF-8 closes the connection (1007) with one line in the
            log, where uvicorn logs a traceback at ``error`` for each (a client could fill the log)."""
            if getattr(self, "curr_msg_data_type", None) == "text" and not self.close_sent:
                frames: list[bytes] = self.frames
                try:
                    b"".join(frames).decode()
                except UnicodeDecodeError:
                    frames.clear()
                    log.info("connection from %s closed: a text message that is not UTF-8",
                             self.client[0] if self.client else "?")
                    if self.conn.state is _OPEN:
                        self.conn.send_close(1007)
                        self.handle_parser_exception()
                    else:  # the client's close came with it: no close of ours to send
                        self.close_sent = True
                        self.transport.close()
                    return
            super().send_receive_event_to_app()

        async def send(self, message: Any) -> None:
            await super().send(message)
            if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
                # A handshake refused with an HTTP answer is complete: uvicorn would otherwise log an
                # error for each one (a log line an attacker could have for every try).
                self.handshake_complete = True

    return AdmittedHTTP, AdmittedWebSocket


def _answer(transport: asyncio.Transport, answer: bytes) -> None:
    """Write a refused connection's whole answer and close it."""
    if not transport.is_closing():
        transport.write(answer)
        transport.close()


def raise_open_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (up to the hard limit); the
    limit in force afterwards (a large number where there is none to read)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Linux or macOS
        return 1 << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else 1 << 20


FULL_COLLECTION_EVERY = 100
"""The collector's third threshold in ``fourcards serve`` (Python's default: 10): a full
collection after this many collections of the middle generation, not ten (the server's
refusals leave no cycles for it to find; what it walks costs every waiting request)."""


def settle_heap() -> None:
    """Before serving: build each registered game once (its shared tables are then made), collect,
    and move everything alive to the collector's permanent generation (``gc.freeze``). A full
    collection then walks only what came after: on a 2-core machine it took 40 to 60 ms with the
    modules and tables walked each time, with every request waiting (the p99 of a server under
    attack); the frozen objects live as long as the process anyway. Full collections are made
    rarer too (:data:`FULL_COLLECTION_EVERY`)."""
    import gc

    from ..games import game_names, get_game

    for name in game_names():
        with contextlib.suppress(Exception):  # a plug-in that fails here fails where it is used, said there
            get_game(name).new_game()
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def listen(host: str, port: int) -> list[socket.socket]:
    """The sockets ``fourcards serve`` will listen on, listening now: an address in use or one this
    machine does not have is an ``OSError`` before anything is printed, and with ``port`` 0 every
    address gets the same free port, which :func:`address_of` shows.

    >>> sockets = listen("127.0.0.1", 0)
    >>> address_of(sockets).startswith("http://127.0.0.1:") and not address_of(sockets).endswith(":0/")
    True
    >>> for sock in sockets:
    ...     sock.close()
    """
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except UnicodeError as error:  # a name IDNA cannot encode ("a..b", a label over 63 letters)
        raise OSError(f"{host!r} is not a host name ({error})") from None
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys((f, k, p, "", a) for f, k, p, _, a in found):
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:  # a family the system has turned off (IPv6): the others serve, as asyncio does
                if len(found) > 1:
                    continue
                raise
            sockets.append(sock)
            if os.name == "posix":  # elsewhere (Windows) it would let a second server share a taken port
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # its own port beside an IPv4 one, as asyncio binds them
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(sockets) > 1:
                address = (address[0], sockets[0].getsockname()[1], *address[2:])
            sock.bind(address)
            sock.listen(BACKLOG)  # a client that comes before uvicorn starts waits, not refused
            sock.set_inheritable(True)
        if not sockets:
            raise OSError(f"no address of {host!r} can be listened on")
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def address_of(sockets: list[socket.socket], host: str = "") -> str:
    """The URL of the first of ``sockets`` (bound by :func:`listen`): at ``host`` as given
    (``localhost``), else at the address it is bound to."""
    bound, port = sockets[0].getsockname()[:2]
    host = host or bound
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def serve(app: Any, admission: Admission, sockets: list[socket.socket], log_level: str = "warning") -> None:
    """Run ``app`` under uvicorn with ``admission`` on ``sockets`` (from :func:`listen`) until
    stopped (``fourcards serve``).

    The open-file limit is raised to fit ``Limits.max_connections`` when the system allows; when
    it does not, the server-wide connection cap is lowered to what fits (said in the log)."""
    import uvicorn

    limits = admission.limits
    files = raise_open_file_limit(limits.max_connections + FILE_RESERVE)
    fits = max(16, files - FILE_RESERVE)
    if admission.connections.total > fits:
        log.warning("the open-file limit is %d: at most %d connections at once (not %d)", files, fits,
                    admission.connections.total)
        admission.connections.total = fits
    http, ws = protocols(admission)
    settle_heap()
    # The server's own log ("fourcards.server": refusals, deadlines, failures) beside uvicorn's, at one level.
    log_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    log_config["loggers"]["fourcards"] = {"handlers": ["default"], "level": log_level.upper(), "propagate": False}
    host, port = sockets[0].getsockname()[:2]  # for uvicorn's own log: it serves on the sockets
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, http=http, ws=ws, log_config=log_config,
                            proxy_headers=False, server_header=False, timeout_keep_alive=limits.keep_alive,  # type: ignore[arg-type]
                            ws_max_size=65536, ws_per_message_deflate=False, ws_ping_interval=20.0,
                            ws_ping_timeout=20.0, timeout_graceful_shutdown=2, backlog=BACKLOG)
    uvicorn.Server(config).run(sockets=sockets)
