# C-level entry points of the compiled core, for other Cython modules.
from libc.stdint cimport uint64_t, int32_t, int8_t, uint8_t

cdef Py_ssize_t _legal(uint64_t hand, int table, int32_t* out) noexcept nogil
cdef Py_ssize_t _classify_rows(const uint8_t* codes, Py_ssize_t rows, Py_ssize_t width,
                               int8_t* kinds, int32_t* actions) noexcept nogil
