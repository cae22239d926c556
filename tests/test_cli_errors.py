"""Every value a person can type on the command line: a one-line error and exit code 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import fourcards

from fourcards.cli import main
from fourcards.fourcolor import FourColor
from fourcards.games import GAMES
from fourcards.gangoffour import GangOfFour


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command; it must exit with code 2 and one line on stderr, which is returned."""
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code  # type: ignore[assignment]
    captured = capsys.readouterr()
    assert code == 2, (argv, captured)
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, (argv, captured.err)
    assert "error:" in lines[0] and "Traceback" not in captured.err
    return lines[0]


BAD_FLAGS = [
    # (argv, a word the message must hold)
    (["play", "gang-of-four", "--players", "5"], "--players"),
    (["play", "gang-of-four", "--players", "two"], "not a whole number"),
    (["play", "gang-of-four", "--target-score", "-3"], "--target-score"),
    (["play", "gang-of-four", "--target-score", "0"], "--target-score"),
    (["play", "gang-of-four", "--seed", "-1"], "--seed"),
    (["play", "gang-of-four", "--seed", "x"], "--seed"),
    (["play", "gang-of-four", "--opponents", "clever"], "--opponents"),
    (["play", "gang-of-four", "--colour", "pink"], "--colour"),
    (["play", "four-color", "--players", "1"], "--players"),
    (["play", "four-color", "--rounds", "0"], "--rounds"),
    (["play", "four-color", "--threshold", "-1"], "--threshold"),
    (["play", "four-color", "--opponents", "memory"], "--opponents"),
    (["play", "zangle", "--players", "0"], "--players"),
    (["play", "zangle", "--players", "9"], "--players"),
    (["play", "zangle", "--rounds", "-2"], "--rounds"),
    (["play", "zangle", "--solitaire", "--players", "3"], "--solitaire"),
    (["play", "four-pack", "--players", "2"], "--players"),
    (["play", "duelo", "--players", "1"], "--players"),
    (["play", "duelo", "--opponents", "greedy"], "--opponents"),
    (["play", "chess"], "chess"),
    (["demo", "--players", "9"], "--players"),
    (["demo", "--delay", "-1"], "--delay"),
    (["demo", "--delay", "soon"], "--delay"),
    (["serve", "--port", "-1"], "--port"),
    (["serve", "--port", "70000"], "--port"),
    (["serve", "--port", "http"], "--port"),
    (["serve", "--bot-delay", "nan"], "--bot-delay"),
    (["serve", "--bot-delay", "-1"], "--bot-delay"),
    (["serve", "--max-tables", "0"], "--max-tables"),
    (["serve", "--claim-rate", "0"], "--claim-rate"),
    (["serve", "--claim-rate", "nan"], "--claim-rate"),
    (["serve", "--log-level", "loud"], "--log-level"),
    (["hand", "--seat", "4"], "--seat"),
    (["hand", "--seat", "-1"], "--seat"),
    (["simulate", "--matches", "-1"], "--matches"),
    (["simulate", "--workers", "0"], "--workers"),
    (["simulate", "--batch-size", "0"], "--batch-size"),
    (["simulate", "--target-score", "-3"], "--target-score"),
    (["simulate", "--bots", "greedy,clever"], "clever"),
    (["simulate", "--bots", "greedy"], "argument --bots: 1 seat named"),
    (["simulate", "--bots", ",".join(["random"] * 27)], "seats"),
    (["simulate", "--backend", "dask", "--matches", "1"], "--scheduler"),
    (["simulate", "--scheduler", "tcp://127.0.0.1:1", "--matches", "1"], "--backend dask"),
    (["tournament", "--bots", "greedy,greedy", "--deals", "0"], "--deals"),
    (["tournament", "--bots", "greedy,greedy", "--deals", "-5"], "--deals"),
    # a helper's first use: 10**30 deals hung and took gigabytes before the bound
    (["tournament", "--bots", "greedy,greedy", "--deals", str(10**30)], "--deals"),
    (["tournament", "--bots", "greedy,greedy", "--deals", "1000001"], "--deals"),
    # an empty entry was dropped, and the match silently had a seat fewer
    (["tournament", "--bots", ",greedy,greedy,greedy"], "empty bot"),
    (["tournament", "--bots", "greedy,,greedy"], "empty bot"),
    (["tournament", "--bots", "greedy,greedy", "--workers", "0"], "--workers"),
    (["tournament", "--bots", "greedy,clever"], "clever"),
    (["tournament", "--bots", "search:time_per_move=abc,greedy"], "abc" if fourcards.COMPILED else "compiled kernels"),
    (["tournament", "--bots", "search:time_per_move=-1,greedy"],
     "time_per_move" if fourcards.COMPILED else "compiled kernels"),
    (["tournament", "--bots", "search:depth=3,greedy"], "depth" if fourcards.COMPILED else "compiled kernels"),
    (["tournament", "--bots", "search:time_per_move,greedy"], "name=value"),
    (["tournament", "--bots", "greedy:x=1,greedy"], "greedy"),
    # a helper's first use: a repeated option took the last value; seed= gave Python's own message
    (["tournament", "--bots", "search:iterations=10;iterations=20,greedy"], "iterations is given twice"),
    (["demo", "duelo", "zangle"], "the game is given twice (duelo and zangle)"),  # there was no --game
    (["play", "--opponents", "zzz"], "a game's options come after its name"),  # "argument GAME: invalid choice"
    (["demo", "--bots", ""], "argument --bots: needs a bot kind"),  # ran the default bots
    (["--bots", ""], "argument --bots: needs a bot kind"),
    (["demo", "--seed", "\x01\x1b[31mX"], "'\\x01\\x1b[31mX' is not a whole number"),  # an escape reached the terminal
    (["serve", "--host", ""], "argument --host: needs an address"),  # listened on every interface
    # argparse's own line echoed what was typed raw: a bell (or an escape sequence) reached the terminal
    (["play", "gang-of-four", "--deck", "no\x07such"], "unrecognized arguments: --deck no\\x07such"),
    (["tournament", "--bots", "greedy:seed=abc,greedy"], "--seed"),
    (["tournament", "--bots", "greedy:seed=3,greedy"], "--seed"),
    (["tournament", "--bots", "greedy,greedy", "--target-score", "-3"], "--target-score"),
    (["tournament", "--bots", "greedy,greedy", "--game", "four-pack"], "greedy"),
    (["tournament", "--bots", "greedy", "--game", "zangle"], "zangle"),
    (["tournament", "--bots", "greedy,greedy", "--game", "zangle", "--target-score", "50"], "--target-score"),
    (["tournament", "--bots", "greedy,greedy", "--game", "chess"], "chess"),
    # a helper's first use: the game by position, unknown, was "unrecognized arguments"
    (["tournament", "chess", "--bots", "greedy,greedy"], "unknown game 'chess'; choose from gang-of-four"),
    (["demo", "chess"], "unknown game 'chess'; choose from gang-of-four"),
    (["bench", "--only", "everything"], "--only"),
    # a first user's trial: the game by position and another by --game played the second
    (["demo", "zangle", "--game", "duelo"], "the game is given twice (zangle, and --game duelo)"),
    (["tournament", "zangle", "--game=duelo", "--bots", "greedy,greedy"], "the game is given twice"),
    (["play", "zangle", "--game", "duelo"], "the game is given twice (zangle, and --game duelo)"),
    (["demo", "zangle", "--bots", "search:iterations=5"], "fourcards tournament takes a bot a seat"),
    # a first user's trial: a top-level option before a command was overwritten by the command's default
    (["--seed", "5", "demo"], "--seed is given before the command 'demo'"),
    (["--game", "zangle", "tournament", "--bots", "greedy,random,random", "--deals", "1"],
     "--game is given before the command 'tournament'"),
    (["--players", "3", "play", "gang-of-four"], "--players is given before the command 'play'"),
    # a first user's trial: this said "put it after", and the tournament then refused --players
    (["--players", "16", "tournament", "four-pack", "--bots", "memory,memory,memory", "--deals", "1"],
     "which has no such option (its players are the bots of --bots; a rule is --rule NAME=VALUE)"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "colour=red"],
     "Four Pack has no rule 'colour'; its rules: must_hold_family, max_asks"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "must_hold_family=maybe"],
     "must_hold_family is on or off, not 'maybe'"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "max_asks"], "give NAME=VALUE"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "max_asks=lots"], "is a whole number"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "max_asks=0"], "max_asks"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "players=5"], "one player a bot"),
    (["tournament", "--bots", "greedy,greedy", "--rule", "target_score=5", "--rule", "target-score=6"],
     "--rule target_score is given twice"),
    (["tournament", "--bots", "greedy,greedy", "--target-score", "7", "--rule", "target_score=5"],
     "the target score is given twice"),
    # a second user's trial: these named a rule never given, or took what is not a whole number
    (["tournament", "four-pack", "--bots", "memory"], "--bots names 1 bot, one a seat: Four Pack is for 3 to 32"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "max_asks=1.5"],
     "max_asks is a whole number, not '1.5'"),
    (["tournament", "four-pack", "--bots", "memory,memory,memory", "--rule", "max_asks=\u0663"],
     "max_asks is a whole number"),
    (["tournament", "zangle", "--bots", "greedy,greedy", "--rule", "deck=x"], "--rule deck: --rule sets a yes/no"),
    (["tournament", "zangle", "--bots", "greedy,greedy", "--rule", "dealer=3"], "dealer=3 is not a seat of 2 players"),
]


@pytest.mark.parametrize("argv,word", BAD_FLAGS, ids=[" ".join(a) for a, _ in BAD_FLAGS])
def test_every_bad_flag_value_is_one_line_and_exit_code_2(argv: list[str], word: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert word in refused(argv, capsys)


def test_resume_refuses_flags_it_would_ignore(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "match.json"
    saved.write_text(GangOfFour().new_match(3).to_json())
    for flag in (["--players", "3"], ["--seed", "4"], ["--target-score", "50"], ["--manual-last-card"]):
        line = refused(["play", "gang-of-four", "--resume", str(saved), *flag], capsys)
        assert flag[0] in line and "--resume" in line
    # a first user's trial: a --no-FLAG was dropped without a word
    saved.write_text(FourColor(players=3).new_match(2).to_json())
    for no_flag in ("--no-lucky-rank-only", "--no-same-colour-soldiers"):
        line = refused(["play", "four-color", "--resume", str(saved), no_flag], capsys)
        assert f"drop {no_flag}" in line


def test_resume_and_save_name_a_file_that_can_be_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A first user's trial: ``--resume ''`` started a new game, and a ``--save`` that could not
    be written said so only when the person quit, with exit code 0 and the match lost."""
    assert "argument --resume: needs a file name" in refused(["play", "duelo", "--resume", ""], capsys)
    assert "argument --save: needs a file name" in refused(["play", "duelo", "--save", " "], capsys)
    assert "does not exist" in refused(["play", "duelo", "--save", str(tmp_path / "missing" / "x.json")], capsys)
    assert "is a directory" in refused(["play", "duelo", "--save", str(tmp_path)], capsys)
    # a CLI review: a file that is not a save was overwritten by one (--save, and save at the prompt)
    kept = tmp_path / "notes.txt"
    kept.write_text("precious")
    assert "not a saved match is there" in refused(["play", "duelo", "--save", str(kept)], capsys)
    assert kept.read_text() == "precious"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
@pytest.mark.parametrize("argv, word", [(["play", "duelo", "--resume", "/dev/zero"], "holds more than"),
                                        (["play", "four-pack", "--deck", "/dev/zero"], "holds more than")])
def test_a_file_that_never_ends_is_refused_not_read(argv: list[str], word: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # a CLI review: both read /dev/zero until memory ran out (a MemoryError traceback)
    assert word in refused(argv, capsys)


def test_a_save_at_the_prompt_never_replaces_a_file_that_is_not_a_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    kept, saved = tmp_path / "notes.txt", tmp_path / "match.json"
    kept.write_text("precious")
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"save {kept}\nsave {saved}\nsave {saved}\nquit\n"))
    code = main(["play", "duelo", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and kept.read_text() == "precious" and "will not save to" in out
    assert out.count("saved to") == 2 and saved.read_text().startswith('{"format":"fourcards-match"')


@pytest.mark.parametrize("argv, word", [
    (["serve", "--idle-minutes", "1", "--idle-seconds", "5"], "give one of them"),
    (["serve", "--advertise", "zzz"], "--advertise is for several processes"),
    (["serve", "--db", "/proc/x\x1b[31my"], "--db /proc/x\\x1b[31my:"),  # the path is shown escaped
    (["serve", "--list-page", "500", "--list-page-max", "200"], "--list-page=500 is above --list-page-max=200"),
    *([(["serve", "--key-file", "/dev/zero"], "holds more than")] if Path("/dev/zero").exists() else []),
])
def test_serve_refusals_after_the_arguments_are_read_have_the_same_form(argv: list[str], word: str,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("starlette", reason="the server extra is not installed: serve refuses before these checks")
    line = refused(argv, capsys)
    assert word in line and line.startswith("fourcards serve: error:") and line.endswith("(see fourcards serve --help)")


@pytest.mark.parametrize("content,word", [
    ("", "not JSON"),
    ("{broken", "not JSON"),
    ("[1, 2]", "not a saved fourcards match"),
    ('{"format": "fourcards-match", "game": "chess", "rules": {}}', "unknown game"),
    ('{"format": "something-else"}', "not a saved fourcards match"),
    # a first user's trial: a RecursionError's traceback
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"format": "fourcards-match", "game": "zangle", "rules": {}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "nested too deeply"),
])
def test_broken_save_files_are_refused(tmp_path: Path, content: str, word: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "match.json"
    saved.write_text(content)
    assert word in refused(["play", "zangle", "--resume", str(saved)], capsys)


def test_a_foreign_or_tampered_save_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    four_color = tmp_path / "four-color.json"
    four_color.write_text(FourColor(players=3).new_match(2).to_json())
    line = refused(["play", "gang-of-four", "--resume", str(four_color)], capsys)
    assert "Four Color Cards match" in line and "fourcards play four-color" in line
    data = json.loads(GangOfFour().new_match(3).to_json())
    data["actions"] = [12000]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    assert "does not load" in refused(["play", "gang-of-four", "--resume", str(tampered)], capsys)
    assert "cannot read" in refused(["play", "duelo", "--resume", str(tmp_path / "missing.json")], capsys)
    assert "cannot read" in refused(["play", "duelo", "--resume", str(tmp_path)], capsys)


def test_a_bad_deck_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "deck.json"
    bad.write_text('{"format": "fourcards-deck"}')
    assert "problem" in refused(["play", "duelo", "--deck", str(bad)], capsys)
    assert "problem" in refused(["play", "four-pack", "--deck", str(bad)], capsys)
    assert "argument --deck: needs a file name" in refused(["play", "duelo", "--deck", ""], capsys)


def test_no_traceback_through_the_console_script() -> None:
    done = subprocess.run([sys.executable, "-m", "fourcards", "tournament", "--bots", "search:time_per_move=abc"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_help_has_every_default_and_no_doc_markup(capsys: pytest.CaptureFixture[str]) -> None:
    commands = [[], ["demo"], ["hand"], ["simulate"], ["tournament"], ["bench"], ["play"],
                *[["play", game] for game in ("gang-of-four", "four-color", "zangle", "four-pack", "duelo")]]
    for command in commands:
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = capsys.readouterr().out
        assert "``" not in text and ":data:" not in text and ">>>" not in text, command
        options = text.split("options:")[1]
        for entry in options.split("\n  -")[1:]:
            if entry.startswith(("h, --help", "-help", "-version")):
                continue
            assert "default" in entry or "(required)" in entry, (command, entry)


def test_a_dask_scheduler_that_is_not_there_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A first user's trial: a bad address gave Dask's traceback (after 30 s for a closed port)."""
    pytest.importorskip("distributed", reason="the dask backend needs the distributed extra")
    line = refused(["simulate", "--backend", "dask", "--scheduler", "garbage", "--matches", "1"], capsys)
    assert "--scheduler 'garbage': no Dask scheduler there" in line


def test_a_game_where_the_command_goes_names_the_commands_that_take_it(capsys: pytest.CaptureFixture[str]) -> None:
    """A first user's trial: ``fourcards --seed 3 four-pack`` was argparse's "invalid choice",
    which lists the commands but not how to give the game."""
    for name in GAMES:
        line = refused(["--seed", "3", name], capsys)
        assert f"'{name}' is a game, not a command" in line
        assert f"fourcards demo {name}" in line and f"fourcards play {name}" in line
    assert "invalid choice: 'nonsense'" in refused(["nonsense"], capsys)  # any other word: argparse's message


@pytest.mark.parametrize(("argv", "start"), [
    (["hand", "--players", "3"], "fourcards hand: error: unrecognized arguments: --players 3"),
    (["play", "zangle", "--bogus", "1"], "fourcards play zangle: error: unrecognized arguments: --bogus 1"),
    (["tournament", "--bots", "random,random", "--deals", "1", "--bogus"],
     "fourcards tournament: error: unrecognized arguments: --bogus"),
    (["--bogus"], "fourcards: error: unrecognized arguments: --bogus"),
    (["play", "--game"], "fourcards: error: play --game needs a game's name: gang-of-four, four-color"),
])
def test_an_unknown_option_is_named_by_its_command(argv: list[str], start: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A first user's trial (2026-12-05): ``fourcards hand --players 3`` said "fourcards: error:
    unrecognized arguments" (argparse names the top command for every one), and ``play --game``
    without a name said "the following arguments are required: GAME"."""
    assert refused(argv, capsys).startswith(start)


def test_the_database_serve_prints_hides_the_password_and_escapes_the_rest() -> None:
    """The listening line and the late ``--db`` refusal printed the path as typed: an escape sequence in it
    reached the terminal raw."""
    from fourcards.cli.serve import where_shown
    assert where_shown("postgresql://user:secret@db.example/tables") == "postgresql://db.example/tables"
    assert where_shown("tables\x1b[2J.db") == "tables\\x1b[2J.db"
    assert where_shown("postgresql://u:p@host\x07/t") == "postgresql://host\\x07/t"
