"""Duelo players."""

from __future__ import annotations

from collections.abc import Sequence

from ..decks import Deck, load_deck
from ..bots import RandomBot
from .game import DueloObservation, TableTaken
from ..engine import check_to_act, checked_legal
from ..errors import InvalidTypeError

__all__ = ["RandomBot", "CategoryBot", "own_pile_cards"]


def own_pile_cards(observation: DueloObservation) -> set[int]:
    """Card codes the player knows are in its own pile: cards it took in hands
    it won, that have not come up since (from the public hands)."""
    mine: set[int] = set()
    for hand in observation.hands:
        if isinstance(hand, TableTaken):
            if hand.player == observation.player:
                mine.update(c.code for c in hand.taken)
            continue
        for player, card in hand.revealed:
            if player == observation.player:
                mine.discard(card.code)
        if hand.winner == observation.player:
            mine.update(c.code for c in hand.taken)
    if observation.top_card is not None:
        mine.discard(observation.top_card.code)
    return mine


class CategoryBot:
    """Calls the category in which its top card is strongest against the cards
    that may be on top of the other piles: every card but its own top card and
    those it knows are in its own pile (ties count half)."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def __init__(self, deck: Deck | None = None) -> None:
        self.deck = deck if deck is not None else load_deck()

    def choose(self, observation: DueloObservation, legal_actions: Sequence[int]) -> int:
        if not isinstance(observation, DueloObservation):
            raise InvalidTypeError(f"observation must be a Duelo observation, not {type(observation).__name__}")
        check_to_act(observation)
        legal_actions = checked_legal(legal_actions, len(self.deck.categories), observation)
        if observation.top_card is None:
            return int(legal_actions[0])
        top = self.deck.card(observation.top_card)
        excluded = own_pile_cards(observation) | {top.code}
        others = [c for c in self.deck.cards if c.code not in excluded]
        best, best_score = int(legal_actions[0]), -1.0
        for action in legal_actions:
            category = self.deck.categories[action]
            mine = top.values[action]
            score = sum(1.0 if category.beats(mine, c.values[action]) else 0.5 if mine == c.values[action] else 0.0
                        for c in others)
            if score > best_score:
                best, best_score = int(action), score
        return best

    def __repr__(self) -> str:
        return "CategoryBot()"
