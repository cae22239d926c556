"""Four Pack players."""

from __future__ import annotations

from collections.abc import Container, Sequence

from ..bots import RandomBot
from .game import FourPackObservation, card_knowledge
from ..engine import check_to_act, checked_legal
from ..errors import InvalidTypeError

__all__ = ["RandomBot", "MemoryBot", "memory_choice"]


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
        if not isinstance(observation, FourPackObservation):
            raise InvalidTypeError(f"observation must be a Four Pack observation, not {type(observation).__name__}")
        check_to_act(observation)
        legal_actions = checked_legal(legal_actions, observation=observation)
        legal = set(int(a) for a in legal_actions)
        players = len(observation.hand_sizes)
        knowledge = card_knowledge(observation.asks, players)
        seen = [row.index(1) if 1 in row else -1 for row in knowledge]
        lacking = [sum(1 << p for p in range(players) if row[p] == -1) for row in knowledge]
        choice = memory_choice(observation.player, observation.hand_mask, observation.hand_sizes, seen, lacking,
                               legal)
        return choice if choice >= 0 else min(legal)

    def __repr__(self) -> str:
        return "MemoryBot()"


def memory_choice(me: int, hand: int, sizes: Sequence[int], seen: Sequence[int], lacking: Sequence[int],
                  legal: Container[int]) -> int:
    """:class:`MemoryBot`'s choice from what it remembers: per card, the seat it
    was last seen going to (``seen``, -1: none) and the seats asked for it that
    lacked it since (``lacking``, bits); ``legal`` the legal actions (anything
    answering ``in``). -1 when it asks for no card of a family it holds (then
    :class:`MemoryBot` takes the lowest legal action)."""
    players = len(sizes)
    held = [bin(hand >> (4 * f) & 0b1111).count("1") for f in range(8)]
    # Families I hold, most cards first; the cards of each I lack.
    for family in sorted((f for f in range(8) if held[f]), key=lambda f: (-held[f], f)):
        wanted = [c for c in range(4 * family, 4 * family + 4) if not hand >> c & 1]
        for code in wanted:
            holder = seen[code]
            if holder >= 0 and holder != me and holder * 32 + code in legal:
                return holder * 32 + code
        best: tuple[int, int] | None = None
        for code in wanted:
            if seen[code] == me:
                continue
            for p in range(players):
                action = p * 32 + code
                if action not in legal or lacking[code] >> p & 1:
                    continue
                if best is None or (sizes[p], -p) > (sizes[best[0]], -best[0]):
                    best = (p, code)
        if best is not None:
            return best[0] * 32 + best[1]
    return -1
