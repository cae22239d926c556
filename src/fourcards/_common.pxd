# What every game's compiled kernels share, written once: the portable bit
# helpers and the SplitMix64 generator that must match fourcards.rng (the
# tests check the C and Python streams against published vectors).
# Inline functions in a .pxd are compiled into each module that cimports them.
from libc.stdint cimport uint64_t

cdef extern from "_bits.h":
    int fc_popcount64(uint64_t x) noexcept nogil
    int fc_ctz64(uint64_t x) noexcept nogil


cdef inline uint64_t _splitmix_next(uint64_t* state) noexcept nogil:
    """The next output of SplitMix64 (fourcards.rng.Rng.next_u64)."""
    cdef uint64_t z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _below(uint64_t* state, uint64_t n) noexcept nogil:
    """Uniform in 0..n-1 (n >= 1): rejection below (2**64 - n) % n, as fourcards.rng.Rng.below."""
    cdef uint64_t threshold = (<uint64_t>0 - n) % n
    cdef uint64_t r
    while True:
        r = _splitmix_next(state)
        if r >= threshold:
            return r % n


cdef inline uint64_t _seed_stream(uint64_t seed, uint64_t stream) noexcept nogil:
    """fourcards.engine.derive_seed."""
    cdef uint64_t state = seed + stream * 0xD1B54A32D192ED03ULL
    return _splitmix_next(&state)
