"""fourcards.rl.sb3 against sb3-contrib itself: the sparse policy answers as ``MlpPolicy`` does
(log-probabilities, entropies, values, gradients, modes, draws), learns, saves and loads; the
VecEnv adapter feeds MaskablePPO from the C environment."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium import Env  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

import fourcards.rl  # noqa: E402,F401  (registers the Gymnasium ids)
from fourcards._backend import load  # noqa: E402
from fourcards.errors import FourCardsError  # noqa: E402
from fourcards.rl.sb3 import (  # noqa: E402
    SparseMaskableCategoricalDistribution,
    SparseMaskablePolicy,
    VecEnvFromGymnasium,
)

needs_c = pytest.mark.skipif(load("fourcards.gangoffour._vector") is None, reason="needs the compiled kernels")


def _vector(n: int) -> VecEnvFromGymnasium:
    """``n`` Gang of Four matches in C against greedy bots, the compact observation, as an SB3 VecEnv."""
    return VecEnvFromGymnasium(gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=n, observation="compact",
                                                  opponents="greedy"))


def _positions(count: int = 48, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Real Gang of Four positions: observations, bool masks, and one legal action of each."""
    env = _vector(count)
    env.seed(seed)
    observations = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 6))):
        masks = env.action_masks()
        observations, *_ = env.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))
    masks = env.action_masks()
    actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
    env.close()
    return np.asarray(observations, dtype=np.float32), masks.copy(), actions


def _twins(observation_space: Any, action_space: Any, seed: int = 0,
           **kwargs: Any) -> tuple[MaskableActorCriticPolicy, SparseMaskablePolicy]:
    """sb3-contrib's MlpPolicy and the sparse policy with the same parameters."""
    torch.manual_seed(seed)
    options: dict[str, Any] = {"net_arch": [64, 64], **kwargs}
    dense = MaskableActorCriticPolicy(observation_space, action_space, lambda _: 3e-4, **options)
    sparse = SparseMaskablePolicy(observation_space, action_space, lambda _: 3e-4, **options)
    sparse.load_state_dict(dense.state_dict())  # strict: the very same parameters
    return dense, sparse


def _evaluate(policy: Any, observations: Any, actions: Any, masks: Any) -> tuple[Any, Any, Any]:
    """``policy.evaluate_actions`` with an entropy (sb3 types it as optional)."""
    values, log_prob, entropy = policy.evaluate_actions(torch.as_tensor(observations), torch.as_tensor(actions),
                                                        action_masks=masks)
    assert entropy is not None
    return values, log_prob, entropy


@pytest.fixture(scope="module")
def positions() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if load("fourcards.gangoffour._vector") is None:
        pytest.skip("needs the compiled kernels")
    return _positions()


SPACES = (gymnasium.spaces.Box(0.0, 2.0, (217,), np.float32), gymnasium.spaces.Discrete(12387))


@pytest.mark.parametrize("mask_kind", ["numpy bools", "float tensor (the rollout buffer's)", "read-only view"])
def test_evaluate_actions_equals_mlp_policy(positions: Any, mask_kind: str) -> None:
    observations, masks, actions = positions
    dense, sparse = _twins(*SPACES, seed=5)
    given: Any = torch.as_tensor(masks, dtype=torch.float32) if mask_kind.startswith("float") else masks.copy()
    if mask_kind == "read-only view":
        given.flags.writeable = False
    values_d, log_d, entropy_d = _evaluate(dense, observations, actions, masks if mask_kind == "read-only view"
                                           else given)  # sb3-contrib itself warns about a read-only array
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning from torch either
        values_s, log_s, entropy_s = _evaluate(sparse, observations, actions, given)
    assert torch.equal(values_d, values_s)
    assert torch.allclose(log_d, log_s, atol=1e-5), (log_d - log_s).abs().max()
    assert torch.allclose(entropy_d, entropy_s, atol=1e-5), (entropy_d - entropy_s).abs().max()
    # the entropies are those of distributions over the legal actions alone
    counts = torch.as_tensor(masks.sum(axis=1), dtype=torch.float32)
    assert bool((entropy_s <= counts.log() + 1e-5).all())
    assert bool((entropy_s[counts > 1] > 0).all()) and bool((entropy_s[counts == 1].abs() < 1e-6).all())
    assert bool((counts > 1).any()) and bool((counts == 1).any())


def test_an_action_the_mask_rules_out_gets_sb3_contribs_answer(positions: Any) -> None:
    observations, masks, _ = positions
    illegal = torch.as_tensor([int(np.flatnonzero(~row)[0]) for row in masks])
    dense, sparse = _twins(*SPACES, seed=6)
    _, log_d, _ = _evaluate(dense, observations, illegal, masks)
    _, log_s, _ = _evaluate(sparse, observations, illegal, masks)
    assert bool((log_s < -1e7).all())
    assert torch.allclose(log_d, log_s, rtol=1e-6)


def test_gradients_equal_mlp_policys(positions: Any) -> None:
    observations, masks, actions = positions
    dense, sparse = _twins(*SPACES, seed=7)
    advantages = torch.as_tensor(np.random.default_rng(0).normal(size=len(actions)), dtype=torch.float32)
    for policy in (dense, sparse):
        values, log_prob, entropy = _evaluate(policy, observations, actions, masks)
        loss = -(advantages * log_prob.exp()).mean() - 0.01 * entropy.mean() + values.pow(2).mean()
        policy.optimizer.zero_grad()
        loss.backward()
    grads_d = dict(dense.named_parameters())
    for name, parameter in sparse.named_parameters():
        expected = grads_d[name].grad
        assert parameter.grad is not None and expected is not None, name
        assert torch.allclose(parameter.grad, expected, atol=1e-6), (name, (parameter.grad - expected).abs().max())
    # rows of the action layer no mask allows get no gradient at all
    unused = ~masks.any(axis=0)
    action_net: Any = sparse.action_net
    assert float(action_net.weight.grad[torch.as_tensor(unused)].abs().max()) == 0.0


def test_predict_equals_mlp_policy_with_and_without_masks(positions: Any) -> None:
    observations, masks, _ = positions
    dense, sparse = _twins(*SPACES, seed=8)
    chosen_d, _ = dense.predict(observations, deterministic=True, action_masks=masks)
    chosen_s, _ = sparse.predict(observations, deterministic=True, action_masks=masks)
    assert np.array_equal(chosen_d, chosen_s)
    assert masks[np.arange(len(masks)), chosen_s].all()
    # without masks the distribution is the dense one, over every action
    free_d, _ = dense.predict(observations, deterministic=True)
    free_s, _ = sparse.predict(observations, deterministic=True)
    assert np.array_equal(free_d, free_s)
    # one observation, not a batch, as SB3 allows
    single, _ = sparse.predict(observations[0], deterministic=True, action_masks=masks[0])
    assert int(single) == int(chosen_s[0])


def test_threads_predicting_at_once_get_their_own_answers(positions: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    observations, masks, _ = positions
    _, sparse = _twins(*SPACES, seed=9)
    halves = [(observations[:20], masks[:20]), (observations[20:], masks[20:])]
    alone = [sparse.predict(obs, deterministic=True, action_masks=m)[0] for obs, m in halves]

    def ask(half: int) -> bool:
        obs, m = halves[half]
        return all(np.array_equal(sparse.predict(obs, deterministic=True, action_masks=m)[0], alone[half])
                   for _ in range(150))

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(ask, [0, 1, 0, 1]))


def test_draws_follow_the_masked_softmax() -> None:
    distribution = SparseMaskableCategoricalDistribution(7)
    layer: Any = distribution.proba_distribution_net(3)
    torch.manual_seed(11)
    with torch.no_grad():
        layer.weight.normal_()
        layer.bias.normal_()
    draws = 40_000
    latent = torch.randn(1, 3).expand(draws, 3)
    mask = np.array([True, False, True, True, False, True, False])
    distribution.from_latent(latent, layer).apply_masking(np.tile(mask, (draws, 1)))
    sampled = distribution.sample()
    assert mask[sampled.numpy()].all()
    frequencies = np.bincount(sampled.numpy(), minlength=7) / draws
    logits = (layer(latent[:1])[0]).detach().numpy()
    expected = np.where(mask, np.exp(logits - logits[mask].max()), 0.0)
    expected /= expected.sum()
    assert np.abs(frequencies - expected).max() < 0.012, (frequencies, expected)  # 4.8 sd at 40,000 draws
    assert int(distribution.mode()[0]) == int(np.argmax(expected))


def test_a_row_that_allows_nothing_gets_sb3_contribs_answer() -> None:
    dense, sparse = _twins(gymnasium.spaces.Box(-1.0, 1.0, (5,), np.float32), gymnasium.spaces.Discrete(9), seed=2)
    observations = torch.randn(3, 5)
    masks = np.zeros((3, 9), dtype=bool)
    masks[0, [1, 4]] = True
    masks[2, 8] = True  # row 1 allows nothing
    actions = torch.as_tensor([4, 0, 8])
    expected = _evaluate(dense, observations, actions, masks)
    answered = _evaluate(sparse, observations, actions, masks)
    for one, other in zip(expected, answered):
        assert torch.allclose(one, other, atol=1e-5)


def test_masks_of_the_wrong_shape_are_refused_by_name(positions: Any) -> None:
    observations, masks, actions = positions
    _, sparse = _twins(*SPACES, seed=3)
    for bad in (masks[:, :-1], masks[:-1], masks.reshape(-1)[:100]):
        with pytest.raises(FourCardsError, match=r"action masks of shape .*expected \d+ rows of 12387"):
            _evaluate(sparse, observations, actions, bad)


def test_the_policy_needs_a_discrete_action_space() -> None:
    box = gymnasium.spaces.Box(-1.0, 1.0, (2,), np.float32)
    with pytest.raises(FourCardsError, match="Discrete action space"):
        SparseMaskablePolicy(box, gymnasium.spaces.MultiDiscrete([3, 3]), lambda _: 3e-4)


def test_adam_is_sb3s_adam_in_one_pass_unless_told_otherwise() -> None:
    spaces = (gymnasium.spaces.Box(-1.0, 1.0, (4,), np.float32), gymnasium.spaces.Discrete(6))
    default = SparseMaskablePolicy(*spaces, lambda _: 3e-4)
    assert isinstance(default.optimizer, torch.optim.Adam)
    assert default.optimizer.defaults["eps"] == 1e-5 and default.optimizer.defaults["fused"] is True
    told = SparseMaskablePolicy(*spaces, lambda _: 3e-4, optimizer_kwargs={"foreach": False, "eps": 1e-7})
    assert told.optimizer.defaults["eps"] == 1e-7 and not told.optimizer.defaults["fused"]
    other = SparseMaskablePolicy(*spaces, lambda _: 3e-4, optimizer_class=torch.optim.SGD)
    assert isinstance(other.optimizer, torch.optim.SGD)


class WideBandit(Env[np.ndarray, np.int64]):
    """5,000 actions, 4 legal at each step: action 1234 and three others; only 1234 pays."""

    def __init__(self) -> None:
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (4,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(5000)
        self._mask = np.zeros(5000, dtype=bool)
        self._steps = 0

    def _draw(self) -> None:
        self._mask[:] = False
        self._mask[self.np_random.choice(5000, 3, replace=False)] = True
        self._mask[1234] = True

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self._steps = 0
        self._draw()
        return np.ones(4, dtype=np.float32), {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        assert self._mask[int(action)], action  # MaskablePPO never picks a ruled-out action
        reward = 1.0 if int(action) == 1234 else 0.0
        self._steps += 1
        self._draw()
        return np.ones(4, dtype=np.float32), reward, self._steps >= 8, False, {}

    def action_masks(self) -> np.ndarray:
        mask: np.ndarray = self._mask.copy()
        return mask


def test_maskable_ppo_learns_with_the_sparse_policy() -> None:
    model = MaskablePPO(SparseMaskablePolicy, WideBandit(), n_steps=256, batch_size=64, learning_rate=3e-3,
                        seed=4, device="cpu", policy_kwargs={"net_arch": [16]})
    env = WideBandit()
    env.reset(seed=9)

    def paying_share() -> float:
        picks = [model.predict(np.ones(4, dtype=np.float32), action_masks=env.action_masks())[0] for _ in range(200)]
        env._draw()
        return float(np.mean([int(p) == 1234 for p in picks]))

    before = paying_share()  # 1 in 4 at first
    model.learn(4096)
    assert before < 0.35
    assert paying_share() > 0.6  # sb3-contrib's MlpPolicy: 0.2 to 0.78 here


def test_same_seed_same_training() -> None:
    def trained() -> dict[str, Any]:
        model = MaskablePPO(SparseMaskablePolicy, WideBandit(), n_steps=64, batch_size=32, seed=21, device="cpu",
                            policy_kwargs={"net_arch": [8]})
        model.learn(128)
        return {k: v.clone() for k, v in model.policy.state_dict().items()}

    first, second = trained(), trained()
    assert all(torch.equal(first[k], second[k]) for k in first)


@needs_c
def test_learn_save_and_load_on_the_c_environment(tmp_path: Path) -> None:
    envs = _vector(8)
    model = MaskablePPO(SparseMaskablePolicy, envs, n_steps=32, batch_size=64, n_epochs=2, seed=1, device="cpu")
    model.learn(512)  # the C environment refuses an illegal action: every one was legal
    assert model.num_timesteps == 512
    observations = envs.reset()
    masks = envs.action_masks()
    chosen, _ = model.predict(observations, deterministic=True, action_masks=masks)
    model.save(tmp_path / "ppo")
    loaded = MaskablePPO.load(tmp_path / "ppo", device="cpu")
    assert isinstance(loaded.policy, SparseMaskablePolicy)
    again, _ = loaded.predict(observations, deterministic=True, action_masks=masks)
    assert np.array_equal(chosen, again)
    # the weights load into sb3-contrib's MlpPolicy too
    plain = MaskablePPO("MlpPolicy", envs, seed=1, device="cpu")
    plain.policy.load_state_dict(loaded.policy.state_dict())
    assert np.array_equal(plain.predict(observations, deterministic=True, action_masks=masks)[0], chosen)
    envs.close()


@needs_c
def test_vec_env_reports_the_end_of_a_match_as_sb3_expects() -> None:
    envs = _vector(4)
    envs.seed(5)
    envs.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = envs.action_masks()
        assert masks.shape == (4, 12387) and masks.dtype == np.bool_ and masks.any(axis=1).all()
        assert [bool(m.any()) for m in envs.env_method("action_masks", indices=[1, 3])] == [True, True]
        stepped, rewards, dones, infos = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        observations = np.asarray(stepped)
        assert observations.shape == (4, 217) and rewards.dtype == np.float32
        for i in np.flatnonzero(dones):
            ended += 1
            info = infos[i]
            assert info["terminal_observation"].shape == (217,)
            assert info["TimeLimit.truncated"] is False
            assert len(info["scores"]) == 4 and info["match_steps"] > 0
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
    assert ended > 0
    assert envs.get_attr("render_mode") == [None] * 4
    envs.close()


@needs_c
def test_vec_env_seeds_give_the_same_matches() -> None:
    def run(seed: int) -> list[float]:
        envs = _vector(3)
        envs.seed(seed)
        seen = [float(np.asarray(envs.reset()).sum())]
        for _ in range(30):
            masks = envs.action_masks()
            observations, rewards, _, _ = envs.step(np.array([np.flatnonzero(m)[0] for m in masks]))
            seen.append(float(np.asarray(observations).sum() + rewards.sum()))
        envs.close()
        return seen

    assert run(12) == run(12)
    assert run(12) != run(13)


def test_vec_env_refuses_what_it_cannot_drive() -> None:
    with pytest.raises(FourCardsError, match="gymnasium.vector.VectorEnv"):
        VecEnvFromGymnasium(gymnasium.make("fourcards/GangOfFour-v0"))  # type: ignore[arg-type]
    next_step = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make("fourcards/Duelo-v0")])
    with pytest.raises(FourCardsError, match="SAME_STEP"):
        VecEnvFromGymnasium(next_step)
    next_step.close()


def test_vec_env_over_sync_vector_env_of_any_game() -> None:
    same_step = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make("fourcards/Duelo-v0", observation="compact", opponents="best") for _ in range(2)],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    envs = VecEnvFromGymnasium(same_step)
    model = MaskablePPO(SparseMaskablePolicy, envs, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)  # Duelo's Python engine refuses an illegal action: every one was legal
    assert model.num_timesteps == 128
    assert envs.action_masks().shape == (2, same_step.single_action_space.n)
    envs.close()
