"""The timing benchmarks' commands (``python -m fourcards.benchmarks.<name>``, which
``fourcards bench`` runs): a bad value is refused in one line, exit code 2, before any work.

A first user's review: ``core --quick --seed -1`` printed a traceback (exit 1); ``fourcolor`` and
``costs`` printed their results and then a traceback (``--seed -1``, ``--deals -1``); ``zangle``
took ``--seed -1``; ``--rounds``, ``--inner`` and ``--envs`` had no upper bound (``2**70`` rounds
started work that would never end); every refusal printed the usage block before the error.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from collections.abc import Callable
from types import ModuleType

import pytest

#: Each command's numeric options (``--seed`` aside).
OPTIONS: dict[str, tuple[str, ...]] = {
    "core": ("--rounds",),
    "engine": ("--rounds", "--inner"),
    "saves": ("--rounds", "--inner"),
    "rl_steps": ("--rounds", "--envs"),
    "fourcolor": (),
    "costs": ("--deals",),
    "zangle": (),
}
#: What each one's --help says of its defaults.
DEFAULTS: dict[str, tuple[str, ...]] = {
    "core": ("(default: 2024)", "(default: 15, with --quick 7)"),
    "engine": ("(default: 2024)", "(default: 15, with --quick 7)", "(default: 3)"),
    "saves": ("(default: 2024)", "(default: 15, with --quick 5)", "(default: 3)"),
    "rl_steps": ("(default: 2024)", "(default: 9, with --quick 5)", "(default: 256)"),
    "fourcolor": ("(default: 2024)",),
    "costs": ("(default: 2024)", "(default: 4, with --quick 2)"),
    "zangle": ("(default: 2024)",),
}


def bad_values() -> list[object]:
    """(command, arguments, the option refused) for every command: ``--seed`` and each numeric
    option below its range and far above it."""
    cases = [("costs", "--deals", "x")]
    for name, options in OPTIONS.items():
        cases += [(name, "--seed", "-1"), (name, "--seed", str(2**64))]
        cases += [(name, option, value) for option in options for value in ("0", "-1", str(2**70))]
    return [pytest.param(name, ["--quick", option, value], option, id=f"{name} {option} {value}")
            for name, option, value in cases]


def refuse_work(module: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the benchmark fail at once (not run for ever) should it start timing anything."""

    def started(*args: object) -> int:
        raise AssertionError(f"{module.__name__} started its work")

    for name in ("perf_counter_ns", "thread_time_ns"):
        for timed in (module, importlib.import_module("fourcards.benchmarks.engine")):
            if hasattr(timed, name):
                monkeypatch.setattr(timed, name, started)


@pytest.mark.parametrize("name, argv, flag", bad_values())
def test_a_benchmark_command_refuses_a_bad_value_in_one_line_before_any_work(
        name: str, argv: list[str], flag: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module(f"fourcards.benchmarks.{name}")
    refuse_work(module, monkeypatch)
    main: Callable[[list[str]], int] = module.main
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr()
    assert stopped.value.code == 2 and err.out == "", err
    assert f"error: argument {flag}:" in err.err and "Traceback" not in err.err, err.err
    assert err.err.count("\n") == 1 and err.err.endswith("--help)\n"), err.err


@pytest.mark.parametrize("name", list(OPTIONS))
def test_a_benchmark_command_says_its_defaults_and_ranges(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    main: Callable[[list[str]], int] = importlib.import_module(f"fourcards.benchmarks.{name}").main
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    out = capsys.readouterr().out
    assert stopped.value.code == 0
    flat = " ".join(out.split())  # argparse wraps the help to the terminal's width
    for default in DEFAULTS[name]:
        assert default in flat, out
    assert "0 to 2**64 - 1" in flat, out
    for option in OPTIONS[name]:  # and each numeric option its range
        assert re.search(rf"{option} [A-Z]+ [^-]*, 1 to [0-9,]+ \(default", flat), out


@pytest.mark.parametrize("name", list(OPTIONS))
def test_a_benchmark_command_run_with_python_m_names_itself_so(name: str) -> None:
    """The usage line and the error name ``python -m fourcards.benchmarks.<name>``, not ``<name>.py``."""
    done = subprocess.run([sys.executable, "-m", f"fourcards.benchmarks.{name}", "--seed", "-1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "", done
    assert done.stderr.startswith(f"python -m fourcards.benchmarks.{name}: error: argument --seed: -1 "), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
