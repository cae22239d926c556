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
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..decks import parse_deck
from ..errors import FourCardsError
from ..games import GAMES, get_game
from .protocol import Act, Event, Hint, Join, Ping, ProtocolError, Watch, error_message, parse_client_message
from .pgstore import Elsewhere, LeaseLost, PostgresStore, is_postgres_url
from .store import SeatRecord, SharedStore, SQLiteStore, Store, StoredTable, TableRecord
from .tables import (Table, dumps, event_types, hash_token, make_table, master_specs, rules_options)

__all__ = ["create_app", "GameServer", "Limits", "DEFAULT_DB", "OriginPolicy"]

log = logging.getLogger("fourcards.server")

DEFAULT_DB = "fourcards-server.db"
EVENTS = event_types
STATIC_DIR = Path(__file__).parent / "static"
MAX_INT_RULE = 100_000
MAX_DECK_CARDS = 1000
FINISHED_ELSEWHERE_KEPT = 64
"""Finished tables of other processes (a shared store) kept rebuilt for their replay's reads."""


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
    tables_per_client: int = 20
    """Open (unfinished) tables one client address may have created (since the server started)."""
    create_rate: float = 1.0
    """Table creations a second one client address may ask for on average..."""
    create_burst: float = 10.0
    """... and at once."""
    claim_rate: float = 2.0
    """Seat claims a second one client address may ask for on average (every attempt counts)..."""
    claim_burst: float = 20.0
    """... and at once."""
    idle_seconds: float = 3600.0
    """An unfinished table where nothing happened for this long is closed and forgotten."""
    max_finished: int = 1000
    """Finished tables kept (for their replay); the oldest are dropped first."""
    max_spectators: int = 50
    """Spectators of one table."""

    def __post_init__(self) -> None:
        # Checked once here, so that no bucket, sweep or queue ever runs on a nonsense limit.
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.type == "int":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError(f"Limits.{field.name} must be an int, not {type(value).__name__}")
                if value < (0 if field.name == "max_finished" else 1):
                    raise FourCardsError(f"Limits.{field.name}={value!r}: at least "
                                         f"{0 if field.name == 'max_finished' else 1}")
            else:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TypeError(f"Limits.{field.name} must be a number, not {type(value).__name__}")
                if not (math.isfinite(value) and value > 0):
                    raise FourCardsError(f"Limits.{field.name}={value!r}: a finite number above 0")

    @property
    def sweep_every(self) -> float:
        """Seconds between two checks for idle tables (a quarter of the idle time, at most a minute)."""
        return min(60.0, max(0.05, self.idle_seconds / 4))


def _take(buckets: dict[str, _TokenBucket], address: str, rate: float, burst: float, what: str) -> None:
    """Take one from ``address``'s allowance in ``buckets`` (429 ``rate_limited`` when it is spent)."""
    bucket = buckets.get(address)
    if bucket is None:
        bucket = buckets[address] = _TokenBucket(rate, burst)
    if not bucket.take():
        raise _HTTPError(429, "rate_limited", f"at most {rate:g} {what} a second from one address (bursts of "
                         f"{burst:g}): try again in a moment")


class _HTTPError(Exception):
    def __init__(self, status: int, code: str, reason: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.status, self.code, self.reason = status, code, reason
        self.details = details or {}


# -- the server ------------------------------------------------------------------------------------

class GameServer:
    """Every table in memory, their store, the bots' thread pool."""

    def __init__(self, store: Store, bot_delay: float, limits: Limits) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.limits = limits
        self.tables: dict[str, Table] = {}
        self.finished_elsewhere: dict[str, Table] = {}  # rebuilt from a shared store, oldest first
        self.executor = ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2)),
                                           thread_name_prefix="fourcards-bot")
        self.creations: dict[str, _TokenBucket] = {}  # client address -> its table-creation allowance
        self.claims: dict[str, _TokenBucket] = {}  # client address -> its seat-claim allowance
        self.sweeper: asyncio.Task[None] | None = None
        #: Several processes share the store (PostgreSQL): tables are served under a lease (see docs/server.md).
        self.shared = bool(getattr(store, "shared", False))
        self.shared_store: SharedStore | None = cast(SharedStore, store) if self.shared else None
        self.leases: asyncio.Task[None] | None = None
        self._taking: dict[str, asyncio.Future[Table | None]] = {}  # takeovers running, by table
        self._summaries: dict[str, str] = {}  # table -> the summary last stored for the other processes
        self.takeovers = 0
        """Tables this process took over from the store (at start or from a stopped process)."""

    # -- life --------------------------------------------------------------------------------------
    def recover(self) -> None:
        """Load every stored table and replay its log (a shared store: none here; the lease
        sweep takes over the tables no live process holds)."""
        if self.shared:
            return
        for stored in self.store.load():
            table = self._rebuild(stored)
            if table is not None:
                self.tables[table.id] = table

    def _rebuild(self, stored: StoredTable) -> Table | None:
        """A stored table's master with its log replayed (None when it no longer loads)."""
        try:
            table = make_table(stored.table, self.store, self.executor, self.bot_delay, _load_deck_text)
            table.replay(stored.log)
        except Exception:  # a table that no longer loads must not stop the others
            log.exception("table %s could not be recovered", stored.table.id)
            return None
        return table

    def start(self) -> None:
        for table in self.tables.values():
            table.start()
        loop = asyncio.get_running_loop()
        self.sweeper = loop.create_task(self._sweep_forever())
        if self.shared:
            assert self.shared_store is not None
            self.shared_store.on_lost = self._lease_lost
            self.leases = loop.create_task(self._leases_forever())

    def stop(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
        if self.leases is not None:
            self.leases.cancel()
        for table in self.tables.values():
            table.close()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    # -- expiry --------------------------------------------------------------------------------------
    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.limits.sweep_every)
            try:
                await self.sweep()
            except Exception:  # one failed sweep must not stop the next
                log.exception("the sweep of idle tables failed")

    async def sweep(self) -> None:
        """Close the unfinished tables idle for ``idle_seconds``, drop the oldest finished
        tables beyond ``max_finished``, forget full creation allowances. One pass over the
        tables in memory (at most ``max_tables`` open and ``max_finished`` finished ones)."""
        now = time.monotonic()
        idle: list[Table] = []
        finished: list[Table] = []
        for table in list(self.tables.values()):
            table.changed_since_seen()
            if table.terminal:
                finished.append(table)
            elif now - table.last_activity >= self.limits.idle_seconds:
                idle.append(table)
        for table in idle:
            minutes = self.limits.idle_seconds / 60
            await self.drop(table, f"nothing happened at table {table.id} for {minutes:g} minutes: it is closed")
        if len(finished) > self.limits.max_finished:
            finished.sort(key=lambda t: t.record.created)
            for table in finished[:len(finished) - self.limits.max_finished]:
                await self.drop(table, f"table {table.id} is over and was removed (the server keeps the latest "
                                f"{self.limits.max_finished} finished tables)")
        for buckets in (self.creations, self.claims):
            for address in [a for a, bucket in buckets.items() if bucket.full()]:
                del buckets[address]

    async def drop(self, table: Table, reason: str) -> None:
        """Close a table (its clients told ``table_expired``) and forget it, here and in the store."""
        async with table.lock:
            if self.tables.get(table.id) is not table:
                return
            del self.tables[table.id]
            self._summaries.pop(table.id, None)
            table.shut("table_expired", reason)
        try:
            await self.store.delete_table(table.id)
        except Exception:
            log.exception("table %s: could not be deleted from the store (it will be recovered, then expire "
                          "again)", table.id)

    # -- several processes (a shared store) ----------------------------------------------------------
    @property
    def lease_seconds(self) -> float:
        return self._shared().lease_seconds

    def _shared(self) -> SharedStore:
        assert self.shared_store is not None, "not a shared store"
        return self.shared_store

    async def master(self, table_id: str) -> Table | None:
        """The table's master in this process: taken over from the store when the table has no
        live owner (its lease expired); None when no table has this id. A table another
        process holds raises ``ProtocolError("table_elsewhere")`` with ``owner`` and ``retry_after``."""
        table = self.tables.get(table_id)
        if table is not None or not self.shared:
            return table
        running = self._taking.get(table_id)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self._taking[table_id] = future
        try:
            table = await self._take_over(table_id)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: no warning when nobody else waited
            raise
        else:
            future.set_result(table)
            return table
        finally:
            del self._taking[table_id]

    async def _take_over(self, table_id: str) -> Table | None:
        began = time.monotonic()
        found = await self._shared().acquire(table_id)
        if found is None:
            return None
        if isinstance(found, Elsewhere):
            raise ProtocolError("table_elsewhere", f"another server process holds table {table_id}: connect "
                                "again" + (f" to {found.owner}" if found.owner else ""),
                                details={"owner": found.owner, "retry_after": round(found.retry_after, 2)})
        table = self._rebuild(found)
        if table is None:
            self._shared().release(table_id)
            return None
        self.tables[table_id] = table
        self.takeovers += 1
        table.start()
        await self._save_summary(table)
        log.info("table %s taken over (%d entries replayed in %.3f s)", table_id, len(found.log),
                 time.monotonic() - began)
        return table

    async def readable(self, table_id: str) -> Table | None:
        """The table to read (a summary, a replay): this process's master, or, when another
        process holds it, a master rebuilt from the store for this answer only (no lease taken)."""
        table = self.tables.get(table_id) or self.finished_elsewhere.get(table_id)
        if table is not None or not self.shared:
            return table
        stored = await self._shared().load_table(table_id)
        table = None if stored is None else self._rebuild(stored)
        if table is not None and table.terminal:  # a finished match never changes: kept for the next reads
            while len(self.finished_elsewhere) >= FINISHED_ELSEWHERE_KEPT:
                del self.finished_elsewhere[next(iter(self.finished_elsewhere))]
            self.finished_elsewhere[table_id] = table
        return table

    async def listing(self) -> list[dict[str, Any]]:
        """``GET /api/tables``: every public table's summary; with a shared store every process's
        (the others' as their owners last stored them)."""
        if not self.shared:
            return [t.summary() for t in self.tables.values() if not t.record.private]
        result = []
        for table_id, stored in await self._shared().summaries():
            table = self.tables.get(table_id)
            if table is not None:
                result.append(table.summary())
            elif stored is not None:
                result.append(stored)
        return result

    async def _save_summary(self, table: Table) -> None:
        """Store a table's summary when it changed (what the other processes list)."""
        if table.record.private:
            return
        summary = table.summary()
        text = json.dumps(summary, sort_keys=True)
        if self._summaries.get(table.id) == text:
            return
        try:
            await self._shared().save_summary(table.id, summary)
        except Exception:  # the lease was lost (the table is evicted), or the store is away: next time
            return
        self._summaries[table.id] = text

    def _lease_lost(self, table_id: str) -> None:
        """The store found this process's lease of a table taken over: stop serving it here."""
        table = self.tables.get(table_id)
        if table is not None:
            asyncio.get_running_loop().create_task(self.evict(table))

    async def evict(self, table: Table) -> None:
        """Forget a table another process took over: its clients are told ``table_elsewhere`` and closed."""
        async with table.lock:
            if self.tables.get(table.id) is not table:
                return
            del self.tables[table.id]
            self._summaries.pop(table.id, None)
            table.shut("table_elsewhere", f"another server process holds table {table.id} now: connect again")
        self._shared().release(table.id)
        log.warning("table %s: the lease was taken over by another process", table.id)

    async def _leases_forever(self) -> None:
        """Every quarter lease: store the changed summaries; take over the tables whose lease expired."""
        while True:
            try:
                await self.lease_sweep()
            except Exception:
                log.exception("the lease sweep failed")
            await asyncio.sleep(self.lease_seconds / 4)

    async def lease_sweep(self) -> None:
        for table in list(self.tables.values()):
            await self._save_summary(table)
        for table_id in await self._shared().expired(250):
            if table_id in self.tables:
                continue
            try:
                await self.master(table_id)
            except ProtocolError:  # another process was quicker
                continue

    # -- tables ------------------------------------------------------------------------------------
    def open_tables(self) -> int:
        return sum(1 for t in self.tables.values() if not t.terminal)

    async def table(self, table_id: str, invite: str | None = None) -> Table:
        """The table ``table_id``'s master here (taken over if need be: :meth:`master`), if
        ``invite`` opens it (a private table answers as if it did not exist)."""
        table = await self.master(table_id)
        if table is None or not table.invite_matches(invite):
            raise ProtocolError("unknown_table", f"no table has the id {table_id!r}")
        return table

    async def visible(self, table_id: str, invite: str | None) -> Table:
        """The table to read for the HTTP API (:meth:`readable`): 404 ``unknown_table`` when it is
        missing or private without its invite."""
        table = await self.readable(table_id)
        if table is None or not table.invite_matches(invite):
            raise _HTTPError(404, "unknown_table", f"no table has the id {table_id!r}")
        return table

    def allow_creation(self, address: str) -> None:
        """Take one table creation from the address's allowance (429 ``rate_limited`` when it is spent)."""
        _take(self.creations, address, self.limits.create_rate, self.limits.create_burst, "new tables")

    def allow_claim(self, address: str) -> None:
        """Take one seat claim from the address's allowance (429 ``rate_limited`` when it is spent)."""
        _take(self.claims, address, self.limits.claim_rate, self.limits.claim_burst, "seat claims")

    async def create_table(self, body: Any, address: str = "") -> tuple[Table, str | None]:
        """A new table from a ``POST /api/tables`` body, and its invitation (a private table's)."""
        self.allow_creation(address)
        if not isinstance(body, dict):
            raise _HTTPError(400, "bad_request", "the body must be a JSON object")
        unknown = set(body) - {"game", "rules", "seats", "deck", "private"}
        if unknown:
            raise _HTTPError(400, "bad_request", f"unknown fields {sorted(unknown)}")
        private = body.get("private", False)
        if not isinstance(private, bool):
            raise _HTTPError(400, "bad_request", "'private' must be true or false")
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
        mine = sum(1 for t in self.tables.values() if t.creator == address and not t.terminal)
        if mine >= self.limits.tables_per_client:
            raise _HTTPError(429, "too_many_tables", f"this address has {mine} open tables (at most "
                             f"{self.limits.tables_per_client}): finish one or wait for it to expire")
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
        invite = secrets.token_urlsafe(24) if private else None
        record = TableRecord(secrets.token_urlsafe(9), name, rules, secrets.randbits(62), seats, {}, deck_text,
                             time.time(), private, None if invite is None else hash_token(invite))
        try:
            table = make_table(record, self.store, self.executor, self.bot_delay, _load_deck_text)
        except (FourCardsError, TypeError, ValueError) as error:
            raise _HTTPError(400, "bad_rules", str(error)) from None
        table.creator = address
        await self.store.create_table(record)
        self.tables[record.id] = table
        table.start()
        if self.shared:
            await self._save_summary(table)
        return table, invite

    async def claim(self, table_id: str, seat: Any, body: Any, address: str = "") -> dict[str, Any]:
        self.allow_claim(address)
        try:
            table = await self.master(table_id)
        except ProtocolError as error:  # another process holds it
            raise _HTTPError(503, error.code, error.reason, error.details) from None
        if table is None:
            raise _HTTPError(404, "unknown_table", f"no table has the id {table_id!r}")
        invite = body.get("invite") if isinstance(body, dict) else None
        if not isinstance(invite, str) or len(invite) > 128:
            invite = None
        if not table.invite_matches(invite):
            raise _HTTPError(403, "bad_invite", f"table {table_id} is private: claiming a seat needs its invitation "
                             "('invite' in the body)")
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
        except ProtocolError:  # closed meanwhile
            raise _HTTPError(404, "unknown_table", f"no table has the id {table_id!r}") from None
        except LeaseLost:  # another process took the table over meanwhile
            raise _HTTPError(503, "table_elsewhere", f"another server process holds table {table_id} now: "
                             "try again", {"owner": None, "retry_after": 0}) from None
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

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        self._refill()
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def full(self) -> bool:
        """Whether the bucket refilled to its burst (then forgetting it changes nothing)."""
        self._refill()
        return self.tokens >= self.burst


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
    joined: tuple[Table, int | None] | None = None  # (table, seat); seat None: a spectator
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
                if error.code == "table_elsewhere":  # the client connects again (elsewhere)
                    client.close()
            except Exception:
                log.exception("message failed")
                client.send({"type": "error", "code": "server_error",
                             "reason": "the server failed to handle the message; nothing was changed"})
    except WebSocketDisconnect:
        pass
    finally:
        if joined is not None:
            if joined[1] is None:
                joined[0].unwatch(client)
            else:
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


async def _handle(server: GameServer, client: WebSocketClient, joined: tuple[Table, int | None] | None,
                  message: Any) -> tuple[Table, int | None] | None:
    if isinstance(message, Ping):
        client.send({"type": "pong"})
        return joined
    if isinstance(message, (Join, Watch)) and joined is not None:
        holds = "watches" if joined[1] is None else f"holds seat {joined[1]} of"
        raise ProtocolError("already_joined", f"this connection {holds} table {joined[0].id}")
    if isinstance(message, Join):
        # A seat's token opens a private table too (it was claimed with the invitation);
        # a private table answers a wrong token as if it did not exist.
        found = await server.master(message.table)
        seat = None if found is None else found.seat_of(message.token)
        if found is None or (seat is None and found.record.private):
            raise ProtocolError("unknown_table", f"no table has the id {message.table!r}")
        table = found
        if seat is None:
            raise ProtocolError("bad_token", f"the token is not the token of a seat at table {table.id}")
        table.attach(seat, client)
        return (table, seat)
    if isinstance(message, Watch):
        table = await server.table(message.table, message.invite)
        if len(table.spectators) >= server.limits.max_spectators:
            raise ProtocolError("too_many_spectators", f"table {table.id} has {server.limits.max_spectators} "
                                "spectators already")
        table.watch(client)
        return (table, None)
    message_id = getattr(message, "id", None)
    if joined is None:
        raise ProtocolError("not_joined", "send join (or watch) first", message_id)
    table, seat = joined
    if seat is None:
        raise ProtocolError("spectator", "a spectator cannot act, send events or ask for hints", message_id)
    if isinstance(message, Act):
        await table.act(seat, message, client)
    elif isinstance(message, Event):
        await table.event(seat, message, client)
    elif isinstance(message, Hint):
        await table.hint(seat, message.id, client)
    return joined


# -- HTTP -------------------------------------------------------------------------------------------

def _error(status: int, code: str, reason: str, details: dict[str, Any] | None = None) -> JSONResponse:
    headers = None
    if details and isinstance(details.get("retry_after"), (int, float)):
        headers = {"Retry-After": str(max(0, math.ceil(details["retry_after"])))}
    return JSONResponse({"error": {"code": code, "reason": reason, **(details or {})}}, status_code=status,
                        headers=headers)


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
            if key is None:
                raise ValueError(f"{origin!r} is not an origin (http[s]://host[:port])")
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


_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class _Guard:
    """ASGI middleware in front of every route: a state-changing HTTP request must be
    JSON (415 ``unsupported_media_type``, checked before the body is read) from an
    allowed origin (403 ``forbidden_origin``); a WebSocket handshake from an origin that
    is not allowed is refused before it is accepted (HTTP 403)."""

    def __init__(self, app: Callable[[_Scope, _Receive, _Send], Awaitable[None]], policy: OriginPolicy) -> None:
        self.app, self.policy = app, policy

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        kind = scope["type"]
        if kind == "http" and scope["method"] not in _SAFE_METHODS:
            headers = _headers(scope)
            media = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if media != "application/json":
                await _refuse(send, 415, "unsupported_media_type",
                              "a request that changes anything must be JSON (Content-Type: application/json)")
                return
            if not self.policy.allows(headers.get("origin"), headers.get("host")):
                await _refuse(send, 403, "forbidden_origin", "requests from this page's origin are not allowed")
                return
        elif kind == "websocket":
            headers = _headers(scope)
            if not self.policy.allows(headers.get("origin"), headers.get("host")):
                connect = await receive()
                if connect["type"] != "websocket.connect":
                    return
                if "websocket.http.response" in scope.get("extensions", {}):
                    body = json.dumps({"error": {"code": "forbidden_origin",
                                                 "reason": "WebSockets from this page's origin are not allowed"}})
                    await send({"type": "websocket.http.response.start", "status": 403,
                                "headers": [(b"content-type", b"application/json"),
                                            (b"content-length", str(len(body)).encode())]})
                    await send({"type": "websocket.http.response.body", "body": body.encode()})
                else:  # the server answers 403 to a close before the handshake
                    await send({"type": "websocket.close", "code": 1008})
                return
        await self.app(scope, receive, send)


def _headers(scope: _Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the last one of a repeated name)."""
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}


async def _refuse(send: _Send, status: int, code: str, reason: str) -> None:
    body = json.dumps({"error": {"code": code, "reason": reason}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def create_app(db: str | os.PathLike[str] | None = None, *, store: Store | None = None,
               static_dir: str | os.PathLike[str] | None = None, bot_delay: float = 0.3,
               max_tables: int = 1000, limits: Limits | None = None,
               allow_origins: Iterable[str] = (), lease_seconds: float = 5.0,
               advertise: str | None = None) -> Starlette:
    """The game server as a Starlette (ASGI) application.

    ``db``: the SQLite file (default ``fourcards-server.db``); ``store``: any
    :class:`~fourcards.server.store.Store` instead; ``static_dir``: the web
    page's folder (default: the one shipped); ``bot_delay``: seconds a bot
    waits before acting; ``limits``: :class:`Limits`; ``allow_origins``: the
    origins (``https://host[:port]``) whose pages may use the server besides its
    own host's (:class:`OriginPolicy`). ``db`` may be a PostgreSQL URL
    (``postgresql://user@host:port/db``, the ``postgres`` extra): several
    processes may then share it, each table held by one of them under a lease of
    ``lease_seconds``; ``advertise`` is this process's URL, told to clients that
    ask it for a table another process holds (see ``docs/server.md``)."""
    if limits is None:
        limits = Limits(max_tables=max_tables)
    policy = OriginPolicy(allow_origins)
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    holder: dict[str, GameServer] = {}

    def server() -> GameServer:
        return holder["server"]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        backing: Store
        if store is not None:
            backing = store
        elif is_postgres_url(db):
            backing = await asyncio.to_thread(PostgresStore, str(db), lease_seconds=lease_seconds, address=advertise)
        else:
            backing = SQLiteStore(db if db is not None else DEFAULT_DB)
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
            return JSONResponse({"tables": await server().listing()})
        address = request.client.host if request.client is not None else ""
        try:
            table, invite = await server().create_table(await _body(request, limits.max_body), address)
        except _HTTPError as error:
            return _error(error.status, error.code, error.reason, error.details)
        answer = table.summary()
        if invite is not None:
            answer["invite"] = invite
        return JSONResponse(answer, status_code=201)

    async def table(request: Request) -> Response:
        try:
            found = await server().visible(request.path_params["table_id"], request.query_params.get("invite"))
        except _HTTPError as error:
            return _error(error.status, error.code, error.reason, error.details)
        return JSONResponse(found.summary())

    async def finished(request: Request) -> Table:
        """The finished table a replay request names (404 when unknown, or private without its
        invitation; 409 ``not_finished`` while it is played)."""
        found = await server().visible(request.path_params["table_id"], request.query_params.get("invite"))
        if not found.terminal:
            raise _HTTPError(409, "not_finished", f"table {found.id} is still being played (version {found.version})")
        return found

    async def replay(request: Request) -> Response:
        try:
            found = await finished(request)
        except _HTTPError as error:
            return _error(error.status, error.code, error.reason, error.details)
        return Response(found.replay_text(), media_type="application/json")

    async def replay_board(request: Request) -> Response:
        text = request.path_params["step"]
        try:
            found = await finished(request)
            if not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) > found.version:
                raise _HTTPError(400, "bad_request", f"step {text[:40]!r} must be a whole number from 0 to "
                                 f"{found.version}, the match's length")
            board = found.board_text(int(text))
            if board is None:
                raise _HTTPError(404, "no_boards", f"a {found.record.game} table's replay has records, not boards")
        except _HTTPError as error:
            return _error(error.status, error.code, error.reason, error.details)
        return Response(board, media_type="application/json")

    async def claim(request: Request) -> Response:
        try:
            body = await _body(request, 4096)
            address = request.client.host if request.client is not None else ""
            answer = await server().claim(request.path_params["table_id"], request.path_params["seat"], body, address)
        except _HTTPError as error:
            return _error(error.status, error.code, error.reason, error.details)
        return JSONResponse(answer, status_code=201)

    async def socket(websocket: WebSocket) -> None:
        await _serve_socket(server(), websocket)

    routes: list[Any] = [
        Route("/", index),
        Route("/api/games", games),
        Route("/games/{name}.js", game_script),
        Route("/api/tables", tables, methods=["GET", "POST"]),
        Route("/api/tables/{table_id}", table),
        Route("/api/tables/{table_id}/replay", replay),
        Route("/api/tables/{table_id}/replay/{step}", replay_board),
        Route("/api/tables/{table_id}/seats/{seat}", claim, methods=["POST"]),
        WebSocketRoute("/ws", socket),
    ]
    if static.is_dir():
        routes.append(Mount("/static", app=StaticFiles(directory=str(static)), name="static"))
    return Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(_Guard, policy=policy)])
