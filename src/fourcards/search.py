"""Search on the game contract: information-set Monte Carlo over determinizations.

What every game's search bot (``search`` in :mod:`fourcards.games`) shares
when its simulator is the Python engine. The seat to act knows its
information set (:meth:`fourcards.engine.State.information_set`, or a game's
``information_set_of(observation)``); each iteration of :class:`RootSearch`
draws one state of it (a *determinization*: the hidden cards dealt again
uniformly among the deals consistent with what the seat saw), picks one of
the seat's legal actions by UCB1 (Auer et al., 2002; the actions not tried
yet first, in a random order), applies it and plays on with the game's rule
bot in every seat (the *playout*), to the end of the match or a horizon, and
scores the result for the seat in [0, 1]. The action chosen is the one tried
most often (ties: the best mean). Each determinization is a fresh deal, so the
statistics average over what the seat cannot see instead of fixing one guess
(the search never looks at the real hidden cards: it only holds the
information set).

The budget is a number of iterations (``iterations``: the same choice on
every machine, for repeatable results) or a time (``time_per_move`` seconds),
checked between iterations.

>>> from fourcards.games import get_game
>>> from fourcards.rng import Rng
>>> game = get_game("duelo").new_game()
>>> state = game.new_match(1)
>>> search = RootSearch(state.information_set(state.current_player).sample, state.legal_actions(),
...                     lambda world, rng: float(world.current_player == 0), Rng(3))
>>> search.run(iterations=20)
20
>>> sum(visits for _, visits, _ in search.statistics())
20
"""

from __future__ import annotations

import math
import numbers
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .engine import check_real
from .errors import FourCardsError, IllegalMoveError, InvalidTypeError
from .rng import Rng

__all__ = ["SearchPlayer", "run_compiled", "RootSearch", "Budget", "check_budget", "check_allowed", "check_game",
           "int_option", "number_option", "word_option"]


#: The longest a search may be given to choose one move (an hour).
MAX_TIME_PER_MOVE = 3600.0


def check_budget(iterations: Any, time_per_move: Any, exploration: Any = 0.7,
                 default_time: float = 0.05) -> tuple[int | None, float, float]:
    """A search bot's budget checked: ``iterations`` an int 1..2**31-1, or
    ``time_per_move`` a positive finite number of seconds (None:
    ``default_time``), never both; ``exploration`` a finite number 0..1000.
    TypeError for a wrong type, :class:`FourCardsError` out of range.

    >>> check_budget(None, None, default_time=0.02)
    (None, 0.02, 0.7)
    >>> check_budget(100, 0.05)
    Traceback (most recent call last):
    ...
    fourcards.errors.FourCardsError: give iterations=100 (repeatable) or time_per_move=0.05 (a clock), not both
    """
    if iterations is not None:
        if type(iterations) is not int:
            if not isinstance(iterations, numbers.Integral) or isinstance(iterations, (bool, np.bool_)):
                raise InvalidTypeError(f"iterations must be an int, not {type(iterations).__name__}")
            iterations = int(iterations)
        if not 1 <= iterations <= 2**31 - 1:
            raise FourCardsError(f"iterations={iterations} must be 1..2**31-1")
    if time_per_move is None:
        seconds = default_time
    else:
        seconds = check_real(time_per_move, "time_per_move")
        if not 0 < seconds <= MAX_TIME_PER_MOVE:  # NaN fails too
            raise FourCardsError(f"time_per_move={time_per_move!r} must be a number of seconds above 0 and at "
                                 f"most {MAX_TIME_PER_MOVE:g}")
        if iterations is not None:
            raise FourCardsError(f"give iterations={iterations} (repeatable) or time_per_move={time_per_move!r} "
                                 "(a clock), not both")
    explore = check_real(exploration, "exploration")
    if not 0 <= explore <= 1000:  # NaN fails too
        raise FourCardsError(f"exploration={exploration!r} must be a finite number 0..1000")
    return iterations, seconds, explore


def check_game(game: Any, game_class: type, title: str) -> None:
    """Refuse (:class:`~fourcards.errors.InvalidTypeError`) a ``game`` that is not a ``game_class``:
    a search player built directly is given the game it plays (the registry's ``new_bot`` does it)."""
    if not isinstance(game, game_class):
        raise InvalidTypeError(f"game must be a {title} game ({game_class.__module__}.{game_class.__qualname__}), "
                               f"not {type(game).__name__} {game!r:.40}")


def int_option(value: Any, name: str, low: int, high: int, optional: bool = False) -> int:
    """A search player's int option: an int ``low..high`` (numpy's too);
    :class:`~fourcards.errors.InvalidTypeError` for another type (a bool, a float), a
    :class:`FourCardsError` out of range. ``optional``: the messages say None is taken too (the
    caller passes None on).

    >>> int_option(6, "horizon", 0, 10_000)
    6
    """
    shown = f"{'None or ' if optional else ''}an int {low}..{high}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InvalidTypeError(f"{name}={value!r:.40} must be {shown}, not {type(value).__name__}")
    if not low <= value <= high:
        raise FourCardsError(f"{name}={value!r:.40} must be {shown}")
    return int(value)


def number_option(value: Any, name: str, low: float, high: float, optional: bool = False) -> float:
    """A search player's real-number option ``low..high`` (numpy's too):
    :class:`~fourcards.errors.InvalidTypeError` for another type, a :class:`FourCardsError` out of
    range (NaN too). ``optional``: as :func:`int_option`."""
    shown = f"{'None or ' if optional else ''}a number {low:g}..{high:g}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(f"{name}={value!r:.40} must be {shown}, not {type(value).__name__}")
    number = check_real(value, name)
    if not low <= number <= high:  # NaN fails this too
        raise FourCardsError(f"{name}={value!r:.40} must be {shown}")
    return number


def word_option(value: Any, name: str, words: Sequence[str]) -> str:
    """A search player's option that is one of ``words``: :class:`~fourcards.errors.InvalidTypeError`
    for another type than text, a :class:`FourCardsError` for another word."""
    if not isinstance(value, str):
        raise InvalidTypeError(f"{name}={value!r:.40} must be one of {sorted(words)}, not {type(value).__name__}")
    if value not in words:
        raise FourCardsError(f"{name}={value!r:.40} must be one of {sorted(words)}")
    return value


def check_allowed(legal: Sequence[int], position: Any, seat: int) -> None:
    """Refuse (:class:`~fourcards.errors.IllegalMoveError`) an action of ``legal`` that
    ``position`` (the state a search built from ``seat``'s observation) does not allow: a search
    calls it before it draws a deal, so that a refused call leaves its generator where it was.

    >>> from fourcards.games import get_game
    >>> state = get_game("duelo").new_game().new_match(1)
    >>> check_allowed(state.legal_actions(), state, state.current_player)
    >>> check_allowed([99], state, state.current_player)
    Traceback (most recent call last):
    ...
    fourcards.errors.IllegalMoveError: action 99 is not legal for seat 0 in this observation
    """
    allowed = set(position.legal_actions())
    for action in legal:
        if action not in allowed:
            raise IllegalMoveError(f"action {action} is not legal for seat {seat} in this observation")


class SearchPlayer:
    """What every game's search bot shares: it decides from the observation alone
    (``stateless``: a host may make it again for every turn, :mod:`fourcards.hosting`),
    its searches take turns on one lock (one bot may be shared by threads), it
    pickles without the lock (and without what :attr:`_unpicklable` names, made
    again by :meth:`_restore`), and its repr shows its budget."""

    stateless = True
    _unpicklable: tuple[str, ...] = ("_lock",)
    iterations: int | None
    time_per_move: float

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def _restore(self) -> None:
        """Make again what pickling left out (the lock; a subclass: its own too)."""
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in self._unpicklable}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._restore()

    def _options_text(self) -> str:
        return ""

    def _budget_text(self) -> str:
        """How the search is bounded, for the repr (a subclass with another bound says so)."""
        return f"iterations={self.iterations}" if self.iterations else f"time_per_move={self.time_per_move}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._budget_text()}{self._options_text()})"


def run_compiled(search: Any, iterations: int | None, time_per_move: float, first: int = 16,
                 largest: int = 128, settled: Callable[[], bool] | None = None) -> None:
    """Run a compiled search (its ``run(n)`` plays ``n`` more iterations without the GIL)
    for ``iterations``, or until ``time_per_move`` seconds are up, in batches that
    double from ``first`` to ``largest`` (the clock is read between batches). With
    ``settled``, stop sooner when it says so between two batches (with ``iterations``
    too: the batches are the same on every machine, so the result still is; the
    search must count its playouts in ``search.iterations``)."""
    if iterations is not None:
        if settled is None:
            search.run(iterations)
            return
        start, batch = search.iterations, first
        while (done := search.iterations - start) < iterations and not (done and settled()):
            search.run(min(batch, iterations - done))
            batch = min(batch * 2, largest)
        return
    deadline = time.perf_counter() + time_per_move
    batch = first
    while time.perf_counter() < deadline and not (settled is not None and settled()):
        search.run(batch)
        batch = min(batch * 2, largest)

class Budget:
    """When a search stops: after ``iterations``, or at ``time_per_move`` seconds."""

    __slots__ = ("iterations", "deadline")

    def __init__(self, iterations: int | None, time_per_move: float) -> None:
        self.iterations = iterations
        self.deadline = None if iterations is not None else time.perf_counter() + time_per_move

    def spent(self, done: int) -> bool:
        if self.iterations is not None:
            return done >= self.iterations
        assert self.deadline is not None
        return time.perf_counter() >= self.deadline


class RootSearch:
    """UCB1 over the legal actions at the root, each iteration on a fresh determinization.

    ``sample(rng)`` draws a state of the information set (the seat to act is its
    current player); ``playout(state, rng)`` plays on from the state after the
    action and scores it for that seat in [0, 1]; ``exploration`` is UCB1's
    constant."""

    def __init__(self, sample: Callable[[Rng], Any], legal: Sequence[int],
                 playout: Callable[[Any, Rng], float], rng: Rng, exploration: float = 0.7) -> None:
        if not legal:
            raise IllegalMoveError("no legal action to search")
        self.sample, self.playout, self.rng = sample, playout, rng
        self.actions = [int(a) for a in legal]
        self.visits = [0] * len(self.actions)
        self.totals = [0.0] * len(self.actions)
        self.exploration = exploration
        self.iterations = 0
        self._untried = list(range(len(self.actions)))
        rng.shuffle(self._untried)

    def _pick(self) -> int:
        if self._untried:
            return self._untried.pop()
        log_n = math.log(self.iterations)
        c = self.exploration
        best, best_score = 0, -math.inf
        for i, (n, total) in enumerate(zip(self.visits, self.totals)):
            score = total / n + c * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = i, score
        return best

    def iterate(self) -> None:
        world = self.sample(self.rng)
        i = self._pick()
        world.apply(self.actions[i])
        value = self.playout(world, self.rng)
        self.visits[i] += 1
        self.totals[i] += value
        self.iterations += 1

    def run(self, iterations: int | None = None, time_per_move: float = 0.05) -> int:
        """Iterate until the budget is spent (at least once; when timed, the clock
        wins over trying every action: :attr:`complete` says whether each was tried);
        returns the iterations done so far."""
        budget = Budget(iterations, time_per_move)
        done = 0
        while not done or not budget.spent(done):
            self.iterate()
            done += 1
        return self.iterations

    @property
    def complete(self) -> bool:
        """Whether every action has been tried at least once."""
        return not self._untried

    def statistics(self) -> list[tuple[int, int, float]]:
        """``[(action, visits, mean score)]``, most visited first."""
        rows = [(a, n, t / n if n else 0.0) for a, n, t in zip(self.actions, self.visits, self.totals)]
        rows.sort(key=lambda row: (-row[1], -row[2], row[0]))
        return rows

    def best(self) -> int:
        """The action tried most often (ties: the best mean, then the lowest action)."""
        return self.statistics()[0][0]


class PairedSearch:
    """Every action on the same determinizations, the weaker half set aside as
    rounds double (sequential halving, Karnin et al., 2013, with common random
    deals): each round draws one state of the information set and plays every
    action still in from it, so actions are compared on the same hidden cards
    (with deterministic playouts, their difference is exact on that deal).

    The same interface as :class:`RootSearch`; a budget of ``iterations``
    counts playouts. With a ``baseline`` (one of the legal actions: the rule
    bot's own choice), that action is never set aside and every other is
    compared with it on the same deals: :meth:`choice` plays another action only
    on a gain the noise does not explain. ``halve_after``: the rounds played
    before the first halving (then twice as many before each next one); a
    first cut after a couple of deals sets aside good actions on the luck of
    those deals."""

    def __init__(self, sample: Callable[[Rng], Any], legal: Sequence[int],
                 playout: Callable[[Any, Rng], float], rng: Rng, exploration: float = 0.0,
                 baseline: int | None = None, halve_after: int = 2) -> None:
        if not legal:
            raise IllegalMoveError("no legal action to search")
        if type(halve_after) is not int or halve_after < 1:
            raise FourCardsError(f"halve_after={halve_after!r} must be an int >= 1")
        self.sample, self.playout, self.rng = sample, playout, rng
        self.actions = [int(a) for a in legal]
        if baseline is not None and baseline not in self.actions:
            raise IllegalMoveError(f"the baseline {baseline} is not a legal action")
        self.baseline = None if baseline is None else self.actions.index(baseline)
        self.visits = [0] * len(self.actions)
        self.totals = [0.0] * len(self.actions)
        #: Per action, over the whole rounds: its score less the baseline's, summed, squared, counted.
        self.gain = [0.0] * len(self.actions)
        self.gain_sq = [0.0] * len(self.actions)
        self.paired = [0] * len(self.actions)
        self.alive = list(range(len(self.actions)))
        self.rounds = 0
        self.iterations = 0
        self._next_cut = halve_after

    def _round(self, budget: Budget) -> None:
        world = self.sample(self.rng)
        scores: dict[int, float] = {}
        for i in self.alive:
            # a clock stops even the first round (then :attr:`complete` is False); a count of
            # iterations never cuts it, so that the same count gives the same choice
            if budget.spent(self.iterations) and (self.rounds or budget.deadline is not None):
                return
            trial = world.clone()
            trial.apply(self.actions[i])
            scores[i] = score = self.playout(trial, self.rng)
            self.totals[i] += score
            self.visits[i] += 1
            self.iterations += 1
        if self.baseline is not None:
            base = scores[self.baseline]
            for i, score in scores.items():
                self.gain[i] += score - base
                self.gain_sq[i] += (score - base) ** 2
                self.paired[i] += 1
        self.rounds += 1
        if self.rounds >= self._next_cut and len(self.alive) > 2:
            self.alive.sort(key=lambda i: -self.totals[i] / self.visits[i])
            keep = max(2, (len(self.alive) + 1) // 2)
            if self.baseline is not None and self.alive.index(self.baseline) >= keep:
                self.alive[keep - 1] = self.baseline  # kept, in place of the weakest kept
            self.alive = self.alive[:keep]
            self._next_cut *= 2

    def run(self, iterations: int | None = None, time_per_move: float = 0.05, settle: int | None = None,
            margin: float = 2.0) -> int:
        """Play rounds until the budget is spent (with ``iterations``, at least one whole
        round; a clock may stop the first, see :attr:`complete`); with ``settle``
        (and a baseline), stop sooner once that many rounds are played and
        :meth:`choice` at ``margin`` is settled (:meth:`settled`)."""
        if settle is not None and (type(settle) is not int or settle < 1):
            raise FourCardsError(f"settle={settle!r} must be None or an int >= 1")
        if not isinstance(margin, (int, float)) or isinstance(margin, bool) or not 0 <= margin <= 100:
            raise FourCardsError(f"margin={margin!r} must be a number 0..100")
        budget = Budget(iterations, time_per_move)
        while not budget.spent(self.iterations) or (not self.rounds and budget.deadline is None):
            self._round(budget)
            if settle is not None and self.rounds >= settle and self.settled(margin):
                break
        return self.iterations

    def settled(self, margin: float = 2.0) -> bool:
        """Whether more rounds would hardly change :meth:`choice` (``margin``): every
        action still in is, on the same deals, no better than the baseline by a
        standard error (the baseline stays the choice), or the best is ahead of it by
        twice ``margin`` standard errors (it is the choice)."""
        if self.baseline is None:
            return False
        best_lead, all_behind = 0.0, True
        for i in self.alive:
            if i == self.baseline:
                continue
            n = self.paired[i]
            if n < 2:
                return False
            mean = self.gain[i] / n
            error = math.sqrt(max(0.0, (self.gain_sq[i] - n * mean * mean) / (n - 1)) / n)
            if mean + error > 0:
                all_behind = False
            if mean > 0 and (error == 0 or mean / error > best_lead):
                best_lead = math.inf if error == 0 else mean / error
        return all_behind or best_lead > 2 * margin

    def statistics(self) -> list[tuple[int, int, float]]:
        """``[(action, playouts, mean score)]``: the actions still in first, best mean first."""
        alive = set(self.alive)
        rows = [(a, n, t / n if n else 0.0, i in alive)
                for i, (a, n, t) in enumerate(zip(self.actions, self.visits, self.totals))]
        rows.sort(key=lambda row: (not row[3], -row[2], row[0]))
        return [(a, n, mean) for a, n, mean, _ in rows]

    @property
    def complete(self) -> bool:
        """Whether a whole round was played (every action on one deal): a clock can stop
        the first round before its end, when playouts are slow and actions many."""
        return self.rounds > 0

    def best(self) -> int:
        """The best mean among the actions still in (ties: the lowest action)."""
        return self.statistics()[0][0]

    def choice(self, margin: float) -> int:
        """The action to play: :meth:`best` when its gain over the baseline on the same
        deals is above ``margin`` standard errors, else the baseline (a gain lost in
        the noise, or no whole round played); :meth:`best` when there is no baseline."""
        if self.baseline is not None and not self.complete:
            return self.actions[self.baseline]
        best = self.best()
        if self.baseline is None:
            return best
        i = self.actions.index(best)
        n = self.paired[i]
        if i == self.baseline or n < 2:
            return self.actions[self.baseline]
        mean = self.gain[i] / n
        variance = max(0.0, (self.gain_sq[i] - n * mean * mean) / (n - 1))
        return best if mean > 0 and mean * mean * n > margin * margin * variance else self.actions[self.baseline]
