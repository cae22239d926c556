"""The generic terminal table, ``fourcards demo --game`` and ``fourcards tournament --game``
for every game, and a game that only implements the engine contract and is
registered: it plays in ``fourcards play``, ``demo`` and ``tournament`` with no
edit to fourcards."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fourcards.cli import main
from fourcards.cli.demo import demo_lines, next_steps
from fourcards.cli.session import Session, Table, draw_view, make_bots, table_class
from fourcards.errors import FourCardsError
from fourcards.games import ALIASES, GAMES, GameEntry, get_game, register
from fourcards.tournament import score_name

from .plugin_game import ENTRY

pytestmark = pytest.mark.engine

BUILTIN = ("gang-of-four", "four-color", "zangle", "four-pack", "duelo")
SMALL_RULES: dict[str, dict[str, Any]] = {
    "gang-of-four": {"target_score": 30}, "four-color": {"players": 3, "rounds": 2},
    "zangle": {"players": 3, "rounds": 2}, "four-pack": {}, "duelo": {},
}


@pytest.fixture
def plugin() -> Iterator[GameEntry]:
    """Ends Pick, registered for one test."""
    register(ENTRY)
    try:
        yield ENTRY
    finally:
        GAMES.pop(ENTRY.name, None)
        for alias in ENTRY.aliases:
            ALIASES.pop(alias, None)


class Typist(io.StringIO):
    """A person who types what a bot would, by turns the choice's number and the action's text
    (in capitals, to show that the case does not matter); Enter when a bot is to move."""

    def __init__(self, table: Table, kind: str) -> None:
        super().__init__()
        self.table = table
        self.bot = get_game(table.game).new_bot(kind, table.state.game, 5)
        self.typed: list[str] = []

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        state = self.table.state
        if state.is_terminal or state.current_player != 0:
            return "\n"
        action = self.bot.choose(state.observation(0), state.legal_actions())
        numbers = [code for code, _ in self.table.legal_texts()]
        line = str(numbers.index(action) + 1) if len(self.typed) % 2 == 0 else \
            str(state.action_to_string(action)).upper()
        self.typed.append(line)
        return line + "\n"


def _quick_bot(name: str) -> str:
    entry = get_game(name)
    return table_class(name).default_bot or entry.hint_bot


@pytest.mark.parametrize("game", BUILTIN)
def test_the_generic_table_plays_a_whole_match_of_every_game(game: str) -> None:
    entry = get_game(game)
    state = entry.new_game(**SMALL_RULES[game]).new_match(11)
    table = Table(state)
    assert type(table) is Table and table.game == state.game.name and table.title == entry.title
    kind = _quick_bot(game)
    bots, adviser = make_bots(game, state, kind, 11)
    person = Typist(table, kind)
    out = io.StringIO()
    assert Session(table, bots, adviser, stdin=person, stdout=out).run() == 0
    text = out.getvalue()
    assert state.is_terminal
    assert "> !" not in text, text[text.index("> !") - 300:text.index("> !") + 300]  # every line was accepted
    assert any(line.isdecimal() for line in person.typed) and any(not line.isdecimal() for line in person.typed)
    assert "Your choices (" in text and re.search(r"^  1\. ", text, re.M)
    assert f"{entry.title}, seed 11: you are P0" in text
    for record in state.history[:5]:
        assert f"   {state.game.record_text(record)}" in text
    assert text.rstrip().splitlines()[-1].startswith("Game over: ")
    assert not re.search(r"'[a-z_]+': ", text), "a Python dict on screen"


def test_the_generic_table_answers_bad_input_and_the_shared_commands(tmp_path: Path) -> None:
    state = get_game("duelo").new_game().new_match(3)
    table = Table(state)
    bots, adviser = make_bots("duelo", state, "category", 3)
    saved = tmp_path / "m.json"
    lines = ["help", "hint", "rules", "hand", "0", "6", "call nothing", "dance", "x" * 300, f"save {saved}", "quit"]
    out = io.StringIO()
    Session(table, bots, adviser, stdin=io.StringIO("\n".join(lines) + "\n"), stdout=out,
            adviser_name="category").run()
    text = out.getvalue()
    assert "take choice 3 of the list" in text and "what the category bot would do" in text
    assert re.search(r"hint: call \w+  \(choice \d\)", text)
    assert "! '0' is not a choice: type 1..5 ('list' shows them), or an action's text" in text
    assert "! '6' is not a choice: type 1..5" in text
    assert "! 'call nothing' is not an action of Duelo ('nothing' is not a category of" in text  # the engine's reason
    assert "! 'dance' is not an action of Duelo (" in text and "type a choice's number (1..5)" in text
    assert "is too long" in text
    assert f"saved to {saved}" in text and text.rstrip().endswith("bye")
    assert get_game("duelo").new_game().from_json(saved.read_text()).actions == state.actions
    with pytest.raises(FourCardsError, match="not a choice"):
        table.act("9")


def test_draw_view_lays_out_seats_cards_and_logs() -> None:
    view = {"seat": 1, "current_player": 1, "hand": ["G3", "Y3"], "hand_sizes": [2, 5], "discards": ["R1", "R2"],
            "passed": [True, False], "melds": [[["A", "B"]], []], "offer": {"card": "RA", "player": 0},
            "log": [{"text": f"move {k}"} for k in range(5)], "table": None}
    assert draw_view(view, 2) == [
        "Hand: G3 Y3", "Hand sizes:  P0 2   P1 5", "Discards: R1 R2", "Passed:  P0 yes   P1 no",
        "Melds:  P0 A B   P1 -", "Offer: card RA, player 0", "Log: 5, the last 3: move 2; move 3; move 4",
        "Table: -"]


@pytest.mark.parametrize("game", BUILTIN)
def test_demo_for_every_game(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", game, "--seed", "1", "--colour", "never"]) == 0
    printed = capsys.readouterr().out.splitlines()
    lines = demo_lines(1, game=game)
    assert printed == lines + next_steps(game)  # the match, then what to try next
    assert f"fourcards play {game}" in "\n".join(printed[len(lines):])
    entry = get_game(game)
    assert lines[0].startswith("fourcards ") and f"{entry.title}, " in lines[0] and "seed 1 (" in lines[0]
    assert lines[-1].startswith(("Game over: ", "Match over: "))
    assert sum(1 for line in lines if line.startswith("   ")) > 10  # the match's events
    assert "You " not in "\n".join(lines)  # nobody sits at a demo's table
    assert demo_lines(1, game=game) != demo_lines(2, game=game)


def test_demo_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", "duelo", "--players", "33"]) == 2
    assert "Duelo is for 2 to 32 players" in capsys.readouterr().err
    assert main(["demo", "--game", "duelo", "--bots", "greedy"]) == 2
    assert "choose from random, category" in capsys.readouterr().err
    assert main(["demo", "--game", "four-pack", "--bots", "random", "--seed", "2", "--players", "3"]) == 0
    assert "Four Pack, 3 random bots, seed 2" in capsys.readouterr().out
    assert main(["demo", "--game", "fourcolor", "--seed", "2", "--colour", "never"]) == 0  # an alias
    assert "Four Color Cards" in capsys.readouterr().out


@pytest.mark.parametrize("game", BUILTIN)
def test_tournament_scores_are_named_by_the_engine(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    entry = get_game(game)
    kind = _quick_bot(game)
    players = entry.new_game().num_players if game != "gang-of-four" else 2
    bots = ",".join([kind] + ["random"] * (players - 1))
    args = ["tournament", "--game", game, "--bots", bots, "--deals", "1", "--workers", "1", "--no-progress"]
    assert main(args + (["--target-score", "20"] if game == "gang-of-four" else [])) == 0
    out = capsys.readouterr().out
    cls = entry.game_class
    assert f"| {cls.score_label} per {cls.score_unit} [95% CI] |" in out and score_name(game) in out
    assert out.startswith(f"{entry.title}: {players} matches")


def test_the_score_names() -> None:
    assert score_name("gang-of-four") == "penalty points per round"
    assert score_name("four-pack") == "families per game"
    assert score_name("duelo") == "cards held per game"


def test_a_registered_game_plays_everywhere_with_no_edit(plugin: GameEntry, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert table_class(plugin.name) is Table
    # demo
    assert main(["demo", "--game", "ends-pick", "--seed", "4"]) == 0
    demo = capsys.readouterr().out.splitlines()
    assert demo[0].endswith(")") and "Ends Pick, 2 greedy bots, seed 4" in demo[0]
    assert sum(1 for line in demo if line.startswith("   P")) == 18
    assert demo[-len(next_steps("ends-pick")) - 1].startswith("Game over: ") and demo[-1].endswith("fourcards --help")
    # play: the rules' options, a variant, numbers and texts, save and resume
    with pytest.raises(SystemExit):
        main(["play", "ends-pick", "--help"])
    help_text = capsys.readouterr().out
    for flag in ("--players", "--bonus-for-last", "--ends {both,left}", "--left-only", "--opponents"):
        assert flag in help_text
    saved = tmp_path / "pick.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\ntake right\nTAKE LEFT\n3\nhint\nquit\n"))
    assert main(["play", "ends-pick", "--seed", "5", "--players", "3", "--bonus-for-last", "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "Ends Pick, seed 5: you are P0 against 2 bots" in out
    assert "Your choices (2):\n  1. take left\n  2. take right" in out
    assert "! '3' is not a choice: type 1..2" in out and "hint: take " in out
    assert len(re.findall(r"^(?:> )?   P0 took: side", out, re.M)) == 3
    data = json.loads(saved.read_text())
    assert data["game"] == "ends-pick" and data["rules"] == {"players": 3, "bonus_for_last": True, "ends": "both"}
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 20))
    assert main(["play", "ends-pick", "--resume", str(saved)]) == 0
    resumed = capsys.readouterr().out
    assert f"Resumed {saved}: Ends Pick, seed 5, 9 moves so far." in resumed and "Game over: " in resumed
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "ends-pick", "--left-only", "--seed", "1"]) == 0
    assert "Your choices (1)" not in capsys.readouterr().out  # one choice: taken for the person
    assert main(["play", "ends-pick", "--left-only", "--ends", "both"]) == 2
    assert "--left-only sets --ends" in capsys.readouterr().err
    # tournament
    assert main(["tournament", "--game", "ends-pick", "--bots", "greedy,random", "--deals", "3", "--workers", "1",
                 "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert table.startswith("Ends Pick: 6 matches") and "| greedy | 6 |" in table and "score per game" in table
    assert main(["tournament", "--game", "ends-pick", "--bots", "greedy,random", "--target-score", "5"]) == 2
    assert "--target-score is no rule of Ends Pick" in capsys.readouterr().err
