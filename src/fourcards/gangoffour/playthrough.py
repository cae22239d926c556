"""Playthroughs: a seeded match written out step by step, as golden test data.

Each line shows what the player to act observed (their hand, the table, hand
sizes, scores, direction, announcements, the exchange), how many actions were
legal, a checksum of their observation tensor, and the action taken.  Replaying
the recorded actions must reproduce the text exactly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from ..engine import Bot
from .cards import format_cards
from .match import GangOfFour, MatchState, Observation, Rules

__all__ = ["observation_line", "render", "record", "parse_header"]


def observation_line(obs: Observation, tensor: bytes) -> str:
    table = "-" if obs.table is None else f"{obs.table} by {obs.table_player}"
    flags = "".join(
        "A" if a else ("O" if o else ("p" if p else "."))
        for a, o, p in zip(obs.announced, obs.out, obs.passed)
    )
    exchange = "-"
    if obs.exchange is not None:
        back = obs.exchange.returned or "?"
        exchange = f"{obs.exchange.loser}>{obs.exchange.winner} {obs.exchange.given}/{back}"
    return (
        f"r{obs.round} {obs.phase} p{obs.player} dir{obs.direction:+d} | {format_cards(obs.hand)} | "
        f"table {table} | sizes {'/'.join(map(str, obs.hand_sizes))} | "
        f"scores {'/'.join(map(str, obs.scores))} | flags {flags} | ex {exchange} | "
        f"legal {len(obs.legal_actions)} | obs {hashlib.sha256(tensor).hexdigest()[:12]}"
    )


def render(game: GangOfFour, seed: int, actions: Sequence[int]) -> str:
    """The playthrough text of the match ``seed`` + ``actions``."""
    header = {"game": game.name, "rules": game.rules_dict(), "seed": seed}
    lines = ["# fourcards playthrough " + json.dumps(header, sort_keys=True)]
    state = game.new_match(seed)
    for step, action in enumerate(actions):
        player = state.current_player
        obs = state.observation(player)
        tensor = state.observation_tensor(player).tobytes()
        lines.append(f"{step:5d} {observation_line(obs, tensor)} -> {state.action_to_string(action)} [{action}]")
        state.apply(action, player)
    lines.append(f"end after round {state.round}: scores {'/'.join(map(str, state.scores))}, "
                 f"winners {','.join(map(str, state.winners))}")
    return "\n".join(lines) + "\n"


def record(game: GangOfFour, seed: int, bots: Sequence[Bot]) -> tuple[MatchState, str]:
    """Play a match with bots and return it with its playthrough text."""
    state = game.new_match(seed)
    while not state.is_terminal:
        player = state.current_player
        state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
    return state, render(game, seed, state.actions)


def parse_header(text: str) -> tuple[GangOfFour, int, list[int]]:
    """The game, seed and actions of a playthrough text."""
    lines = text.splitlines()
    header = json.loads(lines[0].removeprefix("# fourcards playthrough "))
    game = GangOfFour(Rules(**header["rules"]))
    actions = [int(line.rsplit("[", 1)[1].rstrip("]")) for line in lines[1:-1]]
    return game, int(header["seed"]), actions
