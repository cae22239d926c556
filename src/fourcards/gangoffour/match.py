"""The Gang of Four match engine: rules, actions, records, and the match state.

>>> game = GangOfFour()
>>> state = game.new_match(seed=7)
>>> state.current_player, state.round, state.direction
(1, 1, 1)
>>> str(state.table), len(state.legal_actions()) > 0
('None', True)
>>> record = state.play("M1")
>>> record.player, str(record.combo), state.current_player
(1, 'M1', 2)

The integer action space (``num_distinct_actions``):

==========================  =====================================================
``0 .. 12351``              play the combination with that action index
``PASS`` (12352)            pass
``12353 .. 12386``          give back the card with code ``action - 12353``
``12387 .. 24738``          (``manual_last_card`` only) play combination
                            ``action - 12387`` and announce the last card
==========================  =====================================================
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final, Union

import numpy as np
import numpy.typing as npt

from .. import _position as check
from ..engine import RESAMPLED, Game, GameRules, State, check_to_act, checked_legal, option
from ..errors import IllegalMoveError, InvalidRulesError, InvalidStateError, InvalidTypeError
from ..rng import Rng
from ..sampling import DealSampler, Group
from . import _deck, _kernels
from .cards import KINDS, Card, CardsLike, hand_mask, mask_cards
from .combos import _COMBOS as _COMBO_CACHE
from .combos import Combo, ComboLike, action_to_combo, classify

__all__ = [
    "Rules", "GangOfFour", "MatchState", "Observation", "Play", "Pass", "GiveBack", "Action",
    "RoundStart", "CardGiven", "Played", "Passed", "RoundEnd", "MatchEnd", "Exchange",
    "PASS", "GIVE_BACK_BASE", "ANNOUNCE_BASE", "OBSERVATION_SIZE", "PLAY", "GIVE_BACK", "OVER",
]

NUM_COMBOS: Final = _deck.NUM_ACTIONS
PASS: Final = NUM_COMBOS
GIVE_BACK_BASE: Final = NUM_COMBOS + 1
ANNOUNCE_BASE: Final = GIVE_BACK_BASE + _deck.NUM_KINDS


def legal_for(observation: Observation, legal_actions: Any) -> list[int]:
    """The legal actions a bot is given for ``observation``, checked
    (:func:`fourcards.engine.checked_legal`, the range of the observation's rules), and
    each one legal for the seat in that observation (:class:`IllegalMoveError` naming the
    first that is not: the list does not fit the observation)."""
    if not isinstance(observation, Observation):
        raise InvalidTypeError(f"observation must be a Gang of Four Observation, not {type(observation).__name__}")
    check_to_act(observation)
    rules = observation.rules
    legal = checked_legal(legal_actions, ANNOUNCE_BASE + (NUM_COMBOS if rules.manual_last_card else 0))
    allowed = set(_observed_legal(observation))
    for action in legal:
        if action not in allowed:
            raise IllegalMoveError(f"the legal actions do not fit the observation: action {action} is not legal "
                                   f"for seat {observation.player}")
    return legal


def with_announcement(action: int, observation: Observation, legal: Collection[int]) -> int:
    """``action``, announced when it leaves the seat one card and its announcing twin is in
    ``legal`` (``manual_last_card``): a play that leaves one card unannounced cannot win the
    round and costs a penalty point, so a player never prefers it."""
    if (action < NUM_COMBOS and observation.hand_mask.bit_count() - _SIZES[action] == 1
            and ANNOUNCE_BASE + action in legal):
        return ANNOUNCE_BASE + action
    return action


def _observed_legal(observation: Observation) -> list[int]:
    """The seat's legal actions, from what its observation shows (the state's own rules)."""
    hand, me = observation.hand_mask, observation.player
    if observation.phase == PHASE_NAMES[GIVE_BACK]:
        return [GIVE_BACK_BASE + code for code in sorted(set(_deck.codes_of_mask(hand)))]
    rules, n = observation.rules, len(observation.hand_sizes)
    skip = [out or (rules.pass_is_final and passed) for out, passed in zip(observation.out, observation.passed)]
    following, seat = -1, me
    for _ in range(n):  # the next seat in turn order, as the state's _next_seat
        seat = (seat + observation.direction) % n
        if not skip[seat]:
            following = seat
            break
    constrained = (following >= 0 and following != me and observation.hand_sizes[following] == 1
                   and (not rules.manual_last_card or observation.announced[following]))
    table = -1 if observation.table is None else observation.table.action
    return _legal_plays(hand, table, observation.must_lead_m1, constrained, rules)


GANG_START: Final = _deck.KIND_START[_deck.GANG]
M1_BIT: Final = _deck.BIT[_deck.M1]
PLAY, GIVE_BACK, OVER = 0, 1, 2
PHASE_NAMES: Final = ("play", "give-back", "over")
HAND_SIZE: Final = 16
SEATS: Final = 4  # seat slots in the observation tensor

_MASKS: Final[list[int]] = [int(m) for m in _kernels.COMBO_MASKS]
_SIZES: Final[list[int]] = [m.bit_count() for m in _MASKS]
_PAIR_LO: Final = _deck.PAIR_LO
_ADDITIVE: Final[list[int]] = [m - ((m >> 1) & _deck.PAIR_LO) for m in _MASKS]


@functools.lru_cache(maxsize=1 << 15)
def _cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a canonical mask the engine holds, lowest first: a hand or the
    played cards change a few times a round and are read by every seat's
    observation, so each is built once (bounded, thread-safe cache of a pure function)."""
    return tuple(KINDS[code] for code in _deck.codes_of_mask(mask))


@functools.lru_cache(maxsize=1 << 15)
def _texts_of(mask: int) -> tuple[str, ...]:
    """The cards of a canonical mask as their text, lowest first (cached as :func:`_cards_of`)."""
    return tuple(str(card) for card in _cards_of(mask))


# -- rules ------------------------------------------------------------------------

@dataclass(frozen=True)
class Rules(GameRules):
    """The rules of a match; every option of the rules file.

    >>> Rules(players=3).dealer
    2
    """

    players: int = option(4, choices=(2, 3, 4))
    """2, 3 or 4 seats (with 3 or 2, 16 cards a seat and the rest set aside)."""
    target_score: int = option(100, low=1, high=100_000)
    """The match ends after a round in which someone reaches this many points."""
    dealer: int = -1
    """Round 1's dealer (default ``players - 1``: that seat deals, so seat 0 is dealt to first)."""
    pass_is_final: bool = False
    """A player who passed may not play again until the cycle ends."""
    manual_last_card: bool = False
    """Announcing one's last card is a choice made with the play that leaves it."""
    last_card_may_pass: bool = False
    """Before a one-card player, passing is allowed instead of the highest single."""
    chinese_dealing: bool = False
    """The dealer draws a card and counts that many seats to find who is dealt first."""

    def _check(self) -> None:
        if self.dealer == -1:
            object.__setattr__(self, "dealer", self.players - 1)
        if not 0 <= self.dealer < self.players:
            raise InvalidRulesError(f"dealer={self.dealer} is not a seat of {self.players} players")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- actions ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Play:
    """Play a combination (``announce``: and announce the last card)."""

    combo: Combo
    announce: bool = False

    def __str__(self) -> str:
        return f"{self.combo} !" if self.announce else str(self.combo)


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class GiveBack:
    """The round winner gives this card back to the loser."""

    card: Card

    def __str__(self) -> str:
        return f"give {self.card}"


Action = Union[Play, Pass, GiveBack]


def parse_action(text: str) -> Action:
    """``"pass"``, ``"give G2"``, ``"G3 Y4 R5 G6 Y7"``, or a play ending in ``!`` (announcing).

    >>> parse_action("give g2"), parse_action("PASS"), str(parse_action("r5 !"))
    (GiveBack(card=Card.parse('G2')), Pass(), 'R5 !')
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"an action's text must be a str, not {type(text).__name__}")
    words = text.strip()
    lower = words.lower()
    if lower == "pass":
        return Pass()
    if lower.startswith("give "):
        return GiveBack(Card.parse(words[5:]))
    announce = words.endswith("!")
    return Play(Combo.parse(words.rstrip("!")), announce)


# -- records (history) -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RoundStart:
    round: int
    dealer: int
    first_dealt: int
    leader: int
    direction: int


@dataclass(frozen=True, slots=True)
class CardGiven:
    """A card changing hands in the exchange (``automatic``: the loser's highest)."""

    giver: int
    receiver: int
    card: Card
    automatic: bool


@dataclass(frozen=True, slots=True)
class Played:
    player: int
    combo: Combo
    announced: bool
    cards_left: int


@dataclass(frozen=True, slots=True)
class Passed:
    player: int


@dataclass(frozen=True, slots=True)
class RoundEnd:
    round: int
    winner: int
    cards_left: tuple[int, ...]
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    forgot_last_card: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnd:
    winners: tuple[int, ...]
    totals: tuple[int, ...]


Record = Union[RoundStart, CardGiven, Played, Passed, RoundEnd, MatchEnd]


@dataclass(frozen=True, slots=True)
class Exchange:
    """The public card exchange at the start of a round."""

    loser: int
    winner: int
    given: Card
    returned: Card | None


# -- observation ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Observation:
    """What one player knows: their hand and everything public."""

    player: int
    round: int
    phase: str
    current_player: int
    direction: int
    hand: tuple[Card, ...]
    hand_mask: int
    hand_sizes: tuple[int, ...]
    table: Combo | None
    table_player: int
    passed: tuple[bool, ...]
    announced: tuple[bool, ...]
    out: tuple[bool, ...]
    played: tuple[Card, ...]
    scores: tuple[int, ...]
    exchange: Exchange | None
    must_lead_m1: bool
    dealer: int
    rules: Rules
    played_mask: int
    legal_actions: tuple[int, ...] = field(default=())


OBSERVATION_SIZE: Final = 217
"""Length of :meth:`MatchState.observation_tensor` (layout in its docstring)."""


# -- the game ------------------------------------------------------------------------

class GangOfFour(Game["MatchState"]):
    """Gang of Four under a set of :class:`Rules`.

    >>> g = GangOfFour(players=3)
    >>> g.num_players, g.num_distinct_actions
    (3, 12387)
    """

    name = "gang-of-four"
    rules_type = Rules
    rules: Rules
    title = "Gang of Four"
    score_label = "penalty points"
    #: Only the hand is a seat's own: the exchange's cards are shown to everyone by the rules,
    #: ``must_lead_m1`` is public (the seat dealt M1 leads), the rest is counts and played cards.
    private_view_fields = ("hand",)
    score_higher_is_better = False
    score_unit = "round"
    fixed_action_texts = True

    def observation_bounds(self) -> tuple[float, float]:
        """Totals over the target score are bounded by the target and one round's worst penalty."""
        worst_round = max(cards * per_card for cards, per_card in enumerate(_deck.PENALTY_PER_CARD))
        target = int(self.rules.target_score)
        return 0.0, max(2.0, (target - 1 + worst_round) / target)

    def observation_view(self, observation: Any) -> dict[str, Any]:
        obs = observation
        exchange = None
        if obs.exchange is not None:
            exchange = {"loser": obs.exchange.loser, "winner": obs.exchange.winner,
                        "given": str(obs.exchange.given),
                        "returned": None if obs.exchange.returned is None else str(obs.exchange.returned)}
        return {
            "seat": obs.player, "current_player": obs.current_player, "round": obs.round, "phase": obs.phase,
            "direction": obs.direction, "dealer": obs.dealer,
            "hand": list(_texts_of(obs.hand_mask)), "hand_sizes": list(obs.hand_sizes),
            "table": None if obs.table is None else [str(c) for c in obs.table.cards],
            "table_player": obs.table_player, "passed": list(obs.passed), "announced": list(obs.announced),
            "out": list(obs.out), "played": list(_texts_of(obs.played_mask)), "scores": list(obs.scores),
            "exchange": exchange, "must_lead_m1": obs.must_lead_m1,
        }

    def record_text(self, record: Any) -> str:
        r = record
        if isinstance(r, RoundStart):
            return f"round {r.round}: P{r.dealer} deals, P{r.leader} leads"
        if isinstance(r, CardGiven):
            return f"P{r.giver} gives {r.card} to P{r.receiver}" + (" (highest card)" if r.automatic else "")
        if isinstance(r, Played):
            return f"P{r.player} plays {r.combo}" + (" and announces the last card" if r.announced else "")
        if isinstance(r, Passed):
            return f"P{r.player} passes"
        if isinstance(r, RoundEnd):
            return f"round {r.round} over: P{r.winner} goes out; totals {list(r.totals)}"
        if isinstance(r, MatchEnd):
            seats = ", ".join(f"P{s}" for s in r.winners) or "nobody"
            return f"match over: {seats} win{'s' if len(r.winners) == 1 else ''}"
        return super().record_text(record)

    def record_view(self, record: Any) -> dict[str, Any]:
        data = super().record_view(record)
        if isinstance(record, Played):
            data["cards"] = [str(c) for c in record.combo.cards]
        return data

    def action_view(self, action: Any) -> dict[str, Any]:
        """``play`` (``cards``, ``combo`` kind, ``announce``), ``pass`` or ``give_back`` (``card``)."""
        data = super().action_view(action)
        if isinstance(action, Play):
            data["cards"] = [str(c) for c in action.combo.cards]
            data["combo"] = action.combo.kind.name.lower()
        return data

    @property
    def num_distinct_actions(self) -> int:
        return ANNOUNCE_BASE + (NUM_COMBOS if self.rules.manual_last_card else 0)

    @property
    def max_game_length(self) -> int:
        # Every round adds at least one point for each of the n-1 non-winners, so
        # at most n*(target-1)/(n-1) + 1 rounds; a round has at most 16n plays,
        # n-1 passes after each, and one give-back.
        n, target = self.rules.players, self.rules.target_score
        rounds = (n * (target - 1)) // (n - 1) + 1
        return rounds * (HAND_SIZE * n * n + 1)

    @property
    def observation_size(self) -> int:
        return OBSERVATION_SIZE

    def rules_dict(self) -> dict[str, Any]:
        return self.rules.to_dict()

    def new_match(
        self, seed: int, deals: Sequence[Sequence[CardsLike]] | None = None,
        position: Mapping[str, Any] | None = None, **unknown: Any
    ) -> MatchState:
        """A new match from ``seed``.

        ``deals`` stacks the deck for the first rounds: ``deals[r]`` lists the
        hands of round ``r + 1``, one per seat, 16 cards each (with 2 or 3
        players the rest of the deck is set aside). Later rounds are shuffled
        from the seed. The deals are saved by ``to_json``.  ``position`` starts
        the match at a position instead (the keywords of :meth:`from_position`).
        """
        if unknown:
            raise InvalidTypeError(f"unknown match setup {sorted(unknown)}; Gang of Four takes deals= or position=")
        if deals is not None and position is not None:
            raise InvalidStateError("a match starts from stacked deals or from a position, not both")
        return MatchState(self, seed, deals, position)

    def from_position(
        self, *, hands: Sequence[CardsLike | int] | None = None, current: int = 0,
        table: ComboLike | None = None, table_player: int | None = None, passed: Sequence[int] | None = None,
        played: CardsLike | int | None = None, announced: Sequence[int] | None = None,
        totals: Sequence[int] | None = None, round: int = 1, dealer: int | None = None, seed: int = 0,
        **unknown: Any,
    ) -> MatchState:
        """A match at a position of a round's play, ready to play on.

        ``hands``: each seat's cards (text or cards; 1 to 16 a seat);
        ``current``: the seat to act; ``table``: the combination to beat
        (None: ``current`` leads) and ``table_player``, who played it;
        ``passed``: who passed since (default: the seats between
        ``table_player`` and ``current`` in turn order, as the rules make it);
        ``played``: every card played this round (default: the table's);
        ``announced``: who announced a last card (automatic without
        ``manual_last_card``); ``totals``: the match's penalty points so far;
        ``round`` (its parity sets the direction) and its ``dealer``.  Cards
        in no hand and not played are out of play (set aside).  In round 1
        before any play, the holder of ``M1`` leads and must play it.  Later
        rounds are dealt from ``seed``.

        >>> game = GangOfFour(players=2)
        >>> state = game.from_position(hands=["G3 Y3", "R9"], current=1, table="G2", table_player=0)
        >>> [state.action_to_string(a) for a in state.legal_actions()]
        ['R9', 'pass']
        >>> record = state.play("R9")
        >>> state.round, state.scores
        (2, (2, 0))
        """
        check.no_unknown("Gang of Four", unknown, _POSITION_KEYS)
        return self.new_match(seed, position={
            "hands": hands, "current": current, "table": table, "table_player": table_player,
            "passed": passed, "played": played, "announced": announced, "totals": totals, "round": round,
            "dealer": dealer,
        })

    def __repr__(self) -> str:
        return f"GangOfFour({self.rules!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GangOfFour) and other.rules == self.rules

    def __hash__(self) -> int:
        return hash(("GangOfFour", self.rules))


def _highest_code(mask: int) -> int:
    return _deck.KIND_OF_BIT[mask.bit_length() - 1]


def _additive(mask: int) -> int:
    return mask - ((mask >> 1) & _deck.PAIR_LO)


def _has_multi(hand: int) -> bool:
    """Whether the hand holds a combination of more than one card."""
    leads = _kernels.legal_actions(hand, -1)
    return bool(len(leads)) and int(leads[-1]) >= _deck.KIND_START[_deck.PAIR]


def _combo_rule(combo: int, hand: int, table: int, m1_lead: bool, constrained: bool) -> str | None:
    """Why playing ``combo`` (held, beating ``table``) breaks a special rule: the match's first
    lead (``m1_lead``), or the next player's last card (``constrained``); None if none."""
    mask = _MASKS[combo]
    if m1_lead and table < 0:
        if not mask & M1_BIT:
            return "the first lead of the match must contain M1"
        if _SIZES[combo] > 5:
            return "the first lead of the match has at most five cards"
    if constrained:
        highest = _highest_code(hand)
        if table < 0:
            if combo < _deck.KIND_START[_deck.PAIR]:
                if _has_multi(hand):
                    return "the next player has one card: lead a combination, not a single"
                if combo != highest:
                    return "the next player has one card: lead your highest single"
        elif table < _deck.KIND_START[_deck.PAIR] and highest > table:
            if combo < GANG_START and combo != highest:
                return "the next player has one card: play your highest single"
    return None


def _pass_rule(hand: int, table: int, constrained: bool, may_pass: bool) -> str | None:
    """Why passing is not allowed (``may_pass``: the rules' ``last_card_may_pass``); None if it is."""
    if table < 0:
        return "the leader must play"
    if constrained and not may_pass:
        if table < _deck.KIND_START[_deck.PAIR] and _highest_code(hand) > table:
            return "the next player has one card: play your highest single"
    return None


def _legal_plays(hand: int, table: int, m1_lead: bool, constrained: bool, rules: Rules) -> list[int]:
    """The legal actions of the play phase for ``hand`` on ``table``, in the engine's order."""
    combos: list[int] = _kernels.legal_actions(hand, table).tolist()
    if m1_lead and table < 0 or constrained:
        combos = [c for c in combos if _combo_rule(c, hand, table, m1_lead, constrained) is None]
    actions = combos
    if table >= 0 and _pass_rule(hand, table, constrained, rules.last_card_may_pass) is None:
        actions = combos + [PASS]
    if rules.manual_last_card:
        left = hand.bit_count()
        actions += [ANNOUNCE_BASE + c for c in combos if left - _SIZES[c] == 1]
    return actions


class MatchState(State[Action]):
    """A Gang of Four match in progress (see :mod:`fourcards.engine` for the contract)."""

    __slots__ = (
        "_deals", "_set_aside", "_rules", "_rng", "_hands", "_totals", "_round", "_dealer",
        "_direction", "_phase", "_current", "_table", "_table_player", "_passed",
        "_announced", "_out", "_m1_lead", "_played", "_exchange", "_winners",
    )
    _copied = {"_hands": "list", "_totals": "list", "_rng": "rng"}

    game: GangOfFour

    if TYPE_CHECKING:
        def observation(self, player: int) -> Observation: ...

    def __init__(self, game: GangOfFour, seed: int, deals: Sequence[Sequence[CardsLike]] | None = None,
                 position: Mapping[str, Any] | None = None) -> None:
        super().__init__(game, seed)
        if position is not None:
            self._set_position(_Position(game.rules, position))
            check.playable(self)
            return
        self._deals = _check_deals(deals, game.rules.players)
        self.setup = {"deals": [[_format_mask(h) for h in deal] for deal in self._deals]} if self._deals else {}
        self._rules = game.rules
        self._rng = Rng(seed)
        self._totals = [0] * self._n
        self._round = 0
        self._winners: tuple[int, ...] = ()
        self._exchange: Exchange | None = None
        self._start_round(self._rules.dealer, previous=None)

    def _set_position(self, p: _Position) -> None:
        self.setup = {"position": p.json}
        self._deals = []
        self._rules = p.rules
        self._rng = Rng(self.seed)
        self._totals = p.totals
        self._round = p.round
        self._winners = ()
        self._exchange = None
        self._dealer = p.dealer
        self._direction = p.direction
        self._hands = p.hands
        self._played = _additive(p.played)
        self._set_aside = _additive(_deck.FULL_DECK) - sum(_additive(h) for h in p.hands) - self._played
        self._table = p.table
        self._table_player = p.table_player
        self._passed = sum(1 << seat for seat in p.passed)
        self._announced = sum(1 << seat for seat in p.announced)
        self._out = 0
        self._m1_lead = p.m1_lead
        self._current = p.current
        self._phase = PLAY

    # -- dealing and rounds ---------------------------------------------------------
    def _start_round(self, dealer: int, previous: tuple[int, list[int]] | None) -> None:
        n = self._n
        self._round += 1
        self._dealer = dealer
        self._direction = 1 if self._round % 2 == 1 else -1
        deck = [code for code in range(_deck.NUM_KINDS) for _ in range(_deck.CAP[code])]
        self._rng.shuffle(deck)
        if self._rules.chinese_dealing:
            # The dealer draws the last card of the shuffled deck and counts that
            # many seats counter-clockwise, counting themself as the first
            # (phoenixes count 11, the dragon 12).
            first = (dealer + _deck.VALUE[deck[-1]] - 1) % n
        else:
            first = (dealer + 1) % n
        if self._round <= len(self._deals):
            self._hands = list(self._deals[self._round - 1])
        else:
            additive = [0] * n
            for i in range(HAND_SIZE * n):
                additive[(first + i) % n] += _deck.BIT[deck[i]]
            self._hands = [_deck.canonical_from_sum(a) for a in additive]
        self._set_aside = _additive(_deck.FULL_DECK) - sum(_additive(h) for h in self._hands)
        self._table = -1
        self._table_player = -1
        self._passed = 0
        self._announced = 0
        self._out = 0
        self._played = 0
        self._exchange = None
        if previous is None:
            holder = next((p for p in range(n) if self._hands[p] & M1_BIT), -1)
            self._m1_lead = holder >= 0
            leader = holder if holder >= 0 else (dealer + 1) % n
        else:
            self._m1_lead = False
            leader = previous[0]
        self._record(RoundStart(self._round, dealer, first, leader, self._direction))
        self._current = leader
        self._phase = PLAY
        if previous is not None:
            winner, cards_left = previous
            loser = self._loser(winner, cards_left)
            code = _highest_code(self._hands[loser])
            self._move_card(loser, winner, code)
            self._exchange = Exchange(loser, winner, KINDS[code], None)
            self._record(CardGiven(loser, winner, KINDS[code], True))
            self._phase = GIVE_BACK
            self._current = winner

    def _loser(self, winner: int, cards_left: list[int]) -> int:
        n = self._n
        order = [(winner + k) % n for k in range(1, n)]  # counter-clockwise from the winner
        return max(order, key=lambda p: (cards_left[p], self._totals[p], -order.index(p)))

    def _move_card(self, giver: int, receiver: int, code: int) -> None:
        self._hands[giver] = _deck.canonical_from_sum(_additive(self._hands[giver]) - _deck.BIT[code])
        self._hands[receiver] = _deck.canonical_from_sum(_additive(self._hands[receiver]) + _deck.BIT[code])

    def _end_round(self, winner: int) -> None:
        n = self._n
        cards_left = [h.bit_count() for h in self._hands]
        forgot = tuple(p for p in range(n) if self._out >> p & 1)
        penalties = []
        for p in range(n):
            if p == winner:
                penalties.append(0)
            elif self._out >> p & 1:
                penalties.append(1)
            else:
                penalties.append(cards_left[p] * _deck.PENALTY_PER_CARD[cards_left[p]])
        for p in range(n):
            self._totals[p] += penalties[p]
        self._record(RoundEnd(self._round, winner, tuple(cards_left), tuple(penalties),
                              tuple(self._totals), forgot))
        if max(self._totals) >= self._rules.target_score:
            low = min(self._totals)
            self._winners = tuple(p for p in range(n) if self._totals[p] == low)
            self._phase = OVER
            self._current = -1
            self._table = -1
            self._record(MatchEnd(self._winners, tuple(self._totals)))
            return
        self._start_round(winner, previous=(winner, cards_left))

    # -- turn order ---------------------------------------------------------------------
    def _next_seat(self, player: int, skip_passed: bool) -> int:
        n, step = self._n, self._direction
        skip = self._out | (self._passed if skip_passed else 0)
        seat = player
        for _ in range(n):
            seat = (seat + step) % n
            if not skip >> seat & 1:
                return seat
        return -1

    def _constrained(self) -> bool:
        """Whether the next player in turn order holds exactly one (announced) card.

        With ``pass_is_final`` the next player is the next one still in the
        cycle: a player who passed cannot play on the current player's play."""
        nxt = self._next_seat(self._current, skip_passed=self._rules.pass_is_final)
        if nxt < 0 or nxt == self._current or self._hands[nxt].bit_count() != 1:
            return False
        return not self._rules.manual_last_card or bool(self._announced >> nxt & 1)

    # -- legality ------------------------------------------------------------------------
    def _combo_reason(self, combo: int, constrained: bool) -> str | None:
        """Why playing ``combo`` (held, beating the table) breaks a special rule."""
        return _combo_rule(combo, self._hands[self._current], self._table, self._m1_lead, constrained)

    def _why_illegal(self, action: int) -> str | None:
        phase = self._phase
        hand = self._hands[self._current]
        if phase == GIVE_BACK:
            if not GIVE_BACK_BASE <= action < ANNOUNCE_BASE:
                return "the round winner must first give a card back"
            if not hand & _deck.BIT[action - GIVE_BACK_BASE]:
                return f"they do not hold {_deck.NAMES[action - GIVE_BACK_BASE]}"
            return None
        if action == PASS:
            return self._pass_reason(self._constrained())
        if GIVE_BACK_BASE <= action < ANNOUNCE_BASE:
            return "no card exchange is under way"
        combo = action if action < NUM_COMBOS else action - ANNOUNCE_BASE
        mask = _MASKS[combo]
        if mask & ~hand:
            return "they do not hold those cards"
        if self._table >= 0 and not _kernels.beats(combo, self._table):
            return f"it does not beat {action_to_combo(self._table)}"
        if action >= ANNOUNCE_BASE and hand.bit_count() - _SIZES[combo] != 1:
            return "announcing is for a play that leaves exactly one card"
        return self._combo_reason(combo, self._constrained())

    def _pass_reason(self, constrained: bool) -> str | None:
        return _pass_rule(self._hands[self._current], self._table, constrained, self._rules.last_card_may_pass)

    def _legal_actions(self) -> list[int]:
        hand = self._hands[self._current]
        if self._phase == GIVE_BACK:
            return [GIVE_BACK_BASE + code for code in sorted(set(_deck.codes_of_mask(hand)))]
        return _legal_plays(hand, self._table, self._m1_lead, self._constrained(), self._rules)

    def legal_actions_mask(self) -> npt.NDArray[np.bool_]:
        size = ANNOUNCE_BASE + (NUM_COMBOS if self._rules.manual_last_card else 0)
        table = self._table
        if self._phase == PLAY and not (self._m1_lead and table < 0):
            constrained = self._constrained()
            if not constrained:
                # The common case straight from the kernel: no rule filters the plays.
                hand = self._hands[self._current]
                mask: npt.NDArray[np.bool_] = _kernels.legal_mask(hand, table, size)
                if table >= 0:
                    mask[PASS] = True
                if self._rules.manual_last_card:
                    self._add_announcing(mask, hand)
                return mask
        mask = np.zeros(size, dtype=np.bool_)
        mask[self.legal_actions()] = True
        return mask

    def _add_announcing(self, mask: npt.NDArray[np.bool_], hand: int) -> None:
        left = hand.bit_count()
        for combo in np.flatnonzero(mask[:NUM_COMBOS]).tolist():
            if left - _SIZES[combo] == 1:
                mask[ANNOUNCE_BASE + combo] = True

    # -- applying ------------------------------------------------------------------------
    def _apply(self, action: int) -> Record:
        player = self._current
        if self._phase == GIVE_BACK:
            code = action - GIVE_BACK_BASE
            assert self._exchange is not None
            loser = self._exchange.loser
            self._move_card(player, loser, code)
            self._exchange = Exchange(loser, player, self._exchange.given, KINDS[code])
            self._phase = PLAY
            return self._record(CardGiven(player, loser, KINDS[code], False))
        if action == PASS:
            passed = self._record(Passed(player))
            self._passed |= 1 << player
            if not self._cycle_over():
                self._current = self._next_seat(player, self._rules.pass_is_final)
            return passed
        announce = action >= ANNOUNCE_BASE
        combo = action - ANNOUNCE_BASE if announce else action
        before = self._hands[player]
        had = before.bit_count()
        additive = before - ((before >> 1) & _PAIR_LO) - _ADDITIVE[combo]
        hand = self._hands[player] = additive | ((additive >> 1) & _PAIR_LO)
        self._played += _ADDITIVE[combo]
        self._m1_lead = False
        left = had - _SIZES[combo]
        if left == 1 and (announce or not self._rules.manual_last_card):
            self._announced |= 1 << player
            announce = True
        record: Record = Played(player, _COMBO_CACHE[combo] or action_to_combo(combo), announce, left)
        self._log = (record, self._log)
        self._table = combo
        self._table_player = player
        if not self._rules.pass_is_final:
            self._passed = 0  # the cycle ends when all others pass after the last play
        if hand == 0:
            forgot = (self._rules.manual_last_card and had == 1 and not self._announced >> player & 1)
            if not forgot:
                self._end_round(player)
                return record
            self._out |= 1 << player
            active = [p for p in range(self._n) if not self._out >> p & 1]
            if len(active) == 1:
                # The last player in the round would go out in the end: they win it.
                self._end_round(active[0])
                return record
        if not self._cycle_over():
            self._current = self._next_seat(player, self._rules.pass_is_final)
        return record

    def _cycle_over(self) -> bool:
        """End the cycle if every other player in the round has passed; the
        last player to play (or, if they are out, the next seat) leads."""
        active_others = ((1 << self._n) - 1) & ~self._out & ~(1 << self._table_player)
        if self._passed & active_others != active_others:
            return False
        leader = self._table_player
        if self._out >> leader & 1:
            leader = self._next_seat(leader, skip_passed=False)
        self._table = -1
        self._table_player = -1
        self._passed = 0
        self._current = leader
        return True

    # -- readable actions and convenience -----------------------------------------------
    def parse_action(self, text: str) -> Action:
        """``"pass"``, ``"give G2"``, or a play (ending in ``!`` to announce); see :func:`parse_action`."""
        return parse_action(text)

    def _action_code(self, action: Any) -> int:
        if isinstance(action, Pass):
            return PASS
        if isinstance(action, GiveBack):
            if not isinstance(action.card, Card):
                raise InvalidTypeError(f"GiveBack takes a Card (Card.parse('G5')), not {type(action.card).__name__}")
            return GIVE_BACK_BASE + action.card.code
        if isinstance(action, Play):
            if not isinstance(action.combo, Combo):
                raise InvalidTypeError(f"Play takes a Combo (Combo.parse('G5 Y5')), not {type(action.combo).__name__}")
            if not isinstance(action.announce, bool):
                raise InvalidTypeError(f"Play's announce is a bool, not {type(action.announce).__name__}")
            if action.announce:
                if not self._rules.manual_last_card:
                    raise IllegalMoveError("announcing plays exist only with manual_last_card")
                return ANNOUNCE_BASE + action.combo.action
            return action.combo.action
        raise InvalidTypeError(f"an action must be an int, Play, Pass or GiveBack, not {type(action).__name__}")

    def _int_to_action(self, action: int) -> Action:
        if action < NUM_COMBOS:
            return Play(action_to_combo(action))
        if action == PASS:
            return Pass()
        if action < ANNOUNCE_BASE:
            return GiveBack(KINDS[action - GIVE_BACK_BASE])
        return Play(action_to_combo(action - ANNOUNCE_BASE), True)

    def play(self, cards: ComboLike, announce: bool = False) -> Record:
        """Play cards given as text or a :class:`Combo` (``announce`` the last card)."""
        combo = cards if isinstance(cards, Combo) else classify(cards)
        if combo is None:
            raise IllegalMoveError(f"{cards!r} is not a combination ({self.describe()})")
        if announce and not self._rules.manual_last_card:
            raise IllegalMoveError("announcing is a choice only with manual_last_card; "
                                   "otherwise it is automatic")
        record: Record = self.apply(Play(combo, announce))
        return record

    def pass_(self) -> Record:
        """Pass."""
        record: Record = self.apply(PASS)
        return record

    def give_back(self, card: Card | str) -> Record:
        """As the round winner, give ``card`` back to the loser."""
        record: Record = self.apply(GiveBack(card if isinstance(card, Card) else Card.parse(card)))
        return record

    # -- public facts ----------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._current

    @property
    def is_terminal(self) -> bool:
        return self._phase == OVER

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self._phase]

    @property
    def round(self) -> int:
        return self._round

    @property
    def direction(self) -> int:
        """+1: counter-clockwise (seat numbers increasing); -1: clockwise."""
        return self._direction

    @property
    def table(self) -> Combo | None:
        return None if self._table < 0 else action_to_combo(self._table)

    @property
    def table_player(self) -> int:
        return self._table_player

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(h.bit_count() for h in self._hands)

    def hand(self, player: int) -> tuple[Card, ...]:
        """A seat's cards (hidden information: for referees, tests and tools)."""
        return mask_cards(self._hands[self._seat(player)])

    @property
    def scores(self) -> tuple[int, ...]:
        """Match totals (penalty points; lower is better)."""
        return tuple(self._totals)

    @property
    def winners(self) -> tuple[int, ...]:
        return self._winners

    def describe(self) -> str:
        if self._phase == OVER:
            return f"match over after round {self._round}, scores {self._totals}, winners {list(self._winners)}"
        table = ("empty table" if self._table < 0
                 else f"table {action_to_combo(self._table)} by player {self._table_player}")
        way = "counter-clockwise" if self._direction == 1 else "clockwise"
        sizes = "/".join(str(s) for s in self.hand_sizes)
        phase = " (give-back)" if self._phase == GIVE_BACK else ""
        return f"round {self._round}{phase}, {way}, {table}, hands {sizes}, player {self._current} to act"

    def summary(self) -> dict[str, Any]:
        return {
            "round": self._round,
            "phase": PHASE_NAMES[self._phase],
            "current_player": self._current,
            "scores": list(self._totals),
            "hand_sizes": list(self.hand_sizes),
            "table": None if self._table < 0 else str(action_to_combo(self._table)),
            "winners": list(self._winners),
        }

    def __repr__(self) -> str:
        # public facts only: the seed and the actions rebuild every hand, and a repr ends up in logs
        return f"<MatchState {self.describe()}>"

    # -- observations ----------------------------------------------------------------------
    def _observation(self, player: int) -> Observation:
        """What ``player`` knows: their own hand and everything public."""
        n = self._n
        return Observation(
            player=player,
            round=self._round,
            phase=PHASE_NAMES[self._phase],
            current_player=self._current,
            direction=self._direction,
            hand=_cards_of(self._hands[player]),
            hand_mask=self._hands[player],
            hand_sizes=self.hand_sizes,
            table=self.table,
            table_player=self._table_player,
            passed=tuple(bool(self._passed >> p & 1) for p in range(n)),
            announced=tuple(bool(self._announced >> p & 1) for p in range(n)),
            out=tuple(bool(self._out >> p & 1) for p in range(n)),
            played=_cards_of(_deck.canonical_from_sum(self._played)),
            scores=tuple(self._totals),
            exchange=self._exchange,
            must_lead_m1=self._m1_lead and self._table < 0,
            dealer=self._dealer,
            rules=self._rules,
            played_mask=_deck.canonical_from_sum(self._played),
            legal_actions=tuple(self.legal_actions()) if player == self._current else (),
        )

    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        """The observation of ``player`` as ``OBSERVATION_SIZE`` float32 values.

        Seats are relative to the observer (slot 0 is ``player``, slot k the
        seat ``(player + k) % n``), always 4 slots (zeros past n).

        ========  ================================================================
        0-33      own hand: copies held of each card code
        34-67     cards played this round: copies of each code
        68-101    the table combination: copies of each code (zeros when leading)
        102-109   the table's kind, one-hot (``ComboKind``)
        110-113   hand sizes / 16
        114-117   match totals / target score
        118-121   passed since the last play
        122-125   announced a last card
        126-129   out of the round (played a last card without announcing)
        130-133   the player to act, one-hot
        134-137   who played the table, one-hot
        138       direction: 1 counter-clockwise, 0 clockwise
        139       1 during the give-back
        140       1 when the lead must contain M1
        141-174   the card the loser gave the winner this round, one-hot
        175-208   the card the winner gave back, one-hot
        209-212   the exchange's loser, one-hot
        213-216   the exchange's winner, one-hot
        ========  ================================================================
        """
        n = self._n
        out[0:34] = _deck.counts_of_mask(self._hands[player])
        out[34:68] = _deck.counts_of_mask(_deck.canonical_from_sum(self._played))
        if self._table >= 0:
            out[68:102] = _deck.counts_of_mask(_MASKS[self._table])
            out[102 + action_to_combo(self._table).kind] = 1.0
        for k in range(n):
            seat = (player + k) % n
            out[110 + k] = self._hands[seat].bit_count() / HAND_SIZE
            out[114 + k] = self._totals[seat] / self._rules.target_score
            out[118 + k] = self._passed >> seat & 1
            out[122 + k] = self._announced >> seat & 1
            out[126 + k] = self._out >> seat & 1
            out[130 + k] = seat == self._current
            out[134 + k] = seat == self._table_player
        out[138] = self._direction == 1
        out[139] = self._phase == GIVE_BACK
        out[140] = self._m1_lead and self._table < 0
        if self._exchange is not None:
            out[141 + self._exchange.given.code] = 1.0
            if self._exchange.returned is not None:
                out[175 + self._exchange.returned.code] = 1.0
            out[209 + (self._exchange.loser - player) % n] = 1.0
            out[213 + (self._exchange.winner - player) % n] = 1.0

    # -- what a player cannot see ------------------------------------------------------------
    def _round_records(self) -> list[Record]:
        """The records of the round in play (since its start, or the position), oldest first."""
        items: list[Record] = []
        node = self._log
        while node is not None and not isinstance(node[0], RoundStart):
            items.append(node[0])
            node = node[1]
        items.reverse()
        return items

    def _information_set(self, player: int) -> tuple[DealSampler, Any]:
        """Hidden from a seat: the other seats' hands and the cards set aside (with
        2 or 3 players, or out of play in a position). What it has seen narrows
        them: the exchange (the winner holds the card the loser gave, unless they
        gave it back or played its kind; the loser holds the card given back, and
        no other card above the one they gave, their highest); in round 1 the
        holder of ``M1`` leads with it (so before the first lead the leader holds
        it, and after a first lead without it, nobody does); and the last-card
        rule: a seat bound by it that played a single played its highest, one
        that led a single held nothing else to lead, one that passed held no
        single to beat the table (tested on each deal, which is then kept only if
        it passes). Deals are equally likely, not positions: what a seat played
        or gave in the exchange weighs the hands it may hold (see
        :mod:`fourcards.sampling`)."""
        n = self._n
        others = [p for p in range(n) if p != player]
        index = {seat: i for i, seat in enumerate(others)}
        aside = len(others)
        records = self._round_records()
        played_by = [0] * n
        for record in records:
            if isinstance(record, Played):
                played_by[record.player] += _additive(record.combo.mask)
        pool = sum(_additive(self._hands[p]) for p in others) + self._set_aside
        counts = [int(c) for c in _deck.counts_of_mask(_deck.canonical_from_sum(pool))]
        places = len(others) + 1
        low = [[0] * places for _ in range(_deck.NUM_KINDS)]
        high: list[list[int]] = [[counts[k]] * places for k in range(_deck.NUM_KINDS)]
        bounded = set()

        def at_least(code: int, seat_place: int, copies: int) -> None:
            if copies > 0:
                low[code][seat_place] = max(low[code][seat_place], copies)
                bounded.add(code)

        exchange = self._exchange
        if exchange is not None:
            given, returned = exchange.given.code, None if exchange.returned is None else exchange.returned.code

            def still(seat: int, code: int) -> int:
                return 1 - int(_deck.counts_of_mask(_deck.canonical_from_sum(played_by[seat]))[code])

            if exchange.winner in index and returned != given:
                at_least(given, index[exchange.winner], still(exchange.winner, given))
            if exchange.loser in index:
                place = index[exchange.loser]
                if returned is not None:
                    at_least(returned, place, still(exchange.loser, returned))
                for code in range(given + 1, _deck.NUM_KINDS):  # they gave their highest card
                    high[code][place] = low[code][place] if code == returned else 0
                    bounded.add(code)
        position = self.setup.get("position")
        first_lead_seen = self._round == 1 and (not isinstance(position, Mapping) or not position.get("played"))
        if first_lead_seen and not _deck.canonical_from_sum(self._played) & M1_BIT:
            if self._m1_lead:
                if self._current in index:
                    at_least(_deck.M1, index[self._current], 1)
            elif self._hands[player] & M1_BIT == 0:
                at_least(_deck.M1, aside, 1)
        # what each seat gave up in the open since the deal: its plays, and the exchange
        removed = [[0] * places for _ in range(_deck.NUM_KINDS)]
        for seat, i in index.items():
            for code, copies in enumerate(_deck.counts_of_mask(_deck.canonical_from_sum(played_by[seat]))):
                removed[code][i] += int(copies)
        if exchange is not None:
            moves = [(exchange.loser, exchange.winner, exchange.given.code)]
            if exchange.returned is not None:
                moves.append((exchange.winner, exchange.loser, exchange.returned.code))
            for giver, receiver, code in moves:
                if giver in index:
                    removed[code][index[giver]] += 1
                if receiver in index:
                    removed[code][index[receiver]] -= 1
        free: list[int] = []
        groups = []
        for code in range(_deck.NUM_KINDS):
            if code in bounded or any(removed[code]):
                groups.append(Group((code,) * counts[code], low=tuple(low[code]), high=tuple(high[code]),
                                    removed=tuple(removed[code])))
            else:
                free += [code] * counts[code]
        sizes = [self._hands[p].bit_count() for p in others]
        sizes.append(sum(counts) - sum(sizes))
        forced = self._forced_plays(records)

        def accept(deal: list[list[int]]) -> bool:
            return all(self._forced_ok(seat, _deck.canonical_from_sum(
                sum(_deck.BIT[c] for c in deal[index[seat]]) + later), action, table)
                for seat, action, table, later in forced if seat in index)

        deal = DealSampler(sizes, free, groups, accept if forced else None)

        def write(state: MatchState, cards: list[list[int]], rng: Rng) -> None:
            for seat, i in index.items():
                state._hands[seat] = _deck.canonical_from_sum(sum(_deck.BIT[c] for c in cards[i]))
            state._set_aside = sum(_deck.BIT[c] for c in cards[aside])
            state._rng = Rng(rng.next_u64())

        return deal, write

    def _forced_plays(self, records: list[Record]) -> list[tuple[int, int, int, int]]:
        """The steps of the round in play where the last-card rule bound the seat
        to act: ``(seat, action, table, later)``, ``later`` the additive mask of
        what that seat played from that step on (its hand then: its hand now and
        ``later``). Found by playing the match again from its start (only when
        some seat was left with one card this round)."""
        start_sizes = [h.bit_count() for h in self._hands]
        for r in records:
            if isinstance(r, Played):
                start_sizes[r.player] += r.combo.mask.bit_count()
        if 1 not in start_sizes and not any(isinstance(r, Played) and r.cards_left == 1 for r in records):
            return []
        # the round's actions, one record each: the give-back, then plays and passes
        primary = [r for r in records if isinstance(r, (Played, Passed))
                   or (isinstance(r, CardGiven) and not r.automatic)]
        actions = self.actions
        start = len(actions) - len(primary)
        replay = self.game.new_match(self.seed, **{k: v for k, v in self.setup.items() if k != RESAMPLED})
        found = []
        for step, action in enumerate(actions):
            if step >= start and replay._phase == PLAY and replay._constrained():
                seat = replay._current
                combo = PASS if action == PASS else action - ANNOUNCE_BASE if action >= ANNOUNCE_BASE else action
                later = sum(_additive(r.combo.mask) for r in primary[step - start:]
                            if isinstance(r, Played) and r.player == seat)
                found.append((seat, combo, replay._table, later))
            replay.apply(action)
        return found

    def _forced_ok(self, seat: int, hand: int, action: int, table: int) -> bool:
        """Whether ``seat`` holding ``hand``, bound by the last-card rule over
        ``table``, may take ``action`` (the rule's checks of :meth:`_why_illegal`)."""
        if action == PASS:
            return _pass_rule(hand, table, True, self._rules.last_card_may_pass) is None
        return _combo_rule(action, hand, table, False, True) is None

    # -- referee access for tests and tools --------------------------------------------------
    def _hand_masks(self) -> tuple[int, ...]:
        return tuple(self._hands)


def _format_mask(mask: int) -> str:
    return " ".join(str(card) for card in mask_cards(mask))


def _check_deals(deals: Sequence[Sequence[CardsLike]] | None, players: int) -> list[list[int]]:
    """Stacked deals as hand masks, checked: 16 cards a seat, none twice."""
    if deals is None:
        return []
    checked = []
    for r, deal in enumerate(deals):
        if isinstance(deal, str) or len(deal) != players:
            raise InvalidStateError(f"deal {r + 1} must list {players} hands")
        hands = [hand_mask(h) for h in deal]
        for seat, hand in enumerate(hands):
            if hand.bit_count() != HAND_SIZE:
                raise InvalidStateError(
                    f"deal {r + 1}: seat {seat} gets {hand.bit_count()} cards, not {HAND_SIZE}"
                )
        total = sum(_additive(h) for h in hands)
        together = _deck.canonical_from_sum(total)
        if together.bit_count() != HAND_SIZE * players:
            raise InvalidStateError(f"deal {r + 1} deals some card more often than the deck holds it")
        checked.append(hands)
    return checked


_POSITION_KEYS: Final = ("hands", "current", "table", "table_player", "passed", "played", "announced",
                         "totals", "round", "dealer")


class _Position:
    """A Gang of Four position, checked (see :meth:`GangOfFour.from_position`);
    ``json`` is its canonical form, which reads back to the same position."""

    def __init__(self, rules: Rules, data: Mapping[str, Any]) -> None:
        if not isinstance(data, Mapping):
            raise InvalidStateError(f"a position is a mapping of {', '.join(_POSITION_KEYS)}, "
                                    f"not {type(data).__name__}")
        check.no_unknown("Gang of Four", {k: v for k, v in data.items() if k not in _POSITION_KEYS},
                         _POSITION_KEYS)
        n = rules.players
        self.rules = rules
        given = check.per_seat(check.required(data.get("hands"), "hands", '["G3 Y3", "R9"]'), "hands", n)
        self.hands = [check.parse(hand_mask, hand, f"hands[{seat}]") for seat, hand in enumerate(given)]
        for seat, hand in enumerate(self.hands):
            if not 1 <= hand.bit_count() <= HAND_SIZE:
                why = ("a player without cards has won the round" if not hand
                       else f"a hand holds at most {HAND_SIZE}")
                raise InvalidStateError(f"hands[{seat}] holds {hand.bit_count()} cards: {why}")
        self.current = check.seat(data.get("current", 0), "current", n)
        self.round = check.number(data.get("round", 1), "round", 1)
        self.direction = 1 if self.round % 2 == 1 else -1
        dealer = data.get("dealer")
        self.dealer = rules.dealer if dealer is None else check.seat(dealer, "dealer", n)
        totals = data.get("totals")
        self.totals = [0] * n if totals is None else [
            check.number(t, f"totals[{seat}]", 0) for seat, t in enumerate(check.per_seat(totals, "totals", n))]
        if max(self.totals) >= rules.target_score:
            raise InvalidStateError(f"totals {self.totals} reach the target score {rules.target_score}: "
                                    "the match is over")
        table, table_player = data.get("table"), data.get("table_player")
        combo = None
        if table is not None:
            combo = table if isinstance(table, Combo) else check.parse(Combo.parse, table, "table")
            if table_player is None:
                raise InvalidStateError("table_player is required with a table: who played it")
            table_player = check.seat(table_player, "table_player", n)
            if table_player == self.current:
                raise InvalidStateError(f"table_player={table_player} is current: once every other player "
                                        "has passed, the table is cleared and that player leads")
        elif table_player is not None:
            raise InvalidStateError(f"table_player={check.shown(table_player)} without a table")
        self.table = -1 if combo is None else combo.action
        self.table_player = -1 if table_player is None else table_player
        played = data.get("played")
        self.played = (0 if combo is None else combo.mask) if played is None else check.parse(
            hand_mask, played, "played")
        if combo is not None and combo.mask & ~self.played:
            raise InvalidStateError(f"played ({_format_mask(self.played)}) lacks the table's cards ({combo})")
        places = [(f"hands[{seat}]", _deck.codes_of_mask(hand)) for seat, hand in enumerate(self.hands)]
        check.deck_holds(places + [("played", _deck.codes_of_mask(self.played))], _deck.CAP.__getitem__,
                         _deck.NAMES)
        # Round 1 before any play: the holder of M1 (else the seat after the dealer) leads, with M1.
        holder = next((seat for seat in range(n) if self.hands[seat] & M1_BIT), -1)
        self.m1_lead = self.round == 1 and not self.played and holder >= 0
        if self.round == 1 and not self.played:
            leader = holder if holder >= 0 else (self.dealer + 1) % n
            if self.current != leader:
                who = "holds M1" if holder >= 0 else "sits after the dealer (nobody holds M1)"
                raise InvalidStateError(f"current={self.current}, but round 1 opens with seat {leader}, "
                                        f"who {who}")
        # Who passed since the table was played: at least the seats between its player and current.
        between: list[int] = []
        if combo is not None:
            seat = (self.table_player + self.direction) % n
            while seat != self.current:
                between.append(seat)
                seat = (seat + self.direction) % n
        passed = data.get("passed")
        self.passed = tuple(sorted(between)) if passed is None else check.seat_set(passed, "passed", n)
        if self.passed and combo is None:
            raise InvalidStateError(f"passed={list(self.passed)} without a table: passes end with the cycle")
        for seat in (self.current, self.table_player):
            if seat in self.passed:
                raise InvalidStateError(f"passed={list(self.passed)} names seat {seat}, who "
                                        f"{'is to act' if seat == self.current else 'played the table'}")
        missing = set(between) - set(self.passed)
        extra = set(self.passed) - set(between)
        if missing or (extra and not rules.pass_is_final):
            raise InvalidStateError(
                f"passed={list(self.passed)}: after seat {self.table_player}'s play, seats {sorted(between)} "
                f"acted before seat {self.current} and passed" + ("" if rules.pass_is_final else " (and no others)"))
        ones = tuple(seat for seat in range(n) if self.hands[seat].bit_count() == 1)
        announced = data.get("announced")
        self.announced = ((ones if not rules.manual_last_card else ()) if announced is None
                          else check.seat_set(announced, "announced", n))
        if not rules.manual_last_card and self.announced != ones:
            raise InvalidStateError(f"announced={list(self.announced)}: without manual_last_card the seats "
                                    f"holding one card ({list(ones)}) have announced, and only they")
        for seat in self.announced:
            if seat not in ones:
                raise InvalidStateError(f"announced names seat {seat}, who holds "
                                        f"{self.hands[seat].bit_count()} cards: one announces a last card")
        self.json: dict[str, Any] = {
            "hands": [_format_mask(h) for h in self.hands], "current": self.current,
            "table": None if combo is None else str(combo), "table_player": table_player,
            "passed": list(self.passed), "played": _format_mask(self.played), "announced": list(self.announced),
            "totals": list(self.totals), "round": self.round, "dealer": self.dealer,
        }
