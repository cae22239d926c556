"""Terminal play driven line by line (no pseudo-terminal): what every game's
screen says, whole games played through the session, the Four Color false-win
question, Zangle's pass and hint, --pause."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from fourcards.cli import main
from fourcards.cli.session import Confirm, Session, Table, in_player_words, make_bots
from fourcards.duelo.terminal import DueloTable
from fourcards.fourcolor.terminal import FourColorTable
from fourcards.fourpack.terminal import FourPackTable
from fourcards.gangoffour.terminal import GangOfFourTable
from fourcards.zangle.terminal import ZangleTable
from fourcards.games import get_game

pytestmark = pytest.mark.engine


def play(argv: list[str], lines: list[str], monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code = main(["play", *argv])
    return code, capsys.readouterr().out


class AutoPlayer(io.StringIO):
    """A person who types what the greedy (or best) bot would: plays a whole game through the session."""

    def __init__(self, table: Table, kind: str) -> None:
        super().__init__()
        self.table = table
        self.bot = get_game(table.game).new_bot(kind, table.state.game, 5)
        self.lines = 0

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        state = self.table.state
        self.lines += 1
        if state.is_terminal or state.current_player != 0:
            return "\n"  # a --pause: Enter
        action = self.bot.choose(state.observation(0), state.legal_actions())
        return self.table.typed(action).split("  ")[0] + "\n"


TABLES: dict[str, tuple[type[Table], dict[str, Any], str]] = {
    "gang-of-four": (GangOfFourTable, {"players": 4, "target_score": 30}, "greedy"),
    "four-color": (FourColorTable, {"players": 3, "rounds": 2}, "greedy"),
    "zangle": (ZangleTable, {"players": 3, "rounds": 2}, "greedy"),
    "four-pack": (FourPackTable, {"players": 4}, "memory"),
    "duelo": (DueloTable, {"players": 2}, "category"),
}
WRONG_GRAMMAR = re.compile(r"\bYou (gives|passes|discards|asks|makes|takes|lays|calls|claims|turns|wins|is)\b"
                           r"|\b1 (bots|cards|moves|rounds)\b"
                           r"|\b(P\d) (give|pass|discard|ask|make|take|lay|claim|turn)\b")


@pytest.mark.parametrize("game", list(TABLES))
def test_a_whole_game_through_the_session_reads_well(game: str) -> None:
    table_type, rules, kind = TABLES[game]
    state = get_game(game).new_game(**rules).new_match(11)
    table = table_type(state)
    bots, adviser = make_bots(game, state, kind, 11)
    out = io.StringIO()
    Session(table, bots, adviser, stdin=AutoPlayer(table, kind), stdout=out).run()
    text = out.getvalue()
    assert state.is_terminal
    assert not re.search(r"\[-?\d+, -?\d+", text), "a Python list on screen"
    assert not re.search(r"\(\d+, \d+\)", text), "a Python tuple on screen"
    assert not WRONG_GRAMMAR.search(text), WRONG_GRAMMAR.search(text)
    assert "Game over" in text or "Match over" in text
    assert "== " in text  # a header for each round (or the deal)
    assert "> ! " not in text  # every line the bot typed was accepted
    if game in ("gang-of-four", "four-color", "zangle"):
        rounds = {int(n) for n in re.findall(r"== Round (\d+)", text)}
        assert rounds == set(range(1, max(rounds) + 1)) and len(rounds) >= 2
        for r in range(1, max(rounds)):  # each round's header comes after the last round's end
            assert text.index(f"== Round {r} over") < text.index(f"== Round {r + 1} ")


def test_pause_waits_for_enter_between_bots() -> None:
    state = get_game("four-pack").new_game(players=4).new_match(3)
    table = FourPackTable(state)
    bots, adviser = make_bots("four-pack", state, "memory", 3)
    person = AutoPlayer(table, "memory")
    out = io.StringIO()
    Session(table, bots, adviser, stdin=person, stdout=out, pause=True).run()
    text = out.getvalue()
    pauses = text.count("(Enter: next move; quit)")
    bot_moves = sum(1 for r in state.history if type(r).__name__ == "Asked" and r.asker != 0)
    assert pauses > 10 and pauses <= bot_moves
    unpaused = get_game("four-pack").new_game(players=4).new_match(3)
    quiet = io.StringIO()
    table2 = FourPackTable(unpaused)
    Session(table2, *make_bots("four-pack", unpaused, "memory", 3), stdin=AutoPlayer(table2, "memory"),
            stdout=quiet).run()
    assert "(Enter" not in quiet.getvalue()


def _false_hu_position(threshold: int) -> tuple[int, list[int]]:
    """A seeded 2-player round where seat 0 may call hu under ``threshold`` (found by greedy play)."""
    from fourcards.fourcolor import FourColor, GreedyBot
    from fourcards.fourcolor.game import HU

    for seed in range(50):
        state = FourColor(players=2, threshold=threshold, rounds=1).new_match(seed)
        bots = [GreedyBot(), GreedyBot()]
        while not state.is_terminal:
            player, legal = state.current_player, state.legal_actions()
            if player == 0 and HU in legal and FourColorTable(state).false_win() is not None:
                return seed, list(state.actions)
            state.apply(bots[player].choose(state.observation(player), legal), player)
    raise AssertionError("no position found")


def test_four_color_shows_points_and_asks_before_a_false_hu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from fourcards.fourcolor import FourColor

    seed, actions = _false_hu_position(threshold=30)
    saved = tmp_path / "hu.json"
    saved.write_text(FourColor(players=2, threshold=30, rounds=1).replay(seed, actions).to_json())
    code, text = play(["four-color", "--resume", str(saved)], ["hu", "n", "hu", "y", "quit"], monkeypatch, capsys)
    assert code == 0
    assert "a hu needs 30" in text and re.search(r"you wait for: .*\b\w\w \d+", text)
    question = re.search(r"your melds make (\d+) points, under the threshold of 30.*Call hu anyway\? \[y/N\]", text)
    assert question is not None
    assert "(not done)" in text
    assert re.search(rf"You call hu with {question.group(1)} points \+ \d+ lucky", text)
    # the same hand under a threshold of 0 is a true win: no question
    state = FourColor(players=2, threshold=0, rounds=1).replay(seed, actions)
    table = FourColorTable(state)
    assert table.false_win() is None
    table.act("hu")
    from fourcards.fourcolor import GreedyBot
    from fourcards.fourcolor.game import RoundEnd

    while not state.is_terminal:  # the other player answers the claim too; hu has priority
        player = state.current_player
        state.apply(GreedyBot().choose(state.observation(player), state.legal_actions()), player)
    ends = [r for r in state.history if isinstance(r, RoundEnd)]
    assert ends[-1].winner == 0 and ends[-1].payments[0] > 0
    # and the question is the table's: a Confirm whose answer applies the hu
    state = FourColor(players=2, threshold=30, rounds=1).replay(seed, actions)
    with pytest.raises(Confirm) as asked:
        FourColorTable(state).act("hu")
    asked.value.then()
    assert state.current_player != 0  # the hu is given; the other player answers next


def test_four_color_names_its_cards(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, text = play(["four-color", "--seed", "3", "--players", "2"], ["hint", "quit"], monkeypatch, capsys)
    assert "R red" in text and "N Cannon" in text  # the legend at the start
    hint = re.search(r"hint: (\w\w)", text)
    assert hint is not None
    _, text = play(["four-color", "--seed", "3", "--players", "2"], [hint.group(1), "quit"], monkeypatch, capsys)
    assert re.search(rf"You discard {hint.group(1)} \((red|green|yellow|white) \w+\)", text)


def test_zangle_offers_pass_and_hint(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, text = play(["zangle", "--seed", "3"], ["pass", "hint", "99", "quit"], monkeypatch, capsys)
    assert "! you have a Zangle, so you make one" in text
    assert re.search(r"hint: \w+\((centre|own)\) = .*  \(choice \d+\)", text)
    assert "! '99' is not a choice: type 1..5 ('list' shows them)" in text
    assert "pass" in text.split("in short:")[0] if "in short:" in text else True


def test_duelo_and_four_pack_show_families_from_the_start(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    _, duelo = play(["duelo", "--seed", "2"], ["quit"], monkeypatch, capsys)
    assert "against 1 bot." in duelo and "Families: A Alkali metals" in duelo
    assert "Your top card: " in duelo and "(" in duelo.split("Your top card: ")[1].splitlines()[0]
    _, pack = play(["four-pack", "--seed", "2"], ["P9 A1", "P1 Z9", "quit"], monkeypatch, capsys)
    assert "A Alkali metals: A1 Lithium" in pack and "H Noble gases" in pack
    assert "! 'P9' is not another player: P1..P3" in pack and "! 'Z9' is not a card: A1..H4" in pack


def test_messages_in_the_players_words() -> None:
    assert in_player_words("player 0 may not 'discard RA': they hold no RA (round 1, discard, stock 31, "
                           "player 0 to act)") == "You may not discard RA: you hold no RA"
    assert in_player_words("player 0 may not 'G1': they do not hold those cards (round 1, counter-clockwise, "
                           "empty table, hands 16/16/16/16, player 0 to act)") == \
        "You may not play G1: you do not hold those cards"
    assert in_player_words("a plain message") == "a plain message"


def test_gang_of_four_session_keeps_its_old_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    from fourcards.gangoffour.terminal import Session as GangOfFourSession
    from fourcards.gangoffour import GangOfFour

    state = GangOfFour(target_score=20).new_match(3)
    out = io.StringIO()
    GangOfFourSession(state, "greedy", io.StringIO("pass\nnonsense\nquit\n"), out, False, None).run()
    assert "! 'NONSENSE' is not a card" in out.getvalue() and "bye" in out.getvalue()


def test_save_command_reports_a_bad_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    _, text = play(["duelo", "--seed", "2"], [f"save {tmp_path}/missing/dir/x.json", "save", "quit"],
                   monkeypatch, capsys)
    assert "! could not save to" in text and "! save where?" in text


def test_play_takes_the_same_game_by_position_and_by_game(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """``demo zangle --game zangle`` was taken and ``play zangle --game zangle`` refused."""
    code, text = play(["duelo", "--game", "duelo", "--seed", "1"], ["quit"], monkeypatch, capsys)
    assert code == 0 and "bye" in text


def test_zangle_takes_one_player_with_solitaire_as_its_help_says(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The help says "2 to 8, or 1 with --mode solitaire"; a first user's ``--players 1 --mode
    solitaire`` was refused."""
    code, text = play(["zangle", "--players", "1", "--mode", "solitaire", "--seed", "1"], ["quit"], monkeypatch,
                      capsys)
    assert code == 0 and "solitaire" in text.splitlines()[0]


def test_save_names_its_file_as_a_shell_would_and_a_failed_save_on_the_way_out_is_exit_code_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A first user's trial: ``save ''`` wrote a file named ``''``, and ``--save`` into a directory
    that went away lost the match with exit code 0."""
    monkeypatch.chdir(tmp_path)
    _, text = play(["duelo", "--seed", "2"], ["save ''", "save 'my match.json'", "save back\\slash.json", "quit"],
                   monkeypatch, capsys)
    assert "! save where?" in text and (tmp_path / "my match.json").is_file()
    assert (tmp_path / "back\\slash.json").is_file()  # kept as typed (a Windows path's backslashes)
    assert "--resume 'my match.json'" in text and not (tmp_path / "''").exists()
    folder = tmp_path / "gone"
    folder.mkdir()

    class Vanishing(io.StringIO):  # the directory goes away while the person plays
        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            if folder.exists():
                folder.rmdir()
            return "quit\n"

    monkeypatch.setattr(sys, "stdin", Vanishing())
    code = main(["play", "duelo", "--seed", "2", "--save", str(folder / "x.json")])
    assert code == 1 and "! could not save to" in capsys.readouterr().out


@pytest.mark.parametrize("game", list(TABLES))
def test_every_game_takes_the_choice_number_its_hint_and_list_give(
        game: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.md: "any game: a number from the list of your choices (3)". The hint's
    "(choice N)" and the numbers 'list' prints are taken as typed, in every game."""
    _, text = play([game, "--seed", "4"], ["hint", "list", "quit"], monkeypatch, capsys)
    hint = re.search(r"hint: (.*)  \(choice (\d+)\)", text)
    assert hint is not None, text[-2000:]
    listed = re.search(rf"^  {hint.group(2)}\. (.*)$", text.split("hint: ")[1], re.M)
    assert listed is not None, "the hint's number is not in the list"
    _, text = play([game, "--seed", "4"], [hint.group(2), "quit"], monkeypatch, capsys)
    assert "> !" not in text, text[text.index("> !") - 200:text.index("> !") + 200]
    _, by_text = play([game, "--seed", "4"], [hint.group(1), "quit"], monkeypatch, capsys)
    assert "> !" not in by_text
    assert text.split("\n> ")[1] == by_text.split("\n> ")[1]  # the same move, by number or by text


def test_every_command_takes_its_game_by_position_or_by_game(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """``fourcards play --game zangle`` and ``fourcards demo zangle`` are what a new user types."""
    _, by_position = play(["zangle", "--seed", "3"], ["quit"], monkeypatch, capsys)
    _, by_flag = play(["--game", "zangle", "--seed", "3"], ["quit"], monkeypatch, capsys)
    _, by_equals = play(["--seed", "3", "--game=zangle"], ["quit"], monkeypatch, capsys)
    assert by_position == by_flag == by_equals and "Zangle, seed 3" in by_flag
    assert main(["demo", "zangle", "--seed", "2", "--colour", "never"]) == 0
    positional = capsys.readouterr().out
    assert main(["demo", "--game", "zangle", "--seed", "2", "--colour", "never"]) == 0
    assert capsys.readouterr().out == positional and "Zangle" in positional
    assert main(["tournament", "four-pack", "--bots", "memory,random,random", "--deals", "1", "--workers", "1",
                 "--no-progress"]) == 0
    assert "families" in capsys.readouterr().out


def test_zangle_shows_everyones_face_up_cards_and_piles_and_only_the_bonus_rounds_players() -> None:
    """Seed 002: the players turn up their cards "boca arriba frente a ti": everyone sees
    them and how many cards each pile holds. A bonus round is played by "todos los jugadores
    con la misma puntuación más baja": its end names only them."""
    from fourcards.zangle import ZangleGame

    state = ZangleGame(players=3).new_match(4)
    table = ZangleTable(state)
    status = "\n".join(table.status())
    for seat in (1, 2):
        cards = " ".join(state.face_up[seat])
        assert f"P{seat}: {cards} | pile {len(state._piles[seat])}" in status
    state = ZangleGame(players=3, rounds=1).from_position(centre="2", cards=["", "", "1 1"], current=2, seed=5,
                                                          totals=[5, 0, 0])
    state.apply("2(centre) = 1(own) + 1(own)")
    assert state._bonus and state._seats == [1, 2]
    bots = [get_game("zangle").new_bot("greedy", state.game, p) for p in range(3)]
    while not state.is_terminal:
        p = state.current_player
        state.apply(bots[p].choose(state.observation(p), state.legal_actions()), p)
    table = ZangleTable(state)
    lines = [line for record in state.history for line in table.show(record)]
    bonus = next(line for line in lines if "Bonus round over" in line)
    assert "You" not in bonus and "P1 " in bonus and "P2 " in bonus, bonus
