"""Four Color Cards (四色牌): cards, melds, and the best split of a hand.

>>> hand = "RG RA RE RC RH RN RS RS RS GA GA GA YC YC WG WN WN WN GS YS WS"
>>> split = best_split(hand)
>>> split.points, len(split.melds)
(16, 8)
>>> [str(m) for m in split.melds][:4]
['RG RA RE', 'RC RH RN', 'RS RS RS', 'GA GA GA']
>>> is_complete("RG YG"), is_complete("RC RC")
(True, True)
>>> waits("RC RH RS RS RS GG")
{Card.parse('RN'): 5}

A hand is text (``"RG RA RE"``), an iterable of :class:`Card` or text, or 28
counts; ``exposed`` melds (already on the table) score their exposed points.
The core answers in a handful of table lookups (``fourcards._core``); the
pure-Python twin searches plainly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final, Union, final

import numpy as np
import numpy.typing as npt

from ..errors import ImpossibleCardsError, InvalidCardError, InvalidComboError
from . import _deck, _kernels, _reference

__all__ = ["Card", "DECK", "KINDS", "Meld", "MeldKind", "Split", "best_split", "is_complete", "waits",
           "best_points", "best_points_packed", "best_points_batch", "hand_counts", "pack"]


@final
class Card:
    """One of the 28 card kinds: colour letter + rank letter (``RG`` red General)."""

    __slots__ = ("code",)
    code: int

    def __new__(cls, *args: Any) -> Card:
        raise TypeError("use Card.parse(text) or Card.from_code(code)")

    @classmethod
    def _make(cls, code: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "code", code)
        return card

    @staticmethod
    def parse(text: str) -> Card:
        """The card named by ``text`` (case-insensitive)."""
        if not isinstance(text, str):
            raise TypeError(f"card text must be a str, not {type(text).__name__}")
        code = _deck.CODE_OF.get(text.strip().upper())
        if code is None:
            raise InvalidCardError(f"{text!r} is not a card: a colour R, G, Y or W and a rank "
                                   "G, A, E, C, H, N or S (e.g. RG, WS)")
        return KINDS[code]

    @staticmethod
    def from_code(code: int) -> Card:
        if not isinstance(code, int) or not 0 <= code < _deck.NUM_KINDS:
            raise InvalidCardError(f"{code!r} is not a card code (0..27)")
        return KINDS[code]

    @property
    def colour(self) -> str:
        return _deck.COLOURS[self.code // 7]

    @property
    def rank(self) -> str:
        return _deck.RANKS[self.code % 7]

    @property
    def name(self) -> str:
        return f"{_deck.COLOUR_NAMES[self.code // 7]} {_deck.RANK_NAMES[self.code % 7]}"

    def __str__(self) -> str:
        return _deck.NAMES[self.code]

    def __repr__(self) -> str:
        return f"Card.parse({_deck.NAMES[self.code]!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return Card.from_code, (self.code,)

    def __hash__(self) -> int:
        return self.code

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.code < other.code


KINDS: Final[tuple[Card, ...]] = tuple(Card._make(c) for c in range(_deck.NUM_KINDS))
DECK: Final[tuple[Card, ...]] = tuple(card for card in KINDS for _ in range(_deck.COPIES))
"""The 112 cards, four copies of each kind."""

HandLike = Union[str, Iterable[Union[Card, str]], Sequence[int], "npt.NDArray[Any]"]


class MeldKind(IntEnum):
    LONE_GENERAL = 0
    PAIR = 1
    TRIPLE = 2
    QUAD = 3
    GENERAL_QUAD = 4
    COMMAND = 5
    FIELD = 6
    THREE_SOLDIERS = 7
    FOUR_SOLDIERS = 8


@dataclass(frozen=True)
class Meld:
    """A group of cards: its kind, cards, and whether it is exposed (on the table)."""

    kind: MeldKind
    cards: tuple[Card, ...]
    exposed: bool = False

    @property
    def points(self) -> int:
        exposed, concealed = _deck.POINTS[self.kind]
        return exposed if self.exposed else concealed

    @staticmethod
    def parse(text: str | Iterable[Card | str], exposed: bool = False) -> Meld:
        """The meld these cards form; raises if they form none."""
        cards = _cards(text)
        kind = _deck.meld_kind(tuple(sorted(c.code for c in cards)))
        if kind < 0:
            raise InvalidComboError(f"{_text(cards)!r} is not a meld")
        return Meld(MeldKind(kind), tuple(sorted(cards)), exposed)

    def __str__(self) -> str:
        return _text(self.cards)


@dataclass(frozen=True)
class Split:
    """A complete split of a hand into melds, and its points."""

    melds: tuple[Meld, ...]
    points: int


def _text(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def _cards(cards: Any) -> list[Card]:
    if isinstance(cards, str):
        return [Card.parse(t) for t in cards.replace(",", " ").split()]
    if isinstance(cards, Card):
        raise TypeError("expected several cards, got one Card; wrap it in a list")
    result = []
    for item in cards:
        if isinstance(item, Card):
            result.append(item)
        elif isinstance(item, str):
            result.append(Card.parse(item))
        else:
            raise TypeError(f"cards must be Card or str, not {type(item).__name__}")
    return result


def hand_counts(hand: HandLike) -> list[int]:
    """28 counts from text, cards or counts; checks at most 4 of a kind."""
    if isinstance(hand, np.ndarray) or (isinstance(hand, (list, tuple)) and len(hand) == _deck.NUM_KINDS
                                        and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                for x in hand)):
        counts = [int(x) for x in hand]
        if len(counts) != _deck.NUM_KINDS or min(counts) < 0:
            raise ImpossibleCardsError(f"a hand is 28 counts of 0..4, got {counts}")
    else:
        counts = [0] * _deck.NUM_KINDS
        for card in _cards(hand):
            counts[card.code] += 1
    for code, n in enumerate(counts):
        if n > _deck.COPIES:
            raise ImpossibleCardsError(f"{n} x {_deck.NAMES[code]}: the deck holds 4 of each card")
    return counts


def pack(hand: HandLike) -> int:
    """The packed form of a hand: 3 bits a kind, kind ``k`` at bit ``3k`` (the fast path's input)."""
    return sum(n << (3 * k) for k, n in enumerate(hand_counts(hand)))


def _prepare(hand: HandLike, exposed: Iterable[Meld | str], incoming: Card | str | None
             ) -> tuple[list[int], list[Meld], int]:
    counts = hand_counts(hand)
    fixed = [m if isinstance(m, Meld) else Meld.parse(m, exposed=True) for m in exposed]
    on_table = [0] * _deck.NUM_KINDS
    for meld in fixed:
        for card in meld.cards:
            on_table[card.code] += 1
    extra = -1
    if incoming is not None:
        card = incoming if isinstance(incoming, Card) else Card.parse(incoming)
        counts[card.code] += 1
        extra = card.code
    for code in range(_deck.NUM_KINDS):
        if counts[code] + on_table[code] > _deck.COPIES:
            raise ImpossibleCardsError(
                f"{counts[code] + on_table[code]} x {_deck.NAMES[code]} in the hand, the card on offer "
                "and the exposed melds: the deck holds 4 of each card")
    if sum(counts) + sum(on_table) > len(DECK):
        raise ImpossibleCardsError("more than 112 cards")
    return counts, fixed, extra


def best_split(hand: HandLike, exposed: Iterable[Meld | str] = (), incoming: Card | str | None = None,
               incoming_from_discard: bool = False) -> Split | None:
    """The highest-scoring split of every card into melds, or ``None``.

    ``hand`` holds the concealed cards; ``exposed`` the melds on the table
    (scored exposed); ``incoming`` a card on offer joining the hand; when it
    comes from another player's discard, the meld it completes is exposed.
    """
    counts, fixed, extra = _prepare(hand, exposed, incoming)
    exposed_code = extra if incoming_from_discard else -1
    total = int(_kernels.best_points(counts, exposed_code))
    if total < 0:
        return None
    melds = _reconstruct(counts, exposed_code, total)
    fixed_points = sum(m.points for m in fixed)
    return Split(tuple(fixed) + tuple(melds), total + fixed_points)


def _reconstruct(counts: list[int], exposed_code: int, total: int) -> list[Meld]:
    """Melds achieving ``total`` (the kernels' answer), found by following the tables."""
    melds: list[Meld] = []
    rest = list(counts)
    if exposed_code >= 0:
        for codes in _reference.MELDS_WITH[exposed_code]:
            trial = list(rest)
            for k in codes:
                trial[k] -= 1
            if min(trial) < 0:
                continue
            kind = _deck.meld_kind(codes)
            if _kernels.best_points(trial, -1) + _deck.POINTS[kind][0] == total:
                melds.append(Meld(MeldKind(kind), tuple(KINDS[k] for k in codes), True))
                rest = trial
                total -= _deck.POINTS[kind][0]
                break
    while any(rest):
        first = next(k for k, n in enumerate(rest) if n)
        for codes in _reference.MELDS_WITH[first]:
            trial = list(rest)
            for k in codes:
                trial[k] -= 1
            if min(trial) < 0:
                continue
            kind = _deck.meld_kind(codes)
            after = int(_kernels.best_points(trial, -1))
            if after >= 0 and after + _deck.POINTS[kind][1] == total:
                melds.append(Meld(MeldKind(kind), tuple(KINDS[k] for k in codes), False))
                rest, total = trial, after
                break
        else:  # pragma: no cover - the tables guarantee a way
            raise AssertionError("no meld reproduces the best total")
    return melds


def is_complete(hand: HandLike, exposed: Iterable[Meld | str] = (), incoming: Card | str | None = None) -> bool:
    """Whether every card splits into melds."""
    counts, _, _ = _prepare(hand, exposed, incoming)
    return int(_kernels.best_points(counts, -1)) >= 0


def waits(hand: HandLike, exposed: Iterable[Meld | str] = (), from_discard: bool = False) -> dict[Card, int]:
    """Every card kind that would complete the hand, with the points it would give."""
    counts, fixed, _ = _prepare(hand, exposed, None)
    on_table = [0] * _deck.NUM_KINDS
    for meld in fixed:
        for card in meld.cards:
            on_table[card.code] += 1
    fixed_points = sum(m.points for m in fixed)
    result = {}
    for code in range(_deck.NUM_KINDS):
        if counts[code] + on_table[code] >= _deck.COPIES:
            continue
        counts[code] += 1
        points = int(_kernels.best_points(counts, code if from_discard else -1))
        counts[code] -= 1
        if points >= 0:
            result[KINDS[code]] = points + fixed_points
    return result


def best_points(hand: HandLike, exposed_code: int = -1) -> int:
    """Best points of a complete split of the cards (-1: none); the meld holding a card of
    ``exposed_code`` is scored exposed."""
    return int(_kernels.best_points(hand_counts(hand), exposed_code))


best_points_packed = _kernels.best_points_packed
"""Fast path: best points (-1 none; -2 a count above 4) of a packed hand (:func:`pack`)."""

best_points_batch = _kernels.best_points_batch
"""Batch: best points (int16) of rows of 28 counts (``uint8``), without the GIL."""
