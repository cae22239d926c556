"""Fuzz every game's ``from_json`` (saved matches) with mutated saves and
arbitrary bytes: a save either loads or is refused with ``InvalidStateError``
(a ``FourCardsError``); a loaded match must save back to the same JSON."""

from __future__ import annotations

import json
import sys

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)

with atheris.instrument_imports(include=["fourcards", "_common"]):
    from _common import Finding, clean_error
    from fourcards.games import GAMES

GAMES_IN_ORDER = [entry.new_game() for entry in GAMES.values()]
SAVES = []
for _game in GAMES_IN_ORDER:
    _state = _game.new_match(seed=1)
    for _ in range(3):
        if _state.is_terminal:
            break
        _state.apply(_state.legal_actions()[0])
    SAVES.append(_state.to_json())


def depth(text: str) -> int:
    deepest = level = 0
    for ch in text:
        if ch in "[{":
            level += 1
            deepest = max(deepest, level)
        elif ch in "]}":
            level -= 1
    return deepest


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    index = fdp.ConsumeIntInRange(0, len(GAMES_IN_ORDER) - 1)
    game = GAMES_IN_ORDER[index]
    if fdp.ConsumeBool():
        text = fdp.ConsumeUnicodeNoSurrogates(4096)
    else:  # a real save with one field replaced by fuzzed JSON
        save = json.loads(SAVES[index])
        keys = sorted(save)
        key = keys[fdp.ConsumeIntInRange(0, len(keys) - 1)]
        try:
            save[key] = json.loads(fdp.ConsumeUnicodeNoSurrogates(512))
        except (ValueError, RecursionError):
            save[key] = fdp.ConsumeInt(9)
        text = json.dumps(save)
    if depth(text) > 200:
        # JSON nested past the recursion limit in from_json is the engine's
        # issue (tracked and fixed on its own branch); the deck loader has its own harness
        return
    try:
        state = game.from_json(text)
    except Exception as error:
        if not clean_error(error):
            raise
        return
    if json.loads(state.to_json())["actions"] != json.loads(text)["actions"]:
        raise Finding(f"{game.name}: a loaded save does not save back the same actions")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
