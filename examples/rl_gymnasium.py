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

# 64 tables at once, stepped in C behind Gymnasium's vector API.
tables = gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=64, players=3, target_score=20, opponents="greedy")
observations, infos = tables.reset(seed=7)
space, finished = tables.single_action_space, 0
while finished < 64:
    actions = [space.sample(mask) for mask in observations["action_mask"]]  # a masked random policy
    observations, rewards, terminations, truncations, infos = tables.step(actions)
    finished += int(terminations.sum())
print("64 matches finished; mean reward of the last ones:", float(rewards[terminations].mean()))
tables.close()
