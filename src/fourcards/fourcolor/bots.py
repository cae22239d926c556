"""Four Color Cards players."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from ..bots import RandomBot
from . import _deck, _kernels
from .game import CLAIM_BASE, HU, MELDS, PASS, FourColorObservation

__all__ = ["RandomBot", "GreedyBot", "hand_value"]


@cache
def _covered(block: tuple[int, ...], soldiers: bool) -> tuple[int, int]:
    """(cards covered by complete melds, near-melds) of a block, at best: the
    lowest card is either left out or put in a meld that holds it.  Near-melds
    are two cards of a command or field set, or two soldiers of two colours."""
    first = next((i for i, n in enumerate(block) if n), -1)
    if first < 0:
        return (0, 0)
    rest = list(block)
    rest[first] -= 1
    skip = _covered(tuple(rest), soldiers)
    best = (skip[0], skip[1] + _near(block, first, soldiers))
    for take in _block_melds(first, soldiers):
        after = list(block)
        ok = True
        for index, n in take:
            after[index] -= n
            ok = ok and after[index] >= 0
        if ok:
            sub = _covered(tuple(after), soldiers)
            value = (sub[0] + sum(n for _, n in take), sub[1])
            if value > best:
                best = value
    return best


def _near(block: tuple[int, ...], first: int, soldiers: bool) -> int:
    if soldiers:
        return 1 if sum(1 for n in block if n) >= 2 else 0
    if first in (0, 1, 2):
        return 1 if sum(1 for r in (0, 1, 2) if block[r]) >= 2 else 0
    if first in (3, 4, 5):
        return 1 if sum(1 for r in (3, 4, 5) if block[r]) >= 2 else 0
    return 0


@cache
def _block_melds(first: int, soldiers: bool) -> tuple[tuple[tuple[int, int], ...], ...]:
    if soldiers:  # index = colour
        melds: list[tuple[tuple[int, int], ...]] = [((first, 3),), ((first, 4),)]
        others = [c for c in range(first + 1, 4)]
        for a in others:
            for b in others:
                if a < b:
                    melds.append(((first, 1), (a, 1), (b, 1)))
        if first == 0:
            melds.append(((0, 1), (1, 1), (2, 1), (3, 1)))
        return tuple(melds)
    if first == 0:
        return (((0, 1),), ((0, 4),), ((0, 1), (1, 1), (2, 1)))
    pairs: list[tuple[tuple[int, int], ...]] = [((first, 2),), ((first, 3),), ((first, 4),)]
    if first == 3:
        pairs.append(((3, 1), (4, 1), (5, 1)))
    return tuple(pairs)


def _shape(counts: list[int]) -> int:
    """How much of a hand already hangs together: cards in melds, and near-melds."""
    covered = near = 0
    for colour in range(4):
        c, n = _covered(tuple(counts[colour * 7:colour * 7 + 6]), False)
        covered, near = covered + c, near + n
    c, n = _covered(tuple(counts[colour * 7 + 6] for colour in range(4)), True)
    return 10 * (covered + c) + 3 * (near + n)


def hand_value(counts: list[int], exposed_points: int = 0, threshold: int = 10) -> float:
    """The rule-based player's worth of a 20-card concealed hand: completing
    cards (waits) that score the threshold first, then any waits and points,
    else how much hangs together."""
    waits = good = 0
    best = 0
    for code in range(_deck.NUM_KINDS):
        if counts[code] >= 4:
            continue
        counts[code] += 1
        points = int(_kernels.best_points(counts, -1))
        counts[code] -= 1
        if points >= 0:
            waits += 1
            total = points + exposed_points
            good += total >= threshold - 1  # a lucky card may make up one point
            best = max(best, total)
    if waits:
        return 1000.0 + 60.0 * good + 10.0 * waits + best
    return float(_shape(counts))


class GreedyBot:
    """Keeps the hand with the most ways to complete it (and the most points),
    else the one that hangs together best; claims a card when the hand after
    the claim and its discard is worth more; calls hu only when the win reaches
    the threshold (a win below it is a false win that pays everyone)."""

    def choose(self, observation: FourColorObservation, legal_actions: Sequence[int]) -> int:
        legal = [int(a) for a in legal_actions]
        if not legal:
            raise ValueError("no legal action to choose from")
        hand = list(observation.hand)
        exposed_points = sum(_deck.POINTS[_deck.meld_kind(m)][0] for m in observation.exposed[observation.player])
        if observation.phase == "discard":
            threshold = observation.rules.threshold
            return max(legal, key=lambda d: (self._after_discard(hand, d, exposed_points, threshold), -d))
        offer = observation.offer
        assert offer is not None
        if HU in legal:
            counts = list(hand)
            counts[offer.card] += 1
            from_discard = offer.source != "turned" or offer.player != observation.player
            points = int(_kernels.best_points(counts, offer.card if from_discard else -1)) + exposed_points
            if points >= observation.rules.threshold or PASS not in legal:
                return HU
        claims = [a for a in legal if a >= CLAIM_BASE]
        if not claims:
            return PASS if PASS in legal else legal[0]
        threshold = observation.rules.threshold
        keep = hand_value(hand, exposed_points, threshold) if PASS in legal else float("-inf")
        best_action, best_value = (PASS if PASS in legal else claims[0]), keep
        for action in claims:
            meld = list(MELDS[action - CLAIM_BASE])
            meld.remove(offer.card)
            after = list(hand)
            for k in meld:
                after[k] -= 1
            points = exposed_points + _deck.POINTS[_deck.meld_kind(MELDS[action - CLAIM_BASE])][0]
            discards = [k for k in range(_deck.NUM_KINDS) if after[k] and k % 7 != _deck.GENERAL]
            value = max((self._after_discard(after, d, points, threshold) for d in discards), default=1000.0)
            if value < 1000.0:  # not ready yet: the exposed meld's cards hang together too
                value += 10.0 * len(MELDS[action - CLAIM_BASE])
            if value > best_value:
                best_action, best_value = action, value
        return best_action

    @staticmethod
    def _after_discard(hand: list[int], discard: int, exposed_points: int, threshold: int) -> float:
        hand[discard] -= 1
        try:
            return hand_value(hand, exposed_points, threshold)
        finally:
            hand[discard] += 1

    def __repr__(self) -> str:
        return "GreedyBot()"
