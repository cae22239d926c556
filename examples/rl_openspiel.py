"""Gang of Four in OpenSpiel: OpenSpiel's ISMCTS bot (seat 0) against uniform random play."""

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from fourcards.rl import openspiel

game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 2, "target_score": 5})
rng = np.random.RandomState(1)
search = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=3, random_state=rng)
state = game.new_initial_state()
while not state.is_terminal():
    if state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes())
        state.apply_action(rng.choice(outcomes, p=probabilities))
    elif state.current_player() == 0:
        state.apply_action(search.step(state))
    else:
        state.apply_action(rng.choice(state.legal_actions()))
print("returns:", state.returns())
