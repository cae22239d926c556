"""Generate the sample deck src/fourcards/decks/elements.json from the
``periodictable`` package (maintained; NIST and other published tables).

    pip install periodictable && python tools/generate_elements_deck.py [--check]

Families are 8 main groups of the periodic table, numbered by period.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import periodictable

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "fourcards" / "decks" / "elements.json"

FAMILIES = {
    "A": ("Alkali metals", ["Li", "Na", "K", "Rb"]),
    "B": ("Alkaline earth metals", ["Be", "Mg", "Ca", "Sr"]),
    "C": ("Boron group", ["B", "Al", "Ga", "In"]),
    "D": ("Carbon group", ["C", "Si", "Ge", "Sn"]),
    "E": ("Pnictogens", ["N", "P", "As", "Sb"]),
    "F": ("Chalcogens", ["O", "S", "Se", "Te"]),
    "G": ("Halogens", ["F", "Cl", "Br", "I"]),
    "H": ("Noble gases", ["Ne", "Ar", "Kr", "Xe"]),
}
CATEGORIES = [
    ("atomic_number", "Atomic number", "", lambda e: e.number),
    ("atomic_mass", "Atomic mass", "u", lambda e: round(float(e.mass), 4)),
    ("density", "Density", "g/cm3", lambda e: round(float(e.density), 4)),
    ("covalent_radius", "Covalent radius", "angstrom", lambda e: round(float(e.covalent_radius), 3)),
    ("isotopes", "Known isotopes", "", lambda e: len(list(e))),
]


def build() -> str:
    cards = []
    for family, (_, symbols) in FAMILIES.items():
        for number, symbol in enumerate(symbols, start=1):
            element = getattr(periodictable, symbol)
            cards.append({
                "id": f"{family}{number}",
                "name": element.name.capitalize(),
                "symbol": symbol,
                "values": {cid: fn(element) for cid, _, _, fn in CATEGORIES},
            })
    deck = {
        "format": "fourcards-deck",
        "version": 1,
        "name": "Chemical elements",
        "source": "the periodictable package (https://pypi.org/project/periodictable/): "
                  "atomic numbers, standard atomic masses, densities (solids and liquids at room "
                  "temperature; gases as liquids at their boiling point, as periodictable documents), "
                  "covalent radii and the isotopes it lists",
        "families": {family: name for family, (name, _) in FAMILIES.items()},
        "categories": [{"id": cid, "name": name, "unit": unit, "higher_wins": True}
                       for cid, name, unit, _ in CATEGORIES],
        "cards": cards,
        "generated_with": f"tools/generate_elements_deck.py, periodictable {periodictable.__version__}",
    }
    return json.dumps(deck, indent=1) + "\n"


def same_data(a: str, b: str) -> bool:
    """Equal decks, whatever periodictable version wrote them."""
    left, right = json.loads(a), json.loads(b)
    left.pop("generated_with", None)
    right.pop("generated_with", None)
    return bool(left == right)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = build()
    if args.check:
        if not same_data(TARGET.read_text(), text):
            print(f"stale: {TARGET.relative_to(ROOT)}")
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
