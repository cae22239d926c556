"""Fuzz the compiled kernels against their pure-Python twins, with good and
hostile arguments: both answer the same, or both refuse with the same kind of
library error."""

from __future__ import annotations

import sys
from typing import Any

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)

with atheris.instrument_imports(include=["fourcards", "_common"]):
    import numpy as np

    from _common import Finding, clean_error
    from fourcards.gangoffour import _deck, _kernels, _reference
    from fourcards.zangle import cards as zangle_cards

COMPILED = _kernels.combos


def hostile(fdp: atheris.FuzzedDataProvider, good: int) -> Any:
    """``good``, or a value that looks like it: a float, a huge or negative int, a string, None."""
    choice = fdp.ConsumeIntInRange(0, 9)
    if choice <= 4:
        return good
    return [float(good) + 0.5, -good - 1, good + (1 << 64), str(good), None][choice - 5]


def outcome(call: Any) -> Any:
    try:
        result = call()
    except Exception as error:
        if not clean_error(error):
            raise
        return ("error", "TypeError" if isinstance(error, TypeError) else "FourCardsError")
    if isinstance(result, np.ndarray):
        return ("array", result.dtype.str, result.tolist())
    if isinstance(result, tuple):
        return tuple(outcome(lambda r=r: r) for r in result)
    return ("value", int(result))


def same(name: str, compiled: Any, twin: Any) -> None:
    a, b = outcome(compiled), outcome(twin)
    if a != b:
        raise Finding(f"{name}: compiled {a!r:.300} != twin {b!r:.300}")


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    raw = fdp.ConsumeIntInRange(0, (1 << 64) - 1)
    mask = _deck.canonical_from_sum(raw - ((raw >> 1) & _deck.PAIR_LO)) if fdp.ConsumeBool() else raw
    if fdp.ConsumeBool():  # a small hand: the twin's legal_actions is slow on big ones
        mask &= fdp.ConsumeIntInRange(0, (1 << 64) - 1) & fdp.ConsumeIntInRange(0, (1 << 64) - 1)
    mask &= (1 << 64) - 1
    table = fdp.ConsumeIntInRange(-1, _deck.NUM_ACTIONS - 1)
    action = fdp.ConsumeIntInRange(-1, _deck.NUM_ACTIONS - 1)
    m, t, a = hostile(fdp, mask), hostile(fdp, table), hostile(fdp, action)
    same("classify_mask", lambda: COMPILED.classify_mask(m), lambda: _reference.classify_mask(m))
    same("beats", lambda: COMPILED.beats(a, t), lambda: _reference.beats(a, t))
    if fdp.ConsumeIntInRange(0, 7) == 0:  # the twin walks all 12352 actions: 0.1 s
        same("legal_actions", lambda: COMPILED.legal_actions(m, t), lambda: _reference.legal_actions(m, t))
        size = hostile(fdp, fdp.ConsumeIntInRange(_deck.NUM_ACTIONS - 2, _deck.NUM_ACTIONS + 40))
        same("legal_mask", lambda: COMPILED.legal_mask(m, t, size), lambda: _reference.legal_mask(m, t, size))
    else:  # the argument checks alone, on both
        same("legal_actions checks", lambda: COMPILED.legal_actions(m, t) is None,
             lambda: _reference._check_mask(m) is None or _reference._check_action(t, "table action") is None)
    rows, width = fdp.ConsumeIntInRange(0, 4), fdp.ConsumeIntInRange(0, 9)
    codes = np.frombuffer(fdp.ConsumeBytes(rows * width).ljust(rows * width, b"\xff"), dtype=np.uint8)
    codes = codes.reshape(rows, width)
    same("classify_batch", lambda: COMPILED.classify_batch(codes), lambda: _reference.classify_batch(codes))
    centre = hostile(fdp, fdp.ConsumeIntInRange(0, (1 << 44) - 1) & 0x11111111111
                     & fdp.ConsumeIntInRange(0, (1 << 44) - 1))
    own = hostile(fdp, fdp.ConsumeIntInRange(0, (1 << 44) - 1) & 0x11111111111)
    same("zangle find packed", lambda: np.asarray(zangle_cards.find_zangles_packed(centre, own), dtype=np.uint8),
         lambda: np.asarray(zangle_cards._find_packed_reference(centre, own), dtype=np.uint8).reshape(-1, 24))


if __name__ == "__main__":
    if COMPILED is None:
        sys.exit("fuzz_kernels needs the compiled core")
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
