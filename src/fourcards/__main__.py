"""``python -m fourcards``: deal a seeded Gang of Four hand and show its legal plays."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import COMPILED, __version__
from .gangoffour import ComboKind, format_cards, legal_plays
from .gangoffour.deal import deal

_COLOURS = {"G": "32", "Y": "33", "R": "31", "M": "35"}


def _paint(text: str, enabled: bool) -> str:
    if not enabled:
        return text
    words = []
    for word in text.split():
        code = _COLOURS.get(word[0], "1")
        if word in ("GP", "YP", "RD"):
            code = "1;" + _COLOURS[word[0]]
        words.append(f"\033[{code}m{word}\033[0m")
    return " ".join(words)


def show_hand(seed: int, seat: int = 0, colour: bool = False) -> str:
    """The text ``python -m fourcards`` prints for one seat of a seeded deal."""
    hand = deal(seed)[seat]
    plays = legal_plays(hand)
    lines = [
        f"fourcards {__version__} ({'compiled core' if COMPILED else 'pure Python'})",
        f"Gang of Four, seed {seed}: seat {seat} holds",
        "  " + _paint(format_cards(hand), colour),
        f"{len(plays)} legal leads, by kind, lowest to highest (action index in brackets):",
    ]
    for kind in ComboKind:
        of_kind = [c for c in plays if c.kind is kind]
        if not of_kind:
            continue
        lines.append(f"  {kind.name.lower().replace('_', ' ')} ({len(of_kind)}):")
        for combo in of_kind:
            lines.append(f"    [{combo.action:5d}] {_paint(str(combo), colour)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fourcards", description=__doc__)
    parser.add_argument("--seed", type=int, default=2026, help="deal seed (default 2026)")
    parser.add_argument("--seat", type=int, default=0, choices=range(4), help="seat to show")
    parser.add_argument("--colour", choices=("auto", "always", "never"), default="auto")
    args = parser.parse_args(argv)
    colour = args.colour == "always" or (args.colour == "auto" and sys.stdout.isatty())
    print(show_hand(args.seed, args.seat, colour))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
