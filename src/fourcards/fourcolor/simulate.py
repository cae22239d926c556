"""Many seeded Four Color games between built-in policies, fast.

The compiled core plays whole games in C without the GIL; the Python engine
(:class:`~fourcards.fourcolor.game.FourColorState` with the bots) plays the
same games, move for move (``compiled=False``, the reference).

>>> result = simulate(20, seed=1, policies=("greedy", "random", "random", "random"))
>>> result.scores.shape, result.winners.shape
((20, 4), (20, 4))
>>> bool((result.scores.sum(axis=1) == 0).all())  # every payment is from one seat to another
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import derive_seed, derive_seeds, policy_codes, simulation_seeds, win_shares
from ..errors import FourCardsError, InvalidTypeError
from . import _kernels
from .bots import GreedyBot, LookaheadBot, RandomBot
from .game import FourColor, Rules

__all__ = ["POLICIES", "SimulationResult", "simulate", "game_seeds", "tournament_rows"]

POLICIES = {"random": 0, "greedy": 1, "lookahead": 2}
_RULE_BOTS = {1: GreedyBot, 2: LookaheadBot}


@dataclass(frozen=True)
class SimulationResult:
    """Per-game results of :func:`simulate`, one row a game: seeds, final totals
    (scores), winners (every seat with the best total), actions taken, and
    (``record=True``) every game's actions."""

    seeds: npt.NDArray[np.uint64]
    scores: npt.NDArray[np.int64]
    winners: npt.NDArray[np.bool_]
    steps: npt.NDArray[np.int64]
    actions: list[npt.NDArray[np.int32]] | None

    def win_share(self) -> npt.NDArray[np.float64]:
        """Each seat's game wins, a shared win counting 1/k."""
        return win_shares(self.winners)


def game_seeds(seed: int, count: int, start: int = 0) -> npt.NDArray[np.uint64]:
    """The seeds of games ``start .. start + count - 1``: ``derive_seed(seed, i)``."""
    return derive_seeds(seed, count, start)


def simulate(
    games: int | Sequence[int] | npt.NDArray[np.uint64],
    seed: int = 0,
    policies: Sequence[str] = ("random", "random", "random", "random"),
    rules: Rules | None = None,
    record: bool = False,
    compiled: bool | None = None,
    bot_seeds: npt.NDArray[np.uint64] | None = None,
) -> SimulationResult:
    """Play games between policies (``"random"``, ``"greedy"`` or ``"lookahead"``, one a seat).

    ``games`` is a number of games (seeded by :func:`game_seeds`) or the game
    seeds themselves.  Seat ``p``'s random player draws from
    ``derive_seed(game_seed, p + 1)``.  ``record`` keeps every game's actions.
    ``compiled=False`` plays them with the Python engine (the reference).
    ``bot_seeds`` (games x players) gives the random players' seeds instead.
    """
    codes = policy_codes(policies, POLICIES)
    rules = rules if rules is not None else Rules(players=len(codes))
    if not isinstance(rules, Rules):
        raise InvalidTypeError(f"rules must be a fourcards.fourcolor.game.Rules, not {type(rules).__name__}")
    if len(codes) != rules.players:
        raise FourCardsError(f"{rules.players} players need {rules.players} policies, got {len(codes)}")
    seeds = simulation_seeds(games, seed)
    if bot_seeds is not None:
        bot_seeds = np.asarray(bot_seeds)
        if bot_seeds.dtype != np.uint64 or bot_seeds.shape != (len(seeds), rules.players):
            raise FourCardsError(f"bot_seeds must be uint64 of shape {(len(seeds), rules.players)}")
    use_core = _kernels.sim is not None if compiled is None else bool(compiled)
    if use_core:
        if _kernels.sim is None:
            raise RuntimeError("the compiled Four Color core is not available")
        # Rules bounds threshold and rounds by 1,000: C ints, as the simulator checks again.
        scores, winners, steps, logs = _kernels.simulate_games(
            seeds, codes, rules.players, rules.threshold, rules.rounds, rules.lucky_rank_only, bool(record),
            bot_seeds, rules.same_colour_soldiers, rules.only_generals == "hu")
        return SimulationResult(seeds, scores, winners, steps, logs)
    game = FourColor(rules)
    n = len(seeds)
    scores = np.zeros((n, rules.players), np.int64)
    winners = np.zeros((n, rules.players), np.bool_)
    steps = np.zeros(n, np.int64)
    recorded: list[npt.NDArray[np.int32]] | None = [] if record else None
    for i, game_seed in enumerate(seeds.tolist()):
        state = game.new_match(game_seed)
        bots = [RandomBot(derive_seed(game_seed, p + 1) if bot_seeds is None else int(bot_seeds[i, p]))
                if code == 0 else _RULE_BOTS[code]() for p, code in enumerate(codes)]
        while not state.is_terminal:
            player = state.current_player
            state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
        scores[i] = state.scores
        winners[i, list(state.winners)] = True
        actions = state.actions
        steps[i] = len(actions)
        if recorded is not None:
            recorded.append(np.array(actions, dtype=np.int32))
    return SimulationResult(seeds, scores, winners, steps, recorded)


TournamentRow = tuple[int, int, tuple[int, ...], tuple[float, ...], tuple[int, ...], int]


def tournament_rows(entrants: Sequence[Any], deal_numbers: Sequence[int], seed: int,
                    rules: dict[str, Any]) -> list[TournamentRow] | None:
    """:func:`fourcards.tournament.play_deals` for Four Color in the compiled
    simulator: the same deals, rotations and bot seeds, so the same records as
    the Python engine (the fields of ``MatchRecord``: deal, rotation, seating,
    win shares, scores, rounds); None when an entrant is not a plain random,
    greedy or lookahead player, or the compiled core is missing."""
    if _kernels.sim is None or any(e.kind not in POLICIES or e.options for e in entrants):
        return None
    game_rules = Rules(**rules)
    n = game_rules.players
    plan = [(deal, rotation, tuple((seat + rotation) % n for seat in range(n)))
            for deal in deal_numbers for rotation in range(n)]
    records: list[TournamentRow] = []
    for deal, rotation, seating in plan:
        game_seed = derive_seed(seed, deal)
        bot_seeds = np.array([[derive_seed(game_seed, 1000 + e) for e in seating]], dtype=np.uint64)
        result = simulate(np.array([game_seed], dtype=np.uint64), policies=[entrants[e].kind for e in seating],
                          rules=game_rules, compiled=True, bot_seeds=bot_seeds)
        winners = result.winners[0]
        share = tuple(1 / int(winners.sum()) if winners[p] else 0.0 for p in range(n))
        records.append((deal, rotation, seating, share, tuple(int(v) for v in result.scores[0]), 1))
    return records
