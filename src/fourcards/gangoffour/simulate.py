"""Many seeded matches between built-in policies, fast.

The compiled core plays whole matches in C without the GIL; the pure-Python
twin plays the same matches with :class:`~fourcards.gangoffour.match.MatchState`
and the bots, move for move.

>>> result = simulate(20, seed=1, policies=("greedy", "random", "random", "random"))
>>> result.scores.shape, result.winners.shape
((20, 4), (20, 4))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._backend import core
from ..engine import derive_seed
from .bots import GreedyBot, RandomBot
from .match import GangOfFour, Rules

__all__ = ["POLICIES", "SimulationResult", "simulate", "match_seeds"]

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
        share = self.winners / self.winners.sum(axis=1, keepdims=True)
        result: npt.NDArray[np.float64] = share.sum(axis=0)
        return result


def match_seeds(seed: int, count: int, start: int = 0) -> npt.NDArray[np.uint64]:
    """The seeds of matches ``start .. start + count - 1`` of a simulation: ``derive_seed(seed, i)``."""
    return np.array([derive_seed(seed, i) for i in range(start, start + count)], dtype=np.uint64)


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
        rule_tuple = (rules.players, rules.target_score, rules.dealer, rules.pass_is_final,
                      rules.manual_last_card, rules.last_card_may_pass, rules.chinese_dealing)
        scores, winners, rounds, steps, logs = core.gof_simulate(
            np.ascontiguousarray(seeds), codes, rule_tuple, record)
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
