"""The costs around the bots, every game: building a game, and tournaments
against the same matches played in a plain loop.

    python -m fourcards.benchmarks.costs [--quick] [--seed S] [--deals N]

**Constructors**: each registered game built with its default rules after the
first time in the process (which builds the tables every game of the rule set
shares: Zangle's action numbering, the shipped deck); target <= 2 ms, the
median of 200 builds.

**Tournaments**: for each registered game, the same deals (every rotation of the seats, the
game's best rule bot in every seat) are played twice, interleaved over
rounds: by :func:`fourcards.tournament.run_tournament` (no process pool:
its own bookkeeping is what is measured) and by a plain loop that builds
one game, seats freshly seeded bots and applies their choices.  Target: the
tournament within 1.25x of the loop (it reuses one game for the rule set, as
the loop does; a game with a compiled tournament path, ``tournament_rows``,
plays faster than the loop).  Each time is the median over the rounds of
the best of two passes.
"""

from __future__ import annotations

import argparse
import gc
import statistics
from collections.abc import Callable, Sequence
from time import perf_counter_ns

import fourcards
from fourcards.engine import derive_seed
from fourcards.games import GAMES, GameEntry
from fourcards.terminal.args import SEED, Parser, int_in, program_name
from fourcards.tournament import Entrant, run_tournament

TARGET = 1.25
CONSTRUCTOR_TARGET = 2.0
#: The most deals a game ``--deals`` takes: a deal is some 3 seconds of the full run here (every
#: game, every rotation, 7 rounds of 2 passes of loop and tournament), so the most is about an hour.
MAX_DEALS = 1_000


def rule_bot(entry: GameEntry) -> str:
    """The game's best bot among the rule bots (no search: the benchmark times the engine)."""
    kinds = [kind for kind in entry.available_bots if kind not in ("random", "search", "learned")]
    return kinds[0] if kinds else "random"


def plain_loop(entry: GameEntry, kind: str, players: int, deals: int, seed: int) -> Callable[[], None]:
    """The same matches as the tournament, in a plain loop over one game."""

    def run() -> None:
        game = entry.new_game(players=players)
        for deal in range(deals):
            match_seed = derive_seed(seed, deal)
            for rotation in range(players):
                bots = [entry.new_bot(kind, game, derive_seed(match_seed, 1000 + (seat + rotation) % players))
                        for seat in range(players)]
                state = game.new_match(match_seed)
                while not state.is_terminal:
                    player = state.current_player
                    state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)

    return run


def tournament(entry: GameEntry, kind: str, players: int, deals: int, seed: int) -> Callable[[], None]:
    def run() -> None:
        run_tournament([Entrant(kind)] * players, deals=deals, seed=seed, chunk=deals, game=entry.name,
                       players=players)

    return run


def players_of(entry: GameEntry) -> int:
    low, high = entry.game_class.player_range()
    return max(low, min(high, 3)) if low > 1 else max(2, min(high, 3))


def print_table(lines: list[tuple[str, ...]]) -> None:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for i, line in enumerate(lines):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def constructors() -> list[tuple[str, ...]]:
    """Each game's constructor: the first build in this process, then the median of 200."""
    lines: list[tuple[str, ...]] = [("game", "first build", "then (median of 200)", "target", "status")]
    for entry in GAMES.values():
        start = perf_counter_ns()
        entry.new_game()
        first = (perf_counter_ns() - start) / 1e6
        times = []
        for _ in range(200):
            start = perf_counter_ns()
            entry.new_game()
            times.append((perf_counter_ns() - start) / 1e6)
        then = statistics.median(times)
        lines.append((entry.name, f"{first:.2f} ms", f"{then:.3f} ms", f"<= {CONSTRUCTOR_TARGET:g} ms",
                      "PASS" if then <= CONSTRUCTOR_TARGET else "MISS"))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog=program_name("fourcards.benchmarks.costs", __file__), description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=SEED, default=2024,
                        help="seed of the deals, 0 to 2**64 - 1 (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="fewer deals and rounds")
    parser.add_argument("--deals", type=int_in(1, MAX_DEALS), default=None,
                        help=f"deals a game, 1 to {MAX_DEALS:,} (default: 4, with --quick 2)")
    args = parser.parse_args(argv)
    deals = args.deals or (2 if args.quick else 4)
    rounds = 3 if args.quick else 7
    print(f"# fourcards {fourcards.__version__} costs around the bots\n")
    print("## Building a game (default rules)\n")
    print_table(constructors())
    print("\n## Tournaments against a plain loop\n")
    print(f"compiled core: {fourcards.COMPILED}; seed {args.seed}; {deals} deals a game, every rotation; "
          f"{rounds} interleaved rounds (best of 2 passes each)\n")
    header = ("game", "bots", "matches", "plain loop", "tournament", "tournament / loop", "target", "status")
    lines: list[tuple[str, ...]] = [header]
    for entry in GAMES.values():
        kind = rule_bot(entry)
        players = players_of(entry)
        subjects = {"loop": plain_loop(entry, kind, players, deals, args.seed),
                    "tournament": tournament(entry, kind, players, deals, args.seed)}
        times: dict[str, list[float]] = {name: [] for name in subjects}
        gc.disable()
        try:
            for r in range(rounds):
                order = list(subjects)[r % 2:] + list(subjects)[:r % 2]
                for name in order:
                    best = float("inf")
                    for _ in range(2):
                        start = perf_counter_ns()
                        subjects[name]()
                        best = min(best, (perf_counter_ns() - start) / 1e9)
                    times[name].append(best)
        finally:
            gc.enable()
        loop, played = statistics.median(times["loop"]), statistics.median(times["tournament"])
        ratio = played / loop
        lines.append((entry.name, f"{players} x {kind}", str(deals * players), f"{loop * 1e3:.1f} ms",
                      f"{played * 1e3:.1f} ms", f"{ratio:.2f}x", f"<= {TARGET}x",
                      "PASS" if ratio <= TARGET else "MISS"))
    print_table(lines)
    print("\nTimes vary with the machine's load; the ratio is taken within one run.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
