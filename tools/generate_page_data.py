"""Regenerate the data the browser page draws cards from, under
src/fourcards/server/static/data/:

- ``zangle-shapes.json``: every Zangle shape as triangles in page coordinates,
  from fourcards.zangle.geometry (the page draws the shapes as SVG);
- ``elements.json``: the chemical-elements deck of Four Pack and Duelo
  (families, categories, and each card's symbol and values), from
  fourcards.decks.

    python tools/generate_page_data.py [--check]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "fourcards" / "server" / "static" / "data"


def _lines(mapping: dict[str, Any]) -> str:
    """One entry a line: small diffs, readable files."""
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in mapping.items()) + "\n}\n"


def zangle_shapes() -> str:
    """Each shape: name, size, and triangles (three x, y points each, side 1,
    y growing downwards), translated to touch the axes, with the box's size."""
    from fourcards.zangle.geometry import SHAPES, _vertices

    h = math.sqrt(3) / 2
    shapes = {}
    for notation, shape in SHAPES.items():
        triangles = [[(i + j / 2, -h * j) for i, j in _vertices(cell)] for cell in shape.cells]
        xs = [x for t in triangles for x, _ in t]
        ys = [y for t in triangles for _, y in t]
        left, top = min(xs), min(ys)
        shapes[notation] = {
            "name": shape.name,
            "size": shape.size,
            "width": round(max(xs) - left, 4),
            "height": round(max(ys) - top, 4),
            "triangles": [[[round(x - left, 4), round(y - top, 4)] for x, y in t] for t in triangles],
        }
    return _lines(shapes)


def elements_deck() -> str:
    source = json.loads((ROOT / "src" / "fourcards" / "decks" / "elements.json").read_text(encoding="utf-8"))
    body: dict[str, Any] = {
        "name": source["name"],
        "families": source["families"],
        "categories": source["categories"],
        "cards": {c["id"]: {"symbol": c["symbol"], "name": c["name"], "values": c["values"]}
                  for c in source["cards"]},
    }
    return _lines(body)


def build() -> dict[Path, str]:
    return {DATA / "zangle-shapes.json": zangle_shapes(), DATA / "elements.json": elements_deck()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    stale = 0
    for path, text in build().items():
        name = path.relative_to(ROOT)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"stale: {name}")
                stale = 1
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {name}")
    return stale


if __name__ == "__main__":
    sys.exit(main())
