"""The backend switch: compiled core or pure-Python twin, as asked."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest

import fourcards
from fourcards._backend import EXTENSIONS, load

CODE = "import fourcards; print(fourcards.COMPILED)"


def run(env: dict[str, str]) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_")}
    full.update(env)
    result = subprocess.run([sys.executable, "-c", CODE], env=full, capture_output=True, text=True, check=True)
    return result.stdout.strip()


def test_no_extensions_selects_the_twin() -> None:
    assert run({"FOURCARDS_NO_EXTENSIONS": "1"}) == "False"


def test_mode_follows_the_environment() -> None:
    expected = os.environ.get("FOURCARDS_NO_EXTENSIONS", "") in ("", "0")
    if expected:
        try:
            for name in EXTENSIONS:
                importlib.import_module(name)
        except ImportError:
            expected = False
    assert fourcards.COMPILED is expected
    if os.environ.get("FOURCARDS_REQUIRE_EXTENSIONS"):
        assert fourcards.COMPILED or os.environ.get("FOURCARDS_NO_EXTENSIONS")


def test_compiled_core_is_used_when_built() -> None:
    try:
        for name in EXTENSIONS:
            importlib.import_module(name)
    except ImportError:
        pytest.skip("compiled core not built")
    assert run({}) == "True"
    assert run({"FOURCARDS_REQUIRE_EXTENSIONS": "1"}) == "True"


@pytest.mark.parametrize("game", ["gangoffour", "fourcolor", "zangle"])
def test_each_game_uses_its_own_kernels(game: str) -> None:
    """Each game loads the extension in its own folder, or its twin when told to."""
    code = f"import fourcards.{game}._kernels as k; print(k.core.__name__ if k.core else None)"
    full = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_")}
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True).stdout
    try:
        importlib.import_module(f"fourcards.{game}._core")
        built = True
    except ImportError:
        built = False
    assert out.strip() == (f"fourcards.{game}._core" if built else "None")
    full["FOURCARDS_NO_EXTENSIONS"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "None"


def test_load_refuses_unknown_modules() -> None:
    with pytest.raises(ValueError, match="not one of"):
        load("fourcards.nothing._core")
