"""Gang of Four: cards, combinations, legal plays and the action space.

>>> from fourcards.gangoffour import classify, legal_plays
>>> str(classify("y4 g3 r5 g6 y7"))
'Y7 G6 R5 Y4 G3'
>>> len(legal_plays("G1 G1 Y1 R1 M1 RD"))
24
>>> from fourcards.gangoffour import GangOfFour
>>> GangOfFour(players=3).num_players
3
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._deck import PAD
from .cards import DECK, KINDS, Card, CardsLike, format_cards, hand_mask, mask_cards, parse_cards
from .combos import (
    NO_TABLE,
    NUM_ACTIONS,
    Combo,
    ComboKind,
    ComboLike,
    action_to_combo,
    all_combos,
    beats,
    classify,
    classify_batch,
    classify_mask,
    combo_to_action,
    legal_actions,
    legal_mask,
    legal_plays,
    penalty,
)

__all__ = [
    "Card", "CardsLike", "Combo", "ComboKind", "ComboLike", "DECK", "KINDS", "NO_TABLE",
    "NUM_ACTIONS", "PAD", "action_to_combo", "all_combos", "beats", "classify",
    "classify_batch", "classify_mask", "combo_to_action", "format_cards", "hand_mask",
    "legal_actions", "legal_mask", "legal_plays", "mask_cards", "parse_cards", "penalty",
    "GangOfFour", "MatchState", "Rules", "GreedyBot", "RandomBot", "SearchBot", "LearnedBot", "simulate_many",
    "deal_codes",
]

# The game, its bots and the simulator, at the top like the other games (loaded on first use).
_LAZY = {"GangOfFour": ".match", "MatchState": ".match", "Rules": ".match", "GreedyBot": ".bots",
         "RandomBot": ".bots", "SearchBot": ".bots", "LearnedBot": ".learned", "simulate_many": ".simulate",
         "deal_codes": ".deal"}
# (``simulate`` itself stays in ``fourcards.gangoffour.simulate``: the module has that name.)
if TYPE_CHECKING:
    from .bots import GreedyBot, RandomBot, SearchBot
    from .deal import deal_codes
    from .learned import LearnedBot
    from .match import GangOfFour, MatchState, Rules
    from .simulate import simulate_many


__getattr__ = lazy_exports(globals(), _LAZY)

