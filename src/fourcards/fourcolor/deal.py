"""Many random Four Color hands at once, as the rows of counts the batch
kernels take (:func:`~fourcards.fourcolor.best_points_batch`,
:func:`~fourcards.fourcolor.best_split_batch`, :func:`~fourcards.fourcolor.waits_batch`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..engine import MAX_GAMES, check_count
from ..errors import FourCardsError, InvalidTypeError
from ..rng import seed_in_range
from . import _deck

__all__ = ["deal_counts"]


def deal_counts(hands: int, seed: int = 0, cards: int = 21) -> npt.NDArray[np.uint8]:
    """``hands`` random hands of ``cards`` cards (0..112; 21 is a hand that may win),
    each dealt from a full 112-card deck of its own, as a ``(hands, 28)`` ``uint8``
    array of counts by card code (``colour * 7 + rank``). The same seed gives the
    same hands on every platform (numpy's PCG64).

    >>> from fourcards.fourcolor import best_points_batch
    >>> rows = deal_counts(100_000, seed=1)
    >>> rows.shape, rows.dtype, int(rows.sum(axis=1).max())
    ((100000, 28), dtype('uint8'), 21)
    >>> points = best_points_batch(rows)      # -1: the hand does not split
    >>> bool((points >= 0).any())
    True
    """
    hands = check_count(hands, "hands")
    if hands > MAX_GAMES:
        raise FourCardsError(f"hands={hands}: at most {MAX_GAMES:,} at a time")
    seed = seed_in_range(seed)  # TypeError for a bool or a float; 2**64 would alias seed 0
    deck_size = _deck.NUM_KINDS * _deck.COPIES
    if isinstance(cards, bool) or not isinstance(cards, (int, np.integer)):
        raise InvalidTypeError(f"cards must be a hand size 0..{deck_size}, not {type(cards).__name__} {cards!r:.60}")
    if not 0 <= cards <= deck_size:
        raise FourCardsError(f"cards must be a hand size 0..{deck_size}, not {cards!r}")
    rng = np.random.default_rng(int(seed))
    deck = np.repeat(np.arange(_deck.NUM_KINDS), _deck.COPIES)
    counts = np.zeros((int(hands), _deck.NUM_KINDS), dtype=np.uint8)
    for start in range(0, int(hands), CHUNK):  # bounded memory; the same draws whatever the count
        n = min(CHUNK, int(hands) - start)
        keys = rng.random((n, deck_size))
        chosen = np.argpartition(keys, int(cards) - 1, axis=1)[:, :int(cards)] if 0 < cards < deck_size else \
            np.broadcast_to(np.arange(int(cards)), (n, int(cards)))
        flat = (np.arange(n)[:, None] * _deck.NUM_KINDS + deck[chosen]).ravel()
        counts[start:start + n] = np.bincount(flat, minlength=n * _deck.NUM_KINDS).reshape(n, _deck.NUM_KINDS)
    return counts


#: Hands drawn a chunk at a time (memory stays bounded for millions of hands).
CHUNK = 1 << 14
