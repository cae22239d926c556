# The combination kernels' C level, for the other Gang of Four modules: the one
# ``GofTables`` (owned here, filled by ``gof_init``), the checks of arguments
# from Python (the same errors as the twin), and the lookups the hot loops
# inline (the classifier's perfect hash, the legal-action scan).
from libc.stdint cimport uint64_t, int32_t

from fourcards.gangoffour._gof cimport (
    GofTables, N_ACTIONS, BLOCK_BITS, BUCKET_BITS, SLOT_BITS, GANG_KIND,
)

cdef const GofTables* gof_tables() noexcept nogil

cdef object _index(object value, str name)
cdef uint64_t _as_mask(object mask) except? 0xFFFFFFFFFFFFFFFF
cdef int _as_action(object action, str name) except? -2
cdef Py_ssize_t _as_size(object value, str name, Py_ssize_t low, Py_ssize_t high) except? -2


cdef inline int _lookup(const GofTables* t, uint64_t mask) noexcept nogil:
    cdef uint64_t slot = ((mask * t.mul2) >> (64 - SLOT_BITS)) ^ t.displacement[(mask * t.mul1) >> (64 - BUCKET_BITS)]
    cdef int action = t.slot_action[slot]
    if action >= 0 and t.masks[action] == mask:
        return action
    return -1


cdef inline Py_ssize_t _scan(const GofTables* t, uint64_t hand, int lo, int hi, int32_t* out,
                             Py_ssize_t n) noexcept nogil:
    cdef uint64_t missing = ~hand
    cdef int run, end, j, stop
    if lo >= hi:
        return n
    run = t.run_of[lo]
    while lo < hi:
        end = t.run_end[run]
        if end > hi:
            end = hi
        if hand & t.run_lead[run]:
            while lo < end:
                stop = ((lo >> BLOCK_BITS) + 1) << BLOCK_BITS
                if stop > end:
                    stop = end
                if (t.block_need[lo >> BLOCK_BITS] & missing) == 0:
                    # Branch-free compaction: write every index, advance past the ones
                    # the hand holds (a branch here is mispredicted about half the time).
                    # ``out`` has room: it never runs ahead of the actions scanned.
                    for j in range(lo, stop):
                        out[n] = j
                        n += (t.masks[j] & missing) == 0
                lo = stop
        lo = end
        run += 1
    return n


cdef inline Py_ssize_t _legal(const GofTables* t, uint64_t hand, int table, int32_t* out) noexcept nogil:
    """Legal actions (sorted) from ``hand`` on ``table`` (-1: leading) into ``out``."""
    cdef Py_ssize_t n = 0
    cdef int gangs = t.kind_start[GANG_KIND]
    if table < 0:
        return _scan(t, hand, 0, N_ACTIONS, out, 0)
    if table >= gangs:
        return _scan(t, hand, table + 1, N_ACTIONS, out, 0)
    n = _scan(t, hand, table + 1, t.group_end[t.kind_of[table]], out, 0)
    return _scan(t, hand, gangs, N_ACTIONS, out, n)
