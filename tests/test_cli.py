"""The command line: play through a pseudo-terminal, simulate, tournament, bench."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fourcards.cli import main
from fourcards.gangoffour.match import GangOfFour, Rules
from fourcards.gangoffour.simulate import simulate_many

pytestmark = pytest.mark.engine
PROMPT = "\n> "


class Terminal:
    """A command driven through a pseudo-terminal, as a person would."""

    def __init__(self, *args: str) -> None:
        import pty

        self.master, slave = pty.openpty()
        env = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_NO")}
        self.proc = subprocess.Popen([sys.executable, "-m", "fourcards", *args], stdin=slave,
                                     stdout=slave, stderr=slave, close_fds=True, env=env)
        os.close(slave)
        self.output = ""

    def read_until(self, marker: str, timeout: float = 60.0) -> str:
        import select
        import time

        start = len(self.output)
        deadline = time.monotonic() + timeout
        while marker not in self.output[start:]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {marker!r} in output:\n{self.output[-3000:]}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    if marker not in self.output[start:]:
                        raise AssertionError(f"ended without {marker!r}:\n{self.output[-3000:]}")
                    break
                self.output += chunk.decode(errors="replace").replace("\r\n", "\n")
        return self.output[start:]

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        code = self.proc.wait(timeout=60)
        os.close(self.master)
        return code


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_in_a_terminal_with_bad_input_hint_save_and_resume(tmp_path: Path) -> None:
    saved = tmp_path / "match.json"
    term = Terminal("play", "gang-of-four", "--seed", "5", "--colour", "never", "--save", str(saved))
    screen = term.read_until(PROMPT)
    assert "Gang of Four: you are P0" in screen and "Your hand:" in screen
    assert re.search(r"Round 1, counter-clockwise \| table: ", screen)
    assert "Cards: P0:" in screen and "Scores: P0:0" in screen
    term.send("X9 Q2")
    assert "'X9' in 'X9 Q2' is not a card" in term.read_until(PROMPT)
    term.send("GP GP GP")
    assert "3 x GP" in term.read_until(PROMPT)
    term.send("help")
    assert "give CARD" in term.read_until(PROMPT)
    term.send("hint")
    hint = term.read_until(PROMPT)
    suggestion = re.search(r"hint: (.+)", hint)
    assert suggestion is not None
    term.send(suggestion.group(1).strip())
    after = term.read_until(PROMPT)
    assert "You " in after  # the play (or pass) is shown, then the bots answer
    term.send("quit")
    assert "saved to" in term.read_until("bye")
    assert term.close() == 0
    state = GangOfFour().from_json(saved.read_text())
    assert len(state.actions) > 0 and state.current_player == 0
    again = Terminal("play", "gang-of-four", "--resume", str(saved), "--colour", "never")
    resumed = again.read_until(PROMPT)
    assert "Your hand:" in resumed
    again.send("quit")
    again.read_until("bye")
    assert again.close() == 0


def test_resume_refuses_a_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert main(["play", "gang-of-four", "--resume", str(bad)]) == 2
    assert "not a saved Gang of Four match" in capsys.readouterr().err


def test_play_session_with_scripted_input() -> None:
    import io

    from fourcards.cli.play_gangoffour import Session

    state = GangOfFour(target_score=20).new_match(3)
    commands = io.StringIO("\n".join(["pass", "nonsense", "quit"]) + "\n")
    out = io.StringIO()
    Session(state, "greedy", commands, out, False, None).run()
    text = out.getvalue()
    assert "! " in text and "bye" in text


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
    assert main(["demo", "--seed", "4", "--players", "2", "--colour", "never"]) == 0
    assert "Match over" in capsys.readouterr().out


def test_console_script_help() -> None:
    out = subprocess.run([sys.executable, "-m", "fourcards", "--help"], capture_output=True, text=True,
                         check=True).stdout
    for command in ("demo", "hand", "play", "simulate", "tournament", "bench"):
        assert command in out


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_four_pack_in_a_terminal() -> None:
    term = Terminal("play", "four-pack", "--seed", "4")
    screen = term.read_until(PROMPT)
    assert "Your hand:" in screen and "Families down:" in screen
    term.send("P9 A1")
    assert "not a seat" in term.read_until(PROMPT)
    term.send("hello")
    assert "ask as 'P2 C3'" in term.read_until(PROMPT)
    hand = re.search(r"Your hand: (\w\d)", screen)
    assert hand is not None
    owned = hand.group(1)
    term.send(f"P1 {owned}")
    assert "already" in term.read_until(PROMPT)
    wanted = next(f"{owned[0]}{n}" for n in "1234" if f"{owned[0]}{n}" not in screen.split("Your hand:")[1])
    term.send(f"P1 {wanted}")
    assert f"You ask P1 for {wanted}" in term.read_until(PROMPT, timeout=60)
    term.send("quit")
    term.read_until("bye")
    assert term.close() == 0


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_duelo_in_a_terminal() -> None:
    term = Terminal("play", "duelo", "--seed", "2")
    screen = term.read_until(PROMPT)
    assert "Your top card:" in screen and "0. Atomic number" in screen
    term.send("colour")
    assert "not a category" in term.read_until(PROMPT)
    term.send("density")
    assert "hand " in term.read_until(PROMPT, timeout=60)
    term.send("quit")
    term.read_until("bye")
    assert term.close() == 0


def test_bad_deck_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "deck.json"
    bad.write_text('{"format": "fourcards-deck"}')
    assert main(["play", "duelo", "--deck", str(bad)]) == 2
    assert "problem" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_four_color_in_a_terminal() -> None:
    term = Terminal("play", "four-color", "--seed", "3", "--rounds", "1")
    screen = term.read_until(PROMPT)
    assert "Your hand:" in screen and "Stock " in screen
    assert "Discard a card" in screen  # seat 0 starts with 21 cards and discards
    term.send("XX")
    assert "'XX' is not a card" in term.read_until(PROMPT)
    general = re.search(r"Your hand: .*?\b([RGYW]G)\b", screen)
    if general is not None:
        term.send(general.group(1))
        assert "never discarded" in term.read_until(PROMPT)
    card = re.search(r"e\.g\. (\w\w)", screen)
    assert card is not None
    term.send(card.group(1))
    assert f"You discard {card.group(1)}" in term.read_until(PROMPT, timeout=60)
    term.send("quit")
    term.read_until("bye")
    assert term.close() == 0


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_zangle_in_a_terminal() -> None:
    term = Terminal("play", "zangle", "--seed", "3")
    screen = term.read_until(PROMPT)
    assert "Centre:" in screen and "Your cards:" in screen and "/\\" in screen
    term.send("99")
    assert "choose a Zangle by its number" in term.read_until(PROMPT)
    term.send("0")
    assert "You made" in term.read_until(PROMPT, timeout=60)
    term.send("quit")
    term.read_until("bye")
    assert term.close() == 0
    solo = Terminal("play", "zangle", "--solitaire", "--seed", "5")
    assert "solitaire" in solo.read_until(PROMPT)
    solo.send("quit")
    solo.read_until("bye")
    assert solo.close() == 0
