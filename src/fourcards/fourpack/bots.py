"""Four Pack players."""

from __future__ import annotations

from collections.abc import Sequence

from ..bots import RandomBot
from .game import FourPackObservation, card_knowledge

__all__ = ["RandomBot", "MemoryBot"]


class MemoryBot:
    """Remembers every card it has seen change hands and every failed ask.

    It asks for cards of the families it holds most of: first a card whose
    holder it knows (it was last seen going to them), else the seat most
    likely to hold it — one not known to lack it, with the most cards.
    Everything it uses is public (the asks and their answers) or its own hand.
    """

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def choose(self, observation: FourPackObservation, legal_actions: Sequence[int]) -> int:
        if not legal_actions:
            raise ValueError("no legal action to choose from")
        legal = set(int(a) for a in legal_actions)
        me, sizes = observation.player, observation.hand_sizes
        players = len(sizes)
        hand = observation.hand_mask
        knowledge = card_knowledge(observation.asks, players)
        held = [bin(hand >> (4 * f) & 0b1111).count("1") for f in range(8)]
        # Families I hold, most cards first; the cards of each I lack.
        for family in sorted((f for f in range(8) if held[f]), key=lambda f: (-held[f], f)):
            wanted = [c for c in range(4 * family, 4 * family + 4) if not hand >> c & 1]
            for code in wanted:
                holders = [p for p in range(players) if knowledge[code][p] == 1 and p != me]
                for p in holders:
                    if p * 32 + code in legal:
                        return p * 32 + code
            best: tuple[int, int] | None = None
            for code in wanted:
                for p in range(players):
                    action = p * 32 + code
                    if action not in legal or knowledge[code][p] == -1:
                        continue
                    if knowledge[code][me] == 1:
                        continue
                    key = (sizes[p], -p)
                    if best is None or key > (sizes[best[0]], -best[0]):
                        best = (p, code)
            if best is not None:
                return best[0] * 32 + best[1]
        return min(legal)

    def __repr__(self) -> str:
        return "MemoryBot()"
