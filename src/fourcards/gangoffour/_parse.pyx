# cython: language_level=3
"""The compiled Gang of Four card parser: the fast path of ``Card`` lists and
card text to a canonical mask or an action index.

Anything odd (bad text, impossible sets, other types) answers -1 (-2 from
``fast_classify``) and the careful Python path, which reports the error, takes
over.  The twin is ``fourcards.gangoffour._reference``.
"""

from libc.stdint cimport uint64_t

from fourcards._common cimport fc_popcount64
from fourcards.gangoffour._gof cimport GofTables
from fourcards.gangoffour._combos cimport gof_tables, _lookup

cdef const GofTables* _t = gof_tables()

cdef object _card_type = None


def set_card_type(card_type):
    """Register the ``Card`` class whose instances carry a ``_bit`` slot."""
    global _card_type
    _card_type = card_type


cdef inline int _code_of(Py_UCS4 colour, int value) noexcept:
    """Card code of a colour letter (upper case) and a value; -1 if none."""
    cdef int c
    if colour == u'M':
        return 3 if value == 1 else -1
    if colour == u'G':
        c = 0
    elif colour == u'Y':
        c = 1
    elif colour == u'R':
        c = 2
    else:
        return -1
    if value == 1:
        return c
    if 2 <= value <= 10:
        return 4 + 3 * (value - 2) + c
    return -1


cdef int _text_mask(const GofTables* t, str text, uint64_t* out) except -2:
    """Parse card text into a canonical mask; 0 on success, -1 on anything odd."""
    cdef Py_ssize_t i = 0, n = len(text)
    cdef Py_UCS4 ch, colour, second, digit
    cdef int code, value, cards = 0
    cdef uint64_t add = 0, mask
    while i < n:
        ch = text[i]
        if ch == u' ' or ch == u',' or ch == u'\t' or ch == u'\n' or ch == u'\r':
            i += 1
            continue
        if u'a' <= ch <= u'z':
            ch = <Py_UCS4>(<int>ch - 32)
        colour = ch
        i += 1
        if i >= n:
            return -1
        second = text[i]
        if u'a' <= second <= u'z':
            second = <Py_UCS4>(<int>second - 32)
        if second == u'P' or second == u'D':
            if colour == u'G' and second == u'P':
                code = 31
            elif colour == u'Y' and second == u'P':
                code = 32
            elif colour == u'R' and second == u'D':
                code = 33
            else:
                return -1
            i += 1
        else:
            value = 0
            if i < n and text[i] == u'0':
                return -1  # no leading zeros ("G01"), as Card.parse
            while i < n and value < 100:
                digit = text[i]
                if not (u'0' <= digit <= u'9'):
                    break
                value = value * 10 + (<int>digit - 48)
                i += 1
            if value == 0:
                return -1
            code = _code_of(colour, value)
            if code < 0:
                return -1
        if i < n:
            ch = text[i]
            if not (ch == u' ' or ch == u',' or ch == u'\t' or ch == u'\n' or ch == u'\r'):
                return -1
        add += t.add_bit[code]
        cards += 1
    mask = add | ((add >> 1) & t.pair_lo)
    if fc_popcount64(mask) != cards:
        return -1
    out[0] = mask
    return 0


def fast_mask(cards):
    """The canonical mask of text or a tuple/list of ``Card``; -1 when the input
    needs the careful (error-reporting) path: bad text, impossible sets, other types."""
    cdef uint64_t add = 0, mask
    cdef Py_ssize_t n
    if type(cards) is str:
        if _text_mask(_t, <str>cards, &mask) == 0:
            return mask
        return -1
    if type(cards) is tuple or type(cards) is list:
        n = 0
        for item in cards:
            if type(item) is not _card_type:
                return -1
            add += <uint64_t>item._bit
            n += 1
        mask = add | ((add >> 1) & _t.pair_lo)
        if fc_popcount64(mask) != n:
            return -1
        return mask
    return -1


def fast_classify(cards):
    """Action index of the combination ``cards`` form (text or a tuple/list of
    ``Card``), -1 if none, -2 when the input needs the careful path."""
    mask = fast_mask(cards)
    if mask == -1:
        return -2
    return _lookup(_t, <uint64_t>mask)

