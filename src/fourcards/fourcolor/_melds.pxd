# The meld-splitting kernels' C level, for the other Four Color modules: the one
# ``FcTables`` (owned here, filled by ``fc_init``), the best points of a hand
# (``cdef inline``, so the parser's, the player's and the simulator's loops
# compile them in), and the split and the waits.
from libc.stdint cimport uint8_t, int16_t

from fourcards.fourcolor._fc cimport FcTables, _fc_indices

cdef const FcTables* fc_tables() noexcept nogil

cdef int _fc_split(const FcTables* t, const uint8_t* counts, int exposed_code, int* out,
                   int* n_out) noexcept nogil
cdef void _fc_wait_points(const FcTables* t, const uint8_t* counts, const uint8_t* on_table, bint from_discard,
                          int16_t* out) noexcept nogil


cdef inline int _fc_best_plain(const FcTables* t, const uint8_t* counts) noexcept nogil:
    """Best concealed points of a complete split (-1: none, -2: a count above 4)."""
    cdef int index[5]
    cdef int a, b, c, d, e, neg
    if _fc_indices(counts, index):
        return -2
    a = t.colour_best[index[0]]
    b = t.colour_best[index[1]]
    c = t.colour_best[index[2]]
    d = t.colour_best[index[3]]
    e = t.soldier_best[index[4]]
    # branch-free: -1 when any block fails to split (half of random hands)
    neg = (a | b | c | d | e) >> 31
    return ((a + b + c + d + e) & ~neg) | neg


cdef inline int _fc_best(const FcTables* t, const uint8_t* counts, int exposed_code) noexcept nogil:
    """Best points of a complete split (-1: none, -2: a count above 4)."""
    cdef int index[5]
    cdef int block, r, c, total = 0, best_block, m, sub, n, shifted, take
    cdef bint fits
    if exposed_code < 0:
        return _fc_best_plain(t, counts)
    if _fc_indices(counts, index):
        return -2
    block = -1
    if exposed_code >= 0:
        block = 4 if exposed_code % 7 == 6 else exposed_code // 7
    for c in range(5):
        if c == block:
            continue
        sub = t.colour_best[index[c]] if c < 4 else t.soldier_best[index[c]]
        if sub < 0:
            return -1
        total += sub
    if block < 0:
        return total
    # The meld holding the card from a discard is scored exposed: try each.
    best_block = -1
    for m in range(t.meld_count[exposed_code]):
        shifted = index[block]
        fits = True
        for r in range(6 if block < 4 else 4):
            take = t.meld_take[exposed_code][m][r]
            if take:
                n = index[block] // t.pow5[r] % 5
                if n < take:
                    fits = False
                    break
                shifted -= take * t.pow5[r]
        if not fits:
            continue
        sub = t.colour_best[shifted] if block < 4 else t.soldier_best[shifted]
        if sub >= 0 and sub + t.exposed_points[t.meld_kind[exposed_code][m]] > best_block:
            best_block = sub + t.exposed_points[t.meld_kind[exposed_code][m]]
    if best_block < 0:
        return -1
    return total + best_block
