"""Every game's observation tensor stays within ``Game.observation_bounds()``, the Box the RL
adapters declare: finite for every built-in game (Four Color's and Zangle's were open, so a
space's ``contains`` and a normaliser learned nothing from them), and held in play and at the
extreme totals a position may set."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from fourcards.errors import InvalidStateError
from fourcards.fourcolor.game import MAX_WIN_POINTS, FourColor, max_round_payment
from fourcards.games import GAMES, get_game
from fourcards.zangle.game import ZangleGame, max_total

RULES: list[tuple[str, dict[str, Any]]] = [
    ("gang-of-four", {"players": 3, "target_score": 20}), ("four-color", {"rounds": 2}),
    ("four-color", {"players": 2, "threshold": 0, "rounds": 1}), ("four-color", {"players": 3, "threshold": 60}),
    ("zangle", {"rounds": 2}), ("zangle", {"mode": "solitaire"}), ("four-pack", {}), ("duelo", {"players": 5}),
]


def _inside(state: Any, low: float, high: float) -> None:
    for seat in range(state.game.num_players):
        tensor = state.observation_tensor(seat)
        assert np.all(tensor >= low) and np.all(tensor <= high), (
            f"seat {seat}: {tensor.min()}..{tensor.max()} outside {low}..{high}")


def test_every_built_in_game_has_finite_bounds() -> None:
    for name in GAMES:
        low, high = get_game(name).new_game().observation_bounds()
        assert math.isfinite(low) and math.isfinite(high) and low < high, name


@pytest.mark.parametrize("name, rules", RULES, ids=[f"{n}-{r}" for n, r in RULES])
def test_random_play_stays_within_the_bounds(name: str, rules: dict[str, Any]) -> None:
    game = get_game(name).new_game(**rules)
    low, high = game.observation_bounds()
    rng = random.Random(7)
    for seed in range(6):
        state = game.new_match(seed)
        while not state.is_terminal:
            _inside(state, low, high)
            state.apply(rng.choice(state.legal_actions()))
        _inside(state, low, high)


def test_four_color_totals_at_the_most_a_position_may_set() -> None:
    """A position's totals are bounded by what the rules' rounds can pay; at that bound the
    tensor is still inside, and one point more is refused by name."""
    game = FourColor(players=3, rounds=2, threshold=10)
    most = 2 * max_round_payment(game.rules)
    assert most == 2 * (MAX_WIN_POINTS - 10 + 1) * 2
    low, high = game.observation_bounds()
    position = _four_color_position(game.new_match(1))
    extreme = game.from_position(**position, totals=[most, -most, 0])
    _inside(extreme, low, high)
    with pytest.raises(InvalidStateError, match=r"totals\[1\]"):
        game.from_position(**position, totals=[0, -most - 1, 0])


def _four_color_position(state: Any) -> dict[str, Any]:
    from fourcards.fourcolor import _deck

    def text(counts: Any) -> str:
        return " ".join(_deck.NAMES[k] for k in range(28) for _ in range(counts[k]))

    n = state.game.num_players
    return {"hands": [text(state.hand(p)) for p in range(n)], "current": state.current_player,
            "stock": " ".join(_deck.NAMES[c] for c in state._stock)}


def test_zangle_totals_and_hits_at_the_most_a_position_may_set() -> None:
    game = ZangleGame(players=2, rounds=1)
    most = max_total(game.rules)
    low, high = game.observation_bounds()
    state = game.new_match(2)
    from fourcards.zangle import KINDS

    def text(codes: Any) -> str:
        return " ".join(KINDS[c] for c in codes)

    position: dict[str, Any] = {"centre": text(state._centre), "centre_pile": text(state._centre_pile),
                "cards": [text(c) for c in state._cards], "piles": [text(p) for p in state._piles]}
    _inside(game.from_position(**position, totals=[most, 0]), low, high)
    with pytest.raises(InvalidStateError, match=r"totals\[0\]"):
        game.from_position(**position, totals=[most + 1, 0])
    with pytest.raises(InvalidStateError, match=r"hits\[1\]"):
        game.from_position(**position, hits=[0, len(game.rules.deck_cards()) + 1])
