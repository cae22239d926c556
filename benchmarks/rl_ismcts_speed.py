"""OpenSpiel's ISMCTS on Gang of Four: simulations a second, before and after.

Measures, in one run, on the same states (2-player matches to 10 points,
random play, several points of the match):

- ``before``: the OpenSpiel adapter as it was at ``--baseline`` (a git
  revision, loaded from git under another game name) with OpenSpiel's
  ``RandomRolloutEvaluator``;
- ``adapter``: today's adapter with the same ``RandomRolloutEvaluator``;
- ``after``: today's adapter with ``CompiledRolloutEvaluator`` (the rollouts in
  the compiled simulator).

Also the cost of each state operation an ISMCTS simulation calls (clone,
apply_action, legal_actions, information_state_string, returns, resample)
before and after, and rollouts a second for both evaluators. Prints ratios.

    python benchmarks/rl_ismcts_speed.py
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from fourcards.rl import openspiel

ROOT = Path(__file__).resolve().parent.parent
MODULE = "src/fourcards/rl/openspiel.py"


def baseline_module(revision: str) -> ModuleType | None:
    """The adapter at ``revision``, registered as another game; None without git."""
    try:
        source = subprocess.run(["git", "show", f"{revision}:{MODULE}"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"(no baseline: git show {revision}:{MODULE} failed: {error})")
        return None
    name = "fourcards.rl._openspiel_baseline"
    source = source.replace('GAME_NAME = "python_fourcards_gang_of_four"',
                            'GAME_NAME = "python_fourcards_gang_of_four_baseline"')
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "fourcards.rl"
    sys.modules[name] = module
    exec(compile(source, f"{revision}:{MODULE}", "exec"), module.__dict__)
    return module


def states(module: Any, deals: int, points: tuple[int, ...]) -> list[Any]:
    """The same states in the given adapter: deal ``d`` played at random for ``p`` moves."""
    game = pyspiel.load_game(module.GAME_NAME, {"players": 2, "target_score": 10})
    found = []
    for deal in range(deals):
        rng = np.random.default_rng(deal)
        state = game.new_initial_state()
        state.apply_action(100 + deal)
        for move in range(max(points) + 1):
            if state.is_terminal():
                break
            if move in points and len(state.legal_actions()) > 1:
                found.append(state.clone())
            state.apply_action(int(rng.choice(state.legal_actions())))
    return found


def sims_per_second(module: Any, roots: list[Any], evaluator: Any, simulations: int, seed: int) -> float:
    sampler = np.random.default_rng(seed)
    spent = 0.0
    for root in roots:
        bot = ismcts.ISMCTSBot(root.get_game(), evaluator, 2.0, max_simulations=simulations,
                               random_state=np.random.RandomState(seed),
                               max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES)
        bot.set_resampler(lambda s, p: module.resample(s, p, sampler))
        started = time.perf_counter()
        bot.run_search(root)
        spent += time.perf_counter() - started
    return simulations * len(roots) / spent


def per_call(roots: list[Any], work: Callable[[Any], object], repeat: int) -> float:
    """Microseconds a call of ``work(state)``, over the roots."""
    started = time.perf_counter()
    for _ in range(repeat):
        for root in roots:
            work(root)
    return (time.perf_counter() - started) / (repeat * len(roots)) * 1e6


def rollouts_per_second(roots: list[Any], evaluator: Any, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        for root in roots:
            evaluator.evaluate(root)
    return repeat * len(roots) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="b80b2d4",
                        help="git revision of the adapter before (default: before the compiled evaluator)")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--python-simulations", type=int, default=30, help="per state, Python rollouts")
    parser.add_argument("--compiled-simulations", type=int, default=300, help="per state, compiled rollouts")
    args = parser.parse_args()
    points = (0, 25, 50, 75)
    old = baseline_module(args.baseline)
    new_roots = states(openspiel, args.deals, points)
    print(f"{len(new_roots)} states: 2-player Gang of Four to 10 points, {args.deals} deals at moves {points}")
    rng = np.random.default_rng(0)

    def operations(module: Any) -> dict[str, Callable[[Any], object]]:
        return {
            "clone": lambda s: s.clone(),
            "legal_actions": lambda s: s.legal_actions(),
            "apply_action": lambda s: s.clone().apply_action(s.legal_actions()[0]),
            "information_state_string": lambda s: s.information_state_string(),
            "returns": lambda s: s.returns(),
            "resample": lambda s: module.resample(s, s.current_player(), rng),
        }

    old_roots = states(old, args.deals, points) if old else []
    # Before and after alternate, each keeping its best of three: the machine is shared.
    after_ops: dict[str, float] = {}
    before_ops: dict[str, float] = {}
    for _ in range(3):
        for name, work in operations(openspiel).items():
            after_ops[name] = min(after_ops.get(name, 1e9), per_call(new_roots, work, 60))
        if old:
            for name, work in operations(old).items():
                before_ops[name] = min(before_ops.get(name, 1e9), per_call(old_roots, work, 60))
    print()
    print("| operation | before (us) | after (us) | speed-up |")
    print("|---|---|---|---|")
    for name, after in after_ops.items():
        before = before_ops.get(name)
        note = " (with a clone)" if name == "apply_action" else ""
        shown = f"{before:.1f}" if before else "-"
        ratio = f"{before / after:.1f}x" if before else "-"
        print(f"| {name}{note} | {shown} | {after:.1f} | {ratio} |")

    # The same random streams on the same states: the same rollouts, move for move.
    slow = slow_before = 0.0
    for _ in range(2):
        slow = max(slow, rollouts_per_second(new_roots, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2))
        if old:
            slow_before = max(slow_before, rollouts_per_second(
                old_roots, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2))
    fast = rollouts_per_second(new_roots, openspiel.CompiledRolloutEvaluator(1, seed=0), 60)
    print()
    print("| rollouts to the end of the match | rollouts a second |")
    print("|---|---|")
    if old:
        print(f"| RandomRolloutEvaluator, adapter before | {slow_before:.0f} |")
    print(f"| RandomRolloutEvaluator, adapter now | {slow:.0f} |")
    print(f"| CompiledRolloutEvaluator | {fast:.0f} ({fast / slow:.0f}x) |")

    rates: dict[str, float] = {}
    for attempt in range(2):  # alternate the rows and keep each one's best: the machine is shared
        if old:
            name = f"before: adapter at {args.baseline}, RandomRolloutEvaluator"
            rate = sims_per_second(old, old_roots, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
                                   args.python_simulations, 1 + attempt)
            rates[name] = max(rates.get(name, 0.0), rate)
        name = "adapter now, RandomRolloutEvaluator"
        rate = sims_per_second(openspiel, new_roots, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
                               args.python_simulations, 1 + attempt)
        rates[name] = max(rates.get(name, 0.0), rate)
        name = "after: adapter now, CompiledRolloutEvaluator"
        rate = sims_per_second(openspiel, new_roots, openspiel.CompiledRolloutEvaluator(1, seed=1),
                               args.compiled_simulations, 1 + attempt)
        rates[name] = max(rates.get(name, 0.0), rate)
    rows = list(rates.items())
    print()
    print("| ISMCTS (UCT 2.0, a new world sample each simulation) | simulations a second | vs before |")
    print("|---|---|---|")
    first = rows[0][1]
    for name, rate in rows:
        print(f"| {name} | {rate:.0f} | {rate / first:.1f}x |")


if __name__ == "__main__":
    main()
