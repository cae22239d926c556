# cython: language_level=3
"""The compiled Four Color Cards kernels: the best split of a hand into melds.

Each kernel has a pure-Python twin (``fourcards.fourcolor._reference``); the
tests check that they agree.
"""

from libc.stdint cimport uint64_t, uint32_t, int32_t, int16_t, uint8_t, int8_t
from libc.string cimport memcpy

import numpy as np

# =============================================================================
# Four Color Cards: the best split of a hand into melds, by block tables.
# A colour block (ranks General..Cannon of one colour, counts 0..4) has 5**6
# states; the soldier block (soldiers by colour) 5**4.  Each table holds the
# best concealed points of a complete split of that block (-1: none).
# =============================================================================

cdef enum:
    FC_KINDS = 28
    FC_COLOUR_STATES = 15625
    FC_SOLDIER_STATES = 625

cdef int8_t _fc_colour_best[FC_COLOUR_STATES]
cdef int8_t _fc_soldier_best[FC_SOLDIER_STATES]
cdef int _fc_pow5[8]
cdef bint _fc_ready = False
# (exposed, concealed) points by meld kind, as fourcolor._deck.POINTS
cdef int _fc_exposed_points[9]
cdef int _fc_concealed_points[9]
# The melds holding each kind, within its block: kind, and the count taken of
# each rank (colour blocks: ranks 0..5; soldier block: colours 0..3).
cdef int _fc_meld_count[FC_KINDS]
cdef int _fc_meld_kind[FC_KINDS][8]
cdef int _fc_meld_take[FC_KINDS][8][6]


cdef int _fc_colour(int index) noexcept nogil:
    """Best concealed points of a colour block state (memoised in the table)."""
    cdef int counts[6]
    cdef int r, best = -1, sub, first = -1, rest
    if index == 0:
        return 0
    if _fc_colour_best[index] != -2:
        return _fc_colour_best[index]
    for r in range(6):
        counts[r] = index // _fc_pow5[r] % 5
        if first < 0 and counts[r]:
            first = r
    # every meld holding one card of the lowest rank present
    if first == 0:  # General: alone, four of them, or with Advisor and Elephant
        sub = _fc_colour(index - 1)
        if sub >= 0 and 1 + sub > best:
            best = 1 + sub
        if counts[0] == 4:
            sub = _fc_colour(index - 4)
            if sub >= 0 and 6 + sub > best:
                best = 6 + sub
        if counts[1] and counts[2]:
            sub = _fc_colour(index - 1 - _fc_pow5[1] - _fc_pow5[2])
            if sub >= 0 and 2 + sub > best:
                best = 2 + sub
    else:
        if counts[first] >= 2:
            sub = _fc_colour(index - 2 * _fc_pow5[first])
            if sub >= 0 and sub > best:
                best = sub
        if counts[first] >= 3:
            sub = _fc_colour(index - 3 * _fc_pow5[first])
            if sub >= 0 and 3 + sub > best:
                best = 3 + sub
        if counts[first] == 4:
            sub = _fc_colour(index - 4 * _fc_pow5[first])
            if sub >= 0 and 8 + sub > best:
                best = 8 + sub
        if first == 3 and counts[4] and counts[5]:
            sub = _fc_colour(index - _fc_pow5[3] - _fc_pow5[4] - _fc_pow5[5])
            if sub >= 0 and 1 + sub > best:
                best = 1 + sub
    _fc_colour_best[index] = best
    return best


cdef int _fc_soldiers(int index) noexcept nogil:
    cdef int counts[4]
    cdef int c, a, b, best = -1, sub, first = -1
    if index == 0:
        return 0
    if _fc_soldier_best[index] != -2:
        return _fc_soldier_best[index]
    for c in range(4):
        counts[c] = index // _fc_pow5[c] % 5
        if first < 0 and counts[c]:
            first = c
    if counts[first] >= 3:
        sub = _fc_soldiers(index - 3 * _fc_pow5[first])
        if sub >= 0 and 3 + sub > best:
            best = 3 + sub
    if counts[first] == 4:
        sub = _fc_soldiers(index - 4 * _fc_pow5[first])
        if sub >= 0 and 8 + sub > best:
            best = 8 + sub
    for a in range(first + 1, 4):  # three soldiers: the first colour and two higher ones
        for b in range(a + 1, 4):
            if counts[a] and counts[b]:
                sub = _fc_soldiers(index - _fc_pow5[first] - _fc_pow5[a] - _fc_pow5[b])
                if sub >= 0 and 3 + sub > best:
                    best = 3 + sub
    if first == 0 and counts[1] and counts[2] and counts[3]:
        sub = _fc_soldiers(index - 1 - _fc_pow5[1] - _fc_pow5[2] - _fc_pow5[3])
        if sub >= 0 and 5 + sub > best:
            best = 5 + sub
    _fc_soldier_best[index] = best
    return best


def fc_init(melds_by_kind, points):
    """Build the block tables; ``melds_by_kind[k]`` lists ``(meld kind, codes)``
    of every meld holding kind ``k`` (from fourcards.fourcolor._reference)."""
    global _fc_ready
    cdef int i, k, m, c
    _fc_pow5[0] = 1
    for i in range(1, 8):
        _fc_pow5[i] = 5 * _fc_pow5[i - 1]
    for i in range(9):
        _fc_exposed_points[i] = points[i][0]
        _fc_concealed_points[i] = points[i][1]
    for i in range(FC_COLOUR_STATES):
        _fc_colour_best[i] = -2
    for i in range(FC_SOLDIER_STATES):
        _fc_soldier_best[i] = -2
    _fc_colour_best[0] = 0
    _fc_soldier_best[0] = 0
    for i in range(FC_COLOUR_STATES):
        _fc_colour(i)
    for i in range(FC_SOLDIER_STATES):
        _fc_soldiers(i)
    for k in range(FC_KINDS):
        melds = melds_by_kind[k]
        if len(melds) > 8:
            raise ValueError("too many melds for one kind")
        _fc_meld_count[k] = len(melds)
        for m, (kind, codes) in enumerate(melds):
            _fc_meld_kind[k][m] = kind
            for i in range(6):
                _fc_meld_take[k][m][i] = 0
            for c in codes:
                if k % 7 == 6:
                    _fc_meld_take[k][m][c // 7] += 1
                else:
                    _fc_meld_take[k][m][c % 7] += 1
    _fc_ready = True


cdef inline int _fc_indices(const uint8_t* counts, int* index) noexcept nogil:
    """Block indices of 28 counts; non-zero if a count is above 4."""
    cdef int c
    cdef const uint8_t* k
    cdef uint64_t w0, w1, w2
    cdef uint32_t w3
    # Any byte above 4: adding 123 sets its top bit (a byte of 128 or more has it already).
    memcpy(&w0, counts, 8)
    memcpy(&w1, counts + 8, 8)
    memcpy(&w2, counts + 16, 8)
    memcpy(&w3, counts + 24, 4)
    if ((((w0 + 0x7B7B7B7B7B7B7B7BULL) | w0) | ((w1 + 0x7B7B7B7B7B7B7B7BULL) | w1)
            | ((w2 + 0x7B7B7B7B7B7B7B7BULL) | w2)) & 0x8080808080808080ULL) \
            or ((((w3 + 0x7B7B7B7BU) | w3)) & 0x80808080U):
        return 1
    for c in range(4):
        k = counts + 7 * c
        index[c] = k[0] + 5 * k[1] + 25 * k[2] + 125 * k[3] + 625 * k[4] + 3125 * k[5]
    index[4] = counts[6] + 5 * counts[13] + 25 * counts[20] + 125 * counts[27]
    return 0


cdef inline int _fc_best_plain(const uint8_t* counts) noexcept nogil:
    """Best concealed points of a complete split (-1: none, -2: a count above 4)."""
    cdef int index[5]
    cdef int a, b, c, d, e, neg
    if _fc_indices(counts, index):
        return -2
    a = _fc_colour_best[index[0]]
    b = _fc_colour_best[index[1]]
    c = _fc_colour_best[index[2]]
    d = _fc_colour_best[index[3]]
    e = _fc_soldier_best[index[4]]
    # branch-free: -1 when any block fails to split (half of random hands)
    neg = (a | b | c | d | e) >> 31
    return ((a + b + c + d + e) & ~neg) | neg


cdef int _fc_best(const uint8_t* counts, int exposed_code) noexcept nogil:
    """Best points of a complete split (-1: none, -2: a count above 4)."""
    cdef int index[5]
    cdef int block, r, c, total = 0, best_block, m, sub, n, shifted, take
    cdef bint fits
    if exposed_code < 0:
        return _fc_best_plain(counts)
    if _fc_indices(counts, index):
        return -2
    block = -1
    if exposed_code >= 0:
        block = 4 if exposed_code % 7 == 6 else exposed_code // 7
    for c in range(5):
        if c == block:
            continue
        sub = _fc_colour_best[index[c]] if c < 4 else _fc_soldier_best[index[c]]
        if sub < 0:
            return -1
        total += sub
    if block < 0:
        return total
    # The meld holding the card from a discard is scored exposed: try each.
    best_block = -1
    for m in range(_fc_meld_count[exposed_code]):
        shifted = index[block]
        fits = True
        for r in range(6 if block < 4 else 4):
            take = _fc_meld_take[exposed_code][m][r]
            if take:
                n = index[block] // _fc_pow5[r] % 5
                if n < take:
                    fits = False
                    break
                shifted -= take * _fc_pow5[r]
        if not fits:
            continue
        sub = _fc_colour_best[shifted] if block < 4 else _fc_soldier_best[shifted]
        if sub >= 0 and sub + _fc_exposed_points[_fc_meld_kind[exposed_code][m]] > best_block:
            best_block = sub + _fc_exposed_points[_fc_meld_kind[exposed_code][m]]
    if best_block < 0:
        return -1
    return total + best_block


cdef inline void _fc_check(int exposed_code) except *:
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if not -1 <= exposed_code < FC_KINDS:
        raise ValueError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")


def fc_best_points_packed(object packed, int exposed_code=-1):
    """Best points of a complete split of a packed hand (3 bits a kind, kind
    ``k`` at bit ``3k``); -1: none; -2: a count above 4."""
    cdef uint8_t counts[FC_KINDS]
    cdef uint64_t low, high
    cdef int k
    _fc_check(exposed_code)
    if packed < 0 or packed >> 84:
        raise OverflowError(f"packed hand {packed:#x} does not fit in 84 bits")
    low = <uint64_t>(packed & 0xFFFFFFFFFFFFFFFF)
    high = <uint64_t>(packed >> 64)
    for k in range(21):
        counts[k] = (low >> (3 * k)) & 7
    counts[21] = ((low >> 63) | (high << 1)) & 7
    for k in range(22, FC_KINDS):
        counts[k] = (high >> (3 * k - 64)) & 7
    return _fc_best(counts, exposed_code)


def fc_best_points(counts, int exposed_code=-1):
    """Best points of a complete split of 28 counts; -1: none; -2: a count above 4."""
    cdef const uint8_t[::1] view = np.ascontiguousarray(counts, dtype=np.uint8)
    _fc_check(exposed_code)
    if view.shape[0] != FC_KINDS:
        raise ValueError(f"a hand is 28 counts, got {view.shape[0]}")
    return _fc_best(&view[0], exposed_code)


def fc_block_best(int block, int index):
    """Best concealed points of a block state (0..3 colour blocks, 4 soldiers); -1: none."""
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if block < 4:
        if not 0 <= index < FC_COLOUR_STATES:
            raise ValueError(f"colour block index {index} out of range")
        return _fc_colour_best[index]
    if block != 4 or not 0 <= index < FC_SOLDIER_STATES:
        raise ValueError(f"block {block} / index {index} out of range")
    return _fc_soldier_best[index]


def fc_best_points_batch(counts, exposed=None):
    """Best points (int16; -1 none, -2 a count above 4) of rows of 28 counts, without the GIL."""
    cdef const uint8_t[:, ::1] rows = np.ascontiguousarray(counts, dtype=np.uint8)
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef const int8_t[::1] exposed_view
    if rows.shape[1] != FC_KINDS:
        raise ValueError(f"rows must hold 28 counts, got {rows.shape[1]}")
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    cdef bint all_plain = exposed is None
    if exposed is None:
        exposed = np.full(n, -1, dtype=np.int8)
    exposed_view = np.ascontiguousarray(exposed, dtype=np.int8)
    if exposed_view.shape[0] != n:
        raise ValueError("one exposed code a row")
    for i in range(n):
        if not -1 <= exposed_view[i] < FC_KINDS:
            raise ValueError(f"exposed code {exposed_view[i]} in row {i} is not a card code")
    out = np.empty(n, dtype=np.int16)
    cdef int16_t[::1] out_view = out
    if n == 0:
        return out
    cdef const uint8_t* base = &rows[0, 0]
    with nogil:
        if all_plain:
            for i in range(n):
                out_view[i] = <int16_t>_fc_best_plain(base + FC_KINDS * i)
        else:
            for i in range(n):
                out_view[i] = <int16_t>_fc_best(base + FC_KINDS * i, exposed_view[i])
    return out

