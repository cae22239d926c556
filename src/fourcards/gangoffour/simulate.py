"""Many seeded matches between built-in policies, fast.

The compiled core plays whole matches in C without the GIL; the pure-Python
twin plays the same matches with :class:`~fourcards.gangoffour.match.MatchState`
and the bots, move for move.

>>> result = simulate(20, seed=1, policies=("greedy", "random", "random", "random"))
>>> result.scores.shape, result.winners.shape
((20, 4), (20, 4))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import (
    MAX_GAMES, check_count, check_flag, check_runner, derive_seed, derive_seeds, policy_codes, simulation_seeds,
    win_shares,
)
from ..errors import FourCardsError, InvalidTypeError
from . import _kernels
from .bots import GreedyBot, RandomBot
from ..rng import Rng, seed_in_range
from .match import GangOfFour, MatchState, Rules

__all__ = ["POLICIES", "SimulationResult", "simulate", "simulate_many", "match_seeds", "random_playouts",
           "PlayoutResult"]

POLICIES = {"random": 0, "greedy": 1}


@dataclass(frozen=True)
class SimulationResult:
    """Per-match results of :func:`simulate`, one row a match."""

    seeds: npt.NDArray[np.uint64]
    scores: npt.NDArray[np.int32]
    winners: npt.NDArray[np.bool_]
    rounds: npt.NDArray[np.int32]
    steps: npt.NDArray[np.int64]
    actions: list[npt.NDArray[np.int32]] | None

    def win_share(self) -> npt.NDArray[np.float64]:
        """Each seat's match wins, a shared win counting 1/k."""
        return win_shares(self.winners)


def _checked_rules(rules: Any, players: int) -> Rules:
    """The rules of a simulation: ``Rules`` for as many players as policies (None: the default's)."""
    rules = Rules(players=players) if rules is None else rules
    if not isinstance(rules, Rules):
        raise InvalidTypeError(f"rules must be a fourcards.gangoffour.Rules, not {type(rules).__name__}")
    if players != rules.players:
        raise FourCardsError(f"{rules.players} players need {rules.players} policies, got {players}")
    return rules


def match_seeds(seed: int, count: int, start: int = 0) -> npt.NDArray[np.uint64]:
    """The seeds of matches ``start .. start + count - 1``: ``derive_seed(seed, i)``."""
    return derive_seeds(seed, count, start)


def _bots(policies: Sequence[int], seed: int) -> list[RandomBot | GreedyBot]:
    return [RandomBot(derive_seed(seed, p + 1)) if policy == 0 else GreedyBot()
            for p, policy in enumerate(policies)]


def _checked_compiled(compiled: Any) -> bool | None:
    """``compiled`` checked as None (the compiled core if it is there) or a bool."""
    return None if compiled is None else check_flag(compiled, "compiled")


def simulate(
    matches: int | Sequence[int] | npt.NDArray[np.uint64],
    seed: int = 0,
    policies: Sequence[str] = ("random", "random", "random", "random"),
    rules: Rules | None = None,
    record: bool = False,
    compiled: bool | None = None,
) -> SimulationResult:
    """Play matches between policies (``"random"`` or ``"greedy"``, one a seat).

    ``matches`` is a number of matches (seeded by :func:`match_seeds`) or the
    match seeds themselves.  ``record`` keeps every match's actions.
    ``compiled=False`` forces the Python engine (the reference).
    """
    compiled = _checked_compiled(compiled)
    record = check_flag(record, "record")
    codes = policy_codes(policies, POLICIES)
    rules = _checked_rules(rules, len(codes))
    seeds = simulation_seeds(matches, seed)
    use_core = _kernels.sim is not None if compiled is None else compiled
    if use_core:
        if _kernels.sim is None:
            raise RuntimeError("the compiled core is not available")
        packed = _kernels.pack_rules(rules)
        scores, winners, rounds, steps, logs = _kernels.sim.gof_simulate(
            np.ascontiguousarray(seeds), codes, packed, record)
        return SimulationResult(seeds, scores, winners, rounds, steps, logs)
    game = GangOfFour(rules)
    n = len(seeds)
    scores = np.zeros((n, rules.players), np.int32)
    winners = np.zeros((n, rules.players), np.bool_)
    rounds = np.zeros(n, np.int32)
    steps = np.zeros(n, np.int64)
    recorded: list[npt.NDArray[np.int32]] | None = [] if record else None
    for i, match_seed in enumerate(seeds.tolist()):
        state = game.new_match(match_seed)
        bots = _bots(codes, match_seed)
        while not state.is_terminal:
            player = state.current_player
            state.apply(bots[player].choose(state.observation(player), state.legal_actions()))
        scores[i] = state.scores
        winners[i, list(state.winners)] = True
        rounds[i] = state.round
        steps[i] = len(state.actions)
        if recorded is not None:
            recorded.append(np.array(state.actions, dtype=np.int32))
    return SimulationResult(seeds, scores, winners, rounds, steps, recorded)


def _simulate_batch(seeds: list[int], policies: tuple[str, ...], rules: dict[str, object],
                    compiled: bool | None) -> SimulationResult:
    """One unit of work: a batch of match seeds (module level, so it pickles)."""
    return simulate(np.array(seeds, dtype=np.uint64), policies=policies, rules=Rules(**rules),  # type: ignore[arg-type]
                    compiled=compiled)


#: The most matches one :func:`simulate` or :func:`simulate_many` (``fourcards simulate``)
#: plays: each keeps a row of results, about 40 bytes (400 MB at most).
MAX_MATCHES = MAX_GAMES


def simulate_many(
    matches: int,
    seed: int = 0,
    policies: Sequence[str] = ("random", "random", "random", "random"),
    rules: Rules | None = None,
    executor: Executor | None = None,
    batch_size: int = 500,
    progress: Callable[[int, int], None] | None = None,
    compiled: bool | None = None,
) -> SimulationResult:
    """:func:`simulate` cut into batches of seeded matches, run on ``executor``
    (any :class:`concurrent.futures.Executor`: a process pool here, a cluster's
    executor beyond).  The results are the same whatever runs them: match
    ``i`` always has seed ``match_seeds(seed, ...)[i]``.  ``progress(done, total)``
    is called as batches finish.
    """
    compiled = _checked_compiled(compiled)
    check_runner(executor, progress)
    rules = _checked_rules(rules, len(policy_codes(policies, POLICIES)))
    matches = check_count(matches, "matches")
    if matches > MAX_MATCHES:
        raise FourCardsError(f"matches={matches} is more than one run keeps results of ({MAX_MATCHES:,}): "
                             "split it into runs with other seeds")
    if check_count(batch_size, "batch_size") < 1:
        raise FourCardsError(f"batch_size must be >= 1, got {batch_size}")
    seeds = match_seeds(seed, matches)
    batches = [seeds[i:i + batch_size].tolist() for i in range(0, matches, batch_size)]
    rule_dict = rules.to_dict()
    results: list[SimulationResult | None] = [None] * len(batches)
    done = 0
    if executor is None:
        for index, batch in enumerate(batches):
            results[index] = _simulate_batch(batch, tuple(policies), rule_dict, compiled)
            done += len(batch)
            if progress:
                progress(done, matches)
    else:
        futures = {executor.submit(_simulate_batch, batch, tuple(policies), rule_dict, compiled): index
                   for index, batch in enumerate(batches)}
        for future in as_completed(futures):
            index = futures[future]
            results[index] = future.result()
            done += len(batches[index])
            if progress:
                progress(done, matches)
    parts = [r for r in results if r is not None]
    if not parts:
        empty = simulate(np.zeros(0, np.uint64), policies=policies, rules=rules, compiled=compiled)
        return empty
    return SimulationResult(
        seeds,
        np.concatenate([p.scores for p in parts]),
        np.concatenate([p.winners for p in parts]),
        np.concatenate([p.rounds for p in parts]),
        np.concatenate([p.steps for p in parts]),
        None,
    )


@dataclass(frozen=True)
class PlayoutResult:
    """What :func:`random_playouts` found: the mean of ``MatchState.returns()``
    over the playouts, and (with ``record``) each playout's actions."""

    returns: npt.NDArray[np.float64]
    actions: list[npt.NDArray[np.int32]] | None


def random_playouts(state: MatchState, playouts: int = 1, seed: int = 0, record: bool = False,
                    compiled: bool | None = None) -> PlayoutResult:
    """Play a match in progress on to its end ``playouts`` times with uniformly
    random legal actions; ``state`` itself is not changed.

    Each action is ``legal[rng.below(len(legal))]`` over the sorted
    ``legal_actions()``, with one :class:`~fourcards.rng.Rng` seeded with
    ``seed`` across the playouts; the later rounds are dealt by the match's own
    generator, as :meth:`MatchState.apply` would deal them (so every playout
    sees the same later deals).  The compiled core and the Python engine
    (``compiled=False``) play the same moves.

    >>> state = GangOfFour(players=2, target_score=10).new_match(5)
    >>> result = random_playouts(state, playouts=10, seed=1)
    >>> result.returns.shape, abs(float(result.returns.sum())) < 1e-9
    ((2,), True)
    """
    if not isinstance(state, MatchState):
        raise InvalidTypeError(f"state must be a Gang of Four MatchState, not {type(state).__name__}")
    if not isinstance(playouts, int) or isinstance(playouts, bool):
        raise InvalidTypeError(f"playouts must be an int, not {type(playouts).__name__}")
    if not 1 <= playouts <= 2**31 - 1:
        raise FourCardsError(f"playouts={playouts} must be 1..2**31-1")
    seed = seed_in_range(seed)
    n = state.game.num_players
    if state.is_terminal:
        return PlayoutResult(np.asarray(state.returns(), dtype=np.float64),
                             [np.zeros(0, np.int32) for _ in range(playouts)] if record else None)
    # Stacked deals for later rounds are known to the Python engine only.
    use_core = (_kernels.playouts is not None and len(state._deals) <= state.round) if compiled is None else compiled
    if use_core:
        if _kernels.playouts is None:
            raise RuntimeError("the compiled core is not available")
        if len(state._deals) > state.round:
            raise FourCardsError("the compiled playouts cannot follow stacked deals of later rounds; "
                             "use compiled=False")
        exchange = state._exchange
        means, logs = _kernels.playouts.gof_random_playouts(
            _kernels.pack_rules(state.game.rules), state._hands, state._totals, state._round,
            state._dealer, state._direction, state._phase, state._current, state._table,
            state._table_player, state._passed, state._announced, state._out, state._m1_lead,
            _played_mask(state._played), -1 if exchange is None else exchange.loser,
            -1 if exchange is None else exchange.given.code,
            -1 if exchange is None or exchange.returned is None else exchange.returned.code,
            state._rng.state, playouts, seed, record)
        return PlayoutResult(means, logs)
    rng = Rng(seed)
    sums = np.zeros(n, np.float64)
    recorded: list[npt.NDArray[np.int32]] | None = [] if record else None
    for _ in range(playouts):
        match = state.clone()
        start = len(match.actions)
        while not match.is_terminal:
            legal = match.legal_actions()
            match.apply(legal[rng.below(len(legal))])
        sums += match.returns()
        if recorded is not None:
            recorded.append(np.array(match.actions[start:], dtype=np.int32))
    return PlayoutResult(sums / playouts, recorded)


def _played_mask(additive: int) -> int:
    from . import _deck

    return _deck.canonical_from_sum(additive)
