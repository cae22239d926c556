"""The backend switch: compiled core or pure-Python twin, as asked."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

import pytest

import fourcards

CODE = "import fourcards; print(fourcards.COMPILED)"


def run(env: dict[str, str]) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_")}
    full.update(env)
    return subprocess.run([sys.executable, "-c", CODE], env=full, capture_output=True, text=True, check=True).stdout.strip()


def test_no_extensions_selects_the_twin() -> None:
    assert run({"FOURCARDS_NO_EXTENSIONS": "1"}) == "False"


def test_mode_follows_the_environment() -> None:
    expected = os.environ.get("FOURCARDS_NO_EXTENSIONS", "") in ("", "0")
    if expected:
        try:
            importlib.import_module("fourcards._core")
        except ImportError:
            expected = False
    assert fourcards.COMPILED is expected
    if os.environ.get("FOURCARDS_REQUIRE_EXTENSIONS"):
        assert fourcards.COMPILED or os.environ.get("FOURCARDS_NO_EXTENSIONS")


def test_compiled_core_is_used_when_built() -> None:
    try:
        importlib.import_module("fourcards._core")
    except ImportError:
        pytest.skip("compiled core not built")
    assert run({}) == "True"
    assert run({"FOURCARDS_REQUIRE_EXTENSIONS": "1"}) == "True"
