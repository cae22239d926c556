"""Fuzz the Speedster event API: a stream of calls (with fuzzed Zangles and
versions), hits, resolves and snapshots from fuzzed seats and times.  Every
event is accepted or refused with a library error, and no event creates or
destroys a card."""

from __future__ import annotations

import sys

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)

with atheris.instrument_imports(include=["fourcards", "_common"]):
    from _common import Finding, clean_error
    from fourcards.zangle.cards import Zangle, find_zangles
    from fourcards.zangle.speedster import SpeedsterTable


def fuzzed_zangle(fdp: atheris.FuzzedDataProvider, table: SpeedsterTable, seat: int) -> Zangle:
    if fdp.ConsumeBool() and 0 <= seat < table.players:
        found = find_zangles(table.centre, table.cards[seat])
        if found:
            return found[fdp.ConsumeIntInRange(0, len(found) - 1)]
    pieces = tuple((fdp.ConsumeIntInRange(-2, 12), fdp.ConsumeIntInRange(-1, 2))
                   for _ in range(fdp.ConsumeIntInRange(0, 5)))
    return Zangle(fdp.ConsumeIntInRange(-1, 12), fdp.ConsumeIntInRange(-1, 2), pieces)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    players = fdp.ConsumeIntInRange(2, 4)
    table = SpeedsterTable(players=players, seed=fdp.ConsumeIntInRange(0, 5),
                           check="each" if fdp.ConsumeBool() else "at_round_end")
    cards = table.card_count()
    now = 0.0
    for _ in range(fdp.ConsumeIntInRange(0, 60)):
        op = fdp.ConsumeIntInRange(0, 5)
        seat = fdp.ConsumeIntInRange(-1, players)
        when = now + fdp.ConsumeFloatInRange(-1.0, 3.0) if fdp.ConsumeIntInRange(0, 20) else fdp.ConsumeFloat()
        try:
            if op <= 1:
                version = table.snapshot().version - fdp.ConsumeIntInRange(-1, 2) if fdp.ConsumeBool() else None
                table.submit_call(seat, fuzzed_zangle(fdp, table, seat), when, version)
            elif op <= 3:
                table.submit_hit(seat, when)
            elif op == 4:
                table.resolve(when)
                now = max(now, when)
            else:
                table.resolve()
        except Exception as error:
            if not clean_error(error):
                raise
        if table.card_count() != cards:
            raise Finding(f"{table.card_count()} cards on the table, dealt {cards}")
    table.resolve()
    if table.card_count() != cards:
        raise Finding(f"{table.card_count()} cards on the table, dealt {cards}")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
