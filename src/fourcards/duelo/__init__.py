"""Duelo: call the category where your top card is strongest, win the cards.

>>> from fourcards.duelo import Duelo, CategoryBot, RandomBot
>>> from fourcards.engine import play_match
>>> state = play_match(Duelo(players=2).new_match(4), [CategoryBot(), RandomBot(1)])
>>> state.is_terminal, sum(state.scores) + len(state.table)
(True, 32)

Integer actions: the index of the category called (``len(deck.categories)`` in all).
"""

from .bots import CategoryBot, RandomBot
from .game import Choose, Dealt, Duelo, DueloObservation, DueloState, Eliminated, GameEnd, HandPlayed, Rules

__all__ = ["CategoryBot", "Choose", "Dealt", "Duelo", "DueloObservation", "DueloState", "Eliminated",
           "GameEnd", "HandPlayed", "RandomBot", "Rules"]
