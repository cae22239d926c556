"""The vectorized Gang of Four environment against the Python engine, move for move."""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from fourcards._backend import load  # noqa: E402

if load("fourcards.gangoffour._vector") is None:
    pytest.skip("the compiled environment is not in use", allow_module_level=True)

from fourcards import FourCardsError  # noqa: E402
from fourcards.engine import derive_seed  # noqa: E402
from fourcards.errors import IllegalMoveError, InvalidActionError, InvalidTypeError  # noqa: E402
from fourcards.gangoffour.bots import GreedyBot, RandomBot  # noqa: E402
from fourcards.gangoffour.match import GangOfFour, MatchState, Rules  # noqa: E402
from fourcards.rl import VectorGangOfFour  # noqa: E402


class Mirror:
    """One env replayed with the Python engine and the Python bots."""

    def __init__(self, env: VectorGangOfFour, index: int) -> None:
        self.env = env
        self.index = index
        self.number = 0
        self.finished_steps = 0  # engine steps of the env's finished matches
        self.game = GangOfFour(env.rules)
        self.state = self._begin()

    def _begin(self) -> MatchState:
        seed = derive_seed(derive_seed(self.env.seed, self.index), self.number)
        assert seed == self.env.match_seed(self.index, self.number)
        state = self.game.new_match(seed)
        self.bots: list[Any] = [
            None if name is None else RandomBot(derive_seed(seed, p + 1)) if name == "random" else GreedyBot()
            for p, name in enumerate(self.env.opponents)
        ]
        self.seed = seed
        return self._bots_move(state)

    def _bots_move(self, state: MatchState) -> MatchState:
        while not state.is_terminal and state.current_player not in self.env.agent_seats:
            player = state.current_player
            state.apply(self.bots[player].choose(state.observation(player), state.legal_actions()))
        return state

    def play(self, action: int) -> tuple[float, bool]:
        """The agent's action and the bots after it; the reward and done flag expected."""
        self.state.apply(action)
        self.state = self._bots_move(self.state)
        if not self.state.is_terminal:
            return 0.0, False
        reward = self.state.returns()[self.env.seat]
        self.final_scores = self.state.scores
        self.final_observation = self.state.observation_tensor(self.env.seat)
        self.final_returns = self.state.returns()
        self.match_steps = len(self.state.actions)
        self.finished_steps += self.match_steps
        self.number += 1
        self.state = self._begin()
        return reward, True

    def check(self) -> None:
        env, i, state = self.env, self.index, self.state
        assert state.current_player in env.agent_seats
        assert int(env.acting_seats[i]) == state.current_player
        assert int(env.seeds[i]) == self.seed
        assert int(env.match_numbers[i]) == self.number
        expected = state.observation_tensor(state.current_player)
        np.testing.assert_array_equal(env.observations[i], expected)
        mask = state.legal_actions_mask()
        if env.packed_masks:
            np.testing.assert_array_equal(env.masks[i], np.packbits(mask))
        else:
            np.testing.assert_array_equal(env.masks[i], mask)
        assert env.legal_actions(i) == state.legal_actions()
        assert int(env.steps[i]) == self.finished_steps + len(state.actions)


def _pick(masks: npt.NDArray[Any], packed: bool, rng: np.random.Generator, num_actions: int) -> npt.NDArray[np.int64]:
    rows = np.unpackbits(masks, axis=1)[:, :num_actions] if packed else masks
    return np.array([rng.choice(np.flatnonzero(row)) for row in rows], dtype=np.int64)


CASES = [
    dict(rules=Rules(target_score=12), opponents="random", seat=0, packed_masks=False),
    dict(rules=Rules(players=3, target_score=15, manual_last_card=True, last_card_may_pass=True),
         opponents=["greedy", "random"], seat=1, packed_masks=True),
    dict(rules=Rules(players=2, target_score=20, pass_is_final=True, chinese_dealing=True),
         opponents=[None, "greedy"], seat=0, packed_masks=False),
    dict(rules=Rules(players=4, target_score=10, dealer=1, manual_last_card=True),
         opponents=["greedy", "greedy", None, "random"], seat=2, packed_masks=True),
    dict(rules=Rules(players=4, target_score=10), opponents=None, packed_masks=False),
    dict(rules=Rules(players=3, target_score=12, manual_last_card=True), opponents=[None, "greedy", None],
         seat=2, packed_masks=True),
]


@pytest.mark.parametrize("case", CASES, ids=["4p-random", "3p-manual-packed", "2p-final-chinese", "4p-seat2",
                                             "4p-self-play", "3p-two-learners-seat2"])
def test_move_for_move_with_the_python_engine(case: dict[str, Any]) -> None:
    env = VectorGangOfFour(5, seed=11, **case)
    rng = np.random.default_rng(3)
    observations, masks = env.reset()
    assert observations is env.observations and masks is env.masks
    mirrors = [Mirror(env, i) for i in range(env.num_envs)]
    for mirror in mirrors:
        mirror.check()
    finished = 0
    for _ in range(120 * len(env.agent_seats)):  # every learning seat's turns are steps
        actions = _pick(env.masks, env.packed_masks, rng, env.num_actions)
        env.step(actions)
        for i, mirror in enumerate(mirrors):
            reward, done = mirror.play(int(actions[i]))
            assert bool(env.dones[i]) == done
            assert env.rewards[i] == np.float32(reward)
            if done:
                finished += 1
                assert tuple(env.final_scores[i]) == mirror.final_scores
                assert int(env.match_steps[i]) == mirror.match_steps
                np.testing.assert_array_equal(env.final_observations[i], mirror.final_observation)
                np.testing.assert_array_equal(env.final_returns[i], np.array(mirror.final_returns, dtype=np.float32))
            mirror.check()
    assert finished >= 5  # auto-reset was exercised
    assert env.episodes.sum() == finished


def test_reset_starts_the_next_match() -> None:
    env = VectorGangOfFour(2, seed=9)
    env.reset()
    assert env.match_numbers.tolist() == [0, 0]
    first = env.seeds.copy()
    env.reset()
    assert env.match_numbers.tolist() == [1, 1]
    assert env.seeds.tolist() == [env.match_seed(0, 1), env.match_seed(1, 1)]
    assert (env.seeds != first).all()
    mirror = Mirror(env, 1)
    mirror.number = 1
    mirror.state = mirror._begin()
    mirror.finished_steps = int(env.steps[1]) - len(mirror.state.actions)  # the abandoned match's steps
    mirror.check()


def test_illegal_action_changes_nothing() -> None:
    env = VectorGangOfFour(4, seed=7)
    twin = VectorGangOfFour(4, seed=7)
    env.reset()
    twin.reset()
    rng = np.random.default_rng(5)
    actions = _pick(env.masks, False, rng, env.num_actions)
    bad = actions.copy()
    legal = env.legal_actions(2)
    bad[2] = next(a for a in range(env.num_actions) if a not in legal)
    before = env.observations.copy(), env.masks.copy(), env.steps.copy()
    with pytest.raises(IllegalMoveError, match=rf"env 2: action {bad[2]} is not legal"):
        env.step(bad)
    np.testing.assert_array_equal(env.observations, before[0])
    np.testing.assert_array_equal(env.masks, before[1])
    np.testing.assert_array_equal(env.steps, before[2])
    env.step(actions)
    twin.step(actions)
    np.testing.assert_array_equal(env.observations, twin.observations)
    np.testing.assert_array_equal(env.steps, twin.steps)


@pytest.mark.parametrize(
    ("actions", "error", "message"),
    [
        (np.zeros(3, dtype=np.int64), FourCardsError, r"shape \(4,\)"),
        (np.zeros((4, 1), dtype=np.int64), FourCardsError, "shape"),
        (np.zeros(4, dtype=np.float64), InvalidTypeError, "integers"),
        (np.zeros(4, dtype=np.bool_), InvalidTypeError, "integers"),
        # outside the game: an agent's indexing bug (InvalidActionError, an IllegalMoveError too)
        ([0, 0, -1, 0], InvalidActionError, "env 2: action -1 is not an action"),
        (np.array([0, 0, 0, 2**63], dtype=np.uint64), InvalidActionError, "env 3"),
        ([0, 0, 12387, 0], InvalidActionError, "env 2: action 12387"),
        ("pass", InvalidTypeError, "integers"),
    ],
)
def test_bad_actions(actions: Any, error: type[Exception], message: str) -> None:
    env = VectorGangOfFour(4, seed=1)
    env.reset()
    before = env.observations.copy()
    with pytest.raises(error, match=message):
        env.step(actions)
    np.testing.assert_array_equal(env.observations, before)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(n=0), FourCardsError, "n=0"),
        (dict(n=1 << 20), FourCardsError, "1..65536"),
        (dict(n=2.0), InvalidTypeError, "n must be an int"),
        (dict(n=True), InvalidTypeError, "n must be an int"),
        (dict(n=2, seed=-1), FourCardsError, "seed=-1"),
        (dict(n=2, seed=1 << 64), FourCardsError, "seed="),
        (dict(n=2, seed="1"), InvalidTypeError, "seed must be an int"),
        (dict(n=2, opponents="clever"), FourCardsError, "opponent 'clever' for seat 1"),
        (dict(n=2, opponents=["random"]), FourCardsError, "give 3 names"),
        (dict(n=2, opponents=["random", "random", "random", "random"]), FourCardsError, "no learning seat"),
        (dict(n=2, opponents=[None, "random", "random", "random"], seat=1), FourCardsError,
         "bot at the learning seat 1"),
        (dict(n=2, opponents=[None, "clever", None, None]), FourCardsError, "opponent 'clever' for seat 1"),
        (dict(n=2, opponents=3), InvalidTypeError, "opponents"),
        (dict(n=2, seat=4), FourCardsError, "seat=4"),
        (dict(n=2, rules={"players": 3}), InvalidTypeError, "rules"),
        (dict(n=2, threads=0), FourCardsError, "threads=0"),
        (dict(n=2, packed_masks=1), InvalidTypeError, "packed_masks"),
    ],
)
def test_bad_construction(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        VectorGangOfFour(**kwargs)


def test_step_before_reset() -> None:
    env = VectorGangOfFour(2)
    with pytest.raises(FourCardsError, match="reset"):  # a RuntimeError before (the Gymnasium env's: this)
        env.step([0, 0])
    with pytest.raises(FourCardsError, match="reset"):
        env.legal_actions(0)


def test_actions_that_are_no_array_of_integers_are_refused_by_type() -> None:
    # an adversarial review: a ragged list raised numpy's bare ValueError, a masked
    # array's mask was dropped (its hidden values played)
    env = VectorGangOfFour(3, seed=1)
    env.reset()
    before = env.observations.copy()
    for actions in ([[1], [1, 2], 3], np.ma.masked_array([0, 0, 0], mask=[False, True, False])):
        with pytest.raises(InvalidTypeError, match="actions must be"):
            env.step(actions)
    assert (env.observations == before).all()


def _run(seed: int, steps: int, threads: int = 1) -> tuple[npt.NDArray[Any], ...]:
    env = VectorGangOfFour(16, seed=seed, rules=Rules(target_score=20), packed_masks=True, threads=threads)
    env.reset()
    rng = np.random.default_rng(seed)
    rewards = []
    for _ in range(steps):
        env.step(_pick(env.masks, True, rng, env.num_actions))
        rewards.append(env.rewards.copy())
    env.close()
    return env.observations.copy(), env.masks.copy(), env.steps.copy(), np.array(rewards)


def test_threads_split_a_batch_with_the_same_results() -> None:
    one = _run(4, 40)
    two = _run(4, 40, threads=2)
    three = _run(4, 40, threads=3)
    for a, b, c in zip(one, two, three):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_instances_in_threads_match_one_thread() -> None:
    alone = [_run(seed, 30) for seed in range(4)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda s: _run(s, 30), range(4)))
    for a, b in zip(alone, together):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_one_call_at_a_time_per_instance() -> None:
    env = VectorGangOfFour(2)
    env.reset()
    actions = np.array([env.legal_actions(0)[0], env.legal_actions(1)[0]])
    with env._lock:  # noqa: SIM117 - as if another thread were inside step()
        with pytest.raises(RuntimeError, match="another thread"):
            env.step(actions)
    env.step(actions)


def test_buffers_are_read_only_and_packed_masks_unpack() -> None:
    env = VectorGangOfFour(3, seed=4, packed_masks=True)
    bools = VectorGangOfFour(3, seed=4)
    env.reset()
    bools.reset()
    with pytest.raises(ValueError):
        env.observations[0, 0] = 5.0
    assert env.masks.dtype == np.uint8 and env.masks.shape == (3, (env.num_actions + 7) // 8)
    np.testing.assert_array_equal(np.unpackbits(env.masks, axis=1)[:, :env.num_actions], bools.masks)


def _vector_threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("fourcards-vector"))


def test_helper_threads_wait_between_calls_and_stop_with_close() -> None:
    expected = _run(5, 12)
    env = VectorGangOfFour(16, seed=5, rules=Rules(target_score=20), packed_masks=True, threads=3)
    env.reset()
    assert _vector_threads() == ["fourcards-vector-1", "fourcards-vector-2"]
    rng = np.random.default_rng(5)
    for step in range(12):
        env.step(_pick(env.masks, True, rng, env.num_actions))
        if step == 5:  # stopped halfway, then started again by the next call
            env.close()
            assert _vector_threads() == []
    np.testing.assert_array_equal(env.observations, expected[0])
    np.testing.assert_array_equal(env.steps, expected[2])
    env.close()
    assert _vector_threads() == []


def test_a_collected_environment_stops_its_threads() -> None:
    env = VectorGangOfFour(8, seed=1, threads=2)
    env.reset()
    assert _vector_threads() == ["fourcards-vector-1"]
    del env
    gc.collect()
    assert _vector_threads() == []


def test_more_threads_than_envs() -> None:
    expected = _run(6, 10)
    env = VectorGangOfFour(16, seed=6, rules=Rules(target_score=20), packed_masks=True)
    env.reset(threads=40)
    rng = np.random.default_rng(6)
    for _ in range(10):
        env.step(_pick(env.masks, True, rng, env.num_actions), threads=40)
    assert len(_vector_threads()) == 15  # one env a thread, the calling thread included
    env.close()
    np.testing.assert_array_equal(env.observations, expected[0])
    np.testing.assert_array_equal(env.masks, expected[1])


def test_the_compiled_side_refuses_a_second_caller() -> None:
    # The wrapper's lock keeps callers apart; the compiled object checks too, so
    # that no use of it, even a wrong one, reads a match while another thread plays it.
    env = VectorGangOfFour(2048, seed=2, threads=2)
    env.reset()
    core = env._core
    refused: list[str] = []

    def reset_many() -> None:
        for _ in range(10):
            core.run(2, None, 2, 4)

    worker = threading.Thread(target=reset_many)
    worker.start()
    while worker.is_alive():
        try:
            core.legal_actions(0)
        except RuntimeError as error:
            refused.append(str(error))
    worker.join()
    env.close()
    assert refused and "another thread" in refused[0]


def _step_in_child(queue: Any) -> None:
    env = _FORKED
    rng = np.random.default_rng(7)
    for _ in range(6):
        env.step(_pick(env.masks, True, rng, env.num_actions), threads=2)
    queue.put((env.observations.copy(), env.steps.copy(), _vector_threads()))


_FORKED: Any = None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_starts_its_own_threads() -> None:
    global _FORKED
    expected_env = VectorGangOfFour(16, seed=7, rules=Rules(target_score=20), packed_masks=True)
    expected_env.reset()
    env = _FORKED = VectorGangOfFour(16, seed=7, rules=Rules(target_score=20), packed_masks=True, threads=2)
    env.reset()  # the parent's helper thread exists before the fork
    rng = np.random.default_rng(7)
    for _ in range(6):
        expected_env.step(_pick(expected_env.masks, True, rng, expected_env.num_actions))
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (Python 3.12+)
        child = context.Process(target=_step_in_child, args=(queue,))
        child.start()
    observations, steps, threads = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0
    np.testing.assert_array_equal(observations, expected_env.observations)
    np.testing.assert_array_equal(steps, expected_env.steps)
    assert threads == ["fourcards-vector-1"]
    env.close()
    _FORKED = None


def test_the_compiled_side_checks_what_it_is_given() -> None:
    # The wrapper checks first, with messages; the compiled object checks again, so
    # that no use of it, even a wrong one, sends an illegal action or an unstarted
    # match into the C loops.
    env = VectorGangOfFour(3, seed=4)
    core = env._core
    with pytest.raises(RuntimeError, match="no match has started"):
        core.legal_actions(0)
    with pytest.raises(RuntimeError, match="no match has started"):
        core.run(0, np.zeros(3, dtype=np.int64), 1, 1)
    env.reset()
    before = env.observations.copy(), env.steps.copy()
    for bad in (np.full(3, 10**6, dtype=np.int64), np.full(3, -5, dtype=np.int64)):
        with pytest.raises(ValueError, match="not legal"):
            core.run(0, bad, 2, 1)
    with pytest.raises(ValueError, match="need 3 actions"):
        core.run(0, np.zeros(2, dtype=np.int64), 1, 1)
    with pytest.raises(ValueError, match="job 7"):
        core.run(7, None, 1, 1)
    with pytest.raises(ValueError, match="threads=0"):
        core.run(1, None, 0, 1)
    with pytest.raises(ValueError):
        core.legal_actions(3)
    np.testing.assert_array_equal(env.observations, before[0])  # nothing moved
    np.testing.assert_array_equal(env.steps, before[1])
    env.step([env.legal_actions(i)[0] for i in range(3)])
    env.close()
