# cython: language_level=3
"""What the games' compiled kernels share that Python can call: the C random
generator's test vectors and the *call floor* the benchmarks measure against.

The kernels themselves live in each game's folder, one extension per concern
(``fourcards.gangoffour._combos``, ``_parse``, ``_sim``, ``_bots``, ``_search``,
``_playouts``, ``_vector``; ``fourcards.fourcolor._melds``, ``_parse``, ``_bots``,
``_sim``; ``fourcards.zangle._core``), and cimport the shared inline helpers
from ``fourcards/_common.pxd``.
"""

from libc.stdint cimport uint64_t

from fourcards._common cimport _below, _splitmix_next


def rng_outputs(uint64_t seed, int count, uint64_t bound=0):
    """The first ``count`` outputs of the C SplitMix64 seeded with ``seed``
    (``bound > 0``: of ``below(bound)``): test vectors against fourcards.rng."""
    cdef uint64_t state = seed
    cdef int i
    result = []
    for i in range(count):
        result.append(_below(&state, bound) if bound else _splitmix_next(&state))
    return result


def rng_shuffle(uint64_t seed, int count):
    """``list(range(count))`` shuffled by the C Fisher-Yates (test vectors)."""
    cdef uint64_t state = seed
    cdef int i, j
    items = list(range(count))
    for i in range(count - 1, 0, -1):
        j = <int>_below(&state, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def call_floor(uint64_t hand, int table=-1):
    """A trivial compiled function with the kernels' arguments: the benchmark yardstick."""
    return table


def call_floor_pair(uint64_t first, uint64_t second):
    """A trivial compiled function taking two 64-bit integers (packed Zangle cards)."""
    return first


def call_floor_object(object value, int option=-1):
    """A trivial compiled function taking any object (a packed Four Color hand)."""
    return option


