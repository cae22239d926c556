"""The release check: build what users install, check it, and test it as shipped.

    python tools/release_check.py                  # the whole chain (.ci/run runs this)
    python tools/release_check.py --sdist-only --out dist
    python tools/release_check.py --check-wheels wheelhouse/*.whl --sdist dist/fourcards-*.tar.gz

The whole chain, each step in a fresh place:

1. the sdist, built from the repository (``python -m build --sdist``); it must
   hold every file git tracks (but the repository's own CI configuration and
   dotfiles) and nothing compiled;
2. a wheel built *from the unpacked sdist* (``python -m build --wheel``, in the
   fresh build environment ``build`` makes), which proves the sdist complete;
3. both checked with ``twine check --strict`` and ``check-wheel-contents``, and
   the wheel against the sdist: a compiled module for every module
   ``fourcards._backend.EXTENSIONS`` names (each ``.pyx`` among them), every
   Python module and data file of the package, no Cython or C source, no
   debug info, and at most ``--max-wheel-mb`` (2.5) megabytes;
4. a fresh virtual environment with the wheel installed, not editable, with
   the extras that have tests (``--extras``, default ``test,rl,server``);
5. the installed package is the one imported, with its compiled core;
6. the whole test suite from the unpacked sdist's ``tests/``, run from another
   directory (nothing of the source tree importable) with
   ``FOURCARDS_REQUIRE_EXTENSIONS=1``: it must pass, and every skipped test
   must say why (the reasons are printed, counted by reason).

Nothing is derived from a hand-kept file list: what the sdist must hold comes
from ``git ls-files``, what the wheel must hold from the sdist.  The work
folder is removed at the end unless ``--keep`` (or a failure outside CI).
"""

from __future__ import annotations

import argparse
import ast
import collections
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "fourcards"
#: What the repository holds that the sdist does not: its own CI, git's files.
NOT_IN_SDIST = (".github/", ".ci/", ".gitignore", ".gitattributes")
#: Files of the package that stay in the sdist: sources the build compiles.
SOURCE_ONLY = (".pyx", ".pxd", ".pxi", ".h", ".c")
COMPILED = (".so", ".pyd", ".dll", ".dylib", ".o", ".obj", ".a", ".lib")
DEBUG_SECTIONS = (b".debug_info", b"__debug_info", b".debug_line", b"__debug_line")


class CheckFailed(Exception):
    """A check found a problem: the message says which and where."""


def say(text: str) -> None:
    print(text, flush=True)


def run(*command: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
        capture: bool = False) -> str:
    """Run a command, echoing it; raise CheckFailed when it fails."""
    say("$ " + " ".join(str(part) for part in command))
    result = subprocess.run([str(part) for part in command], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE if capture else None)
    if result.returncode != 0:
        raise CheckFailed(f"{Path(str(command[0])).name} {' '.join(str(p) for p in command[1:3])} ...: "
                          f"exit status {result.returncode}")
    return result.stdout if capture else ""


def venv_python(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


PYTHON = sys.executable  # the interpreter the environments are made from (--python)


def make_venv(folder: Path, *packages: str) -> Path:
    run(PYTHON, "-m", "venv", "--clear", folder)
    python = venv_python(folder)
    run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    if packages:
        run(python, "-m", "pip", "install", "--quiet", *packages)
    return python


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that could make the source tree importable."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "FOURCARDS_NO_EXTENSIONS")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


# --------------------------------------------------------------------------- sdist

def sdist_names(sdist: Path) -> list[str]:
    """The sdist's files, relative to its top folder."""
    with tarfile.open(sdist) as tar:
        return sorted(member.name.split("/", 1)[1] for member in tar.getmembers()
                      if member.isfile() and "/" in member.name)


def tracked_files() -> list[str] | None:
    """The files git tracks in the repository (None outside a git checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return sorted(name for name in out.decode().split("\0") if name)


def check_sdist(sdist: Path) -> list[str]:
    names = sdist_names(sdist)
    problems = []
    compiled = [name for name in names if name.endswith(COMPILED)]
    if compiled:
        problems.append(f"compiled files in the sdist: {compiled}")
    generated = [name for name in names if name.startswith(f"src/{PACKAGE}/") and name.endswith(".c")]
    if generated:
        problems.append(f"generated C in the sdist (cythonize writes it at build time): {generated}")
    tracked = tracked_files()
    if tracked is None:
        say("not a git checkout: the sdist is not compared with the tracked files")
    else:
        wanted = [name for name in tracked if not name.startswith(NOT_IN_SDIST) and (REPO / name).is_file()]
        missing = sorted(set(wanted) - set(names))
        if missing:
            problems.append(f"{len(missing)} tracked files missing from the sdist (MANIFEST.in): {missing[:20]}")
    if not any(name.startswith("tests/") and name.endswith(".py") for name in names):
        problems.append("no tests/ in the sdist")
    if problems:
        raise CheckFailed(f"{sdist.name}:\n  " + "\n  ".join(problems))
    say(f"{sdist.name}: {len(names)} files, every tracked file present, nothing compiled")
    return names


def build_sdist(tools: Path, out: Path) -> Path:
    run(tools, "-m", "build", "--sdist", "--outdir", out, REPO)
    (sdist,) = out.glob("*.tar.gz")
    return sdist


def unpack(sdist: Path, into: Path) -> Path:
    with tarfile.open(sdist) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python < 3.10.12: the sdist is our own
            tar.extractall(into)  # noqa: S202
    (top,) = [path for path in into.iterdir() if path.is_dir()]
    return top


# --------------------------------------------------------------------------- wheels

def extension_modules(names: list[str], read: Callable[[str], str]) -> list[str]:
    """The compiled modules the package declares (``_backend.EXTENSIONS``),
    checked against the ``.pyx`` files of the sdist."""
    tree = ast.parse(read(f"src/{PACKAGE}/_backend.py"))
    declared: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "EXTENSIONS" for t in node.targets):
            declared = list(ast.literal_eval(node.value))
    if not declared:
        raise CheckFailed("src/fourcards/_backend.py declares no EXTENSIONS")
    pyx = {name[len("src/"):-len(".pyx")].replace("/", ".") for name in names
           if name.startswith(f"src/{PACKAGE}/") and name.endswith(".pyx")}
    undeclared = sorted(pyx - set(declared))
    if undeclared:
        raise CheckFailed(f"modules with a .pyx that _backend.EXTENSIONS does not declare: {undeclared}")
    return declared


def check_wheel(wheel: Path, names: list[str], read: Callable[[str], str], max_mb: float) -> None:
    problems = []
    size_mb = wheel.stat().st_size / 1e6
    if size_mb > max_mb:
        problems.append(f"{size_mb:.2f} MB, more than {max_mb} MB")
    with zipfile.ZipFile(wheel) as archive:
        inside = archive.namelist()
        binaries = {name: archive.read(name) for name in inside if name.endswith((".so", ".pyd"))}
    in_wheel = set(inside)
    for module in extension_modules(names, read):
        path = module.replace(".", "/")
        if not any(re.fullmatch(rf"{re.escape(path)}\.[^/]*(\.so|\.pyd)", name) for name in inside):
            problems.append(f"no compiled {module}")
    for name in names:
        if not name.startswith(f"src/{PACKAGE}/"):
            continue
        target = name[len("src/"):]
        if name.endswith(SOURCE_ONLY):
            if target in in_wheel:
                problems.append(f"{target}: a build source in the wheel")
        elif target not in in_wheel:
            problems.append(f"{target}: in the sdist's package, missing from the wheel")
    for name, data in binaries.items():
        found = [section.decode() for section in DEBUG_SECTIONS if section in data]
        if found:
            problems.append(f"{name}: debug info ({', '.join(found)}), {len(data):,} bytes")
    stray = sorted({name.split("/", 1)[0] for name in inside} - {PACKAGE}
                   - {name.split("/", 1)[0] for name in inside if name.split("/", 1)[0].endswith(".dist-info")})
    if stray:
        problems.append(f"unexpected top-level entries: {stray}")
    if problems:
        raise CheckFailed(f"{wheel.name}:\n  " + "\n  ".join(problems))
    biggest = max(binaries.items(), key=lambda item: len(item[1]))
    say(f"{wheel.name}: {size_mb:.2f} MB (limit {max_mb}), {len(binaries)} compiled modules without debug info "
        f"(largest {PurePosixPath(biggest[0]).name}, {len(biggest[1]):,} bytes), no build sources")


def sdist_reader(sdist: Path) -> Callable[[str], str]:
    top: str | None = None

    def read(name: str) -> str:
        nonlocal top
        with tarfile.open(sdist) as tar:
            if top is None:
                top = tar.getmembers()[0].name.split("/", 1)[0]
            member = tar.extractfile(f"{top}/{name}")
            if member is None:
                raise CheckFailed(f"{sdist.name}: no {name}")
            return member.read().decode()

    return read


def twine_checks(tools: Path, artifacts: list[Path]) -> None:
    run(tools, "-m", "twine", "check", "--strict", *artifacts)
    wheels = [path for path in artifacts if path.suffix == ".whl"]
    if wheels:
        # W002 (duplicate files): the empty __init__.py of every subpackage.
        run(tools, "-m", "check_wheel_contents", "--ignore", "W002", *wheels)


# --------------------------------------------------------------------------- tests

def check_imported(python: Path, env_dir: Path, cwd: Path) -> None:
    code = (
        "import importlib, os, sys\n"
        "import fourcards\n"
        "from fourcards._backend import EXTENSIONS\n"
        "env = os.path.realpath(sys.argv[1])\n"
        "for module in (fourcards, *map(importlib.import_module, EXTENSIONS)):\n"
        "    where = os.path.realpath(module.__file__)\n"
        "    if not where.startswith(env + os.sep):\n"
        "        sys.exit(f'{module.__name__} imported from {where}, not from {env}')\n"
        "if not fourcards.COMPILED:\n"
        "    sys.exit('fourcards.COMPILED is False')\n"
        "print(f'fourcards {fourcards.__version__} from {os.path.dirname(fourcards.__file__)}, compiled core')\n"
    )
    run(python, "-c", code, env_dir, cwd=cwd, env=clean_env(FOURCARDS_REQUIRE_EXTENSIONS="1"))


def run_suite(python: Path, tests: Path, cwd: Path, report: Path, pytest_args: list[str]) -> None:
    env = clean_env(FOURCARDS_REQUIRE_EXTENSIONS="1", HYPOTHESIS_PROFILE="ci")
    try:
        run(python, "-m", "pytest", tests, "-q", "-rs", "-p", "no:cacheprovider", f"--junitxml={report}",
            *pytest_args, cwd=cwd, env=env)
    finally:
        if report.exists():
            summarize(report)


def summarize(report: Path) -> None:
    """Count the tests and the skips by reason; a skip without a reason fails."""
    root = ET.parse(report).getroot()
    cases = list(root.iter("testcase"))
    reasons: collections.Counter[str] = collections.Counter()
    unexplained = []
    for case in cases:
        skipped = case.find("skipped")
        if skipped is None:
            continue
        reason = (skipped.get("message") or "").strip()
        text = (skipped.text or "").strip().splitlines()
        if reason == "collection skipped" and text:  # a module skipped whole: its reason is in the text
            found = re.search(r"Skipped: (.*?)['\"]\)?$", text[-1])
            reason = found.group(1) if found else text[-1]
        if not reason or reason.lower() in ("skipped", "unconditional skip"):
            unexplained.append(f"{case.get('classname')}.{case.get('name')}")
        reasons[reason or "(no reason)"] += 1
    failed = sum(1 for case in cases if case.find("failure") is not None or case.find("error") is not None)
    say(f"suite: {len(cases)} tests, {failed} failed, {sum(reasons.values())} skipped")
    for reason, count in reasons.most_common():
        say(f"  skipped {count:4d}: {reason}")
    if unexplained:
        raise CheckFailed(f"{len(unexplained)} tests skipped without a reason: {unexplained[:10]}")


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=sys.executable, help="the interpreter to build and test with")
    parser.add_argument("--extras", default="test,rl,server", help="extras installed with the wheel for the tests")
    parser.add_argument("--max-wheel-mb", type=float, default=2.5)
    parser.add_argument("--out", type=Path, help="copy the sdist and wheel here")
    parser.add_argument("--work", type=Path, help="work folder (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--sdist-only", action="store_true", help="build and check the sdist, then stop")
    parser.add_argument("--check-wheels", nargs="+", type=Path, metavar="WHEEL",
                        help="check wheels built elsewhere (cibuildwheel) against --sdist; build nothing")
    parser.add_argument("--sdist", type=Path, help="with --check-wheels: the sdist they were built from")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    global PYTHON
    PYTHON = args.python

    work = args.work or Path(tempfile.mkdtemp(prefix="fourcards-release-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    steps: list[str] = []
    ok = False
    try:
        def step(name: str) -> None:
            steps.append(f"{name} ({time.monotonic() - started:.0f} s)")
            say(f"\n==> {name}")

        step("tools: build, twine, check-wheel-contents")
        tools = make_venv(work / "tools", "build>=1.2", "twine>=6.1", "check-wheel-contents>=0.6")

        if args.check_wheels:
            if args.sdist is None:
                parser.error("--check-wheels needs --sdist")
            names = check_sdist(args.sdist) if tracked_files() is not None else sdist_names(args.sdist)
            read = sdist_reader(args.sdist)
            for wheel in args.check_wheels:
                check_wheel(wheel, names, read, args.max_wheel_mb)
            twine_checks(tools, [args.sdist, *args.check_wheels])
            ok = True
            return 0

        step("sdist from the repository")
        sdist = build_sdist(tools, work / "dist")
        names = check_sdist(sdist)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            shutil.copy2(sdist, args.out)
        if args.sdist_only:
            twine_checks(tools, [sdist])
            ok = True
            return 0

        step("wheel from the unpacked sdist (a fresh build environment)")
        source = unpack(sdist, work / "unpacked")
        run(tools, "-m", "build", "--wheel", "--outdir", work / "wheelhouse", source)
        (wheel,) = (work / "wheelhouse").glob("*.whl")
        if args.out:
            shutil.copy2(wheel, args.out)

        step("twine check --strict, check-wheel-contents, the wheel against the sdist")
        twine_checks(tools, [sdist, wheel])
        check_wheel(wheel, names, sdist_reader(sdist), args.max_wheel_mb)

        step(f"a fresh environment with the wheel[{args.extras}], not editable")
        python = make_venv(work / "test-env")
        run(python, "-m", "pip", "install", "--quiet", f"{wheel}[{args.extras}]" if args.extras else wheel)

        run_dir = work / "run"
        run_dir.mkdir()
        step("the installed wheel is the one imported, compiled")
        check_imported(python, work / "test-env", run_dir)

        step("the suite from the unpacked sdist's tests/, run from elsewhere, compiled core required")
        run_suite(python, source / "tests", run_dir, work / "junit.xml", args.pytest_args)
        ok = True
        return 0
    except CheckFailed as problem:
        say(f"\nrelease check FAILED: {problem}")
        return 1
    finally:
        say("\n==================== release check ====================")
        for line in steps:
            say(f"  {line}")
        say(f"RESULT: {'PASS' if ok else 'FAIL'} in {time.monotonic() - started:.0f} s")
        keep = args.keep or (not ok and not os.environ.get("CI"))
        if keep:
            say(f"work folder kept: {work}")
        elif args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
