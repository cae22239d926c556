"""sb3-contrib MaskablePPO on Gang of Four's full action space, against three greedy bots.

    pip install "fourcards[rl,train]"
    python examples/maskable_ppo_gangoffour.py --steps 200000 --seed 1

The learning seat sees the compact observation (217 floats) and picks one of
the 12,387 actions; the legal ones come from ``action_masks()``. The matches
run in C, 64 at a time (``gymnasium.make_vec``), and
:class:`fourcards.rl.sb3.SparseMaskablePolicy` computes only the legal
actions' logits (sb3-contrib's ``MlpPolicy`` computes all 12,387: same
network, about 12x slower to learn with). The reward is the match's
(``returns()``: the seat's share of the win minus 1/4), so the signal is
sparse: 2,000,000 steps (about 9 minutes) took the win share from 0.000 to
0.010. It shows the speed and the API; a strong policy needs more (the
learned bot's imitation and per-round reward: ``docs/rl-training.md``).

Before and after training, the argmax policy plays ``--eval-matches``
matches against the greedy bots; the script prints its win share each time
(1/4 is an even share).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO

import fourcards.rl  # noqa: F401  (registers the Gymnasium ids)
from fourcards.rl.sb3 import SparseMaskablePolicy, VecEnvFromGymnasium


def envs(n: int, seed: int) -> VecEnvFromGymnasium:
    vec = VecEnvFromGymnasium(gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=n, observation="compact",
                                                 opponents="greedy"))
    vec.seed(seed)
    return vec


def win_share(model: MaskablePPO, matches: int, seed: int) -> float:
    """The argmax policy's share of the wins over ``matches`` matches (ties shared)."""
    env = envs(64, seed)
    observations = env.reset()
    shares: list[float] = []
    while len(shares) < matches:
        actions, _ = model.predict(observations, deterministic=True, action_masks=env.action_masks())
        observations, rewards, dones, _ = env.step(actions)
        shares.extend(float(r) + 0.25 for r in rewards[dones])
    env.close()
    return float(np.mean(shares[:matches]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200_000, help="env-steps of training")
    parser.add_argument("--envs", type=int, default=64, help="matches stepped together in C")
    parser.add_argument("--eval-matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", help="where to save the model (MaskablePPO.save)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    train = envs(args.envs, args.seed)
    model = MaskablePPO(SparseMaskablePolicy, train, n_steps=max(1, 2048 // args.envs), batch_size=256,
                        n_epochs=4, learning_rate=3e-4, ent_coef=0.01, seed=args.seed, device="cpu",
                        policy_kwargs={"net_arch": [128, 128]})
    print(f"before training: win share {win_share(model, args.eval_matches, 10_000 + args.seed):.3f} "
          f"over {args.eval_matches} matches against 3 greedy bots", flush=True)
    started = time.perf_counter()
    model.learn(args.steps)
    seconds = time.perf_counter() - started
    print(f"trained {model.num_timesteps} env-steps in {seconds:.0f} s ({model.num_timesteps / seconds:.0f}/s)")
    print(f"after training:  win share {win_share(model, args.eval_matches, 10_000 + args.seed):.3f} "
          f"over {args.eval_matches} matches against 3 greedy bots", flush=True)
    if args.save:
        model.save(args.save)
    train.close()


if __name__ == "__main__":
    main()
