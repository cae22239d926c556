"""The ASGI application: the HTTP API, the WebSocket endpoint, the static page.

>>> app = create_app(db=":memory:")     # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import dataclasses
import json
import logging
import math
import os
import secrets
import re
import time
import unicodedata
import importlib.resources
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any, Final, cast

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from .._position import shown
from ..decks import parse_deck
from ..errors import FourCardsError, InvalidStateError, InvalidTypeError, MissingExtraError
from ..games import BEST, GAMES, get_game
from ..hosting import HTTP_STATUS
from ..hosting.bots import checked_bot
from .admission import CLIENT_KEY, Admission, AdmissionMiddleware, Limits, OriginPolicy, Refusal, TokenBucket
from .compute import Compute
from .protocol import (Act, Event, Hint, Join, Ping, ProtocolError, Watch, error_message, parse_client_message,
                       text_problem, unstorable_text)
from .pgstore import Elsewhere, LeaseLost, PostgresStore, is_postgres_url
from .store import MIN_KEY_BYTES, SeatRecord, SharedStore, SQLiteStore, Store, StoredTable, TableRecord
from .tables import Table, TurnTable, dumps, event_types, hash_token, make_table, master_specs, rules_options

__all__ = ["create_app", "GameServer", "Limits", "DEFAULT_DB", "OriginPolicy", "Admission"]

log = logging.getLogger("fourcards.server")

DEFAULT_DB = "fourcards-server.db"
EVENTS = event_types
STATIC_DIR = Path(__file__).parent / "static"
MAX_INT_RULE = 100_000
#: Lower bounds for the rules that make a match longer without end in sight: every view
#: lists the match's past (each ask, each hand), so a seat's view and the replay grow
#: with them (100,000 asks: 335 ms of the event loop an action, 5 MB a state).
RULE_HIGHS: dict[str, int] = {"max_asks": 10_000, "hand_limit": 10_000}
MAX_DECK_CARDS = 1000
FINISHED_ELSEWHERE_KEPT = 64
"""Finished tables of other processes (a shared store) kept rebuilt for their replay's reads."""


# -- the server ------------------------------------------------------------------------------------

class GameServer:
    """Every table in memory, their store, the CPU for bots and hints (:class:`~.compute.Compute`),
    and the admission decisions (:class:`~.admission.Admission`, made from ``limits`` when not given)."""

    def __init__(self, store: Store, bot_delay: float, limits: Limits, admission: Admission | None = None,
                 key: bytes | None = None) -> None:
        self.store = store
        #: The server's signing key (its tables' snapshots; never sent to a client): given, else the
        #: one the store keeps (``Store.key()``), else a key of this process's own.
        self.key = key if key is not None else _store_key(store)
        self.bot_delay = bot_delay
        self.limits = limits
        self.admission = admission if admission is not None else Admission(limits)
        self.tables: dict[str, Table] = {}
        self.finished_elsewhere: dict[str, Table] = {}  # rebuilt from a shared store, oldest first
        self.executor = Compute(limits)
        #: The listing as last built (when, every public summary, the pages encoded since).
        self._listing: tuple[float, list[dict[str, Any]], dict[tuple[str | None, int, bool], bytes]] | None = None
        self._listing_lock = asyncio.Lock()
        #: New tables are made one at a time (their game built off the event loop, the limits
        #: checked and the table added under this lock).
        self._creating = asyncio.Lock()
        self.sweeper: asyncio.Task[None] | None = None
        #: Several processes share the store (PostgreSQL): tables are served under a lease (see docs/server.md).
        self.shared = bool(getattr(store, "shared", False))
        self.shared_store: SharedStore | None = cast(SharedStore, store) if self.shared else None
        self.leases: asyncio.Task[None] | None = None
        self._taking: dict[str, asyncio.Future[Table | None]] = {}  # takeovers running, by table
        self._summaries: dict[str, str] = {}  # table -> the summary last stored for the other processes
        self.takeovers = 0
        """Tables this process took over from the store (at start or from a stopped process)."""
        self.refused_messages: dict[str, int] = {}
        """WebSocket messages refused since the start, by error code."""
        self.failed_messages = 0
        """WebSocket messages that failed (a ``server_error``) since the start."""

    # -- life --------------------------------------------------------------------------------------
    def recover(self) -> None:
        """Load every stored table: restored from its snapshot, or replayed from its log when it
        has none (a shared store: none here; the lease sweep takes over the tables no live
        process holds)."""
        if self.shared:
            return
        began = time.monotonic()
        restored = 0
        for stored in self.store.load():
            table = self._rebuild(stored)
            if table is not None:
                self.tables[table.id] = table
                restored += bool(getattr(table, "restored", False))
        if self.tables:
            log.info("%d tables recovered in %.3f s (%d from their snapshot)", len(self.tables),
                     time.monotonic() - began, restored)

    def _rebuild(self, stored: StoredTable) -> Table | None:
        """A stored table's master: restored from its snapshot, else replayed from its log
        (a snapshot that does not load, say signed with another key, is replayed too); None
        when it no longer loads."""
        try:
            table = make_table(stored.table, self.store, self.executor, self.bot_delay, _load_deck_text, self.key)
            if isinstance(table, TurnTable) and stored.match is not None:
                try:
                    table.restore(stored.match)  # the log's message ids: read with the first action
                    return table
                except InvalidStateError as error:
                    log.warning("table %s: its snapshot does not load (%s): replaying its log", stored.table.id,
                                error)
                table = make_table(stored.table, self.store, self.executor, self.bot_delay, _load_deck_text, self.key)
                assert isinstance(table, TurnTable)
                table.replay(self.store.read_log(stored.table.id), stored.match.data)
            else:
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
        self.admission.sweep()

    async def drop(self, table: Table, reason: str) -> None:
        """Close a table (its clients told ``table_expired``) and forget it, here and in the store."""
        async with table.lock:
            if self.tables.get(table.id) is not table:
                return
            del self.tables[table.id]
            self._summaries.pop(table.id, None)
            self._listing = None
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
        if table is not None or not self.shared or not _TABLE_ID.fullmatch(table_id):
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
        table = await asyncio.to_thread(self._rebuild, found)
        if table is None:
            self._shared().release(table_id)
            return None
        self.tables[table_id] = table
        self.takeovers += 1
        table.start()
        await self._save_summary(table)
        log.info("table %s taken over in %.3f s (%s)", table_id, time.monotonic() - began,
                 "from its snapshot" if getattr(table, "restored", False) else "its log replayed")
        return table

    async def readable(self, table_id: str) -> Table | None:
        """The table to read (a summary, a replay): this process's master, or, when another
        process holds it, a master rebuilt from the store for this answer only (no lease taken)."""
        table = self.tables.get(table_id) or self.finished_elsewhere.get(table_id)
        if table is not None or not self.shared or not _TABLE_ID.fullmatch(table_id):
            return table
        stored = await self._shared().load_table(table_id)
        table = None if stored is None else await asyncio.to_thread(self._rebuild, stored)
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

    async def listing_page(self, limit: int, after: str | None, newest: bool = False) -> bytes:
        """One page of ``GET /api/tables`` as JSON: at most ``limit`` public tables in creation
        order (``newest``: the newest first) after the cursor ``after`` (a page's ``next``), the
        next page's cursor (null on the last page) and the number of tables listed. The listing
        is built at most every ``Limits.list_cache_seconds`` (and when a table is created or
        dropped here), each page encoded once meanwhile, however many clients ask."""
        async with self._listing_lock:
            cached = self._listing
            if cached is None or time.monotonic() - cached[0] >= self.limits.list_cache_seconds:
                tables = await self.listing()
                tables.sort(key=_listing_order)
                cached = self._listing = (time.monotonic(), tables, {})
        _, tables, pages = cached
        key = (after, limit, newest)
        page = pages.get(key)
        if page is not None:
            return page
        mark: tuple[float, str] | None = None
        if after is not None:
            created, _, table_id = after.partition(":")
            try:
                mark = (float(created), table_id)
            except ValueError:
                raise Refusal(400, "bad_request", f"'after' must be the 'next' of a page, not {after[:80]!r}") from None
        if newest:
            end = len(tables) if mark is None else bisect.bisect_left(tables, mark, key=_listing_order)
            start = max(0, end - limit)
            items = tables[start:end][::-1]
            more = start > 0
        else:
            start = 0 if mark is None else bisect.bisect_right(tables, mark, key=_listing_order)
            items = tables[start:start + limit]
            more = start + limit < len(tables)
        following = f"{items[-1]['created']!r}:{items[-1]['id']}" if more and items else None
        page = dumps({"tables": items, "next": following, "total": len(tables)}).encode()
        if len(pages) < 512:
            pages[key] = page
        return page

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

    def _first_expiry(self, creator: str | None) -> int:
        """Whole seconds until the sweep could first close an open table (of ``creator``, or
        any): the soonest idle deadline, then the next sweep. A hint for ``Retry-After``; a
        table that plays on keeps its slot."""
        now = time.monotonic()
        deadlines = [t.last_activity + self.limits.idle_seconds - now for t in self.tables.values()
                     if not t.terminal and (creator is None or t.creator == creator)]
        soonest = max(0.0, min(deadlines, default=0.0))
        return max(1, math.ceil(soonest + self.limits.sweep_every))

    async def table(self, table_id: str, invite: str | None = None) -> Table:
        """The table ``table_id``'s master here (taken over if need be: :meth:`master`), if
        ``invite`` opens it (a private table answers as if it did not exist)."""
        table = await self.master(table_id)
        if table is None or not table.invite_matches(invite):
            raise ProtocolError("unknown_table", f"no table has the id {shown(table_id)}")
        return table

    async def visible(self, table_id: str, invite: str | None) -> Table:
        """The table to read for the HTTP API (:meth:`readable`): 404 ``unknown_table`` when it is
        missing or private without its invite."""
        table = await self.readable(table_id)
        if table is None or not table.invite_matches(invite):
            raise Refusal(404, "unknown_table", f"no table has the id {shown(table_id)}")
        return table

    def allow_creation(self, address: str) -> None:
        """Take one table creation from the address's allowance (429 ``rate_limited`` when it is spent)."""
        self._take(self.admission.creations, address)

    def allow_claim(self, address: str) -> None:
        """Take one seat claim from the address's allowance (429 ``rate_limited`` when it is spent)."""
        self._take(self.admission.claims, address)

    def _take(self, limiter: Any, address: str) -> None:
        refusal = limiter.refusal(address)
        if refusal is not None:
            try:
                raise self.admission.count(refusal)
            finally:  # not kept by this frame, which its traceback holds: no cycle for the collector
                refusal = None

    async def create_table(self, body: Any, address: str = "") -> tuple[Table, str | None]:
        """A new table from a ``POST /api/tables`` body, and its invitation (a private table's)."""
        self.allow_creation(address)
        if not isinstance(body, dict):
            raise Refusal(400, "bad_request", "the body must be a JSON object")
        unknown = set(body) - {"game", "rules", "seats", "deck", "private"}
        if unknown:
            raise Refusal(400, "bad_request", f"unknown fields {sorted(unknown)}")
        private = body.get("private", False)
        if not isinstance(private, bool):
            raise Refusal(400, "bad_request", "'private' must be true or false")
        name = body.get("game")
        if not isinstance(name, str):
            raise Refusal(400, "bad_request", "'game' must be a game's name (see GET /api/games)")
        if name not in master_specs():
            try:
                name = get_game(name).name
            except FourCardsError:
                raise Refusal(404, "unknown_game", f"unknown game {name[:40]!r}; choose from "
                              f"{', '.join(entry['name'] for entry in games_catalogue())}") from None
        async with self._creating:
            if self.open_tables() >= self.limits.max_tables:
                raise Refusal(429, "too_many_tables", f"the server has {self.limits.max_tables} open tables",
                              {"retry_after": self._first_expiry(None)})
            mine = sum(1 for t in self.tables.values() if t.creator == address and not t.terminal)
            if mine >= self.limits.tables_per_client:
                raise Refusal(429, "too_many_tables", f"this address has {mine} open tables (at most "
                                 f"{self.limits.tables_per_client}): finish one or wait for it to expire",
                              {"retry_after": self._first_expiry(address)})
            rules = body.get("rules", {})
            if not isinstance(rules, dict):
                raise Refusal(400, "bad_rules", "'rules' must be an object")
            _check_rule_values(rules)
            deck_text = None
            if body.get("deck") is not None:
                if name in master_specs() or not get_game(name).game_class.deck_upload:
                    raise Refusal(400, "bad_deck", f"{name} takes no deck")
                try:
                    deck_text = json.dumps(body["deck"])
                    _load_deck_text(deck_text)
                except FourCardsError as error:
                    raise _refusal(error, "bad_deck") from None
            loop = asyncio.get_running_loop()
            # off the event loop: building a game (its rules checked) can take a second the first time
            players, rules = await loop.run_in_executor(None, _checked_rules, name, rules)
            seats = _checked_seats(name, body.get("seats"), players)
            invite = secrets.token_urlsafe(24) if private else None
            record = TableRecord(secrets.token_urlsafe(9), name, rules, secrets.randbits(62), seats, {}, deck_text,
                                 time.time(), private, None if invite is None else hash_token(invite))
            try:
                table = await loop.run_in_executor(None, make_table, record, self.store, self.executor,
                                                   self.bot_delay, _load_deck_text, self.key)
            except FourCardsError as error:
                raise _refusal(error, "bad_rules") from None
            except (TypeError, ValueError) as error:
                raise Refusal(400, "bad_rules", str(error)) from None
            first = None
            if isinstance(table, TurnTable):
                for seat, record_seat in enumerate(seats):
                    if record_seat.bot is not None:  # what a MatchService refuses, refused here too
                        try:
                            checked_bot(table.entry, table.game, record_seat.bot, seat)
                        except FourCardsError as error:
                            raise _refusal(error, "bad_seats") from None
                first = table.first_version()
            table.creator = address
            await self.store.create_table(record, first)
            self.tables[record.id] = table
            self._listing = None  # the new table is listed at once (the cache holds changes of seats and versions)
        table.start()
        if self.shared:
            await self._save_summary(table)
        return table, invite

    async def claim(self, table_id: str, seat: Any, body: Any, address: str = "") -> dict[str, Any]:
        self.allow_claim(address)
        if body is not None and not isinstance(body, dict):
            raise Refusal(400, "bad_request", "the body must be a JSON object (or empty)")
        try:
            table = await self.master(table_id)
        except ProtocolError as error:  # another process holds it
            raise Refusal(503, error.code, error.reason, error.details) from None
        if table is None:
            raise Refusal(404, "unknown_table", f"no table has the id {shown(table_id)}")
        invite = body.get("invite") if isinstance(body, dict) else None
        if not isinstance(invite, str) or len(invite) > 128:
            invite = None
        if not table.invite_matches(invite):
            raise Refusal(403, "bad_invite", f"table {table_id} is private: claiming a seat needs its invitation "
                             "('invite' in the body)")
        try:
            number = int(seat)
        except ValueError:
            raise Refusal(400, "bad_request", f"seat {shown(seat)} is not a number") from None
        if not 0 <= number < len(table.seats):
            raise Refusal(404, "unknown_seat", f"table {table_id} has seats 0..{len(table.seats) - 1}")
        name = ""
        if isinstance(body, dict) and body.get("name") is not None:
            name = _checked_name(body["name"], "'name'", "bad_request")
        token = secrets.token_urlsafe(32)
        try:
            await table.claim(number, name, hash_token(token))
        except ProtocolError:  # closed meanwhile
            raise Refusal(404, "unknown_table", f"no table has the id {shown(table_id)}") from None
        except LeaseLost:  # another process took the table over meanwhile
            raise Refusal(503, "table_elsewhere", f"another server process holds table {table_id} now: "
                             "try again", {"owner": None, "retry_after": 0}) from None
        except FourCardsError:
            raise Refusal(409, "seat_taken", f"seat {number} is a bot's or already claimed") from None
        return {"table": table_id, "seat": number, "token": token}


def _refusal(error: FourCardsError, code: str) -> Refusal:
    """The HTTP refusal of a library error, by its code (``code`` when it carries none more
    specific than ``bad_request``), with that code's status (:data:`fourcards.hosting.HTTP_STATUS`)."""
    found = getattr(error, "code", "bad_request")
    if found == "bad_request" or found not in HTTP_STATUS:
        found = code
    return Refusal(HTTP_STATUS.get(found, 400), found, str(error))


def _store_key(store: Any) -> bytes:
    """The signing key a store keeps (``key()``: beside an SQLite file, in a PostgreSQL
    database), else a random one for this process (its snapshots are then replayed after a
    restart)."""
    keeper = getattr(store, "key", None)
    if callable(keeper):
        key: bytes = keeper()
        return key
    log.warning("the store keeps no signing key and none was given: the tables' snapshots will not load "
                "after a restart (they are replayed from the log then)")
    return secrets.token_bytes(32)


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
                raise Refusal(400, "bad_rules", f"rule {key}={shown(value)} is beyond what any game's rules "
                                 f"take here (-1..{MAX_INT_RULE})")
            if key in RULE_HIGHS and value > RULE_HIGHS[key]:
                raise Refusal(400, "bad_rules", f"rule {key}={value} is beyond what this server takes "
                                 f"(at most {RULE_HIGHS[key]}: every view lists the match's past)")
        elif isinstance(value, float):
            if not math.isfinite(value) or not 0 <= value <= 60:
                raise Refusal(400, "bad_rules", f"rule {key}={value} is out of range")
        elif isinstance(value, str):
            if len(value) > 40:
                raise Refusal(400, "bad_rules", f"rule {key} is too long")
        elif isinstance(value, dict):
            if key != "deck" or not all(isinstance(k, str) and len(k) <= 4 and isinstance(v, int)
                                        and not isinstance(v, bool) and 0 <= v <= MAX_DECK_CARDS
                                        for k, v in value.items()) or sum(value.values()) > MAX_DECK_CARDS:
                raise Refusal(400, "bad_rules", f"rule {key} must map card shapes to counts "
                                 f"(at most {MAX_DECK_CARDS} cards)")
        else:
            raise Refusal(400, "bad_rules", f"rule {key} has a value of type {type(value).__name__}")


def _checked_rules(name: str, rules: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The number of seats and the rules to store (options as given, checked by the game)."""
    spec = master_specs().get(name)
    if spec is not None:
        try:
            return spec.check_rules(rules)
        except (FourCardsError, TypeError, ValueError) as error:
            raise Refusal(400, "bad_rules", str(error)) from None
    entry = get_game(name)
    known = {f.name for f in dataclasses.fields(entry.game_class.rules_type)}
    if set(rules) - known:
        raise Refusal(400, "bad_rules", f"unknown rules {sorted(set(rules) - known)}; {name} has {sorted(known)}")
    _check_server_ranges(entry.game_class.rules_type, rules)
    try:
        game = entry.new_game(**rules)
    except (FourCardsError, TypeError, ValueError) as error:
        raise Refusal(400, "bad_rules", str(error)) from None
    return game.num_players, dict(rules)


def _checked_seats(game: str, seats: Any, players: int) -> tuple[SeatRecord, ...]:
    if seats is None:
        return tuple(SeatRecord("human") for _ in range(players))
    if not isinstance(seats, list) or len(seats) != players:
        raise Refusal(400, "bad_seats", f"'seats' must list {players} seats")
    spec = master_specs().get(game)
    kinds = spec.bots if spec is not None else get_game(game).available_bots
    result = []
    for number, seat in enumerate(seats):
        if not isinstance(seat, dict):
            raise Refusal(400, "bad_seats", f"seat {number} must be an object")
        name = _checked_name(seat.get("name", ""), f"seat {number}: 'name'", "bad_seats")
        if seat.get("kind") == "human":
            result.append(SeatRecord("human", name))
        elif seat.get("kind") == "bot":
            kind = seat.get("bot")
            if kind == BEST and spec is None:  # the best bot that plays here, kept by its kind
                kind = get_game(game).kind_of(BEST)
            if kind not in kinds:
                choices = (*kinds, BEST) if spec is None else kinds
                raise Refusal(400, "bad_seats", f"seat {number}: 'bot' must be one of {', '.join(choices)}")
            result.append(SeatRecord("bot", name or f"{kind} bot", kind))
        else:
            raise Refusal(400, "bad_seats", f"seat {number}: 'kind' must be human or bot")
    return tuple(result)


def _server_high(option: dict[str, Any]) -> int:
    """The highest value of an int rule option this server takes (its own bound, else the game's)."""
    high: int = min(option["high"], RULE_HIGHS.get(option["name"], MAX_INT_RULE))
    return high


def _check_server_ranges(rules_type: type, rules: dict[str, Any]) -> None:
    """Refuse an int rule outside what this server takes where that is narrower than the game's own
    range, naming the server's range (``GET /api/games`` advertises it) rather than the engine's."""
    for option in rules_options(rules_type):
        value = rules.get(option["name"])
        if option["type"] != "int" or "high" not in option or type(value) is not int:
            continue
        low, high = option.get("low"), _server_high(option)
        if high < option["high"] and not ((low is None or low <= value) and value <= high):
            shown = f"{low}..{high}" if low is not None else f"at most {high}"
            raise Refusal(400, "bad_rules", f"rule {option['name']}={value} must be {shown} on this server "
                          f"(every view lists the match's past)")


def games_catalogue() -> list[dict[str, Any]]:
    """``GET /api/games``: every game with its facts, rule options and bots, then
    the tables its masters bring (a real-time mode), after their game."""
    result = []
    specs = master_specs()
    for name, entry in GAMES.items():
        cls = entry.game_class
        options = rules_options(cls.rules_type)
        for option in options:  # what this server takes: no int rule above MAX_INT_RULE (or RULE_HIGHS)
            if option["type"] == "int" and "high" in option:
                option["high"] = _server_high(option)
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

class WebSocketClient:
    """One connection: messages queued and written by its own task, in order."""

    def __init__(self, websocket: WebSocket, max_queued: int, max_queued_bytes: int = 4_000_000) -> None:
        self.websocket = websocket
        #: The protocol version the connection's join (or watch) named.
        self.protocol = 1
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.max_queued = max_queued
        #: Bytes queued and not yet written: a reader that falls behind by more is disconnected
        #: (a count of messages alone let a few large ones hold megabytes each).
        self.max_queued_bytes, self.queued_bytes = max_queued_bytes, 0
        self.closed = False
        self.later: asyncio.TimerHandle | None = None
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else dumps(message)
        if self.queue.qsize() >= self.max_queued or self.queued_bytes + len(text) > self.max_queued_bytes:
            self.close()
            return
        self.queued_bytes += len(text)
        self.queue.put_nowait(text)

    def send_later(self, message: dict[str, Any], delay: float) -> None:
        """``send`` after ``delay`` seconds (a refusal over a rate: a client looping on it waits
        for each answer); the connection's other messages go on meanwhile. One at a time: with
        one already waiting, this one is sent at once."""
        if delay <= 0 or self.later is not None:
            self.send(message)
            return
        self.later = asyncio.get_running_loop().call_later(delay, self._send_waiting, message)

    def _send_waiting(self, message: dict[str, Any]) -> None:
        self.later = None
        self.send(message)

    def replaced(self) -> None:
        self.send({"type": "error", "code": "replaced",
                   "reason": "another connection joined with this seat's token"})
        self.close()

    def close(self) -> None:
        if self.later is not None:
            self.later.cancel()
            self.later = None
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
                self.queued_bytes -= len(text)
                await self.websocket.send_text(text)
        except Exception:  # the peer went away
            self.closed = True


_CLOSES_UNJOINED = frozenset({"unknown_table", "bad_token", "too_many_spectators"})
"""A join or watch refused for one of these closes the connection at once (trying again on it is no use)."""


class ConnectionLog:
    """What one connection had refused or failed, counted, and logged once when it closes:
    a client sending the same bad message 20 times a second costs one log line, not 20
    tracebacks a second. The first unexpected failure is logged with its traceback."""

    def __init__(self, server: GameServer, address: str) -> None:
        self.server, self.address = server, address
        self.refused: dict[str, int] = {}
        self.failed = 0

    def refusal(self, code: str) -> None:
        self.refused[code] = self.refused.get(code, 0) + 1
        totals = self.server.refused_messages
        totals[code] = totals.get(code, 0) + 1

    def failure(self) -> None:
        self.failed += 1
        self.server.failed_messages += 1
        if self.failed == 1:
            log.exception("a message from %s failed (this connection's later failures are counted, "
                          "not logged)", self.address or "?")

    def close(self) -> None:
        if self.failed:
            log.warning("connection from %s closed: %d messages failed, %s", self.address or "?", self.failed,
                        self._refused() or "none refused")
        elif self.refused:
            log.info("connection from %s closed: %s", self.address or "?", self._refused())

    def _refused(self) -> str:
        if not self.refused:
            return ""
        parts = ", ".join(f"{code} {count}" for code, count in sorted(self.refused.items()))
        return f"{sum(self.refused.values())} messages refused ({parts})"


async def _serve_socket(server: GameServer, websocket: WebSocket) -> None:
    await websocket.accept()
    limits = server.limits
    client = WebSocketClient(websocket, limits.max_queued, limits.max_queued_bytes)
    bucket = TokenBucket(limits.rate, limits.burst)
    joined: tuple[Table, int | None] | None = None  # (table, seat); seat None: a spectator
    deadline = time.monotonic() + limits.join_timeout
    record = ConnectionLog(server, str(websocket.scope.get(CLIENT_KEY) or ""))
    try:
        while not client.closed:
            try:
                if joined is None:
                    frame = await asyncio.wait_for(websocket.receive(), max(0.0, deadline - time.monotonic()))
                else:
                    frame = await websocket.receive()
            except asyncio.TimeoutError:
                record.refusal("not_joined")
                client.send({"type": "error", "code": "not_joined",
                             "reason": f"no join (or watch) within {limits.join_timeout:g} s: closed"})
                client.close()
                break
            if frame["type"] == "websocket.disconnect":
                break
            raw = frame.get("text")
            if raw is None:
                raw = frame.get("bytes") or b""
            if not bucket.take():
                record.refusal("rate_limited")
                limited = ProtocolError("rate_limited", f"at most {limits.rate:g} messages a second "
                                        f"(bursts of {limits.burst:g}); this one was dropped: send it again",
                                        _message_id(raw), {"retry_after": round(max(0.01, bucket.wait()), 2)})
                client.send_later(error_message(limited), _refusal_wait(limited, limits))
                continue
            try:
                message = parse_client_message(raw, EVENTS())
                joined = await _handle(server, client, joined, message)
            except ProtocolError as error:
                record.refusal(error.code)
                if error.code == "rate_limited":  # a hint over its seat's rate, or one still computed
                    client.send_later(error_message(error), _refusal_wait(error, limits))
                else:
                    client.send(error_message(error))
                # table_elsewhere: the client connects again (elsewhere); a refused join: no use going on
                if error.code == "table_elsewhere" or (joined is None and error.code in _CLOSES_UNJOINED):
                    client.close()
            except Exception:
                record.failure()
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
        record.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.writer, 5)


def _refusal_wait(error: ProtocolError, limits: Limits) -> float:
    """Seconds a WebSocket's ``rate_limited`` error waits: ``refusal_delay``, or its
    ``retry_after`` when that is sooner (a hint still computed: a moment)."""
    retry = error.details.get("retry_after")
    if isinstance(retry, (int, float)) and not isinstance(retry, bool):
        return max(0.0, min(limits.refusal_delay, float(retry)))
    return limits.refusal_delay


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
            raise ProtocolError("unknown_table", f"no table has the id {shown(message.table)}")
        table = found
        if seat is None:
            raise ProtocolError("bad_token", f"the token is not the token of a seat at table {table.id}")
        client.protocol = message.protocol
        table.attach(seat, client)
        return (table, seat)
    if isinstance(message, Watch):
        table = await server.table(message.table, message.invite)
        if len(table.spectators) >= server.limits.max_spectators:
            raise ProtocolError("too_many_spectators", f"table {table.id} has {server.limits.max_spectators} "
                                "spectators already")
        client.protocol = message.protocol
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
        signature = ("event", message.type, message.version, message.fields)
        table.retried(seat, message.id, signature)  # id_reused when the id stood for another event
        await table.event(seat, message, client)
        table.remember(seat, message.id, signature)
    elif isinstance(message, Hint):
        refusal = server.admission.hints.refusal((table.id, seat))
        if refusal is not None:
            raise ProtocolError("rate_limited", refusal.reason, message.id, {"retry_after": refusal.retry_after})
        await table.hint(seat, message.id, client)
    return joined


# -- HTTP -------------------------------------------------------------------------------------------

def _refused(refusal: Refusal) -> Response:
    """The JSON answer of a refusal (with ``Retry-After`` when waiting helps)."""
    headers = {name.decode(): value.decode() for name, value in refusal.headers() if name != b"content-type"}
    return JSONResponse(refusal.body(), status_code=refusal.status, headers=headers)


async def _refused_after(refusal: Refusal, admission: Admission, client: str) -> Response:
    """:func:`_refused`, after :meth:`Admission.wait_refusal` for a refusal over a rate (the
    client's connection held meanwhile: a client looping on a limited route waits for each)."""
    await admission.wait_refusal(refusal, client)
    return _refused(refusal)


async def _body(request: Request, limit: int) -> Any:
    declared = request.headers.get("content-length", "")
    if re.fullmatch(r"[0-9]{1,30}", declared) and int(declared) > limit:  # at once, not at its body deadline
        raise Refusal(413, "too_large", f"the body is longer than {limit} bytes")
    size = 0
    chunks = []
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise Refusal(413, "too_large", f"the body is longer than {limit} bytes")
            chunks.append(chunk)
    except ClientDisconnect:  # gone before its body was in (or cut off for sending it too slowly)
        raise Refusal(400, "bad_request", "the connection closed before the whole body arrived") from None
    data = b"".join(chunks)
    if not data:
        return None
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError) as error:
        raise Refusal(400, "bad_json", f"the body is not JSON: {error}") from None
    problem = unstorable_text(parsed)
    if problem is not None:  # refused here, before any of it reaches a table or a store
        raise Refusal(400, "bad_request", f"{problem}: text the server cannot store")
    return parsed


def _listing_order(summary: dict[str, Any]) -> tuple[float, str]:
    return (float(summary.get("created") or 0.0), str(summary.get("id")))


_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id may be (they are ``secrets.token_urlsafe``): anything else names no table."""


#: Characters that turn or hide text around them (bidirectional controls, a zero-width
#: space): in a name they make it read as another seat's.
_SPOOFING: Final = frozenset("\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _checked_name(value: Any, what: str, code: str) -> str:
    """A seat's name: a string of at most 40 characters, none of them a control character,
    a character that turns or hides the text around it, or a noncharacter."""
    if not isinstance(value, str) or len(value) > 40:
        raise Refusal(400, code, f"{what} must be a string of at most 40 characters")
    problem = text_problem(value)
    if problem is None and any(unicodedata.category(char) == "Cc" for char in value):
        problem = "a control character"
    if problem is None and any(char in _SPOOFING for char in value):
        problem = "a character that reorders or hides text (a bidirectional control or a zero-width space)"
    if problem is None and any(0xFDD0 <= ord(char) <= 0xFDEF or ord(char) & 0xFFFE == 0xFFFE for char in value):
        problem = "a noncharacter"
    if problem is not None:
        raise Refusal(400, code, f"{what} holds {problem}")
    return value


def _check_db(db: object) -> None:
    """``db`` a file path or a PostgreSQL URL whose driver is installed, found when the app is
    made, not when it starts (``mysql://host/db`` became SQLite files in ``./mysql:/host/``)."""
    if db is None:
        return
    if not isinstance(db, (str, os.PathLike)):
        raise InvalidTypeError(f"db is a file path or a postgresql:// URL, not {type(db).__name__}")
    text = os.fspath(db)
    if not isinstance(text, str):
        raise InvalidTypeError("db is a file path or a postgresql:// URL, not bytes")
    if is_postgres_url(text):
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise MissingExtraError.of("psycopg", "postgres", "a PostgreSQL database") from None
    elif re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", text):
        scheme = text.partition("://")[0]
        raise FourCardsError(f"db: {shown(scheme)}:// is not a database this server takes: a postgresql:// "
                             "URL, or an SQLite file's path")


def create_app(db: str | os.PathLike[str] | None = None, *, store: Store | None = None,
               static_dir: str | os.PathLike[str] | None = None, bot_delay: float = 0.3,
               max_tables: int = 1000, limits: Limits | None = None,
               allow_origins: Iterable[str] = (), lease_seconds: float = 5.0,
               advertise: str | None = None, forwarded_allow_ips: Iterable[str] = (),
               admission: Admission | None = None, key: str | bytes | None = None) -> Starlette:
    """The game server as a Starlette (ASGI) application.

    ``db``: the SQLite file (default ``fourcards-server.db``); ``store``: any
    :class:`~fourcards.server.store.Store` instead; ``static_dir``: the web
    page's folder (default: the one shipped); ``bot_delay``: seconds a bot
    waits before acting; ``limits``: :class:`Limits`; ``allow_origins``: the
    origins (``https://host[:port]``) whose pages may use the server besides its
    own host's (:class:`OriginPolicy`); ``forwarded_allow_ips``: the reverse
    proxies (addresses, networks, or ``*``) whose ``X-Forwarded-For`` is
    trusted (none by default); ``admission``: an
    :class:`~fourcards.server.admission.Admission` made of these instead (the
    one ``fourcards serve`` shares with its HTTP server). ``db`` may be a
    PostgreSQL URL (``postgresql://user@host:port/db``, the ``postgres`` extra):
    several processes may then share it, each table held by one of them under a
    lease of ``lease_seconds``; ``advertise`` is this process's URL, told to
    clients that ask it for a table another process holds (see ``docs/server.md``).
    ``key``: the server's secret signing key (at least 16 bytes), which signs the
    tables' snapshots (a table is restored from its snapshot only when it carries
    this key's signature; never sent to a client); default: the one the store keeps
    (beside the SQLite file, ``PATH.key``, or in the PostgreSQL database), made on
    first use."""
    if not isinstance(bot_delay, (int, float)) or isinstance(bot_delay, bool):
        raise InvalidTypeError(f"bot_delay must be a number of seconds, not {type(bot_delay).__name__}")
    if not 0 <= bot_delay <= 60:  # NaN fails too
        raise FourCardsError(f"bot_delay={bot_delay!r} must be 0 to 60 seconds")
    if key is not None and not isinstance(key, (str, bytes)):
        raise InvalidTypeError(f"the server's key is str or bytes, not {type(key).__name__}")
    secret = None if key is None else (key.encode("utf-8", "surrogatepass") if isinstance(key, str) else key)
    if secret is not None and len(secret) < MIN_KEY_BYTES:
        raise FourCardsError(f"the server's key has {len(secret)} bytes: it needs at least {MIN_KEY_BYTES}")
    _check_db(db)
    if admission is None:
        admission = Admission(limits if limits is not None else Limits(max_tables=max_tables), allow_origins,
                              forwarded_allow_ips)
    limits = admission.limits
    gate = admission
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    holder: dict[str, GameServer] = {}

    def server() -> GameServer:
        found = holder.get("server")
        if found is None:
            raise _NotStarted()
        return found

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        backing: Store
        if store is not None:
            backing = store
        elif is_postgres_url(db):
            backing = await asyncio.to_thread(PostgresStore, str(db), lease_seconds=lease_seconds, address=advertise)
        else:
            backing = SQLiteStore(db if db is not None else DEFAULT_DB)
        signing = secret if secret is not None else await asyncio.to_thread(_store_key, backing)
        game_server = GameServer(backing, bot_delay, limits, gate, signing)
        game_server.recover()
        holder["server"] = game_server
        app.state.server = game_server
        game_server.start()
        try:
            yield
        finally:
            game_server.stop()

    def address(request: Request) -> str:
        return gate.client(request.scope)

    async def index(request: Request) -> Response:
        page = static / "index.html"
        if not page.is_file():
            return _refused(Refusal(404, "not_found", "no page is installed"))
        return FileResponse(page)

    async def games(request: Request) -> Response:
        return JSONResponse({"games": games_catalogue()})

    async def game_script(request: Request) -> Response:
        body = page_script(request.path_params["name"])
        if body is None:
            return _refused(Refusal(404, "not_found", "this game has no page script"))
        return Response(body, media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    async def tables(request: Request) -> Response:
        try:
            if request.method in ("GET", "HEAD"):  # Starlette routes HEAD with GET: never a create
                server()._take(gate.listings, address(request))
                limit = _query_int(request, "limit", limits.list_page, limits.list_page_max)
                after = request.query_params.get("after")
                order = request.query_params.get("order", "oldest")
                if order not in ("oldest", "newest"):
                    raise Refusal(400, "bad_request", f"'order' must be oldest or newest, not {order[:40]!r}")
                page = await server().listing_page(limit, after, order == "newest")
                return Response(page, media_type="application/json")
            table, invite = await server().create_table(await _body(request, limits.max_body), address(request))
        except Refusal as refusal:
            return await _refused_after(refusal, gate, address(request))
        answer = table.summary()
        if invite is not None:
            answer["invite"] = invite
        return JSONResponse(answer, status_code=201)

    async def table(request: Request) -> Response:
        try:
            found = await server().visible(request.path_params["table_id"], request.query_params.get("invite"))
        except Refusal as refusal:
            return _refused(refusal)
        return JSONResponse(found.summary())

    async def finished(request: Request) -> Table:
        """The finished table a replay request names (404 when unknown, or private without its
        invitation; 409 ``not_finished`` while it is played)."""
        found = await server().visible(request.path_params["table_id"], request.query_params.get("invite"))
        if not found.terminal:
            raise Refusal(409, "not_finished", f"table {found.id} is still being played (version {found.version})")
        return found

    async def replay(request: Request) -> Response:
        try:
            found = await finished(request)
        except Refusal as refusal:
            return _refused(refusal)
        return Response(found.replay_text(), media_type="application/json")

    async def replay_board(request: Request) -> Response:
        text = request.path_params["step"]
        try:
            found = await finished(request)
            if not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) > found.version:
                raise Refusal(400, "bad_request", f"step {text[:40]!r} must be a whole number from 0 to "
                              f"{found.version}, the match's length")
            board = found.board_text(int(text))
            if board is None:
                raise Refusal(404, "no_boards", f"a {found.record.game} table's replay has records, not boards")
        except Refusal as refusal:
            return _refused(refusal)
        return Response(board, media_type="application/json")

    async def claim(request: Request) -> Response:
        try:
            body = await _body(request, 4096)
            answer = await server().claim(request.path_params["table_id"], request.path_params["seat"], body,
                                          address(request))
        except Refusal as refusal:
            return await _refused_after(refusal, gate, address(request))
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
    async def no_route(request: Request, error: Exception) -> Response:  # 404 and 405 in the API's JSON shape
        status = getattr(error, "status_code", 404)
        if status == 405:
            return _refused(Refusal(405, "bad_request", f"{request.method} is not a method of {shown(request.url.path)}"))
        return _refused(Refusal(404, "not_found", f"nothing is at {shown(request.url.path)}"))

    async def not_started(request: Request, error: Exception) -> Response:
        return _refused(Refusal(503, "server_error", _NotStarted.reason))

    app = Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(AdmissionMiddleware, admission=gate)],
                    exception_handlers={404: no_route, 405: no_route, _NotStarted: not_started})
    app.state.admission = gate
    return app


class _NotStarted(Exception):
    """A request before the app's lifespan started it: a mounted app whose host did not
    run the mounted app's lifespan (Starlette runs only the outer app's)."""

    reason = ("the fourcards server has not started: an app that mounts it must run its lifespan "
              "(Starlette(routes=[Mount('/cards', app=cards)], lifespan=cards.router.lifespan_context))")


def _query_int(request: Request, name: str, default: int, high: int) -> int:
    """A whole-number query parameter from 1 to ``high`` (``default`` when it is missing)."""
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 9 or not 1 <= int(text) <= high:
        raise Refusal(400, "bad_request", f"'{name}' must be a whole number from 1 to {high}, not {text[:40]!r}")
    return int(text)
