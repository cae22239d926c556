"""The match service: one request, one action, bots, a compare-and-swap save.

See :mod:`fourcards.hosting` for the pattern and ``docs/embedding.md`` for a
whole web service on it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..engine import Bot, Game, State, _key_bytes, check_options, check_real
from ..errors import (
    BadTokenError, FourCardsError, InvalidRulesError, InvalidSeatsError, InvalidStateError, InvalidTypeError,
    NotYourTurnError, StaleActionError, TooCostlyError, UnknownMatchError,
)
from ..games import GameEntry, get_game
from ..rng import seed_in_range
from ..saves import load
from ..views import plain
from .bots import bot_for_turn, bot_kind, bot_seed_of, checked_bot, remember
from .store import LoggedAction, MatchStore, StoredMatch
from .updates import SPECTATOR, changes, delta, merge, record_entries, records_for

__all__ = ["MatchService", "Update", "Hosted", "DATA_FORMAT", "DATA_VERSION", "new_data"]

#: The ``format`` of a stored match's ``data`` (its version: :data:`DATA_VERSION`).
DATA_FORMAT: Final = "fourcards-hosted"
DATA_VERSION: Final = 1
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


@dataclass(frozen=True)
class Hosted:
    """A match just created: its ``id``, game, step (bots may have acted) and seats
    (None for a person, else the bot kind)."""

    id: str
    game: str
    step: int
    seats: tuple[str | None, ...]


@dataclass(frozen=True)
class Update:
    """What one seat (``seat``; None: a spectator) needs to bring its copy of the match
    from step ``since`` to step ``step``, in a size that does not grow with the match.

    ``view``: the fields of the seat's view that changed, with their value (every
    field when ``reset``: the client had no copy, or one older than the host's
    journal, and starts again from this one); ``appended``: lists of the view that
    only grew, with their new items; ``removed``: fields the view no longer has;
    ``records``: the history records added since, that the seat may see (each with
    the ``step`` after which it exists; on a reset, the latest few the host keeps);
    ``legal``: the seat's legal actions (``action``, ``text`` and fields) when it is
    to act, else empty; ``scores`` every seat's tally; ``result`` (``winners``,
    ``scores``, ``returns``) once the match is over. :meth:`apply_to` is what a
    client does with it."""

    match: str
    game: str
    seat: int | None
    since: int | None
    step: int
    current_player: int
    terminal: bool
    reset: bool
    view: dict[str, Any]
    appended: dict[str, list[Any]] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    legal: list[dict[str, Any]] = field(default_factory=list)
    scores: list[Any] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The update as JSON data (what a service answers)."""
        return {"match": self.match, "game": self.game, "seat": self.seat, "since": self.since, "step": self.step,
                "current_player": self.current_player, "terminal": self.terminal, "reset": self.reset,
                "view": self.view, "appended": self.appended, "removed": self.removed, "records": self.records,
                "legal": self.legal, "scores": self.scores, "result": self.result}

    def apply_to(self, view: Mapping[str, Any] | None) -> dict[str, Any]:
        """The seat's view at :attr:`step` from its view at :attr:`since` (ignored on a reset);
        a :class:`FourCardsError` for a view that cannot be it (not a mapping, or without a
        list this update appends to): ask for a reset (``since=None``)."""
        if self.reset or view is None:
            return dict(self.view)
        if not isinstance(view, Mapping):
            raise InvalidTypeError(f"view must be the seat's view at step {self.since} (a mapping), not "
                                   f"{type(view).__name__}")
        new = {name: value for name, value in view.items() if name not in self.removed}
        new.update(self.view)
        for name, items in self.appended.items():
            if not isinstance(new.get(name), list):
                raise FourCardsError(f"the view has no list {name!r} to add to: it is not the seat's view at step "
                                     f"{self.since} (ask for a reset: since=None)")
            new[name] = list(new[name]) + list(items)
        return new


@dataclass
class _Loaded:
    """A stored match read for one request: the version, its state and the host's data."""

    stored: StoredMatch
    state: State[Any]
    data: dict[str, Any]
    #: Every view of the new version, once it is built (by journal key).
    views: dict[str, dict[str, Any]] | None = None

    @property
    def seats(self) -> list[str | None]:
        seats: list[str | None] = self.data["seats"]
        return seats


#: The methods of a :class:`MatchStore` the service calls.
_STORE_METHODS: Final = ("get", "create", "replace", "delete")


def _key_of(seat: int | None) -> str:
    return SPECTATOR if seat is None else str(seat)


#: Kept for callers of the name before :func:`fourcards.hosting.bots.bot_kind`.
_bot_kind = bot_kind


def new_data(game: str, kinds: Sequence[str | None], seed: int) -> dict[str, Any]:
    """A new match's host data (:data:`DATA_FORMAT`): its game's registry name, the seats (None
    for a person, else the bot kind), the bots' seed (from the match's ``seed``), the bots'
    memory and the journal of recent updates (both empty)."""
    return {"format": DATA_FORMAT, "version": DATA_VERSION, "game": game, "seats": list(kinds),
            "bot_seed": bot_seed_of(seed), "memory": {}, "journal": []}


def _data_problem(data: dict[str, Any], players: int, step: int, kinds: set[str]) -> str | None:
    """What is wrong with a stored match's host data (what :func:`new_data` and the journal
    write, for a match of ``players`` seats at ``step`` and bots of ``kinds``), or None: every
    field the service reads, of its type (a row another writer or a damaged database changed)."""
    seats = data.get("seats")
    if not isinstance(seats, list) or len(seats) != players or not all(s is None or s in kinds for s in seats):
        return f"seats must list {players} seats, each null (a person) or a bot kind of the game " \
               f"({', '.join(sorted(kinds))})"
    seed = data.get("bot_seed")
    if type(seed) is not int or not 0 <= seed < 2**64:
        return "bot_seed must be an int 0..2**64-1"
    if not isinstance(data.get("memory"), dict):
        return "memory must be an object"
    journal = data.get("journal")
    if not isinstance(journal, list):
        return "journal must be a list"
    for number, entry in enumerate(journal):
        where = f"journal[{number}]"
        if not isinstance(entry, dict):
            return f"{where} must be an object"
        if not all(type(entry.get(end)) is int and 0 <= entry[end] <= step for end in ("from", "to")):
            return f"{where} must have 'from' and 'to' steps 0..{step}"
        records, changed = entry.get("records"), entry.get("changed")
        if not isinstance(records, list) or not all(
                isinstance(r, list) and len(r) == 3 and type(r[0]) is int and isinstance(r[2], dict)
                and (r[1] is None or isinstance(r[1], list) and all(isinstance(k, str) for k in r[1]))
                for r in records):
            return f"{where}: records must be [step, seats or null, view] lists"
        if not isinstance(changed, dict) or not all(
                isinstance(marks, dict) and all(type(mark) is int for mark in marks.values())
                for marks in changed.values()):
            return f"{where}: changed must map each seat to its fields' marks (ints)"
    return None


class MatchService:
    """Hosted matches of every registered game, for a service that keeps no match in
    memory between requests (thread-safe: share one service between threads).

    Each call loads the match from ``store`` (a signed snapshot: no replay), does its
    work, and, when it changed the match, stores the new version with a
    compare-and-swap on the step: two requests that loaded the same version cannot
    both store, so no action is ever lost or applied twice. ``key`` signs the
    snapshots and the seat tokens (keep it secret; it never leaves the server).

    ``journal``: how many stored versions the journal keeps for per-seat updates (an
    update since an older step is a reset); ``history``: how many of the latest
    records a reset holds (at most); ``retries``: how many times an action
    sent without ``expected_step`` is tried again on a newer version when another
    request stored first; ``bot_seconds``: how long the bots may play within one
    request (a match of bots alone is played out when it is created: a long one,
    or bots that search, could hold a worker for hours), after which the request
    is refused with :class:`~fourcards.errors.TooCostlyError` (``too_costly``)
    and nothing is stored (None: no bound).

    >>> from fourcards.games import DEFAULT_GAME, get_game
    >>> from fourcards.hosting import MatchService, MemoryMatchStore
    >>> service = MatchService(MemoryMatchStore(), key="server secret")
    >>> players = get_game(DEFAULT_GAME).new_game().num_players
    >>> hosted = service.create(DEFAULT_GAME, seats=[None] + ["random"] * (players - 1), seed=7)
    >>> first = service.update(hosted.id, seat=0)
    >>> first.reset, first.current_player == 0, len(first.legal) > 0
    (True, True, True)
    >>> after = service.act(hosted.id, seat=0, action=first.legal[0]["action"], expected_step=first.step)
    >>> after.since == first.step, after.step > first.step, after.current_player
    (True, True, 0)
    """

    def __init__(self, store: MatchStore, key: str | bytes, *, journal: int = 64, history: int = 20,
                 retries: int = 16, bot_seconds: float | None = 20.0) -> None:
        if isinstance(store, type):  # MemoryMatchStore, not MemoryMatchStore()
            raise InvalidTypeError(f"store must be a MatchStore, not the class {store.__name__} (make one)")
        missing = [name for name in _STORE_METHODS if not callable(getattr(store, name, None))]
        if missing:
            raise InvalidTypeError(f"store must be a MatchStore (with {', '.join(_STORE_METHODS)}), not "
                                   f"{type(store).__name__} {store!r:.80} (it has no {', '.join(missing)})")
        secret = _key_bytes(key)
        if secret is None:
            raise InvalidTypeError("a MatchService needs a key (str or bytes) to sign its saves and seat tokens")
        for name, value in (("journal", journal), ("history", history), ("retries", retries)):
            if type(value) is not int:
                raise InvalidTypeError(f"{name} must be an int, not {type(value).__name__}")
            if value < 1:
                raise FourCardsError(f"{name}={value} must be at least 1")
        if bot_seconds is not None:
            seconds = check_real(bot_seconds, "bot_seconds")
            if not 0 < seconds <= 86_400:  # NaN fails too
                raise FourCardsError(f"bot_seconds={bot_seconds!r} must be None or a number of seconds above 0 "
                                     "and at most a day")
            bot_seconds = seconds
        self.store = store
        self._key = secret
        self.bot_seconds = bot_seconds
        self.journal = journal
        self.history = history
        self.retries = retries

    # -- creating ---------------------------------------------------------------------------------
    def create(self, game: str, seats: Sequence[str | None], *, rules: Mapping[str, Any] | None = None,
               seed: int | None = None, setup: Mapping[str, Any] | None = None,
               match_id: str | None = None) -> Hosted:
        """A new match of ``game`` (a registered name) under ``rules``: one entry of
        ``seats`` a seat, None for a person or a bot kind of the game (``"best"``
        too); the bots play until a person is to act. ``seed`` (default: random)
        deals it; ``setup`` (a game's ``new_match`` options, such as a position);
        ``match_id`` (default: random) must be 1 to 128 of ``A-Z a-z 0-9 _ -``.

        Raises :class:`~fourcards.errors.UnknownGameError`,
        :class:`~fourcards.errors.InvalidRulesError` (also for an unknown option),
        :class:`~fourcards.errors.InvalidSeatsError` (the wrong number of seats, an
        unknown bot kind, a bot that declares neither ``stateless`` nor its memory)."""
        options = {} if rules is None else check_options(rules, "rules")
        match_setup = {} if setup is None else check_options(setup, "setup")
        entry = get_game(game)
        try:
            built = entry.new_game(**options)
        except TypeError as error:
            raise InvalidRulesError(f"{entry.name}: {error}") from None
        if seed is None:
            seed = secrets.randbits(63)
        else:
            seed = seed_in_range(seed)
        if match_id is None:
            match_id = secrets.token_urlsafe(12)
        elif not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
            raise FourCardsError(f"match id {match_id!r:.80} must be 1 to 128 of A-Z a-z 0-9 _ -")
        kinds = self._checked_seats(entry, built, seats)
        try:
            state = built.new_match(seed, **match_setup)
        except TypeError as error:
            raise FourCardsError(f"{entry.name}: {error}") from None
        data = new_data(entry.name, kinds, seed)
        loaded = _Loaded(StoredMatch(match_id, 0, "", ""), state, data)
        records: list[tuple[int, Any]] = [(0, record) for record in state.history]
        before: dict[str, dict[str, Any]] = {key: {} for key in self._keys(state)}
        log: list[LoggedAction] = []
        self._run_bots(loaded, log, records)
        stored = self._stored(loaded, before, 0, records, log)
        if not self.store.create(stored):
            raise FourCardsError(f"a match with the id {match_id!r} exists already")
        return Hosted(match_id, entry.name, state.step, tuple(kinds))

    def _checked_seats(self, entry: GameEntry, game: Game[Any], seats: Sequence[str | None]) -> list[str | None]:
        if isinstance(seats, (str, bytes)) or not isinstance(seats, Sequence):
            raise InvalidSeatsError(f"seats must be a list of None (a person) or bot kinds, not {seats!r:.80}")
        if len(seats) != game.num_players:
            raise InvalidSeatsError(f"{entry.name} under these rules has {game.num_players} seats, "
                                    f"not {len(seats)}")
        kinds: list[str | None] = []
        for seat, kind in enumerate(seats):
            if kind is None:
                kinds.append(None)
                continue
            resolved = checked_bot(entry, game, kind, seat)
            kinds.append(resolved)
        return kinds

    # -- acting -----------------------------------------------------------------------------------------
    def act(self, match_id: str, seat: int, action: int | str, *, expected_step: int | None = None,
            since: int | None = None) -> Update:
        """Apply ``action`` (its integer or its text) for ``seat``, run the bots until a
        person is to act, store the match, and answer ``seat``'s :class:`Update` since
        ``since`` (default: ``expected_step``, else the step the action was applied at).

        With ``expected_step`` (the step the seat chose on), an action on any other
        version is refused with :class:`~fourcards.errors.StaleActionError`, also when
        another request stored a version first; without it, the action is tried again
        on the newer version (up to ``retries`` times), where it may be refused for what
        the rules say then. Every refusal is a :class:`~fourcards.errors.FourCardsError`
        with its ``code``, and stores nothing."""
        for name, value in (("expected_step", expected_step), ("since", since)):
            if value is not None and type(value) is not int:
                raise InvalidTypeError(f"{name} must be an int, not {type(value).__name__}")
        for _ in range(self.retries):
            loaded = self._load(match_id)
            state = loaded.state
            version = loaded.stored.step
            if expected_step is not None and expected_step != version:
                raise StaleActionError(f"the action was chosen at step {expected_step}, but match {match_id} is "
                                       f"at step {version}")
            if since is not None and not 0 <= since <= version:  # refused before anything is applied or stored
                raise FourCardsError(f"since={since} is not a step of match {match_id} (0..{version})")
            seat = state.check_seat(seat, "seat")
            kind = loaded.seats[seat]
            if kind is not None:
                raise NotYourTurnError(f"seat {seat} of match {match_id} is played by the {kind} bot")
            before = self._views(state)
            records: list[tuple[int, Any]] = []
            code = state.verify(action, seat)
            self._apply(state, code, seat, records)
            log = [LoggedAction(version, seat, code)]
            self._run_bots(loaded, log, records)
            stored = self._stored(loaded, before, version, records, log)
            if self.store.replace(stored, version):
                start = since if since is not None else version
                return self._update(match_id, loaded, seat, start)
            if expected_step is not None:
                raise StaleActionError(f"the action was chosen at step {expected_step}, but another action was "
                                       f"stored at match {match_id} first")
        raise StaleActionError(f"match {match_id} changed {self.retries} times while this action was tried: "
                               "try again")

    def update(self, match_id: str, seat: int | None, since: int | None = None) -> Update:
        """``seat``'s :class:`Update` (None: a spectator's) since step ``since``; a reset
        (the whole view) when ``since`` is None or older than the journal."""
        if since is not None and type(since) is not int:
            raise InvalidTypeError(f"since must be an int, not {type(since).__name__}")
        loaded = self._load(match_id)
        if seat is not None:
            seat = loaded.state.check_seat(seat, "seat")
        return self._update(match_id, loaded, seat, since)

    # -- reading ----------------------------------------------------------------------------------------
    def info(self, match_id: str) -> dict[str, Any]:
        """Public facts of a match: game, title, rules, seats (None for a person, else the
        bot kind), step, whose turn, whether over, scores and result."""
        loaded = self._load(match_id)
        state = loaded.state
        return {"match": match_id, "game": loaded.data["game"], "title": state.game.info().title,
                "rules": plain(state.game.rules_view()), "seats": list(loaded.seats), "step": state.step,
                "current_player": state.current_player, "terminal": state.is_terminal,
                "scores": plain(list(state.scores)), "result": self._result(state)}

    def state(self, match_id: str) -> State[Any]:
        """The whole match (every hand: for the server, never for a client)."""
        return self._load(match_id).state

    def delete(self, match_id: str) -> None:
        """Forget a match (:class:`~fourcards.errors.UnknownMatchError` when there is none)."""
        if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id) or not self.store.delete(match_id):
            raise UnknownMatchError(f"no match has the id {match_id!r:.80}")

    # -- seat tokens ------------------------------------------------------------------------------------
    def seat_token(self, match_id: str, seat: int) -> str:
        """The secret a person at ``seat`` of ``match_id`` proves their seat with (an
        HMAC of the match and the seat under the service's key: nothing to store).

        Refuses a seat or a match that does not exist:
        :class:`~fourcards.errors.InvalidTypeError` (``match_id`` not a str, ``seat``
        not an int), :class:`~fourcards.errors.UnknownMatchError`,
        :class:`~fourcards.errors.UnknownSeatError` (off the match's table)."""
        self._check_token_args(match_id, seat)
        self._load(match_id).state.check_seat(seat, "seat")
        return self._mac(match_id, seat)

    def check_token(self, match_id: str, seat: int, token: Any) -> None:
        """Refuse with :class:`~fourcards.errors.BadTokenError` unless ``token`` is
        :meth:`seat_token` of that seat (compared in constant time). The match is not
        read, so the token is checked before anything else (:meth:`seat_token` gives
        none for a seat or match that does not exist)."""
        self._check_token_args(match_id, seat)
        expected = self._mac(match_id, seat)
        given = token.encode("utf-8", "surrogatepass") if isinstance(token, str) else b""
        if not hmac.compare_digest(expected.encode("ascii"), given):
            raise BadTokenError(f"the token is not the token of seat {seat} of match {match_id}")

    @staticmethod
    def _check_token_args(match_id: Any, seat: Any) -> None:
        if not isinstance(match_id, str):
            raise InvalidTypeError(f"match_id must be a str, not {type(match_id).__name__} {match_id!r:.80}")
        if type(seat) is not int:
            raise InvalidTypeError(f"seat must be an int, not {type(seat).__name__} {seat!r:.80}")

    def _mac(self, match_id: str, seat: int) -> str:
        mac = hmac.new(self._key, f"fourcards-seat\0{match_id}\0{seat}".encode("utf-8", "surrogatepass"),
                       hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:24]).decode("ascii")

    # -- inside ---------------------------------------------------------------------------------------
    def _load(self, match_id: str) -> _Loaded:
        if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
            raise UnknownMatchError(f"no match has the id {match_id!r:.80}")
        stored = self.store.get(match_id)
        if stored is None:
            raise UnknownMatchError(f"no match has the id {match_id!r}")
        state = load(stored.save, self._key)
        try:
            data = json.loads(stored.data)
        except (ValueError, TypeError) as error:
            raise InvalidStateError(f"match {match_id}: the stored data is not JSON: {error}") from None
        except RecursionError:
            raise InvalidStateError(f"match {match_id}: the stored data is nested too deeply") from None
        entry = get_game(state.game.name)
        if not isinstance(data, dict):
            problem: str | None = "it is not an object"
        elif data.get("format") != DATA_FORMAT:
            problem = f"format must be {DATA_FORMAT!r}"
        elif type(data.get("version")) is not int or data["version"] != DATA_VERSION:
            problem = f"version must be {DATA_VERSION} (what this fourcards reads)"
        elif data.get("game") != entry.name:
            problem = f"game must be {entry.name!r}, the save's"
        elif state.step != stored.step:
            problem = f"the save is at step {state.step}, the row at {stored.step}"
        else:
            problem = _data_problem(data, state.game.num_players, state.step, set(entry.bot_kinds))
        if problem is not None:
            raise InvalidStateError(f"match {match_id}: the stored data is not a fourcards host's: {problem}")
        return _Loaded(stored, state, data)

    def _keys(self, state: State[Any]) -> list[str]:
        return [*(str(seat) for seat in range(state.game.num_players)), SPECTATOR]

    def _views(self, state: State[Any]) -> dict[str, dict[str, Any]]:
        """Every seat's view and the spectators', by journal key."""
        game = state.game
        views = {str(seat): game.observation_view(state.observation(seat)) for seat in range(game.num_players)}
        views[SPECTATOR] = game.spectator_view(state)
        return views

    @staticmethod
    def _apply(state: State[Any], code: int, seat: int, records: list[tuple[int, Any]]) -> None:
        """Apply a checked action; the records it added go to ``records`` with their step."""
        head = state._log
        state.apply(code, seat)
        added = []
        node = state._log
        while node is not head:
            added.append(node[0])
            node = node[1]
        step = state.step
        records.extend((step, record) for record in reversed(added))

    def _run_bots(self, loaded: _Loaded, log: list[LoggedAction], records: list[tuple[int, Any]]) -> None:
        """Let the bots act until a person is to act (or the match is over)."""
        state = loaded.state
        entry = get_game(state.game.name)
        seats = loaded.seats
        bots: dict[int, Bot] = {}
        memory: dict[str, Any] = loaded.data["memory"]
        limit = state.game.max_game_length
        deadline = math.inf if self.bot_seconds is None else time.perf_counter() + self.bot_seconds
        played = 0
        while not state.is_terminal and seats[state.current_player] is not None:
            seat = state.current_player
            if state.step >= limit:
                raise RuntimeError(f"the bots played past the game's bound of {limit} actions")
            if time.perf_counter() > deadline:
                raise TooCostlyError(f"the bots of match {loaded.stored.id} played {played} "
                                     f"action{'s' if played != 1 else ''} and no person is to act yet: the "
                                     f"service lets the bots play {self.bot_seconds:g} s a request "
                                     "(MatchService(bot_seconds=...)); nothing was stored")
            played += 1
            kind = seats[seat]
            assert kind is not None
            bot = bots.get(seat)
            if bot is None:
                bot = bots[seat] = bot_for_turn(entry, state.game, kind, loaded.data["bot_seed"], seat, state.step,
                                                memory)
            choice = bot.choose(state.observation(seat), state.legal_actions())
            try:
                code = state.verify(choice, seat)
            except (FourCardsError, TypeError) as error:
                raise RuntimeError(f"the {kind} bot at seat {seat} chose {choice!r}: {error}") from None
            log.append(LoggedAction(state.step, seat, code, bot=True))
            self._apply(state, code, seat, records)
            remember(bot, seat, memory)

    def _stored(self, loaded: _Loaded, before: dict[str, dict[str, Any]], version: int,
                records: list[tuple[int, Any]], log: list[LoggedAction]) -> StoredMatch:
        """The new version of a match: its snapshot, and its data with a journal entry for what changed."""
        state = loaded.state
        after = self._views(state)
        entry = {"from": version, "to": state.step,
                 "records": record_entries(state.game, records, list(after)),
                 "changed": {key: changes(before.get(key, {}), view) for key, view in after.items()}}
        journal = loaded.data["journal"]
        journal.append(entry)
        del journal[:-self.journal]
        loaded.views = after
        try:
            data = json.dumps(loaded.data, separators=(",", ":"))
        except (TypeError, ValueError) as error:
            raise RuntimeError(f"match data is not JSON (a bot's memory?): {error}") from None
        return StoredMatch(loaded.stored.id, state.step, state.to_json(self._key, snapshot=True), data, tuple(log))

    @staticmethod
    def _result(state: State[Any]) -> dict[str, Any] | None:
        if not state.is_terminal:
            return None
        return {"winners": list(state.winners), "scores": plain(list(state.scores)), "returns": list(state.returns())}

    def _update(self, match_id: str, loaded: _Loaded, seat: int | None, since: int | None) -> Update:
        state = loaded.state
        key = _key_of(seat)
        if loaded.views is not None:
            view = loaded.views[key]
        elif seat is None:
            view = state.game.spectator_view(state)
        else:
            view = state.game.observation_view(state.observation(seat))
        step = state.step
        if since is not None and not 0 <= since <= step:
            raise FourCardsError(f"since={since} is not a step of match {match_id} (0..{step})")
        entries: list[dict[str, Any]] = loaded.data["journal"]
        starts = [i for i, entry in enumerate(entries) if entry["from"] == since]
        reset = since is None or (since != step and not starts)
        appended: dict[str, list[Any]] = {}
        removed: list[str] = []
        if reset:
            replaced = dict(view)
            records = records_for(entries, key, -1)[-self.history:]
        elif since == step:
            replaced, records = {}, []
        else:
            assert since is not None
            after = entries[starts[-1]:]
            marks = merge(entry["changed"].get(key, {}) for entry in after)
            replaced, appended, removed = delta(view, marks)
            records = records_for(after, key, since)
        legal = state.legal_action_views() if seat is not None and seat == state.current_player else []
        return Update(match_id, loaded.data["game"], seat, since, step, state.current_player, state.is_terminal,
                      reset, replaced, appended, removed, records, legal, plain(list(state.scores)),
                      self._result(state))
