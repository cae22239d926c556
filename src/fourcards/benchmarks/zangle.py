"""Zangle: ``find_zangles`` through the packed fast path, against the call floor.

    python -m fourcards.benchmarks.zangle [--quick] [--seed S]

Target: every Zangle for 4 centre cards and 4-8 own cards in <= 100x the call
floor (a trivial compiled function taking the same two integers), timed in the
same run; the median over interleaved rounds of the best of three passes.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
from collections.abc import Callable, Sequence
from time import perf_counter_ns
from typing import Any

import fourcards
from fourcards import _native
from fourcards.zangle import _kernels
from fourcards.terminal.args import SEED, Parser, program_name
from fourcards.zangle.cards import deck_cards, find_zangles, pack_counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog=program_name("fourcards.benchmarks.zangle", __file__), description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=SEED, default=2024,
                        help="seed of the tables of cards, 0 to 2**64 - 1 (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="fewer tables and rounds")
    args = parser.parse_args(argv)
    if not fourcards.COMPILED:
        raise SystemExit("the benchmark measures the compiled core")
    rng = random.Random(args.seed)
    deck = deck_cards()
    tables = []
    for _ in range(1000 if args.quick else 5000):
        cards = rng.sample(deck, 4 + rng.randint(4, 8))
        tables.append((pack_counts(cards[:4]), pack_counts(cards[4:]), cards[:4], cards[4:]))
    floor_fn: Any = _native.call_floor_pair
    core = _kernels.core
    assert core is not None
    fast_fn: Any = core.zangle_find_packed

    def floor() -> None:
        for c, o, _, _ in tables:
            floor_fn(c, o)

    def fast() -> None:
        for c, o, _, _ in tables:
            fast_fn(c, o)

    few = tables[:200]

    def twin() -> None:
        for _, _, c, o in few:
            find_zangles(c, o)

    subjects: dict[str, tuple[Callable[[], None], int]] = {
        "floor": (floor, len(tables)), "fast": (fast, len(tables)), "twin": (twin, len(few))}
    results: dict[str, list[float]] = {k: [] for k in subjects}
    rounds = 5 if args.quick else 15
    gc.disable()
    try:
        for r in range(rounds):
            names = list(subjects)[r % 3:] + list(subjects)[:r % 3]
            for name in names:
                loop, calls = subjects[name]
                best = float("inf")
                for _ in range(3):
                    start = perf_counter_ns()
                    loop()
                    best = min(best, (perf_counter_ns() - start) / calls)
                results[name].append(best)
    finally:
        gc.enable()
    t = {k: statistics.median(v) for k, v in results.items()}
    found = sum(len(fast_fn(c, o)) for c, o, _, _ in tables) / len(tables)
    ratio = t["fast"] / t["floor"]
    print(f"fourcards {fourcards.__version__} Zangle search; {len(tables):,} tables of 4 centre and 4-8 own "
          f"cards ({found:.1f} Zangles on average); {rounds} interleaved rounds\n")
    print("| measurement | time/call | x call floor | target | status |")
    print("|---|---|---|---|---|")
    print(f"| call floor: `call_floor_pair(centre, own)` | {t['floor']:.1f} ns | 1.00x | - | - |")
    print(f"| find_zangles, packed fast path | {t['fast']:.0f} ns | {ratio:.1f}x | <= 100x | "
          f"{'met' if ratio <= 100 else 'not met here'} |")
    print(f"| find_zangles, pure-Python twin (Zangle objects) | {t['twin']:.0f} ns | "
          f"{t['twin'] / t['floor']:.0f}x | - | - |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
