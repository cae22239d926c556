"""Fuzz ``fourcards.load`` of snapshot saves of every game, edited by the fuzzer.

Edited without the key (re-digested, the signature kept, dropped or guessed),
a snapshot is always refused with ``InvalidStateError``. Edited and signed
again with the key (what only its holder can do: the values of a signed
snapshot are trusted as the library's own), it either loads as a state of the
game or is refused with ``InvalidStateError``: no other exception, no class
named outside the game's modules. A snapshot that loads with its values
untouched saves back to one that loads to the same match."""

from __future__ import annotations

import json
import sys

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)

with atheris.instrument_imports(include=["fourcards", "_common"]):
    from _common import Finding, clean_error
    import fourcards
    import fourcards._snapshot
    import fourcards.saves  # noqa: F401  (imported here: traced)
    from fourcards.engine import State, _digest, _signature
    from fourcards.errors import InvalidStateError
    from fourcards.games import GAMES

KEY = b"fuzz key"
SNAPSHOTS = []
for _entry in GAMES.values():
    _state = _entry.new_game().new_match(seed=1)
    for _ in range(12):
        if _state.is_terminal:
            break
        _state.apply(_state.legal_actions()[-1])
    SNAPSHOTS.append(json.loads(_state.to_json(KEY, snapshot=True)))


def fuzzed_value(fdp: atheris.FuzzedDataProvider) -> object:
    try:
        return json.loads(fdp.ConsumeUnicodeNoSurrogates(256))
    except (ValueError, RecursionError):
        return fdp.ConsumeInt(9)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    save = json.loads(json.dumps(SNAPSHOTS[fdp.ConsumeIntInRange(0, len(SNAPSHOTS) - 1)]))
    snapshot = save["snapshot"]
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        where = fdp.ConsumeIntInRange(0, 3)
        values = snapshot.get("state")
        if where == 0 and isinstance(values, dict) and values:  # a slot's value
            names = sorted(values)
            values[names[fdp.ConsumeIntInRange(0, len(names) - 1)]] = fuzzed_value(fdp)
        elif where == 1:  # a field of the snapshot
            names = sorted(snapshot)
            snapshot[names[fdp.ConsumeIntInRange(0, len(names) - 1)]] = fuzzed_value(fdp)
        elif where == 2:  # a field of the envelope
            names = sorted(k for k in save if k not in ("digest", "signature"))
            save[names[fdp.ConsumeIntInRange(0, len(names) - 1)]] = fuzzed_value(fdp)
        elif isinstance(values, dict):  # a new slot
            values[fdp.ConsumeUnicodeNoSurrogates(12)] = fuzzed_value(fdp)
    signed = fdp.ConsumeBool()
    save.pop("signature", None)
    save["digest"] = _digest(save)
    save["signature"] = _signature(save, KEY if signed else b"a guess")
    try:
        text = json.dumps(save)
    except (ValueError, RecursionError):
        return
    try:
        state = fourcards.load(text, key=KEY)
    except Exception as error:
        if not clean_error(error):
            raise
        if not isinstance(error, InvalidStateError):
            raise Finding(f"a bad snapshot raised {type(error).__name__}, not InvalidStateError: {error}") from None
        return
    if not signed:
        raise Finding("a snapshot edited without the key was loaded")
    if not isinstance(state, State):
        raise Finding(f"a snapshot loaded as {type(state).__name__}, not a state")


def test_untouched(index: int) -> None:
    """The snapshots as written load, and save back to the same match."""
    text = json.dumps(SNAPSHOTS[index])
    state = fourcards.load(text, key=KEY)
    again = fourcards.load(state.to_json(KEY, snapshot=True), key=KEY)
    if again != state or again.summary() != state.summary():
        raise Finding("a snapshot does not save back to the same match")


if __name__ == "__main__":
    for _index in range(len(SNAPSHOTS)):
        test_untouched(_index)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
