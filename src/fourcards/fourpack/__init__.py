"""Four Pack: ask the other players for cards and lay down complete families.

>>> from fourcards.fourpack import FourPack
>>> game = FourPack(players=4)
>>> state = game.new_match(seed=3)
>>> state.current_player, state.hand_sizes
(2, (8, 8, 8, 8))
>>> action = state.legal_actions()[0]
>>> state.action_to_string(action)
'ask P0 for A2'

Integer actions: ``target * 32 + code`` (ask seat ``target`` for the card
with code ``code``, its index in ``CARD_IDS``), ``players * 32`` in all.
"""

from .game import (
    Asked, Ask, FourPack, FourPackObservation, FourPackState, GameEnd, LaidDown, Rules, Dealt,
)
from .bots import MemoryBot, RandomBot

__all__ = [
    "Ask", "Asked", "Dealt", "FourPack", "FourPackObservation", "FourPackState", "GameEnd",
    "LaidDown", "MemoryBot", "RandomBot", "Rules",
]
