# cython: language_level=3
"""The compiled Four Color fast path of the public functions: a list or tuple of
``Card`` (or card names), or 28 small ints, read in C.

Anything else answers ``FALLBACK``, and the Python path (which raises the
proper errors) takes over.  The kernels are the meld splitter's (``_melds``).
"""

from libc.stdint cimport uint8_t, int16_t
from libc.string cimport memset
from cpython.ref cimport PyObject, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from fourcards.fourcolor._fc cimport FcTables, FC_KINDS, FC_NUM_MELDS, FC_MAX_SPLIT
from fourcards.fourcolor._melds cimport fc_tables, _fc_best_plain, _fc_best, _fc_split, _fc_wait_points

cdef const FcTables* _t = fc_tables()

cdef extern from "Python.h":
    PyObject** PySequence_Fast_ITEMS(object)
    Py_ssize_t PySequence_Fast_GET_SIZE(object)
    bint PyLong_CheckExact(PyObject*)
    bint PyUnicode_CheckExact(PyObject*)
    long PyLong_AsLongAndOverflow(PyObject*, int*) except? -1
    PyObject* PyDict_GetItem(object, PyObject*)
    int PyObject_GenericSetAttr(object, object, object) except -1

cdef enum:
    FC_SLOTS = 128

cdef PyObject* _fc_card_ptr[FC_SLOTS]
cdef int _fc_card_code[FC_SLOTS]
cdef object _fc_cards = None          # the 28 Card objects (kept alive here)
cdef object _fc_names = None          # "RG" -> 0, ...
cdef object _fc_concealed = None      # Meld objects by action index, concealed
cdef object _fc_exposed_melds = None  # ... and exposed
cdef object _fc_split_type = None     # the Split class
cdef bint _fc_registered = False

#: What the fast entry points answer when the Python path must decide.
FALLBACK = object()


cdef inline int _fc_slot(PyObject* ptr) noexcept nogil:
    return <int>(((<size_t>ptr) >> 4) % FC_SLOTS)


def fc_register(cards, names, concealed, exposed, split_type):
    """Give the fast path the public objects: the 28 ``Card`` s in code order, the
    names' codes, the concealed and exposed ``Meld`` of every action index, ``Split``."""
    global _fc_cards, _fc_names, _fc_concealed, _fc_exposed_melds, _fc_split_type, _fc_registered
    cdef int i, s
    cdef PyObject* ptr
    if len(cards) != FC_KINDS or len(concealed) != FC_NUM_MELDS or len(exposed) != FC_NUM_MELDS:
        raise ValueError("fc_register needs 28 cards and 89 melds of each kind")
    _fc_registered = False
    for s in range(FC_SLOTS):
        _fc_card_ptr[s] = NULL
    _fc_cards = tuple(cards)
    for i in range(FC_KINDS):
        ptr = <PyObject*>_fc_cards[i]
        s = _fc_slot(ptr)
        while _fc_card_ptr[s] != NULL:
            s = (s + 1) % FC_SLOTS
        _fc_card_ptr[s] = ptr
        _fc_card_code[s] = i
    _fc_names = dict(names)
    _fc_concealed = tuple(concealed)
    _fc_exposed_melds = tuple(exposed)
    _fc_split_type = split_type
    _fc_registered = True


cdef inline int _fc_card(PyObject* item) noexcept:
    """The code of a registered Card object, else -1."""
    cdef int s = _fc_slot(item)
    while _fc_card_ptr[s] != NULL:
        if _fc_card_ptr[s] == item:
            return _fc_card_code[s]
        s = (s + 1) % FC_SLOTS
    return -1


cdef int _fc_read_hand(object hand, uint8_t* counts):
    """28 counts from a list or tuple of Card, card names or 28 small ints;
    0: done; 1: anything else (or a count above 4), for the Python path."""
    cdef Py_ssize_t n, i
    cdef PyObject** items
    cdef PyObject* item
    cdef PyObject* found
    cdef int code, overflow = 0
    cdef long value
    memset(counts, 0, FC_KINDS)
    if not _fc_registered or (type(hand) is not list and type(hand) is not tuple):
        return 1
    n = PySequence_Fast_GET_SIZE(hand)
    items = PySequence_Fast_ITEMS(hand)
    if n == FC_KINDS and n and PyLong_CheckExact(items[0]):
        for i in range(n):
            item = items[i]
            if not PyLong_CheckExact(item):
                return 1
            value = PyLong_AsLongAndOverflow(item, &overflow)
            if overflow or not 0 <= value <= 4:
                return 1
            counts[i] = <uint8_t>value
        return 0
    for i in range(n):
        item = items[i]
        code = _fc_card(item)
        if code < 0:
            if not PyUnicode_CheckExact(item):
                return 1
            found = PyDict_GetItem(_fc_names, item)
            if found == NULL:
                return 1
            code = <int>(<object>found)
        if counts[code] == 4:
            return 1
        counts[code] += 1
    return 0


def fc_is_complete_hand(hand):
    """Whether a hand (see ``_fc_read_hand``) splits; FALLBACK for the Python path."""
    cdef uint8_t counts[FC_KINDS]
    if _fc_read_hand(hand, counts):
        return FALLBACK
    return _fc_best_plain(_t, counts) >= 0


def fc_best_points_hand(hand, exposed_code=-1):
    """Best points of a hand (-1: no split); FALLBACK for the Python path."""
    cdef uint8_t counts[FC_KINDS]
    cdef long code
    if type(exposed_code) is not int:
        return FALLBACK
    code = exposed_code if -1 <= exposed_code < FC_KINDS else -2
    if code == -2 or _fc_read_hand(hand, counts):
        return FALLBACK
    return _fc_best(_t, counts, code)


def fc_best_split_hand(hand):
    """The public ``Split`` of a hand (None: no split); FALLBACK for the Python path."""
    cdef uint8_t counts[FC_KINDS]
    cdef int melds[FC_MAX_SPLIT]
    cdef int n, total, i
    if _fc_read_hand(hand, counts):
        return FALLBACK
    total = _fc_split(_t, counts, -1, melds, &n)
    if total < 0:
        return None
    result = PyTuple_New(n)
    for i in range(n):
        meld = _fc_concealed[melds[i]]
        Py_INCREF(meld)
        PyTuple_SET_ITEM(result, i, meld)
    split = _fc_split_type.__new__(_fc_split_type)
    PyObject_GenericSetAttr(split, "melds", result)
    PyObject_GenericSetAttr(split, "points", total)
    return split


def fc_waits_hand(hand, bint from_discard=False):
    """The public ``waits`` of a hand: ``{Card: points}``; FALLBACK for the Python path."""
    cdef uint8_t counts[FC_KINDS]
    cdef uint8_t none[FC_KINDS]
    cdef int16_t out[FC_KINDS]
    cdef int k
    if _fc_read_hand(hand, counts):
        return FALLBACK
    memset(none, 0, FC_KINDS)
    _fc_wait_points(_t, counts, none, from_discard, out)
    result = {}
    for k in range(FC_KINDS):
        if out[k] >= 0:
            result[_fc_cards[k]] = out[k]
    return result


