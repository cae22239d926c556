"""Zangle, turn style and solitaire, on the shared contract (rules: ``shared/rules/zangle.md``).

Integer actions: every Zangle the deck allows, numbered once (``ZANGLE_ACTIONS``
of the game: a target kind and place, and the count of pieces of each kind
from each place); a player with no Zangle is dealt a hit automatically, so the
only decisions are which Zangle to make.

Engine decisions beyond the rules file:

- round ``r``'s dealer is seat ``(dealer + r - 1) % players``;
- the top of every pile is its last card;
- a bonus round (for a tie for the lowest total) is played in turn style by
  the tied players, 4 face-up cards each and no draw pile, dealer first among
  them; once the centre draw pile is empty, a full cycle without a Zangle ends
  it and the tied players share the win;
- a round (bonus or not) ends after a full cycle of turns without a Zangle
  only once the centre draw pile is empty: a turn that starts while the pile
  still holds cards takes a hit, and the hits drain the pile;
- solitaire: one 10-card pile; the game ends when the player's pile and cards
  are empty, or when no Zangle is possible and the centre draw pile is empty.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import product
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Union

import numpy as np
import numpy.typing as npt

from .. import _position as check
from ..engine import Game, GameRules, State, option
from ..errors import IllegalMoveError, InvalidRulesError, InvalidStateError, InvalidTypeError
from ..rng import Rng
from ..sampling import DealSampler
from . import _kernels
from .cards import (
    CENTRE, KINDS, MAX_ROUND_CARDS, OWN, PLACES, TILING_COUNTS, Zangle, card_code, deck_cards, kind_code,
    split_cards, zangle_rows,
)

__all__ = ["Rules", "ZangleGame", "ZangleState", "ZangleObservation", "Made", "Hit", "TurnEnded",
           "RoundEnd", "GameEnd", "zangle_actions", "parse_zangle", "ActionTables", "action_tables"]

NK: Final = len(KINDS)


@dataclass(frozen=True)
class Rules(GameRules):
    """``mode``: ``turn`` (2 or more players, ``rounds`` rounds, default 3) or
    ``solitaire`` (one player); ``deck``: shape -> count (default composition)."""

    players: int = 3
    mode: str = option("turn", choices=("turn", "solitaire"))
    rounds: int = option(3, low=1, high=1000)
    dealer: int = 0
    deck: tuple[tuple[str, int], ...] = ()

    def _check(self) -> None:
        if self.mode == "solitaire" and self.players != 1:
            object.__setattr__(self, "players", 1)
        if self.mode == "turn" and not 2 <= self.players <= 8:
            raise InvalidRulesError(f"players={self.players!r}: turn style is for 2 to 8 players")
        if not 0 <= self.dealer < self.players:
            raise InvalidRulesError(f"dealer={self.dealer!r} is not a seat of {self.players} players")
        cards = deck_cards(dict(self.deck) if self.deck else None)
        if len(cards) < 10 * self.players + 4:
            raise InvalidRulesError(f"a deck of {len(cards)} cards is too small for {self.players} players")
        if self.mode == "turn" and self.rounds * len(cards) > MAX_ROUND_CARDS:
            raise InvalidRulesError(f"rounds={self.rounds} of a deck of {len(cards)} cards: at most "
                                    f"{MAX_ROUND_CARDS} cards dealt in a match (rounds x deck), as a player "
                                    "with no Zangle is dealt hits automatically, card after card")
        everything = _packed(cards)
        if not _kernels.zangle_any_packed(everything, everything):
            raise InvalidRulesError(f"no Zangle can be made from this deck ({len(cards)} cards): every turn "
                                    "would be an automatic hit")

    def deck_cards(self) -> list[int]:
        return deck_cards(dict(self.deck) if self.deck else None)


_NIBBLE: Final = tuple(1 << (4 * k) for k in range(NK))


def _packed(cards: list[int]) -> int:
    """Card codes as packed counts (4 bits a kind), each count at most 15: no
    action takes more than 15 of a kind from one place (at most ``z_max`` <= 15
    Z cards, at most 6 of a shape), so the cards past 15 change no answer.

    >>> _packed([0] * 40 + [1]) == 15 + (1 << 4)
    True
    """
    if len(cards) <= 15:  # no kind can pass 15
        return sum(map(_NIBBLE.__getitem__, cards))
    return sum(min(n, 15) << (4 * k) for k, n in Counter(cards).items())


def zangle_actions(z_max: int) -> list[Zangle]:
    """Every Zangle with at most ``z_max`` Z cards from each place, in a fixed order."""
    result = []
    for target in range(1, NK):
        for place in (CENTRE, OWN):
            for tiling in TILING_COUNTS[target]:
                kinds = [k for k in range(1, NK) if tiling[k]]
                for split in product(*[range(tiling[k] + 1) for k in kinds]):
                    pieces = []
                    for k, from_centre in zip(kinds, split):
                        pieces += [(k, CENTRE)] * from_centre + [(k, OWN)] * (tiling[k] - from_centre)
                    for zc in range(z_max + 1):
                        for zo in range(z_max + 1):
                            all_pieces = pieces + [(0, CENTRE)] * zc + [(0, OWN)] * zo
                            if len(all_pieces) >= 2 and len({place} | {p for _, p in all_pieces}) == 2:
                                result.append(Zangle(target, place, tuple(sorted(all_pieces))))
    return result


@dataclass(frozen=True)
class ActionTables:
    """The action numbering of a deck with at most ``z_max`` Z cards a place,
    built once a process and shared by every game of that deck, read-only:
    ``actions`` (the Zangles in action order), ``index`` (Zangle -> action) and
    ``row_index`` (the fast path's row, ``zangle_rows``, as bytes -> action)."""

    actions: tuple[Zangle, ...]
    index: Mapping[Zangle, int]
    row_index: Mapping[bytes, int]
    #: Per action, its place in the rule-based player's order of preference (0 first:
    #: the most own cards, then the most cards; :class:`~fourcards.zangle.bots.GreedyBot`).
    greedy_rank: tuple[int, ...] = ()


_TABLES: dict[int, ActionTables] = {}
_TABLES_LOCK = threading.Lock()


def action_tables(z_max: int) -> ActionTables:
    """The shared :class:`ActionTables` for ``z_max`` (0..15), built on first use
    (under a lock: threads that ask at once get the same tables).

    >>> action_tables(4) is action_tables(4)
    True
    """
    tables = _TABLES.get(z_max)
    if tables is None:
        with _TABLES_LOCK:
            tables = _TABLES.get(z_max)
            if tables is None:
                actions = tuple(zangle_actions(z_max))
                rows = zangle_rows(actions)
                order = sorted(range(len(actions)), key=lambda i: (
                    -actions[i].own_cards, -actions[i].cards, actions[i].target, actions[i].target_place,
                    actions[i].pieces))
                rank = [0] * len(actions)
                for place, i in enumerate(order):
                    rank[i] = place
                tables = ActionTables(actions, MappingProxyType({z: i for i, z in enumerate(actions)}),
                                      MappingProxyType({bytes(row): i for i, row in enumerate(rows)}), tuple(rank))
                _TABLES[z_max] = tables
    return tables


_PART = re.compile(r"\s*([A-Za-z0-9]+)\s*\(\s*(centre|own)\s*\)\s*$", re.IGNORECASE)


def parse_zangle(text: str) -> Zangle:
    """The Zangle ``str(zangle)`` prints: ``"4a(centre) = 2(own) + 2(centre)"``.

    >>> str(parse_zangle("3(own) = 1(centre) + 2(own)"))
    '3(own) = 1(centre) + 2(own)'
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"Zangle text must be a str, not {type(text).__name__}")
    target_text, equals, pieces_text = text.partition("=")
    parts = [_PART.match(part) for part in [target_text, *pieces_text.split("+")]]
    if not equals or any(match is None for match in parts):
        raise IllegalMoveError(f"{text!r} is not a Zangle: TARGET(place) = PIECE(place) + ... "
                               "with places centre or own")
    codes = [(kind_code(m.group(1)), PLACES.index(m.group(2).lower())) for m in parts if m is not None]
    (target, place), pieces = codes[0], codes[1:]
    return Zangle(target, place, tuple(sorted(pieces)))


@dataclass(frozen=True, slots=True)
class Made:
    player: int
    zangle: Zangle
    cards: int


@dataclass(frozen=True, slots=True)
class Hit:
    player: int
    card: str


@dataclass(frozen=True, slots=True)
class TurnEnded:
    player: int
    zangle: bool


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round's end: each seat's ``points`` (cards left; in a bonus round, the cards
    left of the ``seats`` who played it, the others 0), the ``totals``, and
    ``seats``: who played the round (everyone, or the tied players of a bonus round)."""

    round: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    bonus: bool
    seats: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GameEnd:
    winners: tuple[int, ...]
    totals: tuple[int, ...]


Record = Union[Made, Hit, TurnEnded, RoundEnd, GameEnd]


def zangle_view(zangle: Zangle) -> dict[str, Any]:
    """A Zangle as JSON data: ``target`` and each of ``pieces`` as ``[kind, place]``."""
    return {"target": [KINDS[zangle.target], PLACES[zangle.target_place]],
            "pieces": [[KINDS[k], PLACES[p]] for k, p in zangle.pieces], "text": str(zangle)}


@dataclass(frozen=True)
class ZangleObservation:
    """Everything is public in Zangle but the draw piles' order: the centre,
    every player's face-up cards, pile sizes, hits, and totals."""

    player: int
    current_player: int
    round: int
    centre: tuple[str, ...]
    cards: tuple[tuple[str, ...], ...]
    piles: tuple[int, ...]
    centre_pile: int
    hits: tuple[int, ...]
    totals: tuple[int, ...]
    bonus: bool
    legal_actions: tuple[int, ...] = field(default=())
    legal_zangles: tuple[Zangle, ...] = field(default=())
    #: The cards of this round's Zangles, by kind (public: every Zangle is made in the open).
    made: tuple[str, ...] = field(default=())


def max_total(rules: Rules) -> int:
    """The most points a seat can total: a round scores at most the cards it holds and its
    pile (the deck) and, in solitaire, its hits (the deck again)."""
    rounds = 1 if rules.mode == "solitaire" else rules.rounds
    return rounds * 2 * len(rules.deck_cards())


class ZangleGame(Game["ZangleState"]):
    """Zangle in turn style or solitaire.

    >>> game = ZangleGame(players=2)
    >>> state = game.new_match(seed=4)
    >>> len(state.centre), [len(c) for c in state.face_up]
    (4, [4, 4])
    """

    name = "zangle"
    score_label = "points"
    #: Points are cards left (and hits): the lowest total wins.
    score_higher_is_better = False
    #: Nothing: every card in the view is face up (the piles' order is not in it).
    private_view_fields = ()

    @classmethod
    def player_range(cls) -> tuple[int, int]:
        """One seat (solitaire) to eight (turn style)."""
        return 1, 8

    def observation_bounds(self) -> tuple[float, float]:
        """Counts of a kind are at most its copies, pile sizes / 10 and the centre pile / 120
        at most the deck's over those, the totals / 50 at most ``max_total`` / 50."""
        deck = self.rules.deck_cards()
        copies = max(deck.count(kind) for kind in set(deck))
        return 0.0, float(max(copies, len(deck) / 10, max_total(self.rules) / 50, 1.0))

    def rules_view(self) -> dict[str, Any]:
        data = super().rules_view()
        data["deck"] = dict(self.rules.deck)  # shape -> count
        return data

    def observation_view(self, observation: Any) -> dict[str, Any]:
        obs = observation
        return {
            "seat": obs.player, "current_player": obs.current_player, "round": obs.round,
            "centre": list(obs.centre), "cards": [list(c) for c in obs.cards], "piles": list(obs.piles),
            "centre_pile": obs.centre_pile, "hits": list(obs.hits), "totals": list(obs.totals), "bonus": obs.bonus,
        }

    def record_text(self, record: Any) -> str:
        r = record
        if isinstance(r, Made):
            return f"P{r.player} makes {r.zangle}"
        if isinstance(r, Hit):
            return f"P{r.player} takes a hit: {r.card}"
        if isinstance(r, TurnEnded):
            return f"P{r.player} ends the turn"
        if isinstance(r, RoundEnd):
            if r.bonus:
                left = ", ".join(f"P{p} {r.points[p]}" for p in r.seats)
                return f"bonus round over: cards left {left}"
            return f"round {r.round} over; totals {list(r.totals)}"
        if isinstance(r, GameEnd):
            seats = ", ".join(f"P{s}" for s in r.winners) or "nobody"
            return f"game over: {seats} win{'s' if len(r.winners) == 1 else ''}"
        return super().record_text(record)

    def record_view(self, record: Any) -> dict[str, Any]:
        data = super().record_view(record)
        if isinstance(record, Made):
            data["zangle"] = zangle_view(record.zangle)
        return data

    def action_view(self, action: Any) -> dict[str, Any]:
        """A Zangle: ``target`` and ``pieces`` as ``[kind, place]`` pairs."""
        return {"kind": "zangle", **zangle_view(action)}

    rules_type = Rules
    rules: Rules

    def __init__(self, rules: Rules | None = None, **options: Any) -> None:
        if isinstance(options.get("mode"), str) and options["mode"] == "solitaire" and options.get("players", 1) != 1:
            raise InvalidRulesError(f"players={options['players']!r}: solitaire is for one player")
        if "deck" in options and isinstance(options["deck"], dict):
            options["deck"] = tuple(sorted(options["deck"].items()))
        super().__init__(rules, **options)
        #: The most Z cards from each place in one action (Zangles with more are not actions).
        self.z_max = min(15, self.rules.deck_cards().count(0))
        tables = action_tables(self.z_max)
        self.actions = tables.actions
        self.index = tables.index
        self.row_index = tables.row_index
        self.greedy_rank = tables.greedy_rank

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its rules: the shared tables are found again on load."""
        return type(self), (self.rules,)

    @property
    def num_distinct_actions(self) -> int:
        return len(self.actions)

    @property
    def max_game_length(self) -> int:
        # every Zangle takes at least one card from the table for good
        return (self.rules.rounds + 1) * len(self.rules.deck_cards())

    @property
    def observation_size(self) -> int:
        return 2 * NK + 8 * NK + 8 + 8 + 3

    def rules_dict(self) -> dict[str, Any]:
        data = asdict(self.rules)
        data["deck"] = [list(item) for item in self.rules.deck]
        return data

    def new_match(self, seed: int, position: Mapping[str, Any] | None = None, **setup: Any) -> ZangleState:
        """A new game dealt from ``seed``, or (``position``) one at the position
        :meth:`from_position` describes."""
        self._no_setup(setup)
        return ZangleState(self, seed, position)

    def from_position(
        self, *, centre: str | Iterable[str | int] | None = None,
        cards: Sequence[str | Iterable[str | int]] | None = None,
        piles: Sequence[str | Iterable[str | int]] | None = None, centre_pile: str | Iterable[str | int] | None = None,
        current: int | None = None, totals: Sequence[int] | None = None, hits: Sequence[int] | None = None,
        round: int = 1, seed: int = 0, **unknown: Any,
    ) -> ZangleState:
        """A game at a position of a (non-bonus) round, seat ``current`` to play.

        ``centre``: the face-up centre cards (at most 4; 4 while the centre
        draw pile holds cards); ``cards``: each seat's face-up cards (at least
        4 while their pile holds cards); ``piles``: each seat's draw pile and
        ``centre_pile`` the centre draw pile, **top card last** (default
        empty); ``current``: default the round's dealer (seat ``(dealer +
        round - 1) % players``), who plays first; ``totals`` and ``hits`` so
        far; ``round`` (at most the rules' ``rounds``).  Cards are text or
        lists of notations or codes; cards in none of these places are out of
        play (in Zangle piles).  A seat without cards or pile has gone out:
        the others finish the turn.  As at every turn, a player with no Zangle
        takes a hit at once.  Later rounds are dealt from ``seed``.

        >>> from fourcards.zangle import best_zangle
        >>> game = ZangleGame(players=2)
        >>> state = game.from_position(centre="4b 2 Z 3", cards=["1 5a 1", "5d 5d 4a 4a"], centre_pile="3 3 2 1 1")
        >>> len(state.legal_actions()), state.current_player
        (13, 0)
        >>> str(state.apply(best_zangle(state.centre, state.face_up[0])).zangle)
        '5a(own) = Z(centre) + 1(own) + 1(own) + 3(centre)'
        >>> state.centre, state.current_player
        (('4b', '2', '1', '1'), 1)
        """
        check.no_unknown("Zangle", unknown, _POSITION_KEYS)
        return self.new_match(seed, position={"centre": centre, "cards": cards, "piles": piles,
                                              "centre_pile": centre_pile, "current": current, "totals": totals,
                                              "hits": hits, "round": round})


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:  # a Zangle built with a list among its fields
        return False
    return True


class ZangleState(State[Zangle]):
    """A Zangle game (turn style or solitaire) in progress."""

    __slots__ = ("_rng", "_round", "_dealer", "_centre", "_centre_pile",
                 "_cards", "_piles", "_zangle_piles", "_hits", "_totals", "_current", "_turn_player",
                 "_hit_this_turn", "_idle", "_last_cycle", "_over", "_winners", "_bonus", "_seats")
    _copied = {"_rng": "rng", "_centre": "list", "_centre_pile": "list", "_cards": "lists", "_piles": "lists",
               "_zangle_piles": "lists", "_hits": "list", "_totals": "list", "_seats": "list"}

    game: ZangleGame
    _rng: Rng
    _round: int
    _dealer: int
    _centre: list[int]
    _centre_pile: list[int]
    _cards: list[list[int]]
    _piles: list[list[int]]
    _zangle_piles: list[list[int]]
    _hits: list[int]
    _totals: list[int]
    _current: int
    _turn_player: int
    _hit_this_turn: bool
    _idle: int
    _last_cycle: bool
    _over: bool
    _winners: tuple[int, ...]
    _bonus: bool
    _seats: list[int]

    if TYPE_CHECKING:
        def observation(self, player: int) -> ZangleObservation: ...

    def __init__(self, game: ZangleGame, seed: int, position: Mapping[str, Any] | None = None) -> None:
        super().__init__(game, seed)
        self._rng = Rng(seed)
        self._round = 0
        self._totals = [0] * self._n
        self._hits = [0] * self._n
        self._over = False
        self._winners = ()
        self._bonus = False
        if position is None:
            self._start_round(list(range(self._n)), bonus=False)
            self._begin_turn()
            return
        p = _read_position(game.rules, position)
        self.setup = {"position": p["json"]}
        self._round = p["round"]
        self._seats = list(range(self._n))
        self._dealer = p["dealer"]
        self._totals, self._hits = p["totals"], p["hits"]
        self._centre, self._centre_pile = p["centre"], p["centre_pile"]
        self._cards, self._piles = p["cards"], p["piles"]
        self._zangle_piles = [[] for _ in range(self._n)]
        self._current = p["current"]
        self._idle = 0
        self._last_cycle = any(not c and not pile for c, pile in zip(self._cards, self._piles))
        self._begin_turn()
        check.playable(self)

    # -- rounds -----------------------------------------------------------------------------
    def _start_round(self, seats: list[int], bonus: bool) -> None:
        n = self._n
        self._round += 1
        self._bonus = bonus
        self._seats = seats
        self._dealer = (self.game.rules.dealer + self._round - 1) % n
        cards = self.game.rules.deck_cards()
        self._rng.shuffle(cards)
        self._piles = [[] for _ in range(n)]
        self._cards = [[] for _ in range(n)]
        for seat in seats:
            if bonus:
                self._cards[seat] = [cards.pop() for _ in range(4)]
            else:
                self._piles[seat] = [cards.pop() for _ in range(10)]
        self._centre = [cards.pop() for _ in range(4)]
        self._centre_pile = cards
        for seat in seats:
            self._refill_own(seat)
        self._zangle_piles = [[] for _ in range(n)]
        order = sorted(seats, key=lambda s: (s - self._dealer) % n)
        self._current = order[0]
        self._idle = 0
        self._last_cycle = False

    def _refill_own(self, seat: int) -> None:
        while len(self._cards[seat]) < 4 and self._piles[seat]:
            self._cards[seat].append(self._piles[seat].pop())

    def _refill_centre(self) -> None:
        while len(self._centre) < 4 and self._centre_pile:
            self._centre.append(self._centre_pile.pop())

    def _available_rows(self, seat: int) -> list[bytes]:
        """The Zangles ``seat`` can make, as row keys of ``game.row_index``, from the
        compiled search (or its twin), over counts capped at 15 (:func:`_packed`)."""
        return [row.tobytes() for row in _kernels.zangle_find_packed(_packed(self._centre),
                                                                      _packed(self._cards[seat]))]

    def _has_zangle(self, seat: int) -> bool:
        return bool(_kernels.zangle_any_packed(_packed(self._centre), _packed(self._cards[seat])))

    def _round_can_zangle(self) -> bool:
        """Whether the cards of this round (not yet in a Zangle) could make any Zangle, in
        any places: when not, nobody can make one before the round ends."""
        cards = self._centre + self._centre_pile + [c for seat in self._cards for c in seat] + \
            [c for pile in self._piles for c in pile]
        everything = _packed(cards)
        return bool(_kernels.zangle_any_packed(everything, everything))

    def _begin_turn(self) -> None:
        """Deal the automatic hit to a player with no Zangle; end their turn if still none.
        A round that ends here starts the next (:meth:`_start_round` deals, never plays), and
        the loop goes on into it: rounds nobody can play once recursed, round after round.
        A round whose cards make no Zangle is played out without asking each hand again."""
        # Within this loop a round's centre stays and hands only grow by hits: their packed
        # counts are kept up to date here, not counted again for every question.
        any_zangle = _kernels.zangle_any_packed
        checked_round, dead, centre = -1, False, 0
        own_of: dict[int, int] = {}
        while not self._over:
            if self._round != checked_round:
                checked_round, dead = self._round, not self._round_can_zangle()
                centre, own_of = _packed(self._centre), {}
            seat = self._current
            self._turn_player = seat
            self._hit_this_turn = False
            own = own_of.get(seat)
            if own is None:
                own = own_of[seat] = _packed(self._cards[seat])
            if not dead and any_zangle(centre, own):
                return
            pile_was_empty = not self._centre_pile
            if self._centre_pile:
                card = self._centre_pile.pop()
                self._cards[seat].append(card)
                if (own >> (4 * card)) & 15 < 15:
                    own = own_of[seat] = own + _NIBBLE[card]
                self._hits[seat] += 1
                self._hit_this_turn = True
                self._record(Hit(seat, KINDS[card]))
                if not dead and any_zangle(centre, own):
                    return
            self._record(TurnEnded(seat, False))
            # only turns without a Zangle once the centre draw pile is empty count
            # towards the idle cycle that ends the round
            self._idle = self._idle + 1 if pile_was_empty else 0
            self._next_turn()

    def _next_turn(self) -> None:
        seats, n = self._seats, self._n
        if self.game.rules.mode == "solitaire":
            if self._round_over_solitaire():
                return self._end_round()
            return
        if len(seats) == n:  # every seat plays: the order runs from the dealer on
            count, position, following = n, (self._current - self._dealer) % n, (self._current + 1) % n
        else:
            order = sorted(seats, key=lambda s: (s - self._dealer) % n)
            count, position = len(order), order.index(self._current)
            following = order[(position + 1) % count]
        if position == count - 1 and self._last_cycle:
            return self._end_round()
        if self._idle >= count:
            return self._end_round()
        self._current = following

    def _round_over_solitaire(self) -> bool:
        seat = self._current
        if not self._cards[seat] and not self._piles[seat]:
            return True
        return not self._has_zangle(seat) and not self._centre_pile

    def _end_round(self) -> None:
        n = self._n
        if self._bonus:
            done = [s for s in self._seats if not self._cards[s]]
            self._winners = tuple(done) if done else tuple(self._seats)
            self._record(RoundEnd(self._round, tuple(len(self._cards[p]) for p in range(n)),
                                  tuple(self._totals), True, tuple(self._seats)))
            self._finish()
            return
        points = [len(self._cards[p]) + len(self._piles[p]) for p in range(n)]
        if self.game.rules.mode == "solitaire":
            points = [points[0] + self._hits[0]]
        for p in range(n):
            self._totals[p] += points[p]
        self._record(RoundEnd(self._round, tuple(points), tuple(self._totals), False, tuple(range(n))))
        rounds = 1 if self.game.rules.mode == "solitaire" else self.game.rules.rounds
        if self._round < rounds:
            self._start_round(list(range(n)), bonus=False)
            return
        low = min(self._totals)
        tied = [p for p in range(n) if self._totals[p] == low]
        if len(tied) > 1:
            self._start_round(tied, bonus=True)
            return
        self._winners = tuple(tied)
        self._finish()

    def _finish(self) -> None:
        self._over = True
        self._current = -1
        self._record(GameEnd(self._winners, tuple(self._totals)))

    # -- the contract ---------------------------------------------------------------------------
    def _legal_actions(self) -> list[int]:
        rows = self._available_rows(self._current)
        row_index = self.game.row_index
        return sorted(row_index[key] for key in rows if key in row_index)

    def _why_illegal(self, action: int) -> str | None:
        if action in self._legal_actions():
            return None
        return f"the cards for {self.game.actions[action]} are not on the table"

    def _apply(self, action: int) -> Record:
        zangle = self.game.actions[action]
        seat = self._current
        taken = []
        for kind, n in zangle.uses(CENTRE).items():
            for _ in range(n):
                self._centre.remove(kind)
                taken.append(kind)
        for kind, n in zangle.uses(OWN).items():
            for _ in range(n):
                self._cards[seat].remove(kind)
                taken.append(kind)
        self._zangle_piles[seat] += taken
        record = Made(seat, zangle, len(taken))
        self._record(record)
        self._refill_centre()
        self._refill_own(seat)
        self._record(TurnEnded(seat, True))
        self._idle = 0
        if not self._cards[seat] and not self._piles[seat]:
            if self._bonus:
                self._end_round()
                return record
            self._last_cycle = True
        self._next_turn()
        if not self._over:
            self._begin_turn()
        return record

    def parse_action(self, text: str) -> Zangle:
        """A Zangle as ``str`` prints it (see :func:`parse_zangle`)."""
        return parse_zangle(text)

    def _action_code(self, action: Any) -> int:
        if isinstance(action, Zangle):
            code = self.game.index.get(action) if _hashable(action) else None
            if code is None:
                raise IllegalMoveError(f"{action} is not a Zangle of this game")
            return code
        raise InvalidTypeError(f"an action must be an int, a Zangle or its text, not {type(action).__name__}")

    def _int_to_action(self, action: int) -> Zangle:
        return self.game.actions[action]

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def is_terminal(self) -> bool:
        return self._over

    @property
    def scores(self) -> tuple[int, ...]:
        """Points (cards left; solitaire: plus hits); lower is better."""
        return tuple(self._totals)

    @property
    def winners(self) -> tuple[int, ...]:
        return self._winners

    @property
    def centre(self) -> tuple[str, ...]:
        return tuple(KINDS[k] for k in self._centre)

    @property
    def face_up(self) -> list[tuple[str, ...]]:
        return [tuple(KINDS[k] for k in c) for c in self._cards]

    def card_count(self) -> int:
        """Every card of the deck: centre, centre pile, face-up, piles, Zangle piles."""
        return (len(self._centre) + len(self._centre_pile) + sum(map(len, self._cards))
                + sum(map(len, self._piles)) + sum(map(len, self._zangle_piles)))

    def describe(self) -> str:
        if self._over:
            return f"game over, totals {self._totals}, winners {list(self._winners)}"
        return (f"round {self._round}{' (bonus)' if self._bonus else ''}, centre {' '.join(self.centre)}, "
                f"player {self._current} to play")

    def summary(self) -> dict[str, Any]:
        return {"round": self._round, "current_player": self._current, "totals": list(self._totals),
                "centre": list(self.centre), "winners": list(self._winners)}

    def _information_set(self, player: int) -> tuple[DealSampler, Any]:
        """Every face-down card is hidden from every seat, its owner's included (no
        peeking): the draw piles of the seats and of the centre (top last), and
        the cards out of play of a position.  Nothing a seat sees narrows them."""
        n = self._n
        seen = self._centre + self._centre_pile + [k for c in self._cards for k in c]
        seen += [k for pile in self._piles for k in pile] + [k for pile in self._zangle_piles for k in pile]
        left = Counter(self.game.rules.deck_cards())
        left.subtract(seen)
        out = sorted(left.elements())
        piles = [*self._piles, self._centre_pile, out]
        deal = DealSampler([len(p) for p in piles], [k for p in piles for k in p])

        def write(state: ZangleState, cards: list[list[int]], rng: Rng) -> None:
            state._piles = cards[:n]
            state._centre_pile = cards[n]
            state._rng = Rng(rng.next_u64())

        return deal, write

    def _observation(self, player: int) -> ZangleObservation:
        legal = tuple(self.legal_actions()) if player == self._current else ()
        return ZangleObservation(
            player=player, current_player=self._current, round=self._round, centre=self.centre,
            cards=tuple(self.face_up), piles=tuple(len(p) for p in self._piles),
            centre_pile=len(self._centre_pile), hits=tuple(self._hits), totals=tuple(self._totals),
            bonus=self._bonus,
            legal_actions=legal,
            legal_zangles=tuple(self.game.actions[a] for a in legal),
            made=tuple(KINDS[k] for k in sorted(k for pile in self._zangle_piles for k in pile)),
        )

    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        """Counts by kind (11): centre, own face-up; then face-up counts of seats
        0..7 relative to the observer (8 x 11); pile sizes / 10 (8); totals / 50
        (8); centre pile / 120; round / rounds; bonus.  No face-down card: "¡Sin
        espiar!", its owner included; only the piles' sizes are public."""
        for k in self._centre:
            out[k] += 1
        for k in self._cards[player]:
            out[NK + k] += 1
        n = self._n
        for p in range(n):
            slot = (p - player) % n
            for k in self._cards[p]:
                out[2 * NK + NK * slot + k] += 1
            out[10 * NK + slot] = len(self._piles[p]) / 10
            out[10 * NK + 8 + slot] = self._totals[p] / 50
        out[10 * NK + 16] = len(self._centre_pile) / 120
        out[10 * NK + 17] = self._round / max(1, self.game.rules.rounds)
        out[10 * NK + 18] = self._bonus


_POSITION_KEYS: Final = ("centre", "cards", "piles", "centre_pile", "current", "totals", "hits", "round")


def _codes(value: Any, name: str) -> list[int]:
    return check.parse(lambda v: [card_code(c) for c in split_cards(v)], value, name)


def _read_position(rules: Rules, data: Mapping[str, Any]) -> dict[str, Any]:
    """A Zangle position checked (see :meth:`ZangleGame.from_position`), with its
    canonical JSON form (``json``), which reads back to the same position."""
    if not isinstance(data, Mapping):
        raise InvalidStateError(f"a position is a mapping of {', '.join(_POSITION_KEYS)}, not {type(data).__name__}")
    check.no_unknown("Zangle", {k: v for k, v in data.items() if k not in _POSITION_KEYS}, _POSITION_KEYS)
    n = rules.players
    centre = _codes(check.required(data.get("centre"), "centre", '"4b 2 Z 3"'), "centre")
    centre_pile = [] if data.get("centre_pile") is None else _codes(data["centre_pile"], "centre_pile")
    if len(centre) > 4 or (centre_pile and len(centre) < 4):
        raise InvalidStateError(f"centre holds {len(centre)} cards: 4 while the centre draw pile holds cards, "
                                "else at most 4")
    given = check.per_seat(check.required(data.get("cards"), "cards", '["1 5a 1", "5d 5d"]'), "cards", n)
    cards = [_codes(c, f"cards[{seat}]") for seat, c in enumerate(given)]
    piles_given = data.get("piles")
    piles = [[] for _ in range(n)] if piles_given is None else [
        _codes(pile, f"piles[{seat}]") for seat, pile in enumerate(check.per_seat(piles_given, "piles", n))]
    for seat in range(n):
        if piles[seat] and len(cards[seat]) < 4:
            raise InvalidStateError(f"cards[{seat}] holds {len(cards[seat])} cards while piles[{seat}] holds "
                                    f"{len(piles[seat])}: face-up cards are refilled to 4 from the pile")
    deck = rules.deck_cards()
    places = [("centre", centre), ("centre_pile", centre_pile)]
    places += [(f"cards[{seat}]", c) for seat, c in enumerate(cards)]
    places += [(f"piles[{seat}]", pile) for seat, pile in enumerate(piles)]
    check.deck_holds(places, deck.count, KINDS)
    rounds = 1 if rules.mode == "solitaire" else rules.rounds
    round_ = check.number(data.get("round", 1), "round", 1, rounds)
    dealer = (rules.dealer + round_ - 1) % n
    current = dealer if data.get("current") is None else check.seat(data["current"], "current", n)

    def numbers(key: str) -> list[int]:
        value = data.get(key)
        if value is None:
            return [0] * n
        most = max_total(rules) if key == "totals" else rounds * len(deck)  # hits: a card of the pile each
        return [check.number(v, f"{key}[{seat}]", 0, most) for seat, v in enumerate(check.per_seat(value, key, n))]

    totals, hits = numbers("totals"), numbers("hits")

    def text(codes: Iterable[int]) -> str:
        return " ".join(KINDS[c] for c in codes)

    return {
        "centre": centre, "centre_pile": centre_pile, "cards": cards, "piles": piles, "current": current,
        "dealer": dealer, "totals": totals, "hits": hits, "round": round_,
        "json": {"centre": text(centre), "cards": [text(c) for c in cards], "piles": [text(p) for p in piles],
                 "centre_pile": text(centre_pile), "current": current, "totals": list(totals), "hits": list(hits),
                 "round": round_},
    }
