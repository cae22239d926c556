# The search's C level: the tree's node and the search object (the methods
# run without the GIL; see _search.pyx).
from libc.stdint cimport uint64_t, int32_t, uint32_t

from fourcards.gangoffour._gof cimport GofMatch, MAX_LEGAL

ctypedef struct SearchNode:
    int32_t action
    int32_t parent
    int32_t first_child
    int32_t next_sibling
    int32_t mover
    uint32_t visits
    uint32_t available
    double reward


cdef class GofSearch:
    cdef SearchNode* nodes
    cdef int capacity
    cdef int count
    cdef GofMatch root
    cdef uint64_t unknown          # additive mask of the cards the player cannot see
    cdef uint64_t known[4]         # additive: cards a seat is known to hold
    cdef int sizes[4]
    cdef uint64_t rng
    cdef double exploration
    cdef int me
    cdef int32_t legal[MAX_LEGAL]
    cdef int32_t path[4096]
    cdef public long iterations
    cdef bint busy                 # run() is searching (without the GIL)

    cdef void _check_idle(self) except *
    cdef void _determinize(self, GofMatch* m) noexcept nogil
    cdef int _child(self, int node, int action) noexcept nogil
    cdef int _add_child(self, int node, int action, int mover) noexcept nogil
    cdef void _iterate(self) noexcept nogil
