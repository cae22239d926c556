# cython: language_level=3
"""The compiled core of fourcards.

Kernels take integers (card masks, action indices) and numpy arrays, run
unchecked C after a cheap check at the boundary, and release the GIL in batch
loops.  Each kernel has a pure-Python twin (``fourcards.gangoffour._reference``)
with the same names and behaviour; the tests check that they agree.

Gang of Four: a card set is a canonical 64-bit mask over the sorted deck (see
``fourcards.gangoffour._deck``); a combination is an action index 0..12351.
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint16_t, int16_t, uint8_t, int8_t
from libc.string cimport memcpy

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from "_bits.h":
    int fc_popcount64(uint64_t x) noexcept nogil
    int fc_ctz64(uint64_t x) noexcept nogil

cdef enum:
    N_KINDS = 34
    N_ACTIONS = 12352
    BUCKET_BITS = 12
    N_BUCKETS = 4096
    SLOT_BITS = 14
    N_SLOTS = 16384
    MAX_BUCKET = 32
    GANG_KIND = 7

# -- tables, filled once by gof_init() ----------------------------------------
cdef uint64_t _pair_lo = 0
# fourcards.gangoffour._deck, set by gof_init (importing it here would be circular)
cdef object _deck = None
cdef uint64_t _masks[N_ACTIONS]
cdef int8_t _kind_of[N_ACTIONS]
cdef int32_t _kind_start[9]
cdef int32_t _group_end[8]
# A perfect hash from combination mask to action index ("hash and displace"):
# the mask's bucket picks a displacement, the displaced slot holds the only
# action that can match, and one comparison with its mask confirms it.  The
# tables are small (8 KiB + 32 KiB) and a lookup has no branch to mispredict.
cdef uint16_t _displacement[N_BUCKETS]
cdef int16_t _slot_action[N_SLOTS]
cdef uint64_t _mul1 = 0, _mul2 = 0
# Runs: maximal spans of actions whose first card (in text order) is the same
# kind; a run is skipped when the hand lacks that card.
cdef int32_t _run_of[N_ACTIONS]
cdef int32_t _run_end[N_ACTIONS]
cdef uint64_t _run_lead[N_ACTIONS]
cdef int32_t _n_runs = 0
# Per card code (256 entries, so any uint8 indexes safely).
cdef uint64_t _add_bit[256]
# Weight of each code in a row's card count: 1 for a card, 0 for padding, and
# 256 for an invalid code, which no popcount of a 64-bit mask can equal.
cdef int16_t _weight[256]
cdef uint8_t _value_of_bit[64]
cdef uint8_t _base_of_bit[64]
cdef bint _ready = False


cdef inline int _lookup(uint64_t mask) noexcept nogil:
    cdef uint64_t slot = ((mask * _mul2) >> (64 - SLOT_BITS)) ^ _displacement[(mask * _mul1) >> (64 - BUCKET_BITS)]
    cdef int action = _slot_action[slot]
    if action >= 0 and _masks[action] == mask:
        return action
    return -1


cdef bint _build_hash(uint64_t mul1, uint64_t mul2) noexcept nogil:
    """Place every combination; False if these multipliers do not work."""
    cdef int count[N_BUCKETS]
    cdef int members[N_BUCKETS][MAX_BUCKET]
    cdef int slots[MAX_BUCKET]
    cdef int i, k, q, b, size, d, slot
    cdef bint good
    for b in range(N_BUCKETS):
        count[b] = 0
        _displacement[b] = 0
    for i in range(N_SLOTS):
        _slot_action[i] = -1
    for i in range(N_ACTIONS):
        b = <int>((_masks[i] * mul1) >> (64 - BUCKET_BITS))
        if count[b] == MAX_BUCKET:
            return False
        members[b][count[b]] = i
        count[b] += 1
    # Largest buckets first, while the table is emptiest.
    for size in range(MAX_BUCKET, 0, -1):
        for b in range(N_BUCKETS):
            if count[b] != size:
                continue
            for d in range(N_SLOTS):
                good = True
                for k in range(size):
                    slot = <int>((_masks[members[b][k]] * mul2) >> (64 - SLOT_BITS)) ^ d
                    if _slot_action[slot] >= 0:
                        good = False
                        break
                    for q in range(k):
                        if slots[q] == slot:
                            good = False
                            break
                    if not good:
                        break
                    slots[k] = slot
                if good:
                    for k in range(size):
                        _slot_action[slots[k]] = members[b][k]
                    _displacement[b] = d
                    break
            else:
                return False
    return True


cdef inline bint _canonical(uint64_t mask) noexcept nogil:
    return ((mask >> 1) & _pair_lo & ~mask) == 0


cdef uint64_t _lead_bit(uint64_t mask, int kind) noexcept nogil:
    """Bit of the first card of a combination's canonical text."""
    cdef int bit, value
    cdef int count[16]
    cdef uint64_t rest
    if kind != 5:  # highest card
        bit = 63
        while not (mask >> bit) & 1:
            bit -= 1
        return (<uint64_t>1) << _base_of_bit[bit]
    # full house: the highest card of the triple
    for value in range(16):
        count[value] = 0
    rest = mask
    while rest:
        bit = fc_ctz64(rest)
        count[_value_of_bit[bit]] += 1
        rest &= rest - 1
    bit = 63
    while not ((mask >> bit) & 1 and count[_value_of_bit[bit]] == 3):
        bit -= 1
    return (<uint64_t>1) << _base_of_bit[bit]


def gof_init(const uint64_t[::1] masks not None):
    """Load the combination table (masks in action order). Called once at import."""
    global _ready, _n_runs, _deck, _pair_lo, _mul1, _mul2
    from fourcards.gangoffour import _deck as deck_module
    _deck = deck_module
    _pair_lo = _deck.PAIR_LO
    cdef int i, k, code, b, run
    cdef uint64_t lead, previous_lead
    if masks.shape[0] != N_ACTIONS:
        raise ValueError(f"expected {N_ACTIONS} combination masks, got {masks.shape[0]}")
    starts = _deck.KIND_START
    for k in range(9):
        _kind_start[k] = starts[k]
    for k in range(8):
        _group_end[k] = _kind_start[k + 1] if k < 3 else _kind_start[GANG_KIND]
    _group_end[GANG_KIND] = N_ACTIONS
    for b in range(256):
        _add_bit[b] = 0
        _weight[b] = 0 if b == _deck.PAD else 256
    for code in range(N_KINDS):
        _add_bit[code] = _deck.BIT[code]
        _weight[code] = 1
    for b in range(64):
        code = _deck.KIND_OF_BIT[b]
        _value_of_bit[b] = _deck.VALUE[code]
        _base_of_bit[b] = _deck.BASE[code]
    for k in range(8):
        for i in range(_kind_start[k], _kind_start[k + 1]):
            _kind_of[i] = k
    run = -1
    previous_lead = 0
    for i in range(N_ACTIONS):
        _masks[i] = masks[i]
        lead = _lead_bit(masks[i], _kind_of[i])
        if run < 0 or lead != previous_lead or i == _kind_start[_kind_of[i]]:
            run += 1
            _run_lead[run] = lead
            previous_lead = lead
        _run_of[i] = run
        _run_end[run] = i + 1
    _n_runs = run + 1
    # Odd multipliers from a fixed SplitMix64 stream until the perfect hash builds.
    from fourcards.rng import Rng
    rng = Rng(0x5EED)
    while True:
        _mul1 = rng.next_u64() | 1
        _mul2 = rng.next_u64() | 1
        if _build_hash(_mul1, _mul2):
            break
    _ready = True


cdef inline void _check_table(int table) except *:
    if table < -1 or table >= N_ACTIONS:
        raise _deck.action_error(table, "table action")


cdef inline void _check_hand(uint64_t hand) except *:
    if not _canonical(hand):
        raise _deck.mask_error(hand)


cdef Py_ssize_t _scan(uint64_t hand, int lo, int hi, int32_t* out, Py_ssize_t n) noexcept nogil:
    cdef uint64_t missing = ~hand
    cdef int run, end, j
    if lo >= hi:
        return n
    run = _run_of[lo]
    while lo < hi:
        end = _run_end[run]
        if end > hi:
            end = hi
        if hand & _run_lead[run]:
            for j in range(lo, end):
                if (_masks[j] & missing) == 0:
                    out[n] = j
                    n += 1
        lo = end
        run += 1
    return n


cdef Py_ssize_t _legal(uint64_t hand, int table, int32_t* out) noexcept nogil:
    """Legal actions (sorted) from ``hand`` on ``table`` (-1: leading) into ``out``."""
    cdef Py_ssize_t n = 0
    cdef int gangs = _kind_start[GANG_KIND]
    if table < 0:
        return _scan(hand, 0, N_ACTIONS, out, 0)
    if table >= gangs:
        return _scan(hand, table + 1, N_ACTIONS, out, 0)
    n = _scan(hand, table + 1, _group_end[_kind_of[table]], out, 0)
    return _scan(hand, gangs, N_ACTIONS, out, n)


def classify_mask(uint64_t mask):
    """Action index of the combination a canonical mask holds, or -1."""
    if not _canonical(mask):
        raise _deck.mask_error(mask)
    return _lookup(mask)


cdef inline bint _beats(int a, int b) noexcept nogil:
    cdef int gangs = _kind_start[GANG_KIND]
    if a < 0:
        return False
    if b < 0:
        return True
    if a >= gangs:
        return a > b or b < gangs
    return a > b and _group_end[_kind_of[b]] == _group_end[_kind_of[a]]


def beats(int a, int b):
    """Whether action ``a`` may be played on action ``b`` (``b == -1``: empty table)."""
    if a < -1 or a >= N_ACTIONS:
        raise _deck.action_error(a, "action")
    _check_table(b)
    return _beats(a, b)


def legal_actions(uint64_t hand, int table=-1):
    """Sorted action indices (int32) playable from ``hand`` on ``table`` (-1: leading)."""
    cdef int32_t buffer[N_ACTIONS]
    cdef Py_ssize_t n
    cdef cnp.npy_intp dims[1]
    _check_hand(hand)
    _check_table(table)
    with nogil:
        n = _legal(hand, table, buffer)
    dims[0] = n
    result = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    if n:
        memcpy(cnp.PyArray_DATA(result), buffer, n * sizeof(int32_t))
    return result


def legal_mask(uint64_t hand, int table=-1):
    """A bool array over all actions: which are playable from ``hand`` on ``table``."""
    cdef int32_t buffer[N_ACTIONS]
    cdef Py_ssize_t n, i
    cdef cnp.npy_intp dims[1]
    _check_hand(hand)
    _check_table(table)
    dims[0] = N_ACTIONS
    result = cnp.PyArray_ZEROS(1, dims, cnp.NPY_BOOL, 0)
    cdef uint8_t* out = <uint8_t*>cnp.PyArray_DATA(result)
    with nogil:
        n = _legal(hand, table, buffer)
        for i in range(n):
            out[buffer[i]] = 1
    return result


cdef Py_ssize_t _classify_rows(const uint8_t* codes, Py_ssize_t rows, Py_ssize_t width,
                               int8_t* kinds, int32_t* actions) noexcept nogil:
    """Classify rows of card codes; return the first invalid row, or -1."""
    cdef Py_ssize_t i, k, first_bad = -1
    cdef const uint8_t* row
    cdef uint64_t add, mask
    cdef int count, action
    cdef uint8_t c
    for i in range(rows):
        row = codes + i * width
        add = 0
        count = 0
        for k in range(width):
            c = row[k]
            add += _add_bit[c]
            count += _weight[c]
        mask = add | ((add >> 1) & _pair_lo)
        if fc_popcount64(mask) != count:
            # An invalid code, or more copies than the deck holds: in the
            # latter case the canonical mask has fewer bits than cards.
            if first_bad < 0:
                first_bad = i
            kinds[i] = -1
            actions[i] = -1
            continue
        action = _lookup(mask)
        actions[i] = action
        kinds[i] = _kind_of[action] if action >= 0 else -1
    return first_bad


def classify_batch(codes):
    """Kinds (int8, -1: none) and action indices (int32, -1: none) of rows of card codes.

    ``codes`` is a 2-D ``uint8`` array, one hand a row, padded with 255.
    """
    if not isinstance(codes, np.ndarray):
        raise TypeError(f"codes must be a numpy array, not {type(codes).__name__}")
    if codes.dtype != np.uint8 or codes.ndim != 2:
        raise TypeError(f"codes must be a 2-D uint8 array, not {codes.ndim}-D {codes.dtype}")
    cdef const uint8_t[:, ::1] view = np.ascontiguousarray(codes)
    cdef Py_ssize_t rows = view.shape[0], width = view.shape[1], bad
    kinds = np.empty(rows, dtype=np.int8)
    actions = np.empty(rows, dtype=np.int32)
    cdef int8_t[::1] kinds_view = kinds
    cdef int32_t[::1] actions_view = actions
    if rows == 0:
        return kinds, actions
    if width == 0:
        kinds[:] = -1
        actions[:] = -1
        return kinds, actions
    with nogil:
        bad = _classify_rows(&view[0, 0], rows, width, &kinds_view[0], &actions_view[0])
    if bad >= 0:
        row = [c for c in codes[bad].tolist() if c != _deck.PAD]
        for c in row:
            if c >= N_KINDS:
                raise _deck.code_error(c, f" in row {bad}")
        raise _deck.too_many_error(row, f" in row {bad}")
    return kinds, actions


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


cdef int _text_mask(str text, uint64_t* out) except -2:
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
        add += _add_bit[code]
        cards += 1
    mask = add | ((add >> 1) & _pair_lo)
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
        if _text_mask(<str>cards, &mask) == 0:
            return mask
        return -1
    if type(cards) is tuple or type(cards) is list:
        n = 0
        for item in cards:
            if type(item) is not _card_type:
                return -1
            add += <uint64_t>item._bit
            n += 1
        mask = add | ((add >> 1) & _pair_lo)
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
    return _lookup(<uint64_t>mask)


def call_floor(uint64_t hand, int table=-1):
    """A trivial compiled function with the kernels' arguments: the benchmark yardstick."""
    return table
