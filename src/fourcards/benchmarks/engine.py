#!/usr/bin/env python
"""Benchmark the Gang of Four match engine against the call floor, in one run.

What it measures:

- the compiled simulator (``fourcards.gangoffour.simulate``): whole matches
  between built-in policies, in steps (actions, passes included) per second,
  next to RLCard's Dou Dizhu environment with random agents timed in the same
  run;
- the Python API's integer layer: one step of a ``MatchState`` is
  ``state.legal_actions_mask()`` then ``state.apply(action)``, the action
  drawn from the mask (the target row replays the actions drawn when the
  workload was built, so it times the engine alone; another row draws inside
  the loop); its parts are timed on their own;
- ``state.clone()`` on mid-game states;
- the memory of one state, its history excluded.

As in ``bench_gangoffour_core.py``, every time is reported as a multiple of
the *call floor*: the time of ``fourcards._native.call_floor(hand, table)``, a
compiled function that does nothing, called through the same kind of Python
loop.  Ratios measured in one run barely move when the machine's speed does.

Method: every subject is a *pass* that times a loop over a pre-built
workload and reports its elapsed time and the number of items (calls or
steps) it covered; whatever must be rebuilt between passes (fresh matches,
fresh clones) is built before the timer starts.  Each round runs every subject
once, in an order that rotates from round to round, keeping its fastest of
``--inner`` passes (one pass for RLCard, whose passes are long); a subject's
time is its median over rounds.  The garbage collector is off while timing.

RLCard is optional (``pip install rlcard``; its Dou Dizhu environment needs
only numpy).  Without it, its rows say "RLCard not installed" and the target
that needs it says SKIP.

Usage::

    python benchmarks/bench_gangoffour_engine.py            # full run
    python benchmarks/bench_gangoffour_engine.py --quick    # a few seconds
    python benchmarks/bench_gangoffour_engine.py --seed 7

The script says whether each target was met ("met", "not met here": figures vary
with the machine and its load) and always exits 0 once
it has measured (it exits 1 only when the compiled core is not in use).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import math
import os
import platform
import random
import statistics
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from time import perf_counter_ns
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

import fourcards
from fourcards.engine import derive_seed
from fourcards.gangoffour import Card, Combo
from fourcards.gangoffour.match import GangOfFour, MatchState
from fourcards.gangoffour.simulate import simulate
from fourcards.terminal.args import SEED, Parser, int_in, program_name

Pass = Callable[[], tuple[int, int]]  # one timed pass: (elapsed ns, items covered)
Mask = npt.NDArray[np.bool_]

RLCARD_MISSING = "RLCard not installed"
HISTORY_SLOTS = ("_log", "_acts")  # linked tuples of records and actions: the history
SHARED_SLOTS = ("game", "_rules")  # the game and its rules, shared by all its matches
STEP_TARGET = 200  # x call floor
CLONE_TARGET = 40  # x call floor
MEMORY_TARGET = 2048  # bytes
SPEEDUP_TARGET = 100  # x RLCard's steps per second
#: The most interleaved rounds ``--rounds`` takes, and passes a round ``--inner``: a pass takes a
#: fraction of a second here, so the default 3 passes x 1,000 rounds is minutes and 100 x 1,000 hours.
MAX_ROUNDS = 1_000
MAX_INNER = 100


# -- timing -------------------------------------------------------------------------

@dataclass
class Subject:
    """One timed subject: ``run()`` is one pass; a sample is ns per item."""

    name: str
    run: Pass
    inner: int = 3
    samples: list[float] = field(default_factory=list)

    def measure(self) -> float:
        """Nanoseconds per item: the fastest of ``inner`` passes."""
        best = math.inf
        for _ in range(self.inner):
            elapsed, items = self.run()
            best = min(best, elapsed / items)
        return best

    def sample(self) -> None:
        self.samples.append(self.measure())

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


def run_rounds(subjects: Sequence[Subject], rounds: int) -> None:
    """Interleave: every round times every subject once, in a rotating order."""
    for subject in subjects:  # warm up caches, lazy tables and the branch predictor
        subject.run()
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            k = r % len(subjects)
            for subject in [*subjects[k:], *subjects[:k]]:
                subject.sample()
    finally:
        gc.enable()


def loop1(fn: Callable[[Any], object], args: Sequence[Any]) -> Pass:
    """A pass calling ``fn(a)`` for each prepared argument."""
    def run() -> tuple[int, int]:
        start = perf_counter_ns()
        for a in args:
            fn(a)
        return perf_counter_ns() - start, len(args)
    return run


def loop2(fn: Callable[[Any, Any], object], args: Sequence[tuple[Any, Any]]) -> Pass:
    """A pass calling ``fn(a, b)`` for each prepared pair."""
    def run() -> tuple[int, int]:
        start = perf_counter_ns()
        for a, b in args:
            fn(a, b)
        return perf_counter_ns() - start, len(args)
    return run


# -- the compiled simulator ----------------------------------------------------------

def simulator_pass(matches: int, seed: int, policies: tuple[str, ...]) -> Pass:
    """A pass of ``simulate(matches, seed, policies)``; items are its steps."""
    def run() -> tuple[int, int]:
        start = perf_counter_ns()
        result = simulate(matches, seed=seed, policies=policies)
        elapsed = perf_counter_ns() - start
        return elapsed, int(result.steps.sum())
    return run


# -- RLCard's Dou Dizhu ---------------------------------------------------------------

def load_rlcard() -> tuple[ModuleType, Any] | None:
    """``(rlcard, RandomAgent)``, or None when RLCard is not installed."""
    try:
        rlcard = importlib.import_module("rlcard")
        agents = importlib.import_module("rlcard.agents")
    except ImportError:
        return None
    return rlcard, agents.RandomAgent


def rlcard_run_pass(env: Any, games: int, seed: int) -> Pass:
    """``env.run(is_training=False)`` ``games`` times with random agents.

    Items are ``env.step`` calls (RLCard's ``env.timestep`` counts them): one
    action by any player, passes included.  Both the dealer's generator and
    numpy's global one (which ``RandomAgent`` draws from) are reseeded before
    the timer, so every pass plays the same games.
    """
    def run() -> tuple[int, int]:
        env.seed(seed)
        np.random.seed(seed % 2**32)
        before = env.timestep
        start = perf_counter_ns()
        for _ in range(games):
            env.run(is_training=False)
        elapsed = perf_counter_ns() - start
        return elapsed, env.timestep - before
    return run


def rlcard_env_pass(env: Any, choose: Callable[[Any], int], games: int, seed: int) -> Pass:
    """The environment alone: ``env.reset()`` then ``env.step(choose(state))`` to the end.

    ``choose`` is ``RandomAgent.step`` (one ``np.random.choice`` over the legal
    actions), without the 27,472-entry probability list that
    ``RandomAgent.eval_step`` (what ``env.run`` calls) builds every step.
    """
    def run() -> tuple[int, int]:
        env.seed(seed)
        np.random.seed(seed % 2**32)
        before = env.timestep
        start = perf_counter_ns()
        for _ in range(games):
            state, _ = env.reset()
            while not env.is_over():
                state, _ = env.step(choose(state))
        elapsed = perf_counter_ns() - start
        return elapsed, env.timestep - before
    return run


def check_rlcard_counting(env: Any, seed: int) -> None:
    """``env.timestep`` must count what the trajectories show: one action each."""
    env.seed(seed)
    before = env.timestep
    trajectories, _ = env.run(is_training=False)
    # A player's trajectory alternates states and actions and ends with a state.
    actions = sum((len(t) - 1) // 2 for t in trajectories)
    if env.timestep - before != actions:
        raise RuntimeError(f"RLCard counted {env.timestep - before} steps but played {actions} actions")


# -- the Python step ------------------------------------------------------------------

@dataclass
class StepWorkload:
    """``steps`` random steps over fresh matches, and the states they passed through."""

    seeds: list[int]  # the matches played, in order
    draws: list[int]  # one random 32-bit number a step: the action is legal[draw % len(legal)]
    states: list[MatchState]  # a clone of the state before each step
    actions: list[int]  # the action each step took
    masks: list[Mask]  # a sample of the legal-action masks (for the choice line)


def make_step_workload(game: GangOfFour, rng: random.Random, steps: int, n_masks: int) -> StepWorkload:
    draws = [rng.getrandbits(32) for _ in range(steps)]
    seeds: list[int] = []
    states: list[MatchState] = []
    actions: list[int] = []
    masks: list[Mask] = []
    every = max(1, steps // n_masks)
    state: MatchState | None = None
    for i, draw in enumerate(draws):
        if state is None or state.is_terminal:
            seeds.append(rng.getrandbits(63))
            state = game.new_match(seeds[-1])
        states.append(state.clone())
        mask = state.legal_actions_mask()
        if i % every == 0:
            masks.append(mask)
        legal = mask.nonzero()[0]
        actions.append(int(legal[draw % len(legal)]))
        state.apply(actions[-1])
    return StepWorkload(seeds, draws, states, actions, masks)


class StepLoop:
    """The timed Python step over fresh matches: ``legal_actions_mask()`` then ``apply()``.

    With ``choose``, the action is picked inside the loop from the mask just
    computed, ``int(mask.nonzero()[0][draw % n])``; without it, the loop
    applies the action that the same choice made when the workload was built
    (so the choice costs nothing, and the step is the engine alone).  Fresh
    matches are dealt (``new_match``) before the timer; a finished match is
    replaced by the next fresh one inside the loop (the ``is_terminal`` check
    is timed: any driver loop makes it).  ``last`` keeps the matches of the
    last pass, so that the replay can be checked against the workload.
    """

    def __init__(self, game: GangOfFour, work: StepWorkload, choose: bool) -> None:
        self.game = game
        self.work = work
        self.choose = choose
        self.last: list[MatchState] = []

    def __call__(self) -> tuple[int, int]:
        states = [self.game.new_match(seed) for seed in self.work.seeds]
        self.last = states
        matches: Iterator[MatchState] = iter(states)
        elapsed = (self._choosing if self.choose else self._replaying)(matches)
        return elapsed, len(self.work.actions)

    def _choosing(self, matches: Iterator[MatchState]) -> int:
        legal_mask, apply = MatchState.legal_actions_mask, MatchState.apply
        state = next(matches)
        draws = self.work.draws
        start = perf_counter_ns()
        for draw in draws:
            if state.is_terminal:
                state = next(matches)
            legal = legal_mask(state).nonzero()[0]
            apply(state, int(legal[draw % len(legal)]))
        return perf_counter_ns() - start

    def _replaying(self, matches: Iterator[MatchState]) -> int:
        legal_mask, apply = MatchState.legal_actions_mask, MatchState.apply
        state = next(matches)
        actions = self.work.actions
        start = perf_counter_ns()
        for action in actions:
            if state.is_terminal:
                state = next(matches)
            legal_mask(state)
            apply(state, action)
        return perf_counter_ns() - start

    def check(self) -> None:
        """One pass must play exactly the workload's actions."""
        self()
        if [a for state in self.last for a in state.actions] != self.work.actions:
            raise RuntimeError("the timed step loop does not replay the workload's actions")


def choice_pass(masks: Sequence[Mask], draws: Sequence[int]) -> Pass:
    """The choice alone, written as in the step: ``int(mask.nonzero()[0][draw % n])``."""
    pairs = list(zip(masks, draws))

    def run() -> tuple[int, int]:
        start = perf_counter_ns()
        for mask, draw in pairs:
            legal = mask.nonzero()[0]
            int(legal[draw % len(legal)])
        return perf_counter_ns() - start, len(pairs)
    return run


def apply_pass(work: StepWorkload) -> Pass:
    """``apply(action)`` alone, on fresh clones of the states the steps passed through."""
    apply = MatchState.apply

    def run() -> tuple[int, int]:
        pairs = [(state.clone(), action) for state, action in zip(work.states, work.actions)]
        start = perf_counter_ns()
        for state, action in pairs:
            apply(state, action)
        return perf_counter_ns() - start, len(pairs)
    return run


# -- memory -----------------------------------------------------------------------------

def is_shared(obj: object) -> bool:
    """Objects every state shares, so none of them belongs to one state.

    ``None``, ``True`` and ``False``; the small ints CPython interns
    (-5..256); the empty tuple; the 34 ``Card`` constants (``KINDS``) and the
    cached ``Combo`` objects; classes.
    """
    if obj is None or isinstance(obj, (bool, Card, Combo, type)):
        return True
    if type(obj) is int:
        return -5 <= obj <= 256
    return type(obj) is tuple and not obj


def slot_names(cls: type) -> Iterator[str]:
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        yield from (slots,) if isinstance(slots, str) else slots


def deep_size(obj: object, seen: set[int]) -> int:
    """``sys.getsizeof`` of ``obj`` and of everything it reaches, each object
    once (``seen`` holds the ids already counted), shared objects excluded.

    Iterative: the history is a linked list thousands of links deep.
    """
    size = 0
    stack = [obj]
    while stack:
        item = stack.pop()
        if is_shared(item) or id(item) in seen:
            continue
        seen.add(id(item))
        size += sys.getsizeof(item)
        if isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif not isinstance(item, (int, float, str, bytes)):
            if hasattr(item, "__dict__"):
                stack.append(vars(item))
            for name in slot_names(type(item)):
                if name not in ("__dict__", "__weakref__") and hasattr(item, name):
                    stack.append(getattr(item, name))
    return size


def state_size(state: MatchState, seen: set[int] | None = None) -> int:
    """The state object and its slot values, deeply; history and the game excluded.

    The state's own ``__dict__`` (its base class ``State`` declares no
    ``__slots__``) is never created by the engine and is not touched here.
    """
    seen = set() if seen is None else seen
    size = 0 if id(state) in seen else sys.getsizeof(state)
    seen.add(id(state))
    for name in MatchState.__slots__:
        if name not in HISTORY_SLOTS and name not in SHARED_SLOTS:
            size += deep_size(getattr(state, name), seen)
    return size


@dataclass
class Memory:
    mean: float  # bytes of a mid-game state
    largest: int
    clone_adds: float  # bytes a clone adds next to its source (mean)
    history_per_action: float  # bytes of history per action


def measure_memory(states: Sequence[MatchState], played: Sequence[MatchState]) -> Memory:
    """``states``: mid-game states; ``played``: matches whose history is weighed."""
    sizes = [state_size(state) for state in states]
    adds = []
    for state in states[:: max(1, len(states) // 200)]:
        seen: set[int] = set()
        state_size(state, seen)
        adds.append(state_size(state.clone(), seen))
    history, actions = 0, 0
    for state in played:
        seen = set()
        history += sum(deep_size(getattr(state, name), seen) for name in HISTORY_SLOTS)
        actions += len(state.actions)
    return Memory(statistics.fmean(sizes), max(sizes), statistics.fmean(adds),
                  history / actions if actions else math.nan)


# -- report ---------------------------------------------------------------------------

def fmt_time(ns: float) -> str:
    if ns < 1e3:
        return f"{ns:.1f} ns" if ns >= 10 else f"{ns:.2f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns / 1e6:.2f} ms"


def fmt_ratio(ratio: float) -> str:
    return f"{ratio:,.0f}x" if ratio >= 1000 else f"{ratio:.2f}x"


def fmt_rate(per_second: float) -> str:
    if per_second >= 1e6:
        return f"{per_second / 1e6:.2f} M"
    if per_second >= 1e3:
        return f"{per_second / 1e3:.1f} k"
    return f"{per_second:.0f}"


def per_second(subject: Subject) -> float:
    return 1e9 / subject.median


@dataclass
class Row:
    measurement: str
    subject: Subject | None  # None: a size, or not measured (``value`` says which)
    floor: Subject | None = None
    target: str = "—"
    ok: bool | None = None  # None: informational, or SKIP when there is a target
    value: str = ""

    def cells(self) -> list[str]:
        if self.ok is None:
            status = "—" if self.target == "—" else "SKIP"
        else:
            status = "met" if self.ok else "not met here"
        if self.subject is None:
            return [self.measurement, self.value, "—", self.target, status]
        ratio = fmt_ratio(self.subject.median / self.floor.median) if self.floor else "—"
        return [self.measurement, fmt_time(self.subject.median), ratio, self.target, status]


def print_table(rows: Sequence[Row]) -> None:
    lines = [["measurement", "time/call", "x call floor", "target", "status"]] + [r.cells() for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(5)]
    for i, line in enumerate(lines):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(line, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


# -- main -------------------------------------------------------------------------------

def timing_options(description: str, argv: Sequence[str] | None, seed_help: str = "seed of every random workload",
                   quick_rounds: int = 7, prog: str | None = None) -> argparse.Namespace | None:
    """The options every timing benchmark takes (``--seed``, ``--quick``, ``--rounds``,
    ``--inner``; ``rounds`` filled in), or None, said on stderr, when the compiled
    core is not in use.  A bad value is refused in one line (exit 2) before any work;
    ``prog`` names the command in that line and the usage (None: the script's name)."""
    parser = Parser(prog=prog, description=description.split("\n\n")[0])
    parser.add_argument("--seed", type=SEED, default=2024, help=f"{seed_help}, 0 to 2**64 - 1 (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="smaller workloads, fewer rounds (a few seconds)")
    parser.add_argument("--rounds", type=int_in(1, MAX_ROUNDS),
                        help=f"interleaved rounds, 1 to {MAX_ROUNDS:,} (default: 15, with --quick {quick_rounds})")
    parser.add_argument("--inner", type=int_in(1, MAX_INNER), default=3,
                        help=f"passes per round, the fastest kept, 1 to {MAX_INNER:,} (default: %(default)s)")
    args = parser.parse_args(argv)
    if not fourcards.COMPILED:
        print("the compiled core is not in use (fourcards.COMPILED is False): build it first", file=sys.stderr)
        return None
    args.rounds = args.rounds or (quick_rounds if args.quick else 15)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = timing_options(__doc__ or "", argv, prog=program_name("fourcards.benchmarks.engine", __file__))
    if args is None:
        return 1
    from fourcards import _native

    quick = args.quick
    seed = args.seed
    rounds = args.rounds
    inner = args.inner
    sim_matches = 15 if quick else 40  # ~2,200 steps a match with 4 random seats
    greedy_matches = 40 if quick else 100  # ~600 steps a match
    rlcard_games = 2 if quick else 6  # ~60 steps a game, ~0.5 ms a step
    n_steps = 1_500 if quick else 4_000
    n_masks = 500 if quick else 1_000
    n_floor = 10_000 if quick else 20_000
    n_new = 100 if quick else 300

    rng = random.Random(seed)
    game = GangOfFour()
    work = make_step_workload(game, rng, n_steps, n_masks)
    step_loop = StepLoop(game, work, choose=False)
    choosing_loop = StepLoop(game, work, choose=True)
    step_loop.check()
    choosing_loop.check()

    # The floor's arguments: the hand to act and the table of each state passed through.
    pairs = [(s._hand_masks()[s.current_player], s.table.action if s.table else -1) for s in work.states]
    floor_args = (pairs * (n_floor // len(pairs) + 1))[:n_floor]
    new_seeds = [derive_seed(seed, i) for i in range(n_new)]

    random4 = ("random",) * 4
    greedy1 = ("greedy", "random", "random", "random")
    floor = Subject("floor", loop2(_native.call_floor, floor_args), inner)
    floor1 = Subject("floor, one argument", loop1(_native.call_floor, [hand for hand, _ in floor_args]), inner)
    sim_random = Subject("sim random", simulator_pass(sim_matches, seed, random4), inner)
    sim_greedy = Subject("sim greedy", simulator_pass(greedy_matches, seed, greedy1), inner)
    step = Subject("step", step_loop, inner)
    mask = Subject("mask", loop1(MatchState.legal_actions_mask, work.states), inner)
    legal = Subject("legal", loop1(MatchState.legal_actions, work.states), inner)
    apply = Subject("apply", apply_pass(work), inner)
    choosing = Subject("step with choice", choosing_loop, inner)
    choice = Subject("choice", choice_pass(work.masks, work.draws), inner)
    new_match = Subject("new_match", loop1(game.new_match, new_seeds), inner)
    clone = Subject("clone", loop1(MatchState.clone, work.states), inner)
    subjects = [floor, floor1, sim_random, sim_greedy, step, mask, legal, apply, choosing, choice, new_match, clone]

    rl_run = rl_env = None
    peer = load_rlcard()
    rlcard_version = "not installed"
    if peer is not None:
        rlcard, random_agent = peer
        rlcard_version = getattr(rlcard, "__version__", "?")
        env = rlcard.make("doudizhu", config={"seed": seed})
        env.set_agents([random_agent(num_actions=env.num_actions)] * env.num_players)
        check_rlcard_counting(env, seed)
        rl_run = Subject("rlcard run", rlcard_run_pass(env, rlcard_games, seed), inner=1)
        rl_env = Subject("rlcard env", rlcard_env_pass(env, random_agent.step, rlcard_games, seed), inner=1)
        subjects += [rl_run, rl_env]

    started = perf_counter_ns()
    run_rounds(subjects, rounds)
    elapsed = (perf_counter_ns() - started) / 1e9
    played = choosing_loop.last
    memory = measure_memory(work.states, played)

    def ratio(subject: Subject) -> float:
        return subject.median / floor.median

    if rl_run is None:
        speed_text, speed_ok = f">= {SPEEDUP_TARGET}x RLCard steps/s ({RLCARD_MISSING})", None
    else:
        speedup = rl_run.median / sim_random.median
        speed_text, speed_ok = f">= {SPEEDUP_TARGET}x RLCard steps/s ({speedup:,.0f}x)", speedup >= SPEEDUP_TARGET
    rows = [
        Row("call floor: `call_floor(hand, table)`", floor, floor),
        Row("call floor, one argument: `call_floor(hand)`", floor1, floor),
        Row(f"C simulator, 4 random seats: `simulate({sim_matches})`, per step", sim_random, floor,
            speed_text, speed_ok),
        Row(f"C simulator, greedy vs 3 random: `simulate({greedy_matches})`, per step", sim_greedy, floor),
        Row("peer: RLCard Dou Dizhu `env.run`, 3 `RandomAgent`, per step", rl_run, floor,
            value=RLCARD_MISSING),
        Row("peer: RLCard Dou Dizhu `env.reset` + `env.step` alone, per step", rl_env, floor,
            value=RLCARD_MISSING),
        Row("Python step: `legal_actions_mask()` + `apply(action)`", step, floor,
            f"<= {STEP_TARGET}x", ratio(step) <= STEP_TARGET),
        Row("  of which `legal_actions_mask()`", mask, floor),
        Row("    of which `legal_actions()` (the list it is built from)", legal, floor),
        Row("  of which `apply(action)`", apply, floor),
        Row("Python step with the choice in the loop", choosing, floor),
        Row("  of which the choice: `int(mask.nonzero()[0][draw % n])`", choice, floor),
        Row("`new_match(seed)` (not in the step)", new_match, floor),
        Row(f"`clone()`, {len(work.states):,} mid-game states", clone, floor,
            f"<= {CLONE_TARGET}x", ratio(clone) <= CLONE_TARGET),
        Row("memory of a state, history excluded (mean; largest)", None,
            target=f"<= {MEMORY_TARGET:,} B", ok=memory.largest <= MEMORY_TARGET,
            value=f"{memory.mean:,.0f} B; {memory.largest:,} B"),
    ]

    ended = [s for s in played if s.is_terminal]
    print(f"# fourcards {fourcards.__version__} Gang of Four engine benchmark")
    print()
    print(f"Python {platform.python_version()}, numpy {np.__version__}, RLCard {rlcard_version}, "
          f"compiled core: {fourcards.COMPILED}, {os.cpu_count()} CPUs; seed {seed}{', quick' if quick else ''}; "
          f"{rounds} interleaved rounds (best of {inner} passes each, RLCard 1), timed in {elapsed:.1f} s")
    print(f"Python step: {n_steps:,} random steps over {len(work.seeds)} fresh 4-player "
          f"match{'es' if len(work.seeds) > 1 else ''} ({len(ended)} played to the end, "
          f"{sum(s.round for s in played)} rounds); the choice line over {len(work.masks):,} of their masks")
    print()
    print_table(rows)
    print()
    print("Steps per second (one step: one action by any player, passes and give-backs included):")
    print(f"- C simulator, 4 random seats: {fmt_rate(per_second(sim_random))} steps/s; "
          f"greedy vs 3 random: {fmt_rate(per_second(sim_greedy))} steps/s")
    if rl_run is not None and rl_env is not None:
        print(f"- RLCard Dou Dizhu, `env.run` with 3 `RandomAgent`: {fmt_rate(per_second(rl_run))} steps/s; "
              f"the environment alone: {fmt_rate(per_second(rl_env))} steps/s "
              f"(`RandomAgent.eval_step` is {1 - rl_env.median / rl_run.median:.0%} of `env.run`)")
        print(f"- C simulator (4 random) over RLCard `env.run`: {rl_run.median / sim_random.median:,.0f}x; "
              f"over the RLCard environment alone: {rl_env.median / sim_random.median:,.0f}x")
    else:
        print(f"- RLCard: {RLCARD_MISSING} (pip install rlcard)")
    print(f"- Python step: {fmt_rate(per_second(step))} steps/s, {fmt_rate(per_second(choosing))} with "
          f"the choice; the C simulator is {choosing.median / sim_random.median:.0f}x faster")
    print()
    print(f"The Python step applies the action the same choice made when the workload was built (checked), "
          f"so it times the engine alone; its parts, timed apart on clones of the states it passed "
          f"through, add up to {(mask.median + apply.median) / step.median:.0%} of it.")
    print(f"Every ratio is to the two-argument floor. The one-argument floor is "
          f"{floor1.median / floor.median:.0%} of it: against that one, the step is "
          f"{step.median / floor1.median:.0f}x and `clone()` {clone.median / floor1.median:.0f}x.")
    print(f"Memory: `sys.getsizeof` of the state object plus, recursively and each object once, "
          f"the values of its slots except {', '.join(HISTORY_SLOTS)} (the history) and "
          f"{', '.join(SHARED_SLOTS)} (shared by every match of the game): the hands list and its masks, "
          f"the scores list, the Rng, seed, setup, deals, exchange and the other ints. Not counted: "
          f"None/True/False, interned ints -5..256, the empty tuple, the 34 `Card` constants, the cached "
          f"`Combo` objects. The attribute dict of an object without slots (the `Exchange`) is counted as "
          f"`vars()` makes it: an upper bound on Python 3.11+, which may keep those attributes inline. "
          f"Over {len(work.states):,} states. A `clone()` adds {memory.clone_adds:,.0f} B "
          f"next to its source (it shares the immutable values); the history weighs "
          f"{memory.history_per_action:,.0f} B per action (records, their attribute dicts, and the links).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
