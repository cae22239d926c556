#!/usr/bin/env python
"""Benchmark loading saved Gang of Four matches: snapshots against the call floor, in one run.

What it measures, on one match played by four rule-based seats to 3,000 actions,
saved at its 30th and at its 3,000th action:

- ``fourcards.load(snapshot, key=...)``: a signed snapshot restored (no replay);
- load + apply + save: the snapshot loaded, one legal action applied, a new
  signed snapshot written (what a stateless service does for every request);
- the same load of the replay form (``to_json()``: the seed and the actions),
  which replays every action (the way before snapshots);
- ``MatchService.act`` of :mod:`fourcards.hosting` on a match at that step (load,
  every seat's view before and after, apply, the journal entry, save, the seat's
  update), with an in-memory store.

Targets (the issue's): loading the 3,000-action snapshot takes at most 1.5x the
time of the 30-action one, and load + apply + save of it at most 1 ms.

As in the other benchmarks, every time is also given as a multiple of the *call
floor* (``fourcards._native.call_floor(hand)``, a compiled function that does
nothing, called through the same kind of loop), and the ratios are measured in
one run: rounds interleave the subjects in a rotating order, each keeps its
fastest of ``--inner`` passes, and a subject's time is its median over rounds.

Usage::

    python benchmarks/bench_saves.py            # full run
    python benchmarks/bench_saves.py --quick    # a few seconds

It says whether each target was met ("met", "not met here": figures vary
with the machine's load) and exits 0 once it has measured (1
only when the compiled core is not in use).
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable, Sequence
from time import perf_counter_ns
from typing import Any

import fourcards
from fourcards.engine import State
from fourcards.games import get_game
from fourcards.hosting import MatchService, MemoryMatchStore, StoredMatch
from fourcards.terminal.args import program_name

from .engine import Pass, Row, Subject, fmt_time, loop1, print_table, run_rounds, timing_options

KEY = b"benchmark secret"
SHORT, LONG = 30, 3_000
RATIO_TARGET = 1.5
CYCLE_TARGET_NS = 1_000_000


def play_to(seed: int, steps: tuple[int, ...]) -> dict[int, State[Any]]:
    """One Gang of Four match of four greedy seats, copied at each of ``steps`` actions."""
    entry = get_game("gang-of-four")
    game = entry.new_game(target_score=100_000)
    bots = [entry.new_bot("greedy", game, seed=seat) for seat in range(4)]
    state = game.new_match(seed)
    copies: dict[int, State[Any]] = {}
    while state.step <= max(steps):
        if state.step in steps:
            copies[state.step] = state.clone()
        seat = state.current_player
        state.apply(bots[seat].choose(state.observation(seat), state.legal_actions()))
    return copies


def cycle_pass(text: str, action: int, count: int) -> Pass:
    """``count`` times: load the snapshot, apply ``action``, write a new snapshot."""
    load = fourcards.load

    def run() -> tuple[int, int]:
        start = perf_counter_ns()
        for _ in range(count):
            state = load(text, key=KEY)
            state.apply(action)
            state.to_json(KEY, snapshot=True)
        return perf_counter_ns() - start, count
    return run


def act_pass(service: MatchService, stored: StoredMatch, seat: int, action: int, count: int) -> Pass:
    """``count`` times: put the stored version back (a dict entry), then ``service.act``."""
    store = service.store
    assert isinstance(store, MemoryMatchStore)

    def run() -> tuple[int, int]:
        elapsed = 0
        for _ in range(count):
            store._matches[stored.id] = stored
            start = perf_counter_ns()
            service.act(stored.id, seat, action, expected_step=stored.step)
            elapsed += perf_counter_ns() - start
        return elapsed, count
    return run


def hosted_at(service: MatchService, state: State[Any], match_id: str) -> StoredMatch:
    """A hosted match of four people at ``state`` (stored as the service stores it)."""
    service.create("gang-of-four", [None] * 4, rules=state.game.rules_dict(), seed=state.seed, match_id=match_id)
    created = service.store.get(match_id)
    assert created is not None
    data = json.loads(created.data)
    data["journal"] = []
    stored = StoredMatch(match_id, state.step, state.to_json(KEY, snapshot=True), json.dumps(data))
    assert service.store.replace(stored, created.step)
    return stored


def main(argv: Sequence[str] | None = None) -> int:
    args = timing_options(__doc__ or "", argv, seed_help="seed of the match", quick_rounds=5,
                          prog=program_name("fourcards.benchmarks.saves", __file__))
    if args is None:
        return 1
    from fourcards import _native

    quick = args.quick
    rounds = args.rounds
    inner = args.inner
    calls = 40 if quick else 200
    states = play_to(args.seed, (SHORT, LONG))
    texts = {n: s.to_json(KEY, snapshot=True) for n, s in states.items()}
    replays = {n: s.to_json() for n, s in states.items()}
    actions = {n: s.legal_actions()[0] for n, s in states.items()}
    for n, state in states.items():  # the workload is checked: a load gives the state back
        assert fourcards.load(texts[n], key=KEY) == state == fourcards.load(replays[n])

    hands = [s._hands[s.current_player] for s in states.values()] * 5_000  # type: ignore[attr-defined]
    floor = Subject("floor", loop1(_native.call_floor, hands), inner)

    def loads(text: str) -> Callable[[Any], object]:
        return lambda _: fourcards.load(text, key=KEY)

    load_short = Subject("load 30", loop1(loads(texts[SHORT]), range(calls)), inner)
    load_long = Subject("load 3000", loop1(loads(texts[LONG]), range(calls)), inner)
    cycle_short = Subject("cycle 30", cycle_pass(texts[SHORT], actions[SHORT], calls), inner)
    cycle_long = Subject("cycle 3000", cycle_pass(texts[LONG], actions[LONG], calls), inner)
    replay_short = Subject("replay 30", loop1(lambda _: fourcards.load(replays[SHORT]), range(calls)), inner)
    replay_long = Subject("replay 3000", loop1(lambda _: fourcards.load(replays[LONG]), range(2 if quick else 5)),
                          inner=1)
    service = MatchService(MemoryMatchStore(), KEY)
    hosted = {n: hosted_at(service, s, f"m{n}") for n, s in states.items()}
    act_short = Subject("act 30", act_pass(service, hosted[SHORT], states[SHORT].current_player, actions[SHORT],
                                           calls // 4), inner)
    act_long = Subject("act 3000", act_pass(service, hosted[LONG], states[LONG].current_player, actions[LONG],
                                            calls // 4), inner)
    subjects = [floor, load_short, load_long, cycle_short, cycle_long, replay_short, replay_long, act_short, act_long]

    started = perf_counter_ns()
    run_rounds(subjects, rounds)
    elapsed = (perf_counter_ns() - started) / 1e9

    ratio = load_long.median / load_short.median
    rows = [
        Row("call floor: `call_floor(hand)`", floor, floor),
        Row(f"`fourcards.load(snapshot, key)`, {SHORT} actions", load_short, floor),
        Row(f"`fourcards.load(snapshot, key)`, {LONG:,} actions", load_long, floor,
            f"<= {RATIO_TARGET}x the {SHORT}-action load ({ratio:.2f}x)", ratio <= RATIO_TARGET),
        Row(f"load + apply + save (a snapshot), {SHORT} actions", cycle_short, floor),
        Row(f"load + apply + save (a snapshot), {LONG:,} actions", cycle_long, floor,
            f"<= {fmt_time(CYCLE_TARGET_NS)}", cycle_long.median <= CYCLE_TARGET_NS),
        Row(f"`fourcards.load(to_json())`, replayed: {SHORT} actions", replay_short, floor),
        Row(f"`fourcards.load(to_json())`, replayed: {LONG:,} actions", replay_long, floor),
        Row(f"`MatchService.act` (memory store, 4 people), {SHORT} actions", act_short, floor),
        Row(f"`MatchService.act` (memory store, 4 people), {LONG:,} actions", act_long, floor),
    ]
    sizes = {n: len(t) for n, t in texts.items()}
    print(f"# fourcards {fourcards.__version__} saves benchmark (Gang of Four)")
    print()
    print(f"Python {platform.python_version()}, compiled core: {fourcards.COMPILED}, {os.cpu_count()} CPUs; "
          f"seed {args.seed}{', quick' if quick else ''}; {rounds} rounds x {inner} passes, {elapsed:.1f} s. "
          f"Snapshot sizes: {sizes[SHORT]:,} B at {SHORT} actions, {sizes[LONG]:,} B at {LONG:,}; replay saves "
          f"{len(replays[SHORT]):,} B and {len(replays[LONG]):,} B.")
    print()
    print_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
