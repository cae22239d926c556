"""Table masters: one authoritative owner of each table's state.

A master checks and applies every action (a person's or a bot's), has the
store write it, and only then acknowledges it and sends every connected seat
what changed in its own view (protocol 2: an ``update``; protocol 1: the whole
``state``). :class:`TurnTable` runs every turn game on the engine contract
alone, on :mod:`fourcards.hosting` (each version a signed snapshot stored by
compare-and-swap, bots made for each turn, updates from
:mod:`fourcards.hosting.updates`); a game with another kind of table (a
real-time mode) brings its own master in a :class:`MasterSpec` that its
registry entry names (``masters``): the server dispatches on the table's game
name (:func:`master_specs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import importlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ..engine import Game, State
from ..errors import FourCardsError, InvalidStateError, InvalidTypeError
from ..games import GAMES, GameEntry, get_game, load_object
from ..hosting.bots import bot_for_turn, remember
from ..hosting.service import DATA_FORMAT, new_data
from ..hosting.store import LoggedAction, StoredMatch
from ..hosting.updates import SPECTATOR, changes, delta, record_entries
from ..saves import SnapshotWriter, load
from ..views import plain
from .admission import Limits
from .compute import Compute, hint_player
from .protocol import Act, Event, ProtocolError
from .store import LogEntry, SeatRecord, Store, TableRecord
from .views import deck_view

T = TypeVar("T")

__all__ = ["Client", "Table", "TurnTable", "MasterSpec", "master_specs", "hash_token", "HISTORY_TAIL", "title_of",
           "make_table", "event_types"]

log = logging.getLogger("fourcards.server")

HISTORY_TAIL = 20
"""How many of the latest public records a ``state`` message carries."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Client(Protocol):
    """A connection a master sends to (queued, never blocking the master), speaking
    ``protocol`` (1: the whole ``state`` after every change; 2: ``update`` messages)."""

    protocol: int

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
        #: What each connection speaking protocol 2 was last sent: the version and its view
        #: (the next ``update`` is what changed since).
        self._sent: dict[Client, tuple[int, dict[str, Any]]] = {}

    async def run_bot(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)``, a bot's decision, on the bot threads: within this table's creator's
        share of them (:meth:`Compute.bot_turn`) when the executor is the server's; a table
        recovered from the store counts as its own creator."""
        if isinstance(self.executor, Compute):
            return await self.executor.bot_turn(self.creator or f"table {self.id}", fn, *args)
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

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

    def view_of(self, seat: int | None) -> dict[str, Any]:
        """The ``view`` a seat's (None: a spectator's) ``state`` holds now (a new dict each
        version: the table keeps it as what a connection was sent, and never changes it)."""
        message = self.spectator_message() if seat is None else self.state_message(seat)
        view: dict[str, Any] = message["view"]
        return view

    def records_since(self, seat: int | None, version: int) -> list[dict[str, Any]] | None:
        """The history records a seat (None: a spectator) may see that were added after
        ``version``, oldest first, each with the ``step`` after which it exists; None when the
        table cannot tell (the connection then gets the whole ``state``: the default)."""
        return None

    def update_parts(self, seat: int | None) -> tuple[str, str]:
        """The seat's legal actions (its turn only; a spectator: none) and every seat's scores,
        as JSON texts (what an ``update`` carries besides the changes)."""
        message = self.spectator_message() if seat is None else self.state_message(seat)
        return dumps(message.get("legal_actions", [])), dumps(message.get("scores", []))

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
            self._sent.pop(old, None)
            old.replaced()
        client.send({**self.welcome(seat), "protocol": getattr(client, "protocol", 1)})
        self._send_state(seat, client)
        if self.terminal:
            client.send(self.end_message())

    def detach(self, seat: int, client: Client) -> None:
        if self.clients.get(seat) is client:
            del self.clients[seat]
        self._sent.pop(client, None)

    def watch(self, client: Client) -> None:
        """Add a spectator: the welcome (``seat`` null), the public state, the end if it is over."""
        self.spectators.add(client)
        client.send({**self.welcome(None), "protocol": getattr(client, "protocol", 1)})
        self._send_state(None, client)
        if self.terminal:
            client.send(self.end_message())

    def unwatch(self, client: Client) -> None:
        self.spectators.discard(client)
        self._sent.pop(client, None)

    def state_text(self, seat: int) -> str:
        """``state_message(seat)`` as JSON text."""
        return dumps(self.state_message(seat))

    def spectator_text(self) -> str:
        """``spectator_message()`` as JSON text."""
        return dumps(self.spectator_message())

    def _send_state(self, seat: int | None, client: Client) -> None:
        """The whole ``state`` (a join or watch; a connection the table cannot bring up to date)."""
        client.send(self.spectator_text() if seat is None else self.state_text(seat))
        if getattr(client, "protocol", 1) >= 2:
            self._sent[client] = (self.version, self.view_of(seat))

    def update_text(self, seat: int | None, since: int, before: dict[str, Any]) -> str | None:
        """The ``update`` that brings a connection from ``since`` (when it was sent the view
        ``before``) to now, as JSON text (:mod:`fourcards.hosting.updates`: the view's changed
        fields, the new items of lists that only grew, the fields gone, the records added
        since that the seat may see); None when the table cannot tell what changed."""
        records = self.records_since(seat, since)
        if records is None:
            return None
        view = self.view_of(seat)
        replaced, appended, removed = delta(view, changes(before, view))
        legal, scores = self.update_parts(seat)
        head = {"type": "update", "table": self.id, "seat": seat, "since": since, "version": self.version,
                "current_player": self.public_status().get("current_player", -1), "terminal": self.terminal,
                "view": replaced, "appended": appended, "removed": removed, "records": records}
        return dumps(head)[:-1] + ',"legal_actions":' + legal + ',"scores":' + scores + "}"

    def _send_changes(self, seat: int | None, client: Client, shared: dict[tuple[int, int], str] | None = None) -> None:
        """What changed since the connection's last message: an ``update`` (protocol 2), or the
        whole ``state`` (protocol 1, or when the table cannot tell). ``shared``: the updates
        built for spectators (alike for all those at one version)."""
        sent = self._sent.get(client)
        if sent is None or getattr(client, "protocol", 1) < 2:
            self._send_state(seat, client)
            return
        since, before = sent
        if since == self.version:
            return
        key = (since, id(before))
        text = shared.get(key) if shared is not None else None
        if text is None:
            text = self.update_text(seat, since, before)
            if text is None:
                self._send_state(seat, client)
                return
            if shared is not None:
                shared[key] = text
        client.send(text)
        self._sent[client] = (self.version, self.view_of(seat))

    def broadcast(self) -> None:
        for seat, client in list(self.clients.items()):
            self._send_changes(seat, client)
        if self.spectators:
            shared: dict[tuple[int, int], str] = {}
            for client in list(self.spectators):
                self._send_changes(None, client, shared)
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

    def attended(self) -> bool:
        """Whether a person takes part: a seat for a person, or a connection (a seat's or a
        spectator's). Bots playing a table nobody attends are not activity: such a table
        expires as an idle one does (it would hold a table slot and a core for good)."""
        return bool(self.clients or self.spectators) or any(seat.kind == "human" for seat in self.seats)

    def changed_since_seen(self) -> bool:
        """Whether the version moved since the last call (an action or event was applied);
        if so, and the table is :meth:`attended`, it counts as activity."""
        version = self.version
        if version != self.seen_version:
            self.seen_version = version
            if self.attended():
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
        self._sent.clear()
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
                        raise InvalidTypeError(f"{path} is a {type(spec).__name__}, not a MasterSpec")
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

_RECORDS_KEPT = 64
"""History records' entries a turn table keeps in memory (the latest: for updates, and the
``state`` messages' tail of :data:`HISTORY_TAIL`, which its stored data holds)."""


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
    """A turn game on the engine contract alone (its facts, views and bots from the registry),
    on :mod:`fourcards.hosting`: every version of the match is stored as a signed snapshot with
    the host's data (the seats, the bots' memory, the latest records) by a compare-and-swap on
    its step (``Store.replace_async``), and restored from it without a replay."""

    def __init__(self, record: TableRecord, store: Store, executor: Executor, bot_delay: float,
                 game: Game[Any], entry: GameEntry, key: bytes | None = None) -> None:
        super().__init__(record, store, executor, bot_delay)
        self.entry = entry
        self.game = game
        #: The server's key: signs the snapshots (a table made without one: a key of its own,
        #: whose snapshots no later process can read: they are then replayed from the log).
        self.key = key if key is not None else secrets.token_bytes(32)
        self._writer = SnapshotWriter(self.key)
        self.state: State[Any] = game.new_match(record.seed, **record.setup)
        kinds = [s.bot if s.kind == "bot" else None for s in self.seats]
        #: The host's data of the match (``fourcards.hosting``'s format): the seats, the bots' seed
        #: and memory, and ``records``: the latest history records' entries.
        self.data: dict[str, Any] = new_data(entry.name, kinds, record.seed)
        self._keys = [*(str(seat) for seat in range(game.num_players)), SPECTATOR]
        self._public = type(game).seat_record_view is Game.seat_record_view
        self._bot_running = False
        #: The latest records' entries ``[step, keys that may see it or None, view]``, oldest first.
        self._records: list[list[Any]] = []
        #: Records at or before this step may be missing from ``_records`` (an update since then: a state).
        self._records_floor = 0
        self._texts: dict[int, str] = {}  # seat -> its state message of this version, encoded
        self._views: dict[int | None, dict[str, Any]] = {}  # seat (None: spectators) -> its view of this version
        self._history_texts: dict[str, str] = {}  # journal key -> its history tail, encoded
        self._add_records([(0, r) for r in self.state.history])
        self._legal_cache: list[str] | None = None  # the legal actions' views, encoded
        self._legal_version = -1
        self._fixed: dict[int, str] | None = (
            _ACTION_VIEWS.setdefault((entry.name, game.num_distinct_actions), {}) if game.fixed_action_texts else None)
        self._index: _ReplayIndex | None = None  # a finished match's replay boards, built when first asked for
        self._boards: dict[int, str] = {}  # step -> its board's JSON text, least recently asked first
        #: Whether the table was restored from its stored snapshot (not replayed).
        self.restored = False
        #: The log's message ids are still to be read (a table restored from its snapshot).
        self._ids_unread = False

    @property
    def step(self) -> int:
        """The state's version: the engine's step count."""
        return self.state.step

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

    # -- the stored versions ------------------------------------------------------------------------
    def first_version(self) -> StoredMatch:
        """The match as a new table stores it (step 0: its snapshot and data)."""
        return StoredMatch(self.id, self.state.step, self._writer.save(self.state),
                           _data_text(self.data, self._records))

    def restore(self, match: StoredMatch, entries: list[LogEntry] | None = None) -> None:
        """Take up the stored version ``match`` (its snapshot restored, not replayed: signed
        with this table's key; else :class:`~fourcards.errors.InvalidStateError` and nothing
        changed) and the message ids of ``entries`` (so that a retry is applied once); None:
        they are read from the store when the table's first action comes (nothing of the log
        is read at start: a restore takes about as long at any length of the match)."""
        state = load(match.save, self.key)
        try:
            data = json.loads(match.data)
        except ValueError:
            raise InvalidStateError(f"table {self.id}: its stored data is not JSON") from None
        if (get_game(state.game.name).name != self.entry.name or state.game.rules_dict() != self.game.rules_dict()
                or state.seed != self.record.seed or state.step != match.step or not isinstance(data, dict)
                or data.get("format") != DATA_FORMAT or data.get("game") != self.entry.name
                or data.get("seats") != self.data["seats"] or not isinstance(data.get("records"), list)):
            raise InvalidStateError(f"table {self.id}: its stored version is not this table's")
        self.state = state
        self._records = [list(entry) for entry in data.pop("records")]
        self.data = data
        self._records_floor = state.step
        if entries is None:
            self._ids_unread = True
        else:
            self._remember_ids(entries)
        self.restored = True
        self._changed()

    def replay(self, entries: list[LogEntry], data: str | None = None) -> None:
        """Apply a stored log (at start: a table with no snapshot, or one that does not load).
        ``data``: the stored host data of the same step, whose bots' memory is taken up."""
        for entry in entries:
            assert entry.action is not None
            self.state.apply(entry.action, entry.seat, expected_step=entry.index)
        self._remember_ids(entries)
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            stored = json.loads(data) if data else None
            if isinstance(stored, dict) and isinstance(stored.get("memory"), dict):
                self.data["memory"] = stored["memory"]
        self._records = []
        self._add_records([(self.state.step, r) for r in self.state.recent_history(HISTORY_TAIL)])
        self._records_floor = self.state.step
        self._changed()

    def _remember_ids(self, entries: list[LogEntry]) -> None:
        for entry in entries:
            if entry.client_id is not None and entry.action is not None:
                self.applied[entry.seat][entry.client_id] = entry.index + 1
                self.signatures[entry.seat][entry.client_id] = ("act", entry.index, entry.action)

    async def _catch_up(self) -> None:
        """Another writer stored a newer version (the compare-and-swap said so): take it up
        from the store and show it (after the refused action's error)."""
        async with self.lock:
            await self._take_up_stored()

    async def _take_up_stored(self) -> None:
        stored = await asyncio.to_thread(self.store.get, self.id)
        if stored is None or self.closed:
            return
        try:
            state = load(stored.save, self.key)
            data = json.loads(stored.data)
        except (InvalidStateError, ValueError):
            log.exception("table %s: the version another writer stored does not load", self.id)
            return
        if not isinstance(data, dict) or state.step < self.state.step:
            return
        self.state = state
        self.data = {**self.data, **{k: v for k, v in data.items() if k in ("memory", "bot_seed")}}
        # Another writer's records (a MatchService keeps them in its journal) are read from the
        # match itself: its history replayed once (a rare path); each connection gets a whole state.
        self._records = []
        self._add_records([(state.step, r) for r in state.recent_history(HISTORY_TAIL)])
        self._records_floor = state.step
        self._changed()
        self.broadcast()

    # -- the history --------------------------------------------------------------------------------
    def _add_records(self, records: list[tuple[int, Any]]) -> None:
        """Keep the entries of records just added (with the step after which each exists)."""
        if records:
            self._records, self._records_floor = self._records_with(records)
            self._history_texts.clear()

    def _records_with(self, records: list[tuple[int, Any]]) -> tuple[list[list[Any]], int]:
        """The entries kept, and their floor, once ``records`` are added (nothing changed)."""
        kept = self._records + record_entries(self.game, records, self._keys)
        floor = self._records_floor
        if len(kept) > _RECORDS_KEPT:
            dropped = kept[:len(kept) - _RECORDS_KEPT]
            floor = max(floor, max(entry[0] for entry in dropped))
            kept = kept[len(dropped):]
        return kept, floor

    def _visible(self, key: str) -> list[list[Any]]:
        return [entry for entry in self._records if entry[1] is None or key in entry[1]]

    def _history_json(self, key: str) -> str:
        """The latest records a key (a seat as text, or the spectators') may see, encoded once a version."""
        text = self._history_texts.get(SPECTATOR if self._public else key)
        if text is None:
            text = dumps([entry[2] for entry in self._visible(key)[-HISTORY_TAIL:]])
            self._history_texts[SPECTATOR if self._public else key] = text
        return text

    def records_since(self, seat: int | None, version: int) -> list[dict[str, Any]] | None:
        if version < self._records_floor:
            return None
        key = SPECTATOR if seat is None else str(seat)
        return [{"step": entry[0], **entry[2]} for entry in self._visible(key) if entry[0] > version]

    # -- the messages --------------------------------------------------------------------------------
    def view_of(self, seat: int | None) -> dict[str, Any]:
        view = self._views.get(seat)
        if view is None:
            if seat is None:
                view = self.game.spectator_view(self.state)
            else:
                view = self.game.observation_view(self.state.observation(seat))
            self._views[seat] = view
        return view

    def update_parts(self, seat: int | None) -> tuple[str, str]:
        legal = "[]" if seat is None else "[" + ",".join(self._legal(seat)) + "]"
        return legal, dumps(list(self.state.scores))

    def state_message(self, seat: int) -> dict[str, Any]:
        return dict(json.loads(self.state_text(seat)))

    def state_text(self, seat: int) -> str:
        """The seat's ``state`` message as JSON, built once a version (a reconnect reuses it)."""
        cached = self._texts.get(seat)
        if cached is not None:
            return cached
        state = self.state
        head = {"type": "state", "table": self.id, "seat": seat, "version": state.step,
                "current_player": state.current_player, "terminal": state.is_terminal, "view": self.view_of(seat)}
        legal_json = "[" + ",".join(self._legal(seat)) + "]"
        # The history is the same for every seat (unless the game's records are not): encoded once a version.
        text = (dumps(head)[:-1] + ',"legal_actions":' + legal_json + ',"scores":'
                + dumps(list(state.scores)) + ',"history":' + self._history_json(str(seat)) + "}")
        self._texts[seat] = text
        return text

    def _legal(self, seat: int) -> list[str]:
        """The seat's legal actions as encoded views (none when it is not the seat's turn)."""
        state = self.state
        if seat != state.current_player or state.is_terminal:
            return []
        if self._legal_version == state.step and self._legal_cache is not None:
            return self._legal_cache
        codes = state.legal_actions()
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
        self._views.clear()
        self._history_texts.clear()
        self._legal_cache = None
        self._legal_version = -1

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
                "current_player": state.current_player, "terminal": state.is_terminal, "view": self.view_of(None)}
        text = (dumps(head)[:-1] + ',"legal_actions":[],"scores":' + dumps(list(state.scores))
                + ',"history":' + self._history_json(SPECTATOR) + "}")
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
            raise InvalidTypeError(f"step must be an int, not {type(step).__name__}")
        if not self.terminal:
            raise FourCardsError("the match is not over")
        if not 0 <= step <= self.state.step:
            raise FourCardsError(f"step {step} is not one of 0 to {self.state.step}")
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

    async def _read_ids(self, message_id: str | None) -> None:
        """Read the log's message ids of a table restored from its snapshot (the lock is held)."""
        try:
            entries = await asyncio.to_thread(self.store.read_ids, self.id)
        except Exception:
            log.exception("table %s: its log's message ids could not be read", self.id)
            raise ProtocolError("server_error", "the table's stored messages could not be read; nothing changed",
                                message_id) from None
        self._remember_ids(entries)
        self._ids_unread = False

    async def _act(self, seat: int, message: Act, client: Client) -> None:
        async with self.lock:
            if self._ids_unread:
                await self._read_ids(message.id)
            done = self.retried(seat, message.id, ("act", message.version, message.action))
            if done is not None:
                client.send({"type": "ack", "id": message.id, "version": done})
                return
            await self._apply(seat, message.action, message.version, message.id)
            client.send({"type": "ack", "id": message.id, "version": self.step})
            self.broadcast()
        self.schedule_bots()

    async def _apply(self, seat: int, action: int, version: int, message_id: str | None,
                     memory: dict[str, Any] | None = None) -> None:
        """Check and apply an action on a copy of the match, store the new version by
        compare-and-swap on the step, and only then take it up (the lock is held). Raises
        ProtocolError (the engine's refusal by its code; ``stale`` when another writer stored
        first; ``server_error`` when the store failed) and changes nothing. ``memory``: the
        bots' memory after a bot's decision (a bot's action)."""
        if self.closed:
            raise ProtocolError("table_expired", "the table was closed", message_id)
        state = self.state.clone()
        head = state._log
        try:
            code = state.verify(action, seat, expected_step=version)
            state.apply(code, seat)
        except FourCardsError as error:
            raise ProtocolError.of(error, message_id) from None
        data = self.data if memory is None else {**self.data, "memory": memory}
        records, floor = self._records_with(_added_records(state, head))
        entry = LoggedAction(version, seat, code, memory is not None, message_id)
        try:
            stored = await self.store.replace_async(
                StoredMatch(self.id, state.step, self._writer.save(state), _data_text(data, records), (entry,)),
                version)
        except BaseException as error:
            if isinstance(error, asyncio.CancelledError):  # the table or the server is closing
                raise
            log.exception("table %s: storing action %d failed", self.id, version)
            raise ProtocolError("server_error", "the action could not be stored; nothing changed",
                                message_id) from None
        if not stored:  # another writer stored a version first: this action is refused, theirs taken up
            self.spawn(self._catch_up())
            raise ProtocolError("stale", f"action {action} was chosen at version {version}, but another writer "
                                "stored a newer version of the table first", message_id)
        self.state = state
        self.data = data
        self._records, self._records_floor = records, floor
        self._changed()
        if message_id is not None:
            self.applied[seat][message_id] = self.step
            self.signatures[seat][message_id] = ("act", version, action)

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
    def _bot_at(self, seat: int) -> str | None:
        """The bot kind playing ``seat`` (None: a person)."""
        kind: str | None = self.data["seats"][seat]
        return kind

    def schedule_bots(self) -> None:
        if self.closed or self._bot_running or self.state.is_terminal:
            return
        if self._bot_at(self.state.current_player) is not None:
            self._bot_running = True
            self.spawn(self._bot_turns())

    def _decide(self, kind: str, seat: int, version: int, memory: dict[str, Any], observation: Any,
                legal: Any) -> tuple[int, dict[str, Any]]:
        """A bot's turn, in the bots' threads: the bot made for this turn (as
        :func:`fourcards.hosting.bots.bot_for_turn` makes it: seeded from the match, the seat
        and the step, its memory given back), its choice and the memory it hands over."""
        bot = bot_for_turn(self.entry, self.game, kind, self.data["bot_seed"], seat, version, memory)
        action = int(bot.choose(observation, legal))
        remember(bot, seat, memory)
        return action, memory

    async def _bot_turns(self) -> None:
        try:
            while not self.closed:
                if self.bot_delay > 0:
                    await asyncio.sleep(self.bot_delay)
                async with self.lock:
                    state = self.state
                    seat = state.current_player
                    kind = None if state.is_terminal else self._bot_at(seat)
                    if kind is None:
                        return
                    version = self.step
                    observation = state.observation(seat)
                    legal = state.legal_actions()
                    memory = dict(self.data["memory"])  # the bot's memory is taken up with its action only
                action, memory = await self.run_bot(self._decide, kind, seat, version, memory, observation, legal)
                async with self.lock:
                    if self.step != version:
                        continue
                    try:
                        await self._apply(seat, action, version, None, memory)
                    except ProtocolError as error:
                        if error.code == "stale":  # another writer went first: the bot plays on from there
                            continue
                        log.error("table %s: bot at seat %d failed: %s", self.id, seat, error)
                        return
                    self.broadcast()
        finally:
            self._bot_running = False


def _data_text(data: dict[str, Any], records: list[list[Any]]) -> str:
    """A turn table's stored data: the host's data and the latest records' entries (a restored
    table's history tail, without a replay)."""
    return json.dumps({**data, "records": records[-HISTORY_TAIL:]}, separators=(",", ":"))


def _added_records(state: State[Any], head: Any) -> list[tuple[int, Any]]:
    """The records ``state`` added since its history's newest node was ``head`` (walked from the
    newest node back to it: a restored state's older records stay lazy), with the step."""
    added = []
    node = state._log
    while node is not head and node is not None:
        added.append(node[0])
        node = node[1]
    step = state.step
    return [(step, record) for record in reversed(added)]


def make_table(record: TableRecord, store: Store, executor: Executor, bot_delay: float,
               deck_loader: Callable[[str], Any], key: bytes | None = None) -> Table:
    """The master for a stored or new table record: the game's own master (a
    :class:`MasterSpec`), else a :class:`TurnTable` on its engine (``key``: the server's,
    which signs its snapshots)."""
    spec = master_specs().get(record.game)
    if spec is not None:
        return spec.master(record, store, executor, bot_delay)
    entry = get_game(record.game)
    rules = dict(record.rules)
    options: dict[str, Any] = {}
    if record.deck is not None:
        options["deck"] = deck_loader(record.deck)
    game = entry.game_class(**rules, **options)
    return TurnTable(record, store, executor, bot_delay, game, entry, key)


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
