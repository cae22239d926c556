"""Fuzz the text parsers: Gang of Four cards and combinations (the compiled
fast path against the careful parser), Four Color cards and melds, Zangle
cards.  A text the careful parser refuses must never get a mask from the fast
path, and a mask the fast path gives must be the careful parser's."""

from __future__ import annotations

import sys

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)

with atheris.instrument_imports(include=["fourcards", "_common"]):
    from _common import Finding, clean_error
    from fourcards.fourcolor import Card as FourColorCard, Meld
    from fourcards.gangoffour import _kernels, _reference
    from fourcards.gangoffour.cards import Card, hand_mask, parse_cards
    from fourcards.gangoffour.combos import Combo
    from fourcards.zangle.cards import kind_code


def careful_mask(text: str) -> int | None:
    try:
        return hand_mask(parse_cards(text))
    except Exception as error:
        if not clean_error(error):
            raise
        return None


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    text = fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 64))
    fast = int(_kernels.fast_mask(text))
    twin = _reference.fast_mask(text)
    careful = careful_mask(text)
    if fast != -1 and fast != careful:
        raise Finding(f"fast path read {text!r} as {fast:#x}, the parser as {careful}")
    if twin != -1 and twin != careful:
        raise Finding(f"twin fast path read {text!r} as {twin:#x}, the parser as {careful}")
    for parse in (Card.parse, Combo.parse, FourColorCard.parse, Meld.parse, kind_code):
        try:
            parse(text)
        except Exception as error:
            if not clean_error(error):
                raise
    if careful is not None:
        action = int(_kernels.fast_classify(text))
        if action not in (-2, int(_kernels.classify_mask(careful))):
            raise Finding(f"fast_classify({text!r}) = {action}")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
