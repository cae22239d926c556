"""``python -m fourcards.rl.train`` and ``python -m fourcards.rl.distil`` read their arguments before
they need torch: ``--help`` (with every default) works without it, a bad value is refused in one line
naming its argument, having made nothing (no folder, no file overwritten), and only valid arguments
lead to the one line saying which extra to install.

Each command runs in this process as ``python -m`` runs it (``runpy``, as ``__main__``) with torch
hidden, as if it were not installed; where torch is installed, ``main()`` is called directly too."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import runpy
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from fourcards.gangoffour.learned import default_policy_path

TRAIN, DISTIL = "fourcards.rl.train", "fourcards.rl.distil"
MODULES = (TRAIN, DISTIL)

#: Each command's options that take a number, and those of them for which 0 is valid.
NUMBERS = {TRAIN: ("--updates", "--minutes", "--seed", "--envs", "--steps", "--candidates", "--hidden", "--hidden2",
                   "--lr", "--imitation", "--eval-every", "--eval-matches"),
           DISTIL: ("--matches", "--workers", "--iterations", "--time-per-move", "--epochs", "--hidden", "--depth",
                    "--lr", "--seed", "--rounds")}
ZERO_VALID = {"--seed", "--imitation", "--depth"}
BAD_NUMBERS = [(module, option, value) for module, options in NUMBERS.items() for option in options
               for value in ("0", "-1", "nan", str(2**70), "x") if not (value == "0" and option in ZERO_VALID)]

Run = Callable[[str, Sequence[str]], tuple[Any, str, str]]


class _NoTorch(importlib.abc.MetaPathFinder):
    """Refuses torch, as if it were not installed."""

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None) -> None:
        if name.partition(".")[0] == "torch":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def without_torch(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """``python -m module args`` with torch hidden: (exit code, stdout, stderr)."""

    def run(module: str, args: Sequence[str]) -> tuple[Any, str, str]:
        with monkeypatch.context() as patch:
            patch.setattr(sys, "meta_path", [_NoTorch(), *sys.meta_path])
            for name in ("torch", *MODULES):  # imported already (torch installed): hidden for this run
                patch.delitem(sys.modules, name, raising=False)
            patch.setattr(sys, "argv", [module, *args])
            with pytest.raises(SystemExit) as stopped:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
        out = capsys.readouterr()
        return stopped.value.code, out.out, out.err

    return run


def _accepted(*args: Any, **kwargs: Any) -> None:
    raise RuntimeError("the arguments were accepted (the test stops the command here)")


def with_torch(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """``main(args)`` of the imported module (torch installed): (exit code, stdout, stderr). Arguments it
    accepts stop it (exit 2, before any match) where it would start the environment or the search."""

    def run(module: str, args: Sequence[str]) -> tuple[Any, str, str]:
        command = importlib.import_module(module)
        with monkeypatch.context() as patch, pytest.raises(SystemExit) as stopped:
            patch.setattr(command, "VectorGangOfFour" if module == TRAIN else "SearchBot", _accepted)
            command.main(list(args))
        out = capsys.readouterr()
        return stopped.value.code, out.out, out.err

    return run


#: How each command is run: always as ``python -m`` runs it without torch; where torch is installed
#: (the train extra), ``main()`` too (a list, not a skip: 126 skips said the same thing without torch).
RUNNERS = ["without torch"] + (["with torch"] if importlib.util.find_spec("torch") is not None else [])


@pytest.fixture(params=RUNNERS)
def run(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Run:
    if request.param == "with torch":
        return with_torch(monkeypatch, capsys)
    return without_torch(monkeypatch, capsys)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder the command runs in, with an existing file that is not a policy file."""
    (tmp_path / "notes.txt").write_text("a file someone keeps\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and folder under ``folder``."""
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def refused(result: tuple[Any, str, str], argument: str) -> None:
    """Exit code 2, nothing on stdout, one line on stderr naming ``argument``, no traceback."""
    code, out, err = result
    assert code == 2, (code, err)
    assert err.endswith("\n") and err.count("\n") == 1, err  # one line: no usage block before it
    assert f"argument {argument}" in err and "Traceback" not in err and "needs torch" not in err, err
    assert out == "", out


def missing_torch(module: str) -> str:
    return f'error: {module} needs torch, which is not installed: pip install "fourcards[train]"\n'


@pytest.mark.parametrize("module", MODULES)
def test_help_needs_no_torch_and_shows_every_default(run: Run, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # argparse wraps at the terminal's width, and within a name at a hyphen
    code, out, err = run(module, ["--help"])
    assert code == 0 and err == "", err
    options = NUMBERS[module] + ("--out",) + (("--curve",) if module == TRAIN else ("--lessons", "--save-lessons"))
    help_text = " ".join(out.split())
    assert help_text.count("(default: ") + help_text.count("; default: ") == len(options), out
    for shown in ((f"default: {'learned' if module == TRAIN else 'distilled'}_policy.npz",) +
                  (("default: 600)", "default: 30.0)", "default: 0.0003)", "default: rl-training-curve.png)")
                   if module == TRAIN else ("default: 400)", "default: 0.02)", "default: 8)", "default: 0.001)"))):
        assert shown in help_text, (shown, out)
    assert "(repeatable)" not in out  # distil's --iterations is a single value: the search is what repeats


@pytest.mark.parametrize(("module", "option", "value"), BAD_NUMBERS)
def test_a_bad_number_is_refused_in_one_line_naming_it(run: Run, folder: Path, module: str, option: str,
                                                       value: str) -> None:
    before = snapshot(folder)
    refused(run(module, [option, value]), option)
    assert snapshot(folder) == before


def _other_npz(folder: Path) -> list[str]:
    np.savez(folder / "data.npz", x=np.arange(3))
    return ["--out", "data.npz"]


def _proc(module: str) -> list[str]:
    if not Path("/proc").is_dir():
        pytest.skip("no /proc here: a folder that cannot be made")
    if module == TRAIN:  # --out's folder is fine (and not made), --curve's cannot be made
        return ["--out", "newdir1/o.npz", "--curve", "/proc/x/c.png"]
    return ["--out", "/proc/x/o.npz"]


OUTPUTS: list[tuple[str, Callable[[str, Path], list[str]], str, str]] = [
    ("an empty name", lambda module, folder: ["--out", ""], "--out", "needs a file name, not ''"),
    ("a folder's name", lambda module, folder: ["--out", "newdir1/"], "--out", "needs a file name"),
    ("a folder", lambda module, folder: ["--out", str(folder)], "--out", "that is a directory"),
    ("a /proc folder", lambda module, folder: _proc(module), "", "/proc"),
    ("a file that is not a policy file", lambda module, folder: ["--out", "notes.txt"], "--out",
     "not a policy file"),
    ("an .npz that is not a policy file", lambda module, folder: _other_npz(folder), "--out", "not a policy file"),
    ("a file below a file", lambda module, folder: ["--out", "notes.txt/o.npz"], "--out", "not a directory"),
]


@pytest.mark.parametrize("module", MODULES)
@pytest.mark.parametrize(("case", "args", "argument", "says"), OUTPUTS, ids=[case[0] for case in OUTPUTS])
def test_an_output_that_cannot_be_written_is_refused_having_made_nothing(
        run: Run, folder: Path, module: str, case: str, args: Callable[[str, Path], list[str]], argument: str,
        says: str) -> None:
    given = args(module, folder)
    argument = argument or ("--curve" if module == TRAIN else "--out")
    before = snapshot(folder)
    code, out, err = run(module, given)
    refused((code, out, err), argument)
    assert says in err, err
    assert snapshot(folder) == before  # no folder made (newdir1), nothing overwritten


def test_two_outputs_at_one_file_are_refused(run: Run, folder: Path) -> None:
    """The curve's CSV would be written over the policy file."""
    before = snapshot(folder)
    refused(run(TRAIN, ["--out", "c.csv", "--curve", "c.png"]), "--curve")
    assert snapshot(folder) == before


def test_lessons_that_are_not_lessons_are_refused_before_torch(run: Run, folder: Path) -> None:
    """``--lessons`` is checked by the files' headers (quick, whatever their size) with the other arguments:
    a policy file, another .npz, a text file, a missing one, one named twice."""
    shutil.copyfile(default_policy_path(), folder / "policy.npz")
    np.savez(folder / "data.npz", x=np.arange(3))
    before = snapshot(folder)
    for files, says in ((["policy.npz"], "is not 'fourcards-distil-lessons'"), (["data.npz"], "missing format"),
                        (["notes.txt"], "not an .npz file"), (["none.npz"], "no such file"),
                        (["data.npz", "./data.npz"], "named twice"), (["/dev/zero"], "not a regular file")):
        code, out, err = run(DISTIL, ["--lessons", *files, "--out", "new/p.npz"])
        refused((code, out, err), "--lessons")
        assert says in err, err
    assert snapshot(folder) == before


@pytest.mark.parametrize(("args", "argument"), [(["--depth", "1"], "--depth"),
                                                (["--matches", "100000", "--rounds", "1000"], "--matches"),
                                                (["--iterations", "5", "--time-per-move", "1"], "--time-per-move")])
def test_distil_refuses_options_that_do_not_go_together_in_one_line(run: Run, folder: Path, args: list[str],
                                                                    argument: str) -> None:
    code, out, err = run(DISTIL, args)
    assert code == 2 and err.count("\n") == 1 and argument in err and "Traceback" not in err, err


@pytest.mark.parametrize("module", MODULES)
def test_torch_is_asked_for_once_the_arguments_pass(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], folder: Path,
                                                     module: str) -> None:
    """Valid arguments (new folders, an existing policy file or an empty file to overwrite) without torch:
    the one line that names the extra, and nothing made; the same with one bad value: that value."""
    run = without_torch(monkeypatch, capsys)
    shutil.copyfile(default_policy_path(), folder / "old_policy.npz")
    (folder / "empty.npz").write_bytes(b"")
    before = snapshot(folder)
    for out in ("old_policy.npz", "empty.npz", "new/dir/policy.npz"):
        extra = ["--curve", "curves/c.png"] if module == TRAIN else ["--rounds", "2"]
        code, stdout, err = run(module, ["--out", out, "--seed", "0", *extra])
        assert (code, stdout, err) == (2, "", missing_torch(module))
        assert snapshot(folder) == before  # the policy file kept, no folder made
    refused(run(module, ["--out", "old_policy.npz", "--seed", "-1"]), "--seed")  # the value, not torch
