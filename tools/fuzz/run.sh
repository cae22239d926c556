#!/usr/bin/env bash
# Run every atheris harness for a bounded time; fail on any finding.
#
#   tools/fuzz/run.sh [SECONDS_PER_HARNESS]      # default 30
#   FUZZ_SECONDS_server=60 tools/fuzz/run.sh 30   # one harness (fuzz_server.py) for longer
#
# Each harness grows its corpus in tools/fuzz/corpus/NAME (kept in the
# repository: it seeds the next run).  A finding (an exception that is not a
# library error, a wrong answer, a crash) stops the harness and leaves the
# input in $FUZZ_ARTIFACTS (default: a temporary directory, printed).  The
# summary gives the inputs run per harness.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SECONDS_EACH=${1:-30}
ARTIFACTS=${FUZZ_ARTIFACTS:-$(mktemp -d "${TMPDIR:-/tmp}/fourcards-fuzz.XXXXXX")}
mkdir -p "$ARTIFACTS"
export FOURCARDS_REQUIRE_EXTENSIONS=1
failed=0
summary=()
# every harness there is: tools/fuzz/fuzz_NAME.py
for path in "$HERE"/fuzz_*.py; do
    harness=$(basename "$path" .py)
    harness=${harness#fuzz_}
    corpus="$HERE/corpus/$harness"
    mkdir -p "$corpus"
    log="$ARTIFACTS/$harness.log"
    own="FUZZ_SECONDS_$harness"
    seconds=${!own:-$SECONDS_EACH}
    echo "==> fuzz_$harness for ${seconds}s"
    (cd "$HERE" && python "fuzz_$harness.py" "$corpus" -max_total_time="$seconds" -max_len=4096 \
        -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$harness-") \
        > "$log" 2>&1
    status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    found=$(find "$ARTIFACTS" -name "$harness-*" | wc -l)
    summary+=("fuzz_$harness: $runs inputs, $found findings, exit $status")
    if [[ $status -ne 0 || $found -gt 0 ]]; then
        failed=1
        echo "fuzz_$harness FAILED (exit $status); the last lines of its log:" >&2
        tail -40 "$log" >&2
    fi
done
echo
printf '%s\n' "${summary[@]}"
echo "artifacts and logs: $ARTIFACTS"
exit $failed
