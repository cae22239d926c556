"""Four Color Cards players.

The rule-based players decide in the compiled core (``fc_greedy_choose``,
``fc_lookahead_choose``); ``fourcards.fourcolor._reference.greedy_choose`` and
``lookahead_choose`` are their pure-Python twins, and the tests check that they
choose alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from ..bots import RandomBot
from ..engine import check_to_act, checked_legal
from ..errors import FourCardsError, IllegalMoveError, InvalidTypeError
from . import _deck, _kernels, _variants
from .game import HU, NUM_ACTIONS, PASS, FourColorObservation

__all__ = ["RandomBot", "GreedyBot", "LookaheadBot", "hand_value", "unseen_counts"]


def hand_value(counts: Sequence[int], exposed_points: int = 0, threshold: int = 10) -> float:
    """The rule-based player's worth of a concealed hand (28 counts): completing
    cards (waits) that score the threshold first, then any waits and points,
    else how much hangs together."""
    return float(_kernels.hand_value(list(counts), exposed_points, min(threshold, 1 << 30)))


def _legal_and_points(observation: FourColorObservation, legal_actions: Sequence[int]) -> tuple[list[int], int, int]:
    """The legal actions as ints (a float or a bool refused, never truncated), the
    seat's exposed points and the threshold as the kernels take it (no hand scores
    near 2**30: the same choices)."""
    if not isinstance(observation, FourColorObservation):
        raise InvalidTypeError(f"observation must be a Four Color observation, not {type(observation).__name__}")
    check_to_act(observation)
    legal = checked_legal(legal_actions, NUM_ACTIONS, observation)
    exposed_points = sum(_deck.POINTS[_deck.meld_kind(m)][0] for m in observation.exposed[observation.player])
    return legal, exposed_points, min(observation.rules.threshold, 1 << 30)


@contextlib.contextmanager
def _legal_for_the_hand() -> Iterator[None]:
    """A kernel's refusal of a legal action the observation's hand cannot play (a discard of a
    card it lacks, a claim without its cards) as an :class:`IllegalMoveError` naming it."""
    try:
        yield
    except FourCardsError:
        raise
    except ValueError as refused:
        raise IllegalMoveError(f"the legal actions do not fit the observation: {refused}") from None


class GreedyBot:
    """Keeps the hand with the most ways to complete it (and the most points),
    else the one that hangs together best; claims a card when the hand after
    the claim and its discard is worth more; calls hu only when the win reaches
    the threshold (a win below it is a false win that pays everyone)."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def choose(self, observation: FourColorObservation, legal_actions: Sequence[int]) -> int:
        legal, exposed_points, threshold = _legal_and_points(observation, legal_actions)
        offer = observation.offer
        if observation.phase == "discard" or offer is None:
            card, from_discard = -1, False
        else:
            card = offer.card
            from_discard = offer.source != "turned" or offer.player != observation.player
        if card >= 0 and HU in legal and not observation.rules.same_colour_soldiers:
            # Soldiers of one colour form no triple or quad: the hu's points under that reading
            # (the compiled simulator decides the same way, in _sim_strict_hu)
            counts = list(observation.hand)
            counts[card] += 1
            points = _variants.points(counts, card if from_discard else -1, False) + exposed_points
            if points >= threshold or PASS not in legal:
                return HU
            legal = [a for a in legal if a != HU]
        with _legal_for_the_hand():
            return int(_kernels.greedy_choose(list(observation.hand), exposed_points, threshold, card, from_discard,
                                              legal))

    def __repr__(self) -> str:
        return "GreedyBot()"


def unseen_counts(observation: FourColorObservation) -> list[int]:
    """How many copies of each card (28 counts) the seat cannot see: not in its
    hand, an exposed meld, the discards or on offer.

    >>> from fourcards.fourcolor.game import FourColor
    >>> obs = FourColor(players=4).new_match(seed=1).observation(0)
    >>> sum(unseen_counts(obs)) == 112 - 21
    True
    """
    left = [_deck.COPIES - count for count in observation.hand]
    for melds in observation.exposed:
        for meld in melds:
            for code in meld:
                left[code] -= 1
    for code in observation.discards:
        left[code] -= 1
    if observation.offer is not None:
        left[observation.offer.card] -= 1
    return [max(0, count) for count in left]


class LookaheadBot(GreedyBot):
    """GreedyBot, but it discards looking one card ahead: the discard after which
    the hand is worth the most once the next card comes, on average over the
    cards it has not seen (a hand that card completes with the threshold's
    points above any other). Its claims and hu are GreedyBot's."""

    stateless = True

    def choose(self, observation: FourColorObservation, legal_actions: Sequence[int]) -> int:
        if not isinstance(observation, FourColorObservation):
            raise InvalidTypeError(f"observation must be a Four Color observation, not {type(observation).__name__}")
        if observation.phase != "discard" or observation.offer is not None:
            return GreedyBot.choose(self, observation, legal_actions)
        legal, exposed_points, threshold = _legal_and_points(observation, legal_actions)
        with _legal_for_the_hand():
            return int(_kernels.lookahead_choose(list(observation.hand), exposed_points, threshold,
                                                 unseen_counts(observation), legal))

    def __repr__(self) -> str:
        return "LookaheadBot()"
