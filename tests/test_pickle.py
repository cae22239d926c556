"""Pickling (issue 22): every state, game, bot and environment pickles at any
length with every protocol, and the copy plays on exactly as the original."""

from __future__ import annotations

import functools
import multiprocessing
import pickle
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from fourcards._backend import COMPILED
from fourcards.engine import Bot, State
from fourcards.errors import FourCardsError, IllegalMoveError
from fourcards.games import GAMES, get_game

pytestmark = pytest.mark.engine

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)
LENGTH = 10_000

# Rules under which one match lasts past LENGTH actions, and how the actions are
# picked to get there: at random, or (Four Pack, Duelo: matches that end in a few
# hundred actions when played at random) the candidate whose result scores lowest.
LONG: dict[str, tuple[dict[str, Any], Callable[[Any], float] | None]] = {
    "gang-of-four": ({"target_score": 100_000}, None),
    "four-color": ({"rounds": 1000}, None),
    "zangle": ({"rounds": 1000}, None),
    "four-pack": ({"max_asks": 2 * LENGTH}, lambda s: sum(s.scores)),  # asks that lay no family down
    "duelo": ({"hand_limit": 2 * LENGTH}, lambda s: max(s.pile_sizes) - min(s.pile_sizes)),  # even piles
}


def play_on(state: State[Any], steps: int, seed: int, cost: Callable[[Any], float] | None = None) -> State[Any]:
    """Apply ``steps`` actions (fewer if the match ends), picked from ``seed``."""
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        if cost is None:
            state.apply(rng.choice(legal))
            continue
        scored = []
        for action in rng.sample(legal, min(8, len(legal))):
            trial = state.clone()
            trial.apply(action)
            scored.append((trial.is_terminal, cost(trial), rng.random(), action))
        state.apply(min(scored)[3])
    return state


@functools.cache
def long_state(name: str) -> State[Any]:
    rules, cost = LONG[name]
    state = play_on(get_game(name).new_game(**rules).new_match(11), LENGTH, 11, cost)
    assert state.step == LENGTH and not state.is_terminal
    return state


@contextmanager
def shallow_stack(room: int = 200) -> Iterator[None]:
    """A recursion limit ``room`` frames above the current depth: pickling that
    recursed along the history (10,000 links) would fail."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back  # type: ignore[assignment]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + room)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def round_trip(value: Any, protocol: int = pickle.HIGHEST_PROTOCOL) -> Any:
    with shallow_stack():
        return pickle.loads(pickle.dumps(value, protocol))


def assert_same_state(a: State[Any], b: State[Any]) -> None:
    assert type(a) is type(b) and a == b
    assert a.to_json() == b.to_json() and a.summary() == b.summary() and a.describe() == b.describe()
    assert a.legal_actions() == b.legal_actions() and a.history == b.history
    if not a.is_terminal:
        seat = a.current_player
        assert a.observation(seat) == b.observation(seat)
        np.testing.assert_array_equal(a.observation_tensor(seat), b.observation_tensor(seat))


# -- states ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(GAMES))
def test_a_10000_action_state_pickles_with_every_protocol_and_plays_on(name: str) -> None:
    state = long_state(name)
    for protocol in PROTOCOLS:
        loaded = round_trip(state, protocol)
        assert_same_state(loaded, state)
        # The same generator and the same hidden facts: the copy plays on identically
        # (Gang of Four, Four Color and Zangle deal new rounds from the match's generator).
        ahead, twin = play_on(state.clone(), 600, protocol), play_on(loaded, 600, protocol)
        assert_same_state(twin, ahead)


@pytest.mark.parametrize("name", list(GAMES))
def test_the_pickle_is_linear_and_keeps_the_clone_semantics(name: str) -> None:
    state = long_state(name)
    data = pickle.dumps(state)
    assert len(data) < 400 * LENGTH  # the records once each (Zangle's are the largest: 170 bytes)
    loaded = round_trip(state)
    # The loaded state's links are links again: a clone shares them, and moves alone.
    other = loaded.clone()
    assert other._log is loaded._log and other._acts is loaded._acts
    play_on(other, 5, 1)
    assert loaded == state and other.step == state.step + 5 and other.actions[:LENGTH] == state.actions
    # A state and its clone in one pickle: both come back, each moving alone.
    pair = round_trip([state, state.clone()])
    play_on(pair[1], 3, 2)
    assert pair[0] == state and pair[1].step == state.step + 3


def test_the_links_that_share_records_still_share_them_after_loading() -> None:
    state = round_trip(long_state("four-pack"))
    asks = {id(record) for record in state.observation(0).asks}
    assert asks and asks <= {id(record) for record in state.history}
    duelo = round_trip(long_state("duelo"))
    hands = {id(record) for record in duelo.observation(0).hands}
    assert hands and hands <= {id(record) for record in duelo.history}


@pytest.mark.parametrize("name", list(GAMES))
def test_new_and_finished_matches_and_games_pickle(name: str) -> None:
    entry = get_game(name)
    game = entry.new_game()
    for protocol in PROTOCOLS:
        loaded_game = round_trip(game, protocol)
        assert type(loaded_game) is type(game) and loaded_game.rules_dict() == game.rules_dict()
        assert loaded_game.new_match(5) == game.new_match(5)
        assert round_trip(entry, protocol) is entry
    fresh = game.new_match(3)
    assert_same_state(round_trip(fresh), fresh)
    finished = play_on(game.new_match(4), 100_000, 4)
    assert finished.is_terminal
    assert_same_state(round_trip(finished, 0), finished)


# -- bots --------------------------------------------------------------------------------------

def _bot_kinds() -> list[tuple[str, str]]:
    return [(name, kind) for name, entry in GAMES.items() for kind in (*entry.available_bots, "best")]


def _new_bot(name: str, kind: str, game: Any, seed: int) -> Bot:
    entry = get_game(name)
    options = {"iterations": 30} if entry.kind_of(kind) == "search" else {}  # a budget that is not a clock
    return entry.new_bot(kind, game, seed, **options)


def _play_with(state: State[Any], bot: Bot, decisions: int) -> list[int]:
    """Seat 0 is ``bot``, the others pick by the step number; the bot's choices."""
    chosen: list[int] = []
    while not state.is_terminal and len(chosen) < decisions:
        player, legal = state.current_player, state.legal_actions()
        if player == 0:
            action = bot.choose(state.observation(0), legal)
            chosen.append(action)
        else:
            action = legal[(state.step * 7919) % len(legal)]
        state.apply(action, player)
    return chosen


@pytest.mark.parametrize(("name", "kind"), _bot_kinds())
def test_a_bot_pickled_mid_match_plays_on_as_the_original(name: str, kind: str) -> None:
    game = get_game(name).new_game()
    bot = _new_bot(name, kind, game, 8)
    state = game.new_match(21)
    _play_with(state, bot, 12)  # the bot has memory, a generator or a search tree by now
    copies = [round_trip(bot, protocol) for protocol in PROTOCOLS]
    expected = _play_with(state.clone(), bot, 12)
    for copy in copies:
        assert type(copy) is type(bot)
        assert _play_with(state.clone(), copy, 12) == expected


@pytest.mark.skipif(not COMPILED, reason="the search needs the compiled kernels")
def test_the_search_pickles_its_tree_whole() -> None:
    from fourcards.gangoffour.bots import SearchBot

    game = get_game("gang-of-four").new_game(players=3)
    bot = SearchBot(seed=4, iterations=300)
    state = game.new_match(2)
    _play_with(state, bot, 3)
    search = bot._search
    copies = [round_trip(search, protocol) for protocol in PROTOCOLS]
    for copy in copies:
        assert copy.statistics() == search.statistics() and copy.size == search.size
        assert copy.iterations == search.iterations
    search.run(50)  # and a copy searches on from where the original stood
    for copy in copies:
        copy.run(50)
        assert copy.statistics() == search.statistics() and copy.size == search.size
    assert round_trip(SearchBot(seed=1))._search.size == 0  # before any search


# -- environments ------------------------------------------------------------------------------

def _masked(mask: Any, step: int) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[(step * 7919) % len(legal)])


def _drive(env: Any, steps: int, start: int = 0) -> list[Any]:
    """Step a Gymnasium env with masked actions picked by the step number (a new
    match, from the env's own seed sequence, when one ends); what it returned."""
    seen: list[Any] = []
    observation = env.unwrapped._observe()
    for step in range(start, start + steps):
        observation, reward, terminated, truncated, info = env.step(_masked(observation["action_mask"], step))
        seen.append((observation["observation"].tolist(), observation["action_mask"].tolist(), reward,
                     terminated, truncated, info))
        if terminated or truncated:
            observation, info = env.reset()
            seen.append((observation["observation"].tolist(), info))
    return seen


@pytest.mark.rl
@pytest.mark.parametrize("name", list(GAMES))
def test_the_gymnasium_env_pickles_mid_episode(name: str) -> None:
    pytest.importorskip("gymnasium")
    from fourcards.rl.gymnasium import SeatEnv

    # (A best that searches spends a clock: its moves are not repeatable; the rule bot then.)
    entry = get_game(name)
    rule = next(k for k in entry.bot_kinds if k not in ("random", "search", "learned"))
    env = SeatEnv(name, opponents=rule if entry.best_bot == "search" else "best")
    env.reset(seed=5)
    _drive(env, 6)
    copies = [round_trip(env, protocol) for protocol in PROTOCOLS]
    expected = _drive(env, 150, 6)  # through the end of the match and into the next ones
    for copy in copies:
        assert _drive(copy, 150, 6) == expected


@pytest.mark.rl
def test_the_made_gymnasium_env_pickles_with_its_wrappers() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import fourcards.rl  # noqa: F401  (registers the ids)

    env = gymnasium.make("fourcards/GangOfFour-v0", players=3, target_score=20, opponents="greedy")
    env.reset(seed=9)
    _drive(env, 10)
    twin = round_trip(env)
    assert _drive(twin, 200, 10) == _drive(env, 200, 10)


@pytest.mark.rl
@pytest.mark.parametrize("name", list(GAMES))
def test_the_pettingzoo_env_pickles_mid_game(name: str) -> None:
    pytest.importorskip("pettingzoo")
    import fourcards.rl

    def drive(table: Any, steps: int) -> list[Any]:
        seen = []
        for step in range(steps):
            if all(table.terminations.values()) or not table.agents:
                break
            agent = table.agent_selection
            observation = table.observe(agent)
            table.step(_masked(observation["action_mask"], step))
            seen.append((agent, observation["observation"].tolist(), dict(table.rewards)))
        return seen

    for make in (fourcards.rl.raw_env, fourcards.rl.env):
        table = make(name)
        table.reset(seed=3)
        drive(table, 20)
        copies = [round_trip(table, protocol) for protocol in PROTOCOLS]
        expected = drive(table, 200)
        assert expected
        for copy in copies:
            assert drive(copy, 200) == expected


@pytest.mark.rl
def test_the_openspiel_game_and_a_long_state_pickle() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from fourcards.rl import openspiel

    game = pyspiel.load_game(openspiel.GAME_NAME)
    state = game.new_initial_state()
    state.apply_action(123)
    rng = np.random.default_rng(0)
    while len(state.history()) < 3000 and not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    for protocol in PROTOCOLS:
        assert str(round_trip(game, protocol)) == str(game)
        twin = round_trip(state, protocol)
        assert type(twin) is type(state) and twin.history() == state.history() and str(twin) == str(state)
        assert twin.information_state_string(0) == state.information_state_string(0)
        assert twin.match == state.match and twin.match._rng == state.match._rng
    twin = round_trip(state)
    for _ in range(1000):
        if state.is_terminal():
            break
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        twin.apply_action(action)
        assert str(twin) == str(state)
    assert twin.information_state_tensor(0) == state.information_state_tensor(0)
    assert twin.returns() == state.returns()


@pytest.mark.rl
def test_openspiel_random_sim_test_passes_at_the_default_rules() -> None:
    # Matches of thousands of actions under the default rules (target 100); the
    # test serializes the state along the way (the Python side through pickle).
    pyspiel = pytest.importorskip("pyspiel")
    from fourcards.rl import openspiel

    game = pyspiel.load_game(openspiel.GAME_NAME)
    assert game.get_parameters()["target_score"] == 100
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


# -- the vectorized environment ------------------------------------------------------------------

_VECTOR_BUFFERS = ("observations", "masks", "rewards", "dones", "steps", "episodes", "seeds", "match_numbers",
                   "final_scores", "acting_seats", "final_observations", "final_returns", "match_steps",
                   "candidates", "candidate_actions", "candidate_counts")


def _vector_actions(env: Any, step: int) -> list[int]:
    masks = np.unpackbits(env.masks, axis=1)[:, :env.num_actions] if env.packed_masks else env.masks
    return [_masked(row, step + i) for i, row in enumerate(masks)]


def _assert_same_vector(a: Any, b: Any) -> None:
    for name in _VECTOR_BUFFERS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.skipif(not COMPILED, reason="the vectorized environment needs the compiled kernels")
@pytest.mark.parametrize("packed,candidates", [(False, 0), (True, 0), (False, 6)])
def test_the_vector_env_pickles_whole_and_plays_on(packed: bool, candidates: int) -> None:
    from fourcards.gangoffour.match import Rules
    from fourcards.rl.vector import VectorGangOfFour

    env = VectorGangOfFour(5, seed=3, opponents=["best", "random", None], rules=Rules(players=4, target_score=15),
                           packed_masks=packed, threads=2, candidates=candidates)
    unstarted = round_trip(env)
    with pytest.raises(FourCardsError, match="reset"):
        unstarted.step([0] * 5)
    env.reset()
    unstarted.reset()
    _assert_same_vector(unstarted, env)
    for step in range(40):
        env.step(_vector_actions(env, step))
    for protocol in PROTOCOLS:
        twin = round_trip(env, protocol)
        assert repr(twin) == repr(env) and twin.num_actions == env.num_actions
        _assert_same_vector(twin, env)
    twin = round_trip(env)
    for step in range(40, 400):
        actions = _vector_actions(env, step)
        env.step(actions)
        twin.step(actions, threads=1 + step % 2)
        _assert_same_vector(twin, env)
    assert int(env.episodes.sum()) > 0  # matches ended and began again on both sides
    bad = _vector_actions(env, 0)  # the legal actions kept for checking steps came along
    masks = np.unpackbits(env.masks, axis=1)[:, :env.num_actions] if packed else env.masks
    bad[2] = int(np.flatnonzero(masks[2] == 0)[0])
    for side in (env, twin):
        with pytest.raises(IllegalMoveError, match=f"env 2: action {bad[2]} is not legal"):
            side.step(bad)
    env.reset()
    twin.reset()
    _assert_same_vector(twin, env)
    env.close()
    twin.close()


@pytest.mark.rl
@pytest.mark.skipif(not COMPILED, reason="the vectorized environment needs the compiled kernels")
def test_the_gymnasium_vector_env_pickles_and_plays_on() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import fourcards.rl  # noqa: F401

    envs = gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=3, players=2, target_score=10, opponents="best")
    observations, _ = envs.reset(seed=2)
    for step in range(10):
        observations, *_ = envs.step([_masked(m, step + i) for i, m in enumerate(observations["action_mask"])])
    twin = round_trip(envs)
    twin_observations = observations
    for step in range(10, 200):
        actions = [_masked(m, step + i) for i, m in enumerate(observations["action_mask"])]
        observations, rewards, done, _, _ = envs.step(actions)
        twin_observations, twin_rewards, twin_done, _, _ = twin.step(actions)
        np.testing.assert_array_equal(twin_observations["observation"], observations["observation"])
        np.testing.assert_array_equal(twin_rewards, rewards)
        np.testing.assert_array_equal(twin_done, done)
    envs.close()
    twin.close()


# -- across processes ------------------------------------------------------------------------------

def _play_on_in_child(payload: bytes) -> tuple[str, list[Any]]:
    """In a spawned process: load a state and a Gymnasium env, play both on."""
    state, env = pickle.loads(payload)
    play_on(state, 300, 5)
    return state.to_json(), _drive(env, 60, 4)


def _seat_env() -> Any:
    from fourcards.rl.gymnasium import SeatEnv

    env = SeatEnv("four-pack", opponents=["memory", "random", "random"])  # (best searches on a clock)
    env.reset(seed=1)
    _drive(env, 4)
    return env


@pytest.mark.rl
def test_a_state_and_an_env_cross_to_a_spawned_process() -> None:
    pytest.importorskip("gymnasium")
    state, env = long_state("gang-of-four"), _seat_env()
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        text, seen = pool.apply(_play_on_in_child, (pickle.dumps((state, env)),))
    assert text == play_on(state.clone(), 300, 5).to_json()
    assert seen == _drive(env, 60, 4)


def _make_gang_of_four() -> Any:
    import gymnasium

    import fourcards.rl  # noqa: F401  (registers the ids in the worker)

    return gymnasium.make("fourcards/GangOfFour-v0", players=2, target_score=5, opponents="best")


@pytest.mark.rl
def test_gymnasium_async_vector_env_runs_fourcards_in_spawned_workers() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    envs = gymnasium.vector.AsyncVectorEnv([_make_gang_of_four] * 2, context="spawn")
    try:
        observations, _ = envs.reset(seed=4)
        for step in range(5):  # (an env whose match just ended is reset by the next step: any action)
            masks = observations["action_mask"]
            actions = [_masked(mask, step + i) if mask.any() else 0 for i, mask in enumerate(masks)]
            observations, rewards, terminated, truncated, infos = envs.step(np.array(actions))
            assert observations["observation"].shape == (2, 217) and rewards.shape == (2,)
        single = _make_gang_of_four()
        first, _ = single.reset(seed=4)
        assert first["observation"].shape == (217,)
        copies = envs.call("match")  # the matches themselves come back through the pipes
        assert all(isinstance(match, State) and match.step > 0 for match in copies)
    finally:
        envs.close()
