"""Import time of fourcards, per game, as a ratio to importing numpy alone.

Each measurement is a fresh interpreter (``python -X importtime``) importing
one module; the figure is the cumulative time fourcards' own modules take
(numpy excluded), median over the runs, with numpy's import time in the same
run as the yardstick.

    python benchmarks/bench_import.py                 # the installed fourcards
    python benchmarks/bench_import.py --src OTHER/src # another checkout, for a before/after
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys

TARGETS = ("fourcards", "fourcards.gangoffour", "fourcards.fourcolor", "fourcards.zangle.cards",
           "fourcards.fourpack", "fourcards.duelo")


def own_time(module: str, env: dict[str, str]) -> tuple[float, float]:
    """(microseconds in fourcards' modules, microseconds importing numpy) for one fresh import."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import numpy, {module}"],
                         env=env, capture_output=True, text=True, check=True).stderr
    ours = numpy = 0.0
    for line in out.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if not match:
            continue
        self_us, name = int(match[1]), match[4]
        if name.startswith("fourcards"):
            ours += self_us
        if name == "numpy":
            numpy = int(match[2])
    return ours, numpy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", help="a source tree to import from (PYTHONPATH), built in place")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    env = dict(os.environ)
    if args.src:
        env["PYTHONPATH"] = args.src
    print("| import | fourcards' own modules (median) | x numpy's import |")
    print("|---|---|---|")
    for module in TARGETS:
        samples = [own_time(module, env) for _ in range(args.runs)]
        ours = statistics.median(s[0] for s in samples)
        numpy = statistics.median(s[1] for s in samples)
        print(f"| `{module}` | {ours / 1000:.1f} ms | {ours / numpy:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
