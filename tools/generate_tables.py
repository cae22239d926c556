"""Regenerate the data tables shipped in the package from their pure-Python source.

    python tools/generate_tables.py          # rewrite the files
    python tools/generate_tables.py --check  # exit 1 if a file is stale

``tests/test_tables.py`` runs the check, so the shipped data always matches
what the rules code derives.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ["FOURCARDS_NO_EXTENSIONS"] = "1"  # the tables come from the twin, written straight from the rules
from fourcards.gangoffour import _reference  # noqa: E402  (installed: this script never imports the tree's src/)

ROOT = Path(__file__).resolve().parent.parent

TABLES = {
    ROOT / "src" / "fourcards" / "gangoffour" / "combos.bin": _reference.table_masks,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = 0
    for path, build in TABLES.items():
        data = build()
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                print(f"stale: {path.relative_to(ROOT)}")
                stale += 1
        else:
            path.write_bytes(data)
            print(f"wrote {path.relative_to(ROOT)} ({len(data)} bytes)")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
