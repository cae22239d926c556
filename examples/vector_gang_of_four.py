"""256 Gang of Four matches at once: a random learner against greedy bots, stepped in C."""

import numpy as np

from fourcards.rl import VectorGangOfFour

env = VectorGangOfFour(256, seed=1, opponents="greedy")
observations, masks = env.reset()
rng = np.random.default_rng(1)
total = 0.0
for _ in range(200):
    actions = [rng.choice(np.flatnonzero(row)) for row in masks]  # your policy here
    observations, masks, rewards, dones = env.step(actions)
    total += float(rewards.sum())
print(f"{int(env.episodes.sum())} matches finished, mean return {total / max(1, env.episodes.sum()):+.3f}, "
      f"{int(env.steps.sum()):,} engine steps")
