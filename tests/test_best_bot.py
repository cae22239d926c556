"""``"best"`` (issue 22): every place that takes a bot kind takes ``"best"``, the
game's best bot that can play here (its rule-based one where the best needs the
compiled kernels and they are not in use)."""

from __future__ import annotations

import io
import sys
from typing import Any

import numpy as np
import pytest

import fourcards.games
from fourcards import FourCardsError
from fourcards._backend import COMPILED
from fourcards.cli import main
from fourcards.cli.session import make_bots
from fourcards.games import BEST, GAMES, get_game
from fourcards.tournament import Entrant, play_deals

pytestmark = pytest.mark.engine

NAMES = list(GAMES)
# The best of each game (the search needs the compiled kernels).
EXPECTED = {"gang-of-four": "search" if COMPILED else "greedy", "four-color": "search" if COMPILED else "greedy",
            "zangle": "search",
            "four-pack": "search", "duelo": "search"}


def _class_of(name: str, kind: str) -> type:
    entry = get_game(name)
    return type(entry.new_bot(kind, entry.new_game(), 1))


@pytest.mark.parametrize("name", NAMES)
def test_best_names_the_best_bot_in_the_registry(name: str) -> None:
    entry = get_game(name)
    assert BEST == "best" and entry.kind_of(BEST) == entry.hint_bot == EXPECTED[name]
    assert _class_of(name, BEST) is _class_of(name, EXPECTED[name])
    for kind in entry.bot_kinds:
        assert entry.kind_of(kind) == kind
    with pytest.raises(FourCardsError, match="choose from .* or best"):
        entry.new_bot("clever", entry.new_game())


def test_best_falls_back_to_the_best_bot_that_runs_without_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fourcards.games, "COMPILED", False)
    entry = get_game("gang-of-four")
    assert entry.kind_of(BEST) == "learned"  # numpy only; the search needs the compiled kernels
    assert type(entry.new_bot(BEST, entry.new_game(), 1)).__name__ == "LearnedBot"


@pytest.mark.parametrize("name", NAMES)
def test_play_opponents_best(name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    entry = get_game(name)
    state = entry.new_game().new_match(3)
    bots, _ = make_bots(name, state, BEST, 3)
    assert {type(bot) for bot in bots.values()} == {_class_of(name, EXPECTED[name])}
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", name, "--opponents", BEST, "--seed", "3", "--colour", "never"]) == 0
    capsys.readouterr()


def test_play_without_the_kernels_advises_with_the_rule_based_bot(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The adviser behind "hint" asked the registry for the search and failed on the twin.
    monkeypatch.setattr(fourcards.games, "COMPILED", False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "gang-of-four", "--opponents", BEST, "--seed", "3", "--colour", "never"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "gang-of-four", "--opponents", "search", "--seed", "3"]) == 2
    assert "--opponents search: the search bot needs the compiled kernels" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["four-color", "zangle", "four-pack", "duelo"])
def test_a_tournament_seats_best_as_the_bot_it_names(name: str) -> None:
    n = get_game(name).new_game().num_players
    options: dict[str, Any] = {"iterations": 8} if EXPECTED[name] == "search" else {}  # not a clock
    best = play_deals([Entrant.of(BEST, **options)] + [Entrant.of("random")] * (n - 1), [0], 5, {}, name)
    named = play_deals([Entrant.of(EXPECTED[name], **options)] + [Entrant.of("random")] * (n - 1), [0], 5, {},
                       name)
    assert best == named


@pytest.mark.skipif(not COMPILED, reason="the search needs the compiled kernels")
def test_a_tournament_takes_best_with_the_options_of_the_search(capsys: pytest.CaptureFixture[str]) -> None:
    entrants = [Entrant.of(BEST, iterations=20), Entrant.of("random")]
    records = play_deals(entrants, [0], 5, {"players": 2, "target_score": 10}, "gang-of-four")
    assert records == play_deals([Entrant.of("search", iterations=20), Entrant.of("random")], [0], 5,
                                 {"players": 2, "target_score": 10}, "gang-of-four")
    assert main(["tournament", "--game", "duelo", "--bots", "best,random", "--deals", "2", "--workers", "2"]) == 0
    assert "| best | 4 |" in capsys.readouterr().out


@pytest.mark.rl
@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_opponents_best_in_every_game(name: str) -> None:
    pytest.importorskip("gymnasium")
    from fourcards.rl.gymnasium import SeatEnv

    env = SeatEnv(name, opponents=BEST)
    assert set(env.opponent_kinds.values()) == {EXPECTED[name]}
    observation, _ = env.reset(seed=2)
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    mixed = SeatEnv(name, opponents=[BEST] + ["random"] * (env.game.num_players - 2))
    assert list(mixed.opponent_kinds.values())[0] == EXPECTED[name]


@pytest.mark.rl
def test_gymnasium_refuses_a_kind_the_game_lacks_and_says_best() -> None:
    pytest.importorskip("gymnasium")
    from fourcards.rl.gymnasium import SeatEnv

    for name in ("four-pack", "duelo"):
        with pytest.raises(FourCardsError, match="or best"):
            SeatEnv(name, opponents="greedy")


@pytest.mark.skipif(not COMPILED, reason="the vectorized environment needs the compiled kernels")
def test_the_vector_envs_take_best_as_greedy() -> None:
    from fourcards.gangoffour.match import Rules
    from fourcards.rl.vector import VectorGangOfFour

    best = VectorGangOfFour(3, seed=4, opponents=BEST, rules=Rules(players=3))
    greedy = VectorGangOfFour(3, seed=4, opponents="greedy", rules=Rules(players=3))
    assert best.opponents == greedy.opponents == (None, "greedy", "greedy")
    for env in (best, greedy):
        env.reset()
        for step in range(30):
            env.step([int(np.flatnonzero(row)[step % int(row.sum())]) for row in env.masks])
    np.testing.assert_array_equal(best.observations, greedy.observations)
    mixed = VectorGangOfFour(2, opponents=[BEST, "random"], rules=Rules(players=3))
    assert mixed.opponents == (None, "greedy", "random")


@pytest.mark.rl
@pytest.mark.skipif(not COMPILED, reason="the vectorized environment needs the compiled kernels")
def test_gymnasium_make_vec_takes_best() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    import fourcards.rl  # noqa: F401

    envs = gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=2, players=2, opponents=BEST)
    assert envs.vector.opponents == (None, "greedy")
    envs.close()
