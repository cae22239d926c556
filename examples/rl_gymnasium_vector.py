"""64 Gang of Four tables at once behind Gymnasium's vector API, stepped in C."""

import gymnasium

import fourcards.rl  # noqa: F401  (registers fourcards/GangOfFour-v0 with its vector entry point)

tables = gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=64, players=3, target_score=20, opponents="greedy")
observations, infos = tables.reset(seed=7)
space, finished, total = tables.single_action_space, 0, 0.0
while finished < 64:
    actions = [space.sample(mask) for mask in observations["action_mask"]]  # a masked random policy
    observations, rewards, terminations, truncations, infos = tables.step(actions)
    finished += int(terminations.sum())
    total += float(rewards[terminations].sum())
print(f"returns: {finished} matches finished, mean return {total / finished:+.3f} against two greedy bots")
tables.close()
