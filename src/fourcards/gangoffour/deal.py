"""Seeded deals of the Gang of Four deck."""

from __future__ import annotations

from ..rng import Rng
from .cards import DECK, Card

__all__ = ["deal"]


def deal(seed: int, players: int = 4, cards_each: int = 16) -> list[tuple[Card, ...]]:
    """Shuffle the 64 cards with :class:`~fourcards.rng.Rng` (``seed``) and deal
    ``cards_each`` cards to each of ``players`` seats, one at a time from the
    top of the deck starting with seat 0; every hand is sorted.

    >>> hands = deal(7)
    >>> [len(h) for h in hands], sum(len(h) for h in hands)
    ([16, 16, 16, 16], 64)
    """
    if not isinstance(players, int) or not 1 <= players <= 4:
        raise ValueError(f"players must be 1..4, got {players!r}")
    if not isinstance(cards_each, int) or not 0 <= cards_each * players <= len(DECK):
        raise ValueError(f"cannot deal {cards_each!r} cards to {players} players from 64")
    cards = list(DECK)
    Rng(seed).shuffle(cards)
    return [tuple(sorted(cards[p:players * cards_each:players])) for p in range(players)]
