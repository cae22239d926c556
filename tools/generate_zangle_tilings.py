"""Regenerate src/fourcards/zangle/tilings.json: every tiling of every Zangle
shape, found by the exact-cover search of fourcards.zangle.tiling.

    python tools/generate_zangle_tilings.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "fourcards" / "zangle" / "tilings.json"


def build() -> str:
    if not TARGET.exists():
        TARGET.write_text("{}")
    from fourcards.zangle.tiling import all_tilings

    return json.dumps(all_tilings(), indent=1, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = build()
    if args.check:
        if TARGET.read_text() != text:
            print(f"stale: {TARGET.relative_to(ROOT)}")
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
