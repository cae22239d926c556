"""Table masters: one authoritative owner of each table's state.

A master checks and applies every action (a person's or a bot's), has the
store write it, and only then acknowledges it and sends every connected seat
its own view. :class:`TurnTable` runs every turn game on the engine contract
alone; a game with another kind of table (a real-time mode) brings its own
master in a :class:`MasterSpec` that its registry entry names (``masters``):
the server dispatches on the table's game name (:func:`master_specs`).
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
from dataclasses import dataclass
from typing import Any, Protocol

from ..engine import Bot, Game, State
from ..errors import FourCardsError, IllegalMoveError, NotYourTurnError, StaleActionError
from ..games import GAMES, GameEntry, get_game, load_object
from ..views import plain
from .admission import Limits
from .compute import Compute, hint_player
from .protocol import Act, Event, ProtocolError
from .store import LogEntry, SeatRecord, Store, TableRecord
from .views import deck_view

__all__ = ["Client", "Table", "TurnTable", "MasterSpec", "master_specs", "hash_token", "HISTORY_TAIL", "title_of",
           "make_table", "event_types"]

log = logging.getLogger("fourcards.server")

HISTORY_TAIL = 20
"""How many of the latest public records a ``state`` message carries."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Client(Protocol):
    """A connection a master sends to (queued, never blocking the master)."""

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict, or its JSON text already encoded)."""

    def replaced(self) -> None: ...

    def close(self) -> None:
        """Close the connection once what is queued is sent."""


_SPECTATOR = -1
"""The key of the spectators' ``state`` text among a table's per-seat texts."""

_ACTION_VIEWS: dict[tuple[str, int], dict[int, str]] = {}
"""Per game (with fixed action texts) and action-space size: each action's view, encoded once."""


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
        #: What each applied message id stood for (``("act", version, action)``, an event's type,
        #: version and fields): an id sent again for something else is ``id_reused``.
        self.signatures: list[dict[str, tuple[Any, ...]]] = [{} for _ in self.seats]
        self.tasks: set[asyncio.Task[Any]] = set()
        self.closed = False
        self.spectators: set[Client] = set()
        #: The client address that created the table (None for a table recovered from the store).
        self.creator: str | None = None
        #: ``time.monotonic()`` of the latest change seen (a new version, a claimed seat), for idle expiry.
        self.last_activity = time.monotonic()
        self.seen_version = -1
        self._replay_text: str | None = None

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

    def spectator_message(self) -> dict[str, Any]:
        """The ``state`` message of a spectator: the public view (no seat's hidden cards),
        ``seat`` null and no legal actions."""
        raise NotImplementedError

    def public_records(self) -> list[dict[str, Any]]:
        """Every public history record's view, oldest first (the replay of a finished match)."""
        raise NotImplementedError

    def record_steps(self) -> list[int] | None:
        """For each public record, the step (actions applied) after which it exists; None when
        this kind of table has no boards to replay (then :meth:`board_text` is None too)."""
        return None

    def board_text(self, step: int) -> str | None:
        """The public board after ``step`` actions of a finished match (``GET
        /api/tables/{id}/replay/{step}``) as JSON text, or None when this kind of table has none."""
        return None

    def start(self) -> None:
        """Begin whatever runs by itself (bots, a real-time clock)."""

    def replay(self, entries: list[LogEntry]) -> None:
        """Apply a stored log (at start)."""

    async def act(self, seat: int, message: Act, client: Client) -> None:
        raise ProtocolError("not_supported", "this table takes events, not act", message.id)

    async def event(self, seat: int, message: Event, client: Client) -> None:
        raise ProtocolError("not_supported", f"{message.type} is not an event of this table; it takes act",
                            message.id)

    async def hint(self, seat: int, message_id: str | None, client: Client) -> None:
        raise ProtocolError("not_supported", "this table gives no hints", message_id)

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
        data = {"id": self.id, "game": self.record.game, "title": title_of(self.record.game),
                "rules": self.rules(), "seats": self.seats_view(), "created": self.record.created,
                "private": self.record.private}
        data.update(self.public_status())
        return data

    def welcome(self, seat: int | None) -> dict[str, Any]:
        return {"type": "welcome", "table": self.id, "seat": seat, "game": self.record.game,
                "title": title_of(self.record.game), "rules": self.rules(), "seats": self.seats_view(),
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

    def watch(self, client: Client) -> None:
        """Add a spectator: the welcome (``seat`` null), the public state, the end if it is over."""
        self.spectators.add(client)
        client.send(self.welcome(None))
        client.send(self.spectator_text())
        if self.terminal:
            client.send(self.end_message())

    def unwatch(self, client: Client) -> None:
        self.spectators.discard(client)

    def state_text(self, seat: int) -> str:
        """``state_message(seat)`` as JSON text."""
        return dumps(self.state_message(seat))

    def spectator_text(self) -> str:
        """``spectator_message()`` as JSON text."""
        return dumps(self.spectator_message())

    def broadcast(self) -> None:
        for seat, client in list(self.clients.items()):
            client.send(self.state_text(seat))
        if self.spectators:
            text = self.spectator_text()
            for client in list(self.spectators):
                client.send(text)
        if self.terminal:
            end = self.end_message()
            for client in [*self.clients.values(), *self.spectators]:
                client.send(end)

    def invite_matches(self, invite: str | None) -> bool:
        """Whether ``invite`` opens this table (always for a public one; compared in constant time)."""
        if not self.record.private:
            return True
        if invite is None or self.record.invite_hash is None:
            return False
        return hmac.compare_digest(self.record.invite_hash, hash_token(invite))

    def touch(self) -> None:
        """Something happened at the table (for idle expiry)."""
        self.last_activity = time.monotonic()

    def changed_since_seen(self) -> bool:
        """Whether the version moved since the last call (an action or event was applied);
        if so, it counts as activity."""
        version = self.version
        if version != self.seen_version:
            self.seen_version = version
            self.touch()
            return True
        return False

    def shut(self, code: str, reason: str) -> None:
        """Close the table: every seat's connection and every spectator gets an ``error``
        ``code`` and is closed; its tasks stop."""
        message = dumps({"type": "error", "code": code, "reason": reason})
        for client in [*self.clients.values(), *self.spectators]:
            client.send(message)
            client.close()
        self.clients.clear()
        self.spectators.clear()
        self.close()

    def replay_text(self) -> str:
        """``GET /api/tables/{id}/replay`` of a finished table, as JSON text (built once)."""
        if self._replay_text is None:
            end = self.end_message()
            steps = self.record_steps()
            self._replay_text = dumps({
                "table": self.id, "game": self.record.game, "title": title_of(self.record.game),
                "rules": self.rules(), "seats": self.seats_view(), "deck": self.deck(),
                "version": self.version, "winners": end["winners"], "scores": end["scores"],
                "returns": end["returns"], "records": self.public_records(),
                "boards": steps is not None, "record_steps": steps})
        return self._replay_text

    async def claim(self, seat: int, name: str, token_hash: str) -> None:
        async with self.lock:
            if self.closed:
                raise ProtocolError("table_expired", "the table was closed")
            record = self.seats[seat]
            if record.kind != "human" or record.token_hash is not None:
                raise FourCardsError(f"seat {seat} is not free")
            new = SeatRecord("human", name or record.name, None, token_hash)
            await self.store.set_seat(self.id, seat, new)
            self.seats[seat] = new
            self.touch()

    def _repeat(self, seat: int, message_id: str) -> int | None:
        return self.applied[seat].get(message_id)

    def retried(self, seat: int, message_id: str, signature: tuple[Any, ...]) -> int | None:
        """The version acknowledged for ``message_id`` when it was applied for the same thing
        (a retry: acknowledged again); None when the id is new. An id applied for another
        action or version raises ``id_reused`` (a client that restarted its ids)."""
        done = self.applied[seat].get(message_id)
        if done is None:
            return None
        known = self.signatures[seat].get(message_id)
        if known is not None and known != signature:
            raise ProtocolError("id_reused", f"message id {message_id!r} was used for another message of seat "
                                f"{seat} (acknowledged at version {done}): send this one with a new id", message_id)
        return done

    def remember(self, seat: int, message_id: str | None, signature: tuple[Any, ...]) -> None:
        """Note what an applied message id stood for (see :meth:`retried`)."""
        if message_id is not None and message_id in self.applied[seat]:
            self.signatures[seat].setdefault(message_id, signature)


def title_of(game: str) -> str:
    """The title of a table's game (a registry game or a master's)."""
    spec = master_specs().get(game)
    return spec.title if spec is not None else get_game(game).title


@dataclass(frozen=True)
class MasterSpec:
    """A table of a game that the engine contract's turns don't run (a
    real-time mode): its catalogue entry and its master. A registry entry lists
    the ``module:object`` paths of its specs in ``masters``."""

    #: The table's game name in the catalogue (unique among games and masters).
    name: str
    title: str
    #: The registry game it belongs to.
    game: str
    #: Fewest and most seats.
    players: tuple[int, int]
    #: The rule options, as ``GET /api/games`` lists them (``name``, ``type``, ``default``, ``choices``).
    rules: tuple[dict[str, Any], ...]
    bots: tuple[str, ...]
    #: A :class:`Table` subclass taking ``(record, store, executor, bot_delay)``.
    master: type[Table]
    #: ``rules -> (seats, full rules to store)``; raises ``FourCardsError`` for bad rules.
    check_rules: Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]
    #: The client message types it takes (``Event``s) besides join, hint and ping.
    messages: tuple[str, ...] = ()
    real_time: bool = True
    #: Its page module (``package:file.js``), or None for the generic board.
    script: str | None = None


_SPECS: dict[tuple[str, ...], dict[str, MasterSpec]] = {}


def master_specs() -> dict[str, MasterSpec]:
    """Every master the registered games bring, by table game name."""
    paths = tuple(path for entry in GAMES.values() for path in entry.masters)
    specs = _SPECS.get(paths)
    if specs is None:
        specs = {}
        for entry in GAMES.values():
            for path in entry.masters:
                try:
                    spec = load_object(path)
                    if not isinstance(spec, MasterSpec):
                        raise TypeError(f"{path} is a {type(spec).__name__}, not a MasterSpec")
                except Exception:  # a broken plug-in must not stop the server
                    log.exception("game %s: master %s could not be loaded", entry.name, path)
                    continue
                specs[spec.name] = spec
        _SPECS.clear()
        _SPECS[paths] = specs
    return specs


def event_types() -> frozenset[str]:
    """The event message types the masters take."""
    return frozenset(kind for spec in master_specs().values() for kind in spec.messages)


# -- turn games -----------------------------------------------------------------------------------

_BOARDS_KEPT = 32
"""Boards of a replay kept encoded per table (the most recently asked for)."""

_CHECKPOINTS = 16
"""States kept per replayed match: a board is at most ``steps / 16`` actions from one."""


@dataclass
class _ReplayIndex:
    """A finished match played again from its seed: the step after which each public record
    exists, and a copy of the state every ``every`` steps, to build any step's board quickly."""

    game: Game[Any]
    actions: tuple[int, ...]
    record_steps: tuple[int, ...]
    every: int
    checkpoints: list[State[Any]]

    @classmethod
    def build(cls, game: Game[Any], seed: int, setup: dict[str, Any], actions: tuple[int, ...]) -> _ReplayIndex:
        state = game.new_match(seed, **setup)
        every = max(32, -(-len(actions) // _CHECKPOINTS))
        steps = [0] * len(state.history)  # the records of the deal, before any action
        checkpoints = [state.clone()]
        for done, action in enumerate(actions, 1):
            first = state.apply(action)
            steps.extend([done] * _new_records(state, first))
            if done % every == 0:
                checkpoints.append(state.clone())
        return cls(game, actions, tuple(steps), every, checkpoints)

    def state_at(self, step: int) -> State[Any]:
        """The state after ``step`` actions (a new one: the caller may keep it)."""
        base = min(step // self.every, len(self.checkpoints) - 1)
        state = self.checkpoints[base].clone()
        for action in self.actions[base * self.every:step]:
            state.apply(action)
        return state


def _new_records(state: State[Any], first: Any) -> int:
    """How many records the action just applied appended, ``first`` being the first of them
    (None: none), found from the newest records without walking the whole history."""
    if first is None:
        return 0
    window = 4
    while True:
        recent = state.recent_history(window)
        for index in range(len(recent) - 1, -1, -1):
            if recent[index] is first:
                return len(recent) - index
        if len(recent) < window:  # not found by identity (a game returning a copy): count them all
            raise FourCardsError(f"{type(state).__name__}.apply returned a record that is not in its history")
        window *= 4


class TurnTable(Table):
    """A turn game on the engine contract alone (its facts, views and bots from the registry)."""

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
        self._records: list[dict[str, Any]] = []  # views of the latest public records
        self._record_texts: list[str] = []  # the same, each encoded once
        self._last_record: Any = None
        self._history_json = "[]"
        self._texts: dict[int, str] = {}  # seat -> its state message of this version, encoded
        self._legal_cache: list[str] | None = None  # the legal actions' views, encoded
        self._legal_version = -1
        self._fixed: dict[int, str] | None = (
            _ACTION_VIEWS.setdefault((entry.name, game.num_distinct_actions), {}) if game.fixed_action_texts else None)
        self._index: _ReplayIndex | None = None  # a finished match's replay boards, built when first asked for
        self._boards: dict[int, str] = {}  # step -> its board's JSON text, least recently asked first
        self._update_history()

    @property
    def step(self) -> int:
        """The state's version: the engine's step count."""
        return self.state.step

    def replay(self, entries: list[LogEntry]) -> None:
        """Apply a stored log (at start)."""
        for entry in entries:
            assert entry.action is not None
            self.state.apply(entry.action, entry.seat, expected_step=entry.index)
            if entry.client_id is not None:
                self.applied[entry.seat][entry.client_id] = entry.index + 1
                self.signatures[entry.seat][entry.client_id] = ("act", entry.index, entry.action)
        self._changed()
        self._update_history()

    @property
    def version(self) -> int:
        return self.state.step

    @property
    def terminal(self) -> bool:
        return self.state.is_terminal

    def rules(self) -> dict[str, Any]:
        data: dict[str, Any] = plain(self.game.rules_view())
        return data

    def deck(self) -> dict[str, Any] | None:
        deck = getattr(self.game, "deck", None)
        return None if deck is None or not self.game.deck_upload else deck_view(deck)

    def _update_history(self) -> None:
        """Bring the public history tail (shared by every seat, encoded once) up to date."""
        recent = self.state.recent_history(HISTORY_TAIL)
        new = list(recent)
        for index in range(len(recent) - 1, -1, -1):
            if recent[index] is self._last_record:
                new = list(recent[index + 1:])
                break
        if new:
            self._last_record = new[-1]
            views = [self.game.record_view(r) for r in new]
            self._records = (self._records + views)[-HISTORY_TAIL:]
            self._record_texts = (self._record_texts + [dumps(v) for v in views])[-HISTORY_TAIL:]
            self._history_json = "[" + ",".join(self._record_texts) + "]"

    def state_message(self, seat: int) -> dict[str, Any]:
        return dict(json.loads(self.state_text(seat)))

    def state_text(self, seat: int) -> str:
        """The seat's ``state`` message as JSON, built once a version (a reconnect reuses it)."""
        cached = self._texts.get(seat)
        if cached is not None:
            return cached
        observation = self.state.observation(seat)
        legal_json = "[" + ",".join(self._legal(seat, observation)) + "]"
        # The history is the same for every seat: spliced in, encoded once a version.
        text = (dumps(self._state_head(seat, observation))[:-1] + ',"legal_actions":' + legal_json + ',"scores":'
                + dumps(list(self.state.scores)) + ',"history":' + self._history_json + "}")
        self._texts[seat] = text
        return text

    def _legal(self, seat: int, observation: Any = None) -> list[str]:
        """The seat's legal actions as encoded views (none when it is not the seat's turn)."""
        state = self.state
        if seat != state.current_player:
            return []
        if self._legal_version == state.step and self._legal_cache is not None:
            return self._legal_cache
        codes = getattr(observation, "legal_actions", None) or state.legal_actions()
        known = self._fixed if self._fixed is not None else {}
        legal = []
        for a in codes:
            code = int(a)
            item = known.get(code)
            if item is None:
                view = self.game.action_view(state.int_to_action(code))
                view["action"] = code
                view["text"] = state.action_to_string(code)
                item = dumps(view)
                if self._fixed is not None:
                    known[code] = item
            legal.append(item)
        self._legal_version, self._legal_cache = state.step, legal
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
        return {"type": "state", "table": self.id, "seat": seat, "version": state.step,
                "current_player": state.current_player, "terminal": state.is_terminal,
                "view": self.game.observation_view(observation)}

    def end_message(self) -> dict[str, Any]:
        state = self.state
        return {"type": "end", "table": self.id, "version": self.step, "winners": list(state.winners),
                "scores": list(state.scores), "returns": list(state.returns())}

    def spectator_message(self) -> dict[str, Any]:
        return dict(json.loads(self.spectator_text()))

    def spectator_text(self) -> str:
        """A spectator's ``state`` message as JSON, built once a version (shared by every spectator)."""
        cached = self._texts.get(_SPECTATOR)
        if cached is not None:
            return cached
        state = self.state
        head = {"type": "state", "table": self.id, "seat": None, "version": state.step,
                "current_player": state.current_player, "terminal": state.is_terminal,
                "view": self.game.spectator_view(state)}
        text = (dumps(head)[:-1] + ',"legal_actions":[],"scores":' + dumps(list(state.scores))
                + ',"history":' + self._history_json + "}")
        self._texts[_SPECTATOR] = text
        return text

    def public_records(self) -> list[dict[str, Any]]:
        return [self.game.record_view(record) for record in self.state.history]

    # -- the boards of a finished match's replay ----------------------------------------------------
    def _replay_index(self) -> _ReplayIndex:
        """The finished match played again once: each record's step, and checkpoints."""
        if self._index is None:
            self._index = _ReplayIndex.build(self.game, self.record.seed, self.record.setup, self.state.actions)
        return self._index

    def record_steps(self) -> list[int] | None:
        return list(self._replay_index().record_steps)

    def board_text(self, step: int) -> str | None:
        if isinstance(step, bool) or not isinstance(step, int):
            raise TypeError(f"step must be an int, not {type(step).__name__}")
        if not self.terminal:
            raise ValueError("the match is not over")
        if not 0 <= step <= self.state.step:
            raise ValueError(f"step {step} is not one of 0 to {self.state.step}")
        cached = self._boards.pop(step, None)
        if cached is None:
            state = self._replay_index().state_at(step)
            cached = dumps({"type": "board", "table": self.id, "step": step,
                            "current_player": state.current_player, "terminal": state.is_terminal,
                            "scores": list(state.scores), "view": self.game.spectator_view(state)})
            while len(self._boards) >= _BOARDS_KEPT:
                del self._boards[next(iter(self._boards))]  # the least recently asked for
        self._boards[step] = cached
        return cached

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
            done = self.retried(seat, message.id, ("act", message.version, message.action))
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
        if self.closed:
            raise ProtocolError("table_expired", "the table was closed", message_id)
        if state.is_terminal:
            raise ProtocolError("game_over", f"the match is over (version {state.step})", message_id)
        if action >= self.game.num_distinct_actions:
            raise ProtocolError("illegal_action", f"{action} is not an action of this game "
                                f"(0..{self.game.num_distinct_actions - 1})", message_id)
        if version != state.step:  # what apply(expected_step=) checks, leaving apply its fast path
            raise ProtocolError("stale", f"action {action} was chosen at version {version}, but the match is "
                                f"at version {state.step}", message_id)
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
        index = state.step - 1
        self._changed()
        try:
            await self.store.append(self.id, LogEntry(index, seat, message_id, action))
        except BaseException as error:
            # Not stored (or not known to be): take the action back (replay without it) and refuse it.
            actions = state.actions[:-1]
            self.state = self.game.replay(self.record.seed, actions, **self.record.setup)
            self._changed()
            self._records, self._record_texts, self._last_record = [], [], None
            self._update_history()
            if isinstance(error, asyncio.CancelledError):  # the table or the server is closing
                raise
            log.exception("table %s: storing action %d failed", self.id, index)
            raise ProtocolError("server_error", "the action could not be stored; nothing changed",
                                message_id) from None
        if message_id is not None:
            self.applied[seat][message_id] = self.step
            self.signatures[seat][message_id] = ("act", version, action)
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
            compute = self.executor if isinstance(self.executor, Compute) else None
            seconds = compute.limits.hint_seconds if compute is not None else Limits().hint_seconds
            bot = hint_player(self.entry, self.game, version, seconds)
        if compute is not None:  # the server's: the hint budget, never ahead of the bots
            action = await compute.hint((self.id, seat), bot.choose, observation, legal, message_id=message_id)
        else:
            action = await asyncio.get_running_loop().run_in_executor(self.executor, bot.choose, observation, legal)
        try:
            text = self.state.action_to_string(action)
        except Exception:  # the match moved on meanwhile and the action reads differently now
            text = str(action)
        message: dict[str, Any] = {"type": "hint", "version": version, "action": action, "text": text}
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


def make_table(record: TableRecord, store: Store, executor: Executor, bot_delay: float,
               deck_loader: Callable[[str], Any]) -> Table:
    """The master for a stored or new table record: the game's own master (a
    :class:`MasterSpec`), else a :class:`TurnTable` on its engine."""
    spec = master_specs().get(record.game)
    if spec is not None:
        return spec.master(record, store, executor, bot_delay)
    entry = get_game(record.game)
    rules = dict(record.rules)
    options: dict[str, Any] = {}
    if record.deck is not None:
        options["deck"] = deck_loader(record.deck)
    game = entry.game_class(**rules, **options)
    return TurnTable(record, store, executor, bot_delay, game, entry)


def rules_options(rules_type: type) -> list[dict[str, Any]]:
    """A rules dataclass's fields as ``{name, type, default}`` with their
    ``choices`` or ``low``/``high`` bounds when :func:`~fourcards.engine.option`
    gave them (for ``GET /api/games``)."""
    options = []
    for f in dataclasses.fields(rules_type):
        default = f.default
        kind = {bool: "bool", int: "int", str: "str", float: "float"}.get(type(default), "object")
        option: dict[str, Any] = {"name": f.name, "type": kind, "default": plain(default)}
        for key in ("choices", "low", "high"):
            if key in f.metadata:
                option[key] = plain(f.metadata[key])
        options.append(option)
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
