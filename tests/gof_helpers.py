"""Helpers for Gang of Four match tests: stacked deals and scripted play."""

from __future__ import annotations

from collections import Counter
from typing import Any

from fourcards.gangoffour import DECK, Card, parse_cards
from fourcards.gangoffour.match import GangOfFour, MatchState


def stack(*hands: str, players: int = 4, spare: str = "") -> list[list[Card]]:
    """A deal: the given hands, completed to 16 cards from the rest of the deck
    (low cards first, skipping ``spare``, which stays set aside when players < 4)."""
    left = Counter(DECK)
    given = [parse_cards(h) for h in hands] + [[] for _ in range(players - len(hands))]
    for hand in given:
        left.subtract(hand)
    left.subtract(parse_cards(spare))
    assert all(v >= 0 for v in left.values()), "a card is given twice"
    pool = sorted(left.elements())
    out = []
    for hand in given:
        need = 16 - len(hand)
        out.append(sorted(hand + pool[:need]))
        pool = pool[need:]
    return out


def match(*hands: str, seed: int = 1, spare: str = "", **rules: Any) -> MatchState:
    players = int(rules.get("players", 4))
    game = GangOfFour(**rules)
    return game.new_match(seed, deals=[stack(*hands, players=players, spare=spare)])


def moves(state: MatchState, *steps: str) -> None:
    """Apply steps: 'pass', 'give G2', or cards; a trailing '!' announces."""
    for step in steps:
        if step == "pass":
            state.pass_()
        elif step.startswith("give "):
            state.give_back(step[5:])
        else:
            state.play(step.rstrip("!").strip(), announce=step.endswith("!"))
