"""Four Color Cards core: ratios measured in one run.

    python -m fourcards.benchmarks.fourcolor [--quick] [--seed S]

- ``best_points_packed`` of 21-card hands (the integer fast path) against the
  call floor (a trivial compiled function taking the same argument), target
  <= 6x, and against the ``mahjong`` package's ``Agari().is_agari`` on
  near-winning 14-tile hands (the usual Python tool for "does this hand split
  completely"), target >= 15x faster;
- the batch entry point per hand, target <= 0.5x the call floor.

Each measurement is the median over interleaved rounds of the best of three
passes; absolute times drift between runs, ratios do not.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
from collections.abc import Callable, Sequence
from time import perf_counter_ns
from typing import Any

import numpy as np

import fourcards
from fourcards import _native
from fourcards.fourcolor import _reference, best_points_batch, best_points_packed

Loop = Callable[[], None]


def hands(rng: random.Random, count: int, complete_share: float = 0.5) -> list[list[int]]:
    """21-card hands: about half built from melds (complete), half dealt at random."""
    out: list[list[int]] = []
    while len(out) < count:
        counts = [0] * 28
        if rng.random() < complete_share:
            while sum(counts) < 21:
                meld = rng.choice(_reference.MELDS)
                if sum(counts) + len(meld) <= 21 and all(counts[k] + meld.count(k) <= 4 for k in meld):
                    for k in meld:
                        counts[k] += 1
                elif sum(counts) > 17:
                    break
            if sum(counts) != 21:
                continue
        else:
            for c in rng.sample(range(112), 21):
                counts[c // 4] += 1
        out.append(counts)
    return out


def mahjong_hands(rng: random.Random, count: int) -> list[list[int]] | None:
    try:
        from mahjong.agari import Agari  # noqa: F401
    except ImportError:
        return None
    out: list[list[int]] = []
    for _ in range(count):
        tiles = [0] * 34
        # four sets and a pair, then swap one tile half the time (near-winning)
        for _ in range(4):
            if rng.random() < 0.5:
                suit, start = rng.randrange(3), rng.randrange(7)
                for i in range(3):
                    tiles[suit * 9 + start + i] += 1
            else:
                tiles[rng.randrange(34)] += 3
        tiles[rng.randrange(34)] += 2
        if max(tiles) > 4:
            continue
        if rng.random() < 0.5:
            i = rng.choice([k for k in range(34) if tiles[k]])
            tiles[i] -= 1
            tiles[rng.randrange(34)] += 1
        if max(tiles) <= 4:
            out.append(tiles)
    return out


def timed(loop: Loop, calls: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = perf_counter_ns()
        loop()
        best = min(best, (perf_counter_ns() - start) / calls)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    if not fourcards.COMPILED:
        raise SystemExit("the benchmark measures the compiled core")
    rng = random.Random(args.seed)
    n = 2000 if args.quick else 10000
    rounds = 5 if args.quick else 15
    sample = hands(rng, n)
    packed = [sum(c << (3 * k) for k, c in enumerate(h)) for h in sample]
    rows = np.array(hands(rng, 200_000 if args.quick else 1_000_000), dtype=np.uint8)
    mj = mahjong_hands(rng, n // 4)
    floor_fn: Any = _native.call_floor_object

    def floor() -> None:
        for p in packed:
            floor_fn(p)

    def fast() -> None:
        for p in packed:
            best_points_packed(p)

    def batch() -> None:
        best_points_batch(rows)

    subjects: dict[str, tuple[Loop, int]] = {"floor": (floor, len(packed)), "fast": (fast, len(packed)),
                                             "batch": (batch, len(rows))}
    if mj is not None:
        from mahjong.agari import Agari

        agari = Agari()

        def peer() -> None:
            for tiles in mj:
                agari.is_agari(tiles)

        subjects["mahjong"] = (peer, len(mj))
    results: dict[str, list[float]] = {name: [] for name in subjects}
    gc.disable()
    try:
        for r in range(rounds):
            names = list(subjects)
            names = names[r % len(names):] + names[:r % len(names)]
            for name in names:
                loop, calls = subjects[name]
                results[name].append(timed(loop, calls))
    finally:
        gc.enable()
    t = {name: statistics.median(v) for name, v in results.items()}
    complete = sum(best_points_packed(p) >= 0 for p in packed)
    print(f"fourcards {fourcards.__version__} Four Color core; {len(packed):,} 21-card hands "
          f"({complete:,} complete); {len(rows):,} batch rows; {rounds} interleaved rounds\n")
    print("| measurement | time/call | x call floor | target | status |")
    print("|---|---|---|---|---|")
    print(f"| call floor: `call_floor_object(packed)` | {t['floor']:.1f} ns | 1.00x | - | - |")
    ratio = t["fast"] / t["floor"]
    if "mahjong" in t:
        speedup = t["mahjong"] / t["fast"]
        peer_text = f"{speedup:.0f}x faster than is_agari"
        ok = ratio <= 6 and speedup >= 15
    else:
        peer_text, ok = "mahjong not installed", ratio <= 6
    print(f"| best_points_packed, 21 cards | {t['fast']:.1f} ns | {ratio:.2f}x | <= 6x; >= 15x faster than "
          f"mahjong ({peer_text}) | {'PASS' if ok else 'MISS'} |")
    per_row = t["batch"] / t["floor"]
    print(f"| best_points_batch, per hand | {t['batch']:.2f} ns | {per_row:.2f}x | <= 0.5x | "
          f"{'PASS' if per_row <= 0.5 else 'MISS'} |")
    if "mahjong" in t:
        print(f"| peer: mahjong `Agari().is_agari`, 14 tiles | {t['mahjong']:.0f} ns | "
              f"{t['mahjong'] / t['floor']:.1f}x | - | - |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
