"""Four Color Cards as a PettingZoo AEC environment: masked random play to the end."""

import numpy as np

from fourcards.rl import env

table = env("four-color", players=3, rounds=1)
table.reset(seed=42)
rng = np.random.default_rng(42)
for _agent in table.agent_iter():
    observation, reward, termination, truncation, info = table.last()
    action = None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"])))
    table.step(action)
print("returns:", table.unwrapped.match.returns())
