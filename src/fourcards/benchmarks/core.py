#!/usr/bin/env python
"""Benchmark the Gang of Four core against the call floor, in one run.

Absolute times on a shared machine drift from run to run; ratios measured in
the same run do not.  So every measurement is reported as a multiple of the
*call floor*: the time of ``fourcards._native.call_floor``, a compiled function
that does nothing but take the kernels' arguments, called through the same
kind of Python loop with the same argument shapes.  A ratio of 1.0 means "as
cheap as calling a compiled function at all"; below 1.0 (batch kernels) means
cheaper per hand than one Python-level call.

Method: every benchmark loops a pre-bound function over a pre-built argument
list.  Each round runs every benchmark once (the order rotates from round to
round), keeping the fastest of ``--inner`` passes; the reported time is the
median over rounds, and a ratio is the median of the subject over the median
of its floor.  The garbage collector is off while timing, as in ``timeit``.

The peers (treys, phevaluator) are optional: ``pip install fourcards[bench]``.

Usage::

    python benchmarks/bench_gangoffour_core.py            # full run
    python benchmarks/bench_gangoffour_core.py --quick    # a few seconds
    python benchmarks/bench_gangoffour_core.py --seed 7

The script says whether each target was met ("met", "not met here": figures vary
with the machine and its load) and always exits 0 once
it has measured (it exits 1 only when the compiled core is not in use).
"""

from __future__ import annotations

import gc
import os
import platform
import random
import statistics
import sys
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from time import perf_counter_ns
from typing import Any

import numpy as np
import numpy.typing as npt

import fourcards
from fourcards.gangoffour import (
    DECK,
    NO_TABLE,
    NUM_ACTIONS,
    PAD,
    Card,
    ComboKind,
    action_to_combo,
    classify,
    classify_batch,
    classify_mask,
    hand_mask,
    legal_actions,
)
from fourcards.terminal.args import SEED, Parser, int_in, program_name

#: The most interleaved rounds ``--rounds`` takes (a round takes under a second: minutes in all).
MAX_ROUNDS = 1_000
BENCH_HINT = "not installed (pip install fourcards[bench])"
WIDTH = 7  # the longest combination (a gang of seven) fits a row
FIVE_CARD_ACTIONS = range(ComboKind.STRAIGHT.actions.start, ComboKind.STRAIGHT_FLUSH.actions.stop)
FIRST_GANG = ComboKind.GANG.actions.start

Fn = Callable[..., object]
Loop = Callable[[Fn, Sequence[Any]], int]


# -- timing loops ---------------------------------------------------------------
# One loop per argument shape, so a subject and its floor pay the same loop and
# unpacking overhead.  Each returns the elapsed nanoseconds of one pass.

def loop1(fn: Fn, args: Sequence[Any]) -> int:
    start = perf_counter_ns()
    for a in args:
        fn(a)
    return perf_counter_ns() - start


def loop2(fn: Fn, args: Sequence[Any]) -> int:
    start = perf_counter_ns()
    for a, b in args:
        fn(a, b)
    return perf_counter_ns() - start


def loop5(fn: Fn, args: Sequence[Any]) -> int:
    start = perf_counter_ns()
    for a, b, c, d, e in args:
        fn(a, b, c, d, e)
    return perf_counter_ns() - start


@dataclass
class Bench:
    """One timed subject: ``loop(fn, args)`` covers ``items`` calls (or hands)."""

    name: str
    fn: Fn
    args: Sequence[Any]
    loop: Loop
    items: int = 0  # defaults to len(args)
    samples: list[float] = field(default_factory=list)  # ns per item, one per round

    def __post_init__(self) -> None:
        if not self.items:
            self.items = len(self.args)

    def measure(self, inner: int) -> float:
        """Nanoseconds per item: the fastest of ``inner`` passes."""
        return min(self.loop(self.fn, self.args) for _ in range(inner)) / self.items

    def sample(self, inner: int) -> None:
        self.samples.append(self.measure(inner))

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


@dataclass
class PerHandBench(Bench):
    """Times each (hand, table) pair on its own; a round's sample is the median hand.

    Each pair is called ``reps`` times in a row under one timer read, so the
    timer's own cost (~30 ns) is spread over calls that take microseconds.
    """

    reps: int = 10

    def measure(self, inner: int) -> float:
        fn, rep = self.fn, range(self.reps)
        per_hand = []
        for hand, table in self.args:
            start = perf_counter_ns()
            for _ in rep:
                fn(hand, table)
            per_hand.append((perf_counter_ns() - start) / self.reps)
        return statistics.median(per_hand)


def run_rounds(benches: Sequence[Bench], rounds: int, inner: int) -> None:
    """Interleave: every round times every bench once, in a rotating order."""
    for bench in benches:  # warm up caches and the branch predictor
        bench.measure(1)
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            k = r % len(benches)
            for bench in [*benches[k:], *benches[:k]]:
                bench.sample(inner)
    finally:
        gc.enable()


# -- workloads --------------------------------------------------------------------

@dataclass
class ClassifyData:
    """Valid five-card combinations, their cards shuffled, in three forms."""

    masks: list[int]
    cards: list[tuple[Card, ...]]
    texts: list[str]
    actions: list[int]


def make_classify_data(rng: random.Random, n: int) -> ClassifyData:
    actions = [rng.choice(FIVE_CARD_ACTIONS) for _ in range(n)]
    cards = []
    for action in actions:
        hand = list(action_to_combo(action).cards)
        rng.shuffle(hand)
        cards.append(tuple(hand))
    texts = [" ".join(str(card) for card in hand) for hand in cards]
    masks = [hand_mask(hand) for hand in cards]
    return ClassifyData(masks, cards, texts, actions)


def make_batch(rng: np.random.Generator, rows: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
    """``rows`` combinations drawn uniformly from all actions, as padded code rows."""
    table = np.full((NUM_ACTIONS, WIDTH), PAD, dtype=np.uint8)
    for action in range(NUM_ACTIONS):
        codes = [card.code for card in action_to_combo(action).cards]
        table[action, : len(codes)] = codes
    actions = rng.integers(0, NUM_ACTIONS, size=rows, dtype=np.int32)
    order = rng.permutation(rows)
    actions = actions[order]
    return np.ascontiguousarray(table[actions]), actions


@dataclass
class LegalData:
    follow: list[tuple[int, int]]  # (hand mask, a non-gang play of that hand)
    lead: list[tuple[int, int]]  # (hand mask, NO_TABLE)
    mean_lead: float  # mean number of legal actions
    mean_follow: float


def make_legal_data(rng: random.Random, hands: int) -> LegalData:
    """16-card hands dealt four at a time from seeded shuffles of the deck."""
    masks: list[int] = []
    deck = list(DECK)
    while len(masks) < hands:
        rng.shuffle(deck)
        masks.extend(hand_mask(deck[16 * i : 16 * i + 16]) for i in range(4))
    masks = masks[:hands]
    follow, lead, n_lead, n_follow = [], [], 0, 0
    for mask in masks:
        leading = legal_actions(mask, NO_TABLE)
        table = rng.choice(leading[leading < FIRST_GANG].tolist())
        follow.append((mask, table))
        lead.append((mask, NO_TABLE))
        n_lead += len(leading)
        n_follow += len(legal_actions(mask, table))
    return LegalData(follow, lead, n_lead / hands, n_follow / hands)


@dataclass
class PokerData:
    """Random five-card poker deals, as phevaluator ids and treys ints."""

    ids: list[tuple[int, ...]]  # five ids each
    treys: list[tuple[list[int], list[int]]]  # (2-card hand, 3-card board)


def make_poker_data(rng: random.Random, n: int) -> PokerData:
    ranks, suits = "23456789TJQKA", "cdhs"  # phevaluator id = rank * 4 + suit
    ids = [tuple(rng.sample(range(52), 5)) for _ in range(n)]
    treys_new = _treys_card_new()
    treys_deals: list[tuple[list[int], list[int]]] = []
    if treys_new is not None:
        for deal in ids:
            ints = [treys_new(ranks[i // 4] + suits[i % 4]) for i in deal]
            treys_deals.append((ints[:2], ints[2:]))
    return PokerData(ids, treys_deals)


def _treys_card_new() -> Callable[[str], int] | None:
    try:
        from treys import Card as TreysCard
    except ImportError:
        return None
    new: Callable[[str], int] = TreysCard.new
    return new


def compress(data: bytes) -> bytes:
    return zlib.compress(data, 1)


def in_turn(fn: Fn) -> Callable[[Sequence[Any]], list[object]]:
    """Run ``fn`` on each part, one after the other, on this thread."""
    return lambda parts: [fn(part) for part in parts]


def on_threads(pool: ThreadPoolExecutor, fn: Fn) -> Callable[[Sequence[Any]], list[Any]]:
    """Run ``fn`` on each part on the pool's threads, and wait for all."""
    def run(parts: Sequence[Any]) -> list[Any]:
        futures = [pool.submit(fn, part) for part in parts]
        return [future.result() for future in futures]
    return run


def load_peers() -> dict[str, Fn | None]:
    peers: dict[str, Fn | None] = {"phevaluator C": None, "phevaluator": None, "treys": None}
    try:
        from phevaluator import evaluate_5cards  # a Python wrapper: Card.to_id on each card
    except ImportError:
        pass
    else:
        peers["phevaluator"] = evaluate_5cards
    try:
        from phevaluator import _pheval  # the C extension behind it (phevaluator >= 0.6)
    except ImportError:
        pass
    else:
        peers["phevaluator C"] = _pheval.evaluate_5cards
    try:
        from treys import Evaluator
    except ImportError:
        pass
    else:
        peers["treys"] = Evaluator().evaluate
    return peers


# -- report -----------------------------------------------------------------------

def fmt_time(ns: float) -> str:
    if ns < 1e3:
        return f"{ns:.1f} ns" if ns >= 10 else f"{ns:.2f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns / 1e6:.2f} ms"


@dataclass
class Row:
    measurement: str
    bench: Bench | None  # None: not measured (peer not installed)
    floor: Bench | None
    target: str = "—"
    ok: bool | None = None  # None: informational

    def cells(self) -> list[str]:
        if self.bench is None:
            return [self.measurement, BENCH_HINT, "", "", ""]
        ratio = f"{self.bench.median / self.floor.median:.2f}x" if self.floor else "—"
        if self.ok is None:
            status = "—" if self.target == "—" else "SKIP"  # SKIP: its peer is not installed
        else:
            status = "met" if self.ok else "not met here"
        return [self.measurement, fmt_time(self.bench.median), ratio, self.target, status]


def ratio(bench: Bench, floor: Bench) -> float:
    return bench.median / floor.median


def print_table(rows: Sequence[Row]) -> None:
    lines = [["measurement", "time/call", "x call floor", "target", "status"]] + [r.cells() for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(5)]
    for i, line in enumerate(lines):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def peer_target(subject: Bench, peer: Bench | None, floor: Bench, name: str, strict: bool) -> tuple[str, bool | None]:
    """The target text and verdict for "faster than (or no slower than) a peer"."""
    word = "<" if strict else "<="
    if peer is None:
        return f"{word} {name} (not installed)", None
    ok = subject.median < peer.median if strict else subject.median <= peer.median
    return f"{word} {name} ({ratio(peer, floor):.2f}x)", ok


def both(a: bool | None, b: bool | None) -> bool | None:
    if a is None or b is None:
        return a if b is None else b
    return a and b


# -- main -------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog=program_name("fourcards.benchmarks.core", __file__),
                    description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=SEED, default=2024,
                        help="seed of every random workload, 0 to 2**64 - 1 (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="smaller workloads, fewer rounds (a few seconds)")
    parser.add_argument("--rounds", type=int_in(1, MAX_ROUNDS),
                        help=f"interleaved rounds, 1 to {MAX_ROUNDS:,} (default: 15, with --quick 7)")
    args = parser.parse_args(argv)

    if not fourcards.COMPILED:
        print("the compiled core is not in use (fourcards.COMPILED is False): build it first", file=sys.stderr)
        return 1
    from fourcards import _native
    from fourcards.gangoffour import _combos

    quick = args.quick
    rounds = args.rounds or (7 if quick else 15)
    n_calls = 10_000 if quick else 20_000
    n_rows = 300_000 if quick else 1_000_000
    n_hands = 500 if quick else 2_000
    inner = 3

    rng = random.Random(args.seed)
    np_rng = np.random.default_rng(args.seed)
    data = make_classify_data(rng, n_calls)
    codes, drawn = make_batch(np_rng, n_rows)
    legal = make_legal_data(rng, n_hands)
    poker = make_poker_data(rng, n_calls)
    peers = load_peers()

    # Sanity: the workloads classify as built (a failure here is a bug, not a miss).
    if [_combos.classify_mask(m) for m in data.masks] != data.actions:
        raise RuntimeError("classify_mask disagrees with the actions the workload was built from")
    kinds, actions = classify_batch(codes)
    if not np.array_equal(actions, drawn):
        raise RuntimeError("classify_batch disagrees with the actions the workload was built from")

    half = n_rows // 2
    halves = (codes[:half], codes[half:])
    pool = ThreadPoolExecutor(max_workers=2)
    batch_on_two_threads = on_threads(pool, classify_batch)
    split = batch_on_two_threads(halves)
    identical = (np.array_equal(np.concatenate([part[0] for part in split]), kinds)
                 and np.array_equal(np.concatenate([part[1] for part in split]), actions))

    floor1 = Bench("floor1", _native.call_floor, data.masks, loop1)
    floor2 = Bench("floor2", _native.call_floor, legal.follow, loop2)
    raw = Bench("raw", _combos.classify_mask, data.masks, loop1)
    public = Bench("public", classify_mask, data.masks, loop1)
    from_cards = Bench("cards", classify, data.cards, loop1)
    from_text = Bench("text", classify, data.texts, loop1)
    mask_cards = Bench("mask cards", hand_mask, data.cards, loop1)
    mask_text = Bench("mask text", hand_mask, data.texts, loop1)
    batch1 = Bench("batch1", classify_batch, [codes], loop1, items=n_rows)
    batch2 = Bench("batch2", batch_on_two_threads, [halves], loop1, items=n_rows)
    # Machine reference: what two threads gain on a stock GIL-free workload
    # (zlib releases the GIL while it compresses).
    payload = tuple(part.tobytes()[:n_rows] for part in halves)
    zlib1 = Bench("zlib serial", in_turn(compress), [payload], loop1)
    zlib2 = Bench("zlib threads", on_threads(pool, compress), [payload], loop1)
    follow = PerHandBench("follow", legal_actions, legal.follow, loop2)
    lead = PerHandBench("lead", legal_actions, legal.lead, loop2)
    pheval_c = pheval = treys = None
    if peers["phevaluator C"] is not None:
        pheval_c = Bench("phevaluator C", peers["phevaluator C"], poker.ids, loop5)
    if peers["phevaluator"] is not None:
        pheval = Bench("phevaluator", peers["phevaluator"], poker.ids, loop5)
    if peers["treys"] is not None:
        treys = Bench("treys", peers["treys"], poker.treys, loop2)

    benches = [b for b in (floor1, raw, public, from_cards, from_text, mask_cards, mask_text,
                           pheval_c, pheval, treys, batch1, batch2, zlib1, zlib2, floor2, follow, lead) if b]
    started = perf_counter_ns()
    run_rounds(benches, rounds, inner)
    elapsed = (perf_counter_ns() - started) / 1e9
    pool.shutdown()

    fast = ratio(raw, floor1) <= 2.0
    pheval_text, pheval_ok = peer_target(raw, pheval_c, floor1, "phevaluator C", strict=True)
    public_text, public_ok = peer_target(public, pheval_c, floor1, "phevaluator C", strict=True)
    cards_text, cards_ok = peer_target(from_cards, treys, floor1, "treys", strict=True)
    text_text, text_ok = peer_target(from_text, treys, floor1, "treys", strict=False)
    rows = [
        Row("call floor: `call_floor(mask)`", floor1, floor1),
        Row("classify_mask(mask), raw kernel `_combos`", raw, floor1,
            f"<= 2x; {pheval_text}", both(fast, pheval_ok)),
        Row("classify_mask(mask), public `gangoffour`", public, floor1,
            f"<= 2x; {public_text}", both(ratio(public, floor1) <= 2.0, public_ok)),
        Row("classify(tuple of 5 Card)", from_cards, floor1, cards_text, cards_ok),
        Row("classify(text of 5 cards)", from_text, floor1, text_text, text_ok),
        Row("  of which hand_mask(tuple of 5 Card)", mask_cards, floor1),
        Row("  of which hand_mask(text of 5 cards)", mask_text, floor1),
        Row(f"classify_batch, 1 thread, {n_rows:,} rows, per hand", batch1, floor1,
            "<= 0.4x", ratio(batch1, floor1) <= 0.4),
        Row("call floor: `call_floor(mask, table)`", floor2, floor2),
        Row(f"legal_actions following, median of {n_hands:,} hands", follow, floor2,
            "<= 100x", ratio(follow, floor2) <= 100),
        Row(f"legal_actions leading, median of {n_hands:,} hands", lead, floor2,
            "<= 400x", ratio(lead, floor2) <= 400),
        Row("peer: phevaluator `_pheval.evaluate_5cards` (raw C, 5 ints)", pheval_c, floor1),
        Row("peer: phevaluator `evaluate_5cards` (Python wrapper, 5 ints)", pheval, floor1),
        Row("peer: treys `Evaluator().evaluate(hand, board)` (2 + 3 ints)", treys, floor1),
    ]

    print(f"# fourcards {fourcards.__version__} Gang of Four core benchmark")
    print()
    print(f"Python {platform.python_version()}, numpy {np.__version__}, compiled core: {fourcards.COMPILED}, "
          f"{os.cpu_count()} CPUs; seed {args.seed}{', quick' if quick else ''}; "
          f"{rounds} interleaved rounds (best of {inner} passes each), timed in {elapsed:.1f} s")
    print(f"classify: {n_calls:,} valid 5-card combinations, cards shuffled; peers: {n_calls:,} random "
          f"5-card poker deals; legal hands: 16 cards, mean {legal.mean_lead:.0f} legal actions leading, "
          f"{legal.mean_follow:.1f} following")
    print()
    print_table(rows)
    print()
    print(f"threads: classify_batch on 2 threads over halves gives "
          f"{'identical' if identical else 'DIFFERENT'} results; speedup {batch1.median / batch2.median:.2f}x "
          f"({fmt_time(batch2.median)} vs {fmt_time(batch1.median)} per hand); machine reference: "
          f"zlib.compress on 2 threads {zlib1.median / zlib2.median:.2f}x, {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
