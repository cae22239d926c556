"""Zangle Speedster: real time, driven by timestamped events from several players.

Players (or a server on their behalf) :meth:`SpeedsterTable.submit` calls
(a call and its Zangle arrive as one event) and hits, each with a timestamp;
:meth:`SpeedsterTable.resolve` applies the waiting events in timestamp order
(ties: the lower seat first, then a seat's calls before its hits, then the
calls in Zangle order) up to a time.  Every method takes one lock, so the
table is safe to drive from many threads; the outcome depends only on the
events and their timestamps, not on which thread delivered them first.

A call names the centre :attr:`~Snapshot.version` it was made on (by default
the version when it is submitted).  A call that loses a race (its Zangle fitted
the centre of its version, and the centre changed since so that it no longer
fits) is a ``late call``: refused, without penalty.  A Zangle that does not fit
the centre it was made on (nor the caller's face-up cards then) is a ``false
call``, whatever version it names: the table keeps every version's centre.  A
Zangle that fits the table as it is when the call is resolved is made, whatever
version it names.

>>> from fourcards.zangle.cards import best_zangle
>>> table = SpeedsterTable(players=2, seed=3)
>>> snapshot = table.snapshot()
>>> table.submit_hit(0, timestamp=0.5)
>>> [r.kind for r in table.resolve(1.0)]
['hit']

Decisions beyond the rules file: the round's winner (who gains an equalizer
level) is the player who ran out of cards, or, when the round ends with no
Zangle possible and no hit possible (the centre draw pile empty, or every
player at level 3 or more holding 3 face-up cards), the players holding the
fewest cards; a hit is refused when the centre draw pile is empty or when a
level-3 player already has 3 face-up cards; with ``check="at_round_end"`` each
round winner with a wrong Zangle scores 5 and everyone else 0, and gains no
equalizer level: the equalizer goes to "el jugador que gana esa ronda", and a
player whose Zangles were wrong has the round's worst score; a tie for the
lowest total after the last round is settled by a real-time bonus round (4
cards each, face up, no pile, except that a player at level 3 or more shows
3 and keeps the 4th face down as their pile), shared when nobody can finish.
"""

from __future__ import annotations

import heapq
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from ..engine import check_real
from ..errors import FourCardsError, InvalidRulesError, InvalidTypeError, UnknownSeatError
from ..rng import Rng

from .cards import (CENTRE, KINDS, MAX_ROUND_CARDS, OWN, Zangle, check_zangle, check_zangle_value, deck_cards,
                    has_zangle)

__all__ = ["SpeedsterTable", "Event", "Outcome", "Snapshot", "SpeedsterBot", "run_speedster"]

CHECKS: Final = ("each", "at_round_end")
#: The most rounds of a match (as the turn-style game's option).
MAX_ROUNDS: Final = 1000


@dataclass(frozen=True)
class Event:
    timestamp: float
    player: int
    sequence: int
    kind: str  # "call" or "hit"
    zangle: Zangle | None = None
    version: int = 0  # a call: the centre version it was made on


@dataclass(frozen=True)
class Outcome:
    """What an event did: ``kind`` is ``zangle``, ``false call``, ``late call``
    (lost a race: refused without penalty), ``hit``, ``refused hit``,
    ``round end`` or ``game end``."""

    timestamp: float
    player: int
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class Snapshot:
    """The public table at a moment (everything face up)."""

    round: int
    centre: tuple[int, ...]
    cards: tuple[tuple[int, ...], ...]
    piles: tuple[int, ...]
    centre_pile: int
    levels: tuple[int, ...]
    totals: tuple[int, ...]
    over: bool
    playing: tuple[int, ...]
    version: int = 0
    """The centre's version: it goes up with every change of the centre cards."""


def _valid(zangle: Zangle) -> bool:
    return check_zangle(KINDS[zangle.target], [KINDS[k] for k, _ in zangle.pieces],
                        ["centre" if p == CENTRE else "own" for _, p in zangle.pieces],
                        "centre" if zangle.target_place == CENTRE else "own").valid


class SpeedsterTable:
    """A Speedster game: ``rounds`` rounds (5), equalizer levels, the ``check`` option."""

    def __init__(self, players: int = 3, seed: int = 0, rounds: int = 5, check: str = "each",
                 deck: Mapping[str, int] | None = None) -> None:
        if not isinstance(players, int) or not 2 <= players <= 8:
            raise InvalidRulesError(f"players={players!r}: Speedster is for 2 to 8 players")
        if check not in CHECKS:
            raise InvalidRulesError(f"check={check!r}: each or at_round_end")
        if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
            raise InvalidRulesError(f"rounds={rounds!r:.40} must be an int 1..{MAX_ROUNDS}")
        self.players, self.rounds, self.check = players, rounds, check
        self._deck = deck_cards(deck)
        if len(self._deck) < 10 * players + 4 + 5 * players:
            raise InvalidRulesError("the deck is too small for this many players")
        if rounds * len(self._deck) > MAX_ROUND_CARDS:
            raise InvalidRulesError(f"rounds={rounds} of a deck of {len(self._deck)} cards: at most "
                                    f"{MAX_ROUND_CARDS} cards dealt in a match (rounds x deck)")
        if not has_zangle(self._deck, self._deck):
            raise InvalidRulesError(f"no Zangle can be made from this deck ({len(self._deck)} cards)")
        self._rng = Rng(seed)
        self._lock = threading.Lock()
        self._queue: list[tuple[Any, ...]] = []
        self.version = 0
        #: Each version's centre and each seat's face-up cards (the most they held in it:
        #: within a version they only grow, by hits), to judge a call by its version.
        self._versions: dict[int, tuple[tuple[int, ...], list[tuple[int, ...]]]] = {}
        self._sequence = 0
        self._clock = float("-inf")
        self.levels = [0] * players
        self.totals = [0] * players
        self.round = 0
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.outcomes: list[Outcome] = []
        self._start_round(list(range(players)), bonus=False)

    @property
    def clock(self) -> float:
        """The latest time resolved so far: an event stamped earlier is refused."""
        return self._clock

    # -- rounds ------------------------------------------------------------------------------
    def _limit(self, seat: int) -> int:
        return 3 if self.levels[seat] >= 3 else 4

    def _start_round(self, seats: list[int], bonus: bool) -> None:
        self.round += 1
        self.bonus = bonus
        self.playing = seats
        cards = list(self._deck)
        self._rng.shuffle(cards)
        self.piles: list[list[int]] = [[] for _ in range(self.players)]
        self.cards: list[list[int]] = [[] for _ in range(self.players)]
        self.zangles: list[list[tuple[Zangle, bool]]] = [[] for _ in range(self.players)]
        self.taken: list[int] = [0] * self.players
        for seat in seats:
            if bonus:
                dealt = [cards.pop() for _ in range(4)]
                # a level-3 player shows at most 3: the 4th waits face down as their pile
                self.cards[seat] = dealt[:self._limit(seat)]
                self.piles[seat] = dealt[self._limit(seat):]
            else:
                self.piles[seat] = [cards.pop() for _ in range(10)]
                if self.levels[seat] >= 4:
                    self.piles[seat] += [cards.pop() for _ in range(5)]
        self.centre = [cards.pop() for _ in range(4)]
        self.centre_pile = cards
        for seat in seats:
            self._refill_own(seat)
        self._new_version()

    def _new_version(self) -> None:
        """The centre changed: a new version, remembered with the face-up cards."""
        self.version += 1
        self._versions[self.version] = (tuple(self.centre), [tuple(cards) for cards in self.cards])

    def _refill_own(self, seat: int) -> None:
        while len(self.cards[seat]) < self._limit(seat) and self.piles[seat]:
            self.cards[seat].append(self.piles[seat].pop())

    def _refill_centre(self) -> None:
        while len(self.centre) < 4 and self.centre_pile:
            self.centre.append(self.centre_pile.pop())

    def _holding(self, seat: int) -> int:
        return len(self.cards[seat]) + len(self.piles[seat])

    def _may_hit(self, seat: int) -> bool:
        return bool(self.centre_pile) and len(self.cards[seat]) < (3 if self.levels[seat] >= 3 else 1 << 30)

    def _check_round_end(self, timestamp: float) -> None:
        out = [s for s in self.playing if self._holding(s) == 0]
        stuck = (not any(self._may_hit(s) for s in self.playing)
                 and not any(has_zangle(self.centre, self.cards[s]) for s in self.playing))
        if not out and not stuck:
            return
        if self.bonus:
            self.winners = tuple(out) if out else tuple(self.playing)
            self._finish(timestamp)
            return
        fewest = min(self._holding(s) for s in self.playing)
        round_winners = out or [s for s in self.playing if self._holding(s) == fewest]
        points = [self._holding(p) for p in range(self.players)]
        wrong: list[int] = []
        if self.check == "at_round_end":
            wrong = [seat for seat in round_winners if any(not valid for _, valid in self.zangles[seat])]
            if wrong:  # each wrong winner scores 5, everyone else 0
                points = [5 if p in wrong else 0 for p in range(self.players)]
        for p in range(self.players):
            self.totals[p] += points[p]
        for seat in round_winners:
            if seat not in wrong:  # a winner caught with a wrong Zangle did not win the round
                self.levels[seat] += 1
        self.outcomes.append(Outcome(timestamp, round_winners[0], "round end",
                                     f"round {self.round}: points {points}, totals {self.totals}"))
        if self.round < self.rounds:
            self._start_round(list(range(self.players)), bonus=False)
            return
        low = min(self.totals)
        tied = [p for p in range(self.players) if self.totals[p] == low]
        if len(tied) > 1:
            self._start_round(tied, bonus=True)
            return
        self.winners = tuple(tied)
        self._finish(timestamp)

    def _finish(self, timestamp: float) -> None:
        self.over = True
        self._queue.clear()
        self.outcomes.append(Outcome(timestamp, -1, "game end", f"winners {list(self.winners)}"))

    # -- events --------------------------------------------------------------------------------
    def submit(self, player: int, kind: str, timestamp: float, zangle: Zangle | None = None,
               version: int | None = None) -> None:
        """Queue a call (with its Zangle and the centre ``version`` it was made
        on, by default the current one) or a hit; applied by :meth:`resolve`.
        Everything is checked here, before the event is queued."""
        player = self._check_player(player)
        if kind not in ("call", "hit"):
            raise FourCardsError(f"{kind!r} is not an event: call or hit")
        timestamp = _check_time(timestamp, "timestamp")
        if kind == "call":
            if not isinstance(zangle, Zangle):
                raise FourCardsError("a call arrives with its Zangle")
            check_zangle_value(zangle)
        elif zangle is not None:
            raise FourCardsError("a hit carries no Zangle")
        with self._lock:
            if version is None:
                version = self.version
            if isinstance(version, bool) or not isinstance(version, int):
                raise InvalidTypeError(f"version must be an int, not {type(version).__name__}")
            if not 1 <= version <= self.version:
                raise FourCardsError(f"version {version!r} is not a centre version seen yet (1..{self.version})")
            if timestamp < self._clock:
                raise FourCardsError(f"event at {timestamp} arrives after the table resolved {self._clock}")
            self._sequence += 1
            event = Event(float(timestamp), player, self._sequence, kind, zangle, version)
            # The order depends on the events only, never on delivery: ties by seat,
            # then calls before hits, then the calls' Zangles and versions.
            content = ((0, zangle.target, zangle.target_place, zangle.pieces, -version) if zangle is not None
                       else (1,))
            heapq.heappush(self._queue, (event.timestamp, player, content, self._sequence, event))

    def _check_player(self, player: object) -> int:
        if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
            raise InvalidTypeError(f"player must be an int, not {type(player).__name__}")
        if not 0 <= player < self.players:
            raise UnknownSeatError(f"player {player!r} is not a seat (0..{self.players - 1})")
        return int(player)

    def pending(self, player: int) -> int:
        """How many of ``player``'s events wait to be resolved."""
        player = self._check_player(player)
        with self._lock:
            return sum(1 for entry in self._queue if entry[1] == player)

    def submit_call(self, player: int, zangle: Zangle, timestamp: float, version: int | None = None) -> None:
        self.submit(player, "call", timestamp, zangle, version)

    def submit_hit(self, player: int, timestamp: float) -> None:
        self.submit(player, "hit", timestamp)

    def resolve(self, until: float | None = None) -> list[Outcome]:
        """Apply the queued events up to ``until`` (all when ``None``), in
        timestamp order (ties: the lower seat first); return their outcomes."""
        if until is not None:
            until = _check_time(until, "until")
        with self._lock:
            done: list[Outcome] = []
            while self._queue and (until is None or self._queue[0][0] <= until):
                event = heapq.heappop(self._queue)[-1]
                self._clock = max(self._clock, event.timestamp)
                if self.over:
                    continue
                before = len(self.outcomes)
                self._apply(event)
                done += self.outcomes[before:]
            if until is not None:
                self._clock = max(self._clock, until)
            return done

    def _apply(self, event: Event) -> None:
        seat, t = event.player, event.timestamp
        if seat not in self.playing:
            self.outcomes.append(Outcome(t, seat, "refused hit" if event.kind == "hit" else "false call",
                                         "not playing this round"))
            return
        if event.kind == "hit":
            if not self._may_hit(seat):
                self.outcomes.append(Outcome(t, seat, "refused hit"))
                self._check_round_end(t)  # nobody may hit and nobody can Zangle: the round ends
                return
            card = self.centre_pile.pop()
            self.cards[seat].append(card)
            self._versions[self.version][1][seat] = tuple(self.cards[seat])
            self.outcomes.append(Outcome(t, seat, "hit", KINDS[card]))
            self._check_round_end(t)
            return
        zangle = event.zangle
        assert zangle is not None
        centre_use, own_use = zangle.uses(CENTRE), zangle.uses(OWN)

        def fits(centre: Sequence[int], own: Sequence[int]) -> bool:
            return all(centre.count(k) >= n for k, n in centre_use.items()) and \
                all(own.count(k) >= n for k, n in own_use.items())

        valid = _valid(zangle)
        judged = self.check == "each"
        present = fits(self.centre, self.cards[seat])
        if not present and event.version < self.version:
            centre_then, cards_then = self._versions[event.version]
            if fits(centre_then, cards_then[seat]) and (valid or not judged):
                self.outcomes.append(Outcome(t, seat, "late call",
                                             f"{zangle}: the centre changed since version {event.version}"))
                return
        if not present or (judged and not valid):
            if self.centre_pile:
                self.piles[seat].insert(0, self.centre_pile.pop())  # face down, at the bottom
            self.outcomes.append(Outcome(t, seat, "false call", str(zangle)))
            self._check_round_end(t)
            return
        for kind, n in centre_use.items():
            for _ in range(n):
                self.centre.remove(kind)
        for kind, n in own_use.items():
            for _ in range(n):
                self.cards[seat].remove(kind)
        self.taken[seat] += zangle.cards
        self.zangles[seat].append((zangle, valid))
        self._refill_centre()
        self._refill_own(seat)
        self._new_version()
        self.outcomes.append(Outcome(t, seat, "zangle", str(zangle)))
        self._check_round_end(t)

    # -- views ------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        with self._lock:
            return Snapshot(self.round, tuple(self.centre), tuple(tuple(c) for c in self.cards),
                            tuple(len(p) for p in self.piles), len(self.centre_pile), tuple(self.levels),
                            tuple(self.totals), self.over, tuple(self.playing), self.version)

    def card_count(self) -> int:
        with self._lock:
            return (len(self.centre) + len(self.centre_pile) + sum(map(len, self.cards))
                    + sum(map(len, self.piles)) + sum(self.taken))


def _check_time(value: object, name: str) -> float:
    """``value`` as seconds: a finite real number (an int past a float's range is refused too)."""
    seconds = check_real(value, name)
    if not math.isfinite(seconds):
        raise FourCardsError(f"{name}={value!r:.40} must be a finite number of seconds")
    return seconds


class SpeedsterBot:
    """Calls its best Zangle, or else takes a hit, ``reaction`` seconds after it
    looks; it waits for its last event to be resolved before it looks again."""

    def __init__(self, player: int, reaction: float = 0.5) -> None:
        self.player, self.reaction = player, reaction

    def act(self, table: SpeedsterTable, now: float) -> None:
        from .cards import best_zangle

        if table.pending(self.player):
            return
        snap = table.snapshot()
        if snap.over or self.player not in snap.playing:
            return
        best = best_zangle(list(snap.centre), list(snap.cards[self.player]))
        if best is not None:
            table.submit_call(self.player, best, now + self.reaction, snap.version)
        elif snap.centre_pile and (snap.levels[self.player] < 3 or len(snap.cards[self.player]) < 3):
            table.submit_hit(self.player, now + self.reaction)


def run_speedster(table: SpeedsterTable, bots: list[SpeedsterBot], step: float = 0.1,
                  max_time: float = 100_000.0) -> SpeedsterTable:
    """Drive a table with bots in simulated time until the game ends."""
    now = 0.0
    while not table.over and now < max_time:
        for bot in bots:
            bot.act(table, now)
        now += step
        table.resolve(now)
    return table
