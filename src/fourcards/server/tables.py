"""Table masters: one authoritative owner of each table's state.

A master checks and applies every action (a person's or a bot's), has the
store write it, and only then acknowledges it and sends every connected seat
its own view. :class:`TurnTable` runs the turn games on the engine contract;
:class:`SpeedsterMaster` runs Zangle Speedster in real time.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import importlib
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, Protocol

from ..engine import Bot, Game, State
from ..errors import FourCardsError, IllegalMoveError, NotYourTurnError, StaleActionError
from ..games import GameEntry, get_game
from .protocol import Act, Call, Hit, ProtocolError, parse_zangle_text
from .store import LogEntry, SeatRecord, Store, TableRecord
from .views import plain, deck_view, observation_view, record_view, speedster_view

__all__ = ["Client", "Table", "TurnTable", "SpeedsterMaster", "hash_token", "HISTORY_TAIL", "SPEEDSTER"]

log = logging.getLogger("fourcards.server")

HISTORY_TAIL = 20
"""How many of the latest public records a ``state`` message carries."""
SPEEDSTER = "zangle-speedster"
RESOLVE_EVERY = 0.05
"""Seconds between two Speedster resolutions."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Client(Protocol):
    """A connection a master sends to (queued, never blocking the master)."""

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict, or its JSON text already encoded)."""

    def replaced(self) -> None: ...


_PURE_ACTION_TEXTS = frozenset({"gang-of-four"})
"""Games whose action texts depend on the action code only (not on the state): cached for good."""
_ACTION_TEXTS: dict[tuple[str, int], dict[int, str]] = {}
_LEGAL_JSON: dict[tuple[str, int], dict[int, str]] = {}


def _new_records(state: State[Any], last: Any, limit: int) -> list[Any]:
    """The records appended after ``last`` (at most ``limit``, the newest), oldest first,
    walking the state's linked log (see :func:`fourcards.engine.unroll`) only that far."""
    items: list[Any] = []
    node = getattr(state, "_log", None)
    while node is not None and node[0] is not last and len(items) < limit:
        items.append(node[0])
        node = node[1]
    items.reverse()
    return items


class Table:
    """What every table shares: identity, seats, connections, one lock."""

    def __init__(self, record: TableRecord, store: Store, executor: Executor, bot_delay: float) -> None:
        self.record = record
        self.id = record.id
        self.seats = list(record.seats)
        self.store = store
        self.executor = executor
        self.bot_delay = bot_delay
        self.lock = asyncio.Lock()
        self.clients: dict[int, Client] = {}
        self.applied: list[dict[str, int]] = [{} for _ in self.seats]
        self.tasks: set[asyncio.Task[Any]] = set()
        self.closed = False

    # -- to override --------------------------------------------------------------------------
    @property
    def version(self) -> int:
        raise NotImplementedError

    @property
    def terminal(self) -> bool:
        raise NotImplementedError

    def state_message(self, seat: int) -> dict[str, Any]:
        raise NotImplementedError

    def end_message(self) -> dict[str, Any]:
        raise NotImplementedError

    def public_status(self) -> dict[str, Any]:
        raise NotImplementedError

    def start(self) -> None:
        """Begin whatever runs by itself (bots, the Speedster clock)."""

    def deck(self) -> dict[str, Any] | None:
        return None

    def rules(self) -> dict[str, Any]:
        """Every rule of the table (the options given and the defaults)."""
        return dict(self.record.rules)

    # -- shared --------------------------------------------------------------------------------
    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("table %s: background task failed", self.id, exc_info=task.exception())

    def close(self) -> None:
        self.closed = True
        for task in list(self.tasks):
            task.cancel()

    def seat_of(self, token: str) -> int | None:
        digest = hash_token(token)
        found = None
        for seat, record in enumerate(self.seats):
            if record.token_hash is not None and hmac.compare_digest(record.token_hash, digest):
                found = seat
        return found

    def seats_view(self) -> list[dict[str, Any]]:
        return [{"kind": s.kind, "name": s.name, "bot": s.bot, "taken": s.kind == "bot" or s.token_hash is not None}
                for s in self.seats]

    def summary(self) -> dict[str, Any]:
        data = {"id": self.id, "game": self.record.game, "title": _title(self.record.game),
                "rules": self.rules(), "seats": self.seats_view(), "created": self.record.created}
        data.update(self.public_status())
        return data

    def welcome(self, seat: int) -> dict[str, Any]:
        return {"type": "welcome", "table": self.id, "seat": seat, "game": self.record.game,
                "title": _title(self.record.game), "rules": self.rules(), "seats": self.seats_view(),
                "deck": self.deck()}

    def attach(self, seat: int, client: Client) -> None:
        old = self.clients.get(seat)
        self.clients[seat] = client
        if old is not None and old is not client:
            old.replaced()
        client.send(self.welcome(seat))
        client.send(self.state_text(seat))
        if self.terminal:
            client.send(self.end_message())

    def detach(self, seat: int, client: Client) -> None:
        if self.clients.get(seat) is client:
            del self.clients[seat]

    def state_text(self, seat: int) -> str:
        """``state_message(seat)`` as JSON text."""
        return dumps(self.state_message(seat))

    def broadcast(self) -> None:
        for seat, client in list(self.clients.items()):
            client.send(self.state_text(seat))
        if self.terminal:
            end = self.end_message()
            for client in list(self.clients.values()):
                client.send(end)

    async def claim(self, seat: int, name: str, token_hash: str) -> None:
        async with self.lock:
            record = self.seats[seat]
            if record.kind != "human" or record.token_hash is not None:
                raise FourCardsError(f"seat {seat} is not free")
            new = SeatRecord("human", name or record.name, None, token_hash)
            await self.store.set_seat(self.id, seat, new)
            self.seats[seat] = new

    def _repeat(self, seat: int, message_id: str) -> int | None:
        return self.applied[seat].get(message_id)


def _title(game: str) -> str:
    return "Zangle Speedster" if game == SPEEDSTER else get_game(game).title


# -- turn games -----------------------------------------------------------------------------------

class TurnTable(Table):
    """A turn game on the engine contract (every game but Speedster)."""

    def __init__(self, record: TableRecord, store: Store, executor: Executor, bot_delay: float,
                 game: Game[Any], entry: GameEntry) -> None:
        super().__init__(record, store, executor, bot_delay)
        self.entry = entry
        self.game = game
        self.state: State[Any] = game.new_match(record.seed, **record.setup)
        self.bots: dict[int, Bot] = {}
        for seat, seat_record in enumerate(self.seats):
            if seat_record.kind == "bot" and seat_record.bot is not None:
                self.bots[seat] = entry.new_bot(seat_record.bot, game, seed=(record.seed + 7919 * (seat + 1)) % 2**63)
        self._bot_running = False
        self.step = 0  # the state's version (``state.step``, kept here: the engine's is O(length))
        self._records: list[dict[str, Any]] = []  # views of the latest public records
        self._record_texts: list[str] = []  # the same, each encoded once
        self._last_record: Any = None
        self._history_json = "[]"
        self._texts: dict[int, str] = {}  # seat -> its state message of this version, encoded
        self._legal_cache: list[tuple[int, str]] | None = None
        self._legal_version = -1
        self._update_history()

    def replay(self, entries: list[LogEntry]) -> None:
        """Apply a stored log (at start)."""
        for entry in entries:
            assert entry.action is not None
            self.state.apply(entry.action, entry.seat, expected_step=entry.index)
            self.step += 1
            if entry.client_id is not None:
                self.applied[entry.seat][entry.client_id] = entry.index + 1
        self._changed()
        self._update_history()

    @property
    def version(self) -> int:
        return self.step

    @property
    def terminal(self) -> bool:
        return self.state.is_terminal

    def rules(self) -> dict[str, Any]:
        data: dict[str, Any] = plain(dataclasses.asdict(self.game.rules))
        if self.entry.name == "zangle":
            data["deck"] = dict(self.game.rules.deck)
        return data

    def deck(self) -> dict[str, Any] | None:
        deck = getattr(self.game, "deck", None)
        return None if deck is None else deck_view(deck)

    def _update_history(self) -> None:
        """Bring the public history tail (shared by every seat, encoded once) up to date."""
        new = _new_records(self.state, self._last_record, HISTORY_TAIL)
        if new:
            self._last_record = new[-1]
            views = [record_view(r) for r in new]
            self._records = (self._records + views)[-HISTORY_TAIL:]
            self._record_texts = (self._record_texts + [dumps(v) for v in views])[-HISTORY_TAIL:]
            self._history_json = "[" + ",".join(self._record_texts) + "]"

    def state_message(self, seat: int) -> dict[str, Any]:
        message = self._state_head(seat)
        message["legal_actions"] = [{"action": code, "text": text} for code, text in self._legal(seat)]
        message["scores"] = list(self.state.scores)
        message["history"] = self._records
        return message

    def state_text(self, seat: int) -> str:
        """The seat's ``state`` message as JSON, built once a version (a reconnect reuses it)."""
        cached = self._texts.get(seat)
        if cached is not None:
            return cached
        observation = self.state.observation(seat)
        legal = self._legal(seat, observation)
        if legal and self.entry.name in _PURE_ACTION_TEXTS:
            key = (self.entry.name, self.game.num_distinct_actions)
            known = _LEGAL_JSON.setdefault(key, {})
            items = []
            for code, text in legal:
                item = known.get(code)
                if item is None:
                    item = known[code] = dumps({"action": code, "text": text})
                items.append(item)
            legal_json = "[" + ",".join(items) + "]"
        else:
            legal_json = dumps([{"action": code, "text": text} for code, text in legal])
        # The history is the same for every seat: spliced in, encoded once a version.
        text = (dumps(self._state_head(seat, observation))[:-1] + ',"legal_actions":' + legal_json + ',"scores":'
                + dumps(list(self.state.scores)) + ',"history":' + self._history_json + "}")
        self._texts[seat] = text
        return text

    def _legal(self, seat: int, observation: Any = None) -> list[tuple[int, str]]:
        """The seat's legal actions with their texts (none when it is not the seat's turn)."""
        state = self.state
        if seat != state.current_player:
            return []
        if self._legal_version == self.step and self._legal_cache is not None:
            return self._legal_cache
        codes = getattr(observation, "legal_actions", None) or state.legal_actions()
        texts = _ACTION_TEXTS.setdefault((self.entry.name, self.game.num_distinct_actions), {}) \
            if self.entry.name in _PURE_ACTION_TEXTS else {}
        legal = []
        for a in codes:
            code = int(a)
            text = texts.get(code)
            if text is None:
                text = state.action_to_string(code)
                if self.entry.name in _PURE_ACTION_TEXTS:
                    texts[code] = text
            legal.append((code, text))
        self._legal_version, self._legal_cache = self.step, legal
        return legal

    def _changed(self) -> None:
        """The state changed: forget what was built for the last version."""
        self._texts.clear()
        self._legal_cache = None
        self._legal_version = -1

    def _state_head(self, seat: int, observation: Any = None) -> dict[str, Any]:
        state = self.state
        if observation is None:
            observation = state.observation(seat)
        return {"type": "state", "table": self.id, "seat": seat, "version": self.step,
                "current_player": state.current_player, "terminal": state.is_terminal,
                "view": observation_view(self.entry.name, observation)}

    def end_message(self) -> dict[str, Any]:
        state = self.state
        return {"type": "end", "table": self.id, "version": self.step, "winners": list(state.winners),
                "scores": list(state.scores), "returns": list(state.returns())}

    def public_status(self) -> dict[str, Any]:
        state = self.state
        return {"version": self.step, "current_player": state.current_player, "terminal": state.is_terminal,
                "winners": list(state.winners), "scores": list(state.scores)}

    def start(self) -> None:
        self.schedule_bots()

    # -- acting ------------------------------------------------------------------------------------
    async def act(self, seat: int, message: Act, client: Client) -> None:
        # Shielded: once the action is applied, it is stored and shown even if the
        # connection that sent it goes away meanwhile.
        await asyncio.shield(self._act(seat, message, client))

    async def _act(self, seat: int, message: Act, client: Client) -> None:
        async with self.lock:
            done = self._repeat(seat, message.id)
            if done is not None:
                client.send({"type": "ack", "id": message.id, "version": done})
                return
            await self._apply(seat, message.action, message.version, message.id)
            client.send({"type": "ack", "id": message.id, "version": self.step})
            self.broadcast()
        self.schedule_bots()

    async def _apply(self, seat: int, action: int, version: int, message_id: str | None) -> None:
        """Check, apply, store (the lock is held); raises ProtocolError and changes nothing."""
        state = self.state
        if state.is_terminal:
            raise ProtocolError("game_over", f"the match is over (version {self.step})", message_id)
        if action >= self.game.num_distinct_actions:
            raise ProtocolError("illegal_action", f"{action} is not an action of this game "
                                f"(0..{self.game.num_distinct_actions - 1})", message_id)
        if version != self.step:  # what apply(expected_step=) checks, without its O(length) step
            raise ProtocolError("stale", f"action {action} was chosen at version {version}, but the match is "
                                f"at version {self.step}", message_id)
        try:
            state.apply(action, seat)
        except StaleActionError as error:
            raise ProtocolError("stale", str(error), message_id) from None
        except NotYourTurnError as error:
            raise ProtocolError("not_your_turn", str(error), message_id) from None
        except (IllegalMoveError, FourCardsError) as error:
            raise ProtocolError("illegal_action", str(error), message_id) from None
        except (TypeError, ValueError, IndexError) as error:
            raise ProtocolError("illegal_action", f"{action} is not an action of this game: {error}",
                                message_id) from None
        index = self.step
        self.step += 1
        self._changed()
        try:
            await self.store.append(self.id, LogEntry(index, seat, message_id, action))
        except BaseException:
            # Not stored: take the action back (replay without it) and refuse it.
            actions = state.actions[:-1]
            self.state = self.game.replay(self.record.seed, actions, **self.record.setup)
            self.step -= 1
            self._changed()
            self._records, self._record_texts, self._last_record = [], [], None
            self._update_history()
            log.exception("table %s: storing action %d failed", self.id, index)
            raise ProtocolError("server_error", "the action could not be stored; nothing changed",
                                message_id) from None
        if message_id is not None:
            self.applied[seat][message_id] = self.step
        self._update_history()

    async def hint(self, seat: int, message_id: str | None, client: Client) -> None:
        async with self.lock:
            state = self.state
            if state.is_terminal:
                raise ProtocolError("game_over", "the match is over", message_id)
            if state.current_player != seat:
                raise ProtocolError("not_your_turn", f"it is seat {state.current_player}'s turn", message_id)
            version = self.step
            observation = state.observation(seat)
            legal = state.legal_actions()
            kind = self.entry.hint_bot
            options = {"time_per_move": 0.2} if kind == "search" else {}
            bot = self.entry.new_bot(kind, self.game, seed=version, **options)
        loop = asyncio.get_running_loop()
        action = await loop.run_in_executor(self.executor, bot.choose, observation, legal)
        message: dict[str, Any] = {"type": "hint", "version": version, "action": action,
                                   "text": self.state.action_to_string(action)}
        if message_id is not None:
            message["id"] = message_id
        client.send(message)

    # -- bots ----------------------------------------------------------------------------------------
    def schedule_bots(self) -> None:
        if self.closed or self._bot_running or self.state.is_terminal:
            return
        if self.state.current_player in self.bots:
            self._bot_running = True
            self.spawn(self._bot_turns())

    async def _bot_turns(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while not self.closed:
                if self.bot_delay > 0:
                    await asyncio.sleep(self.bot_delay)
                async with self.lock:
                    state = self.state
                    seat = state.current_player
                    if state.is_terminal or seat not in self.bots:
                        return
                    version = self.step
                    observation = state.observation(seat)
                    legal = state.legal_actions()
                action = await loop.run_in_executor(self.executor, self.bots[seat].choose, observation, legal)
                async with self.lock:
                    if self.step != version:
                        continue
                    try:
                        await self._apply(seat, int(action), version, None)
                    except ProtocolError as error:
                        log.error("table %s: bot at seat %d failed: %s", self.id, seat, error)
                        return
                    self.broadcast()
        finally:
            self._bot_running = False


# -- Speedster ---------------------------------------------------------------------------------------

class SpeedsterMaster(Table):
    """Zangle Speedster in real time: events stamped on arrival, resolved every 50 ms."""

    def __init__(self, record: TableRecord, store: Store, executor: Executor, bot_delay: float) -> None:
        from ..zangle.speedster import SpeedsterTable

        super().__init__(record, store, executor, bot_delay)
        rules = record.rules
        deck = dict(rules["deck"]) if rules.get("deck") else None
        self.table = SpeedsterTable(players=rules["players"], seed=record.seed, rounds=rules["rounds"],
                                    check=rules["check"], deck=deck)
        self.reaction = float(rules.get("bot_reaction", 1.5))
        self.bot_kinds = {seat: s.bot for seat, s in enumerate(self.seats) if s.kind == "bot"}
        self.entries = 0
        self._base = 0.0
        self._started = time.monotonic()
        self._version_seen = -1

    def now(self) -> float:
        """The table's clock: seconds of play (it stands still while the server is down)."""
        return self._base + (time.monotonic() - self._started)

    def replay(self, entries: list[LogEntry]) -> None:
        latest = 0.0
        for entry in entries:
            event = entry.event
            assert event is not None
            zangle = self._zangle(event["zangle"], None) if event["kind"] == "call" else None
            self.table.submit(entry.seat, event["kind"], event["timestamp"], zangle)
            latest = max(latest, float(event["timestamp"]))
            if entry.client_id is not None:
                self.applied[entry.seat][entry.client_id] = entry.index + 1
        self.entries = len(entries)
        self.table.resolve(latest)
        self._base = latest
        self._started = time.monotonic()

    @property
    def version(self) -> int:
        return len(self.table.outcomes)

    @property
    def terminal(self) -> bool:
        return bool(self.table.over)

    def _zangle(self, text: str, message_id: str | None) -> Any:
        from ..zangle.cards import CENTRE, OWN, Zangle, kind_code

        (target, place), pieces = parse_zangle_text(text)
        places = {"centre": CENTRE, "own": OWN}
        try:
            return Zangle(kind_code(target), places[place],
                          tuple(sorted((kind_code(k), places[p]) for k, p in pieces)))
        except FourCardsError as error:
            raise ProtocolError("bad_message", str(error), message_id) from None

    def state_message(self, seat: int) -> dict[str, Any]:
        from ..zangle.cards import find_zangles

        snapshot = self.table.snapshot()
        zangles = find_zangles(snapshot.centre, snapshot.cards[seat]) if seat in snapshot.playing else []
        history = [{"kind": o.kind, "player": o.player, "detail": o.detail, "timestamp": round(o.timestamp, 3),
                    "text": f"P{o.player} {o.kind}" + (f": {o.detail}" if o.detail else "") if o.player >= 0
                    else f"{o.kind}: {o.detail}"}
                   for o in self.table.outcomes[-HISTORY_TAIL:]]
        return {"type": "state", "table": self.id, "seat": seat, "version": self.version, "current_player": -1,
                "terminal": snapshot.over, "view": speedster_view(snapshot, seat, zangles), "legal_actions": [],
                "scores": list(snapshot.totals), "history": history}

    def _returns(self) -> list[float]:
        n = self.table.players
        winners = self.table.winners
        if not self.table.over or not winners:
            return [0.0] * n
        return [(1.0 / len(winners) if s in winners else 0.0) - 1.0 / n for s in range(n)]

    def end_message(self) -> dict[str, Any]:
        return {"type": "end", "table": self.id, "version": self.version, "winners": list(self.table.winners),
                "scores": list(self.table.totals), "returns": self._returns()}

    def public_status(self) -> dict[str, Any]:
        return {"version": self.version, "current_player": -1, "terminal": self.terminal,
                "winners": list(self.table.winners), "scores": list(self.table.totals)}

    def start(self) -> None:
        if not self.table.over:
            self.spawn(self._run())

    async def event(self, seat: int, message: Call | Hit, client: Client) -> None:
        await asyncio.shield(self._event(seat, message, client))

    async def _event(self, seat: int, message: Call | Hit, client: Client) -> None:
        async with self.lock:
            done = self._repeat(seat, message.id)
            if done is not None:
                client.send({"type": "ack", "id": message.id, "version": done})
                return
            zangle_text = message.zangle if isinstance(message, Call) else None
            await self._submit(seat, zangle_text, message.version, message.id)
            client.send({"type": "ack", "id": message.id, "version": self.version})

    async def _submit(self, seat: int, zangle_text: str | None, version: int, message_id: str | None) -> None:
        if self.table.over:
            raise ProtocolError("game_over", "the game is over", message_id)
        if version != self.version:
            raise ProtocolError("stale", f"the event was chosen at version {version}, but the table is at "
                                f"{self.version}", message_id)
        if seat not in self.table.playing:
            raise ProtocolError("illegal_action", f"seat {seat} is not playing this round", message_id)
        zangle = None if zangle_text is None else self._zangle(zangle_text, message_id)
        kind = "hit" if zangle is None else "call"
        timestamp = max(self.now(), self.table._clock)
        try:
            self.table.submit(seat, kind, timestamp, zangle)
        except FourCardsError as error:
            raise ProtocolError("illegal_action", str(error), message_id) from None
        event = {"kind": kind, "timestamp": timestamp, "zangle": zangle_text}
        # A queued event cannot be taken back: the store must not fail here (if it does, the
        # event stays queued and the table is rebuilt from the store on the next start).
        await self.store.append(self.id, LogEntry(self.entries, seat, message_id, event=event))
        self.entries += 1
        if message_id is not None:
            self.applied[seat][message_id] = self.version

    async def _run(self) -> None:
        last_bot = {seat: -1.0 for seat in self.bot_kinds}
        bot_version = {seat: -1 for seat in self.bot_kinds}
        while not self.closed and not self.table.over:
            await asyncio.sleep(RESOLVE_EVERY)
            async with self.lock:
                outcomes = self.table.resolve(self.now())
                if outcomes:
                    self.broadcast()
                if self.table.over:
                    return
                for seat, kind in self.bot_kinds.items():
                    if self.now() - last_bot[seat] < self.reaction or bot_version[seat] == self.version:
                        continue
                    # In the bots' thread pool: the event loop never waits for a bot.
                    text = await asyncio.get_running_loop().run_in_executor(
                        self.executor, self._bot_choice, seat, kind, self.version)
                    if text is None:
                        continue
                    last_bot[seat] = self.now()
                    bot_version[seat] = self.version
                    try:
                        await self._submit(seat, None if text == "hit" else text, self.version, None)
                    except ProtocolError:
                        continue

    def _bot_choice(self, seat: int, kind: str | None, version: int) -> str | None:
        """What a Speedster bot does now: a Zangle's notation, ``hit``, or None (wait)."""
        from ..zangle.cards import best_zangle, find_zangles

        snapshot = self.table.snapshot()
        if seat not in snapshot.playing:
            return None
        if kind == "random":
            options = find_zangles(snapshot.centre, snapshot.cards[seat])
            choice = options[(version * 7919 + seat) % len(options)] if options else None
        else:
            choice = best_zangle(list(snapshot.centre), list(snapshot.cards[seat]))
        if choice is not None:
            return str(choice)
        return "hit" if snapshot.centre_pile else None


def make_table(record: TableRecord, store: Store, executor: Executor, bot_delay: float,
               deck_loader: Callable[[str], Any]) -> Table:
    """The master for a stored or new table record."""
    if record.game == SPEEDSTER:
        return SpeedsterMaster(record, store, executor, bot_delay)
    entry = get_game(record.game)
    rules = dict(record.rules)
    options: dict[str, Any] = {}
    if record.deck is not None:
        options["deck"] = deck_loader(record.deck)
    game = entry.game_class(**rules, **options)
    return TurnTable(record, store, executor, bot_delay, game, entry)


def rules_options(rules_type: type) -> list[dict[str, Any]]:
    """A rules dataclass's fields as ``{name, type, default}`` (for ``GET /api/games``)."""
    options = []
    for f in dataclasses.fields(rules_type):
        default = f.default
        kind = {bool: "bool", int: "int", str: "str"}.get(type(default), "object")
        options.append({"name": f.name, "type": kind, "default": list(default) if isinstance(default, tuple)
                        else default})
    return options


_orjson: Any
try:  # the fast path (the ``server`` extra installs it); the standard library otherwise
    _orjson = importlib.import_module("orjson")
except ImportError:  # pragma: no cover - depends on the environment
    _orjson = None


def dumps(message: Any) -> str:
    """``message`` as compact JSON text (orjson when installed, else the standard library)."""
    if _orjson is not None:
        try:
            text: str = _orjson.dumps(message).decode()
            return text
        except TypeError:  # a type orjson does not take (e.g. a numpy integer): the general path
            pass
    return json.dumps(message, separators=(",", ":"))


def dumps_list(items: list[Any]) -> str:
    return dumps(items)
