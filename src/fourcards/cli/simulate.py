"""``fourcards simulate``, ``fourcards tournament`` and ``fourcards bench``."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..games import game_names
from ..gangoffour.match import Rules
from ..gangoffour.simulate import POLICIES, SimulationResult, simulate_many


def add_commands(sub: Any) -> None:
    sim = sub.add_parser("simulate", help="many seeded matches between random and rule-based bots")
    sim.add_argument("--bots", default="greedy,random,random,random",
                     help=f"one bot a seat, comma-separated ({', '.join(POLICIES)})")
    sim.add_argument("--matches", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--target-score", type=int, default=100)
    sim.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                     help="local processes (default: one a CPU)")
    sim.add_argument("--batch-size", type=int, default=500, help="matches a unit of work")
    sim.add_argument("--backend", choices=("local", "dask"), default="local")
    sim.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler (with --backend dask)")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    sim.add_argument("--no-progress", action="store_true")
    tour = sub.add_parser("tournament", help="bots (search included) over rotated duplicate deals")
    tour.add_argument("--bots", required=True,
                      help="one entrant a seat, comma-separated: random, greedy, search:time_per_move=0.02")
    tour.add_argument("--deals", type=int, default=100)
    tour.add_argument("--seed", type=int, default=0)
    tour.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    tour.add_argument("--game", choices=game_names(),
                      default="gang-of-four")
    tour.add_argument("--target-score", type=int, default=100, help="Gang of Four only")
    bench = sub.add_parser("bench", help="run the benchmarks and print their ratio tables")
    bench.add_argument("--quick", action="store_true", help="smaller workloads (seconds)")
    bench.add_argument("--only", choices=("core", "engine", "search", "fourcolor", "zangle"), action="append")


def interval(values: np.ndarray[Any, Any]) -> dict[str, float]:
    """Mean and normal 95% interval of per-match values."""
    count = len(values)
    mean = float(values.mean()) if count else math.nan
    half = 1.959964 * float(values.std(ddof=1)) / math.sqrt(count) if count > 1 else math.inf
    return {"mean": mean, "low": mean - half, "high": mean + half}


def summary(result: SimulationResult, bots: list[str]) -> dict[str, Any]:
    """Per seat: match win share (a shared win counts 1/k) and penalty per round, with 95% intervals."""
    shares = result.winners / result.winners.sum(axis=1, keepdims=True)
    per_round = result.scores / result.rounds[:, None]
    seats = [
        {"seat": seat, "bot": bot, "win_rate": interval(shares[:, seat]),
         "penalty_per_round": interval(per_round[:, seat])}
        for seat, bot in enumerate(bots)
    ]
    return {"matches": int(len(result.seeds)), "steps": int(result.steps.sum()),
            "rounds": int(result.rounds.sum()), "seats": seats}


def format_summary(data: dict[str, Any]) -> str:
    lines = [f"{data['matches']} matches, {data['rounds']} rounds, {data['steps']} actions", "",
             "| seat | bot | win rate [95% CI] | penalty per round [95% CI] |", "|---|---|---|---|"]
    for seat in data["seats"]:
        w, p = seat["win_rate"], seat["penalty_per_round"]
        lines.append(f"| {seat['seat']} | {seat['bot']} | {w['mean']:.3f} [{w['low']:.3f}, {w['high']:.3f}] | "
                     f"{p['mean']:.2f} [{p['low']:.2f}, {p['high']:.2f}] |")
    return "\n".join(lines)


class ProgressBar:
    """A one-line text progress bar on a stream (stderr)."""

    def __init__(self, stream: Any = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width, self.start = width, time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} matches "
                          f"({rate:,.0f}/s)")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


@contextmanager
def executor_for(backend: str, workers: int, scheduler: str | None) -> Iterator[Executor | None]:
    """A process pool (``local``) or a Dask cluster's executor (``dask``)."""
    if backend == "dask":
        if not scheduler:
            raise SystemExit("fourcards: --backend dask needs --scheduler ADDRESS")
        try:
            from dask.distributed import Client
        except ImportError:
            raise SystemExit('fourcards: the dask backend needs pip install "fourcards[distributed]"') from None
        with Client(scheduler) as client:
            yield client.get_executor()
        return
    if workers <= 1:
        yield None
        return
    with ProcessPoolExecutor(workers) as pool:
        yield pool


def run_simulate(args: argparse.Namespace) -> int:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in POLICIES]
    if unknown:
        print(f"fourcards: unknown bot {unknown[0]!r} for simulate; choose from {', '.join(POLICIES)} "
              "(search bots: fourcards tournament)", file=sys.stderr)
        return 2
    try:
        rules = Rules(players=len(bots), target_score=args.target_score)
    except ValueError as error:
        print(f"fourcards: {error}", file=sys.stderr)
        return 2
    progress = None if args.no_progress or args.json else ProgressBar()
    with executor_for(args.backend, args.workers, args.scheduler) as executor:
        result = simulate_many(args.matches, args.seed, bots, rules, executor=executor,
                               batch_size=args.batch_size, progress=progress)
    data = summary(result, bots)
    data.update(seed=args.seed, bots=bots, rules=rules.to_dict())
    print(json.dumps(data, indent=2) if args.json else format_summary(data))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.command == "simulate":
        return run_simulate(args)
    if args.command == "tournament":
        from ..tournament import main as tournament_main

        argv = ["--bots", args.bots, "--deals", str(args.deals), "--seed", str(args.seed),
                "--workers", str(args.workers), "--target-score", str(args.target_score), "--game", args.game]
        return tournament_main(argv)
    from ..benchmarks import core, engine, fourcolor, search, zangle

    chosen = args.only or ["core", "engine", "fourcolor", "zangle"]
    quick = ["--quick"] if args.quick else []
    for name in chosen:
        print(f"\n## fourcards.benchmarks.{name}\n", flush=True)
        if name == "core":
            core.main(quick)
        elif name == "engine":
            engine.main(quick)
        elif name == "fourcolor":
            fourcolor.main(quick)
        elif name == "zangle":
            zangle.main(quick)
        else:
            search.main(["--deals", "2", "--budgets", "5"] if args.quick else [])
    return 0
