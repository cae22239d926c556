"""Lessons files (``python -m fourcards.rl.distil --save-lessons`` / ``--lessons``), in numpy alone:
written whole, read back equal, and anything else refused by name."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourcards.errors import FourCardsError, InvalidTypeError
from fourcards.gangoffour.features import LAYOUT_HASH, action_rows, observation_tensor
from fourcards.gangoffour.match import GangOfFour
from fourcards.rl.lessons import (LESSONS_FORMAT, LESSONS_VERSION, Lessons, empty_lessons, header_problem,
                                  load_lessons, merge_lessons, save_lessons)


def some_lessons(match: int, positions: int = 6) -> Lessons:
    """Lessons of the first ``positions`` choices of a match where every seat plays its first legal action,
    each target all on the last row."""
    state = GangOfFour().new_match(match)
    states: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    counts: list[int] = []
    while len(counts) < positions:
        observation, legal = state.observation(state.current_player), state.legal_actions()
        if len(legal) > 1:
            candidate_rows, _ = action_rows(observation.hand_mask, legal)
            target = np.zeros(len(legal), np.float32)
            target[-1] = 1.0
            states.append(observation_tensor(observation))
            rows.append(candidate_rows)
            targets.append(target)
            counts.append(len(legal))
        state.apply(legal[0])
    return {"states": np.array(states, np.float32), "rows": np.concatenate(rows).astype(np.float32),
            "targets": np.concatenate(targets), "counts": np.array(counts, np.int64),
            "matches": np.full(len(counts), match, np.int64), "learner": np.zeros(len(counts), bool)}


def written(path: Path, lessons: Lessons, **headers: Any) -> Path:
    arrays: dict[str, Any] = {"format": np.array(LESSONS_FORMAT), "version": np.array(LESSONS_VERSION),
                              "layout_hash": np.array(LAYOUT_HASH), **lessons}
    for name, value in headers.items():
        if value is None:
            arrays.pop(name)
        else:
            arrays[name] = value
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    return path


def test_lessons_written_are_read_back_equal(tmp_path: Path) -> None:
    lessons = merge_lessons([some_lessons(1), some_lessons(2)])
    path = tmp_path / "deep" / "folder" / "lessons"  # its folder made, the name kept as given
    save_lessons(lessons, path)
    assert path.is_file() and not list(path.parent.glob(".*part"))
    again = load_lessons(path)
    assert set(again) == set(lessons)
    for name, value in lessons.items():
        assert again[name].dtype == value.dtype and np.array_equal(again[name], value), name
    with np.load(path) as data:
        assert str(data["format"]) == LESSONS_FORMAT and str(data["layout_hash"]) == LAYOUT_HASH


def test_no_lessons_are_lessons_too(tmp_path: Path) -> None:
    save_lessons(empty_lessons(), tmp_path / "none.npz")
    assert len(load_lessons(tmp_path / "none.npz")["counts"]) == 0
    assert len(merge_lessons([])["rows"]) == 0


def test_a_failed_write_leaves_the_old_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "lessons.npz"
    save_lessons(some_lessons(1), path)
    before = path.read_bytes()
    bad = some_lessons(2)
    bad["counts"] = bad["counts"] + 1  # no longer adds up to the rows
    with pytest.raises(FourCardsError, match="counts add up"):
        save_lessons(bad, path)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["lessons.npz"]


def damaged(lessons: Lessons, damage: str) -> dict[str, Any]:
    changed: dict[str, Any] = dict(lessons)
    if damage == "dtype":
        changed["states"] = lessons["states"].astype(np.float64)
    elif damage == "width":
        changed["rows"] = lessons["rows"][:, :-1]
    elif damage == "short":
        changed["matches"] = lessons["matches"][:-1]
    elif damage == "counts":
        changed["counts"] = lessons["counts"].copy()
        changed["counts"][0] += 1
    elif damage == "single":
        counts = lessons["counts"].copy()
        counts[1] += counts[0] - 1  # the same rows, the first lesson left with one
        counts[0] = 1
        changed["counts"] = counts
    elif damage == "nan":
        changed["rows"] = lessons["rows"].copy()
        changed["rows"][3, 2] = np.nan
    elif damage == "negative":
        changed["targets"] = lessons["targets"].copy()
        changed["targets"][0] = -0.5
    elif damage == "sum":
        changed["targets"] = lessons["targets"] * 2
    return changed


@pytest.mark.parametrize(("damage", "problem"), [
    ("dtype", "states is float64, not float32"),
    ("width", "rows has shape"),
    ("short", "matches has shape"),
    ("counts", "counts add up"),
    ("single", "a lesson of 1 row"),
    ("nan", "rows holds NaN"),
    ("negative", "negative"),
    ("sum", "targets add up to 2"),
])
def test_damaged_arrays_are_refused_by_name(tmp_path: Path, damage: str, problem: str) -> None:
    path = written(tmp_path / "lessons.npz", damaged(some_lessons(3), damage))
    with pytest.raises(FourCardsError, match=problem) as caught:
        load_lessons(path)
    assert str(path) in str(caught.value) and isinstance(caught.value, ValueError)
    with pytest.raises(FourCardsError, match=problem):
        save_lessons(damaged(some_lessons(3), damage), tmp_path / "never.npz")
    assert not (tmp_path / "never.npz").exists()


@pytest.mark.parametrize(("headers", "problem"), [
    ({"format": np.array("fourcards-candidate-mlp")}, "format 'fourcards-candidate-mlp' is not"),
    ({"version": np.array("9")}, "version '9'"),
    ({"layout_hash": np.array("0" * 16)}, "candidate features"),
    ({"format": np.array(3)}, "header 'format' must be a string"),
    ({"format": None}, "missing format"),
    ({"extra": np.zeros(2)}, "holds arrays no lessons file has: extra"),
])
def test_wrong_headers_are_refused_by_name(tmp_path: Path, headers: dict[str, Any], problem: str) -> None:
    path = written(tmp_path / "lessons.npz", some_lessons(4), **headers)
    with pytest.raises(FourCardsError, match=problem):
        load_lessons(path)


def test_what_is_not_a_lessons_file_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "text.npz").write_text("hello")
    np.save(tmp_path / "array.npy", np.zeros(3))
    os.mkfifo(tmp_path / "fifo.npz")
    save_lessons(some_lessons(1), tmp_path / "whole.npz")
    (tmp_path / "broken.npz").write_bytes((tmp_path / "whole.npz").read_bytes()[:3000])  # cut short
    with zipfile.ZipFile(tmp_path / "raw.npz", "w") as archive:  # a member that is no .npy: numpy gives bytes
        archive.writestr("states.npy", b"not an array")
    cases = {tmp_path / "missing.npz": "no such file", tmp_path / "text.npz": "not an .npz file",
             tmp_path / "array.npy": "not an .npz file", tmp_path / "broken.npz": "not a readable .npz",
             tmp_path: "not a regular file", tmp_path / "raw.npz": "missing format",
             tmp_path / "fifo.npz": "not a regular file"}  # a FIFO is not opened: that would block
    for path, problem in cases.items():
        with pytest.raises(FourCardsError, match=problem):
            load_lessons(path)
    objects = tmp_path / "objects.npz"
    np.savez(objects, format=np.array([{"a": 1}], dtype=object))  # pickled data is never unpickled
    with pytest.raises(FourCardsError, match="not a readable .npz"):
        load_lessons(objects)
    with pytest.raises(InvalidTypeError, match="file path"):
        load_lessons(3)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="file path"):
        save_lessons(some_lessons(1), None)  # type: ignore[arg-type]


def test_match_numbers_below_0_and_sizes_of_other_shapes_are_refused(tmp_path: Path) -> None:
    """A first user's trial: a negative match number passed the checks and crashed the fit in numpy; a
    2-D ``counts`` was reported as a wrong ``states`` shape of -1 rows."""
    lessons = some_lessons(5)
    negative = {**lessons, "matches": lessons["matches"] - 100}
    with pytest.raises(FourCardsError, match="a match number below 0"):
        load_lessons(written(tmp_path / "negative.npz", negative))
    flat = {**lessons, "counts": lessons["counts"][None, :]}
    with pytest.raises(FourCardsError, match=r"counts is \(1, 6\), not a 1-D array"):
        load_lessons(written(tmp_path / "flat.npz", flat))


def test_what_cannot_be_saved_is_refused_by_name(tmp_path: Path) -> None:
    """A first user's trial: the Python API let TypeError, IsADirectoryError and numpy's ValueError out."""
    good = some_lessons(6)
    (tmp_path / "a file").write_text("x")
    for lessons, path, error, says in [
            (5, tmp_path / "x.npz", InvalidTypeError, "lessons must be lessons"),
            ("abc", tmp_path / "x.npz", InvalidTypeError, "not str"),
            ({**good, "states": good["states"].tolist()}, tmp_path / "x.npz", FourCardsError, "states is list"),
            (good, tmp_path, FourCardsError, "that is a directory"),
            (good, "", FourCardsError, "needs a file name"),
            (good, tmp_path / "a file" / "x.npz", FourCardsError, "cannot write it"),
            (good, str(tmp_path / "nul\0.npz"), FourCardsError, "cannot write it")]:
        with pytest.raises(error, match=says):
            save_lessons(lessons, path)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a file"]
    with pytest.raises(InvalidTypeError, match=r"parts\[1\] must be lessons"):
        merge_lessons([good, 5])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError, match="a sequence of lessons"):
        merge_lessons(good)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match=r"parts\[0\]: targets holds a negative"):
        merge_lessons([{**good, "targets": -good["targets"]}])


def test_paths_that_are_not_text_and_counts_past_the_rows_are_refused(tmp_path: Path) -> None:
    """A second user's trial: an int path was taken as a file descriptor (and closed the caller's file),
    bytes slipped through ``header_problem``, and counts adding up past int64 crashed in numpy."""
    path = tmp_path / "lessons.npz"
    save_lessons(some_lessons(7), path)
    assert header_problem(path) is None
    with open(path, "rb") as handle:
        for bad in (None, 1.5, [str(path)], handle.fileno(), str(path).encode()):
            for call in (header_problem, load_lessons):
                with pytest.raises(InvalidTypeError, match="must be a file path"):
                    call(bad)  # type: ignore[arg-type]
        assert handle.read(2) == b"PK"  # the caller's file is still open
    huge = some_lessons(7)
    huge["counts"] = np.full(len(huge["counts"]), 2**62, np.int64)
    with pytest.raises(FourCardsError, match="a lesson of 4611686018427387904 rows"):
        load_lessons(written(tmp_path / "huge.npz", huge))
    assert "format 'fourcards-candidate-mlp'" in str(header_problem(written(
        tmp_path / "policy.npz", some_lessons(7), format=np.array("fourcards-candidate-mlp"))))


def test_threads_saving_to_one_file_leave_one_whole_file(tmp_path: Path) -> None:
    """Each save writes a file of its own beside the target and renames it over it: whichever thread
    renames last, the file is one thread's lessons, whole (a shared temporary name mixed them)."""
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "lessons.npz"
    mine = [some_lessons(8), some_lessons(9, positions=40)]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: save_lessons(mine[i % 2], path), range(40)))
    kept = load_lessons(path)
    assert any(all(np.array_equal(kept[name], one[name]) for name in one) for one in mine)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lessons.npz"]
