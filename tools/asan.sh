#!/usr/bin/env bash
# Build the compiled core with AddressSanitizer and UndefinedBehaviorSanitizer
# and run the whole test suite (with the crash regressions of
# tests/test_hostile*.py) under them.  Fails on any sanitizer report.
#
#   tools/asan.sh [PYTHON] [-- PYTEST ARGS]     # PYTHON defaults to python3
#
# The build happens in a copy of the repository (git ls-files) with its own
# virtual environment, so the normal build is never touched.  CPython itself is
# not instrumented: libasan is preloaded and leak detection is off (CPython
# keeps memory on purpose until exit).  Every report is written to a log file
# (subprocesses included); the script fails when any log exists.
set -euo pipefail

PYTHON=${1:-python3}
shift || true
[[ "${1:-}" == "--" ]] && shift
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fourcards-asan.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unset PYTHONPATH FOURCARDS_NO_EXTENSIONS || true
export PIP_DISABLE_PIP_VERSION_CHECK=1

LIBASAN=$(gcc -print-file-name=libasan.so)
if [[ ! -e "$LIBASAN" ]]; then
    echo "asan: gcc has no libasan (install gcc / libasan8)" >&2
    exit 2
fi

echo "==> copy of the repository in $WORK/src"
mkdir -p "$WORK/src"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard) \
    | (cd "$REPO" && xargs -0 cp --parents -t "$WORK/src" 2>/dev/null || true)
# generated C from an earlier build must not be reused
find "$WORK/src/src" \( -name '*.c' -o -name '*.so' \) -delete

echo "==> sanitized build"
"$PYTHON" -m venv "$WORK/venv"
# shellcheck disable=SC1091
source "$WORK/venv/bin/activate"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "setuptools>=77" "Cython>=3.1" "numpy>=2" wheel
# setup.py compiles with -O1 -g -fsanitize=address,undefined when FOURCARDS_SANITIZE=1
(cd "$WORK/src" && FOURCARDS_SANITIZE=1 python -m pip install --quiet --no-build-isolation -e ".[test]")
for module in _cyutility _native \
        gangoffour/_combos gangoffour/_parse gangoffour/_sim gangoffour/_bots gangoffour/_search \
        gangoffour/_playouts gangoffour/_vector \
        fourcolor/_melds fourcolor/_parse fourcolor/_bots fourcolor/_sim \
        zangle/_core; do
    so=$(ls "$WORK/src/src/fourcards/$module".*.so)
    deps=$(ldd "$so")
    if [[ "$deps" != *libasan* ]]; then
        echo "asan: $so is not instrumented" >&2
        exit 1
    fi
done

echo "==> the test suite under the sanitizers"
LOGS="$WORK/logs"
mkdir -p "$LOGS"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$LOGS/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$LOGS/ubsan"
export FOURCARDS_REQUIRE_EXTENSIONS=1
export HYPOTHESIS_PROFILE=${HYPOTHESIS_PROFILE:-ci}
start=$SECONDS
status=0
(cd "$WORK/src" && LD_PRELOAD="$LIBASAN" python -m pytest -q "$@") || status=$?
echo "asan: test suite took $((SECONDS - start)) s (exit $status)"

reports=$(find "$LOGS" -type f | wc -l)
if [[ "$reports" -gt 0 ]]; then
    echo "asan: $reports sanitizer report(s):" >&2
    for log in "$LOGS"/*; do
        echo "--- $log" >&2
        head -60 "$log" >&2
    done
    exit 1
fi
echo "asan: 0 sanitizer reports"
exit "$status"
