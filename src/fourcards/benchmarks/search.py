"""Benchmark the Gang of Four search bot: iterations per second, and its match
win rate against three rule-based players as the time budget grows.

    python -m fourcards.benchmarks.search                  # print the tables
    python -m fourcards.benchmarks.search --write-docs      # also write docs/gang-of-four/search.md
    python -m fourcards.benchmarks.search --deals 125 --budgets 20   # the 500-match target run

(in a clone of the repository, ``python benchmarks/bench_gangoffour_search.py`` runs the same;
``fourcards bench --only search`` runs it with its defaults)

Win rates come from `fourcards.tournament.run_tournament`: every deal is
played with the seats rotated (4 matches a deal), on a process pool; the 95%
intervals treat deals as the independent unit.  An even seat wins 25%.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import fourcards
from fourcards.gangoffour.bots import SearchBot
from fourcards.gangoffour.match import GangOfFour
from fourcards.search import MAX_TIME_PER_MOVE
from fourcards.terminal.args import SEED, Parser, check_output, file_name, int_in, positive, program_name
from fourcards.tournament import Entrant, run_tournament


def positions(count: int, seed: int) -> list[tuple[object, list[int]]]:
    """Mid-round decision points from rule-based matches (observation, legal actions)."""
    from fourcards.gangoffour.bots import GreedyBot

    game = GangOfFour()
    found: list[tuple[object, list[int]]] = []
    rng = np.random.default_rng(seed)
    greedy = GreedyBot()
    match = 0
    while len(found) < count:
        state = game.new_match(int(rng.integers(2**32)) + match)
        match += 1
        while not state.is_terminal and len(found) < count:
            player = state.current_player
            obs, legal = state.observation(player), state.legal_actions()
            if len(legal) > 1 and obs.phase == "play" and rng.random() < 0.2:
                found.append((obs, legal))
            state.apply(greedy.choose(obs, legal))
    return found


def iterations_per_second(points: list[tuple[object, list[int]]], iterations: int) -> float:
    bot = SearchBot(seed=1, iterations=iterations)
    start = time.perf_counter()
    for obs, legal in points:
        bot.choose(obs, legal)  # type: ignore[arg-type]
    return bot.total_iterations / (time.perf_counter() - start)


def milliseconds(text: str) -> list[float]:
    """An argparse type: budgets in milliseconds, comma-separated, each above 0 and at most an hour."""
    budgets = [positive(part.strip()) for part in text.split(",")]
    for budget in budgets:
        if budget > MAX_TIME_PER_MOVE * 1000:
            raise argparse.ArgumentTypeError(f"{budget:,.0f} ms is too long (at most {MAX_TIME_PER_MOVE * 1000:,.0f})")
    return budgets


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog=program_name("fourcards.benchmarks.search", __file__), description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=SEED, default=2026)
    parser.add_argument("--deals", type=int_in(1, 100_000), default=12, help="deals per budget (4 matches each)")
    parser.add_argument("--budgets", type=milliseconds, default="5,20,80",
                        help="milliseconds a move, comma-separated (default: %(default)s)")
    parser.add_argument("--workers", type=int_in(1, 1024), default=os.cpu_count() or 1)
    parser.add_argument("--write-docs", nargs="?", const="docs/gang-of-four/search.md", default=None, type=file_name,
                        metavar="PATH", help="also write the tables as a docs page (default path: %(const)s)")
    args = parser.parse_args(argv)
    if args.write_docs is not None:  # refused now, not after the minutes the tables take
        check_output(parser, "--write-docs", Path(args.write_docs))
    if not fourcards.COMPILED:
        parser.error("the search needs the compiled core")

    points = positions(60, args.seed)
    rate = iterations_per_second(points, 400)
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, fourcards {fourcards.__version__}; seed {args.seed}.",
        "",
        f"Search speed: **{rate:,.0f} iterations per second** on one core "
        f"(400 iterations on each of {len(points)} mid-round positions; an iteration is a "
        "determinization, a tree walk, one new node and a rule-based playout to the end of the round).",
        "",
        "| budget a move | iterations a move (mean) | matches | SearchBot win rate [95% CI] | "
        "SearchBot penalty per round | GreedyBot penalty per round |",
        "|---|---|---|---|---|---|",
    ]
    for budget in args.budgets:
        entrants = [Entrant.of("search", label="search", time_per_move=budget / 1000),
                    Entrant("greedy"), Entrant("greedy"), Entrant("greedy")]
        start = time.perf_counter()
        with ProcessPoolExecutor(args.workers) as pool:
            result = run_tournament(entrants, deals=args.deals, seed=args.seed, executor=pool, chunk=1)
        elapsed = time.perf_counter() - start
        probe = SearchBot(seed=0, time_per_move=budget / 1000)
        for obs, legal in points[:20]:
            probe.choose(obs, legal)  # type: ignore[arg-type]
        per_move = probe.total_iterations / max(1, probe.searched_moves)
        s, g = result.stats["search"], result.stats["greedy"]
        lines.append(
            f"| {budget:g} ms | {per_move:,.0f} | {result.matches} | {s.win_rate} | "
            f"{s.penalty_per_round.mean:.2f} [{s.penalty_per_round.low:.2f}, {s.penalty_per_round.high:.2f}] | "
            f"{g.penalty_per_round.mean:.2f} [{g.penalty_per_round.low:.2f}, {g.penalty_per_round.high:.2f}] |"
        )
        print(lines[-1], f"({elapsed:.0f} s)", flush=True)
    text = "\n".join(lines)
    print()
    print(text)
    if args.write_docs is not None:
        page = Path(args.write_docs)
        try:
            page.write_text(
                "# The search bot: speed and strength\n\n"
                "`SearchBot` (information-set Monte Carlo tree search with determinization, "
                "see `fourcards.gangoffour.bots`) against three `GreedyBot`s, seats rotated over "
                "duplicate deals. Produced by `python benchmarks/bench_gangoffour_search.py --write-docs` in a "
                "clone of the repository (from an installed wheel: `python -m fourcards.benchmarks.search`, same "
                "options, or `fourcards bench --only search`); absolute speeds drift between runs on shared "
                "machines.\n\n" + text + "\n"
            )
        except OSError as error:  # what the check before the run could not see
            parser.error(f"argument --write-docs: {page}: {error.strerror or error} (the tables are printed above)")
        print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
