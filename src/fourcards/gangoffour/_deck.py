"""Constants of the Gang of Four deck, shared by the compiled core and its twin.

A card *kind* has an integer *code*: its position in the rules' card order,
``G1 < Y1 < R1 < M1 < G2 < ... < R10 < GP < YP < RD`` (codes 0..33).

A *card set* is a 64-bit *mask* over the 64 physical cards of the sorted deck:
bit ``BASE[code]`` holds the first copy of a kind, bit ``BASE[code] + 1`` the
second copy of a coloured 1..10.  A mask is *canonical* when a kind's copies
fill its slots from the lowest bit, so ``a`` is a sub-multiset of ``b`` exactly
when ``a & ~b == 0``, and ``mask.bit_count()`` is the number of cards.
"""

from __future__ import annotations

from typing import Final

from ..errors import FourCardsError, ImpossibleCardsError, InvalidCardError, InvalidComboError, InvalidTypeError

NUM_KINDS: Final = 34
PAD: Final = 255
"""Padding code for rows of card codes shorter than the array width."""

COLOURS: Final = ("G", "Y", "R")
M1: Final = 3
GP: Final = 31
YP: Final = 32
RD: Final = 33
PHOENIX_VALUE: Final = 11
DRAGON_VALUE: Final = 12


def _names() -> tuple[str, ...]:
    names = ["G1", "Y1", "R1", "M1"]
    for value in range(2, 11):
        names.extend(colour + str(value) for colour in COLOURS)
    names.extend(["GP", "YP", "RD"])
    return tuple(names)


NAMES: Final[tuple[str, ...]] = _names()
CODE_OF: Final[dict[str, int]] = {name: code for code, name in enumerate(NAMES)}

VALUE: Final[tuple[int, ...]] = tuple(
    1 if code <= M1 else
    PHOENIX_VALUE if code in (GP, YP) else
    DRAGON_VALUE if code == RD else
    2 + (code - 4) // 3
    for code in range(NUM_KINDS)
)
"""1..10 for numbered cards and ``M1``; 11 for phoenixes; 12 for the dragon."""

COLOUR: Final[tuple[str, ...]] = tuple(name[0] for name in NAMES)
"""``G``, ``Y``, ``R`` or ``M`` (the multicolour 1); phoenixes and dragon too
have a colour letter, but no colour in a flush."""

CAP: Final[tuple[int, ...]] = tuple(
    1 if code in (M1, GP, YP, RD) else 2 for code in range(NUM_KINDS)
)
"""How many copies of each kind the deck holds."""


def _bases() -> tuple[int, ...]:
    bases, bit = [], 0
    for code in range(NUM_KINDS):
        bases.append(bit)
        bit += CAP[code]
    assert bit == 64
    return tuple(bases)


BASE: Final[tuple[int, ...]] = _bases()
BIT: Final[tuple[int, ...]] = tuple(1 << b for b in BASE)
PAIR_LO: Final[int] = sum(BIT[c] for c in range(NUM_KINDS) if CAP[c] == 2)
"""Bits of the first copy of every kind that has two copies."""
FULL_DECK: Final[int] = (1 << 64) - 1
KIND_OF_BIT: Final[tuple[int, ...]] = tuple(
    code for code in range(NUM_KINDS) for _ in range(CAP[code])
)

# Combination kinds, in the order of the rules file (also ComboKind's values).
SINGLE, PAIR, TRIPLE, STRAIGHT, FLUSH, FULL_HOUSE, STRAIGHT_FLUSH, GANG = range(8)
KIND_NAMES: Final = (
    "SINGLE", "PAIR", "TRIPLE", "STRAIGHT", "FLUSH",
    "FULL_HOUSE", "STRAIGHT_FLUSH", "GANG",
)

# Penalty per card left, by the number of cards left (index 0..16).
PENALTY_PER_CARD: Final[tuple[int, ...]] = (0,) + (1,) * 7 + (2,) * 3 + (3,) * 3 + (4,) * 2 + (5,)


def canonical_from_sum(additive: int) -> int:
    """Turn a sum of ``BIT[code]`` over cards into a canonical mask."""
    return additive | ((additive >> 1) & PAIR_LO)


def is_canonical(mask: int) -> bool:
    """Whether no kind's second slot is set without its first."""
    return ((mask >> 1) & PAIR_LO & ~mask) == 0


def codes_of_mask(mask: int) -> list[int]:
    """Card codes of a canonical mask, lowest first (one entry per card)."""
    codes = []
    while mask:
        low = mask & -mask
        codes.append(KIND_OF_BIT[low.bit_length() - 1])
        mask ^= low
    return codes


# The card codes of each byte of a mask: _BYTE_CODES[k][v] for the value v of byte k.
_BYTE_CODES: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(KIND_OF_BIT[8 * k + i] for i in range(8) if value >> i & 1) for value in range(256))
    for k in range(8)
)


def counts_of_mask(mask: int) -> list[float]:
    """Copies of each card code (34 floats) in a canonical mask, a byte at a time.

    >>> counts_of_mask(0b11)[:2]
    [2.0, 0.0]
    """
    counts = [0.0] * NUM_KINDS
    k = 0
    while mask:
        for code in _BYTE_CODES[k][mask & 255]:
            counts[code] += 1.0
        mask >>= 8
        k += 1
    return counts


def mask_error(mask: object) -> Exception:
    """The error for a mask that is not a canonical 64-bit card set."""
    if not isinstance(mask, int) or isinstance(mask, bool):
        return InvalidTypeError(f"a card mask must be an int, not {type(mask).__name__}")
    if mask < 0 or mask > FULL_DECK:
        return ImpossibleCardsError(f"card mask {mask:#x} does not fit in 64 bits (0..2**64-1)")
    bad = (mask >> 1) & PAIR_LO & ~mask
    code = KIND_OF_BIT[(bad & -bad).bit_length() - 1]
    return ImpossibleCardsError(
        f"card mask {mask:#018x} is not canonical: it holds the second {NAMES[code]} "
        f"without the first (build masks with hand_mask())"
    )


def code_error(code: object, where: str = "") -> Exception:
    """The error for a value that is not a card code."""
    if not isinstance(code, int) or isinstance(code, bool):
        return InvalidTypeError(f"a card code must be an int, not {type(code).__name__}{where}")
    return InvalidCardError(f"{code} is not a card code (0..33, or {PAD} for padding){where}")


def too_many_error(codes: list[int], where: str = "") -> ImpossibleCardsError:
    """The error for card codes holding more copies of a kind than the deck."""
    counts: dict[int, int] = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    for code, count in sorted(counts.items()):
        if count > CAP[code]:
            copies = "one copy" if CAP[code] == 1 else f"{CAP[code]} copies"
            return ImpossibleCardsError(
                f"{count} x {NAMES[code]}{where}: the deck holds {copies} of {NAMES[code]}"
            )
    return ImpossibleCardsError(f"{len(codes)} cards{where}: the deck holds 64")


NUM_ACTIONS: Final = 12352
KIND_START: Final[tuple[int, ...]] = (0, 34, 98, 174, 1692, 7845, 12214, 12235, 12352)
"""First action index of each combination kind (and the end)."""


MAX_MASK_SIZE: Final = 1 << 20
"""The longest ``legal_mask(size=...)`` array the kernels make."""


def range_error(name: str, value: int, low: int, high: int) -> FourCardsError:
    """The error for an integer argument outside ``low..high``."""
    return FourCardsError(f"{name}={value} is out of range ({low}..{high})")


def action_error(action: int, name: str = "action") -> InvalidComboError:
    """The error for an integer that is not an action index."""
    return InvalidComboError(
        f"{name} {action} is not an action index (0..{NUM_ACTIONS - 1}, or -1 for none)"
    )
