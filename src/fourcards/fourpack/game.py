"""The Four Pack engine (rules: ``shared/rules/four-pack-and-duelo.md``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final, Union

import numpy as np
import numpy.typing as npt

from ..decks import CARD_IDS, FAMILIES, Deck, DeckCard, deck_option, deck_rule
from .. import _position as check
from ..engine import Game, GameRules, State, option, same_json, unroll
from ..errors import IllegalMoveError, InvalidStateError, InvalidTypeError
from ..rng import Rng
from ..sampling import DealSampler, Group, MatchingSampler, Placements

__all__ = ["Rules", "FourPack", "FourPackState", "FourPackObservation", "Ask",
           "Dealt", "Asked", "LaidDown", "GameEnd", "OBSERVATION_SIZE", "MAX_PLAYERS"]

#: "3 o más" players: as many as the deck can deal, every player at least one card
#: (a 33rd player would start with none, out of the game before it begins).
MAX_PLAYERS: Final = 32
#: From this many other hands holding hidden cards (8 seats and more), a seat's
#: information set draws its deals as a matching (:class:`~fourcards.sampling.MatchingSampler`);
#: below, they are counted (:class:`~fourcards.sampling.DealSampler`). A first sample at 8
#: seats cost 4 ms at the median and up to 35 ms counted, 0.9 ms and 6 ms as a matching, and
#: the samples after it about the same either way; at 7 seats and fewer counting is as quick
#: and its later samples quicker.
MATCHED_FROM: Final = 7
FAMILY_MASK: Final[tuple[int, ...]] = tuple(0b1111 << (4 * f) for f in range(8))
#: The observation tensor's size up to 8 players (8 seat slots); beyond, one slot a seat.
OBSERVATION_SIZE: Final = 320


def observation_size(players: int) -> int:
    """The observation tensor's size: 64 + 32 a seat slot, ``max(8, players)`` slots."""
    slots = max(8, players)
    return 40 + 3 * slots + 32 * slots


@dataclass(frozen=True)
class Rules(GameRules):
    """Four Pack rules.

    ``must_hold_family``: one may only ask for a card of a family one holds.
    ``max_asks`` **[decision]**: the rules set no limit, and two players can
    keep asking each other for cards neither holds; after this many asks the
    game ends and the families laid down decide.
    """

    players: int = option(4, low=3, high=MAX_PLAYERS)
    must_hold_family: bool = False
    max_asks: int = option(10_000, low=1, high=1_000_000)


@dataclass(frozen=True, slots=True)
class Ask:
    """Ask seat ``target`` for the card ``card`` (its id, ``A1``..``H4``)."""

    target: int
    card: str

    def __str__(self) -> str:
        return f"ask P{self.target} for {self.card}"

    @staticmethod
    def parse(text: str) -> Ask:
        """The ask ``str`` prints: ``"ask P2 for C3"`` (case-insensitive).

        >>> Ask.parse("Ask p2 for c3")
        Ask(target=2, card='C3')
        """
        if not isinstance(text, str):
            raise InvalidTypeError(f"action text must be a str, not {type(text).__name__}")
        match = _ASK.fullmatch(text.strip())
        if match is None:
            raise IllegalMoveError(f"{text!r} is not a Four Pack action: ask P<seat> for <card>, e.g. ask P1 for C3")
        card = match.group(2).upper()
        if card not in CARD_IDS:
            raise IllegalMoveError(f"{text!r} asks for {match.group(2)!r}, which is not a card (A1..H4)")
        return Ask(int(match.group(1)), card)


_ASK: Final = re.compile(r"ask\s+p(\d{1,3})\s+for\s+(\S+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Dealt:
    dealer: int
    first: int


@dataclass(frozen=True, slots=True)
class Asked:
    asker: int
    target: int
    card: DeckCard
    success: bool


@dataclass(frozen=True, slots=True)
class LaidDown:
    player: int
    family: str


@dataclass(frozen=True, slots=True)
class GameEnd:
    winners: tuple[int, ...]
    families: tuple[int, ...]
    limit_reached: bool


Record = Union[Dealt, Asked, LaidDown, GameEnd]


@dataclass(frozen=True)
class FourPackObservation:
    """What one player knows: their hand, and every ask and its answer (all public)."""

    player: int
    current_player: int
    hand: tuple[DeckCard, ...]
    hand_mask: int
    hand_sizes: tuple[int, ...]
    families_down: tuple[tuple[str, ...], ...]
    asks: tuple[Asked, ...]
    rules: Rules
    legal_actions: tuple[int, ...] = field(default=())



def _placements(allowed: Sequence[Sequence[int]],
                bounds: Sequence[tuple[int, int, int]]) -> tuple[tuple[int, ...], ...]:
    """Every placement of a family's cards (card ``j`` in one of ``allowed[j]``) that puts
    ``need`` to ``cap`` of them at each bounded place (``bounds``: place, cap, need), in
    the order ``itertools.product`` gives them. The cards are placed one by one, and a
    branch is cut as soon as it breaks a cap or the cards left, where they may go, can no
    longer meet every need.

    >>> _placements([[0, 1], [0, 1]], [(0, 1, 1)])
    ((0, 1), (1, 0))
    >>> _placements([[1], [0, 1]], [(0, 2, 2)])
    ()
    """
    cap = {i: cap_ for i, cap_, _ in bounds}
    need = {i: need_ for i, _, need_ in bounds if need_ > 0}
    held = dict.fromkeys(cap, 0)
    cards = len(allowed)
    # per place with a need: how many of the cards from j on may go there
    reach = {i: [sum(i in allowed[k] for k in range(j, cards)) for j in range(cards + 1)] for i in need}
    found: list[tuple[int, ...]] = []
    way: list[int] = []

    def place(j: int) -> None:
        short = 0
        for i, n in need.items():
            missing = n - held[i]
            if missing > 0:
                if missing > reach[i][j]:
                    return
                short += missing
        if short > cards - j:
            return
        if j == cards:
            found.append(tuple(way))
            return
        for i in allowed[j]:
            if i in cap:
                if held[i] >= cap[i]:
                    continue
                held[i] += 1
            way.append(i)
            place(j + 1)
            way.pop()
            if i in cap:
                held[i] -= 1

    place(0)
    return tuple(found)

class FourPack(Game["FourPackState"]):
    """Four Pack under a set of :class:`Rules`, with a deck (default: the sample deck)."""

    name = "four-pack"
    score_label = "families"
    #: Only the hand: asks and their answers and the families laid down are public.
    private_view_fields = ("hand",)
    deck_upload = True

    def observation_bounds(self) -> tuple[float, float]:
        return -1.0, 1.0

    def observation_view(self, observation: Any) -> dict[str, Any]:
        obs = observation
        return {
            "seat": obs.player, "current_player": obs.current_player, "hand": [str(c) for c in obs.hand],
            "hand_sizes": list(obs.hand_sizes), "families_down": [list(f) for f in obs.families_down],
            "asks": [{"asker": a.asker, "target": a.target, "card": str(a.card), "success": a.success}
                     for a in obs.asks],
        }

    def record_text(self, record: Any) -> str:
        r = record
        if isinstance(r, Dealt):
            return f"P{r.dealer} deals; P{r.first} starts"
        if isinstance(r, Asked):
            return f"P{r.asker} asks P{r.target} for {r.card}: {'yes' if r.success else 'no'}"
        if isinstance(r, LaidDown):
            return f"P{r.player} lays down family {r.family}"
        if isinstance(r, GameEnd):
            seats = ", ".join(f"P{s}" for s in r.winners) or "nobody"
            return f"game over: {seats} win{'s' if len(r.winners) == 1 else ''}"
        return super().record_text(record)

    rules_type = Rules
    rules: Rules

    def __init__(self, rules: Rules | None = None, deck: Deck | str | Mapping[str, Any] | None = None,
                 **options: Any) -> None:
        super().__init__(rules, **options)
        self.deck = deck_option(deck)

    @property
    def num_distinct_actions(self) -> int:
        return self.rules.players * 32

    @property
    def max_game_length(self) -> int:
        return self.rules.max_asks

    @property
    def observation_size(self) -> int:
        return observation_size(self.rules.players)

    def rules_dict(self) -> dict[str, Any]:
        return {**asdict(self.rules), "deck": deck_rule(self.deck)}

    def _snapshot_constants(self) -> Sequence[Any]:
        return (*self.deck.cards, *self.deck.categories)

    def _same_rules(self, rules: Any) -> bool:
        # also a save made before rules_dict recorded a deck other than the shipped one by its data
        return super()._same_rules(rules) or same_json(rules, {**asdict(self.rules), "deck": self.deck.digest})

    def new_match(self, seed: int, position: Mapping[str, Any] | None = None, **setup: Any) -> FourPackState:
        """A new game dealt from ``seed``, or (``position``) one at the position
        :meth:`from_position` describes."""
        self._no_setup(setup)
        return FourPackState(self, seed, position)

    def from_position(
        self, *, hands: Sequence[str | Iterable[str | DeckCard]] | None = None,
        families: Sequence[str | Iterable[str]] | None = None, current: int = 0, seed: int = 0, **unknown: Any,
    ) -> FourPackState:
        """A game at a position, seat ``current`` to ask.

        ``hands``: each seat's cards (ids as text, ``"A1 B3"``, or a list of
        ids or cards); ``families``: the families each seat has laid down
        (letters, ``"E F"``; default none).  Every card is in one place; a
        card in no hand and no family laid down is out of play (its family
        can never be completed).  A hand never holds a whole family (it is
        laid down at once); ``current`` holds cards, and so does another seat.
        ``seed`` is recorded, and draws nothing.

        >>> game = FourPack(players=3)
        >>> state = game.from_position(hands=["A1 A2 A3", "A4 B1", "B2 B3 B4"], families=["C D", "E F G", "H"])
        >>> record = state.ask(1, "A4")
        >>> record.success, state.scores, state.current_player
        (True, (3, 3, 1), 1)
        """
        check.no_unknown("Four Pack", unknown, _POSITION_KEYS)
        return self.new_match(seed, position={"hands": hands, "families": families, "current": current})

    def __repr__(self) -> str:
        return f"FourPack({self.rules!r})"


class FourPackState(State[Ask]):
    """A Four Pack game in progress (the contract of :mod:`fourcards.engine`)."""

    __slots__ = ("_hands", "_down", "_current", "_over", "_winners", "_asks", "_limit", "_seen", "_lacking")
    _copied = {"_hands": "list", "_down": "list", "_seen": "list", "_lacking": "list"}
    _links = (*State._links, "_asks")

    game: FourPack
    _hands: list[int]
    _down: list[int]
    _current: int
    _over: bool
    _winners: tuple[int, ...]
    _asks: Any  # the Asked records, newest first, as links (see unroll)
    _limit: bool
    _seen: list[int]
    _lacking: list[int]

    if TYPE_CHECKING:
        def observation(self, player: int) -> FourPackObservation: ...

    def __init__(self, game: FourPack, seed: int, position: Mapping[str, Any] | None = None) -> None:
        super().__init__(game, seed)
        n = self._n
        if position is not None:
            pos = _read_position(game, position)
            self.setup = {"position": pos["json"]}
            self._hands, self._down, self._current = pos["hands"], pos["down"], pos["current"]
            self._over = self._limit = False
            self._winners = ()
            self._asks = None
            self._seen, self._lacking = [-1] * 32, [0] * 32
            check.playable(self)
            return
        rng = Rng(seed)
        dealer = rng.below(n)
        cards = list(range(32))
        rng.shuffle(cards)
        first = (dealer + 1) % n  # dealt left to right, starting left of the dealer
        self._hands = [0] * n
        for i, code in enumerate(cards):
            self._hands[(first + i) % n] |= 1 << code
        self._down = [0] * n
        self._current = first
        self._over = False
        self._limit = False
        self._winners = ()
        self._asks = None
        # ``card_knowledge`` of the asks so far, kept as they happen: per card, the
        # seat it was last seen arriving at (-1: none) and the seats asked for it
        # that lacked it since it last moved (bits).
        self._seen = [-1] * 32
        self._lacking = [0] * 32
        self._record(Dealt(dealer, first))
        for p in range(n):  # a dealt hand may already hold a whole family
            self._lay_down(p)
        self._advance_if_out()

    # -- rules ---------------------------------------------------------------------------
    def _lay_down(self, player: int) -> None:
        for f in range(8):
            if self._hands[player] & FAMILY_MASK[f] == FAMILY_MASK[f]:
                self._hands[player] &= ~FAMILY_MASK[f]
                self._down[player] |= 1 << f
                self._record(LaidDown(player, FAMILIES[f]))
        if sum(bin(d).count("1") for d in self._down) == 8:
            self._finish(limit=False)

    def _finish(self, limit: bool) -> None:
        counts = tuple(bin(d).count("1") for d in self._down)
        best = max(counts)
        self._winners = tuple(p for p in range(self._n) if counts[p] == best)
        self._over = True
        self._limit = limit
        self._current = -1
        self._record(GameEnd(self._winners, counts, limit))

    def _advance_if_out(self) -> None:
        """If the player to act holds no cards, the turn passes left to one who does."""
        if self._over or self._hands[self._current]:
            return
        for k in range(1, self._n + 1):
            seat = (self._current + k) % self._n
            if self._hands[seat]:
                self._current = seat
                return

    def _why_illegal(self, action: int) -> str | None:
        target, code = divmod(action, 32)
        me = self._current
        if target == me:
            return "one cannot ask oneself"
        if not self._hands[target]:
            return f"player {target} has no cards left (they are out)"
        if self._hands[me] >> code & 1:
            return f"they hold {CARD_IDS[code]} already"
        if any(self._down[p] >> (code // 4) & 1 for p in range(self._n)):
            return f"family {CARD_IDS[code][0]} is already laid down"
        if self.game.rules.must_hold_family and not self._hands[me] & FAMILY_MASK[code // 4]:
            return f"they hold no card of family {CARD_IDS[code][0]} (must_hold_family)"
        return None

    def _legal_actions(self) -> list[int]:
        me = self._current
        hand = self._hands[me]
        down = 0
        for d in self._down:
            down |= d
        codes = [c for c in range(32) if not hand >> c & 1 and not down >> (c // 4) & 1
                 and (not self.game.rules.must_hold_family or hand & FAMILY_MASK[c // 4])]
        return [t * 32 + c for t in range(self._n) if t != me and self._hands[t] for c in codes]

    def _apply(self, action: int) -> Record:
        target, code = divmod(action, 32)
        me = self._current
        success = bool(self._hands[target] >> code & 1)
        record = Asked(me, target, self.game.deck.cards[code], success)
        self._record(record)
        self._asks = (record, self._asks)
        if success:
            self._seen[code] = me
            self._lacking[code] = 0
            self._hands[target] &= ~(1 << code)
            self._hands[me] |= 1 << code
            self._lay_down(me)
        else:
            self._lacking[code] |= 1 << target
            self._current = target
        if not self._over:
            if self._step >= self.game.rules.max_asks:
                self._finish(limit=True)
            else:
                self._advance_if_out()
        return record

    # -- the two action layers --------------------------------------------------------------
    def parse_action(self, text: str) -> Ask:
        """``"ask P2 for C3"`` (see :meth:`Ask.parse`)."""
        return Ask.parse(text)

    def _action_code(self, action: Any) -> int:
        if isinstance(action, Ask):
            target = self._seat(action.target, "target")
            if not isinstance(action.card, (str, DeckCard)):
                raise InvalidTypeError(f"an Ask's card is its id (A1..H4), not {type(action.card).__name__}")
            code = CARD_IDS.index(self.game.deck.card(action.card).id)
            return target * 32 + code
        raise InvalidTypeError(f"an action must be an int, an Ask or its text, not {type(action).__name__}")

    def _int_to_action(self, action: int) -> Ask:
        target, code = divmod(action, 32)
        return Ask(target, CARD_IDS[code])

    def ask(self, target: int, card: str) -> Record:
        """Ask seat ``target`` for ``card`` (e.g. ``"C3"``)."""
        record: Record = self.apply(Ask(target, card))
        return record

    # -- public facts ------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self._current

    @property
    def is_terminal(self) -> bool:
        return self._over

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(bin(h).count("1") for h in self._hands)

    @property
    def scores(self) -> tuple[int, ...]:
        """Families laid down, per seat."""
        return tuple(bin(d).count("1") for d in self._down)

    @property
    def winners(self) -> tuple[int, ...]:
        return self._winners

    def hand(self, player: int) -> tuple[DeckCard, ...]:
        """A seat's cards (hidden information: for referees and tests)."""
        hand, cards = self._hands[self._seat(player)], self.game.deck.cards
        return tuple(cards[c] for c in range(32) if hand >> c & 1)

    def describe(self) -> str:
        if self._over:
            return f"game over, families {list(self.scores)}, winners {list(self._winners)}"
        sizes = "/".join(map(str, self.hand_sizes))
        return f"hands {sizes}, families {'/'.join(map(str, self.scores))}, player {self._current} to ask"

    def summary(self) -> dict[str, Any]:
        return {"current_player": self._current, "hand_sizes": list(self.hand_sizes),
                "families": list(self.scores), "winners": list(self._winners)}

    def _hand_masks(self) -> tuple[int, ...]:
        return tuple(self._hands)

    def _down_masks(self) -> tuple[int, ...]:
        return tuple(self._down)

    def _information_set(self, player: int,
                         askers_hold: bool | None = None) -> tuple[DealSampler | MatchingSampler, Any]:
        """Hidden from a seat: where the cards nobody has seen change hands are
        (never handed over, not in a family laid down, not its own), among the
        other seats (and out of play, in a position). Cards only move in the open,
        so each such card has stayed with whoever was dealt it, and what a seat has
        seen narrows them: a seat asked for a card that lacked it, a seat that asked
        for a card (one does not ask for a card one holds), and the families: no
        seat ever held a whole family without laying it down, and with
        ``must_hold_family`` an asker held a card of the family asked for
        (``askers_hold``: assume so whatever the rules, as a search may of players
        who ask only for families they hold)."""
        n = self._n
        others = [p for p in range(n) if p != player]
        place = {seat: i for i, seat in enumerate(others)}
        asks = unroll(self._asks)
        down = 0
        for d in self._down:
            down |= d
        laid = sum(FAMILY_MASK[f] for f in range(8) if down >> f & 1)
        moved = 0
        for ask in asks:
            if ask.success:
                moved |= 1 << ask.card.code
        known = moved | laid | self._hands[player]
        hidden = [c for c in range(32) if not known >> c & 1]
        forbidden = {c: 0 for c in hidden}  # bits of places a card cannot be in
        for ask in asks:
            code = ask.card.code
            if code in forbidden:
                for seat in (ask.asker, ask.target):
                    if seat in place:
                        forbidden[code] |= 1 << place[seat]
        must_hold = self.game.rules.must_hold_family if askers_hold is None else askers_hold
        cap, need = self._family_facts(player, asks, known, must_hold)
        for code in hidden:
            for seat, i in place.items():
                if cap[seat][code // 4] <= 0:
                    forbidden[code] |= 1 << i
        sizes = [self._hands[p].bit_count() - (self._hands[p] & known).bit_count() for p in others]
        sizes.append(len(hidden) - sum(sizes))
        places = len(sizes)
        unseen = {code // 4 for code in hidden}
        every_check = [(place[seat], f, max(0, cap[seat][f]), need[seat][f]) for seat in others
                       for f in sorted(unseen) if cap[seat][f] < 4 or need[seat][f]]
        # At a table of many seats, whose hands hold a few hidden cards each, the deal is drawn
        # as a matching of the cards onto the hands' slots, exactly: a family a seat must hold a
        # card of (must_hold_family, askers_hold) keeps a slot of that hand for it (the families'
        # placements must fit together slot for slot, an exact cover proposals almost never
        # meet), and a card a seat lacked never fills its slots (proposals refused for it took
        # up to 0.7 s). At a few seats the deals are counted, each such family's allowed
        # placements listed (at most 8 ** 4). The other checks (a seat may hold at most so many
        # of a family) seldom refuse a sample, and stay a test of the whole deal.
        allowed_of = {code: [i for i in range(places) if sizes[i] and not forbidden[code] >> i & 1]
                      for code in hidden}
        needed = sorted({f for _, f, _, need_ in every_check if need_})
        if sum(1 for size in sizes if size) >= MATCHED_FROM:
            binding = [check for check in every_check if check[3] or check[2] < sizes[check[0]]]
            deal: DealSampler | MatchingSampler = MatchingSampler(
                sizes, hidden, [allowed_of[code] for code in hidden], [code // 4 for code in hidden],
                [(i, f, need_) for i, f, _, need_ in binding if need_],
                self._family_check(binding, places) if binding else None)
            return deal, self._writer(place, known)
        listed: list[Group | Placements] = []
        placed: set[int] = set()
        exact: set[int] = set()  # the families listed so
        for f in needed:
            codes = [code for code in hidden if code // 4 == f]
            allowed = [allowed_of[code] for code in codes]
            bounds = [(i, cap_, need_) for i, f_, cap_, need_ in every_check if f_ == f]
            ways = _placements(allowed, bounds)
            listed.append(Placements(tuple(codes), ways))
            placed.update(codes)
            exact.add(f)
        checks = [check for check in every_check if check[1] not in exact]
        by_bits: dict[int, list[int]] = {}
        for code in hidden:
            if code not in placed:
                by_bits.setdefault(forbidden[code], []).append(code)
        free = by_bits.pop(0, [])
        groups = listed + [Group(tuple(codes), high=tuple(0 if bits >> i & 1 else len(codes) for i in range(places)))
                           for bits, codes in sorted(by_bits.items())]
        deal = DealSampler(sizes, free, groups, self._family_check(checks, places) if checks else None)
        return deal, self._writer(place, known)

    @staticmethod
    def _family_check(checks: list[tuple[int, int, int, int]],
                      places: int) -> Callable[[list[list[int]]], bool]:
        """A test of a whole deal: each ``(place, family, cap, need)`` of ``checks`` holds."""
        def accept(deal: list[list[int]]) -> bool:
            counts = [[0] * 8 for _ in range(places)]
            for i, codes in enumerate(deal):
                for code in codes:
                    counts[i][code // 4] += 1
            return all(cap_ >= counts[i][f] >= need_ for i, f, cap_, need_ in checks)

        return accept

    @staticmethod
    def _writer(place: dict[int, int], known: int) -> Callable[[FourPackState, list[list[int]], Rng], None]:
        """Puts a deal's cards (per place) in the seats' hands, beside the cards everyone knows of."""
        def write(state: FourPackState, cards: list[list[int]], rng: Rng) -> None:
            for seat, i in place.items():
                state._hands[seat] = (state._hands[seat] & known) | sum(1 << code for code in cards[i])

        return write

    def _family_facts(self, player: int, asks: Sequence[Asked], known: int,
                      must_hold: bool) -> tuple[list[list[int]], list[list[int]]]:
        """Per seat and family: how many of its unseen cards the seat may hold (3
        less the most cards of the family it was seen holding at once) and how
        many it must (1 where, with ``must_hold_family``, it asked for a card of
        the family holding none that anyone saw)."""
        n = self._n
        # where each seen card was at the start: with the first seat it was taken
        # from, or (never handed over) where it is, or with who laid its family down
        start = [-1] * 32
        for ask in asks:
            if ask.success and start[ask.card.code] < 0:
                start[ask.card.code] = ask.target
        where = [-1] * 32
        for code in range(32):
            if known >> code & 1:
                where[code] = start[code]
        for record in self.history:
            if isinstance(record, LaidDown):
                family = FAMILIES.index(record.family)
                for code in range(4 * family, 4 * family + 4):
                    if where[code] < 0:
                        where[code] = record.player
        for code in range(32):
            if where[code] < 0 and self._hands[player] >> code & 1:
                where[code] = player
        counts = [[0] * 8 for _ in range(n)]
        for code in range(32):
            if where[code] >= 0:
                counts[where[code]][code // 4] += 1
        most = [row[:] for row in counts]
        need = [[0] * 8 for _ in range(n)]
        for record in self.history:
            if isinstance(record, Asked):
                f = record.card.code // 4
                if must_hold and counts[record.asker][f] == 0:
                    need[record.asker][f] = 1
                if record.success:
                    counts[record.target][f] -= 1
                    counts[record.asker][f] += 1
                    most[record.asker][f] = max(most[record.asker][f], counts[record.asker][f])
            elif isinstance(record, LaidDown):
                family = FAMILIES.index(record.family)
                counts[record.player][family] = 0
        return [[3 - m for m in row] for row in most], need

    # -- observations ----------------------------------------------------------------------------
    def _observation(self, player: int) -> FourPackObservation:
        return FourPackObservation(
            player=player,
            current_player=self._current,
            hand=self.hand(player),
            hand_mask=self._hands[player],
            hand_sizes=self.hand_sizes,
            families_down=tuple(tuple(FAMILIES[f] for f in range(8) if d >> f & 1) for d in self._down),
            asks=unroll(self._asks),
            rules=self.game.rules,
            legal_actions=tuple(self.legal_actions()) if player == self._current else (),
        )

    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        """``observation_size`` float32 values; seats relative to the observer (slot k:
        seat ``(player + k) % n``), ``S = max(8, players)`` slots (the offsets below
        for S = 8, ``OBSERVATION_SIZE`` values; more players shift them).

        ======  ===============================================================
        0-31    own hand (card codes)
        32-39   families laid down (by anyone)
        40-47   hand sizes / 32
        48-55   families laid down / 8
        56-63   the player to ask, one-hot
        64-319  per card (32) x seat (S): 1 if the card was last seen going to
                that seat, -1 if that seat was asked for it and lacked it
                since it last moved
        ======  ===============================================================
        """
        n = self._n
        slots = max(8, n)
        hand = self._hands[player]
        for c in range(32):
            out[c] = hand >> c & 1
        sizes, scores = self.hand_sizes, self.scores
        for p in range(n):
            k = (p - player) % n
            for f in range(8):
                if self._down[p] >> f & 1:
                    out[32 + f] = 1.0
            out[40 + k] = sizes[p] / 32
            out[40 + slots + k] = scores[p] / 8
            out[40 + 2 * slots + k] = p == self._current
        # card_knowledge(asks), kept up to date by _apply
        base = 40 + 3 * slots
        for code in range(32):
            seen, lacking = self._seen[code], self._lacking[code]
            if seen >= 0:
                out[base + code * slots + (seen - player) % n] = 1.0
            while lacking:
                p = (lacking & -lacking).bit_length() - 1
                out[base + code * slots + (p - player) % n] = -1.0
                lacking &= lacking - 1


def card_knowledge(asks: tuple[Asked, ...], players: int) -> list[list[int]]:
    """Per card and seat: 1 where the card was last seen arriving, -1 where the
    seat was asked for it and lacked it since it last moved, else 0."""
    knowledge = [[0] * players for _ in range(32)]
    for ask in asks:
        code = ask.card.code
        if ask.success:
            knowledge[code] = [0] * players
            knowledge[code][ask.asker] = 1
        else:
            knowledge[code][ask.target] = -1
    return knowledge


_POSITION_KEYS: Final = ("hands", "families", "current")


def _read_position(game: FourPack, data: Mapping[str, Any]) -> dict[str, Any]:
    """A Four Pack position checked (see :meth:`FourPack.from_position`), with
    its canonical JSON form (``json``), which reads back to the same position."""
    if not isinstance(data, Mapping):
        raise InvalidStateError(f"a position is a mapping of {', '.join(_POSITION_KEYS)}, not {type(data).__name__}")
    check.no_unknown("Four Pack", {k: v for k, v in data.items() if k not in _POSITION_KEYS}, _POSITION_KEYS)
    n = game.rules.players

    def card_codes(value: Any, name: str) -> list[int]:
        return check.deck_card_codes(game.deck, value, name)

    def family_codes(value: Any, name: str) -> list[int]:
        def parse(letters: Any) -> list[int]:
            items = letters.replace(",", " ").split() if isinstance(letters, str) else list(letters)
            codes = []
            for item in items:
                if not isinstance(item, str):
                    raise InvalidTypeError(f"a family is a letter A..H, not {type(item).__name__} {check.shown(item)}")
                if item.strip().upper() not in FAMILIES or len(item.strip()) != 1:
                    raise InvalidStateError(f"{item!r} is not a family: families are A..H")
                codes.append(FAMILIES.index(item.strip().upper()))
            return codes
        return check.parse(parse, value, name)

    given = check.per_seat(check.required(data.get("hands"), "hands", '["A1 A2", "A3 B1", "A4"]'), "hands", n)
    hands = [card_codes(hand, f"hands[{seat}]") for seat, hand in enumerate(given)]
    families_given = data.get("families")
    families = [[] for _ in range(n)] if families_given is None else [
        family_codes(f, f"families[{seat}]") for seat, f in enumerate(check.per_seat(families_given, "families", n))]
    places = [(f"hands[{seat}]", codes) for seat, codes in enumerate(hands)]
    places += [(f"families[{seat}]", [4 * f + k for f in fs for k in range(4)]) for seat, fs in enumerate(families)]
    check.deck_holds(places, lambda code: 1, CARD_IDS)
    masks = [sum(1 << code for code in codes) for codes in hands]
    down = [sum(1 << f for f in fs) for fs in families]
    for seat, mask in enumerate(masks):
        for f in range(8):
            if mask & FAMILY_MASK[f] == FAMILY_MASK[f]:
                raise InvalidStateError(f"hands[{seat}] holds all of family {FAMILIES[f]}: "
                                        "a completed family is laid down at once")
    if sum(len(fs) for fs in families) == 8:
        raise InvalidStateError("every family is laid down: the game is over")
    current = check.seat(data.get("current", 0), "current", n)
    if not masks[current]:
        raise InvalidStateError(f"current={current} holds no cards: the turn passes to a player who does")
    if sum(1 for mask in masks if mask) < 2:
        raise InvalidStateError("only one seat holds cards: nobody is left to ask")

    def text(codes: Iterable[int], names: Sequence[str]) -> str:
        return " ".join(names[c] for c in sorted(codes))

    return {"hands": masks, "down": down, "current": current,
            "json": {"hands": [text(codes, CARD_IDS) for codes in hands],
                     "families": [text(fs, FAMILIES) for fs in families], "current": current}}
