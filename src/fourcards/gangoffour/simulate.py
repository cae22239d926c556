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

import numpy as np
import numpy.typing as npt

from ..engine import derive_seed, derive_seeds, win_shares
from . import _kernels
from ._kernels import core
from .bots import GreedyBot, RandomBot
from .match import GangOfFour, Rules

__all__ = ["POLICIES", "SimulationResult", "simulate", "simulate_many", "match_seeds"]

POLICIES = {"random": 0, "greedy": 1}


def _check_policies(policies: object) -> None:
    """A string is one name, not a sequence of seats: refuse it rather than seat one bot a letter."""
    if isinstance(policies, str):
        raise TypeError(f"policies are one name a seat, e.g. {policies.split(',')!r}; "
                        f"got the string {policies[:60]!r}")


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


def match_seeds(seed: int, count: int, start: int = 0) -> npt.NDArray[np.uint64]:
    """The seeds of matches ``start .. start + count - 1``: ``derive_seed(seed, i)``."""
    return derive_seeds(seed, count, start)


def _bots(policies: Sequence[int], seed: int) -> list[RandomBot | GreedyBot]:
    return [RandomBot(derive_seed(seed, p + 1)) if policy == 0 else GreedyBot()
            for p, policy in enumerate(policies)]


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
    _check_policies(policies)
    rules = rules or Rules(players=len(policies))
    if len(policies) != rules.players:
        raise ValueError(f"{rules.players} players need {rules.players} policies, got {len(policies)}")
    try:
        codes = [POLICIES[p] for p in policies]
    except KeyError as error:
        raise ValueError(f"unknown policy {error.args[0]!r}; choose from {sorted(POLICIES)}") from None
    if isinstance(matches, int):
        seeds = match_seeds(seed, matches)
    else:
        seeds = np.asarray(matches, dtype=np.uint64)
    use_core = core is not None if compiled is None else compiled
    if use_core:
        if core is None:
            raise RuntimeError("the compiled core is not available")
        packed = _kernels.pack_rules(rules)
        scores, winners, rounds, steps, logs = core.gof_simulate(
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
    _check_policies(policies)
    rules = rules or Rules(players=len(policies))
    if matches < 0:
        raise ValueError(f"matches must be >= 0, got {matches}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
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
