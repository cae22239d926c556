"""A part used without its extra says which extra to install: a
``MissingExtraError`` (an ``ImportError`` and a ``FourCardsError``), not a bare
``ModuleNotFoundError``.  Each case runs in a fresh interpreter where the
extra's packages cannot be imported."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from fourcards.errors import FourCardsError, MissingExtraError

# A finder that refuses the named top-level packages, as if they were not installed.
BLOCK = textwrap.dedent("""
    import importlib.abc, sys
    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None
    sys.meta_path.insert(0, Missing())
""")


def attempt(blocked: tuple[str, ...], code: str) -> str:
    script = f"BLOCKED = {blocked!r}\n{BLOCK}\n" + textwrap.dedent(f"""
        from fourcards.errors import MissingExtraError
        try:
            {code}
        except MissingExtraError as error:
            assert isinstance(error, ImportError) and isinstance(error, ValueError)
            print("MISSING", error.extra, error.name, "|", error)
        else:
            print("NO ERROR")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(("blocked", "code", "extra", "module", "needs"), [
    (("gymnasium",), "import fourcards.rl.gymnasium", "rl", "gymnasium", ()),
    (("pettingzoo",), "import fourcards.rl; fourcards.rl.env('gang-of-four')", "rl", "pettingzoo", ("gymnasium",)),
    (("gymnasium",), "import fourcards.rl.gymnasium_vector", "rl", "gymnasium", ()),
    (("torch",), "import fourcards.rl.sb3", "train", "torch", ("gymnasium",)),
    (("starlette",), "import fourcards.server; fourcards.server.create_app(db=':memory:')", "server",
     "starlette", ()),
])
def test_a_missing_extra_is_named(blocked: tuple[str, ...], code: str, extra: str, module: str,
                                  needs: tuple[str, ...]) -> None:
    """Only ``blocked`` is missing: what the code needs before it (``needs``) is installed."""
    for package in needs:
        pytest.importorskip(package, reason=f"{package} is imported before {module}: its extra is not installed")
    out = attempt(blocked, code)
    assert out.startswith(f"MISSING {extra} {module} |"), out
    assert f'pip install "fourcards[{extra}]"' in out


def test_importing_the_rl_package_needs_no_framework() -> None:
    assert attempt(("gymnasium", "pettingzoo", "pyspiel", "torch"), "import fourcards.rl") == "NO ERROR"


def test_the_error_is_in_the_family() -> None:
    error = MissingExtraError.of("psycopg", "postgres", "fourcards.server.pgstore")
    assert isinstance(error, ModuleNotFoundError) and isinstance(error, FourCardsError)
    assert str(error) == ('fourcards.server.pgstore needs psycopg, which is not installed: '
                          'pip install "fourcards[postgres]"')


@pytest.mark.parametrize("module", ["fourcards.rl.distil", "fourcards.rl.train"])
def test_a_command_without_its_extra_says_so_in_one_line(module: str) -> None:
    """A helper's first use: ``python -m fourcards.rl.distil --help`` without torch printed a
    traceback; run without torch it says which extra to install in one line and exits 2, as a bad
    value does (``--help`` answers without it: tests/test_rl_commands.py)."""
    script = f"BLOCKED = ('torch',)\n{BLOCK}\nimport runpy, sys, os, tempfile\nos.chdir(tempfile.mkdtemp())\n" \
             f"sys.argv = ['{module}']\n" \
             f"runpy.run_module('{module}', run_name='__main__', alter_sys=True)\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == f'error: {module} needs torch, which is not installed: pip install "fourcards[train]"\n'
    # imported, it is still the error a program catches
    out = attempt(("torch",), f"import {module}")
    assert out.startswith(f"MISSING train torch | {module} needs torch"), out
