"""Run the doctests of every module and of the documentation pages."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import fourcards
from fourcards._backend import load

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MODULES = sorted(
    info.name for info in pkgutil.walk_packages(fourcards.__path__, "fourcards.")
    if not info.name.endswith("__main__")
)
DOCS = sorted((Path(__file__).resolve().parent.parent / "docs").rglob("*.md"))
README = Path(__file__).resolve().parent.parent / "README.md"


# Modules whose examples play whole matches: engine tests (slow on the twin).
ENGINE = {"fourcards.gangoffour.match", "fourcards.gangoffour.bots", "fourcards.gangoffour.simulate",
          "fourcards.gangoffour.playthrough", "fourcards.engine", "fourcards.tournament"}

# Modules that need an optional extra's packages (skipped when they are missing).
OPTIONAL = {"fourcards.rl.pettingzoo": ("pettingzoo", "gymnasium"), "fourcards.rl.gymnasium": ("gymnasium",),
            "fourcards.rl.gymnasium_vector": ("gymnasium",), "fourcards.rl.openspiel": ("pyspiel",),
            "fourcards.server.app": ("starlette",), "fourcards.server.http_server": ("h11", "uvicorn"),
            "fourcards.rl.openspiel_games": ("pyspiel",),
            "fourcards.rl.sb3": ("torch", "sb3_contrib", "gymnasium"), "fourcards.rl.train": ("torch",),
            "fourcards.rl.distil": ("torch",)}


# Modules that need the compiled kernels (skipped with the pure-Python twins).
COMPILED_ONLY = {"fourcards.rl.vector", "fourcards.rl.gymnasium_vector", "fourcards.gangoffour._vector",
                 "fourcards.fourcolor.search"}


def _available(name: str) -> bool:
    if name in COMPILED_ONLY and load("fourcards.gangoffour._vector") is None:
        return False
    return all(importlib.util.find_spec(package) is not None for package in OPTIONAL.get(name, ()))


@pytest.mark.parametrize(
    "name", [pytest.param(m, marks=pytest.mark.engine) if m in ENGINE else m for m in MODULES]
)
def test_module_doctests(name: str) -> None:
    for package in OPTIONAL.get(name, ()):
        pytest.importorskip(package)
    if not _available(name):
        pytest.skip("needs the compiled kernels")
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.failed == 0


ENGINE_PAGES = {"engine.md", "bots.md", "README.md"}


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.engine) if p.name in ENGINE_PAGES else p
     for p in DOCS + ([README] if README.exists() else [])],
    ids=lambda p: p.name,
)
def test_documentation_examples(path: Path) -> None:
    result = doctest.testfile(str(path), module_relative=False, optionflags=FLAGS)
    assert result.failed == 0


def test_there_are_doctests_to_run() -> None:
    finder = doctest.DocTestFinder()
    total = sum(
        len(test.examples)
        for name in MODULES if _available(name)
        for test in finder.find(importlib.import_module(name))
    )
    assert total >= 20
