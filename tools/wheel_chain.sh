#!/usr/bin/env bash
# Prove the release chain locally: repo -> sdist -> wheel built FROM the sdist
# -> fresh venv -> the test suite passes against the installed wheel.
#
#   tools/wheel_chain.sh [PYTHON]        # PYTHON defaults to python3
#
# Everything happens in a temporary directory, removed at the end; after a
# failure it is kept to look at, except under CI (FOURCARDS_KEEP_WORK=1 or 0
# always keeps or always removes it).  The tests are copied out of the
# repository and run from a directory where the repository's src/ is not
# importable, with FOURCARDS_REQUIRE_EXTENSIONS=1, so a wheel whose compiled
# core is missing or broken cannot pass.  Exits non-zero on the first failure
# and prints a summary either way.
set -euo pipefail

PYTHON_ARG=${1:-python3}
if ! PYTHON=$(command -v "$PYTHON_ARG"); then
    echo "wheel_chain: no python interpreter '$PYTHON_ARG'" >&2
    exit 2
fi
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fourcards-wheel-chain.XXXXXX")

# The repository must not leak into any step through the environment.
unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV || true
export PIP_DISABLE_PIP_VERSION_CHECK=1

STEP="start"
SUMMARY=()
START_ALL=$SECONDS
STEP_START=$SECONDS

step() {
    STEP=$1
    STEP_START=$SECONDS
    echo
    echo "==> $STEP"
}

done_step() {
    SUMMARY+=("  ok    $STEP ($((SECONDS - STEP_START)) s)${1:+: $1}")
}

fail() {
    echo "wheel_chain: $*" >&2
    exit 1
}

finish() {
    local status=$?
    echo
    echo "==================== wheel chain summary ===================="
    echo "python: $PYTHON ($("$PYTHON" -c 'import sys; print(sys.version.split()[0])' 2>/dev/null || echo '?'))"
    local line
    for line in "${SUMMARY[@]+"${SUMMARY[@]}"}"; do
        echo "$line"
    done
    if [ "$status" -eq 0 ]; then
        echo "RESULT: PASS in $((SECONDS - START_ALL)) s"
    else
        echo "  FAIL  $STEP"
        echo "RESULT: FAIL (exit $status) in $((SECONDS - START_ALL)) s"
    fi
    # Kept when asked, and after a failure outside CI (to look at).
    local keep=${FOURCARDS_KEEP_WORK:-}
    if [ -z "$keep" ]; then
        if [ "$status" -ne 0 ] && [ -z "${CI:-}" ]; then keep=1; else keep=0; fi
    fi
    if [ "$keep" = 1 ]; then
        echo "work dir kept: $WORK"
    else
        rm -rf "$WORK"
    fi
    exit "$status"
}
trap finish EXIT

# A venv's scripts live in bin/ (POSIX) or Scripts/ (Windows, Git Bash).
venv_python() {
    if [ -x "$1/bin/python" ]; then echo "$1/bin/python"; else echo "$1/Scripts/python.exe"; fi
}

# ---------------------------------------------------------------------------
step "build tools venv"
"$PYTHON" -m venv "$WORK/tools-env"
TOOLS_PY=$(venv_python "$WORK/tools-env")
"$TOOLS_PY" -m pip install --quiet --upgrade pip build
done_step "$("$TOOLS_PY" -m build --version | cut -d " " -f 1-2)"

# ---------------------------------------------------------------------------
step "sdist from the repository"
"$TOOLS_PY" -m build --sdist --outdir "$WORK/dist" "$REPO"
shopt -s nullglob
sdists=("$WORK"/dist/*.tar.gz)
shopt -u nullglob
[ "${#sdists[@]}" -eq 1 ] || fail "expected one sdist in $WORK/dist, found ${#sdists[@]}"
SDIST=${sdists[0]}
done_step "$(basename "$SDIST")"

# ---------------------------------------------------------------------------
step "sdist contents"
"$TOOLS_PY" - "$SDIST" <<'PY'
import sys
import tarfile

with tarfile.open(sys.argv[1]) as tar:
    names = [m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name and m.isfile()]

required = {
    "pyproject.toml": "pyproject.toml",
    "setup.py": "setup.py",
    "LICENSE": "LICENSE",
    "README.md": "README.md",
    "src/fourcards/_native.pyx": "the shared compiled module's source",
    "src/fourcards/_common.pxd": "the kernels' shared inline helpers",
    "src/fourcards/gangoffour/_gof.pxd": "the Gang of Four modules' shared C declarations",
    "src/fourcards/fourcolor/_fc.pxd": "the Four Color modules' shared C declarations",
    "src/fourcards/gangoffour/_combos.pyx": "the Gang of Four _combos module's source",
    "src/fourcards/gangoffour/_combos.pxd": "the Gang of Four _combos module's C declarations",
    "src/fourcards/gangoffour/_parse.pyx": "the Gang of Four _parse module's source",
    "src/fourcards/gangoffour/_parse.pxd": "the Gang of Four _parse module's C declarations",
    "src/fourcards/gangoffour/_sim.pyx": "the Gang of Four _sim module's source",
    "src/fourcards/gangoffour/_sim.pxd": "the Gang of Four _sim module's C declarations",
    "src/fourcards/gangoffour/_bots.pyx": "the Gang of Four _bots module's source",
    "src/fourcards/gangoffour/_bots.pxd": "the Gang of Four _bots module's C declarations",
    "src/fourcards/gangoffour/_search.pyx": "the Gang of Four _search module's source",
    "src/fourcards/gangoffour/_search.pxd": "the Gang of Four _search module's C declarations",
    "src/fourcards/gangoffour/_playouts.pyx": "the Gang of Four _playouts module's source",
    "src/fourcards/gangoffour/_playouts.pxd": "the Gang of Four _playouts module's C declarations",
    "src/fourcards/gangoffour/_vector.pyx": "the Gang of Four _vector module's source",
    "src/fourcards/fourcolor/_melds.pyx": "the Four Color _melds module's source",
    "src/fourcards/fourcolor/_melds.pxd": "the Four Color _melds module's C declarations",
    "src/fourcards/fourcolor/_parse.pyx": "the Four Color _parse module's source",
    "src/fourcards/fourcolor/_parse.pxd": "the Four Color _parse module's C declarations",
    "src/fourcards/fourcolor/_bots.pyx": "the Four Color _bots module's source",
    "src/fourcards/fourcolor/_bots.pxd": "the Four Color _bots module's C declarations",
    "src/fourcards/fourcolor/_sim.pyx": "the Four Color _sim module's source",
    "src/fourcards/fourcolor/_sim.pxd": "the Four Color _sim module's C declarations",
    "src/fourcards/zangle/_core.pyx": "the Zangle kernel's source",
    "src/fourcards/_bits.h": "the C header the kernels include",
    "src/fourcards/gangoffour/combos.bin": "the combination table",
}
problems = [f"missing {path} ({why})" for path, why in required.items() if path not in names]
tests = [n for n in names if n.startswith("tests/") and n.endswith(".py")]
if not tests:
    problems.append("missing tests/ (no tests/*.py in the sdist)")
compiled = [n for n in names if n.endswith((".so", ".pyd", ".dll", ".dylib", ".o", ".obj"))]
if compiled:
    problems.append(f"compiled files in the sdist: {compiled}")
if problems:
    sys.exit("sdist check failed:\n  " + "\n  ".join(problems))
print(f"{len(names)} files, {len(tests)} test modules; required files present")
PY
done_step

# ---------------------------------------------------------------------------
step "wheel from the sdist"
mkdir -p "$WORK/unpacked"
"$TOOLS_PY" -c 'import sys, tarfile; t = tarfile.open(sys.argv[1]); (t.extractall(sys.argv[2], filter="data") if hasattr(tarfile, "data_filter") else t.extractall(sys.argv[2]))' "$SDIST" "$WORK/unpacked"
shopt -s nullglob
unpacked=("$WORK"/unpacked/*/)
shopt -u nullglob
[ "${#unpacked[@]}" -eq 1 ] || fail "the sdist should unpack to one directory, got ${#unpacked[@]}"
"$TOOLS_PY" -m build --wheel --outdir "$WORK/wheelhouse" "${unpacked[0]}"
shopt -s nullglob
wheels=("$WORK"/wheelhouse/*.whl)
shopt -u nullglob
[ "${#wheels[@]}" -eq 1 ] || fail "expected one wheel in $WORK/wheelhouse, found ${#wheels[@]}"
WHEEL=${wheels[0]}
done_step "$(basename "$WHEEL")"

# ---------------------------------------------------------------------------
step "wheel contents"
"$TOOLS_PY" - "$WHEEL" <<'PY'
import re
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as whl:
    names = whl.namelist()

problems = []
for module in ("_native", "gangoffour/_combos", "gangoffour/_parse", "gangoffour/_sim", "gangoffour/_bots",
               "gangoffour/_search", "gangoffour/_playouts", "gangoffour/_vector", "fourcolor/_melds",
               "fourcolor/_parse", "fourcolor/_bots", "fourcolor/_sim", "zangle/_core"):
    if not any(re.fullmatch(rf"fourcards/{module}\.[^/]*(\.so|\.pyd)", n) for n in names):
        problems.append(f"missing the compiled extension fourcards/{module}.*.so|.pyd")
for path in ("fourcards/py.typed", "fourcards/gangoffour/combos.bin"):
    if path not in names:
        problems.append(f"missing {path}")
if not any(n.startswith("fourcards/") and n.endswith(".pyi") for n in names):
    problems.append("missing type stubs (fourcards/*.pyi)")
top = sorted({n.split("/", 1)[0] for n in names})
stray = [t for t in top if t != "fourcards" and not t.endswith(".dist-info")]
if stray:
    problems.append(f"unexpected top-level entries in the wheel: {stray}")
if problems:
    sys.exit("wheel check failed:\n  " + "\n  ".join(problems))
print(f"{len(names)} files; extension, py.typed, .pyi and combos.bin present")
PY
done_step

# ---------------------------------------------------------------------------
step "fresh venv with the wheel and the test tools"
"$PYTHON" -m venv "$WORK/test-env"
TEST_PY=$(venv_python "$WORK/test-env")
"$TEST_PY" -m pip install --quiet --upgrade pip
"$TEST_PY" -m pip install --quiet "$WHEEL" pytest hypothesis
done_step

# ---------------------------------------------------------------------------
step "copy the tests (not the source)"
RUN="$WORK/run"
mkdir -p "$RUN"
cp -R "$REPO/tests" "$RUN/tests"
# The documentation's examples are tested too; the pytest settings come along.
if [ -d "$REPO/docs" ]; then cp -R "$REPO/docs" "$RUN/docs"; fi
cp "$REPO/pyproject.toml" "$RUN/pyproject.toml"
find "$RUN" -name __pycache__ -type d -prune -exec rm -rf {} +
[ ! -e "$RUN/fourcards" ] && [ ! -e "$RUN/src" ] || fail "package source found in $RUN"
done_step "$(find "$RUN/tests" -name 'test_*.py' | wc -l | tr -d ' ') test modules"

# ---------------------------------------------------------------------------
step "the installed wheel is the one imported"
(
    cd "$RUN"
    FOURCARDS_REQUIRE_EXTENSIONS=1 "$TEST_PY" - "$WORK/test-env" <<'PY'
import os
import sys

import importlib

import fourcards
from fourcards._backend import EXTENSIONS

env = os.path.realpath(sys.argv[1])
for module in (fourcards, *map(importlib.import_module, EXTENSIONS)):
    where = os.path.realpath(module.__file__)
    if not where.startswith(env + os.sep):
        sys.exit(f"{module.__name__} imported from {where}, not from the test venv {env}")
if not fourcards.COMPILED:
    sys.exit("fourcards.COMPILED is False with FOURCARDS_REQUIRE_EXTENSIONS=1")
print(f"fourcards {fourcards.__version__} from {os.path.dirname(fourcards.__file__)}, compiled core")
PY
    # The pure-Python twin ships in the wheel too and must load on its own.
    FOURCARDS_NO_EXTENSIONS=1 "$TEST_PY" -c '
import fourcards
from fourcards.gangoffour import NUM_ACTIONS, action_to_combo
assert not fourcards.COMPILED
assert str(action_to_combo(NUM_ACTIONS - 1)) == "M1 R1 R1 Y1 Y1 G1 G1"
print("pure-Python twin loads")'
)
done_step

# ---------------------------------------------------------------------------
step "pytest against the installed wheel"
(
    cd "$RUN"
    FOURCARDS_REQUIRE_EXTENSIONS=1 HYPOTHESIS_PROFILE=ci \
        "$TEST_PY" -m pytest tests -q -p no:cacheprovider
)
done_step

echo
echo "wheel chain: $(basename "$SDIST") -> $(basename "$WHEEL") -> tests pass"
