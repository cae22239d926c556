"""Gang of Four from seat 0 against two greedy bots, with Gymnasium."""

import gymnasium

import fourcards.rl  # noqa: F401  (registers fourcards/GangOfFour-v0 and the others)

table = gymnasium.make("fourcards/GangOfFour-v0", players=3, target_score=20, opponents="greedy")
observation, info = table.reset(seed=7)
terminated = False
while not terminated:
    action = table.action_space.sample(observation["action_mask"])  # a masked random policy
    observation, reward, terminated, truncated, info = table.step(action)
print("reward:", reward, "scores:", info["scores"])
