"""The Four Pack search player: information-set Monte Carlo with memory playouts.

The player to ask knows its own hand and every ask and answer so far (all
public). :func:`state_of` rebuilds from its observation a state with that
knowledge (the cards seen changing hands where they went, the families laid
down and when), and :class:`SearchBot` searches over the states it cannot
tell apart (:class:`fourcards.search.RootSearch`): each iteration deals the
unseen cards again (:meth:`fourcards.engine.State.information_set`: never to a
seat known to lack them), asks one of its legal questions, and plays the
match out with the rule-based player in every seat
(:func:`~fourcards.fourpack.bots.memory_choice`, from what that seat has
seen), scoring the seat's share of the win, with the families it laid down
beside the best other seat's as a tie-break.

>>> from fourcards.fourpack.game import FourPack
>>> game = FourPack()
>>> state = game.new_match(4)
>>> bot = SearchBot(game, seed=1, iterations=30)
>>> action = bot.choose(state.observation(state.current_player), state.legal_actions())
>>> action in state.legal_actions(), sum(visits for _, visits, _ in bot.last_statistics) >= 30
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..decks import FAMILIES
from ..engine import InformationSet, State, check_flag, check_to_act, checked_legal
from ..errors import FourCardsError, InvalidTypeError
from ..rng import Rng
from ..sampling import SamplingCostError
from ..search import PairedSearch, RootSearch, SearchPlayer, check_allowed, check_budget, check_game, int_option
from .bots import MemoryBot, memory_choice
from .game import FAMILY_MASK, FourPack, FourPackObservation, FourPackState, LaidDown

__all__ = ["SearchBot", "state_of"]


def state_of(game: FourPack, observation: FourPackObservation) -> FourPackState:
    """A state whose information set for the observer is the observer's own: its
    hand, the public asks (with the families laid down after them), each card
    seen changing hands where it went; the other cards are placed arbitrarily
    (sample the information set to deal them). Raises :class:`FourCardsError`
    for an observation no match can show."""
    n = len(observation.hand_sizes)
    if n != game.num_players:
        raise FourCardsError(f"the observation shows {n} seats; this game has {game.num_players}")
    me = observation.player
    down = [sum(1 << FAMILIES.index(f) for f in families) for families in observation.families_down]
    laid = 0
    for bits in down:
        laid |= sum(FAMILY_MASK[f] for f in range(8) if bits >> f & 1)
    where = [-1] * 32  # the seat each card seen changing hands went to last
    last_taken: dict[tuple[int, int], int] = {}  # (seat, family) -> index of its last ask taking a card of it
    seen, lacking = [-1] * 32, [0] * 32
    for index, ask in enumerate(observation.asks):
        code = ask.card.code
        if ask.success:
            where[code] = seen[code] = ask.asker
            lacking[code] = 0
            last_taken[(ask.asker, code // 4)] = index
        else:
            lacking[code] |= 1 << ask.target
    hands = [0] * n
    hands[me] = observation.hand_mask
    for code in range(32):
        if where[code] >= 0 and not laid >> code & 1 and where[code] != me:
            hands[where[code]] |= 1 << code
    known = laid | observation.hand_mask | sum(1 << c for c in range(32) if where[c] >= 0)
    pool = [c for c in range(32) if not known >> c & 1]
    for seat in range(n):
        if seat == me:
            continue
        need = observation.hand_sizes[seat] - hands[seat].bit_count()
        if need < 0 or need > len(pool):
            raise FourCardsError(f"seat {seat}'s hand size does not follow from the asks")
        hands[seat] |= sum(1 << c for c in pool[:need])
        pool = pool[need:]
    # the history: the asks, each family laid down after the ask that completed it
    # (or, for a family its seat never asked a card of, before them all)
    laid_after: dict[int, list[LaidDown]] = {}
    records: list[Any] = []
    for seat in range(n):
        for f in range(8):
            if down[seat] >> f & 1:
                record = LaidDown(seat, FAMILIES[f])
                taken = last_taken.get((seat, f))
                if taken is None:
                    records.append(record)
                else:
                    laid_after.setdefault(taken, []).append(record)
    for index, ask in enumerate(observation.asks):
        records.append(ask)
        records += laid_after.get(index, [])
    state: FourPackState = object.__new__(FourPackState)
    State.__init__(state, game, 0)
    state._hands, state._down, state._current = hands, down, observation.current_player
    state._over = state._limit = False
    state._winners = ()
    state._seen, state._lacking = seen, lacking
    node: Any = None
    for ask in observation.asks:
        node = (ask, node)
    state._asks = node
    log: Any = None
    for record in records:
        log = (record, log)
    state._log = log
    state._step = len(observation.asks)
    return state


class _Askable:
    """The seats the seat to act may ask (``in``: an action whose target is another
    seat with cards; what :func:`memory_choice` tests of the cards it wants)."""

    __slots__ = ("hands", "seat")

    def __init__(self, hands: list[int]) -> None:
        self.hands, self.seat = hands, -1

    def __contains__(self, action: object) -> bool:
        target = int(action) >> 5  # type: ignore[call-overload]
        return bool(target != self.seat and self.hands[target] != 0)


def playout(world: FourPackState, me: int, limit: int) -> float:
    """Play ``world`` out with :func:`~fourcards.fourpack.bots.memory_choice` in
    every seat (at most ``limit`` asks); the seat's score in [0, 1]: its share of
    the win, and a tenth for its families against the best other seat's."""
    hands = world._hands
    askable = _Askable(hands)
    for _ in range(limit):
        if world._over:
            break
        seat = askable.seat = world._current
        sizes = [h.bit_count() for h in hands]
        action = memory_choice(seat, hands[seat], sizes, world._seen, world._lacking, askable)
        if action < 0:
            action = min(world._legal_actions())
        world._step += 1  # as apply() counts it (the ask limit)
        world._apply(action)
    families = [d.bit_count() for d in world._down]
    mine = families[me]
    best_other = max(f for seat, f in enumerate(families) if seat != me)
    winners = world._winners if world._over else tuple(p for p, f in enumerate(families) if f == max(families))
    share = 1.0 / len(winners) if me in winners else 0.0
    return 0.9 * share + 0.1 * (0.5 + (mine - best_other) / 16)


#: Draws to find one deal where every asker held the family it asked for, before the
#: search gives that assumption up for a decision.
_NARROW_TRIES = 200


class SearchBot(SearchPlayer):
    """Information-set Monte Carlo search over memory playouts (see the module).

    ``iterations`` playouts a call (repeatable), else ``time_per_move`` seconds;
    ``exploration`` UCB1's constant; ``limit`` asks a playout plays at most;
    ``probes`` deals drawn first to set aside asks that fail in all of them.
    One bot may be shared by threads (its searches take turns)."""

    def __init__(self, game: FourPack, seed: int = 0, iterations: int | None = None, time_per_move: float | None = None,
                 exploration: float = 0.5, limit: int = 400, probes: int = 24, paired: bool = False,
                 askers_hold: bool = True) -> None:
        self.iterations, self.time_per_move, self.exploration = check_budget(iterations, time_per_move,
                                                                             exploration, 0.05)
        check_game(game, FourPack, "Four Pack")
        self.limit, self.probes = int_option(limit, "limit", 1, 100_000), int_option(probes, "probes", 1, 10_000)
        self.paired, self.askers_hold = check_flag(paired, "paired"), check_flag(askers_hold, "askers_hold")
        self.game = game
        self.rng = Rng(seed)
        SearchPlayer.__init__(self)
        self.last_statistics: list[tuple[int, int, float]] = []

    def choose(self, observation: FourPackObservation, legal_actions: Sequence[int]) -> int:
        """The question to ask. On its clock (``time_per_move``) the search never runs past
        it by more than one playout: when the clock is up before every question had a
        playout (a table of many seats), or a deal cannot be drawn in time, it asks the
        rule bot's question (:func:`~fourcards.fourpack.bots.memory_choice`), as it does
        when no deal can be drawn within the sampler's bounds (:mod:`fourcards.sampling`)."""
        if not isinstance(observation, FourPackObservation):
            raise InvalidTypeError(f"observation must be a Four Pack observation, not {type(observation).__name__}")
        legal_actions = checked_legal(legal_actions, self.game.num_distinct_actions, observation)
        check_to_act(observation)
        with self._lock:
            legal = [int(a) for a in legal_actions]
            position = state_of(self.game, observation)
            check_allowed(legal, position, observation.player)  # before any draw: a refusal changes nothing
            if len(legal) == 1:
                return legal[0]
            deadline = None if self.iterations is not None else time.perf_counter() + self.time_per_move
            try:
                return self._search(observation, position, legal, deadline)
            except SamplingCostError:  # out of time, or a deal too large to count (the same every time)
                self.last_statistics = []
                return self._rule_choice(observation, legal)

    def _search(self, observation: FourPackObservation, position: FourPackState, legal: list[int],
                deadline: float | None) -> int:
        me = observation.player
        hand = observation.hand_mask
        every = legal
        information = self._information(position, me, deadline)
        # Asks worth a playout: cards of families it holds, from a seat that may hold
        # them in some deal of the information set (an ask that fails everywhere only
        # passes the turn: kept when nothing else is left).
        legal = [a for a in legal if hand & FAMILY_MASK[a % 32 // 4]] or legal
        probes = []
        for _ in range(self.probes):
            probes.append(information.sample(self.rng, deadline)._hands)
            if deadline is not None and time.perf_counter() > deadline:
                break
        hopeful = [a for a in legal if any(hands[a >> 5] >> (a & 31) & 1 for hands in probes)]
        legal = hopeful or legal
        search = (PairedSearch if self.paired else RootSearch)(
            lambda rng: information.sample(rng, deadline), legal,
            lambda world, rng: playout(world, me, self.limit), self.rng, self.exploration)
        remaining = None if deadline is None else max(0.0, deadline - time.perf_counter())
        search.run(self.iterations, self.time_per_move if remaining is None else remaining)
        self.last_statistics = search.statistics()
        if isinstance(search, RootSearch) and not search.complete:
            return self._rule_choice(observation, every)
        return search.best()

    def _rule_choice(self, observation: FourPackObservation, legal: list[int]) -> int:
        """The memory bot's question (the search's fallback)."""
        return int(MemoryBot().choose(observation, legal))  # it keeps nothing between choices

    def _information(self, surrogate: FourPackState, me: int,
                     deadline: float | None = None) -> InformationSet[FourPackState]:
        """The seat's information set; with ``askers_hold``, narrowed to the deals where
        every asker held a card of the family it asked for, unless no such deal turns up
        in a few draws (a seat that asks for families it does not hold, as the rules may
        allow): then the rules' own."""
        if self.askers_hold and not self.game.rules.must_hold_family:
            try:
                narrowed = InformationSet(surrogate, me, *surrogate._information_set(me, askers_hold=True))
                deal = narrowed.deal
                if deal is not None:
                    deal.deadline = deadline
                try:
                    for _ in range(_NARROW_TRIES):
                        if deal is None:
                            return narrowed
                        if deal.draw_once(self.rng) is not None:  # also finds a narrowing no deal meets
                            return narrowed
                        if deadline is not None and time.perf_counter() > deadline:
                            break
                finally:
                    if deal is not None:
                        deal.deadline = None
            except SamplingCostError:  # out of time: the search gives way to the rule bot
                raise
            except FourCardsError:  # bounds no deal meets
                pass
        return InformationSet(surrogate, me, *surrogate._information_set(me))

