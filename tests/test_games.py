"""The registry of games and bots by name."""

from __future__ import annotations

import os
import subprocess
import sys

from typing import Any

import pytest

import fourcards
from fourcards import FourCardsError
from fourcards.games import ALIASES, GAMES, get_game
from fourcards.errors import InvalidTypeError


def test_every_game_and_bot_by_name() -> None:
    for name, entry in GAMES.items():
        game = entry.new_game()
        assert get_game(name) is entry and game.name == name
        for kind in entry.available_bots:
            bot = entry.new_bot(kind, game, seed=1)
            state = game.new_match(1)
            assert bot.choose(state.observation(state.current_player), state.legal_actions()) in state.legal_actions()
    for alias, name in ALIASES.items():
        assert get_game(alias) is GAMES[name]


def test_unknown_names_and_options_are_refused() -> None:
    with pytest.raises(FourCardsError, match="chess"):
        get_game("chess")
    with pytest.raises(InvalidTypeError):
        get_game(4)  # type: ignore[arg-type]
    entry = get_game("duelo")
    with pytest.raises(FourCardsError, match="clever"):
        entry.new_bot("clever", entry.new_game())
    with pytest.raises(FourCardsError, match="no options"):
        entry.new_bot("random", entry.new_game(), depth=3)


def test_an_unknown_rule_or_no_game_is_refused_by_name() -> None:
    """A helper's first use: ``new_game(bogus=1)`` raised the rules dataclass's own TypeError, and
    Duelo's ``new_bot("search", None)`` an AttributeError; a game of another kind was taken too."""
    for entry in GAMES.values():
        with pytest.raises(fourcards.InvalidRulesError, match=f"unknown rule 'bogus' for {entry.new_game().name}; "
                                                              "its rules are players"):
            entry.new_game(bogus=1)
        other = next(e for e in GAMES.values() if e.game_class is not entry.game_class).new_game()
        for game in (None, other, entry.game_class):
            with pytest.raises(FourCardsError, match=f"plays a {entry.game_class.__name__} game"):
                entry.new_bot("random", game)  # type: ignore[arg-type]


def test_compiled_only_bots_are_not_offered_on_the_twin() -> None:
    code = ("from fourcards.games import get_game\n"
            "e = get_game('gang-of-four')\n"
            "print(e.available_bots, e.hint_bot)\n"
            "try:\n    e.new_bot('search', e.new_game())\nexcept ValueError as error:\n    print(error)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_")}
    env["FOURCARDS_NO_EXTENSIONS"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == "('random', 'greedy', 'learned') learned"  # numpy only: it plays on the twin
    assert "needs the compiled kernels" in out
    if fourcards.COMPILED:
        assert get_game("gang-of-four").available_bots == ("random", "greedy", "learned", "search")
        assert get_game("gang-of-four").hint_bot == "search"


@pytest.mark.parametrize("name", list(GAMES))
def test_the_winners_have_the_best_score_as_the_game_info_ranks_scores(name: str) -> None:
    """A first user's trial: Zangle's info said a higher score is better, and its lowest total wins
    ("Score = cards left + hits taken (lower is better)"): a server ranking by it turned the standings
    upside down."""
    from fourcards.rng import Rng

    game = get_game(name).new_game()
    higher = game.info().score_higher_is_better
    decided = 0
    for seed in range(20):
        state, rng = game.new_match(seed), Rng(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            state.apply(legal[rng.below(len(legal))])
        scores = state.scores
        best = max(scores) if higher else min(scores)
        assert all(scores[w] == best for w in state.winners), (seed, scores, state.winners)
        decided += bool(state.winners) and len(set(scores)) > 1
    assert decided, f"{name}: no match of 20 told the scores apart"


def test_a_bot_taking_any_keyword_gets_its_options_and_refuses_the_library_s_own_by_name() -> None:
    """A reviewer's trial: for a bot taking ``(game, **kw)``, ``seed=5`` as an option gave Python's
    "multiple values" and an option named ``kw`` was refused."""
    from fourcards.games import _UnknownOption, _with_options

    class Open:
        def __init__(self, game: object, **kw: object) -> None:
            self.kw = kw

    made: Any = _with_options(Open, {"kw": 1, "depth": 2}, "a game", seed=0)  # type: ignore[arg-type]
    assert made.kw == {"kw": 1, "depth": 2, "seed": 0}
    for name in ("seed", "game"):
        with pytest.raises(_UnknownOption):
            _with_options(Open, {name: 5}, "a game", seed=0)  # type: ignore[arg-type]
