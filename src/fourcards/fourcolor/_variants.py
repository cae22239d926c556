"""Points and splits under the rules' readings of the seed (the game's
``same_colour_soldiers`` option), for the public functions and the engine.

The default reading lets Soldiers of one colour form triples and quads; with
``same_colour_soldiers=False`` they form none (only three and four soldiers of
different colours).  Only the soldier block changes, so a hand's answer is the
kernels' answer for the four colour blocks plus :func:`_deck.strict_soldiers`
for the soldiers (three and four soldiers score the same exposed or
concealed, so a card from a discard changes nothing there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from . import _deck, _kernels, _reference
from .cards import KINDS, Meld, MeldKind

SOLDIERS: Final = tuple(_deck.code(c, _deck.SOLDIER) for c in range(4))

#: Every meld of ``game.MELDS`` (action order), concealed and exposed.
CONCEALED_MELDS: Final[tuple[Meld, ...]] = tuple(
    Meld(MeldKind(_deck.meld_kind(m)), tuple(KINDS[k] for k in m), False) for m in _reference.MELDS)
EXPOSED_MELDS: Final[tuple[Meld, ...]] = tuple(
    Meld(MeldKind(_deck.meld_kind(m)), tuple(KINDS[k] for k in m), True) for m in _reference.MELDS)


def _without_soldiers(counts: Sequence[int], exposed_code: int) -> tuple[list[int], int, list[int]]:
    rest = list(counts)
    soldiers = [rest[k] for k in SOLDIERS]
    for k in SOLDIERS:
        rest[k] = 0
    return rest, exposed_code if exposed_code % 7 != _deck.SOLDIER else -1, soldiers


def points(counts: Sequence[int], exposed_code: int = -1, same_colour_soldiers: bool = True) -> int:
    """Best points of a complete split of 28 counts (-1: none); the meld holding
    one card of ``exposed_code`` (-1: none) is scored exposed."""
    if same_colour_soldiers:
        return int(_kernels.best_points(counts, exposed_code))
    rest, code, soldiers = _without_soldiers(counts, exposed_code)
    base = int(_kernels.best_points(rest, code))
    strict = _deck.strict_soldiers(soldiers)
    return -1 if base < 0 or strict is None else base + strict[0]


def split(counts: Sequence[int], exposed_code: int = -1,
          same_colour_soldiers: bool = True) -> tuple[int, tuple[Meld, ...]] | None:
    """The best split of 28 counts: its points and melds (the meld holding
    ``exposed_code`` exposed), or None."""
    code, soldiers = exposed_code, [0, 0, 0, 0]
    rest = list(counts)
    if not same_colour_soldiers:
        rest, code, soldiers = _without_soldiers(counts, exposed_code)
    found = _kernels.split(rest, code)
    strict = _deck.strict_soldiers(soldiers)
    if found is None or strict is None:
        return None
    total, indices = found
    melds = [EXPOSED_MELDS[g] if i == 0 and code >= 0 else CONCEALED_MELDS[g] for i, g in enumerate(indices)]
    _, fours, threes = strict
    soldier_melds = [Meld(MeldKind.FOUR_SOLDIERS, tuple(KINDS[k] for k in SOLDIERS))] * fours
    for skip, count in enumerate(threes):
        cards = tuple(KINDS[k] for c, k in enumerate(SOLDIERS) if c != skip)
        soldier_melds += [Meld(MeldKind.THREE_SOLDIERS, cards)] * count
    if exposed_code >= 0 and code < 0:  # the card from a discard is a Soldier: its meld is exposed
        at = next(i for i, m in enumerate(soldier_melds) if KINDS[exposed_code] in m.cards)
        held = soldier_melds.pop(at)
        soldier_melds.insert(0, Meld(held.kind, held.cards, True))
    return int(total) + strict[0], tuple(melds) + tuple(soldier_melds)
