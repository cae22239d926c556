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

from fourcards.errors import FourCardsError  # noqa: E402
from fourcards.games import get_game  # noqa: E402
from fourcards.gangoffour.bots import SearchBot  # noqa: E402
from fourcards.gangoffour.learned import LearnedBot, load_policy  # noqa: E402
from fourcards.gangoffour.match import GangOfFour  # noqa: E402
from fourcards.rl.distil import collect, fit, held_out_matches  # noqa: E402

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


def test_a_learner_plays_its_own_seat_and_the_search_labels_its_positions() -> None:
    """DAgger: the policy's own positions, each labelled with the search's choice there, not followed."""
    lessons = collect(seed=12, matches=1, iterations=40, time_per_move=0.02, learner=None)
    assert not lessons["learner"].any()  # four search players: no learner's positions
    lessons = collect(seed=12, matches=1, iterations=40, time_per_move=0.02, learner=load_policy().source)
    counts = lessons["counts"]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    game = GangOfFour()
    state = game.new_match(12)
    bots = [SearchBot(seed=12 * 8 + seat, iterations=40) for seat in range(4)]
    learned, learner_seat = LearnedBot(), 12 % 4
    lesson, differed = 0, 0
    while not state.is_terminal:
        seat = state.current_player
        observation, legal = state.observation(seat), state.legal_actions()
        label = bots[seat].choose(observation, legal)
        action = learned.choose(observation, legal) if seat == learner_seat else label
        if len(legal) > 1:
            target = lessons["targets"][starts[lesson]:starts[lesson] + counts[lesson]]
            assert sorted(legal)[int(np.argmax(target))] == label  # the search's choice is the lesson
            assert lessons["learner"][lesson] == (seat == learner_seat)
            differed += action != label
            lesson += 1
        state.apply(action)  # the policy's own move in its seat: the match goes where it takes it
    assert lesson == len(counts) and lessons["learner"].sum() > 5 and differed > 0


def test_rounds_after_the_first_learn_where_the_policy_goes_and_repeat_themselves(tmp_path: Path) -> None:
    out, again = tmp_path / "p.npz", tmp_path / "q.npz"
    result = distil(tmp_path, "--out", str(out), "--rounds", "2")
    assert result.returncode == 0, result.stderr
    assert "round 1: " in result.stdout and "round 2: " in result.stdout
    assert "matches of the policy and three search players" in result.stdout
    assert result.stdout.count("policy written to") == 2
    assert distil(tmp_path, "--out", str(again), "--rounds", "2", "--workers", "2").returncode == 0
    assert again.read_bytes() == out.read_bytes()
    one_round = tmp_path / "r.npz"
    assert distil(tmp_path, "--out", str(one_round)).returncode == 0
    assert one_round.read_bytes() != out.read_bytes()  # the second round fitted it further


def test_held_out_matches_stay_held_out_as_lessons_are_added() -> None:
    matches = np.arange(10**7, 10**7 + 2000)
    held = held_out_matches(matches, seed=1)
    assert 150 < len(held) < 250  # about a tenth
    assert set(held_out_matches(matches[:1000], seed=1)) == set(held[held < 10**7 + 1000])
    assert len(held_out_matches(matches[:2], seed=1)) == 1 and len(held_out_matches(matches[:1], seed=1)) == 0


def test_fitting_raises_the_agreement_with_the_search() -> None:
    lessons = collect(seed=3, matches=4, iterations=40, time_per_move=0.02)
    lines: list[str] = []
    _, figures = fit(lessons, epochs=6, seed=1, hidden=32, log=lines.append)
    start = float(lines[0].rsplit(" ", 1)[1])
    assert figures["agreement"] > start  # a fresh policy, fitted: closer to the search than it began


def test_an_out_that_cannot_be_written_is_refused_before_any_match(tmp_path: Path) -> None:
    result = distil(tmp_path, "--out", str(tmp_path))
    assert result.returncode == 2 and "--out" in result.stderr and "lessons" not in result.stdout


def test_lessons_of_one_match_are_not_fitted() -> None:
    """A helper's first use: ``--matches 1`` reported a "held-out" agreement measured on the lessons
    it was fitted to; one match cannot be held out and trained on both."""
    lessons = collect(seed=3, matches=1, iterations=20, time_per_move=0.02)
    with pytest.raises(FourCardsError, match="lessons of 1 match"):
        fit(lessons, epochs=1, seed=1, hidden=8, log=lambda line: None)


@pytest.mark.parametrize(("option", "value"), [("--matches", "0"), ("--matches", "1"), ("--workers", "x"),
                                               ("--lr", "nan"), ("--time-per-move", "-1"), ("--epochs", "1.5"),
                                               ("--seed", str(2**62)), ("--rounds", "0")])
def test_bad_options_are_refused_by_name(tmp_path: Path, option: str, value: str) -> None:
    result = subprocess.run([sys.executable, "-m", "fourcards.rl.distil", option, value], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and option in result.stderr


def test_more_matches_than_a_seed_spans_are_refused(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "fourcards.rl.distil", "--matches", str(10**7), "--rounds", "2"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "--rounds" in result.stderr and "lessons" not in result.stdout


def test_a_deeper_policy_is_written_as_version_2_and_read_back_as_torch_scores_it(tmp_path: Path) -> None:
    """``--depth``: a fresh policy with more layers; its file (version 2) holds them, and the numpy
    bot scores as the torch policy does."""
    import torch

    from fourcards.rl.train import Policy, save

    torch.manual_seed(2)
    policy = Policy(16, 8, depth=2)
    save(policy.export(), tmp_path / "deeper.npz")
    weights = load_policy(tmp_path / "deeper.npz")
    assert weights.wh is not None and weights.wh.shape == (2, 8, 8)
    with np.load(tmp_path / "deeper.npz") as data:
        assert str(data["version"]) == "2"
    again = Policy.of(weights).export()
    for name, value in policy.export().items():
        assert np.array_equal(again[name], value), name
    rng = np.random.default_rng(1)
    state = rng.random((weights.state_w.shape[0],), dtype=np.float32)
    rows = rng.random((5, weights.cand_w.shape[0])).astype(np.float32)
    with torch.no_grad():
        expected = policy.scores(torch.from_numpy(state)[None], torch.from_numpy(rows),
                                 torch.zeros(5, dtype=torch.long))
    np.testing.assert_allclose(weights.scores(state, rows), expected.numpy(), rtol=1e-4, atol=1e-5)


def test_depth_without_a_fresh_policy_is_refused(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "fourcards.rl.distil", "--depth", "1"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "--depth needs --hidden" in result.stderr


def test_a_policy_made_of_the_shipped_weights_exports_them_unchanged() -> None:
    from fourcards.rl.train import Policy

    shipped = load_policy()
    exported = Policy.of(shipped).export()
    for name in ("state_w", "cand_w", "b1", "w2", "b2", "w3", "b3"):
        assert np.array_equal(exported[name], getattr(shipped, name)), name


def test_saved_lessons_fit_again_to_the_same_policy_without_a_match(tmp_path: Path) -> None:
    """``--save-lessons`` then ``--lessons``: the fit of the saved lessons is the fit of the collected ones,
    byte for byte, and plays no match (a collection fitted again with other options)."""
    lessons, first, again = tmp_path / "kept" / "lessons.npz", tmp_path / "first.npz", tmp_path / "again.npz"
    result = distil(tmp_path, "--save-lessons", str(lessons), "--out", str(first))
    assert result.returncode == 0, result.stderr
    assert "lessons written to" in result.stdout and lessons.is_file()
    result = distil(tmp_path, "--lessons", str(lessons), "--out", str(again))
    assert result.returncode == 0, result.stderr
    assert "from 1 lessons file(s)" in result.stdout and "matches of four search players" not in result.stdout
    assert again.read_bytes() == first.read_bytes()
    from fourcards.rl.lessons import load_lessons

    kept = load_lessons(lessons)
    assert len(np.unique(kept["matches"])) == 2 and not kept["learner"].any()


def test_lessons_given_twice_or_not_lessons_are_refused_before_anything(tmp_path: Path) -> None:
    from fourcards.rl.lessons import save_lessons

    lessons = tmp_path / "lessons.npz"
    save_lessons(collect(seed=21, matches=2, iterations=20, time_per_move=0.02), lessons)
    out = tmp_path / "never" / "policy.npz"
    copy = tmp_path / "copy.npz"
    copy.write_bytes(lessons.read_bytes())
    cases = {("--lessons", str(lessons), str(lessons)): "named twice",
             ("--lessons", str(lessons), str(copy)): "is in",  # the same matches twice
             ("--lessons", str(load_policy().source)): "is not 'fourcards-distil-lessons'",
             ("--lessons", str(tmp_path / "missing.npz")): "no such file",
             ("--lessons", str(tmp_path)): "a directory"}
    for arguments, problem in cases.items():
        result = distil(tmp_path, *arguments, "--out", str(out))
        assert result.returncode == 2 and "--lessons" in result.stderr and problem in result.stderr, arguments
        assert not out.parent.exists() and "lessons from" not in result.stdout
    keep = tmp_path / "notes.txt"
    keep.write_text("mine")
    result = distil(tmp_path, "--save-lessons", str(keep), "--out", str(out))
    assert result.returncode == 2 and "--save-lessons" in result.stderr and "not a fourcards-distil-lessons" \
        in result.stderr and keep.read_text() == "mine" and "lessons from" not in result.stdout
    result = distil(tmp_path, "--save-lessons", str(out), "--out", str(out))
    assert result.returncode == 2 and "--out writes that file" in result.stderr
    before = lessons.read_bytes()  # an expensive collection is not written over by another run
    result = distil(tmp_path, "--save-lessons", str(lessons), "--out", str(out))
    assert result.returncode == 2 and "a lessons file this run does not read" in result.stderr
    assert lessons.read_bytes() == before and not out.parent.exists()


def test_rounds_after_saved_lessons_play_new_deals_and_add_to_the_file(tmp_path: Path) -> None:
    """A first user's trial: ``--lessons`` with ``--rounds 2`` dealt round 2's matches from the numbers the
    files already held (the same deals again); they are numbered after them now, and ``--save-lessons`` on
    one of the files adds to its lessons."""
    from fourcards.rl.lessons import load_lessons, save_lessons

    lessons = tmp_path / "lessons.npz"
    save_lessons(collect(seed=5 * 10**7, matches=3, iterations=20, time_per_move=0.02), lessons)
    out = tmp_path / "p.npz"
    result = distil(tmp_path, "--lessons", str(lessons), "--rounds", "2", "--save-lessons", str(lessons),
                    "--out", str(out))  # TINY: --matches 2 --seed 5
    assert result.returncode == 0, result.stderr
    assert "round 1: " in result.stdout and "round 2: " in result.stdout
    kept = load_lessons(lessons)
    assert sorted(set(kept["matches"].tolist())) == [5 * 10**7 + i for i in range(5)]  # 3 kept, 2 new
    assert kept["learner"][np.isin(kept["matches"], [5 * 10**7 + 3, 5 * 10**7 + 4])].any()


def test_save_lessons_with_lessons_alone_writes_the_files_as_one(tmp_path: Path) -> None:
    from fourcards.rl.lessons import load_lessons, save_lessons

    first, second, merged = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "all.npz"
    save_lessons(collect(seed=100, matches=1, iterations=20, time_per_move=0.02), first)
    save_lessons(collect(seed=200, matches=1, iterations=20, time_per_move=0.02), second)
    result = distil(tmp_path, "--lessons", str(first), str(second), "--save-lessons", str(merged),
                    "--out", str(tmp_path / "p.npz"))
    assert result.returncode == 0, result.stderr
    together = load_lessons(merged)
    assert sorted(set(together["matches"].tolist())) == [100, 200]
    assert len(together["counts"]) == len(load_lessons(first)["counts"]) + len(load_lessons(second)["counts"])


def test_two_runs_do_not_write_one_lessons_file(tmp_path: Path) -> None:
    """A second user's trial: two runs with one ``--save-lessons`` both ran, and the file kept the last
    one's lessons only. A run holds a lock beside the file while it lives: another is refused at once."""
    import fcntl

    lessons = tmp_path / "lessons.npz"
    with open(tmp_path / ".lessons.npz.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another run, writing it
        result = distil(tmp_path, "--save-lessons", str(lessons), "--out", str(tmp_path / "p.npz"))
    assert result.returncode == 2 and "another run is writing its lessons" in result.stderr, result.stderr
    assert "lessons from" not in result.stdout and not lessons.exists()
    result = distil(tmp_path, "--save-lessons", str(lessons), "--out", str(tmp_path / "p.npz"))
    assert result.returncode == 0, result.stderr  # the lock released: the next run goes ahead
    assert lessons.is_file() and not (tmp_path / ".lessons.npz.lock").exists()


def test_lessons_that_cannot_be_written_do_not_lose_the_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A second user's trial: a full disk at ``--save-lessons`` ended the run with a traceback before the
    fit, the matches lost with it. Now the policy is fitted and written, and the run ends in an error."""
    import fourcards.rl.distil as command

    def full_disk(lessons: object, path: object) -> None:
        raise FourCardsError(f"lessons file {path}: cannot write it (No space left on device)")

    monkeypatch.setattr(command, "save_lessons", full_disk)
    out = tmp_path / "p.npz"
    assert command.main([*TINY, "--save-lessons", str(tmp_path / "l.npz"), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert out.is_file() and "policy written to" in captured.out
    assert "No space left on device" in captured.err and "the policy is fitted and written" in captured.err
