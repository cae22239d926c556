"""Constants of the Four Color deck, shared by the compiled core and its twin.

A card kind's *code* is ``colour * 7 + rank`` with colours ``R G Y W`` (0..3)
and ranks General, Advisor, Elephant, Chariot, Horse, Cannon, Soldier (0..6).
A hand is a vector of 28 counts (0..4).  Melds never mix colours except the
soldier melds, so a hand splits into four *colour blocks* (ranks G..N of one
colour, 5**6 states) and one *soldier block* (the soldiers' counts by colour,
5**4 states).
"""

from __future__ import annotations

from typing import Final

COLOURS: Final = "RGYW"
RANKS: Final = "GAECHNS"
RANK_NAMES: Final = ("General", "Advisor", "Elephant", "Chariot", "Horse", "Cannon", "Soldier")
COLOUR_NAMES: Final = ("red", "green", "yellow", "white")
NUM_KINDS: Final = 28
COPIES: Final = 4
GENERAL, ADVISOR, ELEPHANT, CHARIOT, HORSE, CANNON, SOLDIER = range(7)
NAMES: Final[tuple[str, ...]] = tuple(c + r for c in COLOURS for r in RANKS)
CODE_OF: Final[dict[str, int]] = {name: code for code, name in enumerate(NAMES)}

# Meld kinds and their points (exposed, concealed), from the rules file.
LONE_GENERAL, PAIR, TRIPLE, QUAD, GENERAL_QUAD, COMMAND, FIELD, THREE_SOLDIERS, FOUR_SOLDIERS = range(9)
MELD_NAMES: Final = ("LONE_GENERAL", "PAIR", "TRIPLE", "QUAD", "GENERAL_QUAD", "COMMAND", "FIELD",
                     "THREE_SOLDIERS", "FOUR_SOLDIERS")
POINTS: Final[tuple[tuple[int, int], ...]] = (
    (1, 1), (0, 0), (1, 3), (6, 8), (8, 6), (2, 2), (1, 1), (3, 3), (5, 5),
)


def code(colour: int, rank: int) -> int:
    return colour * 7 + rank


def meld_kind(codes: tuple[int, ...]) -> int:
    """The kind of meld a sorted tuple of codes forms, or -1."""
    n = len(codes)
    colours = [c // 7 for c in codes]
    ranks = [c % 7 for c in codes]
    if all(r == SOLDIER for r in ranks):
        if len(set(colours)) == n and n in (3, 4):
            return THREE_SOLDIERS if n == 3 else FOUR_SOLDIERS
        if len(set(codes)) == 1 and n in (3, 4):
            return TRIPLE if n == 3 else QUAD
        return -1
    if len(set(colours)) != 1:
        return -1
    if len(set(codes)) == 1:
        if ranks[0] == GENERAL:
            return {1: LONE_GENERAL, 4: GENERAL_QUAD}.get(n, -1)
        return {2: PAIR, 3: TRIPLE, 4: QUAD}.get(n, -1)
    if sorted(ranks) == [GENERAL, ADVISOR, ELEPHANT]:
        return COMMAND
    if sorted(ranks) == [CHARIOT, HORSE, CANNON]:
        return FIELD
    return -1


def strict_soldiers(soldiers: tuple[int, ...] | list[int]) -> tuple[int, int, tuple[int, ...]] | None:
    """The soldier block under the option ``same_colour_soldiers=False`` (Soldiers
    of one colour form no triple or quad: only three and four soldiers of
    different colours): ``(points, fours, threes)`` with ``threes[c]`` the
    three-soldier melds *without* colour ``c``, or None when the block does not
    split.  With ``f`` four-soldier melds and ``T`` three-soldier ones, colour
    ``c`` holds ``f + T - threes[c]`` soldiers, so ``3T = S - 4f`` (``S`` the
    soldiers); the points, ``5f + 3T = S + f``, grow with ``f``.

    >>> strict_soldiers((1, 1, 1, 0)), strict_soldiers((2, 1, 1, 0))
    ((3, 0, (0, 0, 0, 1)), None)
    """
    total = sum(soldiers)
    for fours in range(min(soldiers), -1, -1):
        if (total - 4 * fours) % 3:
            continue
        threes_total = (total - 4 * fours) // 3
        threes = tuple(fours + threes_total - n for n in soldiers)
        if min(threes) >= 0:
            return 5 * fours + 3 * threes_total, fours, threes
    return None
