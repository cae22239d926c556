"""sb3-contrib MaskablePPO on Gang of Four: env-steps a second of ``learn()``, one core, in one run.

    pip install "fourcards[rl,train]"
    python benchmarks/bench_rl_maskable_ppo.py [--steps 4096]

Learning speed (environment steps of the learning seat a second of
``model.learn``, rollouts and gradient steps together) for the observations
of :class:`fourcards.rl.gymnasium.SeatEnv` against three greedy bots, with the
same PPO settings for each (``--settings light``: ``n_steps * n_envs = 1024``
a rollout, batch 128, 4 epochs; ``--settings sb3-defaults``: MaskablePPO's
defaults, 2048, 64 and 10; ``net_arch=[64, 64]``; torch on one thread):

- ``dict``: ``{"observation", "action_mask"}`` (the default; the policy's
  input is 217 + 12,387 wide), ``MultiInputPolicy``;
- ``compact``: the 217 floats alone, the mask from ``action_masks()``;
- ``compact x 64 in C``: the same observation from 64 matches stepped in C
  (:class:`~fourcards.rl.vector.VectorGangOfFour`) behind a small SB3
  ``VecEnv`` adapter defined here;
- ``candidates x 64 in C``: the observation tensor and 32 candidate rows
  (:mod:`fourcards.rl.candidates`) flattened, the action a row (``Discrete(32)``).

It prints each speed and the ratios to ``dict`` measured in this run.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv

import fourcards.rl  # noqa: F401  (registers the Gymnasium ids)
from fourcards.gangoffour.features import FEATURE_SIZE
from fourcards.rl.vector import VectorGangOfFour


class VectorAdapter(VecEnv):  # type: ignore[misc]
    """SB3's VecEnv over VectorGangOfFour: the compact observation, or the candidates flattened."""

    def __init__(self, n: int, candidates: int = 0, seed: int = 0) -> None:
        self.env = VectorGangOfFour(n, seed=seed, opponents="greedy", candidates=candidates)
        self.k = candidates
        width = 217 + candidates * FEATURE_SIZE
        space = gymnasium.spaces.Box(0.0, 2.0, (width,), np.float32)
        actions = gymnasium.spaces.Discrete(candidates if candidates else self.env.num_actions)
        super().__init__(n, space, actions)
        self._actions = np.zeros(n, dtype=np.int64)

    def _observe(self, final: bool = False) -> np.ndarray:
        if not self.k:
            return np.array(self.env.observations)
        flat = self.env.candidates.reshape(self.num_envs, -1)
        return np.concatenate([self.env.observations, flat], axis=1)

    def reset(self) -> np.ndarray:
        self.env.reset()
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self) -> Any:
        chosen = self._actions
        if self.k:
            chosen = self.env.candidate_actions[np.arange(self.num_envs), chosen].astype(np.int64)
        self.env.step(chosen)
        dones = np.array(self.env.dones)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):  # the final observation (its candidates are not kept: zeros)
            final = np.zeros(self.observation_space.shape, dtype=np.float32)
            final[:217] = self.env.final_observations[i]
            infos[i]["terminal_observation"] = final
        return self._observe(), np.array(self.env.rewards), dones, infos

    def action_masks(self) -> np.ndarray:
        if self.k:
            return np.arange(self.k)[None, :] < self.env.candidate_counts[:, None]
        return np.array(self.env.masks)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            return list(self.action_masks())
        raise AttributeError(method_name)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        raise AttributeError(attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(attr_name)

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs

    def close(self) -> None:
        self.env.close()


SETTINGS = {"light": {"rollout": 1024, "batch_size": 128, "n_epochs": 4},
            "sb3-defaults": {"rollout": 2048, "batch_size": 64, "n_epochs": 10}}


def speed(name: str, env: Any, policy: str, n_envs: int, steps: int, settings: dict[str, int]) -> float:
    model = MaskablePPO(policy, env, n_steps=settings["rollout"] // n_envs, batch_size=settings["batch_size"],
                        n_epochs=settings["n_epochs"], seed=0, device="cpu", policy_kwargs={"net_arch": [64, 64]})
    parameters = sum(p.numel() for p in model.policy.parameters())
    started = time.perf_counter()
    model.learn(steps)
    rate = model.num_timesteps / (time.perf_counter() - started)
    print(f"{name:24s} {rate:9.0f} env-steps/s   ({model.num_timesteps} steps, {parameters:,} parameters)",
          flush=True)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=4096, help="env-steps a configuration (dict: a quarter)")
    parser.add_argument("--settings", choices=sorted(SETTINGS), default="light",
                        help="PPO settings: light (rollout 1024, batch 128, 4 epochs) or sb3-defaults "
                             "(MaskablePPO's: rollout 2048, batch 64, 10 epochs)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    settings = SETTINGS[args.settings]
    print(f"PPO settings {args.settings}: {settings}, net_arch [64, 64], torch threads 1", flush=True)
    rollout = settings["rollout"]
    results = {
        "dict": speed("dict", gymnasium.make("fourcards/GangOfFour-v0", opponents="greedy"),
                      "MultiInputPolicy", 1, max(rollout, args.steps // 4), settings),
        "compact": speed("compact", gymnasium.make("fourcards/GangOfFour-v0", observation="compact",
                                                   opponents="greedy"), "MlpPolicy", 1, args.steps, settings),
        "compact x 64 in C": speed("compact x 64 in C", VectorAdapter(64), "MlpPolicy", 64, args.steps * 4,
                                   settings),
        "candidates x 64 in C": speed("candidates x 64 in C", VectorAdapter(64, candidates=32), "MlpPolicy", 64,
                                      args.steps * 4, settings),
    }
    print()
    for name, rate in results.items():
        print(f"{name:24s} {rate / results['dict']:6.1f} x dict")


if __name__ == "__main__":
    main()
