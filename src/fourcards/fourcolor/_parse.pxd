# The fast path's C level: a hand read from Python into 28 counts, for other modules.
from libc.stdint cimport uint8_t

cdef int _fc_read_hand(object hand, uint8_t* counts)
