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


#: Each game's compiled modules, one per concern, as its ``_kernels`` names them.
GAME_MODULES = {
    "gangoffour": {"combos": "_combos", "parse": "_parse", "sim": "_sim", "bots": "_bots", "search": "_search",
                   "playouts": "_playouts"},
    "fourcolor": {"melds": "_melds", "parse": "_parse", "bots": "_bots", "sim": "_sim"},
}


@pytest.mark.parametrize("game", ["gangoffour", "fourcolor", "zangle"])
def test_each_game_uses_its_own_kernels(game: str) -> None:
    """Each game loads the extensions in its own folder, or its twin when told to."""
    if game == "zangle":
        code = "import fourcards.zangle._kernels as k; print(k.core.__name__ if k.core else None)"
        names = ["_core"]
    else:
        code = (f"import fourcards.{game}._kernels as k; "
                f"print(*[m.__name__ if m else None for m in (k.{', k.'.join(GAME_MODULES[game])},)])")
        names = list(GAME_MODULES[game].values())
    full = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_")}
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True).stdout
    try:
        for name in names:
            importlib.import_module(f"fourcards.{game}.{name}")
        built = True
    except ImportError:
        built = False
    assert out.split() == ([f"fourcards.{game}.{name}" for name in names] if built else ["None"] * len(names))
    full["FOURCARDS_NO_EXTENSIONS"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["None"] * len(names)


def test_every_compiled_module_is_listed() -> None:
    """Each game's switch loads exactly the compiled modules ``_backend`` knows for it."""
    for game, modules in GAME_MODULES.items():
        kernels = importlib.import_module(f"fourcards.{game}._kernels")
        assert tuple(modules.values()) == kernels.MODULES
        for name in modules.values():
            assert f"fourcards.{game}.{name}" in EXTENSIONS


def test_load_refuses_unknown_modules() -> None:
    with pytest.raises(ValueError, match="not one of"):
        load("fourcards.nothing._core")
