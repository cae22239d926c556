"""SearchBot against OpenSpiel's Python ISMCTS bot, at the same time per move.

Two-player Gang of Four through the OpenSpiel game of ``fourcards.rl.openspiel``:
each deal is played twice with the seats swapped; both bots get
``--time`` seconds per move (SearchBot with its ``time_per_move``, ISMCTS
searching until the same deadline with random-rollout evaluation: by default
``openspiel.CompiledRolloutEvaluator``, the rollouts in the compiled simulator;
``--evaluator python`` takes OpenSpiel's own ``RandomRolloutEvaluator``, the
rollouts through the Python OpenSpiel state). ``--iterations N`` gives both
the same count a move instead (SearchBot's iterations, ISMCTS's
simulations). Prints the SearchBot's share of
the wins (a shared win counts half) with a Wilson 95% interval, ISMCTS's
simulations a move and the machine's load average.

    python benchmarks/rl_searchbot_vs_ismcts.py --matches 200 --time 0.02 --target 10
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from fourcards.gangoffour.bots import SearchBot
from fourcards.rl import openspiel


class TimedISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's ISMCTS bot searching until a deadline instead of a count
    (and at least until the root has one visit: its first simulation only
    expands it)."""

    def __init__(self, game: Any, seconds: float, seed: int, evaluator: str = "compiled",
                 count: int | None = None) -> None:
        rng = np.random.RandomState(seed)
        rollouts: Any = (openspiel.CompiledRolloutEvaluator(1, seed=seed) if evaluator == "compiled"
                         else mcts.RandomRolloutEvaluator(1, rng))
        super().__init__(game, rollouts, uct_c=2.0, max_simulations=1,
                         random_state=rng, max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES)
        self.seconds = seconds
        self.count = count  # simulations a move instead of the deadline
        self.simulations = 0
        self.searches = 0
        self.sampler = np.random.default_rng(seed)
        self.set_resampler(lambda state, player: openspiel.resample(state, player, self.sampler))

    def run_search(self, state: Any) -> Any:
        self.reset()
        legal_actions = state.legal_actions()
        if len(legal_actions) == 1:
            return [(legal_actions[0], 1.0)]
        self._root_node = self.create_new_node(state)
        self.searches += 1
        deadline = time.perf_counter() + self.seconds
        done = 0
        while True:
            self.run_simulation(self.sample_root_state(state))
            self.simulations += 1
            done += 1
            finished = done >= self.count if self.count else time.perf_counter() >= deadline
            if finished and self._root_node.total_visits > 0:
                break
        return self.get_final_policy(state, self._root_node)


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def play(game: Any, deal: int, search_seat: int, seconds: float, seed: int,
         evaluator: str, count: int | None = None) -> tuple[float, int, int, int, int, int]:
    """One match; returns SearchBot's win share, the moves, ISMCTS's
    simulations and its searched moves (those with a choice), SearchBot's
    iterations and its searched moves."""
    state = game.new_initial_state()
    state.apply_action(deal)
    search = SearchBot(seed=seed, time_per_move=None if count is not None else seconds, iterations=count)
    other = TimedISMCTSBot(game, seconds, seed, evaluator, count)
    moves = 0
    while not state.is_terminal():
        player = state.current_player()
        if player == search_seat:
            action = search.choose(state.match.observation(player), state.legal_actions())
        else:
            action = int(other.step(state))
        state.apply_action(action)
        moves += 1
    winners = state.match.winners
    return ((1.0 / len(winners) if search_seat in winners else 0.0), moves, other.simulations, other.searches,
            search.total_iterations, search.searched_moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches (even: each deal twice)")
    parser.add_argument("--time", type=float, default=0.02, help="seconds per move for each bot")
    parser.add_argument("--target", type=int, default=10, help="target score of a match")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None,
                        help="instead of --time: SearchBot iterations and ISMCTS simulations a move, the same count")
    parser.add_argument("--evaluator", choices=("compiled", "python"), default="compiled",
                        help="ISMCTS's rollouts: the compiled simulator or OpenSpiel's RandomRolloutEvaluator")
    args = parser.parse_args()
    load_before = os.getloadavg()
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 2, "target_score": args.target})
    rng = np.random.default_rng(args.seed)
    wins = 0.0
    moves = simulations = searches = iterations = searched = 0
    started = time.perf_counter()
    for k in range(args.matches):
        if k % 2 == 0:
            deal = int(rng.integers(openspiel.DEALS))
        share, n_moves, n_sims, n_searches, n_iterations, n_searched = play(
            game, deal, k % 2, args.time, args.seed * 1_000_003 + k, args.evaluator, args.iterations)
        wins += share
        moves += n_moves
        simulations += n_sims
        searches += n_searches
        iterations += n_iterations
        searched += n_searched
        if (k + 1) % 20 == 0:
            print(f"  {k + 1} matches: SearchBot {wins:g} wins ({time.perf_counter() - started:.0f} s)", flush=True)
    low, high = wilson(wins, args.matches)
    print()
    budget = (f"{args.iterations} iterations (simulations) a move" if args.iterations
              else f"{args.time * 1000:g} ms a move")
    print(f"2-player Gang of Four, target score {args.target}, {budget} for each bot, "
          f"{args.matches} matches ({args.matches // 2} deals, seats swapped), seed {args.seed}, "
          f"ISMCTS rollouts: {args.evaluator}")
    print("| bot | win share | Wilson 95% interval |")
    print("|---|---|---|")
    print(f"| SearchBot | {wins / args.matches:.3f} ({wins:g}/{args.matches}) | [{low:.3f}, {high:.3f}] |")
    print(f"| OpenSpiel ISMCTS | {1 - wins / args.matches:.3f} | [{1 - high:.3f}, {1 - low:.3f}] |")
    print(f"moves {moves}, ISMCTS simulations {simulations} ({simulations / max(1, moves / 2):.1f} a move, "
          f"{simulations / max(1, searches):.1f} a searched move over {searches} searches), "
          f"{time.perf_counter() - started:.0f} s")
    print(f"SearchBot iterations {iterations} ({iterations / max(1, searched):.0f} a searched move over "
          f"{searched} searches)")
    load_after = os.getloadavg()
    print(f"load average (1, 5, 15 min) at the start {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"at the end {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")


if __name__ == "__main__":
    main()
