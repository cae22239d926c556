"""The one random number generator of fourcards: SplitMix64.

Every game owns a :class:`Rng` seeded from its own seed; nothing is
module-global.  The generator, the bounded-integer method and the shuffle are
stated exactly so that the compiled core and this module produce the same
numbers, on every platform:

- ``next_u64``: SplitMix64 (Steele, Lea and Flood, 2014): the state advances by
  ``0x9E3779B97F4A7C15`` and the output is the standard mix of the new state.
- ``below(n)``: rejection sampling without bias: draw ``r``; accept when
  ``r >= (2**64 - n) % n`` and return ``r % n``.
- ``shuffle(items)``: Fisher-Yates from the last index down:
  for ``i`` from ``len - 1`` to ``1``, swap ``items[i]`` with ``items[below(i + 1)]``.

>>> rng = Rng(0)
>>> [hex(rng.next_u64()) for _ in range(2)]
['0xe220a8397b1dcdaf', '0x6e789e6aa1b965f4']
"""

from __future__ import annotations

import numbers
from collections.abc import MutableSequence
from typing import Any, Final, TypeVar

from .errors import FourCardsError, InvalidTypeError

__all__ = ["Rng", "MASK64", "check_seed", "seed_in_range", "as_rng"]

MASK64: Final = (1 << 64) - 1
_TWO64: Final = 1 << 64
_GOLDEN: Final = 0x9E3779B97F4A7C15
_T = TypeVar("_T")


def check_seed(seed: Any, name: str = "seed") -> int:
    """``seed`` as an ``int``: any int, numpy ints too (every seed the library takes
    goes through here); TypeError naming ``name`` for anything else, ``bool`` included.

    >>> import numpy as np
    >>> check_seed(np.int64(7)), check_seed(-1)
    (7, -1)
    >>> check_seed(1.5)
    Traceback (most recent call last):
    fourcards.errors.InvalidTypeError: seed must be an int, not float
    """
    if type(seed) is int:
        return seed
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
        raise InvalidTypeError(f"{name} must be an int, not {type(seed).__name__}")
    return int(seed)


def seed_in_range(seed: Any, name: str = "seed") -> int:
    """``seed`` as an ``int`` 0..2**64-1, where a larger or negative one would alias
    another (:func:`check_seed` for the type; :class:`FourCardsError` out of range).

    >>> seed_in_range(2**64 - 1) == MASK64
    True
    >>> seed_in_range(-1, "match seed")
    Traceback (most recent call last):
    fourcards.errors.FourCardsError: match seed=-1 must be in 0..2**64-1
    """
    value = check_seed(seed, name)
    if not 0 <= value <= MASK64:
        raise FourCardsError(f"{name}={value} must be in 0..2**64-1")
    return value


class Rng:
    """A SplitMix64 generator; the state is one 64-bit integer."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state: int = seed_in_range(seed)  # 2**64 would repeat seed 0's numbers, -1 those of 2**64-1

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + _GOLDEN) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (``1 <= n <= 2**64``; beyond, see
        :func:`fourcards.sampling.below_big`)."""
        if type(n) is not int or not 1 <= n <= _TWO64:
            n = _bound(n)
        threshold = (_TWO64 - n) % n
        while True:
            r = self.next_u64()
            if r >= threshold:
                return r % n

    def shuffle(self, items: MutableSequence[_T]) -> None:
        """Shuffle in place (Fisher-Yates, last index first): the swap at ``i`` with
        ``below(i + 1)``, the generator's steps inlined (searches shuffle in their loops)."""
        if not hasattr(type(items), "__setitem__") or not hasattr(type(items), "__len__"):
            raise InvalidTypeError(f"shuffle() needs a list (a mutable sequence), not {type(items).__name__}")
        state = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            threshold = ((1 << 64) - n) % n
            while True:
                state = (state + _GOLDEN) & MASK64
                z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
                z ^= z >> 31
                if z >= threshold:
                    break
            j = z % n
            items[i], items[j] = items[j], items[i]
        self.state = state

    def __repr__(self) -> str:
        return f"Rng.from_state({self.state:#x})"

    @classmethod
    def from_state(cls, state: int) -> Rng:
        """A generator continuing from a saved ``state`` (an int 0..2**64-1)."""
        rng = cls.__new__(cls)
        rng.state = seed_in_range(state, "state")
        return rng

    def __reduce__(self) -> tuple[Any, ...]:
        return Rng.from_state, (self.state,)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Rng) and other.state == self.state

    def __hash__(self) -> int:
        return hash(("Rng", self.state))


def _bound(n: Any) -> int:
    """``n`` checked as :meth:`Rng.below`'s bound: an int (numpy's too) in 1..2**64."""
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise InvalidTypeError(f"below() needs an int n, not {type(n).__name__}")
    bound = int(n)
    if not 1 <= bound <= _TWO64:  # above 2**64 no draw would be accepted: a loop without end
        raise FourCardsError(f"below() needs 1 <= n <= 2**64, got {bound}" if bound < 1 else
                             f"below() needs n <= 2**64, got an int of {bound.bit_length()} bits "
                             "(fourcards.sampling.below_big draws beyond)")
    return bound


def as_rng(value: Rng | int) -> Rng:
    """``value`` as a generator: an :class:`Rng` itself, or a seed (an int, numpy's too, not a
    bool) for a new one; TypeError naming ``rng`` otherwise.

    >>> as_rng(5) == Rng(5), as_rng(Rng(5)) == Rng(5)
    (True, True)
    """
    if isinstance(value, Rng):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):  # numpy's bool is no Integral
        return Rng(int(value))
    raise InvalidTypeError(f"rng must be a fourcards.rng.Rng or an int seed, not {type(value).__name__}")
