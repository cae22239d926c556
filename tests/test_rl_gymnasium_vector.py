"""Gymnasium's vector API (``gymnasium.make_vec``) over the C environment."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from fourcards._backend import load

gymnasium = pytest.importorskip("gymnasium")
if load("fourcards.gangoffour._vector") is None:
    pytest.skip("the compiled environment is not in use", allow_module_level=True)

import fourcards.rl  # noqa: E402,F401  (registers the ids)
from fourcards import FourCardsError  # noqa: E402
from fourcards.errors import IllegalMoveError, InvalidRulesError, InvalidTypeError  # noqa: E402
from fourcards.rl import VectorGangOfFour  # noqa: E402
from fourcards.rl.gymnasium_vector import GangOfFourVectorEnv  # noqa: E402

pytestmark = pytest.mark.rl


def _pick(masks: npt.NDArray[Any], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


def test_make_vec_steps_the_matches_in_c_with_the_seat_envs_spaces() -> None:
    envs = gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=3, players=3, target_score=20,
                              opponents="greedy")
    single = gymnasium.make("fourcards/GangOfFour-v0", players=3, target_score=20, opponents="greedy")
    assert isinstance(envs.unwrapped, GangOfFourVectorEnv)
    assert envs.num_envs == 3
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([single.action_space.n] * 3)
    observations, infos = envs.reset(seed=4)
    assert envs.observation_space.contains(observations)
    assert infos == {}
    envs.close()


def test_the_same_matches_as_vector_gang_of_four_with_final_observations() -> None:
    envs = GangOfFourVectorEnv(6, players=2, target_score=10, opponents="random")
    twin = VectorGangOfFour(6, seed=21, opponents="random", rules=envs.rules)
    observations, _ = envs.reset(seed=21)
    twin.reset()
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(250):
        np.testing.assert_array_equal(observations["observation"], twin.observations)
        np.testing.assert_array_equal(observations["action_mask"], twin.masks.astype(np.int8))
        actions = _pick(observations["action_mask"], rng)
        observations, rewards, terminations, truncations, infos = envs.step(actions)
        twin.step(actions)
        np.testing.assert_array_equal(rewards, twin.rewards.astype(np.float64))
        np.testing.assert_array_equal(terminations, twin.dones)
        assert not truncations.any()
        assert envs.observation_space.contains(observations)
        if terminations.any():
            ended = np.flatnonzero(terminations)
            np.testing.assert_array_equal(infos["_final_obs"], terminations)
            for i in ended:
                final = infos["final_obs"][i]
                assert envs.single_observation_space.contains(final)
                np.testing.assert_array_equal(final["observation"], twin.final_observations[i])
                assert not final["action_mask"].any()
                assert infos["final_info"]["scores"][i] == tuple(int(s) for s in twin.final_scores[i])
                assert infos["final_info"]["match_steps"][i] == twin.match_steps[i]
            finished += len(ended)
        else:
            assert "final_obs" not in infos
    assert finished >= 6


def test_reset_without_a_seed_moves_to_the_next_matches() -> None:
    envs = GangOfFourVectorEnv(2)
    envs.reset(seed=3)
    first = envs.vector.seeds.copy()
    assert envs.vector.match_numbers.tolist() == [0, 0]
    envs.reset()
    assert envs.vector.match_numbers.tolist() == [1, 1]
    assert envs.vector.seeds.tolist() == [envs.vector.match_seed(i, 1) for i in range(2)]
    envs.reset(seed=3)
    np.testing.assert_array_equal(envs.vector.seeds, first)


def test_copies_by_default_views_on_request() -> None:
    copied = GangOfFourVectorEnv(2, players=2)
    viewed = GangOfFourVectorEnv(2, players=2, copy=False)
    kept, _ = copied.reset(seed=5)
    views, _ = viewed.reset(seed=5)
    before = kept["observation"].copy()
    rng = np.random.default_rng(5)
    actions = _pick(kept["action_mask"], rng)
    copied.step(actions)
    viewed.step(actions)
    np.testing.assert_array_equal(kept["observation"], before)  # the copy did not move
    np.testing.assert_array_equal(views["observation"], viewed.vector.observations)  # the view did
    assert not views["observation"].flags.writeable
    np.testing.assert_array_equal(copied.action_masks(), copied.vector.masks)


def test_an_illegal_action_raises_and_moves_nothing() -> None:
    envs = GangOfFourVectorEnv(3, players=2)
    observations, _ = envs.reset(seed=8)
    actions = _pick(observations["action_mask"], np.random.default_rng(8))
    bad = actions.copy()
    bad[1] = next(a for a in range(envs.vector.num_actions) if not observations["action_mask"][1, a])
    with pytest.raises(IllegalMoveError, match="env 1"):
        envs.step(bad)
    np.testing.assert_array_equal(envs.vector.observations, observations["observation"])
    envs.step(actions)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(game_name="duelo"), FourCardsError, "gang-of-four only"),
        (dict(colour="red"), InvalidRulesError, "unknown rule 'colour'"),
        (dict(players=9), InvalidRulesError, "players=9"),
        (dict(opponents="search"), InvalidRulesError, "opponent 'search'"),
        (dict(copy="yes"), InvalidTypeError, "copy must be a bool"),
        (dict(opponents=[None, None, "random", "random"]), InvalidRulesError, "one learning seat"),
        (dict(num_envs=0), FourCardsError, "n=0"),
    ],
)
def test_bad_construction(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        GangOfFourVectorEnv(**kwargs)


def test_bad_resets_and_steps() -> None:
    envs = GangOfFourVectorEnv(2)
    with pytest.raises(FourCardsError, match="reset"):
        envs.step([0, 0])
    with pytest.raises(FourCardsError, match="one int"):
        envs.reset(seed=[1, 2])
    with pytest.raises(FourCardsError, match=r"seed=-1 must be in 0..2\*\*64-1"):
        envs.reset(seed=-1)


def test_gymnasium_episode_statistics_wrapper() -> None:
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=4, players=2, target_score=10))
    observations, _ = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    returns: list[float] = []
    for _ in range(200):
        observations, rewards, terminations, _, infos = envs.step(_pick(observations["action_mask"], rng))
        if terminations.any():
            np.testing.assert_allclose(infos["episode"]["r"][terminations], rewards[terminations])
            returns.extend(rewards[terminations].tolist())
    assert returns and set(returns) <= {-0.5, 0.5}
    envs.close()


def test_the_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    runpy.run_path(str(examples / "rl_gymnasium_vector.py"), run_name="__main__")
    assert "matches finished" in capsys.readouterr().out
