"""Threads hammering one game, one bot and the batch kernels give the answers
one thread gives.

On a free-threaded Python (3.13t, 3.14t) these run truly in parallel: the
compiled modules are marked ``freethreading_compatible`` (setup.py) only
because these tests pass there, and importing them must not turn the GIL back
on.  On a regular Python they check the same answers under the GIL.
"""

from __future__ import annotations

import importlib
import sys
import sysconfig
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np
import pytest

from fourcards._backend import COMPILED, EXTENSIONS
from fourcards.engine import Bot, Game
from fourcards.games import GAMES, get_game

# Engine tests: whole matches from many threads (run with the compiled core; the twin adds nothing here).
pytestmark = pytest.mark.engine

T = TypeVar("T")
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
THREADS = 8
BUILTIN = ("gang-of-four", "four-color", "zangle", "four-pack", "duelo")


def hammer(work: Callable[[int], T], jobs: int) -> list[T]:
    """Run ``work(0..jobs-1)`` on THREADS threads released together by a barrier."""
    barrier = threading.Barrier(THREADS)

    def start(job: int) -> T:
        if job < THREADS:
            barrier.wait()
        return work(job)

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(start, range(jobs)))


def test_the_gil_stays_off_after_importing_every_compiled_module() -> None:
    if not FREE_THREADED:
        pytest.skip("not a free-threaded Python: nothing to check about the GIL")
    if not COMPILED:
        pytest.skip("the compiled core is not in use (FOURCARDS_NO_EXTENSIONS)")
    for name in EXTENSIONS:
        importlib.import_module(name)
    for name in BUILTIN:
        get_game(name).new_game()
    assert not sys._is_gil_enabled()  # type: ignore[attr-defined]  # an unmarked module would turn it on


def play(game: Game[Any], bots: list[Bot], seed: int, limit: int = 400) -> tuple[Any, ...]:
    """A match's actions and scores (bounded: a long game stops at ``limit`` actions)."""
    state = game.new_match(seed)
    actions: list[int] = []
    while not state.is_terminal and len(actions) < limit:
        player = state.current_player
        action = bots[player].choose(state.observation(player), state.legal_actions())
        state.apply(action)
        actions.append(action)
    return tuple(actions), tuple(state.scores)


@pytest.mark.parametrize("name", BUILTIN)
def test_one_game_shared_by_threads(name: str) -> None:
    """One game object (its tables, its rules) shared by every thread: each thread plays
    its own seeded matches with the game's rule-based bots (deterministic: a time-budgeted
    search would not be), and gets the matches one thread plays."""
    entry = get_game(name)
    game = entry.new_game()
    kind = next(kind for kind in ("greedy", "memory", "category") if kind in entry.bot_kinds)

    def match(seed: int) -> tuple[Any, ...]:
        bots = [entry.new_bot(kind, game, seed=seed * 10 + seat) for seat in range(game.num_players)]
        return play(game, bots, seed)

    alone = [match(seed) for seed in range(THREADS * 2)]
    assert hammer(match, THREADS * 2) == alone


@pytest.mark.parametrize(("name", "kind"), [("gang-of-four", "greedy"), ("four-color", "greedy"),
                                            ("duelo", "category")])
def test_one_stateless_bot_shared_by_threads(name: str, kind: str) -> None:
    """One rule-based bot that keeps no memory, deciding for every seat of every thread's
    matches at once, decides as it does alone."""
    entry = get_game(name)
    game = entry.new_game()
    bot = entry.new_bot(kind, game, seed=1)

    def match(seed: int) -> tuple[Any, ...]:
        return play(game, [bot] * game.num_players, seed)

    alone = [match(seed) for seed in range(THREADS * 2)]
    assert hammer(match, THREADS * 2) == alone


def test_gang_of_four_search_bot_shared_by_threads() -> None:
    """The search bot (compiled SO-ISMCTS) with a fixed iteration budget decides the same
    on many threads at once as on one."""
    entry = get_game("gang-of-four")
    game = entry.new_game()
    states = [game.new_match(seed) for seed in range(THREADS * 2)]

    def decide(job: int) -> int:
        bot = entry.new_bot("search", game, seed=job, iterations=200)
        state = states[job]
        return int(bot.choose(state.observation(state.current_player), state.legal_actions()))

    alone = [decide(job) for job in range(len(states))]
    assert hammer(decide, len(states)) == alone


def test_batch_kernels_on_threads() -> None:
    from fourcards.fourcolor import best_points_batch
    from fourcards.gangoffour import classify_batch

    from tests.test_batch import random_rows

    codes = random_rows(40_000, seed=5)
    counts = np.random.default_rng(5).integers(0, 3, size=(4_000, 28), dtype=np.uint8)
    want_kinds, want_actions = classify_batch(codes)
    want_points = best_points_batch(counts)

    def work(job: int) -> bool:
        if job % 2:
            kinds, actions = classify_batch(codes)
            return bool(np.array_equal(kinds, want_kinds) and np.array_equal(actions, want_actions))
        return bool(np.array_equal(best_points_batch(counts), want_points))

    assert all(hammer(work, THREADS * 3))


def test_the_simulator_on_threads() -> None:
    from fourcards.gangoffour.simulate import simulate

    def run(seed: int) -> Any:
        result = simulate(20, seed=seed, policies=("greedy", "random", "random", "random"))
        return result.scores.tolist(), result.steps.tolist()

    alone = [run(seed) for seed in range(THREADS)]
    assert hammer(run, THREADS) == alone


def test_every_registered_game_is_covered() -> None:
    assert set(BUILTIN) <= set(GAMES)
