"""Fuzz the deck loader with arbitrary bytes and with the sample deck
mutated: every input loads or gets a ``DeckError`` naming its problems."""

from __future__ import annotations

import json
import sys
from importlib import resources

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)

with atheris.instrument_imports(include=["fourcards", "_common"]):
    from _common import Finding
    from fourcards.decks import DeckError, load_deck_bytes

SAMPLE = json.loads(resources.files("fourcards.decks").joinpath("elements.json").read_text())


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    if fdp.ConsumeBool():
        raw = fdp.ConsumeBytes(8192)
    else:  # the sample deck with one value replaced
        deck = json.loads(json.dumps(SAMPLE))
        where = [deck, deck["families"], deck["categories"][0], deck["cards"][0], deck["cards"][0]["values"]]
        target = where[fdp.ConsumeIntInRange(0, len(where) - 1)]
        key = sorted(target)[fdp.ConsumeIntInRange(0, len(target) - 1)]
        try:
            target[key] = json.loads(fdp.ConsumeUnicodeNoSurrogates(256))
        except (ValueError, RecursionError):
            target[key] = fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 200))
        raw = json.dumps(deck).encode()
    try:
        deck_loaded = load_deck_bytes(raw, "fuzz")
    except DeckError as error:
        if not error.problems:
            raise Finding("a DeckError without problems") from None
        return
    if len(deck_loaded.cards) != 32:
        raise Finding("a deck loaded without its 32 cards")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
