"""The trainer ships with the package: ``python -m fourcards.rl.train`` runs from an
installed wheel, makes its output folders, writes a policy the learned bot and the
tournament take, and repeats itself bit for bit on one machine (same seed, same torch)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the trainer needs torch (the train extra)")
pytestmark = pytest.mark.engine  # it trains on the compiled vector environment

from fourcards.games import get_game  # noqa: E402

TINY = ["--updates", "2", "--imitation", "1", "--envs", "8", "--steps", "8", "--eval-every", "1",
        "--eval-matches", "8", "--candidates", "32", "--seed", "3"]


def train(cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fourcards.rl.train", *TINY, *extra], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_a_tiny_run_writes_a_policy_the_learned_bot_plays(tmp_path: Path) -> None:
    out, curve = tmp_path / "a" / "b" / "policy", tmp_path / "c" / "d" / "curve.png"
    result = train(tmp_path, "--out", str(out), "--curve", str(curve))
    assert result.returncode == 0, result.stderr
    assert out.is_file() and curve.with_suffix(".csv").is_file()  # folders made; the name kept as given
    assert "evaluate it: fourcards tournament" in result.stdout
    entry = get_game("gang-of-four")
    game = entry.new_game()
    bot = entry.new_bot("learned", game, policy=str(out))
    state = game.new_match(1)
    assert bot.choose(state.observation(state.current_player), state.legal_actions()) in state.legal_actions()
    again = tmp_path / "again.npz"
    assert train(tmp_path, "--out", str(again), "--curve", str(tmp_path / "again.png")).returncode == 0
    assert again.read_bytes() == out.read_bytes()  # same seed, same machine, same torch: the same weights


@pytest.mark.parametrize(("option", "value"), [("--updates", "0"), ("--envs", "x"), ("--lr", "nan"),
                                               ("--minutes", "-1")])
def test_bad_options_are_refused_by_name(tmp_path: Path, option: str, value: str) -> None:
    result = subprocess.run([sys.executable, "-m", "fourcards.rl.train", option, value], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and option in result.stderr


def test_an_out_that_cannot_be_written_is_refused_before_training(tmp_path: Path) -> None:
    """A first user's trial: ``--out /proc/x/y.npz`` or ``--out`` an existing folder trained to the
    end (up to 30 minutes), then lost the run in a traceback."""
    blocked = tmp_path / "file"
    blocked.write_text("")
    for flag, value in (("--out", str(tmp_path)), ("--out", str(blocked / "policy.npz")),
                        ("--curve", str(blocked / "curve.png"))):
        result = train(tmp_path, flag, value, "--updates", "600")
        assert result.returncode == 2 and f"argument {flag}" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr and "update" not in result.stdout, result.stdout
