"""Four Color Cards values: :class:`Card` (28 kinds), the deck, :class:`Meld` and
:class:`Split` (re-exported by :mod:`fourcards.fourcolor`).

>>> Card.parse("rg"), str(Meld.parse("RC RC RC"))
(Card.parse('RG'), 'RC RC RC')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final, Union, final

import numpy as np
import numpy.typing as npt

from ..engine import check_flag
from ..errors import InvalidCardError, InvalidComboError, InvalidTypeError
from . import _deck

__all__ = ["Card", "DECK", "KINDS", "HandLike", "Meld", "MeldKind", "Split"]


@final
class Card:
    """One of the 28 card kinds: colour letter + rank letter (``RG`` red General)."""

    __slots__ = ("code",)
    code: int

    def __new__(cls, *args: Any) -> Card:
        raise InvalidTypeError("use Card.parse(text) or Card.from_code(code)")

    @classmethod
    def _make(cls, code: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "code", code)
        return card

    @staticmethod
    def parse(text: str) -> Card:
        """The card named by ``text`` (case-insensitive)."""
        if not isinstance(text, str):
            raise InvalidTypeError(f"card text must be a str, not {type(text).__name__}")
        code = _deck.CODE_OF.get(text.strip().upper())
        if code is None:
            raise InvalidCardError(f"{text!r} is not a card: a colour R, G, Y or W and a rank "
                                   "G, A, E, C, H, N or S (e.g. RG, WS)")
        return KINDS[code]

    @staticmethod
    def from_code(code: int) -> Card:
        """The card of ``code`` (0..27; numpy ints too): TypeError for a bool or another type.

        >>> str(Card.from_code(0)), str(Card.from_code(27))
        ('RG', 'WS')
        """
        if isinstance(code, (bool, np.bool_)) or not isinstance(code, (int, np.integer)):
            raise InvalidTypeError(f"a card code is an int, not {type(code).__name__}")
        if not 0 <= code < _deck.NUM_KINDS:
            raise InvalidCardError(f"{code!r} is not a card code (0..27)")
        return KINDS[int(code)]

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

    def __post_init__(self) -> None:
        """A Meld is checked as made: its cards form a meld of its kind (``Meld.parse`` finds the kind)."""
        if not isinstance(self.cards, tuple) or not all(isinstance(card, Card) for card in self.cards):
            raise InvalidTypeError(f"a Meld's cards are a tuple of Four Color Cards "
                                   f"(Meld.parse('RG RA RE') makes one), not {self.cards!r:.60}")
        if not isinstance(self.exposed, bool):
            raise InvalidTypeError(f"a Meld's exposed is a bool, not {type(self.exposed).__name__}")
        kind = _deck.meld_kind(tuple(sorted(card.code for card in self.cards)))
        if isinstance(self.kind, bool) or not isinstance(self.kind, int) or self.kind != kind:
            shown = self.kind.name.lower() if isinstance(self.kind, MeldKind) else repr(self.kind)[:40]
            raise InvalidComboError(f"{_text(self.cards)!r} is not a meld of kind {shown}"
                                    + (f" (they form a {MeldKind(kind).name.lower()})" if kind >= 0 else ""))
        if type(self.kind) is not MeldKind:
            object.__setattr__(self, "kind", MeldKind(kind))

    @property
    def points(self) -> int:
        exposed, concealed = _deck.POINTS[self.kind]
        return exposed if self.exposed else concealed

    @staticmethod
    def parse(text: str | Iterable[Card | str], exposed: bool = False) -> Meld:
        """The meld these cards form; raises if they form none."""
        exposed = check_flag(exposed, "exposed")
        cards = _cards(text)
        kind = _deck.meld_kind(tuple(sorted(c.code for c in cards)))
        if kind < 0:
            raise InvalidComboError(f"{_text(cards)!r} is not a meld")
        return Meld(MeldKind(kind), tuple(sorted(cards)), exposed)

    def __str__(self) -> str:
        return _text(self.cards)

    def __repr__(self) -> str:
        shown = "exposed" if self.exposed else "concealed"
        return f"<Meld {_text(self.cards)}: {self.kind.name.lower().replace('_', ' ')}, {shown}, {self.points} points>"


@dataclass(frozen=True)
class Split:
    """A complete split of a hand into melds, and its points."""

    melds: tuple[Meld, ...]
    points: int

    def __str__(self) -> str:
        return " | ".join(str(m) for m in self.melds)

    def __repr__(self) -> str:
        return f"<Split {self.points} points: {self}>"


def _text(cards: Iterable[Card]) -> str:
    return " ".join(str(c) for c in cards)


def _cards(cards: Any) -> list[Card]:
    if isinstance(cards, str):
        return [Card.parse(t) for t in cards.replace(",", " ").split()]
    if isinstance(cards, Card):
        raise InvalidTypeError("expected several cards, got one Card; wrap it in a list")
    if isinstance(cards, (bytes, bytearray, memoryview)) or not isinstance(cards, Iterable):
        raise InvalidTypeError(f"cards must be text or an iterable of Card or str, not {type(cards).__name__}")
    result = []
    for item in cards:
        if isinstance(item, Card):
            result.append(item)
        elif isinstance(item, str):
            result.append(Card.parse(item))
        else:
            raise InvalidTypeError(f"cards must be Card or str, not {type(item).__name__}")
    return result
