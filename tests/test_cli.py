"""The command line: simulate, tournament, bench, demo, and the library's API shape
(terminal play: test_play_terminal.py and test_play_sessions.py; bad values: test_cli_errors.py)."""

from __future__ import annotations

import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fourcards
from fourcards.cli import main
from fourcards.gangoffour.match import Rules
from fourcards.gangoffour.simulate import simulate_many
from fourcards.games import get_game
from fourcards.errors import InvalidTypeError

pytestmark = pytest.mark.engine


def test_simulate_command_matches_the_library_whatever_the_workers(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--bots", "greedy,random,random,random", "--matches", "60", "--seed", "3",
            "--json", "--batch-size", "16"]
    assert main(args + ["--workers", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main(args + ["--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert one == two and one["matches"] == 60
    direct = simulate_many(60, 3, ("greedy", "random", "random", "random"), Rules())
    assert one["steps"] == int(direct.steps.sum())
    greedy = one["seats"][0]["win_rate"]
    assert greedy["low"] <= greedy["mean"] <= greedy["high"] and greedy["mean"] > 0.8


def test_simulate_table_and_progress(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--bots", "greedy,random", "--matches", "10", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    assert "| 0 | greedy |" in captured.out and "10/10 matches" in captured.err
    assert main(["simulate", "--bots", "greedy,clever", "--matches", "1"]) == 2
    assert "unknown bot 'clever'" in capsys.readouterr().err


def _no_nan(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


def test_simulate_json_has_no_nan_for_zero_or_one_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--matches", "0", "--json", "--workers", "1"]) == 0
    empty = _no_nan(capsys.readouterr().out)
    assert isinstance(empty, dict) and empty["matches"] == 0
    assert empty["seats"][0]["win_rate"] == {"mean": None, "low": None, "high": None}
    assert main(["simulate", "--matches", "0", "--workers", "1"]) == 0
    assert "| 0 | greedy | - | - |" in capsys.readouterr().out
    assert main(["simulate", "--matches", "1", "--json", "--workers", "1"]) == 0
    one = _no_nan(capsys.readouterr().out)
    assert isinstance(one, dict)
    win = one["seats"][0]["win_rate"]
    assert 0 <= win["low"] <= win["mean"] <= win["high"] <= 1  # Wilson: a real interval from one match
    assert one["seats"][0]["penalty_per_round"]["low"] is None  # no spread from one match


def test_intervals_stay_in_bounds_and_widen_for_small_samples() -> None:
    from fourcards.tournament import t_interval, wilson_interval

    for mean, count in ((0.0, 1), (1.0, 1), (0.0, 5), (1.0, 40), (0.5, 2), (0.97, 30)):
        interval = wilson_interval(mean, count)
        assert 0.0 <= interval.low <= mean <= interval.high <= 1.0
        assert interval.high - interval.low > 0
    assert wilson_interval(1.0, 3).low < wilson_interval(1.0, 300).low
    small, large = t_interval([1.0, 3.0]), t_interval([1.0, 3.0] * 50)
    assert small.high - small.low > 10 * (large.high - large.low)  # Student's t for 2 values is wide
    assert math.isinf(t_interval([2.0]).high) and str(t_interval([2.0])) == "2.000 [n/a]"


@pytest.mark.parametrize("game,bots", [("gang-of-four", "greedy,random"), ("four-color", "greedy,random"),
                                       ("zangle", "greedy,random"), ("four-pack", "memory,random,random"),
                                       ("duelo", "category,random")])
def test_tournament_for_every_game_with_a_progress_bar(game: str, bots: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", "--game", game, "--bots", bots, "--deals", "2", "--workers", "1"]
    if game == "gang-of-four":
        args += ["--target-score", "20"]
    assert main(args) == 0
    captured = capsys.readouterr()
    first = bots.split(",")[0]
    seats = len(bots.split(","))
    assert f"| {first} | {2 * seats} |" in captured.out  # 2 deals, every rotation
    assert f"(2 deals x {seats} rotations), seed " in captured.out and ", 1 worker, " in captured.out
    assert f"{2 * len(bots.split(','))}/{2 * len(bots.split(','))} matches" in captured.err
    table_rows = [line for line in captured.out.splitlines() if line.startswith(f"| {first} |")]
    low, high = (float(x) for x in table_rows[0].split("[")[1].split("]")[0].split(","))
    assert 0 <= low <= high <= 1


def test_bench_shows_its_progress(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--quick", "--only", "zangle"]) == 0
    captured = capsys.readouterr()
    assert "[1/1] zangle (.)" in captured.err and "[1/1] done (#)" in captured.err
    assert "find_zangles" in captured.out


def test_the_alias_names_one_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--game", "four-color-cards", "--bots", "greedy,greedy", "--deals", "1",
                 "--workers", "1", "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith("Four Color Cards:")


def test_each_game_package_exports_its_game_and_main_functions() -> None:
    import fourcards.duelo
    import fourcards.fourcolor
    import fourcards.fourpack
    import fourcards.gangoffour
    import fourcards.zangle
    from fourcards.games import GAMES

    for name, entry in GAMES.items():
        package = entry.game_class.__module__.rsplit(".", 1)[0]
        module = {"fourcards.gangoffour": fourcards.gangoffour, "fourcards.fourcolor": fourcards.fourcolor,
                  "fourcards.zangle": fourcards.zangle, "fourcards.fourpack": fourcards.fourpack,
                  "fourcards.duelo": fourcards.duelo}[package]
        assert getattr(module, entry.game_class.__name__) is entry.game_class, name
        assert entry.game_class.__name__ in module.__all__
    for module, names in ((fourcards.zangle, ["find_zangles", "best_zangle", "check_zangle", "GreedyBot"]),
                          (fourcards.fourcolor, ["best_split", "waits", "GreedyBot", "Rules"]),
                          (fourcards.gangoffour, ["GangOfFour", "SearchBot", "simulate_many", "legal_plays"])):
        for name in names:
            assert name in module.__all__ and hasattr(module, name), (module.__name__, name)


def test_the_exported_games_load_on_first_use() -> None:
    code = ("import sys, fourcards.gangoffour, fourcards.fourcolor, fourcards.zangle\n"
            "heavy = ('fourcards.gangoffour.match', 'fourcards.fourcolor.game', 'fourcards.zangle.game')\n"
            "assert not [m for m in heavy if m in sys.modules], [m for m in heavy if m in sys.modules]\n"
            "from fourcards.fourcolor import FourColor\n"
            "assert fourcards.fourcolor.FourColor is FourColor and 'fourcards.fourcolor.game' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_text_is_accepted_the_same_way_in_every_game() -> None:
    from fourcards.fourcolor import best_split
    from fourcards.gangoffour import classify
    from fourcards.zangle import best_zangle, check_zangle, find_zangles

    assert find_zangles("4b 2 Z 3", "1 5a 1") == find_zangles(["4b", "2", "Z", "3"], ["1", "5a", "1"])
    assert len(find_zangles("4b, 2, Z, 3", "1,5a,1")) == 13
    assert best_zangle("4b 2 Z 3", "1 5a 1") == best_zangle(["4b", "2", "Z", "3"], ["1", "5a", "1"])
    assert check_zangle("4b", "3 1", "centre own", target_place="centre").valid
    assert classify("G3 Y3") is not None and best_split("RG RA RE") is not None


def test_result_objects_print_readably() -> None:
    from fourcards.fourcolor import best_split
    from fourcards.zangle import best_zangle, check_zangle

    split = best_split("RG RA RE RC RH RN RS RS RS GA GA GA YC YC WG WN WN WN GS YS WS")
    assert split is not None
    assert repr(split).startswith("<Split 16 points: RG RA RE | RC RH RN | ")
    assert repr(split.melds[0]) == "<Meld RG RA RE: command, concealed, 2 points>"
    assert repr(best_zangle("4b 2 Z 3", "1 5a 1")) == (
        "<Zangle 5a(own) = Z(centre) + 1(own) + 1(own) + 3(centre)>")
    assert repr(check_zangle("Z", ["1", "1"], ["own", "centre"])) == (
        "<Check: not a Zangle, a Z card cannot be a target>")


def test_simulate_refuses_a_policy_string() -> None:
    from fourcards.gangoffour import simulate_many
    from fourcards.gangoffour.simulate import simulate

    with pytest.raises(InvalidTypeError, match="one name a seat"):
        simulate(2, 0, "greedy,random,random,random")  # a str is a Sequence[str] to a type checker
    with pytest.raises(InvalidTypeError, match="one name a seat"):
        simulate_many(2, 0, "greedy,random")


def test_dask_backend_gives_the_local_results(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    from dask.distributed import LocalCluster

    args = ["simulate", "--bots", "greedy,random,random", "--matches", "30", "--seed", "8", "--json",
            "--batch-size", "7"]
    assert main(args + ["--workers", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        assert main(args + ["--backend", "dask", "--scheduler", cluster.scheduler_address]) == 0
    assert json.loads(capsys.readouterr().out) == local


def test_tournament_and_demo_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "greedy,random,random", "--deals", "2", "--workers", "1",
                 "--target-score", "20"]) == 0
    assert "| greedy | 6 |" in capsys.readouterr().out
    assert main(["tournament", "--bots", "greedy,random", "--deals", "1", "--workers", "1",
                 "--target-score", "10"]) == 0
    assert "Gang of Four: 2 matches (1 deal x 2 rotations), seed 0, 1 worker, " in capsys.readouterr().out
    assert main(["demo", "--seed", "4", "--players", "2", "--colour", "never"]) == 0
    assert "Match over" in capsys.readouterr().out
    # a helper's first use: "best" names a bot in a tournament, and was refused here
    assert main(["demo", "four-pack", "--bots", "best", "--seed", "2", "--delay", "0", "--colour", "never"]) == 0
    kind = get_game("four-pack").hint_bot
    assert capsys.readouterr().out.startswith(f"fourcards {fourcards.__version__}: Four Pack, 4 {kind} bots, seed 2")


def test_a_tournament_takes_any_rule_of_its_game(capsys: pytest.CaptureFixture[str]) -> None:
    """A first user's trial (2026-12-05): a tournament could set no rule but the target score
    (no ``must_hold_family`` for Four Pack), and ``fourcards --players 16 tournament ...``
    advised putting ``--players`` after ``tournament``, which refused it. ``--rule NAME=VALUE``
    sets any rule; a match of one ask lays no family down."""
    argv = ["tournament", "four-pack", "--bots", "memory,memory,memory", "--deals", "2", "--workers", "1",
            "--no-progress", "--seed", "4"]
    assert main(argv) == 0
    assert "| 0.00 [" not in capsys.readouterr().out
    assert main([*argv, "--rule", "max-asks=1", "--rule", "must_hold_family=on"]) == 0
    assert "| memory | 18 | 0.333 [0.045, 0.841] | 0.00 [0.00, 0.00] |" in capsys.readouterr().out  # all tied
    # the game after the options, as a first user typed it: was "unrecognized arguments: four-pack"
    assert main(["tournament", "--bots", "memory,memory,memory", "--deals", "2", "--workers", "1",
                 "--no-progress", "--seed", "4", "four-pack"]) == 0
    assert "Four Pack: 6 matches" in capsys.readouterr().out
    for words, said in ((["four-pack", "duelo"], "four-pack duelo: tournament takes one game"),
                        (["four-pack", "four-pack"], "four-pack four-pack: tournament takes one game"),
                        (["--game", "zangle", "four-pack"], "the game is given twice (zangle and four-pack)")):
        with pytest.raises(SystemExit):  # a second user's trial: these were "unrecognized arguments"
            main(["tournament", "--bots", "memory,memory,memory", *words])
        assert said in capsys.readouterr().err
    from fourcards.tournament import rule_values

    assert rule_values("gang-of-four", ["target_score=20", "pass_is_final=off"]) == {
        "target_score": 20, "pass_is_final": False}


def test_console_script_help() -> None:
    out = subprocess.run([sys.executable, "-m", "fourcards", "--help"], capture_output=True, text=True,
                         check=True).stdout
    for command in ("demo", "hand", "play", "simulate", "tournament", "bench"):
        assert command in out


@pytest.mark.parametrize(("game", "best"), [("gang-of-four", "search, or learned without the compiled core"),
                                             ("four-color", "search, or greedy without the compiled core"),
                                             ("zangle", "search"), ("four-pack", "search"), ("duelo", "search")])
def test_play_help_names_what_best_falls_back_to(game: str, best: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A first user's reading (2026-12-05): the help said "best (search, or search where it cannot
    run)" in every game; without the compiled core Gang of Four's best is the learned bot, Four
    Color's the greedy one, and the others' search runs anyway."""
    with pytest.raises(SystemExit):
        main(["play", game, "--help"])
    assert f"or best ({best})" in " ".join(capsys.readouterr().out.split())


def test_tournament_takes_a_policy_file_for_the_learned_bot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``learned:policy=FILE``: an option's value may be text (a file name, spaces and all); two
    learned bots with other policies are reported apart; a missing file is refused by name."""
    from importlib import resources

    if "learned" not in get_game("gang-of-four").available_bots:
        pytest.skip("the learned bot is not available here")
    policy = tmp_path / "my policy.npz"
    policy.write_bytes(resources.files("fourcards.gangoffour").joinpath("learned_policy.npz").read_bytes())
    assert main(["tournament", "--bots", f"learned:policy={policy},learned,greedy,greedy", "--deals", "1",
                 "--workers", "1", "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert f"| learned:policy={policy} | 4 |" in table and "| learned | 4 |" in table
    assert main(["tournament", "--bots", f"learned:policy={tmp_path / 'none.npz'},greedy", "--deals", "1",
                 "--no-progress"]) == 2
    assert "none.npz" in capsys.readouterr().err


def test_progress_writes_no_carriage_returns_into_a_log() -> None:
    """A progress bar redraws one line in a terminal; a log or a pipe gets plain lines, no ``\\r``."""
    from fourcards.terminal import ProgressBar

    log = io.StringIO()
    bar = ProgressBar(log)
    for done in range(101):
        bar(done, 100)
    assert "\r" not in log.getvalue() and 10 <= len(log.getvalue().splitlines()) <= 11
    assert log.getvalue().splitlines()[-1].startswith("[" + "#" * 30 + "] 100/100 matches")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    live = ProgressBar(screen)
    for done in range(11):
        live(done, 10)
    assert screen.getvalue().count("\r") == 11 and screen.getvalue().endswith("\n")


def test_bench_says_how_to_read_its_rows(capsys: pytest.CaptureFixture[str]) -> None:
    """``fourcards bench`` explains what a row measures and that figures vary; a missed target
    reads "not met here", never as a failure."""
    assert main(["bench", "--quick", "--only", "zangle", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("How to read these tables: each row times one call")
    assert "Figures vary with the machine and its load" in out
    assert re.search(r"\| (met|not met here) \|", out) and "MISS" not in out and "PASS" not in out
