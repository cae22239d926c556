"""The Four Color Cards game (rules: ``shared/rules/four-color-cards.md``).

Integer actions (``NUM_ACTIONS`` = 119):

===============  ==============================================================
0 .. 27          discard the card with that code
28 (``PASS``)    pass on the card on offer
29 (``HU``)      call hu with the card on offer
30 .. 118        claim the card on offer with the meld ``MELDS[action - 30]``
                 (pong, kong or chi; a turned-up General: how to meld it)
===============  ==============================================================

Claims are simultaneous: the eligible players answer one at a time in
priority order (``current_player``), and nobody's observation shows an
answer before all have answered (:class:`~fourcards.engine.SimultaneousDecision`).

Engine decisions beyond the rules file: round ``r``'s first player is seat
``(r - 1) % players``; the stock's top card is the last of the shuffled
stock; a turned-up General that nobody wins with goes to the revealer, who
chooses how to meld it (alone, or in a command set with their own Advisor and
Elephant).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final, Union

import numpy as np
import numpy.typing as npt

from .. import _position as check
from ..engine import Game, GameRules, SimultaneousDecision, State, option
from ..errors import IllegalMoveError, InvalidStateError, InvalidTypeError
from ..rng import Rng
from ..sampling import DealSampler, Group
from . import _deck, _reference, _variants
from .cards import KINDS, Card, Meld, _cards

__all__ = ["Rules", "FourColor", "FourColorState", "FourColorObservation", "Offer", "MELDS",
           "PASS", "HU", "CLAIM_BASE", "NUM_ACTIONS", "Dealt", "Discarded", "TurnedUp", "Claimed",
           "Answered", "ClaimsRevealed", "RoundEnd", "GameEnd", "Discard", "Pass", "Hu", "Claim", "Action"]

MELDS: Final[tuple[tuple[int, ...], ...]] = tuple(_reference.MELDS)
PASS: Final = 28
HU: Final = 29
CLAIM_BASE: Final = 30
NUM_ACTIONS: Final = CLAIM_BASE + len(MELDS)
DISCARD, CLAIM, OVER = 0, 1, 2
PHASES: Final = ("discard", "claim", "over")
#: The most points a hu can score: 21 cards at 2 points a card at most (a quad: 8 for 4),
#: and a lucky point for each of them.
MAX_WIN_POINTS: Final = 21 * 2 + 21


def max_round_payment(rules: Rules) -> int:
    """The most one seat's total can move in a round: a win of ``MAX_WIN_POINTS``, or a
    false win's ``threshold + 1``, from or to each other seat."""
    return max(MAX_WIN_POINTS - rules.threshold + 1, rules.threshold + 1) * (rules.players - 1)
MELD_INDEX: Final[dict[tuple[int, ...], int]] = {m: i for i, m in enumerate(MELDS)}


@dataclass(frozen=True)
class Rules(GameRules):
    """Four Color rules.

    - ``players``: 2 to 4 (default 4);
    - ``threshold``: the points a hu needs, or it is a false win (default 10; at most 1,000);
    - ``rounds``: rounds a game (default 3);
    - ``lucky_rank_only``: the lucky card counts every card the winner owns of
      its rank, the seed's "tipo" (default); False: only of its rank and colour;
    - ``same_colour_soldiers``: Soldiers of one colour form triples and quads
      (default); False: they form none, only three and four soldiers of
      different colours (the other reading of "tranne Generali e Soldati");
    - ``only_generals``: a player who must discard but holds only Generals ends
      the round as their hu (``"hu"``, default) or with no winner
      (``"no_winner"``, nobody scores).
    """

    players: int = option(4, low=2, high=4)
    threshold: int = option(10, low=0, high=1000)
    rounds: int = option(3, low=1, high=1000)
    lucky_rank_only: bool = True
    same_colour_soldiers: bool = True
    only_generals: str = option("hu", choices=("hu", "no_winner"))


# -- actions --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card (never a General)."""

    card: Card

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass on the card on offer."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Hu:
    """Call hu with the card on offer."""

    def __str__(self) -> str:
        return "hu"


@dataclass(frozen=True, slots=True)
class Claim:
    """Claim the card on offer with a meld (its cards include the offered one)."""

    meld: Meld

    def __str__(self) -> str:
        return f"claim {self.meld}"


Action = Union[Discard, Pass, Hu, Claim]


def parse_action(text: str) -> Action:
    """``"discard RA"``, ``"pass"``, ``"hu"`` or ``"claim RC RC RC"`` (case-insensitive).

    >>> str(parse_action("Claim rc rc rc")), parse_action("claim RC RC RC").meld.kind.name
    ('claim RC RC RC', 'TRIPLE')
    >>> parse_action(" discard ra "), parse_action("PASS")
    (Discard(card=Card.parse('RA')), Pass())
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"action text must be a str, not {type(text).__name__}")
    words = text.split()
    verb = words[0].lower() if words else ""
    if verb == "pass" and len(words) == 1:
        return Pass()
    if verb == "hu" and len(words) == 1:
        return Hu()
    if verb == "discard" and len(words) == 2:
        return Discard(Card.parse(words[1]))
    if verb == "claim" and len(words) > 1:
        return Claim(Meld.parse(" ".join(words[1:]), exposed=True))
    raise IllegalMoveError(f"{text!r} is not a Four Color action: discard CARD, pass, hu or claim CARDS")


@dataclass(frozen=True, slots=True)
class Offer:
    """A card on offer: ``source`` is ``discard``, ``turned`` (up from the
    stock by ``player``) or ``laid`` (a turned-up card nobody claimed, laid
    down by ``player``, that only the next player may still claim)."""

    card: int
    source: str
    player: int


@dataclass(frozen=True, slots=True)
class Dealt:
    round: int
    first: int


@dataclass(frozen=True, slots=True)
class Discarded:
    player: int
    card: Card


@dataclass(frozen=True, slots=True)
class TurnedUp:
    player: int
    card: Card


@dataclass(frozen=True, slots=True)
class Answered:
    """A player answered the claim on offer (what, stays hidden until all have)."""

    player: int


@dataclass(frozen=True, slots=True)
class ClaimsRevealed:
    """Every answer to a claim, in asking order, once all are in."""

    answers: tuple[tuple[int, Action], ...]


@dataclass(frozen=True, slots=True)
class Claimed:
    player: int
    meld: Meld
    card: Card


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """A round's end.  After a hu the winner shows the hand ("e mostrare la sua
    mano"): ``melds`` is the scored split (exposed melds first), ``card`` the
    card that completed it (None when the round ended on a hand of Generals),
    ``lucky_card`` the card turned up afterwards (None: the stock was empty),
    which added ``lucky`` points.  With no winner (``winner`` -1) they are
    empty."""

    round: int
    winner: int
    points: int
    lucky: int
    payments: tuple[int, ...]
    totals: tuple[int, ...]
    reason: str
    melds: tuple[Meld, ...] = ()
    card: Card | None = None
    lucky_card: Card | None = None


@dataclass(frozen=True, slots=True)
class GameEnd:
    winners: tuple[int, ...]
    totals: tuple[int, ...]


Record = Union[Dealt, Discarded, TurnedUp, Answered, ClaimsRevealed, Claimed, RoundEnd, GameEnd]


def meld_view(meld: Meld) -> dict[str, Any]:
    """A meld as JSON data: ``cards`` (texts), ``kind`` (``triple``...), ``exposed``, ``points``."""
    return {"cards": [str(c) for c in meld.cards], "kind": meld.kind.name.lower(), "exposed": meld.exposed,
            "points": meld.points}


def _seats(seats: Any) -> str:
    return ", ".join(f"P{s}" for s in seats) or "nobody"


@dataclass(frozen=True)
class FourColorObservation:
    """What one player knows: their hand, every exposed meld and discard, the
    offer, and who has answered a claim (never what, until all have)."""

    player: int
    current_player: int
    phase: str
    round: int
    hand: tuple[int, ...]
    exposed: tuple[tuple[tuple[int, ...], ...], ...]
    discards: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    stock: int
    offer: Offer | None
    answered: int
    totals: tuple[int, ...]
    rules: Rules
    legal_actions: tuple[int, ...] = field(default=())
    #: The public records of the round in play, oldest first (every discard, turn-up,
    #: claim and revealed answer: what a player at the table remembers).
    round_history: tuple[Record, ...] = field(default=(), repr=False)
    #: The last round's end, public since the winner showed the hand (None in round 1).
    last_round: RoundEnd | None = None


OBSERVATION_SIZE: Final = 28 + 4 * 28 + 28 + 28 + 3 + 4 + 4 + 4 + 1 + 4 + 1


class FourColor(Game["FourColorState"]):
    """Four Color Cards under a set of :class:`Rules`.

    >>> game = FourColor(players=4)
    >>> state = game.new_match(seed=1)
    >>> state.current_player, state.phase, state.hand_sizes
    (0, 'discard', (21, 20, 20, 20))
    """

    name = "four-color"
    #: Saves made before the game took its registry name carry this one.
    former_names = ("four-color-cards",)
    rules_type = Rules
    rules: Rules
    title = "Four Color Cards"
    score_label = "points"
    #: Only the hand: melds, discards and the offer are face up, ``answered`` counts
    #: answers (never what), the rest is counts.
    private_view_fields = ("hand",)

    def observation_bounds(self) -> tuple[float, float]:
        """Card counts are 0..4; the totals / 100 stay within what ``rounds`` rounds can pay
        (:func:`max_round_payment`), the one entry below 0."""
        bound = self.rules.rounds * max_round_payment(self.rules) / 100
        return -bound, max(4.0, bound)

    def observation_view(self, observation: Any) -> dict[str, Any]:
        obs = observation
        names = _deck.NAMES
        offer = None
        if obs.offer is not None:
            offer = {"card": names[obs.offer.card], "source": obs.offer.source, "player": obs.offer.player}
        return {
            "seat": obs.player, "current_player": obs.current_player, "round": obs.round, "phase": obs.phase,
            "hand": [names[code] for code, count in enumerate(obs.hand) for _ in range(count)],
            "exposed": [[[names[c] for c in meld] for meld in melds] for melds in obs.exposed],
            "discards": [names[c] for c in obs.discards], "hand_sizes": list(obs.hand_sizes),
            "stock": obs.stock, "offer": offer, "answered": obs.answered, "totals": list(obs.totals),
            "last_round": None if obs.last_round is None else self.record_view(obs.last_round),
        }

    def record_text(self, record: Any) -> str:
        r = record
        if isinstance(r, Dealt):
            return f"round {r.round}: P{r.first} starts"
        if isinstance(r, Discarded):
            return f"P{r.player} discards {r.card}"
        if isinstance(r, TurnedUp):
            return f"P{r.player} turns up {r.card}"
        if isinstance(r, Claimed):
            return f"P{r.player} claims {r.card} for {r.meld}"
        if isinstance(r, Answered):
            return f"P{r.player} answers the claim"
        if isinstance(r, ClaimsRevealed):
            return "answers: " + ", ".join(f"P{p} {a}" for p, a in r.answers)
        if isinstance(r, RoundEnd):
            if r.winner < 0:
                return f"round {r.round} over: nobody wins ({r.reason}); totals {list(r.totals)}"
            shown = " | ".join(str(m) for m in r.melds) or "no cards"
            lucky = f"lucky card {r.lucky_card} +{r.lucky}" if r.lucky_card is not None else "no lucky card"
            with_card = f" with {r.card}" if r.card is not None else ""
            return (f"round {r.round} over: P{r.winner} wins ({r.reason}){with_card}, showing {shown}: "
                    f"{r.points} points, {lucky}; totals {list(r.totals)}")
        if isinstance(r, GameEnd):
            return f"game over: {_seats(r.winners)} win{'s' if len(r.winners) == 1 else ''}"
        return super().record_text(record)

    def record_view(self, record: Any) -> dict[str, Any]:
        """The defaults, and: a claim's ``cards``; a round's end shows the winner's
        ``melds`` (each ``cards``, ``kind``, ``exposed``, ``points``), the winning
        ``card`` and the ``lucky_card`` (None when there is none)."""
        data = super().record_view(record)
        if isinstance(record, Claimed):
            data["cards"] = [str(c) for c in record.meld.cards]
        elif isinstance(record, RoundEnd):
            data["melds"] = [meld_view(m) for m in record.melds]
        elif isinstance(record, ClaimsRevealed):
            data["answers"] = [[player, self.action_view(answer)] for player, answer in record.answers]
        return data

    def action_view(self, action: Any) -> dict[str, Any]:
        """``discard`` (``card``), ``pass``, ``hu`` or ``claim`` (``cards`` of the meld)."""
        data = super().action_view(action)
        if isinstance(action, Claim):
            data["cards"] = [str(c) for c in action.meld.cards]
        return data

    @property
    def num_distinct_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_game_length(self) -> int:
        # a round: at most 112 turn-ups, each with a discard and up to `players` answers
        return self.rules.rounds * 112 * (2 + 2 * self.rules.players)

    @property
    def observation_size(self) -> int:
        return OBSERVATION_SIZE

    def rules_dict(self) -> dict[str, Any]:
        return asdict(self.rules)

    def new_match(self, seed: int, position: Mapping[str, Any] | None = None, **setup: Any) -> FourColorState:
        """A new game dealt from ``seed``, or (``position``) one at the position
        :meth:`from_position` describes."""
        self._no_setup(setup)
        return FourColorState(self, seed, position)

    def from_position(
        self, *, hands: Sequence[str | Iterable[Card | str]] | None = None, current: int = 0,
        exposed: Sequence[Sequence[Meld | str | Iterable[Card | str]]] | None = None,
        discards: str | Iterable[Card | str] | None = None, stock: str | Iterable[Card | str] | None = None,
        totals: Sequence[int] | None = None, round: int = 1, seed: int = 0, **unknown: Any,
    ) -> FourColorState:
        """A game at a position where seat ``current`` is to discard.

        ``hands``: each seat's concealed cards (text or cards, at most 21);
        ``exposed``: each seat's melds on the table (each a meld's cards;
        default none); ``discards``: the cards discarded and never claimed;
        ``stock``: the face-down stock, **its top card last** (turned up first);
        ``totals``: the game's points so far; ``round`` (at most the rules'
        ``rounds``).  Cards in none of these are out of play.  As after a deal,
        a player to discard who holds only Generals ends the round at once.
        Later rounds are dealt from ``seed``.

        >>> game = FourColor(players=2)
        >>> state = game.from_position(hands=["RC RC WA", "RC RH"], stock="WS YS", exposed=[[], ["RA RA"]])
        >>> [state.action_to_string(a) for a in state.legal_actions()]
        ['discard RC', 'discard WA']
        >>> record = state.apply("discard RC")
        >>> state.phase, state.current_player, [state.action_to_string(a) for a in state.legal_actions()]
        ('claim', 1, ['pass', 'claim RC RC'])
        """
        check.no_unknown("Four Color", unknown, _POSITION_KEYS)
        return self.new_match(seed, position={"hands": hands, "current": current, "exposed": exposed,
                                              "discards": discards, "stock": stock, "totals": totals,
                                              "round": round})


def _meld(codes: tuple[int, ...]) -> Meld:
    """The exposed meld of these card codes (a claim's)."""
    return Meld.parse([KINDS[k] for k in codes], exposed=True)


class FourColorState(State[Action]):
    """A game of Four Color Cards in progress."""

    __slots__ = ("_rng", "_round", "_first", "_hands", "_exposed",
                 "_discards", "_stock", "_phase", "_current", "_offer", "_decision", "_totals",
                 "_winners", "_last_round")
    _copied = {"_rng": "rng", "_hands": "lists", "_exposed": "lists", "_discards": "list", "_stock": "list",
               "_totals": "list", "_decision": "copy"}

    game: FourColor
    _rng: Rng
    _round: int
    _first: int
    _hands: list[list[int]]
    _exposed: list[list[tuple[int, ...]]]
    _discards: list[int]
    _stock: list[int]
    _phase: int
    _current: int
    _offer: Offer | None
    _decision: SimultaneousDecision[int] | None
    _totals: list[int]
    _winners: tuple[int, ...]
    _last_round: RoundEnd | None

    if TYPE_CHECKING:
        def observation(self, player: int) -> FourColorObservation: ...

    def __init__(self, game: FourColor, seed: int, position: Mapping[str, Any] | None = None) -> None:
        super().__init__(game, seed)
        self._rng = Rng(seed)
        self._round = 0
        self._totals = [0] * self._n
        self._winners = ()
        self._last_round = None
        if position is None:
            self._start_round()
            return
        p = _read_position(game.rules, position)
        self.setup = {"position": p["json"]}
        self._round = p["round"]
        self._first = (self._round - 1) % self._n
        self._totals = p["totals"]
        self._hands = p["hands"]
        self._exposed = p["exposed"]
        self._discards = p["discards"]
        self._stock = p["stock"]
        self._offer = None
        self._decision = None
        self._phase = DISCARD
        self._current = p["current"]
        self._check_only_generals()
        check.playable(self)

    # -- rounds --------------------------------------------------------------------------
    def _start_round(self) -> None:
        n = self._n
        self._round += 1
        self._first = (self._round - 1) % n
        deck = [c for c in range(_deck.NUM_KINDS) for _ in range(_deck.COPIES)]
        self._rng.shuffle(deck)
        self._hands = [[0] * _deck.NUM_KINDS for _ in range(n)]
        for i in range(20 * n + 1):
            seat = (self._first + i) % n
            self._hands[seat][deck[i]] += 1
        self._stock = deck[20 * n + 1:]
        self._exposed = [[] for _ in range(n)]
        self._discards = []
        self._offer = None
        self._decision = None
        self._phase = DISCARD
        self._current = self._first
        self._record(Dealt(self._round, self._first))
        self._check_only_generals()

    def _check_only_generals(self) -> None:
        """A player who must discard but holds only Generals (or nothing, after a
        claim took their last cards) ends the round: every card they own is in a
        meld, so it is scored as their hu **[decision]**; with the option
        ``only_generals="no_winner"``, nobody scores."""
        hand = self._hands[self._current]
        if self._phase == DISCARD and all(n == 0 for k, n in enumerate(hand) if k % 7 != _deck.GENERAL):
            reason = "only Generals left" if any(hand) else "no card left to discard"
            if self.game.rules.only_generals == "hu":
                self._hu(self._current, -1, False, reason)
            else:
                self._end_round(-1, 0, 0, reason)

    def _end_round(self, winner: int, points: int, lucky: int, reason: str, melds: tuple[Meld, ...] = (),
                   card: int = -1, lucky_card: int = -1) -> None:
        n, threshold = self._n, self.game.rules.threshold
        payments = [0] * n
        if winner >= 0:
            total = points + lucky
            for p in range(n):
                if p == winner:
                    continue
                amount = total - threshold + 1 if total >= threshold else -(threshold + 1)
                payments[p] -= amount
                payments[winner] += amount
        for p in range(n):
            self._totals[p] += payments[p]
        self._last_round = RoundEnd(self._round, winner, points, lucky, tuple(payments), tuple(self._totals), reason,
                                    melds, KINDS[card] if card >= 0 else None,
                                    KINDS[lucky_card] if lucky_card >= 0 else None)
        self._record(self._last_round)
        if self._round >= self.game.rules.rounds:
            best = max(self._totals)
            self._winners = tuple(p for p in range(n) if self._totals[p] == best)
            self._phase = OVER
            self._current = -1
            self._offer = None
            self._decision = None
            self._record(GameEnd(self._winners, tuple(self._totals)))
            return
        self._start_round()

    def _hu(self, player: int, card: int, from_discard: bool, reason: str) -> None:
        """``player`` wins with ``card`` (-1: a hand of Generals) and shows the hand."""
        counts = list(self._hands[player])
        if card >= 0:
            counts[card] += 1
        rules = self.game.rules
        exposed = tuple(_meld(m) for m in self._exposed[player])
        found = _variants.split(counts, card if from_discard else -1, rules.same_colour_soldiers)
        assert found is not None, "a hu on a hand that does not split"
        concealed, melds = found
        points = concealed + sum(m.points for m in exposed)
        lucky, lucky_card = 0, -1
        if self._stock:
            lucky_card = self._stock.pop()
            owned = list(counts)
            for meld in self._exposed[player]:
                for k in meld:
                    owned[k] += 1
            if rules.lucky_rank_only:
                lucky = sum(owned[k] for k in range(_deck.NUM_KINDS) if k % 7 == lucky_card % 7)
            else:
                lucky = owned[lucky_card]
        self._end_round(player, points, lucky, reason, exposed + melds, card, lucky_card)

    # -- offers and claims ---------------------------------------------------------------------
    def _claim_options(self, player: int, offer: Offer) -> list[int]:
        """The answers ``player`` may give to ``offer`` (always sorted)."""
        card = offer.card
        hand = self._hands[player]
        counts = list(hand)
        counts[card] += 1
        options = []
        general = card % 7 == _deck.GENERAL
        revealer_general = general and offer.source == "turned" and player == offer.player
        if not revealer_general:
            options.append(PASS)
        if self._can_hu(player, counts):
            options.append(HU)
        chi_allowed = (offer.source == "laid" or (offer.source == "discard" and player == (offer.player + 1) % self._n)
                       or (offer.source == "turned" and player == offer.player))
        soldier_pongs = self.game.rules.same_colour_soldiers
        for meld in _reference.MELDS_WITH[card]:
            need = list(meld)
            need.remove(card)
            if any(hand[k] < need.count(k) for k in set(need)):
                continue
            kind = _deck.meld_kind(meld)
            pong_kong = kind in (_deck.TRIPLE, _deck.QUAD, _deck.GENERAL_QUAD)
            if pong_kong and not soldier_pongs and card % 7 == _deck.SOLDIER:
                continue
            if general and offer.source == "turned":
                # A quad of Generals is a kong: anyone holding the other three may
                # claim it, out of turn order (the revealer too); the revealer
                # otherwise melds the General alone or in a command set.
                if kind == _deck.GENERAL_QUAD or (player == offer.player
                                                  and kind in (_deck.LONE_GENERAL, _deck.COMMAND)):
                    options.append(CLAIM_BASE + MELD_INDEX[meld])
                continue
            if pong_kong or chi_allowed:
                options.append(CLAIM_BASE + MELD_INDEX[meld])
        return sorted(options)

    def _can_hu(self, player: int, counts: list[int]) -> bool:
        return _variants.points(counts, -1, self.game.rules.same_colour_soldiers) >= 0

    def _offer_card(self, offer: Offer) -> None:
        """Open a claim on ``offer``, asking the eligible players in priority order."""
        n = self._n
        self._offer = offer
        if offer.source == "laid":
            order = [(offer.player + 1) % n]
        elif offer.source == "discard":
            order = [(offer.player + k) % n for k in range(1, n)]
        else:
            order = [(offer.player + k) % n for k in range(n)]
        # Everyone the rules let answer is asked, even with nothing but a pass,
        # so that being asked reveals nothing about a hand.
        eligible = [p for p in order if self._claim_options(p, offer)]
        if not eligible:
            self._no_claim()
            return
        self._decision = SimultaneousDecision(eligible)
        self._phase = CLAIM
        self._current = eligible[0]

    def _turn_up(self, player: int) -> None:
        if not self._stock:
            self._end_round(-1, 0, 0, "the stock ran out")
            return
        card = self._stock.pop()
        self._record(TurnedUp(player, KINDS[card]))
        self._offer_card(Offer(card, "turned", player))

    def _no_claim(self) -> None:
        offer = self._offer
        assert offer is not None
        self._decision = None
        self._offer = None
        if offer.source == "discard":
            self._discards.append(offer.card)
            self._turn_up((offer.player + 1) % self._n)
        elif offer.source == "turned":
            self._record(Discarded(offer.player, KINDS[offer.card]))
            self._offer_card(Offer(offer.card, "laid", offer.player))
        else:  # laid: the next player turns up the next card
            self._discards.append(offer.card)
            self._turn_up((offer.player + 1) % self._n)

    def _resolve(self) -> None:
        decision, offer = self._decision, self._offer
        assert decision is not None and offer is not None
        answers = decision.answers  # in priority order
        self._record(ClaimsRevealed(tuple((p, self._int_to_action(a)) for p, a in answers.items())))
        hu = [p for p, a in answers.items() if a == HU]
        if hu:
            player = hu[0]
            self._decision = None
            self._offer = None
            self._hu(player, offer.card, offer.source != "turned" or player != offer.player, "hu")
            return
        claims = [(p, a) for p, a in answers.items() if a >= CLAIM_BASE]
        ranked = sorted(claims, key=lambda pa: 0 if self._is_pong_kong(pa[1]) else 1)
        if not ranked:
            self._no_claim()
            return
        player, action = ranked[0]
        meld = MELDS[action - CLAIM_BASE]
        rest = list(meld)
        rest.remove(offer.card)
        for k in rest:
            self._hands[player][k] -= 1
        self._exposed[player].append(meld)
        self._record(Claimed(player, _meld(meld), KINDS[offer.card]))
        self._decision = None
        self._offer = None
        self._phase = DISCARD
        self._current = player
        self._check_only_generals()

    @staticmethod
    def _is_pong_kong(action: int) -> bool:
        """A triple or quad, a quad of Generals too ("gan (quadrupla)/pong (tripla)")."""
        meld = MELDS[action - CLAIM_BASE]
        return len(set(meld)) == 1 and len(meld) >= 3

    # -- the contract -------------------------------------------------------------------------------
    def _legal_actions(self) -> list[int]:
        if self._phase == DISCARD:
            hand = self._hands[self._current]
            return [k for k in range(_deck.NUM_KINDS) if hand[k] and k % 7 != _deck.GENERAL]
        assert self._offer is not None
        return self._claim_options(self._current, self._offer)

    def _why_illegal(self, action: int) -> str | None:
        if action in self._legal_actions():
            return None
        if self._phase == DISCARD:
            if action >= PASS:
                return "they must discard a card"
            if action % 7 == _deck.GENERAL:
                return "Generals are never discarded"
            return f"they hold no {_deck.NAMES[action]}"
        if action < PASS:
            return "a card is on offer: pass, hu, or claim it"
        if action == HU:
            return "the card on offer does not complete their hand"
        if action == PASS:
            return "a turned-up General goes to its revealer, who must meld it"
        return "they cannot claim the card on offer with that meld"

    def _apply(self, action: int) -> Record:
        player = self._current
        if self._phase == DISCARD:
            self._hands[player][action] -= 1
            record: Record = self._record(Discarded(player, KINDS[action]))
            self._offer_card(Offer(action, "discard", player))
            return record
        decision = self._decision
        assert decision is not None
        decision.answer(player, action)
        record = self._record(Answered(player))
        if decision.complete:
            self._resolve()
        else:
            self._current = decision.current
        return record

    # -- the two action layers ------------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        """``"discard RA"``, ``"pass"``, ``"hu"`` or ``"claim RC RC RC"``."""
        return parse_action(text)

    def _action_code(self, action: Any) -> int:
        if isinstance(action, Discard):
            if not isinstance(action.card, Card):
                raise InvalidTypeError(f"Discard takes a Card (Card.parse('RC')), not {type(action.card).__name__}")
            return action.card.code
        if isinstance(action, Pass):
            return PASS
        if isinstance(action, Hu):
            return HU
        if isinstance(action, Claim):
            if not isinstance(action.meld, Meld):
                raise InvalidTypeError(f"Claim takes a Meld (Meld.parse('RC RH RN')), not {type(action.meld).__name__}")
            index = MELD_INDEX.get(tuple(card.code for card in action.meld.cards))
            if index is None:
                raise IllegalMoveError(f"{action.meld} is no meld a claim can make")
            return CLAIM_BASE + index
        raise InvalidTypeError(f"a Four Color action is an int, a Discard, Pass, Hu or Claim, or its text, "
                               f"not {type(action).__name__}")

    def _int_to_action(self, action: int) -> Action:
        if action < PASS:
            return Discard(KINDS[action])
        if action == PASS:
            return Pass()
        if action == HU:
            return Hu()
        return Claim(_meld(MELDS[action - CLAIM_BASE]))

    @property
    def current_player(self) -> int:
        return self._current

    @property
    def is_terminal(self) -> bool:
        return self._phase == OVER

    @property
    def phase(self) -> str:
        return PHASES[self._phase]

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(sum(h) + sum(len(m) for m in e) for h, e in zip(self._hands, self._exposed))

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._totals)

    @property
    def winners(self) -> tuple[int, ...]:
        return self._winners

    def describe(self) -> str:
        if self._phase == OVER:
            return f"game over, totals {self._totals}, winners {list(self._winners)}"
        offer = "" if self._offer is None else f", {_deck.NAMES[self._offer.card]} on offer ({self._offer.source})"
        return (f"round {self._round}, {PHASES[self._phase]}{offer}, stock {len(self._stock)}, "
                f"player {self._current} to act")

    def summary(self) -> dict[str, Any]:
        return {"round": self._round, "phase": PHASES[self._phase], "current_player": self._current,
                "totals": list(self._totals), "stock": len(self._stock), "winners": list(self._winners)}

    def hand(self, player: int) -> tuple[int, ...]:
        """A seat's concealed counts (hidden information: for referees and tests)."""
        return tuple(self._hands[self._seat(player)])

    def card_count(self) -> int:
        """Every card: hands, exposed melds, discards, the stock and the offer
        (112 while the game runs; the final hu takes the winning and lucky cards)."""
        total = sum(sum(h) for h in self._hands) + sum(len(m) for e in self._exposed for m in e)
        total += len(self._discards) + len(self._stock)
        return total + (1 if self._offer is not None else 0)

    def _shown(self) -> tuple[list[list[int]], list[list[int]]]:
        """Per seat and card kind: how many copies every other seat knows it holds
        concealed (the cards of a claim that lost to a higher one were revealed
        with it: "claim RC RC RC" shows two RC), and how many it has given up from
        its hand in the open since the deal (discarded, or laid in a claimed meld);
        from the history of this round."""
        n = self._n
        shown = [[0] * _deck.NUM_KINDS for _ in range(n)]
        removed = [[0] * _deck.NUM_KINDS for _ in range(n)]
        turned: tuple[int, int] | None = None  # a turned-up card still on offer: (revealer, card)
        offer = -1
        for record in self._round_records():
            if isinstance(record, TurnedUp):
                turned, offer = (record.player, record.card.code), record.card.code
            elif isinstance(record, Discarded):
                if turned == (record.player, record.card.code):
                    turned = None  # laid down by its revealer: it was never in the hand
                else:
                    code = record.card.code
                    shown[record.player][code] = max(0, shown[record.player][code] - 1)
                    removed[record.player][code] += 1
                offer = record.card.code
            elif isinstance(record, ClaimsRevealed):
                for seat, answer in record.answers:
                    if isinstance(answer, Claim):
                        need = [card.code for card in answer.meld.cards]
                        need.remove(offer)
                        for code in set(need):
                            shown[seat][code] = max(shown[seat][code], need.count(code))
            elif isinstance(record, Claimed):
                turned = None
                need = [card.code for card in record.meld.cards]
                need.remove(record.card.code)
                for code in need:
                    shown[record.player][code] = max(0, shown[record.player][code] - 1)
                    removed[record.player][code] += 1
        return shown, removed

    def _round_records(self) -> list[Record]:
        """The records of the round in play (since its deal, or the position), oldest first."""
        items: list[Record] = []
        node = self._log
        while node is not None and not isinstance(node[0], (Dealt, RoundEnd)):
            items.append(node[0])
            node = node[1]
        items.reverse()
        return items

    def _information_set(self, player: int) -> tuple[DealSampler, Any]:
        """Hidden from a seat: the other seats' concealed hands, the stock (and the
        cards out of play of a position). What it has seen narrows them: the cards
        a losing claim revealed (see :meth:`_shown`). Answers to the claim on offer
        that are not revealed yet are the other players' choices, not cards: a
        sample replaces them by a pass (a turned-up General's revealer: its lone
        General), so nothing of them leaks. Deals are equally likely, not
        positions: what a seat gave up in the open since the deal weighs the
        hands it may hold (see :mod:`fourcards.sampling`)."""
        n = self._n
        others = [p for p in range(n) if p != player]
        left = [_deck.COPIES] * _deck.NUM_KINDS
        for k, count in enumerate(self._hands[player]):
            left[k] -= count
        for melds in self._exposed:
            for meld in melds:
                for k in meld:
                    left[k] -= 1
        for k in self._discards:
            left[k] -= 1
        if self._offer is not None:
            left[self._offer.card] -= 1
        sizes = [sum(self._hands[p]) for p in others] + [len(self._stock)]
        sizes.append(sum(left) - sum(sizes))  # out of play (a position's)
        shown, removed = self._shown()
        free: list[int] = []
        groups = []
        for k in range(_deck.NUM_KINDS):
            low = tuple(shown[p][k] for p in others) + (0, 0)
            gone = tuple(removed[p][k] for p in others) + (0, 0)
            if any(low) or any(gone):
                groups.append(Group((k,) * left[k], low=low, removed=gone))
            else:
                free += [k] * left[k]
        discarder = others.index(self._current) if self._phase == DISCARD and self._current != player else -1

        def holds_a_discard(deal: list[list[int]]) -> bool:
            # a seat to discard that held only Generals would have ended the round (see
            # _check_only_generals): it holds another card, and every sample says so
            return any(k % 7 != _deck.GENERAL for k in deal[discarder])

        deal = DealSampler(sizes, free, groups, accept=holds_a_discard if discarder >= 0 else None)

        def write(state: FourColorState, cards: list[list[int]], rng: Rng) -> None:
            for index, seat in enumerate(others):
                hand = [0] * _deck.NUM_KINDS
                for k in cards[index]:
                    hand[k] += 1
                state._hands[seat] = hand
            state._stock = cards[len(others)]
            state._rng = Rng(rng.next_u64())
            decision = state._decision
            if decision is not None and decision.answered and state._offer is not None:
                fresh: SimultaneousDecision[int] = SimultaneousDecision(decision.players)
                for seat in decision.players[:decision.answered]:
                    if seat == player:
                        answer = decision.answer_of(seat, player)
                        assert answer is not None
                    else:
                        options = state._claim_options(seat, state._offer)
                        answer = PASS if PASS in options else next(a for a in options if a >= CLAIM_BASE)
                    fresh.answer(seat, answer)
                state._decision = fresh

        return deal, write

    def _observation(self, player: int, history: bool = True) -> FourColorObservation:
        return FourColorObservation(
            player=player, current_player=self._current, phase=PHASES[self._phase], round=self._round,
            hand=tuple(self._hands[player]), exposed=tuple(tuple(e) for e in self._exposed),
            discards=tuple(self._discards), hand_sizes=self.hand_sizes, stock=len(self._stock),
            offer=self._offer, answered=0 if self._decision is None else self._decision.answered,
            totals=tuple(self._totals), rules=self.game.rules,
            legal_actions=tuple(self.legal_actions()) if player == self._current else (),
            round_history=tuple(self._round_records()) if history else (),
            last_round=self._last_round,
        )

    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        """``OBSERVATION_SIZE`` float32 values, seats relative to the observer (4 slots):
        own hand counts (28); exposed cards by seat (4 x 28); discards (28);
        the card on offer (28, one-hot); its source (discard, turned, laid);
        who offered it (4); the player to act (4); hand sizes / 21 (4);
        stock / 112; totals / 100 (4); round / rounds."""
        obs = self._observation(player, history=False)
        n = self._n
        out[:28] = obs.hand
        for p in range(n):
            k = (p - player) % n
            for meld in obs.exposed[p]:
                for code in meld:
                    out[28 + 28 * k + code] += 1
            out[203 + k] = p == self._current
            out[207 + k] = obs.hand_sizes[p] / 21
            out[212 + k] = obs.totals[p] / 100
        for code in obs.discards:
            out[140 + code] += 1
        if obs.offer is not None:
            out[168 + obs.offer.card] = 1
            out[196 + ("discard", "turned", "laid").index(obs.offer.source)] = 1
            out[199 + (obs.offer.player - player) % n] = 1
        out[211] = obs.stock / 112
        out[216] = obs.round / self.game.rules.rounds


_POSITION_KEYS: Final = ("hands", "current", "exposed", "discards", "stock", "totals", "round")


def _codes(value: Any, name: str) -> list[int]:
    return [card.code for card in check.parse(_cards, value, name)]


def _read_position(rules: Rules, data: Mapping[str, Any]) -> dict[str, Any]:
    """A Four Color position checked (see :meth:`FourColor.from_position`), with
    its canonical JSON form (``json``), which reads back to the same position."""
    if not isinstance(data, Mapping):
        raise InvalidStateError(f"a position is a mapping of {', '.join(_POSITION_KEYS)}, not {type(data).__name__}")
    check.no_unknown("Four Color", {k: v for k, v in data.items() if k not in _POSITION_KEYS}, _POSITION_KEYS)
    n = rules.players
    given = check.per_seat(check.required(data.get("hands"), "hands", '["RC RC WA", "RC RH"]'), "hands", n)
    hand_codes = [_codes(hand, f"hands[{seat}]") for seat, hand in enumerate(given)]
    for seat, codes in enumerate(hand_codes):
        if len(codes) > 21:
            raise InvalidStateError(f"hands[{seat}] holds {len(codes)} cards: a hand holds at most 21")
    exposed_given = data.get("exposed")
    exposed: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
    if exposed_given is not None:
        for seat, melds in enumerate(check.per_seat(exposed_given, "exposed", n)):
            if not isinstance(melds, (list, tuple)):
                raise InvalidStateError(f"exposed[{seat}] must be a list of melds, not {type(melds).__name__} "
                                        f"{check.shown(melds)}")
            for i, meld in enumerate(melds):
                name = f"exposed[{seat}][{i}]"
                cards = meld.cards if isinstance(meld, Meld) else check.parse(
                    lambda m: Meld.parse(m, exposed=True).cards, meld, name)
                meld_codes = tuple(sorted(card.code for card in cards))
                if meld_codes not in MELD_INDEX:
                    raise InvalidStateError(f"{name} {check.shown(meld)} is no meld a claim makes")
                exposed[seat].append(meld_codes)
    discards = [] if data.get("discards") is None else _codes(data["discards"], "discards")
    stock = [] if data.get("stock") is None else _codes(data["stock"], "stock")
    places = [(f"hands[{seat}]", codes) for seat, codes in enumerate(hand_codes)]
    places += [(f"exposed[{seat}]", [c for meld in melds for c in meld]) for seat, melds in enumerate(exposed)]
    check.deck_holds(places + [("discards", discards), ("stock", stock)], lambda code: _deck.COPIES, _deck.NAMES)
    current = check.seat(data.get("current", 0), "current", n)
    round_ = check.number(data.get("round", 1), "round", 1, rules.rounds)
    totals_given = data.get("totals")
    most = rules.rounds * max_round_payment(rules)  # what the rules' rounds can pay at most
    totals = [0] * n if totals_given is None else [
        check.number(t, f"totals[{seat}]", -most, most)
        for seat, t in enumerate(check.per_seat(totals_given, "totals", n))]
    hands = [[0] * _deck.NUM_KINDS for _ in range(n)]
    for seat, codes in enumerate(hand_codes):
        for code in codes:
            hands[seat][code] += 1

    def text(codes: Iterable[int]) -> str:
        return " ".join(_deck.NAMES[c] for c in codes)

    return {
        "hands": hands, "current": current, "exposed": exposed, "discards": discards, "stock": stock,
        "totals": totals, "round": round_,
        "json": {"hands": [text(sorted(codes)) for codes in hand_codes], "current": current,
                 "exposed": [[text(meld) for meld in melds] for melds in exposed], "discards": text(discards),
                 "stock": text(stock), "totals": list(totals), "round": round_},
    }
