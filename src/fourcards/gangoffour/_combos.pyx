# cython: language_level=3
"""The compiled Gang of Four combination kernels, and the tables every compiled
Gang of Four module reads.

Kernels take integers (card masks, action indices) and numpy arrays, run
unchecked C after a cheap check at the boundary, and release the GIL in batch
loops.  Each kernel has a pure-Python twin (``fourcards.gangoffour._reference``)
with the same names and behaviour; the tests check that they agree.

A card set is a canonical 64-bit mask over the sorted deck (see
``fourcards.gangoffour._deck``); a combination is an action index 0..12351.
This module owns the one ``GofTables`` (``_gof.pxd``), filled by ``gof_init``;
the card parser (``_parse``), the simulator (``_sim``), the rule-based player
(``_bots``), the search (``_search``), the random playouts (``_playouts``) and
the vector environment (``_vector``) read it through ``gof_tables()``.
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint8_t, int8_t
from libc.string cimport memcpy

import operator

import numpy as np
cimport numpy as cnp

from fourcards._common cimport fc_popcount64, fc_ctz64
from fourcards.gangoffour._gof cimport (
    GofTables, N_KINDS, N_ACTIONS, BLOCK_BITS, N_BLOCKS, BUCKET_BITS, N_BUCKETS, SLOT_BITS, N_SLOTS,
    MAX_BUCKET, GANG_KIND, _canonical,
)

cnp.import_array()

from fourcards.errors import InvalidTypeError

# -- the tables, filled once by gof_init() -------------------------------------------
cdef GofTables _tables
# fourcards.gangoffour._deck, set by gof_init (importing it here would be circular)
cdef object _deck = None


cdef const GofTables* gof_tables() noexcept nogil:
    """The tables (filled once ``gof_init`` has run: see ``ready``)."""
    return &_tables


cdef bint _build_hash(GofTables* t, uint64_t mul1, uint64_t mul2) noexcept nogil:
    """Place every combination; False if these multipliers do not work."""
    cdef int count[N_BUCKETS]
    cdef int members[N_BUCKETS][MAX_BUCKET]
    cdef int slots[MAX_BUCKET]
    cdef int i, k, q, b, size, d, slot
    cdef bint good
    for b in range(N_BUCKETS):
        count[b] = 0
        t.displacement[b] = 0
    for i in range(N_SLOTS):
        t.slot_action[i] = -1
    for i in range(N_ACTIONS):
        b = <int>((t.masks[i] * mul1) >> (64 - BUCKET_BITS))
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
                    slot = <int>((t.masks[members[b][k]] * mul2) >> (64 - SLOT_BITS)) ^ d
                    if t.slot_action[slot] >= 0:
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
                        t.slot_action[slots[k]] = members[b][k]
                    t.displacement[b] = d
                    break
            else:
                return False
    return True


cdef uint64_t _lead_bit(const GofTables* t, uint64_t mask, int kind) noexcept nogil:
    """Bit of the first card of a combination's canonical text."""
    cdef int bit, value
    cdef int count[16]
    cdef uint64_t rest
    if kind != 5:  # highest card
        bit = 63
        while not (mask >> bit) & 1:
            bit -= 1
        return (<uint64_t>1) << t.base_of_bit[bit]
    # full house: the highest card of the triple
    for value in range(16):
        count[value] = 0
    rest = mask
    while rest:
        bit = fc_ctz64(rest)
        count[t.value_of_bit[bit]] += 1
        rest &= rest - 1
    bit = 63
    while not ((mask >> bit) & 1 and count[t.value_of_bit[bit]] == 3):
        bit -= 1
    return (<uint64_t>1) << t.base_of_bit[bit]


def gof_init(const uint64_t[::1] masks not None):
    """Load the combination table (masks in action order). Called once at import."""
    global _deck
    cdef GofTables* t = &_tables
    from fourcards.gangoffour import _deck as deck_module
    _deck = deck_module
    t.pair_lo = _deck.PAIR_LO
    cdef int i, k, code, b, run
    cdef uint64_t lead, previous_lead
    if masks.shape[0] != N_ACTIONS:
        raise ValueError(f"expected {N_ACTIONS} combination masks, got {masks.shape[0]}")
    starts = _deck.KIND_START
    for k in range(9):
        t.kind_start[k] = starts[k]
    for k in range(8):
        t.group_end[k] = t.kind_start[k + 1] if k < 3 else t.kind_start[GANG_KIND]
    t.group_end[GANG_KIND] = N_ACTIONS
    for b in range(256):
        t.add_bit[b] = 0
        t.weight[b] = 0 if b == _deck.PAD else 256
    for code in range(N_KINDS):
        t.add_bit[code] = _deck.BIT[code]
        t.weight[code] = 1
    for b in range(64):
        code = _deck.KIND_OF_BIT[b]
        t.value_of_bit[b] = _deck.VALUE[code]
        t.base_of_bit[b] = _deck.BASE[code]
    for k in range(8):
        for i in range(t.kind_start[k], t.kind_start[k + 1]):
            t.kind_of[i] = k
    run = -1
    previous_lead = 0
    for i in range(N_ACTIONS):
        t.masks[i] = masks[i]
        lead = _lead_bit(t, masks[i], t.kind_of[i])
        if run < 0 or lead != previous_lead or i == t.kind_start[t.kind_of[i]]:
            run += 1
            t.run_lead[run] = lead
            previous_lead = lead
        t.run_of[i] = run
        t.run_end[run] = i + 1
    t.n_runs = run + 1
    for k in range(N_BLOCKS):
        t.block_need[k] = ~(<uint64_t>0)
    for i in range(N_ACTIONS):
        t.block_need[i >> BLOCK_BITS] &= t.masks[i]
    # the simulator's tables: card code per bit (the sorted deck), value per code, penalties
    b = 0
    for code in range(N_KINDS):
        t.value_of_code[code] = _deck.VALUE[code]
        for k in range(_deck.CAP[code]):
            t.code_of_bit[b] = code
            t.deck_codes[b] = code
            b += 1
    for k in range(17):
        t.penalty_per_card[k] = _deck.PENALTY_PER_CARD[k]
    # Odd multipliers from a fixed SplitMix64 stream until the perfect hash builds.
    from fourcards.rng import Rng
    rng = Rng(0x5EED)
    while True:
        t.mul1 = rng.next_u64() | 1
        t.mul2 = rng.next_u64() | 1
        if _build_hash(t, t.mul1, t.mul2):
            break
    t.ready = True


# -- arguments from Python: the same checks (and errors) as the twin ----------------
# Cython's own conversion of an ``int`` or ``uint64_t`` parameter truncates floats
# and raises OverflowError; the public kernels take objects and convert them here.

cdef object _TWO_64 = 1 << 64


cdef object _index(object value, str name):
    """``value`` as a Python int (``operator.index``: ints, numpy ints); TypeError otherwise (a bool too)."""
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):
        raise InvalidTypeError(f"{name} must be an int, not {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise InvalidTypeError(f"{name} must be an int, not {type(value).__name__}") from None


cdef uint64_t _as_mask(object mask) except? 0xFFFFFFFFFFFFFFFF:
    """A canonical card mask from Python, checked like the twin's ``_check_mask``."""
    cdef object value
    cdef uint64_t c_mask
    if type(mask) is int:
        value = mask
    elif isinstance(mask, (bool, np.bool_)):
        raise _deck.mask_error(mask)
    else:
        try:
            value = operator.index(mask)
        except TypeError:
            raise _deck.mask_error(mask) from None
    try:
        # the C conversion refuses what does not fit (negative, 2**64 and up) with
        # OverflowError, and is quicker than comparing Python ints first
        c_mask = value
    except OverflowError:
        raise _deck.mask_error(value) from None
    if not _canonical(&_tables, c_mask):
        raise _deck.mask_error(value)
    return c_mask


cdef int _as_action(object action, str name) except? -2:
    """An action index (-1: none) from Python, checked like the twin's ``_check_action``."""
    cdef object value = _index(action, name)
    if value < -1 or value >= N_ACTIONS:
        raise _deck.action_error(value, name)
    return <int>value


cdef Py_ssize_t _as_size(object value, str name, Py_ssize_t low, Py_ssize_t high) except? -2:
    """An int in ``low..high`` from Python (TypeError for other types, FourCardsError out of range)."""
    cdef object number = _index(value, name)
    if number < low or number > high:
        raise _deck.range_error(name, number, low, high)
    return <Py_ssize_t>number


#: The answers of ``classify_mask`` (-1 and every action) as Python ints made once:
#: returning one costs a reference, not a new int object.
cdef tuple _ACTION_INTS = tuple(range(-1, N_ACTIONS))


def classify_mask(mask):
    """Action index of the combination a canonical mask holds, or -1."""
    return _ACTION_INTS[_lookup(&_tables, _as_mask(mask)) + 1]


cdef inline bint _beats(const GofTables* t, int a, int b) noexcept nogil:
    cdef int gangs = t.kind_start[GANG_KIND]
    if a < 0:
        return False
    if b < 0:
        return True
    if a >= gangs:
        return a > b or b < gangs
    return a > b and t.group_end[t.kind_of[b]] == t.group_end[t.kind_of[a]]


def beats(a, b):
    """Whether action ``a`` may be played on action ``b`` (``b == -1``: empty table)."""
    cdef int c_a = _as_action(a, "action")
    cdef int c_b = _as_action(b, "table action")
    return _beats(&_tables, c_a, c_b)


def legal_actions(hand, table=-1):
    """Sorted action indices (int32) playable from ``hand`` on ``table`` (-1: leading)."""
    cdef int32_t buffer[N_ACTIONS]
    cdef Py_ssize_t n
    cdef cnp.npy_intp dims[1]
    cdef uint64_t c_hand = _as_mask(hand)
    cdef int c_table = _as_action(table, "table action")
    with nogil:
        n = _legal(&_tables, c_hand, c_table, buffer)
    dims[0] = n
    result = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    if n:
        memcpy(cnp.PyArray_DATA(result), buffer, n * sizeof(int32_t))
    return result


def legal_mask(hand, table=-1, size=N_ACTIONS):
    """A bool array over all actions: which are playable from ``hand`` on ``table``.

    ``size`` (at least 12352) makes the array longer, zeros past the
    combinations: room for a game's other actions."""
    cdef int32_t buffer[N_ACTIONS]
    cdef Py_ssize_t n, i
    cdef cnp.npy_intp dims[1]
    cdef uint64_t c_hand = _as_mask(hand)
    cdef int c_table = _as_action(table, "table action")
    cdef Py_ssize_t c_size = _as_size(size, "size", N_ACTIONS, _deck.MAX_MASK_SIZE)
    dims[0] = c_size
    result = cnp.PyArray_ZEROS(1, dims, cnp.NPY_BOOL, 0)
    cdef uint8_t* out = <uint8_t*>cnp.PyArray_DATA(result)
    with nogil:
        n = _legal(&_tables, c_hand, c_table, buffer)
        for i in range(n):
            out[buffer[i]] = 1
    return result


cdef Py_ssize_t _classify_rows(const GofTables* t, const uint8_t* codes, Py_ssize_t rows, Py_ssize_t width,
                               int8_t* kinds, int32_t* actions) noexcept nogil:
    """Classify rows of card codes; return the first invalid row, or -1."""
    cdef Py_ssize_t i, k, first_bad = -1
    cdef const uint8_t* row
    cdef uint64_t add, mask
    cdef int64_t count  # an int would wrap after 2**24 invalid codes (weight 256 each)
    cdef int action
    cdef uint8_t c
    for i in range(rows):
        row = codes + i * width
        add = 0
        count = 0
        for k in range(width):
            c = row[k]
            add += t.add_bit[c]
            count += t.weight[c]
        mask = add | ((add >> 1) & t.pair_lo)
        if <int64_t>fc_popcount64(mask) != count:
            # An invalid code, or more copies than the deck holds: in the
            # latter case the canonical mask has fewer bits than cards.
            if first_bad < 0:
                first_bad = i
            kinds[i] = -1
            actions[i] = -1
            continue
        action = _lookup(&_tables, mask)
        actions[i] = action
        kinds[i] = t.kind_of[action] if action >= 0 else -1
    return first_bad


def classify_batch(codes):
    """Kinds (int8, -1: none) and action indices (int32, -1: none) of rows of card codes.

    ``codes`` is a 2-D ``uint8`` array, one hand a row, padded with 255.
    """
    if not isinstance(codes, np.ndarray):
        raise InvalidTypeError(f"codes must be a numpy array, not {type(codes).__name__}")
    if codes.dtype != np.uint8 or codes.ndim != 2:
        raise InvalidTypeError(f"codes must be a 2-D uint8 array, not {codes.ndim}-D {codes.dtype}")
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
        bad = _classify_rows(&_tables, &view[0, 0], rows, width, &kinds_view[0], &actions_view[0])
    if bad >= 0:
        row = [c for c in codes[bad].tolist() if c != _deck.PAD]
        for c in row:
            if c >= N_KINDS:
                raise _deck.code_error(c, f" in row {bad}")
        raise _deck.too_many_error(row, f" in row {bad}")
    return kinds, actions

