# The card parser's C level: card text to a canonical mask, for other modules.
from libc.stdint cimport uint64_t

from fourcards.gangoffour._gof cimport GofTables

cdef int _text_mask(const GofTables* t, str text, uint64_t* out) except -2
