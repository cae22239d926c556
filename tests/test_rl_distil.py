"""The search distilled into the learned policy: ``python -m fourcards.rl.distil`` runs from
an installed wheel, writes a policy the learned bot and the tournament take, repeats itself
bit for bit with ``--iterations`` (same seed, same torch, one machine), and the lessons it
learns from are the search's own choices."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="the distiller needs torch (the train extra)")
pytestmark = pytest.mark.engine  # the search plays the matches in C

from fourcards.games import get_game  # noqa: E402
from fourcards.gangoffour.bots import SearchBot  # noqa: E402
from fourcards.gangoffour.learned import load_policy  # noqa: E402
from fourcards.gangoffour.match import GangOfFour  # noqa: E402
from fourcards.rl.distil import collect, fit  # noqa: E402

TINY = ["--matches", "2", "--iterations", "30", "--epochs", "2", "--seed", "5"]


def distil(cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fourcards.rl.distil", *TINY, *extra], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_a_tiny_run_writes_a_policy_the_learned_bot_plays_and_repeats_itself(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "policy"
    result = distil(tmp_path, "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.is_file()  # its folder made, the name kept as given
    assert "lessons from 2 matches" in result.stdout and "fourcards tournament" in result.stdout
    entry = get_game("gang-of-four")
    game = entry.new_game()
    bot = entry.new_bot("learned", game, policy=str(out))
    state = game.new_match(1)
    assert bot.choose(state.observation(state.current_player), state.legal_actions()) in state.legal_actions()
    assert load_policy(out).b1.shape == load_policy().b1.shape  # it starts from the shipped policy
    again = tmp_path / "again.npz"
    assert distil(tmp_path, "--out", str(again), "--workers", "2").returncode == 0
    assert again.read_bytes() == out.read_bytes()  # the same matches, whichever process plays them


def test_the_lessons_are_the_searchs_choices_and_visits() -> None:
    lessons = collect(seed=11, matches=1, iterations=40, time_per_move=0.02)
    counts = lessons["counts"]
    assert len(counts) == len(lessons["states"]) == len(lessons["matches"]) > 50
    assert counts.min() >= 2 and len(lessons["rows"]) == len(lessons["targets"]) == counts.sum()
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sums = np.add.reduceat(lessons["targets"], starts)
    np.testing.assert_allclose(sums, 1.0, atol=1e-5)  # a distribution over each lesson's rows
    # Replayed: the row with the most target in each lesson is the action the search played there.
    game = GangOfFour()
    state = game.new_match(11)
    bots = [SearchBot(seed=11 * 8 + seat, iterations=40) for seat in range(4)]
    lesson = 0
    while not state.is_terminal:
        seat = state.current_player
        legal = state.legal_actions()
        action = bots[seat].choose(state.observation(seat), legal)
        if len(legal) > 1:
            target = lessons["targets"][starts[lesson]:starts[lesson] + counts[lesson]]
            assert counts[lesson] == len(legal) and sorted(legal)[int(np.argmax(target))] == action
            lesson += 1
        state.apply(action)
    assert lesson == len(counts)


def test_fitting_raises_the_agreement_with_the_search() -> None:
    lessons = collect(seed=3, matches=4, iterations=40, time_per_move=0.02)
    lines: list[str] = []
    _, figures = fit(lessons, epochs=6, seed=1, hidden=32, log=lines.append)
    start = float(lines[0].rsplit(" ", 1)[1])
    assert figures["agreement"] > start  # a fresh policy, fitted: closer to the search than it began


def test_an_out_that_cannot_be_written_is_refused_before_any_match(tmp_path: Path) -> None:
    result = distil(tmp_path, "--out", str(tmp_path))
    assert result.returncode == 2 and "--out" in result.stderr and "lessons" not in result.stdout


@pytest.mark.parametrize(("option", "value"), [("--matches", "0"), ("--workers", "x"), ("--lr", "nan"),
                                               ("--time-per-move", "-1"), ("--epochs", "1.5"),
                                               ("--seed", str(2**62))])
def test_bad_options_are_refused_by_name(tmp_path: Path, option: str, value: str) -> None:
    result = subprocess.run([sys.executable, "-m", "fourcards.rl.distil", option, value], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and option in result.stderr


def test_a_policy_made_of_the_shipped_weights_exports_them_unchanged() -> None:
    from fourcards.rl.train import Policy

    shipped = load_policy()
    exported = Policy.of(shipped).export()
    for name in ("state_w", "cand_w", "b1", "w2", "b2", "w3", "b3"):
        assert np.array_equal(exported[name], getattr(shipped, name)), name
