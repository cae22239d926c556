# cython: language_level=3
"""The compiled Zangle kernel: every Zangle from the centre and a player's
own cards (the twin: ``fourcards.zangle.cards``)."""

from cpython.long cimport PyLong_AsLongLongAndOverflow
from libc.stdint cimport uint64_t, uint8_t
from libc.string cimport memcpy
from libc.stdlib cimport malloc, free, realloc

import numpy as np
cimport numpy as cnp

cnp.import_array()

# =============================================================================
# Zangle: every Zangle from the centre and a player's own cards.
# Cards are counted by kind (0 = Z, 1..10 = shapes) and place (0 centre,
# 1 own), packed 4 bits a kind (kind k at bit 4k).  A result row is
# [target kind, target place, count of (kind, place) for kind 0..10, place 0..1].
# =============================================================================

cdef enum:
    ZK = 11
    ZROW = 24
    ZMAX_TILINGS = 16

cdef uint8_t _z_tilings[ZK][ZMAX_TILINGS][ZK]
cdef int _z_n_tilings[ZK]
cdef bint _z_ready = False


def zangle_init(tilings):
    """Load the tiling table: ``tilings[target]`` lists piece count vectors (11 kinds)."""
    global _z_ready
    cdef int t, i, k
    for t in range(ZK):
        rows = tilings.get(t, ())
        if len(rows) > ZMAX_TILINGS:
            raise ValueError("too many tilings for one target")
        _z_n_tilings[t] = len(rows)
        for i, row in enumerate(rows):
            for k in range(ZK):
                _z_tilings[t][i][k] = row[k]
    _z_ready = True


cdef int _z_emit(uint8_t** out, Py_ssize_t* capacity, Py_ssize_t n, int target, int place,
                 const int* pieces) noexcept nogil:
    """Append a row; -1 if memory ran out."""
    cdef uint8_t* grown
    cdef int k
    if n >= capacity[0]:
        grown = <uint8_t*>realloc(out[0], 2 * capacity[0] * ZROW)
        if grown == NULL:
            return -1
        out[0] = grown
        capacity[0] *= 2
    out[0][n * ZROW] = target
    out[0][n * ZROW + 1] = place
    for k in range(2 * ZK):
        out[0][n * ZROW + 2 + k] = pieces[k]
    return 0


cdef Py_ssize_t _z_find(const int* centre, const int* own, uint8_t** out, Py_ssize_t* capacity,
                        Py_ssize_t limit=-1) noexcept nogil:
    """Every Zangle, in the order of fourcards.zangle.cards.find_zangles (the first ``limit``
    when it is not -1); -1 out of memory."""
    cdef int rest[2][ZK]
    cdef int low[ZK]
    cdef int high[ZK]
    cdef int split[ZK]
    cdef int kinds[ZK]
    cdef int pieces[2 * ZK]
    cdef int target, place, t, k, m, nk, zc, zo, count, pos
    cdef bint ok, uses_centre, uses_own
    cdef Py_ssize_t n = 0
    for target in range(1, ZK):
        for place in range(2):
            if (centre if place == 0 else own)[target] == 0:
                continue
            for k in range(ZK):
                rest[0][k] = centre[k]
                rest[1][k] = own[k]
            rest[place][target] -= 1
            for t in range(_z_n_tilings[target]):
                ok = True
                nk = 0
                for k in range(1, ZK):
                    if _z_tilings[target][t][k]:
                        low[nk] = _z_tilings[target][t][k] - rest[1][k]
                        if low[nk] < 0:
                            low[nk] = 0
                        high[nk] = _z_tilings[target][t][k]
                        if high[nk] > rest[0][k]:
                            high[nk] = rest[0][k]
                        if low[nk] > high[nk]:
                            ok = False
                            break
                        kinds[nk] = k
                        split[nk] = low[nk]
                        nk += 1
                if not ok:
                    continue
                while True:
                    # one way of taking the tiling's pieces from the two places
                    for k in range(2 * ZK):
                        pieces[k] = 0
                    count = 0
                    for m in range(nk):
                        pieces[2 * kinds[m]] = split[m]
                        pieces[2 * kinds[m] + 1] = _z_tilings[target][t][kinds[m]] - split[m]
                        count += _z_tilings[target][t][kinds[m]]
                    for zc in range(rest[0][0] + 1):
                        for zo in range(rest[1][0] + 1):
                            if count + zc + zo < 2:
                                continue
                            uses_centre = place == 0 or zc > 0
                            uses_own = place == 1 or zo > 0
                            for m in range(nk):
                                if split[m] > 0:
                                    uses_centre = True
                                if _z_tilings[target][t][kinds[m]] - split[m] > 0:
                                    uses_own = True
                            if not (uses_centre and uses_own):
                                continue
                            pieces[0] = zc
                            pieces[1] = zo
                            if _z_emit(out, capacity, n, target, place, pieces) < 0:
                                return -1
                            n += 1
                            if n == limit:
                                return n
                    # next split (odometer over the kinds, the last kind fastest)
                    pos = nk - 1
                    while pos >= 0:
                        if split[pos] < high[pos]:
                            split[pos] += 1
                            break
                        split[pos] = low[pos]
                        pos -= 1
                    if pos < 0:
                        break
    return n


cdef uint64_t _packed(object value, str name) except? 0xFFFFFFFFFFFFFFFF:
    cdef int overflow = 0
    cdef long long exact
    if type(value) is int:  # the common case, without a call into Python
        exact = PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow == 0 and 0 <= exact < (1LL << (4 * ZK)):
            return <uint64_t>exact
    from fourcards.zangle.cards import check_packed  # refuses with the twin's error
    return <uint64_t>check_packed(value, name)


cdef inline void _z_unpack(uint64_t packed, int* counts) noexcept nogil:
    cdef int k
    for k in range(ZK):
        counts[k] = (packed >> (4 * k)) & 15


def zangle_find_packed(centre, own):
    """Every Zangle as rows of a ``uint8`` array (see above) from packed card counts
    (ints of 44 bits; anything else is refused, as by the twin)."""
    cdef uint64_t c_centre = _packed(centre, "centre"), c_own = _packed(own, "own")
    cdef int c[ZK]
    cdef int o[ZK]
    cdef Py_ssize_t capacity = 64, n
    cdef uint8_t* rows
    cdef cnp.npy_intp dims[2]
    if not _z_ready:
        raise RuntimeError("the Zangle tables are not loaded")
    _z_unpack(c_centre, c)
    _z_unpack(c_own, o)
    rows = <uint8_t*>malloc(capacity * ZROW)
    if rows == NULL:
        raise MemoryError()
    try:
        with nogil:
            n = _z_find(c, o, &rows, &capacity)
        if n < 0:
            raise MemoryError()
        dims[0] = n
        dims[1] = ZROW
        result = cnp.PyArray_EMPTY(2, dims, cnp.NPY_UINT8, 0)
        if n:
            memcpy(cnp.PyArray_DATA(result), rows, n * ZROW)
        return result
    finally:
        free(rows)


def zangle_any_packed(centre, own):
    """Whether there is any Zangle, from packed card counts (checked as by
    ``zangle_find_packed``): it stops at the first one found."""
    cdef uint64_t c_centre = _packed(centre, "centre"), c_own = _packed(own, "own")
    cdef int c[ZK]
    cdef int o[ZK]
    cdef Py_ssize_t capacity = 1, n
    cdef uint8_t row[ZROW]
    cdef uint8_t* rows = row
    if not _z_ready:
        raise RuntimeError("the Zangle tables are not loaded")
    _z_unpack(c_centre, c)
    _z_unpack(c_own, o)
    with nogil:
        n = _z_find(c, o, &rows, &capacity, 1)
    return n > 0
