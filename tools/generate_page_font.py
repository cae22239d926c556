"""Write the page's Four Color font: the 14 Chinese-chess characters of the cards,
subset from Noto Serif CJK TC Bold (SIL Open Font License 1.1), as a small WOFF2.

    python tools/generate_page_font.py            # rewrite the font
    python tools/generate_page_font.py --check    # exit 1 if the shipped font lacks a character

The page draws every Four Color card with these characters; a browser without a
CJK font (Debian's Chromium, out of the box) would draw empty boxes, so the page
ships them. Regenerating needs the source font (Debian: ``apt-get install
fonts-noto-cjk``) and fontTools with brotli (``pip install "fonttools[woff]"``, in the browser extra);
``--check`` needs fontTools only.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "fourcards" / "server" / "static"
FONT = STATIC / "fonts" / "fourcolor-ranks.woff2"
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc")
FACE = "Noto Serif CJK TC Bold"
#: The subset's own name (a modified version is not named as its source).
FAMILY = "Fourcards Four Color Ranks"


def characters() -> str:
    """The characters cards.js draws (its RED_SIDE and BLACK_SIDE strings)."""
    text = (STATIC / "cards.js").read_text(encoding="utf-8")
    found = re.findall(r'const (?:RED|BLACK)_SIDE = "([^"]+)";', text)
    if len(found) != 2 or len("".join(found)) != 14:
        raise SystemExit("cards.js: expected RED_SIDE and BLACK_SIDE, 7 characters each")
    return "".join(found)


def build() -> bytes:
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    collection = TTCollection(str(SOURCE))
    face = next(f for f in collection.fonts if f["name"].getDebugName(4) == FACE)
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []
    options.name_IDs = [0, 2, 5, 13, 14]  # copyright, style, version, the licence and its URL
    options.notdef_outline = True
    options.hinting = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=characters())
    subsetter.subset(face)
    # A subset is a modified version: it gets a name of its own (OFL 1.1, condition 3).
    names = face["name"]
    for record in list(names.names):
        if record.nameID in (1, 3, 4, 6, 16, 17):
            names.removeNames(nameID=record.nameID)
    for name_id, text in ((1, FAMILY), (3, f"{FAMILY}; subset of {FACE}"), (4, FAMILY),
                          (6, FAMILY.replace(" ", ""))):
        names.setName(text, name_id, 3, 1, 0x409)
    out = io.BytesIO()
    face.flavor = "woff2"
    face.save(out)
    return out.getvalue()


def unicode_range() -> set[int]:
    """The code points style.css's @font-face asks the font for."""
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    found = re.search(r"unicode-range:([^;]+);", css)
    return {int(point, 16) for point in re.findall(r"U\+([0-9A-Fa-f]+)", found.group(1))} if found else set()


def check() -> int:
    from fontTools.ttLib import TTFont

    font = TTFont(str(FONT))
    cmap = font.getBestCmap()
    missing = [c for c in characters() if ord(c) not in cmap]
    if missing:
        print(f"{FONT.relative_to(ROOT)} lacks {''.join(missing)}: run python tools/generate_page_font.py")
        return 1
    if unicode_range() != {ord(c) for c in characters()}:
        print("style.css: the @font-face unicode-range is not the cards' 14 characters")
        return 1
    print(f"{FONT.relative_to(ROOT)}: {len(characters())} characters, {FONT.stat().st_size:,} bytes")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="check the shipped font instead of writing it")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    if not SOURCE.exists():
        print(f"{SOURCE} is missing: apt-get install fonts-noto-cjk", file=sys.stderr)
        return 1
    FONT.parent.mkdir(exist_ok=True)
    FONT.write_bytes(build())
    print(f"wrote {FONT.relative_to(ROOT)}: {FONT.stat().st_size:,} bytes")
    return check()


if __name__ == "__main__":
    raise SystemExit(main())
