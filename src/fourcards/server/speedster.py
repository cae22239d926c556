"""Zangle Speedster at the game server: one more master behind the server's
dispatch table (see :class:`fourcards.server.tables.MasterSpec`).

Speedster is played in real time, not in turns: players send ``call`` (a
Zangle, by its notation as the state lists it) and ``hit`` whenever they like;
the master stamps each event on arrival with its clock and resolves them in
time order every 50 ms (:class:`~fourcards.zangle.speedster.SpeedsterTable`).
The registry's Zangle entry names :data:`SPEEDSTER` in its ``masters``. It
lives with the server, above the games (the game package knows no server).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from ..errors import FourCardsError
from ..zangle.cards import CENTRE, KINDS, OWN, Zangle, best_zangle, find_zangles, kind_code
from ..zangle.game import zangle_view
from ..zangle.speedster import Snapshot, SpeedsterTable
from .protocol import MAX_TEXT_LENGTH, Event, ProtocolError
from .store import LogEntry, Store, TableRecord
from .tables import HISTORY_TAIL, Client, MasterSpec, Table

__all__ = ["SPEEDSTER", "SpeedsterMaster", "speedster_view", "VIEW_ZANGLES", "fits_a_call", "callable_zangles", "parse_zangle_text", "check_rules", "RULES"]

RESOLVE_EVERY = 0.05
"""Seconds between two resolutions."""

#: The most Zangles a seat's view lists (``more_zangles`` says when there are more:
#: many Z cards make very many, each number of them another Zangle).
VIEW_ZANGLES = 100


#: The most pieces a Zangle a ``call`` carries can have (each piece takes 9 characters
#: or more of the call's ``MAX_TEXT_LENGTH``).
CALL_PIECES = MAX_TEXT_LENGTH // 9


def fits_a_call(zangle: Zangle) -> bool:
    """Whether a ``call`` can carry the Zangle: its text is at most ``MAX_TEXT_LENGTH``
    characters (about 15 pieces; only Z cards make more)."""
    return len(str(zangle)) <= MAX_TEXT_LENGTH


def callable_zangles(centre: Sequence[int], cards: Sequence[int], most: int) -> tuple[list[Zangle], bool]:
    """The first ``most`` Zangles a seat can make that a ``call`` can carry, and whether there may be more."""
    limit = most + 1
    while True:  # a few rounds at most: the pieces are capped, so the Zangles are few hundred a shape
        found = find_zangles(centre, cards, limit=limit, most_pieces=CALL_PIECES)
        fitting = [z for z in found if fits_a_call(z)]
        if len(fitting) > most or len(found) < limit:
            return fitting[:most], len(fitting) > most
        limit *= 4

#: The slowest a Speedster bot may be made to react, in seconds.
MAX_BOT_REACTION = 60.0

#: The table's rule options, as the catalogue lists them.
RULES: tuple[dict[str, Any], ...] = (
    {"name": "players", "type": "int", "default": 3},
    {"name": "rounds", "type": "int", "default": 5},
    {"name": "check", "type": "str", "default": "each", "choices": ["each", "at_round_end"]},
    {"name": "deck", "type": "object", "default": []},
    {"name": "bot_reaction", "type": "float", "default": 1.5, "low": 0.0, "high": MAX_BOT_REACTION},
)

_PIECE = re.compile(r"^\s*([A-Za-z0-9]+)\s*\(\s*(centre|own)\s*\)\s*$")


def parse_zangle_text(text: str) -> tuple[tuple[str, str], list[tuple[str, str]]]:
    """``"5a(own) = Z(centre) + 1(own)"`` as ((target, place), [(piece, place), ...]).

    >>> parse_zangle_text("4b(centre) = 3(own) + 1(centre)")
    (('4b', 'centre'), [('3', 'own'), ('1', 'centre')])
    """
    target_text, equals, pieces_text = text.partition("=")
    target = _PIECE.match(target_text)
    pieces = [_PIECE.match(part) for part in pieces_text.split("+")]
    if not equals or target is None or any(p is None for p in pieces):
        raise ProtocolError("bad_message", f"{text!r} is not a Zangle: write it as "
                            "'5a(own) = Z(centre) + 1(own) + ...'")
    return (target[1], target[2]), [(p[1], p[2]) for p in pieces if p is not None]




def check_rules(rules: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The seats and the full rules of a new table (``FourCardsError`` for bad ones)."""
    known = {o["name"] for o in RULES}
    if set(rules) - known:
        raise FourCardsError(f"unknown rules {sorted(set(rules) - known)}; Speedster has {sorted(known)}")
    full = {o["name"]: o["default"] for o in RULES}
    full.update(rules)
    if isinstance(full["bot_reaction"], int) and not isinstance(full["bot_reaction"], bool):
        full["bot_reaction"] = float(full["bot_reaction"])
    if not isinstance(full["bot_reaction"], float):
        raise FourCardsError("bot_reaction must be a number of seconds")
    if not 0.0 <= full["bot_reaction"] <= MAX_BOT_REACTION:  # NaN fails too; an int is checked as a float
        raise FourCardsError(f"bot_reaction={full['bot_reaction']!r} must be 0 to {MAX_BOT_REACTION:g} seconds")
    try:
        SpeedsterTable(players=full["players"], seed=0, rounds=full["rounds"], check=full["check"],
                       deck=dict(full["deck"]) if full["deck"] else None)
    except (TypeError, ValueError) as error:
        raise FourCardsError(str(error)) from None
    return int(full["players"]), full


def speedster_view(snapshot: Snapshot, seat: int | None, zangles: list[Zangle], more: bool = False) -> dict[str, Any]:
    """A seat's view: the public table (everything is face up but the piles) and
    the Zangles this seat could call now (each ``{target, pieces, text}``; the
    first :data:`VIEW_ZANGLES`, ``more_zangles`` true when there are more). A
    spectator's (``seat`` None) is the same table with no Zangles: nothing in it is hidden.
    The server lists only the Zangles a ``call`` can carry (:func:`callable_zangles`)."""
    return {
        "seat": seat, "round": snapshot.round, "centre": [KINDS[k] for k in snapshot.centre],
        "cards": [[KINDS[k] for k in c] for c in snapshot.cards], "piles": list(snapshot.piles),
        "centre_pile": snapshot.centre_pile, "levels": list(snapshot.levels), "totals": list(snapshot.totals),
        "over": snapshot.over, "playing": list(snapshot.playing),
        "zangles": [zangle_view(z) for z in zangles], "more_zangles": more,
    }


class SpeedsterMaster(Table):
    """Zangle Speedster in real time: events stamped on arrival, resolved every 50 ms."""

    def __init__(self, record: TableRecord, store: Store, executor: Executor, bot_delay: float) -> None:
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

    def attended(self) -> bool:
        """Whether a person is connected (a seat's or a spectator's connection). Unlike a turn
        table's, a Speedster table does not wait for its people: its bots play on, so an empty
        seat for a person (claimed or not) keeps nothing alive, and a table nobody watches
        expires as an idle one does (its bots' events would be stored for good)."""
        return bool(self.clients or self.spectators)

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

    @staticmethod
    def _zangle(text: str, message_id: str | None) -> Zangle:
        (target, place), pieces = parse_zangle_text(text)
        places = {"centre": CENTRE, "own": OWN}
        try:
            return Zangle(kind_code(target), places[place],
                          tuple(sorted((kind_code(k), places[p]) for k, p in pieces)))
        except FourCardsError as error:
            raise ProtocolError("bad_message", str(error), message_id) from None

    def state_message(self, seat: int) -> dict[str, Any]:
        snapshot = self.table.snapshot()
        history = self._history(self.table.outcomes[-HISTORY_TAIL:])
        return {"type": "state", "table": self.id, "seat": seat, "version": self.version, "current_player": -1,
                "terminal": snapshot.over, "view": self._view(snapshot, seat), "legal_actions": [],
                "scores": list(snapshot.totals), "history": history}

    @staticmethod
    def _view(snapshot: Snapshot, seat: int | None) -> dict[str, Any]:
        playing = seat is not None and seat in snapshot.playing
        if not playing or seat is None:
            return speedster_view(snapshot, seat, [])
        return speedster_view(snapshot, seat, *callable_zangles(snapshot.centre, snapshot.cards[seat], VIEW_ZANGLES))

    def view_of(self, seat: int | None) -> dict[str, Any]:
        return self._view(self.table.snapshot(), seat)

    def records_since(self, seat: int | None, version: int) -> list[dict[str, Any]] | None:
        """The outcomes resolved after ``version`` (the version counts them), each with its ``step``."""
        outcomes = self.table.outcomes
        if not 0 <= version <= len(outcomes):
            return None
        return [{"step": step, **self._outcome_view(o)} for step, o in enumerate(outcomes[version:], version + 1)]

    def update_parts(self, seat: int | None) -> tuple[str, str]:
        return "[]", json.dumps(list(self.table.totals))

    def _outcome_view(self, outcome: Any) -> dict[str, Any]:
        """One outcome as a record view: ``kind``, ``player``, ``detail`` (text),
        ``timestamp``, ``text``, and for a Zangle made ``zangle`` ({target, pieces, text})."""
        o = outcome
        view: dict[str, Any] = {
            "kind": o.kind, "player": o.player, "detail": o.detail, "timestamp": round(o.timestamp, 3),
            "text": f"P{o.player} {o.kind}" + (f": {o.detail}" if o.detail else "") if o.player >= 0
            else f"{o.kind}: {o.detail}"}
        if o.kind == "zangle" and o.detail:
            with contextlib.suppress(ProtocolError):  # not a Zangle's notation: the text alone
                view["zangle"] = zangle_view(self._zangle(o.detail, None))
        return view

    def _history(self, outcomes: list[Any]) -> list[dict[str, Any]]:
        return [self._outcome_view(o) for o in outcomes]

    def spectator_message(self) -> dict[str, Any]:
        snapshot = self.table.snapshot()
        return {"type": "state", "table": self.id, "seat": None, "version": self.version, "current_player": -1,
                "terminal": snapshot.over, "view": self._view(snapshot, None), "legal_actions": [],
                "scores": list(snapshot.totals), "history": self._history(self.table.outcomes[-HISTORY_TAIL:])}

    def public_records(self) -> list[dict[str, Any]]:
        return self._history(list(self.table.outcomes))

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

    async def event(self, seat: int, message: Event, client: Client) -> None:
        await asyncio.shield(self._event(seat, message, client))

    async def _event(self, seat: int, message: Event, client: Client) -> None:
        if message.type == "call":
            zangle_text = message.text("zangle", 200)
        else:
            message.no_fields()
            zangle_text = None
        async with self.lock:
            done = self._repeat(seat, message.id)
            if done is not None:
                client.send({"type": "ack", "id": message.id, "version": done})
                return
            await self._submit(seat, zangle_text, message.version, message.id)
            client.send({"type": "ack", "id": message.id, "version": self.version})

    async def _submit(self, seat: int, zangle_text: str | None, version: int, message_id: str | None) -> None:
        if self.closed:
            raise ProtocolError("table_expired", "the table was closed", message_id)
        if self.table.over:
            raise ProtocolError("game_over", "the game is over", message_id)
        if version != self.version:
            raise ProtocolError("stale", f"the event was chosen at version {version}, but the table is at "
                                f"{self.version}", message_id)
        if seat not in self.table.playing:
            raise ProtocolError("illegal_action", f"seat {seat} is not playing this round", message_id)
        zangle = None if zangle_text is None else self._zangle(zangle_text, message_id)
        kind = "hit" if zangle is None else "call"
        timestamp = max(self.now(), self.table.clock)
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
                    text = await self.run_bot(self._bot_choice, seat, kind, self.version)
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
        snapshot = self.table.snapshot()
        if seat not in snapshot.playing:
            return None
        choice: Zangle | None = None
        if kind == "random":
            options, _ = callable_zangles(snapshot.centre, snapshot.cards[seat], VIEW_ZANGLES)
            choice = options[(version * 7919 + seat) % len(options)] if options else None
        else:
            # the best a person's call could carry too: fewer Z cards until its text fits
            for most in range(CALL_PIECES, 1, -1):
                choice = best_zangle(list(snapshot.centre), list(snapshot.cards[seat]), most_pieces=most)
                if choice is None or fits_a_call(choice):
                    break
            else:
                choice = None
        if choice is not None:
            return str(choice)
        return "hit" if snapshot.centre_pile else None


SPEEDSTER = MasterSpec(
    name="zangle-speedster", title="Zangle Speedster", game="zangle", players=(2, 8), rules=RULES,
    bots=("random", "greedy"), master=SpeedsterMaster, check_rules=check_rules, messages=("call", "hit"),
    real_time=True, script="fourcards.server:static/games/zangle-speedster.js",
)
"""Speedster's entry in the server's dispatch table."""
