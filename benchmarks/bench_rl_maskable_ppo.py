"""sb3-contrib MaskablePPO on Gang of Four: env-steps a second of ``learn()``, one core, in one run.

    pip install "fourcards[rl,train]"
    python benchmarks/bench_rl_maskable_ppo.py [--settings light|sb3-defaults] [--steps 8192]

Learning speed (environment steps of the learning seat a second of
``model.learn``, rollouts and gradient steps together) against three greedy
bots, with the same PPO settings for each row (``--settings light``:
``n_steps * n_envs = 1024`` a rollout, batch 128, 4 epochs;
``--settings sb3-defaults``: MaskablePPO's defaults, 2048, 64 and 10;
``net_arch=[64, 64]``; torch on one thread):

- ``dict``: :class:`fourcards.rl.gymnasium.SeatEnv` with its default
  observation ``{"observation", "action_mask"}`` (the policy's input is
  217 + 12,387 wide), ``MultiInputPolicy``: the setup the issue measured;
- ``compact``: the 217 floats alone, the mask from ``action_masks()``,
  sb3-contrib's ``MlpPolicy`` or :class:`fourcards.rl.sb3.SparseMaskablePolicy`;
- ``x 64 in C``: the same observation from 64 matches stepped in C
  (``gymnasium.make_vec(..., num_envs=64)`` behind
  :class:`fourcards.rl.sb3.VecEnvFromGymnasium`);
- ``candidates x 64 in C``: the candidate observation (32 rows), the action a
  row index (``Discrete(32)``), ``MultiInputPolicy``;
- ``floor``: the same PPO, policy and spaces on a do-nothing VecEnv (a fixed
  observation; masks replayed from real positions): what ``learn()`` costs
  with no game at all. ``x floor`` is a row's speed over its policy's floor.

It prints each speed, and the ratios to ``dict`` and to the floor measured in
this run.
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
from fourcards.rl.sb3 import SparseMaskablePolicy, VecEnvFromGymnasium

ENV_ID = "fourcards/GangOfFour-v0"
TARGET = 1000  # env-steps/s, MaskablePPO on the compact observation (issue 22)


class FloorVecEnv(VecEnv):  # type: ignore[misc]
    """A VecEnv that plays no game: a fixed observation, masks replayed from real positions."""

    def __init__(self, n: int, masks: np.ndarray) -> None:
        super().__init__(n, gymnasium.spaces.Box(0.0, 2.0, (217,), np.float32),
                         gymnasium.spaces.Discrete(masks.shape[1]))
        self.masks, self.at = masks, 0
        self.observation = np.full((n, 217), 0.5, dtype=np.float32)

    def reset(self) -> np.ndarray:
        return self.observation.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self.at = (self.at + self.num_envs) % (len(self.masks) - self.num_envs)

    def step_wait(self) -> Any:
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        return self.observation.copy(), rewards, np.zeros(self.num_envs, dtype=bool), [{}] * self.num_envs

    def action_masks(self) -> np.ndarray:
        return self.masks[self.at:self.at + self.num_envs]

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        return list(self.action_masks())

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [None] * self.num_envs

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(attr_name)

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * self.num_envs

    def close(self) -> None:
        pass


def real_masks(count: int = 4096) -> np.ndarray:
    """Masks of ``count`` real positions (random legal play against greedy bots)."""
    env = VecEnvFromGymnasium(gymnasium.make_vec(ENV_ID, num_envs=64, observation="compact", opponents="greedy"))
    env.seed(1)
    env.reset()
    rng = np.random.default_rng(1)
    seen = []
    while len(seen) * 64 < count:
        masks = env.action_masks()
        seen.append(masks.copy())
        env.step(np.array([rng.choice(np.flatnonzero(row)) for row in masks]))
    env.close()
    return np.concatenate(seen)


def c_env(n: int, observation: str = "compact") -> VecEnvFromGymnasium:
    options = {"max_candidates": 32} if observation == "candidates" else {}
    return VecEnvFromGymnasium(gymnasium.make_vec(ENV_ID, num_envs=n, observation=observation, opponents="greedy",
                                                  **options))


SETTINGS = {"light": {"rollout": 1024, "batch_size": 128, "n_epochs": 4},
            "sb3-defaults": {"rollout": 2048, "batch_size": 64, "n_epochs": 10}}


def speed(name: str, env: Any, policy: Any, n_envs: int, steps: int, settings: dict[str, int]) -> float:
    model = MaskablePPO(policy, env, n_steps=settings["rollout"] // n_envs, batch_size=settings["batch_size"],
                        n_epochs=settings["n_epochs"], seed=0, device="cpu", policy_kwargs={"net_arch": [64, 64]})
    parameters = sum(p.numel() for p in model.policy.parameters())
    started = time.perf_counter()
    model.learn(steps)
    rate = model.num_timesteps / (time.perf_counter() - started)
    print(f"{name:42s} {rate:8.0f} env-steps/s   ({model.num_timesteps} steps, {parameters:,} parameters)",
          flush=True)
    env.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=8192,
                        help="env-steps a fast row (the single-env rows: a quarter; at least one rollout)")
    parser.add_argument("--settings", choices=sorted(SETTINGS), default="light",
                        help="PPO settings: light (rollout 1024, batch 128, 4 epochs) or sb3-defaults "
                             "(MaskablePPO's: rollout 2048, batch 64, 10 epochs)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    settings = SETTINGS[args.settings]
    rollout = settings["rollout"]
    slow, fast = max(rollout, args.steps // 4), max(rollout, args.steps)
    print(f"PPO settings {args.settings}: {settings}, net_arch [64, 64], torch threads 1", flush=True)
    masks = real_masks()
    print(f"floor masks: {len(masks)} real positions, {masks.sum(axis=1).mean():.1f} legal actions on average",
          flush=True)
    sparse, mlp = SparseMaskablePolicy, "MlpPolicy"
    rows = [
        ("dict, MultiInputPolicy", lambda: gymnasium.make(ENV_ID, opponents="greedy"), "MultiInputPolicy", 1, slow),
        ("compact, MlpPolicy", lambda: gymnasium.make(ENV_ID, observation="compact", opponents="greedy"), mlp, 1,
         slow),
        ("compact, SparseMaskablePolicy", lambda: gymnasium.make(ENV_ID, observation="compact", opponents="greedy"),
         sparse, 1, slow),
        ("compact x 64 in C, MlpPolicy", lambda: c_env(64), mlp, 64, slow),
        ("compact x 64 in C, SparseMaskablePolicy", lambda: c_env(64), sparse, 64, fast),
        ("candidates x 64 in C, MultiInputPolicy", lambda: c_env(64, "candidates"), "MultiInputPolicy", 64, fast),
        ("floor, MlpPolicy", lambda: FloorVecEnv(64, masks), mlp, 64, slow),
        ("floor, SparseMaskablePolicy", lambda: FloorVecEnv(64, masks), sparse, 64, fast),
    ]
    results = {name: speed(name, make(), policy, n, steps, settings) for name, make, policy, n, steps in rows}
    print()
    base = results["dict, MultiInputPolicy"]
    print(f"{'row':42s} {'env-steps/s':>11s} {'x dict':>7s} {'x floor':>8s}")
    for name, rate in results.items():
        floor = (results["floor, SparseMaskablePolicy"] if "Sparse" in name
                 else results["floor, MlpPolicy"] if "MlpPolicy" in name else None)
        ratio = f"{rate / floor:8.2f}" if floor and not name.startswith("floor") else f"{'':8s}"
        print(f"{name:42s} {rate:11.0f} {rate / base:7.1f} {ratio}")
    headline = results["compact x 64 in C, SparseMaskablePolicy"]
    verdict = "met" if headline >= TARGET else "missed"
    print(f"\ntarget: MaskablePPO on the compact observation >= {TARGET} env-steps/s on one core: "
          f"{headline:.0f} ({verdict}; sb3-contrib's MlpPolicy on the same env: "
          f"{results['compact x 64 in C, MlpPolicy']:.0f})")


if __name__ == "__main__":
    main()
