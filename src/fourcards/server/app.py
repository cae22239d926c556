"""The ASGI application: the HTTP API, the WebSocket endpoint, the static page.

>>> app = create_app(db=":memory:")     # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import math
import os
import secrets
import time
import importlib.resources
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..decks import parse_deck
from ..errors import FourCardsError
from ..games import GAMES, get_game
from .protocol import Act, Event, Hint, Join, Ping, ProtocolError, error_message, parse_client_message
from .store import SeatRecord, SQLiteStore, Store, TableRecord
from .tables import (Table, dumps, event_types, hash_token, make_table, master_specs, rules_options)

__all__ = ["create_app", "GameServer", "Limits", "DEFAULT_DB"]

log = logging.getLogger("fourcards.server")

DEFAULT_DB = "fourcards-server.db"
EVENTS = event_types
STATIC_DIR = Path(__file__).parent / "static"
MAX_INT_RULE = 100_000
MAX_DECK_CARDS = 1000


@dataclasses.dataclass(frozen=True)
class Limits:
    """The server's limits (see ``docs/server.md``)."""

    max_tables: int = 1000
    """Tables open (not finished) at once."""
    rate: float = 20.0
    """Messages a second a connection may send on average..."""
    burst: float = 40.0
    """... and at once."""
    join_timeout: float = 30.0
    """Seconds a new connection has to ``join``."""
    max_queued: int = 1000
    """Messages waiting for a slow reader before it is disconnected."""
    max_body: int = 256 * 1024
    """Bytes of an HTTP request body."""


class _HTTPError(Exception):
    def __init__(self, status: int, code: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason


# -- the server ------------------------------------------------------------------------------------

class GameServer:
    """Every table in memory, their store, the bots' thread pool."""

    def __init__(self, store: Store, bot_delay: float, limits: Limits) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.limits = limits
        self.tables: dict[str, Table] = {}
        self.executor = ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2)),
                                           thread_name_prefix="fourcards-bot")

    # -- life --------------------------------------------------------------------------------------
    def recover(self) -> None:
        """Load every stored table and replay its log."""
        for stored in self.store.load():
            try:
                table = make_table(stored.table, self.store, self.executor, self.bot_delay, _load_deck_text)
                table.replay(stored.log)
            except Exception:  # a table that no longer loads must not stop the others
                log.exception("table %s could not be recovered", stored.table.id)
                continue
            self.tables[table.id] = table

    def start(self) -> None:
        for table in self.tables.values():
            table.start()

    def stop(self) -> None:
        for table in self.tables.values():
            table.close()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    # -- tables ------------------------------------------------------------------------------------
    def open_tables(self) -> int:
        return sum(1 for t in self.tables.values() if not t.terminal)

    def table(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError("unknown_table", f"no table has the id {table_id!r}")
        return table

    async def create_table(self, body: Any) -> Table:
        if not isinstance(body, dict):
            raise _HTTPError(400, "bad_request", "the body must be a JSON object")
        unknown = set(body) - {"game", "rules", "seats", "deck"}
        if unknown:
            raise _HTTPError(400, "bad_request", f"unknown fields {sorted(unknown)}")
        name = body.get("game")
        if not isinstance(name, str):
            raise _HTTPError(400, "bad_request", "'game' must be a game's name (see GET /api/games)")
        if name not in master_specs():
            try:
                name = get_game(name).name
            except FourCardsError as error:
                raise _HTTPError(404, "unknown_game", str(error)) from None
        if self.open_tables() >= self.limits.max_tables:
            raise _HTTPError(429, "too_many_tables", f"the server has {self.limits.max_tables} open tables")
        rules = body.get("rules", {})
        if not isinstance(rules, dict):
            raise _HTTPError(400, "bad_rules", "'rules' must be an object")
        _check_rule_values(rules)
        deck_text = None
        if body.get("deck") is not None:
            if name in master_specs() or not get_game(name).game_class.deck_upload:
                raise _HTTPError(400, "bad_deck", f"{name} takes no deck")
            try:
                deck_text = json.dumps(body["deck"])
                _load_deck_text(deck_text)
            except FourCardsError as error:
                raise _HTTPError(400, "bad_deck", str(error)) from None
        players, rules = _checked_rules(name, rules)
        seats = _checked_seats(name, body.get("seats"), players)
        record = TableRecord(secrets.token_urlsafe(9), name, rules, secrets.randbits(62), seats, {}, deck_text,
                             time.time())
        try:
            table = make_table(record, self.store, self.executor, self.bot_delay, _load_deck_text)
        except (FourCardsError, TypeError, ValueError) as error:
            raise _HTTPError(400, "bad_rules", str(error)) from None
        await self.store.create_table(record)
        self.tables[record.id] = table
        table.start()
        return table

    async def claim(self, table_id: str, seat: Any, body: Any) -> dict[str, Any]:
        table = self.tables.get(table_id)
        if table is None:
            raise _HTTPError(404, "unknown_table", f"no table has the id {table_id!r}")
        try:
            number = int(seat)
        except ValueError:
            raise _HTTPError(400, "bad_request", f"seat {seat!r} is not a number") from None
        if not 0 <= number < len(table.seats):
            raise _HTTPError(404, "unknown_seat", f"table {table_id} has seats 0..{len(table.seats) - 1}")
        name = ""
        if isinstance(body, dict) and body.get("name") is not None:
            if not isinstance(body["name"], str) or len(body["name"]) > 40:
                raise _HTTPError(400, "bad_request", "'name' must be a string of at most 40 characters")
            name = body["name"]
        token = secrets.token_urlsafe(32)
        try:
            await table.claim(number, name, hash_token(token))
        except FourCardsError:
            raise _HTTPError(409, "seat_taken", f"seat {number} is a bot's or already claimed") from None
        return {"table": table_id, "seat": number, "token": token}


def _load_deck_text(text: str) -> Any:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise FourCardsError(f"the deck is not JSON: {error}") from None
    return parse_deck(data, "uploaded deck")


def _check_rule_values(rules: dict[str, Any]) -> None:
    for key, value in rules.items():
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if not -1 <= value <= MAX_INT_RULE:
                raise _HTTPError(400, "bad_rules", f"rule {key}={value} is out of range (-1..{MAX_INT_RULE})")
        elif isinstance(value, float):
            if not math.isfinite(value) or not 0 <= value <= 60:
                raise _HTTPError(400, "bad_rules", f"rule {key}={value} is out of range")
        elif isinstance(value, str):
            if len(value) > 40:
                raise _HTTPError(400, "bad_rules", f"rule {key} is too long")
        elif isinstance(value, dict):
            if key != "deck" or not all(isinstance(k, str) and len(k) <= 4 and isinstance(v, int)
                                        and not isinstance(v, bool) and 0 <= v <= MAX_DECK_CARDS
                                        for k, v in value.items()) or sum(value.values()) > MAX_DECK_CARDS:
                raise _HTTPError(400, "bad_rules", f"rule {key} must map card shapes to counts "
                                 f"(at most {MAX_DECK_CARDS} cards)")
        else:
            raise _HTTPError(400, "bad_rules", f"rule {key} has a value of type {type(value).__name__}")


def _checked_rules(name: str, rules: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The number of seats and the rules to store (options as given, checked by the game)."""
    spec = master_specs().get(name)
    if spec is not None:
        try:
            return spec.check_rules(rules)
        except (FourCardsError, TypeError, ValueError) as error:
            raise _HTTPError(400, "bad_rules", str(error)) from None
    entry = get_game(name)
    known = {f.name for f in dataclasses.fields(entry.game_class.rules_type)}
    if set(rules) - known:
        raise _HTTPError(400, "bad_rules", f"unknown rules {sorted(set(rules) - known)}; {name} has {sorted(known)}")
    try:
        game = entry.new_game(**rules)
    except (FourCardsError, TypeError, ValueError) as error:
        raise _HTTPError(400, "bad_rules", str(error)) from None
    return game.num_players, dict(rules)


def _checked_seats(game: str, seats: Any, players: int) -> tuple[SeatRecord, ...]:
    if seats is None:
        return tuple(SeatRecord("human") for _ in range(players))
    if not isinstance(seats, list) or len(seats) != players:
        raise _HTTPError(400, "bad_seats", f"'seats' must list {players} seats")
    spec = master_specs().get(game)
    kinds = spec.bots if spec is not None else get_game(game).available_bots
    result = []
    for number, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise _HTTPError(400, "bad_seats", f"seat {number} must be an object")
        name = seat.get("name", "")
        if not isinstance(name, str) or len(name) > 40:
            raise _HTTPError(400, "bad_seats", f"seat {number}: 'name' must be a string of at most 40 characters")
        if seat.get("kind") == "human":
            result.append(SeatRecord("human", name))
        elif seat.get("kind") == "bot":
            if seat.get("bot") not in kinds:
                raise _HTTPError(400, "bad_seats", f"seat {number}: 'bot' must be one of {', '.join(kinds)}")
            result.append(SeatRecord("bot", name or f"{seat['bot']} bot", seat["bot"]))
        else:
            raise _HTTPError(400, "bad_seats", f"seat {number}: 'kind' must be human or bot")
    return tuple(result)


def games_catalogue() -> list[dict[str, Any]]:
    """``GET /api/games``: every game with its facts, rule options and bots, then
    the tables its masters bring (a real-time mode), after their game."""
    result = []
    specs = master_specs()
    for name, entry in GAMES.items():
        cls = entry.game_class
        options = rules_options(cls.rules_type)
        low, high = cls.player_range()
        result.append({"name": name, "title": entry.title, "players": [low, high], "rules": options,
                       "bots": list(entry.available_bots), "deck": cls.deck_upload, "real_time": cls.real_time,
                       "score_label": cls.score_label, "score_higher_is_better": cls.score_higher_is_better,
                       "script": f"/games/{name}.js" if entry.page_script else None})
        for spec in specs.values():
            if spec.game == name:
                result.append({"name": spec.name, "title": spec.title, "players": list(spec.players),
                               "rules": [dict(o) for o in spec.rules], "bots": list(spec.bots), "deck": False,
                               "real_time": spec.real_time, "score_label": cls.score_label,
                               "score_higher_is_better": cls.score_higher_is_better,
                               "script": f"/games/{spec.name}.js" if spec.script else None})
    return result


def page_script(name: str) -> bytes | None:
    """The page module of a game or master (its ``page_script`` / ``script`` resource), or None."""
    spec = master_specs().get(name)
    path = spec.script if spec is not None else (GAMES[name].page_script if name in GAMES else None)
    if not path:
        return None
    package, _, resource = path.partition(":")
    try:
        return importlib.resources.files(package).joinpath(resource).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        log.exception("game %s: its page script %s could not be read", name, path)
        return None


# -- connections -----------------------------------------------------------------------------------

class _TokenBucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class WebSocketClient:
    """One connection: messages queued and written by its own task, in order."""

    def __init__(self, websocket: WebSocket, max_queued: int) -> None:
        self.websocket = websocket
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.max_queued = max_queued
        self.closed = False
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= self.max_queued:
            self.close()
            return
        self.queue.put_nowait(message if isinstance(message, str) else dumps(message))

    def replaced(self) -> None:
        self.send({"type": "error", "code": "replaced",
                   "reason": "another connection joined with this seat's token"})
        self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait(None)

    async def _write(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    with contextlib.suppress(Exception):
                        await self.websocket.close()
                    return
                await self.websocket.send_text(text)
        except Exception:  # the peer went away
            self.closed = True


async def _serve_socket(server: GameServer, websocket: WebSocket) -> None:
    await websocket.accept()
    client = WebSocketClient(websocket, server.limits.max_queued)
    bucket = _TokenBucket(server.limits.rate, server.limits.burst)
    joined: tuple[Table, int] | None = None
    deadline = time.monotonic() + server.limits.join_timeout
    try:
        while not client.closed:
            try:
                if joined is None:
                    frame = await asyncio.wait_for(websocket.receive(), max(0.0, deadline - time.monotonic()))
                else:
                    frame = await websocket.receive()
            except asyncio.TimeoutError:
                client.send({"type": "error", "code": "not_joined", "reason": "no join in time"})
                client.close()
                break
            if frame["type"] == "websocket.disconnect":
                break
            raw = frame.get("text")
            if raw is None:
                raw = frame.get("bytes") or b""
            if not bucket.take():
                limited = ProtocolError("rate_limited", f"at most {server.limits.rate:g} messages a second "
                                        f"(bursts of {server.limits.burst:g}); this one was dropped: send it again",
                                        _message_id(raw))
                client.send(error_message(limited))
                continue
            try:
                message = parse_client_message(raw, EVENTS())
                joined = await _handle(server, client, joined, message)
            except ProtocolError as error:
                client.send(error_message(error))
            except Exception:
                log.exception("message failed")
                client.send({"type": "error", "code": "server_error",
                             "reason": "the server failed to handle the message; nothing was changed"})
    except WebSocketDisconnect:
        pass
    finally:
        if joined is not None:
            joined[0].detach(joined[1], client)
        client.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.writer, 5)


def _message_id(raw: str | bytes) -> str | None:
    """The ``id`` of a message that is not handled (to name it in the error), if it has one."""
    try:
        message = parse_client_message(raw, EVENTS())
    except ProtocolError as error:
        return error.message_id
    found = getattr(message, "id", None)
    return found if isinstance(found, str) else None


async def _handle(server: GameServer, client: WebSocketClient, joined: tuple[Table, int] | None,
                  message: Any) -> tuple[Table, int] | None:
    if isinstance(message, Ping):
        client.send({"type": "pong"})
        return joined
    if isinstance(message, Join):
        if joined is not None:
            raise ProtocolError("already_joined", f"this connection holds seat {joined[1]} of table {joined[0].id}")
        table = server.table(message.table)
        seat = table.seat_of(message.token)
        if seat is None:
            raise ProtocolError("bad_token", f"the token is not the token of a seat at table {table.id}")
        table.attach(seat, client)
        return (table, seat)
    message_id = getattr(message, "id", None)
    if joined is None:
        raise ProtocolError("not_joined", "send join first", message_id)
    table, seat = joined
    if isinstance(message, Act):
        await table.act(seat, message, client)
    elif isinstance(message, Event):
        await table.event(seat, message, client)
    elif isinstance(message, Hint):
        await table.hint(seat, message.id, client)
    return joined


# -- HTTP -------------------------------------------------------------------------------------------

def _error(status: int, code: str, reason: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "reason": reason}}, status_code=status)


async def _body(request: Request, limit: int) -> Any:
    size = 0
    chunks = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _HTTPError(413, "too_large", f"the body is longer than {limit} bytes")
        chunks.append(chunk)
    data = b"".join(chunks)
    if not data:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        raise _HTTPError(400, "bad_json", f"the body is not JSON: {error}") from None


def create_app(db: str | os.PathLike[str] | None = None, *, store: Store | None = None,
               static_dir: str | os.PathLike[str] | None = None, bot_delay: float = 0.3,
               max_tables: int = 1000, limits: Limits | None = None) -> Starlette:
    """The game server as a Starlette (ASGI) application.

    ``db``: the SQLite file (default ``fourcards-server.db``); ``store``: any
    :class:`~fourcards.server.store.Store` instead; ``static_dir``: the web
    page's folder (default: the one shipped); ``bot_delay``: seconds a bot
    waits before acting; ``limits``: :class:`Limits`."""
    if limits is None:
        limits = Limits(max_tables=max_tables)
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    holder: dict[str, GameServer] = {}

    def server() -> GameServer:
        return holder["server"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        backing = store if store is not None else SQLiteStore(db if db is not None else DEFAULT_DB)
        game_server = GameServer(backing, bot_delay, limits)
        game_server.recover()
        holder["server"] = game_server
        app.state.server = game_server
        game_server.start()
        try:
            yield
        finally:
            game_server.stop()

    async def index(request: Request) -> Response:
        page = static / "index.html"
        if not page.is_file():
            return _error(404, "not_found", "no page is installed")
        return FileResponse(page)

    async def games(request: Request) -> Response:
        return JSONResponse({"games": games_catalogue()})

    async def game_script(request: Request) -> Response:
        body = page_script(request.path_params["name"])
        if body is None:
            return _error(404, "not_found", "this game has no page script")
        return Response(body, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    async def tables(request: Request) -> Response:
        if request.method == "GET":
            return JSONResponse({"tables": [t.summary() for t in server().tables.values()]})
        try:
            table = await server().create_table(await _body(request, limits.max_body))
        except _HTTPError as error:
            return _error(error.status, error.code, error.reason)
        return JSONResponse(table.summary(), status_code=201)

    async def table(request: Request) -> Response:
        found = server().tables.get(request.path_params["table_id"])
        if found is None:
            return _error(404, "unknown_table", f"no table has the id {request.path_params['table_id']!r}")
        return JSONResponse(found.summary())

    async def claim(request: Request) -> Response:
        try:
            body = await _body(request, 4096)
            answer = await server().claim(request.path_params["table_id"], request.path_params["seat"], body)
        except _HTTPError as error:
            return _error(error.status, error.code, error.reason)
        return JSONResponse(answer, status_code=201)

    async def socket(websocket: WebSocket) -> None:
        await _serve_socket(server(), websocket)

    routes: list[Any] = [
        Route("/", index),
        Route("/api/games", games),
        Route("/games/{name}.js", game_script),
        Route("/api/tables", tables, methods=["GET", "POST"]),
        Route("/api/tables/{table_id}", table),
        Route("/api/tables/{table_id}/seats/{seat}", claim, methods=["POST"]),
        WebSocketRoute("/ws", socket),
    ]
    if static.is_dir():
        routes.append(Mount("/static", app=StaticFiles(directory=str(static)), name="static"))
    return Starlette(routes=routes, lifespan=lifespan)

