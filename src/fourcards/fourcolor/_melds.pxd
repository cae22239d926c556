# The meld-splitting kernels' C level, for the other Four Color modules: the one
# ``FcTables`` (owned here, filled by ``fc_init``), the best concealed points
# of a hand (``cdef inline``, so the simulator's loop compiles it in), and the
# best points with a meld exposed, the split and the waits (called once a
# decision, a round or a Python call: across modules is cheap there).
from libc.stdint cimport uint8_t, int16_t

from fourcards.fourcolor._fc cimport FcTables, _fc_indices

cdef const FcTables* fc_tables() noexcept nogil

cdef int _fc_best(const FcTables* t, const uint8_t* counts, int exposed_code) noexcept nogil
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
