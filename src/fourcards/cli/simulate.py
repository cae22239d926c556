"""``fourcards simulate``, ``fourcards tournament`` and ``fourcards bench``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..gangoffour.match import Rules
from ..gangoffour.simulate import POLICIES, SimulationResult, simulate_many
from ..tournament import t_interval, wilson_interval
from .args import SEED, CommandLineError, ProgressBar, int_in, quote

__all__ = ["add_commands", "run", "ProgressBar", "summary", "format_summary", "interval", "executor_for"]

BENCHMARKS = ("core", "engine", "search", "fourcolor", "zangle")


def add_commands(sub: Any) -> None:
    from ..tournament import DESCRIPTION
    from ..tournament import add_arguments as add_tournament_arguments

    sim = sub.add_parser("simulate", help="many seeded Gang of Four matches between random and rule-based bots",
                         description="Many seeded Gang of Four matches between random and rule-based bots, "
                                     "played by the compiled core, with 95% intervals.")
    sim.add_argument("--bots", default="greedy,random,random,random",
                     help=f"one bot a seat, comma-separated: {', '.join(POLICIES)} "
                          "(default: greedy,random,random,random)")
    sim.add_argument("--matches", type=int_in(0), default=1000, help="matches to play (default: 1000)")
    sim.add_argument("--seed", type=SEED, default=0, help="seed of the matches (default: 0)")
    sim.add_argument("--target-score", type=int_in(1, 100000), default=100,
                     help="the score that ends a match (default: 100)")
    sim.add_argument("--workers", type=int_in(1, 1024), default=os.cpu_count() or 1,
                     help="local processes (default: one a CPU)")
    sim.add_argument("--batch-size", type=int_in(1), default=500, help="matches a unit of work (default: 500)")
    sim.add_argument("--backend", choices=("local", "dask"), default="local",
                     help="where the batches run: local processes or a Dask cluster (default: local)")
    sim.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler, with --backend dask (default: none)")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON (default: a table)")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")
    tour = sub.add_parser("tournament", help="bots of any game over rotated duplicate deals",
                          description=DESCRIPTION)
    add_tournament_arguments(tour)
    bench = sub.add_parser("bench", help="run the benchmarks and print their ratio tables",
                           description="Run the benchmarks and print their ratio tables.")
    bench.add_argument("--quick", action="store_true", help="smaller workloads, seconds each (default: full size)")
    bench.add_argument("--only", choices=BENCHMARKS, action="append",
                       help="run only this benchmark; repeat for more (default: core, engine, fourcolor, zangle)")
    bench.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")


def interval(values: np.ndarray[Any, Any], proportion: bool = False) -> dict[str, float | None]:
    """Mean and 95% interval of per-match values: Wilson's for a proportion (inside [0, 1]),
    Student's t otherwise; ``None`` where there is nothing to say (no matches; one match's spread)."""
    count = len(values)
    if count == 0:
        return {"mean": None, "low": None, "high": None}
    result = wilson_interval(float(values.mean()), count) if proportion else t_interval([float(v) for v in values])
    finite = np.isfinite([result.low, result.high]).all()
    return {"mean": result.mean, "low": result.low if finite else None, "high": result.high if finite else None}


def summary(result: SimulationResult, bots: list[str]) -> dict[str, Any]:
    """Per seat: match win share (a shared win counts 1/k) and penalty per round, with 95% intervals."""
    if len(result.seeds):
        shares = result.winners / result.winners.sum(axis=1, keepdims=True)
        per_round = result.scores / np.maximum(result.rounds, 1)[:, None]
    else:
        shares = per_round = np.zeros((0, len(bots)))
    seats = [
        {"seat": seat, "bot": bot, "win_rate": interval(shares[:, seat], proportion=True),
         "penalty_per_round": interval(per_round[:, seat])}
        for seat, bot in enumerate(bots)
    ]
    return {"matches": int(len(result.seeds)), "steps": int(result.steps.sum()),
            "rounds": int(result.rounds.sum()), "seats": seats}


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _cell(data: dict[str, float | None], digits: int) -> str:
    if data["mean"] is None:
        return "-"
    if data["low"] is None or data["high"] is None:
        return f"{_number(data['mean'], digits)} [n/a]"
    return f"{_number(data['mean'], digits)} [{_number(data['low'], digits)}, {_number(data['high'], digits)}]"


def format_summary(data: dict[str, Any]) -> str:
    lines = [f"{data['matches']} matches, {data['rounds']} rounds, {data['steps']} actions", "",
             "| seat | bot | win rate [95% CI] | penalty per round [95% CI] |", "|---|---|---|---|"]
    for seat in data["seats"]:
        lines.append(f"| {seat['seat']} | {seat['bot']} | {_cell(seat['win_rate'], 3)} | "
                     f"{_cell(seat['penalty_per_round'], 2)} |")
    return "\n".join(lines)


@contextmanager
def executor_for(backend: str, workers: int, scheduler: str | None) -> Iterator[Executor | None]:
    """A process pool (``local``) or a Dask cluster's executor (``dask``)."""
    if backend == "dask":
        if not scheduler:
            raise CommandLineError("--backend dask needs --scheduler ADDRESS")
        try:
            from dask.distributed import Client
        except ImportError:
            raise CommandLineError('the dask backend needs: pip install "fourcards[distributed]"') from None
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
        raise CommandLineError(f"unknown bot {quote(unknown[0], 20)} for simulate; choose from "
                               f"{', '.join(POLICIES)} (search bots: fourcards tournament)")
    if args.scheduler and args.backend != "dask":
        raise CommandLineError("--scheduler is for --backend dask")
    try:
        rules = Rules(players=len(bots), target_score=args.target_score)
    except ValueError as error:
        raise CommandLineError(f"--bots names {len(bots)} seats: {error}") from None
    progress = None if args.no_progress or args.json or args.matches == 0 else ProgressBar()
    with executor_for(args.backend, min(args.workers, max(1, -(-args.matches // args.batch_size))),
                      args.scheduler) as executor:
        result = simulate_many(args.matches, args.seed, bots, rules, executor=executor,
                               batch_size=args.batch_size, progress=progress)
    data = summary(result, bots)
    data.update(seed=args.seed, bots=bots, rules=rules.to_dict())
    print(json.dumps(data, indent=2, allow_nan=False) if args.json else format_summary(data))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    from ..benchmarks import core, engine, fourcolor, search, zangle

    chosen = list(dict.fromkeys(args.only or ["core", "engine", "fourcolor", "zangle"]))
    quick = ["--quick"] if args.quick else []
    for done, name in enumerate(chosen):
        if not args.no_progress:  # a step counter: the benchmarks print their tables in between
            sys.stderr.write(f"[{done + 1}/{len(chosen)}] {name} ({'#' * done}{'.' * (len(chosen) - done)})\n")
            sys.stderr.flush()
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
    if not args.no_progress:
        sys.stderr.write(f"[{len(chosen)}/{len(chosen)}] done ({'#' * len(chosen)})\n")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.command == "simulate":
        return run_simulate(args)
    if args.command == "tournament":
        from ..tournament import run_command

        return run_command(args)
    return run_bench(args)
