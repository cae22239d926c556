"""Old and new in one run: the server's CPU per action and the PettingZoo loop,
for this tree and for another checkout (before games became plug-ins).

    git worktree add /tmp/old 48d0179 && (cd /tmp/old && python setup.py build_ext --inplace)
    python benchmarks/bench_registry_overhead.py --old /tmp/old [--rounds 3] [--tables 40]

Each round runs, alternating old and new (so drift on a shared machine hits
both alike): each tree's ``benchmarks/server_load.py --think 0 --no-crash`` against a
server started from each tree (the server's own CPU seconds per action, read
from /proc), and a PettingZoo AEC loop of every built-in game (agent steps a
second, first legal action). Printed: each figure per round, then new/old
ratios (the median of the rounds); a ratio near 1.00 means no change, above 1
means the new tree is faster (steps/s) or cheaper (CPU per action: old/new).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEW = HERE.parent
GAMES = ("gang-of-four", "four-color", "zangle", "four-pack", "duelo")

LOOP = r"""
import sys, time
import numpy as np
from fourcards.rl import env
game = sys.argv[1]
table = env(game)
steps, began = 0, time.perf_counter()
seed = 0
while time.perf_counter() - began < float(sys.argv[2]):
    table.reset(seed=seed); seed += 1
    for agent in table.agent_iter():
        observation, reward, termination, truncation, info = table.last()
        if termination or truncation:
            table.step(None)
        else:
            table.step(int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1
print(steps / (time.perf_counter() - began))
"""


def environment(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_NO")}
    env["PYTHONPATH"] = str(tree / "src")
    return env


def server_cpu_per_action(tree: Path, tables: int) -> float:
    # each tree's own load script (its server's options differ), the same load
    done = subprocess.run([sys.executable, str(tree / "benchmarks" / "server_load.py"), "--tables", str(tables),
                           "--think", "0",
                           "--no-crash", "--timeout", "300"], env=environment(tree), text=True,
                          capture_output=True, check=True)
    match = re.search(r"server CPU while playing [\d.]+ s = ([\d.]+) ms an action", done.stdout)
    if match is None:
        raise RuntimeError(f"no server CPU figure in:\n{done.stdout}\n{done.stderr}")
    return float(match.group(1))


def loop_steps(tree: Path, game: str, seconds: float) -> float:
    done = subprocess.run([sys.executable, "-c", LOOP, game, str(seconds)], env=environment(tree), text=True,
                          capture_output=True, check=True)
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the older tree, built in place")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of each PettingZoo loop")
    args = parser.parse_args()
    trees = {"old": args.old.resolve(), "new": NEW}
    cpu: dict[str, list[float]] = {"old": [], "new": []}
    steps: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        order = ("old", "new") if round_ % 2 == 0 else ("new", "old")
        for which in order:
            cpu[which].append(server_cpu_per_action(trees[which], args.tables))
            for game in GAMES:
                steps.setdefault((which, game), []).append(loop_steps(trees[which], game, args.seconds))
        print(f"round {round_ + 1}: server CPU ms/action old {cpu['old'][-1]:.3f} new {cpu['new'][-1]:.3f}; "
              + ", ".join(f"{g} {steps[('old', g)][-1]:.0f}/{steps[('new', g)][-1]:.0f}" for g in GAMES)
              + " agent steps/s (old/new)", flush=True)
    print(f"\n| measure (median of {args.rounds} rounds, alternating) | old | new | new vs old |")
    print("|---|---|---|---|")
    old, new = statistics.median(cpu["old"]), statistics.median(cpu["new"])
    print(f"| server CPU per action, ms (--think 0, {args.tables} tables) | {old:.3f} | {new:.3f} | "
          f"{old / new:.2f}x |")
    for game in GAMES:
        old, new = statistics.median(steps[("old", game)]), statistics.median(steps[("new", game)])
        print(f"| PettingZoo loop, {game}, agent steps/s | {old:.0f} | {new:.0f} | {new / old:.2f}x |")


if __name__ == "__main__":
    main()
