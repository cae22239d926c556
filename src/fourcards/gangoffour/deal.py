"""Seeded deals of the Gang of Four deck: hands of cards, or many random hands
at once as the code arrays the batch kernels take."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..engine import MAX_GAMES, check_count
from ..errors import FourCardsError, InvalidTypeError
from ..rng import Rng, seed_in_range
from ._deck import PAD
from .cards import DECK, Card

__all__ = ["deal", "deal_codes"]


def deal(seed: int, players: int = 4, cards_each: int = 16) -> list[tuple[Card, ...]]:
    """Shuffle the 64 cards with :class:`~fourcards.rng.Rng` (``seed``) and deal
    ``cards_each`` cards to each of ``players`` seats, one at a time from the
    top of the deck starting with seat 0; every hand is sorted.

    >>> hands = deal(7)
    >>> [len(h) for h in hands], sum(len(h) for h in hands)
    ([16, 16, 16, 16], 64)
    """
    players, cards_each = check_count(players, "players"), check_count(cards_each, "cards_each")
    if not 1 <= players <= 4:
        raise FourCardsError(f"players must be 1..4, got {players!r}")
    if not cards_each * players <= len(DECK):
        raise FourCardsError(f"cannot deal {cards_each!r} cards to {players} players from 64")
    cards = list(DECK)
    Rng(seed).shuffle(cards)
    return [tuple(sorted(cards[p:players * cards_each:players])) for p in range(players)]


def deal_codes(hands: int, seed: int = 0, cards: int | tuple[int, int] = 16) -> npt.NDArray[np.uint8]:
    """``hands`` random hands dealt from the 64-card deck, one a row, as the
    ``uint8`` card codes :func:`~fourcards.gangoffour.classify_batch` takes:
    each row is sorted and padded with ``PAD`` (255) to the widest hand.

    ``cards`` is the size of every hand, or ``(low, high)`` for sizes drawn
    from ``low..high``. Each hand is dealt from a full deck of its own (no two
    copies of a card beyond what the deck holds). The same seed gives the same
    hands on every platform (numpy's PCG64).

    >>> import numpy as np
    >>> from fourcards.gangoffour import classify_batch
    >>> codes = deal_codes(100_000, seed=1, cards=(1, 5))
    >>> codes.shape, codes.dtype
    ((100000, 5), dtype('uint8'))
    >>> kinds, actions = classify_batch(codes)
    >>> bool((kinds >= 0).any()), bool((deal_codes(3, seed=1) == deal_codes(3, seed=1)).all())
    (True, True)
    """
    hands = check_count(hands, "hands")
    if hands > MAX_GAMES:
        raise FourCardsError(f"hands={hands}: at most {MAX_GAMES:,} at a time")
    seed = seed_in_range(seed)  # TypeError for a bool or a float; 2**64 would alias seed 0
    low, high = (cards, cards) if isinstance(cards, (int, np.integer)) and not isinstance(cards, bool) else (
        cards if isinstance(cards, tuple) and len(cards) == 2 else (None, None))
    if not (isinstance(low, (int, np.integer)) and isinstance(high, (int, np.integer))
            and not isinstance(low, bool) and not isinstance(high, bool)):
        raise InvalidTypeError(f"cards must be a hand size 0..64 or a (low, high) pair of them, "
                               f"not {type(cards).__name__} {cards!r:.60}")
    if not 0 <= low <= high <= len(DECK):
        raise FourCardsError(f"cards must be a hand size 0..64 or a (low, high) pair of them, not {cards!r}")
    rng = np.random.default_rng(int(seed))
    deck = np.array([card.code for card in DECK], dtype=np.uint8)
    width, count = int(high), int(hands)
    codes = np.full((count, width), PAD, dtype=np.uint8)
    for start in range(0, count, CHUNK):  # bounded memory; the same draws whatever the count
        n = min(CHUNK, count - start)
        keys = rng.random((n, len(DECK)))
        chosen = np.argpartition(keys, width - 1, axis=1)[:, :width] if 0 < width < len(DECK) else \
            np.broadcast_to(np.arange(width), (n, width))
        rows = deck[chosen]
        if low < high:
            sizes = rng.integers(int(low), width + 1, size=n)
            rows[np.arange(width)[None, :] >= sizes[:, None]] = PAD
        codes[start:start + n] = np.sort(rows, axis=1)  # sorted, the padding last
    return codes


#: Hands drawn a chunk at a time (memory stays bounded for millions of hands).
CHUNK = 1 << 14
