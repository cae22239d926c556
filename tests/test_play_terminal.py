"""Terminal play of every game through a real pseudo-terminal, as a person would:
help, rules, hint, hand, save, --save/--resume, Ctrl-D and Ctrl-C, line editing
and history, colours, --pause."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fourcards.games import get_game

pytestmark = [pytest.mark.engine,
              pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")]
PROMPT = "\n> "
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A ``fourcards`` command in a pseudo-terminal that is its controlling terminal
    (so Ctrl-C is a real SIGINT from the line discipline)."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        import pty

        self.master, slave = pty.openpty()
        environ = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_NO") and k != "NO_COLOR"}
        environ["TERM"] = "xterm"
        environ.update(env or {})

        def controlling_terminal() -> None:
            import fcntl
            import signal
            import termios

            # Ctrl-C must reach the program as a person's would: a runner that started these tests
            # in the background (bash ignores SIGINT there) must not pass that on.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen([sys.executable, "-m", "fourcards", *args], stdin=slave, stdout=slave,
                                     stderr=slave, close_fds=True, env=environ, preexec_fn=controlling_terminal)
        os.close(slave)
        self.raw = ""

    @property
    def output(self) -> str:
        return ANSI.sub("", self.raw)

    def read_until(self, marker: str, timeout: float = 60.0) -> str:
        """The plain text (colours removed) shown from now until ``marker``."""
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
                self.raw += chunk.decode(errors="replace").replace("\r\n", "\n")
        return self.output[start:]

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def interrupt(self) -> None:
        """Ctrl-C once the process waits for a key (CPython's readline misses a
        SIGINT that lands just before it starts waiting, until the next key)."""
        import time

        path = Path(f"/proc/{self.proc.pid}/wchan")
        deadline = time.monotonic() + 10
        while path.exists() and time.monotonic() < deadline:
            wchan = path.read_text()
            if "poll" in wchan or "select" in wchan:
                break
            time.sleep(0.01)
        self.type("\x03")

    def send(self, line: str) -> None:
        self.type(line + "\r")

    def close(self) -> int:
        code = self.proc.wait(timeout=60)
        os.close(self.master)
        return code


#: Per game: the line that shows the person's hand, a word of the full rules, and the mark of their move.
GAMES = {
    "gang-of-four": ("Your hand:", "gang", "You "),
    "four-color": ("Your hand:", "false win", "You "),
    "zangle": ("Your cards:", "Solitaire", "You make"),
    "four-pack": ("Your hand:", "must-hold-family", "You ask"),
    "duelo": ("Your top card:", "hand limit", "You called"),
}


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_has_the_same_session_features(game: str, tmp_path: Path) -> None:
    hand_marker, rules_word, move_marker = GAMES[game]
    saved, other = tmp_path / "match.json", tmp_path / "other.json"
    term = Terminal("play", game, "--seed", "7", "--colour", "never", "--save", str(saved))
    screen = term.read_until(PROMPT)
    assert hand_marker in screen and "[" not in screen.split(hand_marker)[1].splitlines()[0]
    term.send("help")
    help_text = term.read_until(PROMPT)
    assert "in short:" in help_text and f"what the {get_game(game).best_bot} bot would do" in help_text
    for command in ("hint", "hand", "rules", "save FILE", "quit"):
        assert command in help_text
    term.send("rules")
    assert rules_word in term.read_until(PROMPT)
    term.send("hand")
    assert hand_marker in term.read_until(PROMPT)
    term.send("hint")
    hint = re.search(r"hint: (\S+(?: \S+)*?)(?:  \(|\n)", term.read_until(PROMPT))
    assert hint is not None
    term.send(hint.group(1))  # the hint is what to type
    assert move_marker in term.read_until(PROMPT)
    term.send(f"save {other}")
    assert f"saved to {other}" in term.read_until(PROMPT)
    term.type("\x04")  # Ctrl-D: saved to --save, then bye
    assert f"saved to {saved}" in term.read_until("bye")
    assert term.close() == 0
    assert json.loads(saved.read_text())["actions"] == json.loads(other.read_text())["actions"]

    again = Terminal("play", game, "--resume", str(saved), "--save", str(saved), "--colour", "never")
    resumed = again.read_until(PROMPT)
    assert f"Resumed {saved}" in resumed and hand_marker in resumed
    again.interrupt()  # Ctrl-C: saved too
    assert f"saved to {saved}" in again.read_until("bye")
    assert again.close() == 130
    entry = get_game(game)
    data = json.loads(saved.read_text())
    assert get_game(data["game"]).name == entry.name and len(data["actions"]) >= len(
        json.loads(other.read_text())["actions"])


def test_line_editing_and_history_at_the_prompt() -> None:
    term = Terminal("play", "zangle", "--seed", "3", "--colour", "never")
    term.read_until(PROMPT)
    term.type("hnt\x1b[D\x1b[Di\r")  # two left arrows, insert: "hint"
    first = term.read_until(PROMPT)
    assert "hint: " in first
    term.type("\x1b[A\r")  # up arrow: the last line again
    assert "hint: " in term.read_until(PROMPT)
    term.send("quit")
    term.read_until("bye")
    assert term.close() == 0


def test_colours_always_never_and_no_color() -> None:
    coloured = Terminal("play", "four-color", "--seed", "2")  # auto, in a terminal
    coloured.read_until(PROMPT)
    assert "\x1b[31m" in coloured.raw  # red cards in red
    coloured.send("quit")
    coloured.read_until("bye")
    coloured.close()
    for args, env in ((["--colour", "never"], {}), ([], {"NO_COLOR": "1"})):
        plain = Terminal("play", "four-color", "--seed", "2", *args, env=env)
        plain.read_until(PROMPT)
        assert not re.search(r"\x1b\[[0-9;]*m", plain.raw), (args, env)
        plain.send("quit")
        plain.read_until("bye")
        plain.close()


def test_pause_steps_through_the_bots_turns() -> None:
    term = Terminal("play", "four-pack", "--seed", "3", "--pause", "--colour", "never")
    first = term.read_until("(Enter: next move; quit)")
    assert first.count(" asks ") == 1  # one bot move, then a pause
    term.send("")
    after = term.read_until("(Enter: next move; quit)")
    assert after.count(" asks ") == 1
    term.send("quit")
    term.read_until("bye")
    assert term.close() == 0


def test_gang_of_four_messages_in_the_players_words() -> None:
    term = Terminal("play", "gang-of-four", "--seed", "5", "--colour", "never")
    term.read_until(PROMPT)
    term.send("G1 Y9")
    assert "! G1 Y9 is not a combination" in term.read_until(PROMPT)
    term.send("X9 Q2")
    assert "! 'X9' is not a card" in term.read_until(PROMPT)
    term.send("GP GP GP")
    assert "there is only one GP in the deck" in term.read_until(PROMPT)
    term.send("G1 " * 100)
    message = term.read_until(PROMPT).strip().splitlines()[-2]
    assert "too long" in message and len(message) < 120
    term.send("Y9 Y9")
    shown = term.read_until(PROMPT)
    assert "You may not play Y9 Y9" in shown and "player 0" not in shown and "(round" not in shown
    term.send("quit")
    term.read_until("bye")
    assert term.close() == 0
