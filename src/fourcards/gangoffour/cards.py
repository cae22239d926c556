"""Gang of Four cards: the :class:`Card` value type, the deck, card masks.

>>> Card.parse("r10")
Card.parse('R10')
>>> str(Card.parse("m1")), Card.parse("G2") > Card.parse("M1")
('M1', True)
>>> len(DECK), len(set(DECK))
(64, 34)
>>> hand_mask("G1 G1 M1") == 0b1000011
True
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any, Final, Union, cast, final

from ..errors import InvalidCardError, InvalidTypeError
from . import _deck, _kernels

__all__ = ["Card", "CardsLike", "DECK", "KINDS", "parse_cards", "hand_mask", "mask_cards", "format_cards"]


@final
class Card:
    """One card kind of the Gang of Four deck.

    Frozen and hashable; ordered by the rules' card order (value first, then
    colour: ``G1 < Y1 < R1 < M1 < G2 < ... < R10 < GP < YP < RD``).  The two
    copies of a coloured card are the same ``Card``.
    """

    __slots__ = ("_code", "_bit")
    _code: int
    _bit: int

    def __new__(cls, *args: Any, **kwargs: Any) -> Card:
        raise InvalidTypeError("use Card.parse(text) or Card.from_code(code)")

    @classmethod
    def _make(cls, code: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "_code", code)
        object.__setattr__(card, "_bit", _deck.BIT[code])
        return card

    @staticmethod
    def parse(text: str) -> Card:
        """The card named by ``text`` (case-insensitive, surrounding blanks ignored)."""
        if not isinstance(text, str):
            raise InvalidTypeError(f"card text must be a str, not {type(text).__name__}")
        code = _deck.CODE_OF.get(text.strip().upper())
        if code is None:
            raise InvalidCardError(f"{text!r} is not a card: {_NOTATION}")
        return KINDS[code]

    @staticmethod
    def from_code(code: int) -> Card:
        """The card with this code (its position 0..33 in card order)."""
        if not isinstance(code, numbers.Integral) or isinstance(code, bool):
            raise InvalidTypeError(f"a card code must be an int, not {type(code).__name__}")
        if not 0 <= code < _deck.NUM_KINDS:
            raise InvalidCardError(f"{code} is not a card code (0..33)")
        return KINDS[int(code)]

    @property
    def code(self) -> int:
        """Position in card order, 0 (``G1``) .. 33 (``RD``)."""
        return self._code

    @property
    def value(self) -> int | None:
        """1..10, or ``None`` for the phoenixes and the dragon."""
        value = _deck.VALUE[self._code]
        return value if value <= 10 else None

    @property
    def colour(self) -> str:
        """``"G"``, ``"Y"``, ``"R"``, or ``"M"`` for the multicolour 1."""
        return _deck.COLOUR[self._code]

    @property
    def copies(self) -> int:
        """How many copies of this card the deck holds (1 or 2)."""
        return _deck.CAP[self._code]

    @property
    def is_phoenix(self) -> bool:
        return self._code in (_deck.GP, _deck.YP)

    @property
    def is_dragon(self) -> bool:
        return self._code == _deck.RD

    def __str__(self) -> str:
        return _deck.NAMES[self._code]

    def __repr__(self) -> str:
        return f"Card.parse({_deck.NAMES[self._code]!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return Card.from_code, (self._code,)

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __hash__(self) -> int:
        return self._code

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._code < other._code

    def __le__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._code <= other._code

    def __gt__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._code > other._code

    def __ge__(self, other: Card) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self._code >= other._code


_NOTATION: Final = "cards are G1..G10, Y1..Y10, R1..R10, M1, GP, YP and RD"

KINDS: Final[tuple[Card, ...]] = tuple(Card._make(code) for code in range(_deck.NUM_KINDS))
"""The 34 card kinds, in card order (``KINDS[card.code] is card``)."""

DECK: Final[tuple[Card, ...]] = tuple(card for card in KINDS for _ in range(card.copies))
"""The 64 cards of the deck, in card order."""

_BY_NAME: Final[dict[str, Card]] = {str(card): card for card in KINDS}
_kernels.prepare(Card)

CardsLike = Union[str, Iterable[Union[Card, str]]]
"""Cards given as text (``"G3 Y4 R5"``) or as an iterable of :class:`Card` or card text."""


def parse_cards(cards: CardsLike) -> list[Card]:
    """The cards of text or an iterable of cards, in the order given.

    Text separates cards by blanks or commas.  Only the notation is checked:
    use :func:`hand_mask` to check that the deck can hold the cards.

    >>> parse_cards("g3, Y4 r5")
    [Card.parse('G3'), Card.parse('Y4'), Card.parse('R5')]
    """
    if isinstance(cards, str):
        result = []
        for token in cards.replace(",", " ").split():
            card = _BY_NAME.get(token.upper())
            if card is None:
                raise InvalidCardError(f"{token!r} in {cards!r} is not a card: {_NOTATION}")
            result.append(card)
        return result
    if isinstance(cards, Card):
        raise InvalidTypeError("expected several cards (text or an iterable), got one Card; wrap it in a list")
    try:
        items = list(cards)
    except TypeError:
        raise InvalidTypeError(
            f"cards must be text or an iterable of Card or str, not {type(cards).__name__}"
        ) from None
    result = []
    for item in items:
        if type(item) is Card:
            result.append(item)
        elif isinstance(item, str):
            result.append(Card.parse(item))
        else:
            raise InvalidTypeError(f"cards must be Card or str, not {type(item).__name__} ({item!r})")
    return result


def hand_mask(cards: CardsLike | int) -> int:
    """The canonical 64-bit mask of a set of cards (an int passes through, checked).

    Raises :class:`~fourcards.errors.ImpossibleCardsError` for a set the deck
    cannot hold (three ``R7``, two ``M1``, ...).

    >>> hex(hand_mask("RD GP"))
    '0xa000000000000000'
    """
    mask = _kernels.fast_mask(cards)
    if mask >= 0:
        return mask
    if isinstance(cards, numbers.Integral):
        if isinstance(cards, bool):
            raise InvalidTypeError("cards must be text, an iterable of cards or an int mask, not bool")
        value = int(cards)
        if 0 <= value <= _deck.FULL_DECK and _deck.is_canonical(value):
            return value
        raise _deck.mask_error(value)
    return _mask_of_cards(parse_cards(cast(CardsLike, cards)), cards)


def _mask_of_cards(parsed: list[Card], given: object) -> int:
    additive = 0
    for card in parsed:
        additive += card._bit
    mask = additive | ((additive >> 1) & _deck.PAIR_LO)
    if mask.bit_count() != len(parsed):
        raise _too_many(parsed, given)
    return mask


def _too_many(cards: list[Card], given: object) -> Exception:
    shown = given if isinstance(given, str) else format_cards(cards)
    return _deck.too_many_error([c.code for c in cards], f" in {shown!r}")


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a canonical mask, lowest first.

    >>> mask_cards(hand_mask("R5 G3 G3"))
    (Card.parse('G3'), Card.parse('G3'), Card.parse('R5'))
    """
    mask = hand_mask(mask)
    return tuple(KINDS[code] for code in _deck.codes_of_mask(mask))


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as canonical text, in the order given: Gang of Four :class:`Card` objects
    (``parse_cards`` reads text into them; a string here is a TypeError, not its letters).

    >>> format_cards(parse_cards("g1 RD m1"))
    'G1 RD M1'
    """
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise InvalidTypeError(f"format_cards takes Cards (parse_cards(text) makes them), not {type(cards).__name__}")
    shown = []
    for card in cards:
        if not isinstance(card, Card):
            raise InvalidTypeError(f"format_cards takes Gang of Four Cards, not {type(card).__name__} {card!r:.30}")
        shown.append(str(card))
    return " ".join(shown)
