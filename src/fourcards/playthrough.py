"""Playthroughs for any game: a seeded match written out step by step.

Each line: the step, the public description of the state, how many actions
were legal, a checksum of the acting player's observation tensor, and the
action taken.  Replaying the recorded actions must reproduce the text.
(Gang of Four has a richer format in :mod:`fourcards.gangoffour.playthrough`.)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from .engine import Bot, Game

__all__ = ["render", "record", "parse"]


def render(game: Game[Any], seed: int, actions: Sequence[int]) -> str:
    header = {"game": game.name, "rules": game.rules_dict(), "seed": seed}
    lines = ["# fourcards playthrough " + json.dumps(header, sort_keys=True)]
    state = game.new_match(seed)
    for step, action in enumerate(actions):
        player = state.current_player
        tensor = state.observation_tensor(player).tobytes()
        lines.append(f"{step:5d} | {state.describe()} | legal {len(state.legal_actions())} | "
                     f"obs {hashlib.sha256(tensor).hexdigest()[:12]} | "
                     f"P{player} {state.action_to_string(action)} [{action}]")
        state.apply(action, player)
    lines.append(f"end: {state.describe()}; scores {list(state.scores)}, winners {list(state.winners)}")
    return "\n".join(lines) + "\n"


def record(game: Game[Any], seed: int, bots: Sequence[Bot]) -> str:
    """Play a match with bots and return its playthrough text."""
    state = game.new_match(seed)
    while not state.is_terminal:
        player = state.current_player
        state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
    return render(game, seed, state.actions)


def parse(text: str) -> tuple[dict[str, Any], int, list[int]]:
    """The header (game name and rules), seed and actions of a playthrough."""
    lines = text.splitlines()
    header = json.loads(lines[0].removeprefix("# fourcards playthrough "))
    actions = [int(line.rsplit("[", 1)[1].rstrip("]")) for line in lines[1:-1]]
    return header, int(header["seed"]), actions
