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
The core answers in a handful of table lookups (``fourcards.fourcolor._melds``); the
pure-Python twin searches plainly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from .._lazy import lazy_exports
from ..engine import check_flag
from ..errors import ImpossibleCardsError, InvalidCardError, InvalidTypeError
from . import _deck, _kernels, _variants

__all__ = ["Card", "DECK", "KINDS", "Meld", "MeldKind", "Split", "best_split", "is_complete", "waits",
           "best_points", "best_points_packed", "best_points_batch", "best_split_batch", "waits_batch",
           "hand_counts", "pack", "deal_counts",
           "FourColor", "FourColorState", "FourColorObservation", "Rules", "GreedyBot", "LookaheadBot", "RandomBot"]


from .cards import DECK, KINDS, Card, HandLike, Meld, MeldKind, Split, _cards


def hand_counts(hand: HandLike) -> list[int]:
    """28 counts from text, cards or counts; checks at most 4 of a kind."""
    if isinstance(hand, np.ndarray):
        if hand.ndim != 1 or hand.dtype.kind not in "iuO":
            raise InvalidTypeError(f"a hand given as an array is 28 integer counts, got dtype {hand.dtype} "
                                   f"and shape {hand.shape} (floats are not truncated)")
        counts: list[int] = hand.tolist()
        bad = next((x for x in counts if not isinstance(x, int) or isinstance(x, bool)), None)
        if bad is not None:
            raise InvalidTypeError(f"a hand's counts must be ints, got {type(bad).__name__} {bad!r}")
        if len(counts) != _deck.NUM_KINDS or min(counts) < 0:
            raise ImpossibleCardsError(f"a hand is 28 counts of 0..4, got {counts}")
    elif (isinstance(hand, (list, tuple)) and len(hand) == _deck.NUM_KINDS
          and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in hand)):
        counts = [int(x) for x in hand]
        if min(counts) < 0:
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
    if isinstance(exposed, (str, bytes)) or not isinstance(exposed, Iterable):
        raise InvalidTypeError(f"exposed must be a list of melds (a Meld or its text, like 'RG RA RE'), "
                               f"not {type(exposed).__name__}")
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
               incoming_from_discard: bool = False, *, same_colour_soldiers: bool = True) -> Split | None:
    """The highest-scoring split of every card into melds, or ``None``.

    ``hand`` holds the concealed cards; ``exposed`` the melds on the table
    (scored exposed); ``incoming`` a card on offer joining the hand; when it
    comes from another player's discard, the meld it completes is exposed.
    ``same_colour_soldiers=False`` reads the rules as the game's option of that
    name does: Soldiers of one colour form no triple or quad.
    """
    same_colour_soldiers = check_flag(same_colour_soldiers, "same_colour_soldiers")
    incoming_from_discard = check_flag(incoming_from_discard, "incoming_from_discard")
    if incoming is None and type(exposed) is tuple and not exposed and same_colour_soldiers is True:
        fast = _kernels.best_split_hand(hand)  # a list of Card in C; anything else below
        if fast is not _kernels.FALLBACK:
            return fast  # type: ignore[no-any-return]
    counts, fixed, extra = _prepare(hand, exposed, incoming)
    found = _variants.split(counts, extra if incoming_from_discard else -1, bool(same_colour_soldiers))
    if found is None:
        return None
    total, melds = found
    return Split(tuple(fixed) + melds, total + sum(m.points for m in fixed))


def is_complete(hand: HandLike, exposed: Iterable[Meld | str] = (), incoming: Card | str | None = None, *,
                same_colour_soldiers: bool = True) -> bool:
    """Whether every card splits into melds (``same_colour_soldiers``: as :func:`best_split`)."""
    same_colour_soldiers = check_flag(same_colour_soldiers, "same_colour_soldiers")
    if incoming is None and type(exposed) is tuple and not exposed and same_colour_soldiers is True:
        fast = _kernels.is_complete_hand(hand)
        if fast is not _kernels.FALLBACK:
            return fast  # type: ignore[no-any-return]
    counts, _, _ = _prepare(hand, exposed, incoming)
    return _variants.points(counts, -1, bool(same_colour_soldiers)) >= 0


def waits(hand: HandLike, exposed: Iterable[Meld | str] = (), from_discard: bool = False, *,
          same_colour_soldiers: bool = True) -> dict[Card, int]:
    """Every card kind that would complete the hand, with the points it would give
    (``same_colour_soldiers``: as :func:`best_split`)."""
    same_colour_soldiers = check_flag(same_colour_soldiers, "same_colour_soldiers")
    from_discard = check_flag(from_discard, "from_discard")
    if type(exposed) is tuple and not exposed and same_colour_soldiers is True:
        fast = _kernels.waits_hand(hand, from_discard)
        if fast is not _kernels.FALLBACK:
            return fast  # type: ignore[no-any-return]
    counts, fixed, _ = _prepare(hand, exposed, None)
    on_table = [0] * _deck.NUM_KINDS
    for meld in fixed:
        for card in meld.cards:
            on_table[card.code] += 1
    fixed_points = sum(m.points for m in fixed)
    if same_colour_soldiers:
        points = _kernels.wait_points(counts, on_table, bool(from_discard))
    else:
        points = [-1] * _deck.NUM_KINDS
        for code in range(_deck.NUM_KINDS):
            if counts[code] + on_table[code] < _deck.COPIES:
                counts[code] += 1
                points[code] = _variants.points(counts, code if from_discard else -1, False)
                counts[code] -= 1
    return {KINDS[code]: int(p) + fixed_points for code, p in enumerate(points) if p >= 0}


def best_points(hand: HandLike, exposed_code: int = -1, *, same_colour_soldiers: bool = True) -> int:
    """Best points of a complete split of the cards (-1: none); the meld holding a card of
    ``exposed_code`` is scored exposed (``same_colour_soldiers``: as :func:`best_split`)."""
    same_colour_soldiers = check_flag(same_colour_soldiers, "same_colour_soldiers")
    if same_colour_soldiers is True:
        fast = _kernels.best_points_hand(hand, exposed_code)  # a list of Card or 28 ints in C
        if fast is not _kernels.FALLBACK:
            return fast  # type: ignore[no-any-return]
    if not isinstance(exposed_code, (int, np.integer)) or isinstance(exposed_code, bool):
        raise InvalidTypeError(f"exposed_code must be an int card code, not {type(exposed_code).__name__}")
    if not -1 <= exposed_code < _deck.NUM_KINDS:
        raise InvalidCardError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")
    return _variants.points(hand_counts(hand), int(exposed_code), bool(same_colour_soldiers))


best_points_packed = _kernels.best_points_packed
"""Fast path: best points (-1 none; -2 a count above 4) of a packed hand (:func:`pack`)."""

best_points_batch = _kernels.best_points_batch
"""Batch: best points (int16) of rows of 28 integer counts, without the GIL (floats,
bools and counts outside 0..255 are refused)."""

best_split_batch = _kernels.best_split_batch
"""Batch: best splits of rows of 28 counts without the GIL: points (int16) and
melds (int8 action indices into ``fourcards.fourcolor.game.MELDS``, rows x 64, -1 padded)."""

waits_batch = _kernels.waits_batch
"""Batch: per row and kind, the points one more card completes the hand with
(int16, rows x 28, -1 none), without the GIL."""

_kernels.prepare(KINDS, _deck.CODE_OF, _variants.CONCEALED_MELDS, _variants.EXPOSED_MELDS, Split)


# The game and its bots, at the top like the other games (loaded on first use).
_LAZY = {"FourColor": ".game", "FourColorObservation": ".game", "FourColorState": ".game", "Rules": ".game",
         "GreedyBot": ".bots", "LookaheadBot": ".bots", "RandomBot": ".bots", "deal_counts": ".deal"}
if TYPE_CHECKING:
    from .bots import GreedyBot, LookaheadBot, RandomBot
    from .deal import deal_counts
    from .game import FourColor, FourColorObservation, FourColorState, Rules


__getattr__ = lazy_exports(globals(), _LAZY)
