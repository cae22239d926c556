"""Gang of Four combinations: classification, ranking, legal plays, actions.

>>> c = classify("G3 Y4 R5 G6 Y7")
>>> c.kind.name, str(c)
('STRAIGHT', 'Y7 G6 R5 Y4 G3')
>>> classify("R1 R1 M1 R5 R5").kind.name
'FULL_HOUSE'
>>> classify("G7 Y7 R7 G7 R5") is None
True
>>> beats("Y2 G2", "R1 M1"), beats("G2 Y2", "G2 Y2"), beats("G9 Y9 R9 R9", "RD")
(True, False, True)
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Final, Union, final

import numpy as np
import numpy.typing as npt

from ..errors import ImpossibleCardsError, InvalidComboError, InvalidTypeError
from . import _deck, _kernels
from .cards import KINDS, Card, CardsLike, format_cards, hand_mask, mask_cards

__all__ = [
    "ComboKind", "Combo", "ComboLike", "NUM_ACTIONS", "NO_TABLE", "classify", "classify_mask",
    "classify_batch", "beats", "legal_plays", "legal_mask", "legal_actions",
    "combo_to_action", "action_to_combo", "all_combos", "penalty",
]

NUM_ACTIONS: Final = _deck.NUM_ACTIONS
"""The number of distinct combinations of the deck: the size of the action space."""
NO_TABLE: Final = -1
"""The table "action" when leading (nothing to beat)."""


class ComboKind(IntEnum):
    """Kinds of combination, in the order of the action numbering."""

    SINGLE = 0
    PAIR = 1
    TRIPLE = 2
    STRAIGHT = 3
    FLUSH = 4
    FULL_HOUSE = 5
    STRAIGHT_FLUSH = 6
    GANG = 7

    @property
    def actions(self) -> range:
        """The action indices of this kind."""
        return range(_deck.KIND_START[self], _deck.KIND_START[self + 1])


@final
class Combo:
    """A combination of cards that may be played: frozen, hashable.

    ``cards`` are in canonical text order (high to low; a full house lists its
    triple first).  ``action`` is its index in the action space, which is also
    its rank key: within a kind and size, a higher index beats a lower one.
    """

    __slots__ = ("_action", "_kind", "_cards", "_mask")
    _action: int
    _kind: ComboKind
    _cards: tuple[Card, ...]
    _mask: int

    def __new__(cls, *args: Any, **kwargs: Any) -> Combo:
        raise InvalidTypeError("use Combo.parse(text), classify(cards) or action_to_combo(action)")

    @classmethod
    def _make(cls, action: int) -> Combo:
        mask = int(_kernels.COMBO_MASKS[action])
        kind = ComboKind(bisect_right(_deck.KIND_START, action) - 1)
        codes = sorted(_deck.codes_of_mask(mask), reverse=True)
        if kind is ComboKind.FULL_HOUSE:  # the triple first, then the pair
            values = [_deck.VALUE[c] for c in codes]
            codes.sort(key=lambda c: values.count(_deck.VALUE[c]) != 3)
        combo = object.__new__(cls)
        for name, value in (("_action", action), ("_kind", kind), ("_mask", mask),
                            ("_cards", tuple(KINDS[c] for c in codes))):
            object.__setattr__(combo, name, value)
        return combo

    @staticmethod
    def parse(text: CardsLike) -> Combo:
        """The combination of these cards; raises if they are not one.

        >>> Combo.parse("g3 y3 r3 yp gp")
        Combo.parse('R3 Y3 G3 YP GP')
        """
        combo = classify(text)
        if combo is None:
            if isinstance(text, str):
                shown = text
            elif isinstance(text, (int, np.integer)):  # a card mask (classify checked it)
                shown = format_cards(mask_cards(int(text)))
            else:
                shown = format_cards(_cards_of(text))
            raise InvalidComboError(f"{shown!r} is not a combination")
        return combo

    @property
    def action(self) -> int:
        """Index in the action space (0..12351), in canonical order."""
        return self._action

    @property
    def kind(self) -> ComboKind:
        return self._kind

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards, in canonical text order."""
        return self._cards

    @property
    def mask(self) -> int:
        """The canonical 64-bit card mask."""
        return self._mask

    def beats(self, other: ComboLike | int | None) -> bool:
        """Whether this combination may be played on ``other`` (``None``: empty table; an int: an action index)."""
        return beats(self, other)

    def __len__(self) -> int:
        return len(self._cards)

    def __iter__(self) -> Any:
        return iter(self._cards)

    def __str__(self) -> str:
        return format_cards(self._cards)

    def __repr__(self) -> str:
        return f"Combo.parse({str(self)!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Combo is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Combo is immutable")

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return action_to_combo, (self._action,)

    def __copy__(self) -> Combo:
        return self

    def __deepcopy__(self, memo: object) -> Combo:
        return self

    def __hash__(self) -> int:
        return hash(("Combo", self._action))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Combo):
            return self._action == other._action
        return NotImplemented


ComboLike = Union[Combo, CardsLike]
"""A :class:`Combo`, or cards that form one."""

_COMBOS: list[Combo | None] = [None] * NUM_ACTIONS


def action_to_combo(action: int | np.integer[Any]) -> Combo:
    """The combination with this action index.

    >>> action_to_combo(0), action_to_combo(12351)
    (Combo.parse('G1'), Combo.parse('M1 R1 R1 Y1 Y1 G1 G1'))
    """
    if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
        raise InvalidTypeError(f"an action must be an int, not {type(action).__name__}")
    if not 0 <= action < NUM_ACTIONS:
        raise _deck.action_error(int(action))
    combo = _COMBOS[action]
    if combo is None:
        combo = _COMBOS[action] = Combo._make(int(action))
    return combo


def combo_to_action(combo: ComboLike) -> int:
    """The action index of a combination (or of cards that form one)."""
    return _as_combo(combo).action


def all_combos() -> list[Combo]:
    """Every combination of the deck, in action order."""
    return [action_to_combo(a) for a in range(NUM_ACTIONS)]


def _cards_of(cards: CardsLike) -> list[Card]:
    from .cards import parse_cards
    return parse_cards(cards)


def classify(cards: CardsLike) -> Combo | None:
    """The combination these cards form, or ``None`` if they form none.

    ``cards`` is text (``"G3 Y4 R5 G6 Y7"``) or an iterable of :class:`Card`
    or card text.  A set that fits two kinds is the higher kind.
    """
    action = _kernels.fast_classify(cards)
    if action == -2:  # not plain text or a tuple/list of Card: the careful path
        action = _kernels.classify_mask(hand_mask(cards))
    if action < 0:
        return None
    combo = _COMBOS[action]
    if combo is None:
        combo = _COMBOS[action] = Combo._make(action)
    return combo


def _as_combo(combo: ComboLike) -> Combo:
    if isinstance(combo, Combo):
        return combo
    return Combo.parse(combo)


def _table_action(table: ComboLike | int | None) -> int:
    if table is None:
        return NO_TABLE
    if isinstance(table, (int, np.integer)):
        if isinstance(table, bool):
            raise InvalidTypeError("table must be a Combo, cards, an action index or None, not bool")
        return int(table)
    if not isinstance(table, (Combo, str)) and not (isinstance(table, Iterable) and not isinstance(table, bytes)):
        raise InvalidTypeError(f"table must be a Combo, cards, an action index or None, not {type(table).__name__}")
    return _as_combo(table).action


def beats(a: ComboLike | int, b: ComboLike | int | None) -> bool:
    """Whether ``a`` may be played on ``b`` (``None``: an empty table).

    Same number of cards and strictly higher; a gang beats any non-gang and a
    smaller or lower gang. Each is a :class:`Combo`, its cards, or its action
    index (an int is an action index in both places, never a card mask):

    >>> beats("Y1", "G1"), beats(1, 0), beats(combo_to_action("G9 G9 Y9 R9"), "RD")
    (True, True, True)
    """
    if a is None:
        raise InvalidTypeError("the combination played must be a Combo, cards or an action index, not None")
    if isinstance(a, bool):
        raise InvalidTypeError("the combination played must be a Combo, cards or an action index, not bool")
    first = action_to_combo(a).action if isinstance(a, (int, np.integer)) else _as_combo(a).action
    return bool(_kernels.beats(first, _table_action(b)))


def legal_plays(hand: CardsLike | int, table: ComboLike | int | None = None) -> list[Combo]:
    """Every distinct combination ``hand`` may play on ``table``, in action order.

    ``table`` is ``None`` when leading.  Passing is not included.

    >>> [str(c) for c in legal_plays("G2 Y2 G9 Y9 R9 R9", "M1 Y1")]
    ['Y2 G2', 'Y9 G9', 'R9 G9', 'R9 Y9', 'R9 R9', 'R9 R9 Y9 G9']
    """
    actions = _kernels.legal_actions(hand_mask(hand), _table_action(table))
    return [action_to_combo(a) for a in actions.tolist()]


def legal_mask(hand: CardsLike | int, table: ComboLike | int | None = None) -> npt.NDArray[np.bool_]:
    """A boolean array of ``NUM_ACTIONS``: the actions ``hand`` may play on ``table``."""
    mask: npt.NDArray[np.bool_] = _kernels.legal_mask(hand_mask(hand), _table_action(table))
    return mask


if TYPE_CHECKING:
    def legal_actions(hand: int, table: int = NO_TABLE) -> npt.NDArray[np.int32]:
        """Fast path: sorted legal action indices for a hand mask and a table action."""

    def classify_mask(mask: int) -> int:
        """Fast path: the action index of the combination a canonical mask holds, or -1."""
else:
    # The kernels themselves: no Python wrapper between the caller and C.
    legal_actions = _kernels.legal_actions
    classify_mask = _kernels.classify_mask


def classify_batch(codes: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int32]]:
    """Classify many hands at once, without the GIL.

    ``codes`` is a 2-D ``uint8`` array, a hand a row, of card codes
    (``Card.code``, 0..33), padded with ``PAD`` (255).  Returns the kinds
    (``int8``, -1 for none) and the action indices (``int32``, -1 for none),
    which double as rank keys.  A code out of range, or more copies of a card
    than the deck holds, raises and names the row.

    >>> import numpy as np
    >>> kinds, actions = classify_batch(np.array([[0, 1, 255], [33, 33, 255]], np.uint8))
    Traceback (most recent call last):
    ...
    fourcards.errors.ImpossibleCardsError: 2 x RD in row 1: the deck holds one copy of RD
    """
    if isinstance(codes, np.ma.MaskedArray):
        raise InvalidTypeError("codes must be a plain array: a masked array's mask would be ignored")
    return _kernels.classify_batch(codes)


def penalty(cards_left: int) -> int:
    """Penalty points for the cards a player holds when a round ends.

    >>> [penalty(n) for n in (0, 1, 7, 8, 10, 11, 13, 14, 15, 16)]
    [0, 1, 7, 16, 20, 33, 39, 56, 60, 80]
    """
    if not isinstance(cards_left, (int, np.integer)) or isinstance(cards_left, bool):
        raise InvalidTypeError(f"cards_left must be an int, not {type(cards_left).__name__}")
    if not 0 <= cards_left <= 16:
        raise ImpossibleCardsError(f"cards_left {cards_left}: a hand holds 0..16 cards")
    return int(cards_left) * _deck.PENALTY_PER_CARD[cards_left]
