"""Type stubs for the compiled Four Color rule-based player (see ``_bots.pyx``)."""

from typing import Any

def fc_hand_value(counts: Any, exposed_points: int = 0, threshold: int = 10) -> int: ...
def fc_greedy_choose(hand: Any, exposed_points: int, threshold: int, offer_card: int, from_discard: bool,
                     legal: Any) -> int: ...
