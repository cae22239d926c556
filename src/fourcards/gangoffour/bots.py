"""Gang of Four players on the shared bot protocol (``choose(observation, legal_actions)``).

>>> from fourcards.engine import play_match
>>> from fourcards.gangoffour.match import GangOfFour
>>> state = play_match(GangOfFour(target_score=30).new_match(3),
...                    [GreedyBot(), RandomBot(1), RandomBot(2), RandomBot(3)])
>>> state.is_terminal
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import threading
from typing import Any

from ..bots import RandomBot
from ..errors import FourCardsError, InvalidTypeError
from ..rng import Rng
from ..search import check_budget, run_compiled
from . import _deck, _kernels
from .match import GIVE_BACK, PHASE_NAMES, Observation, legal_for, with_announcement

__all__ = ["RandomBot", "GreedyBot", "SearchBot"]


class GreedyBot:
    """The rule-based player: sheds low cards first, keeps gangs and phoenixes
    for when they matter, plays hard-to-beat leads when an opponent is about to
    go out, and gives back a lone low card.  It calls the same policy code as
    the compiled simulator (``fourcards.gangoffour._bots.greedy_choose``; see
    ``_reference.greedy_choose`` for the rules it follows)."""

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int:
        legal = np.asarray(legal_for(observation, legal_actions), dtype=np.int32)
        table = -1 if observation.table is None else observation.table.action
        phase = 1 if observation.phase == PHASE_NAMES[GIVE_BACK] else 0
        return int(_kernels.greedy_choose(
            observation.hand_mask, table, phase, observation.player, observation.hand_sizes, legal
        ))

    def __repr__(self) -> str:
        return "GreedyBot()"


def known_cards(observation: Observation) -> list[int]:
    """Per seat, a canonical mask of cards the observer knows that seat holds:
    the exchange's cards, while no card of their kind has been played this
    round (the observer's own seat: nothing, they see their hand)."""
    known = [0] * len(observation.hand_sizes)
    exchange = observation.exchange
    if exchange is None:
        return known
    played = {card.code for card in observation.played}
    facts = []
    if exchange.returned is None or exchange.returned != exchange.given:
        facts.append((exchange.winner, exchange.given.code))
    if exchange.returned is not None:
        facts.append((exchange.loser, exchange.returned.code))
    for seat, code in facts:
        if not isinstance(seat, int) or not 0 <= seat < len(known):
            raise FourCardsError(f"exchange seat {seat!r} is not a seat (0..{len(known) - 1})")
        if seat != observation.player and code not in played:
            known[seat] = _deck.canonical_from_sum(known[seat] - ((known[seat] >> 1) & _deck.PAIR_LO)
                                                   + _deck.BIT[code])
    return known


class SearchBot:
    """Information-set Monte Carlo tree search with determinization.

    Each iteration deals the cards the bot cannot see to the other seats,
    consistently with everything it has seen (cards played this round, hand
    sizes, the exchanged cards), walks a tree over its information set (UCB
    with availability counts over the actions legal in that deal), and plays
    the round out with the rule-based policy; rewards are round penalties
    relative to the other seats.  Determinization, playouts and the tree live
    in C (``fourcards.gangoffour._search.GofSearch``), without the GIL.

    The budget is ``iterations`` per move, or ``time_per_move`` seconds.
    The give-back uses the rule-based choice.  ``exploration`` (the UCB
    constant) is a finite number 0..1000; ``capacity`` (tree nodes, 40 bytes
    each) is 1..2**25.

    Threads: one bot may be shared, but its searches run one at a time (a lock
    inside serialises concurrent ``choose`` calls); for parallel search give
    each thread its own bot.
    """

    #: It decides from the observation and its seed alone: a host may make it again for each decision.
    stateless = True

    def __init__(self, seed: int = 0, iterations: int | None = None, time_per_move: float | None = None,
                 exploration: float = 0.7, capacity: int = 200_000) -> None:
        iterations, time_per_move, exploration = check_budget(iterations, time_per_move, exploration, 0.02)
        if not isinstance(capacity, int) or isinstance(capacity, bool):
            raise InvalidTypeError(f"capacity must be an int, not {type(capacity).__name__}")
        if not 1 <= capacity <= 1 << 25:
            raise FourCardsError(f"capacity={capacity} must be 1..2**25 tree nodes")
        if _kernels.search is None:
            raise RuntimeError("SearchBot needs the compiled core (FOURCARDS_NO_EXTENSIONS is set "
                               "or the extension did not build)")
        self.rng = Rng(seed)
        self.iterations = iterations
        self.time_per_move = time_per_move
        self.exploration = float(exploration)
        self._search = _kernels.search.GofSearch(capacity)
        self._lock = threading.Lock()
        self._greedy = GreedyBot()
        self.last_statistics: list[tuple[int, int, float]] = []
        self.total_iterations = 0
        self.searched_moves = 0

    def choose(self, observation: Observation, legal_actions: Sequence[int]) -> int:
        """The action to play (one of ``legal_actions``); the observation is
        checked in full before the search starts (a ``FourCardsError`` names a
        field out of range or cards that cannot be)."""
        with self._lock:
            return self._choose(observation, legal_actions)

    def _choose(self, observation: Observation, legal_actions: Sequence[int]) -> int:
        legal_actions = legal_for(observation, legal_actions)  # checks the observation's type too
        if len(legal_actions) == 1 or observation.phase == PHASE_NAMES[GIVE_BACK]:
            return self._greedy.choose(observation, legal_actions)
        rules = observation.rules
        packed = _kernels.pack_rules(rules)
        bits = [sum(1 << p for p, flag in enumerate(flags) if flag)
                for flags in (observation.passed, observation.announced, observation.out)]
        table = -1 if observation.table is None else observation.table.action
        table_player = -1 if observation.table is None else observation.table_player
        search: Any = self._search
        search.reset(packed, observation.hand_mask, observation.player, observation.hand_sizes,
                     table, table_player, bits[0], bits[1], bits[2],
                     observation.must_lead_m1, observation.direction, observation.played_mask,
                     observation.scores, known_cards(observation), self.rng.next_u64(),
                     self.exploration)
        run_compiled(search, self.iterations, self.time_per_move, first=8, largest=64)
        self.last_statistics = search.statistics()
        self.total_iterations += search.iterations
        self.searched_moves += 1
        legal = set(int(a) for a in legal_actions)
        for action, _visits, _reward in self.last_statistics:
            if action in legal:
                return with_announcement(int(action), observation, legal)
        return self._greedy.choose(observation, legal_actions)

    def __getstate__(self) -> dict[str, Any]:
        """Everything but the lock (a new one is made on load); the search pickles whole."""
        with self._lock:
            state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        budget = f"iterations={self.iterations}" if self.iterations else f"time_per_move={self.time_per_move}"
        return f"SearchBot({budget}, exploration={self.exploration})"
