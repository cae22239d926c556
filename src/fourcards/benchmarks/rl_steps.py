"""Engine steps per second for learning: the vectorized environment next to its peers.

Side by side in one run, each counting engine steps (one action by any seat,
passes and give-backs included, as RLCard counts ``env.step``):

- ``VectorGangOfFour``: ``n`` matches, one learning seat against three random
  bots, observations and legal-action masks written every step (bool masks;
  a second row with bit-packed masks); the learner's random choice is drawn
  from the masks outside the timer.  A third row splits the batch over two
  threads (``step(actions, threads=2)``: the calling thread and a helper
  thread that waits in C between calls), timed by the wall clock.
- the compiled simulator alone: ``simulate(matches)``, four random seats, no
  observation or mask written;
- the PettingZoo loop: ``fourcards.rl.env("gang-of-four")`` (AEC), a random
  legal action from each observation's ``action_mask`` (skipped when that
  adapter or PettingZoo is not installed);
- the plain Python engine loop: ``state.legal_actions()`` then
  ``state.apply(...)`` with a ``RandomBot``-style choice;
- RLCard's Dou Dizhu environment (``env.reset`` + ``env.step(RandomAgent.step(state))``),
  a peer among climbing games (skipped when RLCard is not installed).

Targets on one core: the vectorized environment at least 0.5x the simulator's
rate, 10x the Python loop and 100x RLCard; with two threads at least 1.7x one
thread.  Ratios are measured in one run (rounds interleaved, medians kept).
"""

from __future__ import annotations

import gc
import importlib
import os
import platform
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter_ns, thread_time_ns
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

import fourcards
from fourcards.benchmarks.engine import MAX_ROUNDS, Pass, Subject, fmt_rate, load_rlcard, run_rounds
from fourcards.engine import derive_seed
from fourcards.gangoffour.match import GangOfFour
from fourcards.gangoffour.simulate import simulate
from fourcards.rng import Rng
from fourcards.terminal.args import SEED, Parser, int_in, program_name

#: The most matches ``--envs`` takes: five environments of that size are built (some 75 KB a
#: match in all, under 1 GB), and a round at the most takes half a minute here.
MAX_ENVS = 10_000

SIMULATOR_TARGET = 0.5
PYTHON_TARGET = 10
RLCARD_TARGET = 100
THREADS_TARGET = 1.7


def random_choices(masks: npt.NDArray[Any], packed: bool, num_actions: int,
                   rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """One uniformly random legal action a row of ``masks`` (vectorized)."""
    rows = np.unpackbits(masks, axis=1, count=num_actions) if packed else masks
    flat = np.flatnonzero(rows)
    which, action = np.divmod(flat, num_actions)
    starts = np.searchsorted(which, np.arange(rows.shape[0]))
    counts = np.diff(np.append(starts, flat.size))
    picks = starts + (rng.random(rows.shape[0]) * counts).astype(np.int64)
    result: npt.NDArray[np.int64] = action[picks]
    return result


Clock = Callable[[], int]


def vector_pass(envs: int, steps: int, seed: int, packed: bool, threads: int, clock: Clock,
                self_play: bool = False) -> Pass:
    """``steps`` calls of ``VectorGangOfFour.step`` over ``envs`` matches (against random
    bots, or every seat learning); only the step calls are timed; items are the
    engine steps they made."""
    from fourcards.rl.vector import VectorGangOfFour

    env = VectorGangOfFour(envs, seed=seed, opponents=None if self_play else "random", packed_masks=packed)
    env.reset()
    rng = np.random.default_rng(seed)

    def run() -> tuple[int, int]:
        elapsed = 0
        before = int(env.steps.sum())
        for _ in range(steps):
            actions = random_choices(env.masks, packed, env.num_actions, rng)
            start = clock()
            env.step(actions, threads=threads)
            elapsed += clock() - start
        return elapsed, int(env.steps.sum()) - before
    return run


def simulator_pass(matches: int, seed: int, clock: Clock) -> Pass:
    state = {"round": 0}

    def run() -> tuple[int, int]:
        state["round"] += 1
        start = clock()
        result = simulate(matches, seed=derive_seed(seed, state["round"]), policies=("random",) * 4)
        return clock() - start, int(result.steps.sum())
    return run


def python_pass(steps: int, seed: int) -> Pass:
    """The plain engine loop: ``legal_actions()``, a random pick, ``apply``."""
    game = GangOfFour()
    rng = Rng(seed)
    state = game.new_match(seed)

    def run() -> tuple[int, int]:
        nonlocal state
        start = thread_time_ns()
        for _ in range(steps):
            if state.is_terminal:
                state = game.new_match(rng.next_u64())
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
        return thread_time_ns() - start, steps
    return run


def load_pettingzoo() -> Any | None:
    """The AEC environment of ``fourcards.rl.env``, or None when it is not available."""
    try:
        importlib.import_module("pettingzoo")
        rl = importlib.import_module("fourcards.rl")
        make = rl.env
    except (ImportError, AttributeError):
        return None
    return make("gang-of-four")


def pettingzoo_pass(env: Any, steps: int, seed: int) -> Pass:
    """``env.step`` with a random legal action from the observation's ``action_mask``."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def run() -> tuple[int, int]:
        start = thread_time_ns()
        for _ in range(steps):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.reset(seed=int(rng.integers(2**31)))
                agent = env.agent_selection
            observation = env.observe(agent)
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
        return thread_time_ns() - start, steps
    return run


def rlcard_pass(env: Any, choose: Callable[[Any], int], games: int, seed: int) -> Pass:
    """RLCard's environment alone: ``env.reset()``, then ``env.step(choose(state))`` to
    the end (``choose`` is ``RandomAgent.step``); items are ``env.step`` calls."""
    def run() -> tuple[int, int]:
        env.seed(seed)
        np.random.seed(seed % 2**32)
        before = env.timestep
        start = thread_time_ns()
        for _ in range(games):
            state, _ = env.reset()
            while not env.is_over():
                state, _ = env.step(choose(state))
        return thread_time_ns() - start, env.timestep - before
    return run


@dataclass
class Line:
    name: str
    subject: Subject | None
    note: str = ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog=program_name("fourcards.benchmarks.rl_steps", __file__),
                    description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seed", type=SEED, default=2024,
                        help="seed of every workload, 0 to 2**64 - 1 (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="smaller workloads, fewer rounds")
    parser.add_argument("--rounds", type=int_in(1, MAX_ROUNDS),
                        help=f"interleaved rounds, 1 to {MAX_ROUNDS:,} (default: 9, with --quick 5)")
    parser.add_argument("--envs", type=int_in(1, MAX_ENVS), default=256,
                        help=f"matches in the vectorized environment, 1 to {MAX_ENVS:,} (default: %(default)s)")
    args = parser.parse_args(argv)
    if not fourcards.COMPILED:
        print("the compiled core is not in use (fourcards.COMPILED is False): build it first", file=sys.stderr)
        return 1
    quick, seed = args.quick, args.seed
    rounds = args.rounds or (5 if quick else 9)
    vector_steps = 10 if quick else 30
    sim_matches = 8 if quick else 20
    python_steps = 1_000 if quick else 3_000
    pz_steps = 300 if quick else 1_000
    rlcard_games = 2 if quick else 5

    cpu, wall = thread_time_ns, perf_counter_ns
    vector = Subject("vector", vector_pass(args.envs, vector_steps, seed, False, 1, cpu), inner=1)
    packed = Subject("vector packed", vector_pass(args.envs, vector_steps, seed, True, 1, cpu), inner=1)
    self_play = Subject("vector self-play", vector_pass(args.envs, vector_steps, seed, False, 1, cpu, True),
                        inner=1)
    vector_wall = vector_pass(args.envs, vector_steps, seed, False, 1, wall)
    threaded = vector_pass(args.envs, vector_steps, seed, False, 2, wall)
    sim = Subject("simulator", simulator_pass(sim_matches, seed, cpu), inner=1)
    machine = machine_pair(sim_matches, seed)
    python = Subject("python", python_pass(python_steps, seed), inner=1)
    subjects = [vector, packed, self_play, sim, python]

    pz_env = load_pettingzoo()
    pettingzoo = Subject("pettingzoo", pettingzoo_pass(pz_env, pz_steps, seed), inner=1) if pz_env else None
    if pettingzoo:
        subjects.append(pettingzoo)
    rlcard_version = "not installed"
    rlcard_subject = None
    peer = load_rlcard()
    if peer is not None:
        rlcard, random_agent = peer
        rlcard_version = getattr(rlcard, "__version__", "?")
        rl_env = rlcard.make("doudizhu", config={"seed": seed})
        rlcard_subject = Subject("rlcard", rlcard_pass(rl_env, random_agent.step, rlcard_games, seed), inner=1)
        subjects.append(rlcard_subject)

    started = perf_counter_ns()
    run_rounds(subjects, rounds)
    vector_scaling, machine_scaling = paired_ratios([(vector_wall, threaded), machine], 3 * rounds)
    elapsed = (perf_counter_ns() - started) / 1e9

    def rate(subject: Subject) -> float:
        return 1e9 / subject.median

    base = rate(vector)
    lines = [
        Line(f"`VectorGangOfFour({args.envs})`, observations + bool masks", vector),
        Line(f"`VectorGangOfFour({args.envs}, packed_masks=True)`", packed),
        Line(f"`VectorGangOfFour({args.envs}, opponents=None)`: self-play, every step observed", self_play),
        Line("compiled simulator alone: `simulate()`, 4 random seats", sim),
        Line("PettingZoo loop: `fourcards.rl.env('gang-of-four')`", pettingzoo,
             "" if pettingzoo else "not available (needs `fourcards.rl.env` and pettingzoo: extra `rl`)"),
        Line("plain Python engine loop: `legal_actions()` + `apply()`", python),
        Line("RLCard Dou Dizhu: `env.reset` + `env.step(RandomAgent.step)`", rlcard_subject,
             "" if rlcard_subject else "RLCard not installed (extra `bench`)"),
    ]
    print(f"# fourcards {fourcards.__version__}: engine steps per second for learning")
    print()
    print(f"Python {platform.python_version()}, numpy {np.__version__}, RLCard {rlcard_version}, "
          f"{os.cpu_count()} CPUs; seed {seed}{', quick' if quick else ''}; {rounds} interleaved rounds, "
          f"medians; timed in {elapsed:.1f} s")
    print()
    table = [["subject (one thread)", "steps/s", "vector over it"]]
    for line in lines:
        if line.subject is None:
            table.append([line.name, line.note, "—"])
        else:
            table.append([line.name, fmt_rate(rate(line.subject)), f"{base / rate(line.subject):,.2f}x"])
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for i, row in enumerate(table):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print()
    targets = [
        (f"vector >= {SIMULATOR_TARGET}x the compiled simulator", base / rate(sim), SIMULATOR_TARGET),
        (f"vector >= {PYTHON_TARGET}x the Python engine loop", base / rate(python), PYTHON_TARGET),
        (f"vector >= {RLCARD_TARGET}x RLCard", base / rate(rlcard_subject) if rlcard_subject else None,
         RLCARD_TARGET),
        (f"vector, 2 threads >= {THREADS_TARGET}x 1 thread (wall clock)", statistics.median(vector_scaling),
         THREADS_TARGET),
    ]
    for text, value, target in targets:
        status = "SKIP" if value is None else ("met" if value >= target else "not met here")
        shown = "—" if value is None else f"{value:,.2f}x"
        print(f"- {text}: {shown} {status}")
    print()
    print(f"Two threads, wall clock, {len(vector_scaling)} pairs of back-to-back passes (one thread, then "
          f"two), the ratio of each pair: `VectorGangOfFour({args.envs}).step(threads=2)` "
          f"{_spread(vector_scaling)} one thread. For reference, what the machine gave a second thread "
          f"in the same run (pairs alternating with those): the same `simulate()` call on two threads at once "
          f"against one (equal work on each), "
          f"{_spread(machine_scaling)}. The split keeps "
          f"{statistics.median(vector_scaling) / statistics.median(machine_scaling):.2f} of that (1.00: no loss "
          f"to handing work between threads).")
    print("One-thread rows are thread CPU time (`time.thread_time_ns`), so other processes on a shared "
          "machine slow them less; the learner's random choice from the masks is outside the timer.")
    return 0


def paired_ratios(pairs: Sequence[tuple[Pass, Pass]], rounds: int) -> list[list[float]]:
    """For each ``(one, two)``: the rate of ``two`` over the rate of ``one``, timed back to
    back, ``rounds`` times, the pairs alternating (a warm-up round first): on a shared
    machine each ratio compares passes that saw the same conditions."""
    for one, two in pairs:
        one()
        two()
    ratios: list[list[float]] = [[] for _ in pairs]
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            for (one, two), out in zip(pairs, ratios):
                elapsed_one, items_one = one()
                elapsed_two, items_two = two()
                out.append((items_two / elapsed_two) / (items_one / elapsed_one))
    finally:
        gc.enable()
    return ratios


def _spread(ratios: list[float]) -> str:
    low, high = min(ratios), max(ratios)
    return f"median {statistics.median(ratios):.2f}x (range {low:.2f}x..{high:.2f}x)"


def machine_pair(matches: int, seed: int) -> tuple[Pass, Pass]:
    """The machine's own two-thread scaling: ``simulate(matches)`` on one thread, then
    the same call on two threads at once (the same seed: equal work on each, no
    shared state).  Each pair uses the next seed."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(2)
    state = {"round": 0}

    def play() -> int:
        match_seed = derive_seed(seed, state["round"])
        return int(simulate(matches, seed=match_seed, policies=("random",) * 4).steps.sum())

    def one() -> tuple[int, int]:
        state["round"] += 1
        start = perf_counter_ns()
        steps = play()
        return perf_counter_ns() - start, steps

    def two() -> tuple[int, int]:
        start = perf_counter_ns()
        futures = [pool.submit(play) for _ in range(2)]
        steps = sum(future.result() for future in futures)
        return perf_counter_ns() - start, steps
    return one, two


if __name__ == "__main__":
    sys.exit(main())
