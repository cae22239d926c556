"""The Duelo engine (rules: ``shared/rules/four-pack-and-duelo.md``).

Decisions of this engine, beyond the rules file:

- each player stacks the cards they are dealt, so the last card a player
  receives is the top of their pile;
- the winner of a hand puts its own card at the bottom of its pile first,
  then the other revealed cards in turn order from the winner, then the cards
  that were on the table, in the order they were put there;
- when every tied player runs out during a tie, the next hand among the
  players left is chosen by the one of them who received cards first;
- when only one tied player can play on, they take the table at once
  (recorded as ``TableTaken``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final, Union

import numpy as np
import numpy.typing as npt

from .. import _position as check
from ..decks import CARD_IDS, Category, Deck, DeckCard, deck_option, deck_rule
from ..engine import Game, GameRules, State, option, same_json, unroll
from ..errors import IllegalMoveError, InvalidStateError, InvalidTypeError
from ..rng import Rng
from ..sampling import DealSampler

__all__ = ["Rules", "Duelo", "DueloState", "DueloObservation", "Choose", "Dealt", "HandPlayed",
           "Eliminated", "GameEnd", "TableTaken", "MAX_PLAYERS"]

#: "2 o más" players: as many as the deck can deal, every player at least one card
#: (a 33rd player would be dealt none: eliminated before the first hand).
MAX_PLAYERS: Final = 32


@dataclass(frozen=True)
class Rules(GameRules):
    """Duelo rules: 2 or more players; ``hand_limit`` hands at most (then a draw,
    ranked by cards held)."""

    players: int = option(2, low=2, high=MAX_PLAYERS)
    hand_limit: int = option(10_000, low=1, high=1_000_000)


@dataclass(frozen=True, slots=True)
class Choose:
    """Call a category (by its id) for the next hand."""

    category: str

    def __str__(self) -> str:
        return f"call {self.category}"

    @staticmethod
    def parse(text: str) -> Choose:
        """The call ``str`` prints: ``"call density"``.

        >>> Choose.parse("call density")
        Choose(category='density')
        """
        if not isinstance(text, str):
            raise InvalidTypeError(f"action text must be a str, not {type(text).__name__}")
        words = text.split()
        if len(words) != 2 or words[0].lower() != "call":
            raise IllegalMoveError(f"{text!r} is not a Duelo action: call <category>, e.g. call density")
        return Choose(words[1])


@dataclass(frozen=True, slots=True)
class Dealt:
    dealer: int
    first: int


@dataclass(frozen=True, slots=True)
class HandPlayed:
    """A hand: who chose which category, every revealed card, and who won
    (``winner`` -1 for a tie, with ``tied`` the players who play on)."""

    number: int
    chooser: int
    category: Category
    revealed: tuple[tuple[int, DeckCard], ...]
    winner: int
    tied: tuple[int, ...]
    taken: tuple[DeckCard, ...]
    table: int


@dataclass(frozen=True, slots=True)
class TableTaken:
    """The only tied player left takes the cards on the table."""

    player: int
    taken: tuple[DeckCard, ...]


@dataclass(frozen=True, slots=True)
class Eliminated:
    player: int


@dataclass(frozen=True, slots=True)
class GameEnd:
    winners: tuple[int, ...]
    cards: tuple[int, ...]
    draw: bool


Record = Union[Dealt, HandPlayed, TableTaken, Eliminated, GameEnd]


@dataclass(frozen=True)
class DueloObservation:
    """What one player knows: their own top card, the pile sizes, and every
    hand played (all revealed cards are public)."""

    player: int
    current_player: int
    top_card: DeckCard | None
    pile_sizes: tuple[int, ...]
    table: int
    contenders: tuple[int, ...]
    hands: tuple[HandPlayed | TableTaken, ...]
    categories: tuple[Category, ...]
    legal_actions: tuple[int, ...] = field(default=())


class Duelo(Game["DueloState"]):
    """Duelo under a set of :class:`Rules`, with a deck (default: the sample deck).

    >>> game = Duelo(players=2)
    >>> state = game.new_match(seed=1)
    >>> state.current_player, state.pile_sizes
    (0, (16, 16))
    >>> record = state.choose("density")
    >>> str(record.category), len(record.revealed)
    ('density', 2)
    """

    name = "duelo"
    score_label = "cards held"
    #: The seat's own top card; the revealed hands are public, ``table`` is a count.
    private_view_fields = ("top_card",)
    deck_upload = True

    def observation_bounds(self) -> tuple[float, float]:
        return 0.0, 1.0

    def observation_view(self, observation: Any) -> dict[str, Any]:
        obs = observation
        return {
            "seat": obs.player, "current_player": obs.current_player,
            "top_card": None if obs.top_card is None else str(obs.top_card),
            "pile_sizes": list(obs.pile_sizes), "table": obs.table, "contenders": list(obs.contenders),
            "hands": [self.record_view(h) for h in obs.hands], "categories": [str(c) for c in obs.categories],
        }

    def record_text(self, record: Any) -> str:
        r = record

        def seats(values: Any) -> str:
            return ", ".join(f"P{s}" for s in values) or "nobody"

        if isinstance(r, Dealt):
            return f"P{r.dealer} deals; P{r.first} starts"
        if isinstance(r, HandPlayed):
            return (f"hand {r.number}: P{r.chooser} calls {r.category}; "
                    + ", ".join(f"P{p} {c}" for p, c in r.revealed)
                    + (f"; P{r.winner} takes {len(r.taken)} cards" if r.winner >= 0
                       else f"; tie between {seats(r.tied)}"))
        if isinstance(r, TableTaken):
            return f"P{r.player} takes the table ({len(r.taken)} cards)"
        if isinstance(r, Eliminated):
            return f"P{r.player} is out of cards"
        if isinstance(r, GameEnd):
            return f"game over: {seats(r.winners)} win{'s' if len(r.winners) == 1 else ''}"
        return super().record_text(record)

    rules_type = Rules
    rules: Rules

    def __init__(self, rules: Rules | None = None, deck: Deck | str | Mapping[str, Any] | None = None,
                 **options: Any) -> None:
        super().__init__(rules, **options)
        self.deck = deck_option(deck)

    @property
    def num_distinct_actions(self) -> int:
        return len(self.deck.categories)

    @property
    def max_game_length(self) -> int:
        return self.rules.hand_limit

    @property
    def observation_size(self) -> int:
        return 32 + len(self.deck.categories) + 3 * max(8, self.rules.players) + 2

    def rules_dict(self) -> dict[str, Any]:
        return {**asdict(self.rules), "deck": deck_rule(self.deck)}

    def _snapshot_constants(self) -> Sequence[Any]:
        return (*self.deck.cards, *self.deck.categories)

    def _same_rules(self, rules: Any) -> bool:
        # also a save made before rules_dict recorded a deck other than the shipped one by its data
        return super()._same_rules(rules) or same_json(rules, {**asdict(self.rules), "deck": self.deck.digest})

    def new_match(self, seed: int, position: Mapping[str, Any] | None = None, **setup: Any) -> DueloState:
        """A new game dealt from ``seed``, or (``position``) one at the position
        :meth:`from_position` describes."""
        self._no_setup(setup)
        return DueloState(self, seed, position)

    def from_position(
        self, *, piles: Sequence[str | Iterable[str | DeckCard]] | None = None, current: int = 0,
        table: str | Iterable[str | DeckCard] | None = None, contenders: Sequence[int] | None = None,
        first: int | None = None, hands_played: int = 0, seed: int = 0, **unknown: Any,
    ) -> DueloState:
        """A game at a position, seat ``current`` to call a category.

        ``piles``: each seat's pile, **top card first** (ids as text,
        ``"A1 B3"``, or a list of ids or cards); ``table``: the cards left on
        the table by ties, in the order they were put there; ``contenders``:
        the seats playing the next hand (default every seat with cards; after
        a tie, the tied ones); ``first``: who received cards first in the deal
        (the "mano", who calls after a tie; default ``current``);
        ``hands_played`` so far.  Each card is in one place; cards in none are
        out of play.  At least two seats hold cards.  ``seed`` is recorded,
        and draws nothing.

        >>> game = Duelo(players=2)
        >>> state = game.from_position(piles=["A1 B1", "H4 B2"])
        >>> record = state.choose("atomic_number")
        >>> record.winner, [str(card) for card in state.pile(1)]
        (1, ['B2', 'H4', 'A1'])
        """
        check.no_unknown("Duelo", unknown, _POSITION_KEYS)
        return self.new_match(seed, position={"piles": piles, "current": current, "table": table,
                                              "contenders": contenders, "first": first,
                                              "hands_played": hands_played})

    def __repr__(self) -> str:
        return f"Duelo({self.rules!r})"


class DueloState(State[Choose]):
    """A Duelo game in progress (the contract of :mod:`fourcards.engine`)."""

    __slots__ = ("_piles", "_table", "_contenders", "_current",
                 "_order", "_hands_played", "_over", "_draw", "_winners", "_hands", "_out", "_unseen")
    _copied = {"_piles": "lists", "_table": "list", "_unseen": "list"}
    _links = (*State._links, "_hands")

    game: Duelo
    _piles: list[list[int]]
    _table: list[int]
    _contenders: tuple[int, ...]
    _current: int
    _order: list[int]
    _hands_played: int
    _over: bool
    _draw: bool
    _winners: tuple[int, ...]
    _hands: Any  # the hands played, newest first, as links (see unroll)
    _out: int
    _unseen: list[int]  # per pile: how many of its top cards nobody has seen (dealt, never revealed)

    if TYPE_CHECKING:
        def observation(self, player: int) -> DueloObservation: ...

    def __init__(self, game: Duelo, seed: int, position: Mapping[str, Any] | None = None) -> None:
        super().__init__(game, seed)
        n = self._n
        if position is not None:
            p = _read_position(game, position)
            self.setup = {"position": p["json"]}
            self._piles, self._table = p["piles"], p["table"]
            self._order = [(seat - p["first"]) % n for seat in range(n)]
            self._contenders, self._current = p["contenders"], p["current"]
            self._hands_played = p["hands_played"]
            self._over = self._draw = False
            self._winners = ()
            self._hands = None
            self._out = sum(1 << seat for seat in range(n) if not self._piles[seat])
            self._unseen = [len(pile) for pile in self._piles]
            return
        rng = Rng(seed)
        dealer = rng.below(n)
        cards = list(range(32))
        rng.shuffle(cards)
        first = (dealer + 1) % n
        piles: list[list[int]] = [[] for _ in range(n)]
        for i, code in enumerate(cards):
            piles[(first + i) % n].insert(0, code)  # stacked: the last card dealt is on top
        self._piles = piles
        self._unseen = [len(pile) for pile in piles]
        self._table = []
        self._order = [(p - first) % n for p in range(n)]  # who received cards first: 0
        self._contenders = tuple(range(n))
        self._current = first
        self._hands_played = 0
        self._over = False
        self._draw = False
        self._winners = ()
        self._record(Dealt(dealer, first))
        self._hands = None
        self._out = 0

    # -- rules -------------------------------------------------------------------------------
    def _active(self) -> list[int]:
        return [p for p in range(self._n) if self._piles[p]]

    def _mano(self, players: list[int] | tuple[int, ...]) -> int:
        return min(players, key=lambda p: self._order[p])

    def _why_illegal(self, action: int) -> str | None:
        return None  # any category may be called

    def _legal_actions(self) -> list[int]:
        return list(range(self._n_actions))

    def _apply(self, action: int) -> Record:
        deck = self.game.deck
        category = deck.categories[action]
        contenders = self._contenders
        revealed = [(p, self._piles[p].pop(0)) for p in contenders]
        for p in contenders:  # won cards go to the bottom, in the open: the top stays unseen until revealed
            if self._unseen[p]:
                self._unseen[p] -= 1
        values = {p: deck.cards[c].values[action] for p, c in revealed}
        best_value = values[contenders[0]]
        for p in contenders[1:]:
            if category.beats(values[p], best_value):
                best_value = values[p]
        best = [p for p in contenders if values[p] == best_value]
        self._hands_played += 1
        chooser = self._current
        if len(best) == 1:
            winner = best[0]
            order = sorted(revealed, key=lambda pc: (pc[0] - winner) % self._n)  # own card first
            taken = [c for _, c in order] + self._table
            self._piles[winner].extend(taken)
            self._table = []
            record = HandPlayed(self._hands_played, chooser, category,
                                tuple((p, deck.cards[c]) for p, c in revealed), winner, (),
                                tuple(deck.cards[c] for c in taken), 0)
            self._record(record)
            self._eliminate()
            self._contenders = tuple(self._active())
            self._current = winner
        else:
            self._table.extend(c for _, c in revealed)
            record = HandPlayed(self._hands_played, chooser, category,
                                tuple((p, deck.cards[c]) for p, c in revealed), -1, tuple(best), (),
                                len(self._table))
            self._record(record)
            self._eliminate()
            playing_on = [p for p in best if self._piles[p]]
            if playing_on:
                self._contenders = tuple(playing_on)
                self._current = self._mano(playing_on)
            else:  # every tied player ran out: the table goes to the next hand's winner
                left = self._active()
                self._contenders = tuple(left)
                self._current = self._mano(left) if left else -1
        self._hands = (record, self._hands)
        active = self._active()
        if not self._over:
            if len(active) <= 1 and not (len(active) == 1 and self._table):
                self._finish(active[0] if active else -1)
            elif len(self._contenders) == 1 and self._table:
                # a lone contender left with the table takes it
                lone = self._contenders[0]
                taken_record = TableTaken(lone, tuple(deck.cards[c] for c in self._table))
                self._record(taken_record)
                self._hands = (taken_record, self._hands)
                self._piles[lone].extend(self._table)
                self._table = []
                self._contenders = tuple(self._active())
                self._current = lone
                if len(self._active()) == 1:
                    self._finish(lone)
            if not self._over and self._hands_played >= self.game.rules.hand_limit:
                self._finish(-2)
        return record

    def _eliminate(self) -> None:
        for p in range(self._n):
            if not self._piles[p] and not self._out >> p & 1:
                self._out |= 1 << p
                self._record(Eliminated(p))

    def _finish(self, winner: int) -> None:
        cards = tuple(len(p) for p in self._piles)
        if winner >= 0:
            self._winners, self._draw = (winner,), False
        else:
            self._winners, self._draw = (), True
        self._over = True
        self._current = -1
        self._record(GameEnd(self._winners, cards, self._draw))

    # -- the two action layers -----------------------------------------------------------------
    def parse_action(self, text: str) -> Choose:
        """``"call density"`` (see :meth:`Choose.parse`)."""
        return Choose.parse(text)

    def _action_code(self, action: Any) -> int:
        if isinstance(action, Choose):
            if not isinstance(action.category, str):
                raise InvalidTypeError(f"a Choose names its category by id, not {type(action.category).__name__}")
            return self.game.deck.category_index(action.category)
        raise InvalidTypeError(f"an action must be an int, a Choose or its text, not {type(action).__name__}")

    def _int_to_action(self, action: int) -> Choose:
        return Choose(self.game.deck.categories[action].id)

    def choose(self, category: str) -> Record:
        """Call ``category`` (its id, e.g. ``"density"``)."""
        record: Record = self.apply(Choose(category))
        return record

    # -- public facts --------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._current

    @property
    def is_terminal(self) -> bool:
        return self._over

    @property
    def is_draw(self) -> bool:
        return self._draw

    @property
    def pile_sizes(self) -> tuple[int, ...]:
        return tuple(len(p) for p in self._piles)

    @property
    def scores(self) -> tuple[int, ...]:
        """Cards held, per seat."""
        return self.pile_sizes

    @property
    def winners(self) -> tuple[int, ...]:
        """The player holding every card; () for a draw (see ``scores`` for the ranking)."""
        return self._winners

    def pile(self, player: int) -> tuple[DeckCard, ...]:
        """A seat's pile, top first (hidden information: for referees and tests)."""
        cards = self.game.deck.cards
        return tuple(cards[c] for c in self._piles[self._seat(player)])

    @property
    def table(self) -> tuple[DeckCard, ...]:
        """The cards on the table after a tie, in the order they were put there."""
        cards = self.game.deck.cards
        return tuple(cards[c] for c in self._table)

    def describe(self) -> str:
        if self._over:
            outcome = "draw" if self._draw else f"winner {self._winners[0]}"
            return f"game over ({outcome}), cards {list(self.pile_sizes)}"
        return (f"hand {self._hands_played + 1}, piles {'/'.join(map(str, self.pile_sizes))}, "
                f"table {len(self._table)}, player {self._current} to call")

    def summary(self) -> dict[str, Any]:
        return {"current_player": self._current, "piles": list(self.pile_sizes), "table": len(self._table),
                "hands": self._hands_played, "winners": list(self._winners), "draw": self._draw}

    def _information_set(self, player: int) -> tuple[DealSampler, Any]:
        """The cards of each pile that nobody has seen (the top ones, dealt and
        never revealed), but the seat's own top card, and the cards out of play of
        a position: every revealed card and every card won (put at the bottom, in
        an order the rules fix) is public."""
        n = self._n
        hidden = [pile[:count] for pile, count in zip(self._piles, self._unseen)]
        own_top = bool(hidden[player])
        if own_top:
            hidden[player] = hidden[player][1:]
        in_play = {c for pile in self._piles for c in pile} | set(self._table)
        hidden.append([c for c in range(32) if c not in in_play])  # out of play (a position's)
        deal = DealSampler([len(h) for h in hidden], [c for h in hidden for c in h])

        def write(state: DueloState, cards: list[list[int]], rng: Rng) -> None:
            for p in range(n):
                start = 1 if p == player and own_top else 0
                state._piles[p][start:start + len(cards[p])] = cards[p]

        return deal, write

    # -- observations ----------------------------------------------------------------------------
    def _observation(self, player: int) -> DueloObservation:
        pile = self._piles[player]
        return DueloObservation(
            player=player,
            current_player=self._current,
            top_card=self.game.deck.cards[pile[0]] if pile else None,
            pile_sizes=self.pile_sizes,
            table=len(self._table),
            contenders=self._contenders,
            hands=unroll(self._hands),
            categories=self.game.deck.categories,
            legal_actions=tuple(self.legal_actions()) if player == self._current else (),
        )

    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        """``observation_size`` float32 values; seats relative to the observer,
        ``S = max(8, players)`` slots.

        ==================  =========================================================
        0-31                own top card, one-hot (card code)
        32 .. 32+C-1        own top card's strength in each category: the share of
                            the other 31 cards it beats (ties count half)
        next S              pile sizes / 32
        next S              contenders of the next hand
        next S              the player to call, one-hot
        next 2              cards on the table / 32; hands played / hand limit
        ==================  =========================================================
        """
        deck = self.game.deck
        categories = len(deck.categories)
        pile = self._piles[player]
        if pile:
            top = pile[0]
            out[top] = 1.0
            for k, category in enumerate(deck.categories):
                mine = deck.cards[top].values[k]
                score = 0.0
                for card in deck.cards:
                    if card.code != top:
                        other = card.values[k]
                        score += 1.0 if category.beats(mine, other) else (0.5 if mine == other else 0.0)
                out[32 + k] = score / 31
        base = 32 + categories
        n = self._n
        slots = max(8, n)
        for p in range(n):
            k = (p - player) % n
            out[base + k] = len(self._piles[p]) / 32
            out[base + slots + k] = p in self._contenders
            out[base + 2 * slots + k] = p == self._current
        out[base + 3 * slots] = len(self._table) / 32
        out[base + 3 * slots + 1] = self._hands_played / self.game.rules.hand_limit


_POSITION_KEYS: Final = ("piles", "current", "table", "contenders", "first", "hands_played")


def _read_position(game: Duelo, data: Mapping[str, Any]) -> dict[str, Any]:
    """A Duelo position checked (see :meth:`Duelo.from_position`), with its
    canonical JSON form (``json``), which reads back to the same position."""
    if not isinstance(data, Mapping):
        raise InvalidStateError(f"a position is a mapping of {', '.join(_POSITION_KEYS)}, not {type(data).__name__}")
    check.no_unknown("Duelo", {k: v for k, v in data.items() if k not in _POSITION_KEYS}, _POSITION_KEYS)
    n = game.rules.players

    def card_codes(value: Any, name: str) -> list[int]:
        return check.deck_card_codes(game.deck, value, name)

    given = check.per_seat(check.required(data.get("piles"), "piles", '["A1 B1", "H4 B2"]'), "piles", n)
    piles = [card_codes(pile, f"piles[{seat}]") for seat, pile in enumerate(given)]
    table = [] if data.get("table") is None else card_codes(data["table"], "table")
    places = [(f"piles[{seat}]", codes) for seat, codes in enumerate(piles)] + [("table", table)]
    check.deck_holds(places, lambda code: 1, CARD_IDS)
    active = tuple(seat for seat in range(n) if piles[seat])
    if len(active) < 2:
        raise InvalidStateError(f"piles: {len(active)} seat(s) hold cards: the game is over when one player "
                                "holds them all")
    current = check.seat(data.get("current", 0), "current", n)
    first = current if data.get("first") is None else check.seat(data["first"], "first", n)
    contenders = active if data.get("contenders") is None else check.seat_set(data["contenders"], "contenders", n)
    for seat in contenders:
        if not piles[seat]:
            raise InvalidStateError(f"contenders names seat {seat}, whose pile is empty")
    if not table and contenders != active:
        raise InvalidStateError(f"contenders={list(contenders)}: with no cards on the table every seat "
                                f"with cards ({list(active)}) plays the hand")
    if len(contenders) < 2:
        raise InvalidStateError(f"contenders={list(contenders)}: a lone contender takes the table at once")
    if current not in contenders:
        raise InvalidStateError(f"current={current} is not one of the contenders {list(contenders)}")
    if table:
        mano = min(contenders, key=lambda seat: (seat - first) % n)
        if current != mano:
            raise InvalidStateError(f"current={current}: after a tie seat {mano}, the contender who received "
                                    f"cards first (first={first}), calls")
    hands_played = check.number(data.get("hands_played", 0), "hands_played", 0, game.rules.hand_limit - 1)

    def text(codes: Iterable[int]) -> str:
        return " ".join(CARD_IDS[c] for c in codes)

    return {"piles": piles, "table": table, "current": current, "first": first, "contenders": contenders,
            "hands_played": hands_played,
            "json": {"piles": [text(p) for p in piles], "current": current, "table": text(table),
                     "contenders": list(contenders), "first": first, "hands_played": hands_played}}
