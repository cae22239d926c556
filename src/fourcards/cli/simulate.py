"""``fourcards tournament`` and ``fourcards bench``, and what commands that run many matches share
(intervals, a local or Dask executor)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..tournament import t_interval, wilson_interval
from .args import CommandLineError, ProgressBar

__all__ = ["add_commands", "run", "ProgressBar", "interval", "executor_for"]


def add_commands(sub: Any) -> None:
    from ..benchmarks import BENCHMARKS, DEFAULT_BENCHMARKS
    from ..tournament import DESCRIPTION
    from ..tournament import add_arguments as add_tournament_arguments

    tour = sub.add_parser("tournament", help="bots of any game over rotated duplicate deals",
                          description=DESCRIPTION)
    add_tournament_arguments(tour)
    bench = sub.add_parser("bench", help="run the benchmarks and print their ratio tables",
                           description="Run the benchmarks and print their ratio tables.")
    bench.add_argument("--quick", action="store_true", help="smaller workloads, seconds each (default: full size)")
    bench.add_argument("--only", choices=BENCHMARKS, action="append",
                       help=f"run only this benchmark; repeat for more (default: {', '.join(DEFAULT_BENCHMARKS)})")
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


def run_bench(args: argparse.Namespace) -> int:
    from ..benchmarks import DEFAULT_BENCHMARKS, run_benchmark

    chosen = list(dict.fromkeys(args.only or DEFAULT_BENCHMARKS))
    for done, name in enumerate(chosen):
        if not args.no_progress:  # a step counter: the benchmarks print their tables in between
            sys.stderr.write(f"[{done + 1}/{len(chosen)}] {name} ({'#' * done}{'.' * (len(chosen) - done)})\n")
            sys.stderr.flush()
        print(f"\n## fourcards.benchmarks.{name}\n", flush=True)
        run_benchmark(name, args.quick)
    if not args.no_progress:
        sys.stderr.write(f"[{len(chosen)}/{len(chosen)}] done ({'#' * len(chosen)})\n")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.command == "tournament":
        from ..tournament import run_command

        return run_command(args)
    return run_bench(args)
