"""``fourcards tournament`` and ``fourcards bench``, and what commands that run many matches share
(intervals, a local or Dask executor)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..stats import interval
from ..terminal.args import ProgressBar, executor_for

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


BENCH_PREAMBLE = """\
How to read these tables: each row times one call (the best of a batch, then the median of
interleaved rounds) and divides it by the call floor measured in the same run: a compiled
function doing nothing with the same arguments. Figures vary with the machine and its load
(ratios less than times). The status column says whether this run met the target the
project sets on a quiet machine: "not met here" on a busy or shared machine is no failure,
and nothing here exits with an error once it has measured."""


def run_bench(args: argparse.Namespace) -> int:
    from ..benchmarks import DEFAULT_BENCHMARKS, run_benchmark

    chosen = list(dict.fromkeys(args.only or DEFAULT_BENCHMARKS))
    print(BENCH_PREAMBLE, flush=True)
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
