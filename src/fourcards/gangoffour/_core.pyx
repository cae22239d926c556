# cython: language_level=3
"""The compiled Gang of Four kernels.

Kernels take integers (card masks, action indices) and numpy arrays, run
unchecked C after a cheap check at the boundary, and release the GIL in batch
loops.  Each kernel has a pure-Python twin (``fourcards.gangoffour._reference``)
with the same names and behaviour; the tests check that they agree.

A card set is a canonical 64-bit mask over the sorted deck (see
``fourcards.gangoffour._deck``); a combination is an action index 0..12351.
This module also holds the match simulator and the search (SO-ISMCTS).
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint32_t, uint16_t, int16_t, uint8_t, int8_t
from libc.string cimport memcpy
from libc.math cimport sqrt, log
from libc.stdlib cimport malloc, free, realloc

import operator

import numpy as np
cimport numpy as cnp

from fourcards._common cimport fc_popcount64, fc_ctz64, _splitmix_next, _below, _seed_stream

cnp.import_array()

cdef enum:
    N_KINDS = 34
    N_ACTIONS = 12352
    BLOCK_BITS = 3
    N_BLOCKS = (12352 + 7) >> 3
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
# Blocks: the actions 8k..8k+7 (a block may cross runs and kinds); a block's
# ``need`` holds the cards all its combinations contain, so a hand missing one
# of them skips the block (a third of a run's blocks survive, for a dealt hand).
cdef uint64_t _block_need[N_BLOCKS]
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
    for k in range(N_BLOCKS):
        _block_need[k] = ~(<uint64_t>0)
    for i in range(N_ACTIONS):
        _block_need[i >> BLOCK_BITS] &= _masks[i]
    _sim_tables()
    for k in range(17):
        _penalty_per_card[k] = _deck.PENALTY_PER_CARD[k]
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


# -- arguments from Python: the same checks (and errors) as the twin ----------------
# Cython's own conversion of an ``int`` or ``uint64_t`` parameter truncates floats
# and raises OverflowError; the public kernels take objects and convert them here.

cdef object _TWO_64 = 1 << 64


cdef inline object _index(object value, str name):
    """``value`` as a Python int (``operator.index``: ints, numpy ints, bools); TypeError otherwise."""
    if type(value) is int:
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None


cdef uint64_t _as_mask(object mask) except? 0xFFFFFFFFFFFFFFFF:
    """A canonical card mask from Python, checked like the twin's ``_check_mask``."""
    cdef object value
    cdef uint64_t c_mask
    if type(mask) is int:
        value = mask
    else:
        try:
            value = operator.index(mask)
        except TypeError:
            raise _deck.mask_error(mask) from None
    if value < 0 or value >= _TWO_64:
        raise _deck.mask_error(value)
    c_mask = <uint64_t>value
    if not _canonical(c_mask):
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


cdef Py_ssize_t _scan(uint64_t hand, int lo, int hi, int32_t* out, Py_ssize_t n) noexcept nogil:
    cdef uint64_t missing = ~hand
    cdef int run, end, j, stop
    if lo >= hi:
        return n
    run = _run_of[lo]
    while lo < hi:
        end = _run_end[run]
        if end > hi:
            end = hi
        if hand & _run_lead[run]:
            while lo < end:
                stop = ((lo >> BLOCK_BITS) + 1) << BLOCK_BITS
                if stop > end:
                    stop = end
                if (_block_need[lo >> BLOCK_BITS] & missing) == 0:
                    # Branch-free compaction: write every index, advance past the ones
                    # the hand holds (a branch here is mispredicted about half the time).
                    # ``out`` has room: it never runs ahead of the actions scanned.
                    for j in range(lo, stop):
                        out[n] = j
                        n += (_masks[j] & missing) == 0
                lo = stop
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


def classify_mask(mask):
    """Action index of the combination a canonical mask holds, or -1."""
    return _lookup(_as_mask(mask))


cdef inline bint _beats(int a, int b) noexcept nogil:
    cdef int gangs = _kind_start[GANG_KIND]
    if a < 0:
        return False
    if b < 0:
        return True
    if a >= gangs:
        return a > b or b < gangs
    return a > b and _group_end[_kind_of[b]] == _group_end[_kind_of[a]]


def beats(a, b):
    """Whether action ``a`` may be played on action ``b`` (``b == -1``: empty table)."""
    cdef int c_a = _as_action(a, "action")
    cdef int c_b = _as_action(b, "table action")
    return _beats(c_a, c_b)


def legal_actions(hand, table=-1):
    """Sorted action indices (int32) playable from ``hand`` on ``table`` (-1: leading)."""
    cdef int32_t buffer[N_ACTIONS]
    cdef Py_ssize_t n
    cdef cnp.npy_intp dims[1]
    cdef uint64_t c_hand = _as_mask(hand)
    cdef int c_table = _as_action(table, "table action")
    with nogil:
        n = _legal(c_hand, c_table, buffer)
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
        n = _legal(c_hand, c_table, buffer)
        for i in range(n):
            out[buffer[i]] = 1
    return result


cdef Py_ssize_t _classify_rows(const uint8_t* codes, Py_ssize_t rows, Py_ssize_t width,
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
            add += _add_bit[c]
            count += _weight[c]
        mask = add | ((add >> 1) & _pair_lo)
        if <int64_t>fc_popcount64(mask) != count:
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


# =============================================================================
# Gang of Four matches in C: the same rules as fourcards.gangoffour.match
# (the readable engine, which the tests compare move for move), for fast
# simulation without the GIL.
# =============================================================================

# The action constants and the GofRules / GofMatch structs are declared in _core.pxd
# (so other compiled modules, such as _vector, can drive matches).


cdef inline uint64_t _additive(uint64_t mask) noexcept nogil:
    return mask - ((mask >> 1) & _pair_lo)


cdef inline uint64_t _canon(uint64_t additive) noexcept nogil:
    return additive | ((additive >> 1) & _pair_lo)


cdef inline int _highest_code(uint64_t mask) noexcept nogil:
    cdef int bit = 63
    while not (mask >> bit) & 1:
        bit -= 1
    return _code_of_bit[bit]


cdef uint8_t _code_of_bit[64]
cdef uint8_t _value_of_code[34]
cdef uint8_t _deck_codes[64]


cdef void _sim_tables() noexcept:
    cdef int b = 0, code, k
    for code in range(N_KINDS):
        _value_of_code[code] = _deck.VALUE[code]
        for k in range(_deck.CAP[code]):
            _code_of_bit[b] = code
            _deck_codes[b] = code
            b += 1


cdef inline int _next_seat(GofMatch* m, int player, bint skip_passed) noexcept nogil:
    cdef int n = m.rules.players, seat = player, k
    cdef unsigned int skip = m.out | (m.passed if skip_passed else 0)
    for k in range(n):
        seat = (seat + m.direction + n) % n
        if not (skip >> seat) & 1:
            return seat
    return -1


cdef void _move_card(GofMatch* m, int giver, int receiver, int code) noexcept nogil:
    m.hands[giver] = _canon(_additive(m.hands[giver]) - _add_bit[code])
    m.hands[receiver] = _canon(_additive(m.hands[receiver]) + _add_bit[code])


cdef void _start_round(GofMatch* m, int dealer, int winner, int* cards_left) noexcept nogil:
    """Deal a round; ``winner < 0`` for the first round."""
    cdef int n = m.rules.players, i, j, first, p, k, best, code, holder
    cdef uint8_t deck[64]
    cdef uint8_t swap
    cdef uint64_t additive[4]
    m.round += 1
    m.dealer = dealer
    m.direction = 1 if m.round % 2 == 1 else -1
    for i in range(64):
        deck[i] = _deck_codes[i]
    for i in range(63, 0, -1):
        j = <int>_below(&m.rng, i + 1)
        swap = deck[i]
        deck[i] = deck[j]
        deck[j] = swap
    if m.rules.chinese:
        first = (dealer + _value_of_code[deck[63]] - 1) % n
    else:
        first = (dealer + 1) % n
    for p in range(4):
        additive[p] = 0
    for i in range(16 * n):
        additive[(first + i) % n] += _add_bit[deck[i]]
    for p in range(4):
        m.hands[p] = _canon(additive[p]) if p < n else 0
    m.table = -1
    m.table_player = -1
    m.passed = 0
    m.announced = 0
    m.out = 0
    m.played = 0
    m.phase = PHASE_PLAY
    m.given = -1
    m.returned = -1
    if winner < 0:
        holder = -1
        for p in range(n):
            if m.hands[p] & _add_bit[M1_CODE]:
                holder = p
                break
        m.m1_lead = holder >= 0
        m.current = holder if holder >= 0 else (dealer + 1) % n
        m.loser = -1
        return
    m.m1_lead = False
    best = -1
    for k in range(1, n):
        p = (winner + k) % n
        if best < 0 or cards_left[p] > cards_left[best] or (
                cards_left[p] == cards_left[best] and m.totals[p] > m.totals[best]):
            best = p
    m.loser = best
    code = _highest_code(m.hands[best])
    _move_card(m, best, winner, code)
    m.given = code
    m.phase = PHASE_GIVE_BACK
    m.current = winner


cdef void _end_round(GofMatch* m, int winner) noexcept nogil:
    cdef int n = m.rules.players, p, left, high = 0, low
    cdef int cards_left[4]
    for p in range(n):
        cards_left[p] = fc_popcount64(m.hands[p])
    for p in range(n):
        if p == winner:
            continue
        if (m.out >> p) & 1:
            m.totals[p] += 1
        else:
            left = cards_left[p]
            m.totals[p] += left * _penalty_per_card[left]
    for p in range(n):
        if m.totals[p] > high:
            high = m.totals[p]
    if high >= m.rules.target:
        low = m.totals[0]
        for p in range(n):
            if m.totals[p] < low:
                low = m.totals[p]
        m.winners = 0
        for p in range(n):
            if m.totals[p] == low:
                m.winners |= 1u << p
        m.phase = PHASE_OVER
        m.current = -1
        m.table = -1
        return
    _start_round(m, winner, winner, cards_left)


cdef uint8_t _penalty_per_card[17]


cdef inline bint _constrained(GofMatch* m) noexcept nogil:
    cdef int nxt = _next_seat(m, m.current, m.rules.pass_is_final)
    if nxt < 0 or nxt == m.current or fc_popcount64(m.hands[nxt]) != 1:
        return False
    return not m.rules.manual or ((m.announced >> nxt) & 1)


cdef int _sim_legal(GofMatch* m, int32_t* out) noexcept nogil:
    """The legal actions, sorted, exactly as MatchState.legal_actions."""
    cdef int n = 0, k, i, count, highest, left, c
    cdef uint64_t hand
    cdef bint constrained, has_multi
    if m.phase == PHASE_OVER:
        return 0
    hand = m.hands[m.current]
    if m.phase == PHASE_GIVE_BACK:
        c = -1
        while hand:
            k = _code_of_bit[fc_ctz64(hand)]
            if k != c:
                out[n] = GIVE_BACK_BASE + k
                n += 1
                c = k
            hand &= hand - 1
        return n
    count = <int>_legal(hand, m.table, out)
    constrained = _constrained(m)
    if m.table < 0 and m.m1_lead:
        k = 0
        for i in range(count):
            if (_masks[out[i]] & _add_bit[M1_CODE]) and fc_popcount64(_masks[out[i]]) <= 5:
                out[k] = out[i]
                k += 1
        count = k
    if constrained:
        highest = _highest_code(hand)
        if m.table < 0:
            has_multi = count > 0 and out[count - 1] >= _kind_start[1]
            k = 0
            for i in range(count):
                if out[i] >= _kind_start[1] or (not has_multi and out[i] == highest):
                    out[k] = out[i]
                    k += 1
            count = k
        elif m.table < _kind_start[1] and highest > m.table:
            k = 0
            for i in range(count):
                if out[i] >= _kind_start[GANG_KIND] or out[i] == highest:
                    out[k] = out[i]
                    k += 1
            count = k
    n = count
    if m.table >= 0:
        if not (constrained and not m.rules.may_pass and m.table < _kind_start[1]
                and _highest_code(hand) > m.table):
            out[n] = PASS_ACTION
            n += 1
    if m.rules.manual:
        left = fc_popcount64(hand)
        for i in range(count):
            if left - fc_popcount64(_masks[out[i]]) == 1:
                out[n] = ANNOUNCE_BASE + out[i]
                n += 1
    return n


cdef bint _cycle_over(GofMatch* m) noexcept nogil:
    cdef unsigned int everyone = (1u << m.rules.players) - 1
    cdef unsigned int others = everyone & ~m.out & ~(1u << m.table_player)
    cdef int leader
    if (m.passed & others) != others:
        return False
    leader = m.table_player
    if (m.out >> leader) & 1:
        leader = _next_seat(m, leader, False)
    m.table = -1
    m.table_player = -1
    m.passed = 0
    m.current = leader
    return True


cdef void _sim_apply(GofMatch* m, int action) noexcept nogil:
    """Apply a legal action, exactly as MatchState._apply."""
    cdef int player = m.current, combo, had, left, p, active, last_active
    cdef bint announce
    cdef uint64_t mask
    m.steps += 1
    if m.phase == PHASE_GIVE_BACK:
        _move_card(m, player, m.loser, action - GIVE_BACK_BASE)
        m.returned = action - GIVE_BACK_BASE
        m.phase = PHASE_PLAY
        return
    if action == PASS_ACTION:
        m.passed |= 1u << player
        if not _cycle_over(m):
            m.current = _next_seat(m, player, m.rules.pass_is_final)
        return
    announce = action >= ANNOUNCE_BASE
    combo = action - ANNOUNCE_BASE if announce else action
    mask = _masks[combo]
    had = fc_popcount64(m.hands[player])
    m.hands[player] = _canon(_additive(m.hands[player]) - _additive(mask))
    m.played += _additive(mask)
    m.m1_lead = False
    left = had - fc_popcount64(mask)
    if left == 1 and (announce or not m.rules.manual):
        m.announced |= 1u << player
    m.table = combo
    m.table_player = player
    if not m.rules.pass_is_final:
        m.passed = 0
    if m.hands[player] == 0:
        if not (m.rules.manual and had == 1 and not ((m.announced >> player) & 1)):
            _end_round(m, player)
            return
        m.out |= 1u << player
        active = 0
        last_active = -1
        for p in range(m.rules.players):
            if not (m.out >> p) & 1:
                active += 1
                last_active = p
        if active == 1:
            _end_round(m, last_active)
            return
    if not _cycle_over(m):
        m.current = _next_seat(m, player, m.rules.pass_is_final)


cdef void _sim_new(GofMatch* m, GofRules rules, uint64_t seed) noexcept nogil:
    cdef int p
    m.rules = rules
    m.rng = seed
    for p in range(4):
        m.totals[p] = 0
        m.hands[p] = 0
    m.round = 0
    m.winners = 0
    m.steps = 0
    _start_round(m, rules.dealer, -1, NULL)


# -- the rule-based (greedy) policy ---------------------------------------------

cdef inline int _top_code(int combo) noexcept nogil:
    return _highest_code(_masks[combo])


cdef inline int _with_announce(int action, const int32_t* legal, int n) noexcept nogil:
    """The announcing form of a play when it is legal (always announce)."""
    cdef int i
    for i in range(n - 1, -1, -1):
        if legal[i] == ANNOUNCE_BASE + action:
            return ANNOUNCE_BASE + action
        if legal[i] < ANNOUNCE_BASE:
            break
    return action


cdef int _greedy_choose(uint64_t hand, int table, int phase, int me, int players,
                        const int* sizes, const int32_t* legal, int n) noexcept nogil:
    """The rule-based policy (fourcards.gangoffour._reference.greedy_choose)."""
    cdef int i, a, best, best_key, key, size, code, p
    cdef int opponents_min = 99
    cdef int counts[13]
    cdef uint64_t rest, gang_bits = 0
    cdef bint danger, has_pass = False, has_non_gang = False
    if n == 0:
        return -1
    for i in range(13):
        counts[i] = 0
    rest = hand
    while rest:
        counts[_value_of_code[_code_of_bit[fc_ctz64(rest)]]] += 1
        rest &= rest - 1
    if phase == PHASE_GIVE_BACK:
        best = -1
        for i in range(n):  # lowest loner that is not M1, a phoenix or the dragon
            code = legal[i] - GIVE_BACK_BASE
            if code != M1_CODE and code < GP_CODE and counts[_value_of_code[code]] == 1:
                return legal[i]
        for i in range(n):
            code = legal[i] - GIVE_BACK_BASE
            if code != M1_CODE and code < GP_CODE:
                return legal[i]
        return legal[0]
    for p in range(players):
        if p != me and sizes[p] > 0 and sizes[p] < opponents_min:  # out players hold nothing
            opponents_min = sizes[p]
    danger = opponents_min <= 2
    for i in range(n):
        if legal[i] == PASS_ACTION:
            has_pass = True
        elif legal[i] < _kind_start[GANG_KIND]:
            has_non_gang = True
    if legal[0] >= PASS_ACTION:
        return PASS_ACTION  # nothing to play
    if table < 0:
        best = -1
        best_key = 0
        for i in range(n):
            a = legal[i]
            if a >= PASS_ACTION:
                break
            if has_non_gang and a >= _kind_start[GANG_KIND]:
                continue
            size = fc_popcount64(_masks[a])
            if danger:
                key = size * 100000 + a  # biggest, then highest: hardest to beat
                if best < 0 or key > best_key:
                    best, best_key = a, key
            else:
                key = _top_code(a) - 4 * size  # shed many low cards
                if best < 0 or key < best_key:
                    best, best_key = a, key
        return _with_announce(best, legal, n)
    for code in range(1, 11):
        if counts[code] >= 4:
            gang_bits |= (<uint64_t>1) << code
    size = fc_popcount64(hand)
    for i in range(n):
        a = legal[i]
        if a >= _kind_start[GANG_KIND]:
            break
        if _breaks_gang(a, gang_bits):
            continue
        if _top_code(a) >= GP_CODE and not danger and size > 6:
            continue
        return _with_announce(a, legal, n)
    for i in range(n):
        a = legal[i]
        if a >= PASS_ACTION:
            break
        if a >= _kind_start[GANG_KIND]:
            if danger or size - fc_popcount64(_masks[a]) <= 3:
                return _with_announce(a, legal, n)
            break
    if has_pass:
        return PASS_ACTION
    return _with_announce(legal[0], legal, n)


cdef inline bint _breaks_gang(int combo, uint64_t gang_bits) noexcept nogil:
    cdef uint64_t rest = _masks[combo]
    while rest:
        if (gang_bits >> _value_of_code[_code_of_bit[fc_ctz64(rest)]]) & 1:
            return True
        rest &= rest - 1
    return False


def greedy_choose(hand, table, phase, player, sizes, legal):
    """The rule-based policy: the action it picks from ``legal`` (sorted ints)."""
    cdef int c_sizes[4]
    cdef int players, i
    cdef uint64_t c_hand = _as_mask(hand)
    cdef int c_table = _as_action(table, "table action")
    cdef int c_phase = <int>_as_size(phase, "phase", 0, 1)
    cdef int c_player
    cdef int32_t[::1] view
    players = len(sizes)
    if not 2 <= players <= 4:
        raise ValueError(f"sizes must list 2 to 4 hand sizes, got {players}")
    c_player = <int>_as_size(player, "player", 0, players - 1)
    for i in range(players):
        c_sizes[i] = <int>_as_size(sizes[i], f"sizes[{i}]", 0, 64)
    array = np.asarray(legal)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise TypeError(f"legal must be a 1-D sequence of ints, not {array.ndim}-D {array.dtype}")
    if array.size == 0:
        raise ValueError("no legal action to choose from")
    low, high = int(array.min()), int(array.max())
    if (low < 0 or high >= ANNOUNCE_BASE + N_ACTIONS
            or (c_phase == PHASE_GIVE_BACK and (low < GIVE_BACK_BASE or high >= ANNOUNCE_BASE))):
        raise ValueError(f"legal actions out of range for phase {c_phase}")
    view = np.ascontiguousarray(array, dtype=np.int32)
    return _greedy_choose(c_hand, c_table, c_phase, c_player, players, c_sizes, &view[0], <int>view.shape[0])


cdef int _choose(GofMatch* m, int policy, uint64_t* policy_rng, int32_t* legal, int n) noexcept nogil:
    cdef int sizes[4]
    cdef int p
    if policy == POLICY_RANDOM:
        return legal[_below(policy_rng, <uint64_t>n)]
    for p in range(m.rules.players):
        sizes[p] = fc_popcount64(m.hands[p])
    return _greedy_choose(m.hands[m.current], m.table, m.phase, m.current,
                          m.rules.players, sizes, legal, n)


cdef GofRules _rules_of(dict rules) except *:
    """The ``GofRules`` struct from ``fourcards.gangoffour._kernels.pack_rules``
    (a dict by field name), checked."""
    cdef GofRules r
    names = ("players", "target", "dealer", "pass_is_final", "manual", "may_pass", "chinese")
    if sorted(rules) != sorted(names):
        raise ValueError(f"rules must give exactly the fields {', '.join(names)}; got {sorted(map(str, rules))}")
    for name in names:  # ints only: Cython's struct conversion would truncate floats
        _as_size(rules[name], f"rules[{name!r}]", 0, 2**31 - 1)
    r = rules
    if not 2 <= r.players <= 4:
        raise ValueError(f"players={r.players} is not 2..4")
    if r.target < 1:
        raise ValueError(f"target={r.target} must be positive")
    if not 0 <= r.dealer < r.players:
        raise ValueError(f"dealer={r.dealer} is not a seat of {r.players} players")
    return r


cdef void _match_to_words(const GofMatch* m, uint64_t* w) noexcept nogil:
    """A match as ``MATCH_WORDS`` integers, field by field (what pickles keep: no
    padding, no layout); the signed fields wrap modulo 2**64."""
    cdef int p
    w[0] = <uint64_t>m.rules.players
    w[1] = <uint64_t><int64_t>m.rules.target
    w[2] = <uint64_t><int64_t>m.rules.dealer
    w[3] = m.rules.pass_is_final
    w[4] = m.rules.manual
    w[5] = m.rules.may_pass
    w[6] = m.rules.chinese
    w[7] = m.rng
    for p in range(4):
        w[8 + p] = m.hands[p]
        w[12 + p] = <uint64_t><int64_t>m.totals[p]
    w[16] = <uint64_t><int64_t>m.round
    w[17] = <uint64_t><int64_t>m.dealer
    w[18] = <uint64_t><int64_t>m.direction
    w[19] = <uint64_t><int64_t>m.phase
    w[20] = <uint64_t><int64_t>m.current
    w[21] = <uint64_t><int64_t>m.table
    w[22] = <uint64_t><int64_t>m.table_player
    w[23] = m.passed
    w[24] = m.announced
    w[25] = m.out
    w[26] = m.m1_lead
    w[27] = m.played
    w[28] = <uint64_t><int64_t>m.loser
    w[29] = <uint64_t><int64_t>m.given
    w[30] = <uint64_t><int64_t>m.returned
    w[31] = m.winners
    w[32] = <uint64_t><int64_t>m.steps


cdef void _match_from_words(GofMatch* m, const uint64_t* w) noexcept nogil:
    """The match ``_match_to_words`` wrote."""
    cdef int p
    m.rules.players = <int><int64_t>w[0]
    m.rules.target = <int><int64_t>w[1]
    m.rules.dealer = <int><int64_t>w[2]
    m.rules.pass_is_final = w[3] != 0
    m.rules.manual = w[4] != 0
    m.rules.may_pass = w[5] != 0
    m.rules.chinese = w[6] != 0
    m.rng = w[7]
    for p in range(4):
        m.hands[p] = w[8 + p]
        m.totals[p] = <int><int64_t>w[12 + p]
    m.round = <int><int64_t>w[16]
    m.dealer = <int><int64_t>w[17]
    m.direction = <int><int64_t>w[18]
    m.phase = <int><int64_t>w[19]
    m.current = <int><int64_t>w[20]
    m.table = <int><int64_t>w[21]
    m.table_player = <int><int64_t>w[22]
    m.passed = <unsigned int>w[23]
    m.announced = <unsigned int>w[24]
    m.out = <unsigned int>w[25]
    m.m1_lead = w[26] != 0
    m.played = w[27]
    m.loser = <int><int64_t>w[28]
    m.given = <int><int64_t>w[29]
    m.returned = <int><int64_t>w[30]
    m.winners = <unsigned int>w[31]
    m.steps = <int><int64_t>w[32]


cdef bint _log_action(int32_t** log, Py_ssize_t* capacity, int step, int action) noexcept nogil:
    """Write ``action`` at ``step`` of a growing action log; False when memory runs out."""
    cdef int32_t* grown
    if step >= capacity[0]:
        grown = <int32_t*>realloc(log[0], 2 * capacity[0] * sizeof(int32_t))
        if grown == NULL:
            return False
        log[0] = grown
        capacity[0] *= 2
    log[0][step] = action
    return True


cdef object _log_array(const int32_t* log, int steps):
    """A match's actions (``steps`` of them from ``log``) as a new int32 array."""
    cdef cnp.npy_intp dims[1]
    dims[0] = steps
    result = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    if steps:
        memcpy(cnp.PyArray_DATA(result), log, steps * sizeof(int32_t))
    return result


def gof_simulate(const uint64_t[::1] seeds not None, policies, dict rules not None, bint record=False):
    """Play one match per seed between policies (0 random, 1 greedy), without the GIL.

    ``rules`` is ``pack_rules(Rules)``: the ``GofRules`` fields by name.  Seat ``p``'s
    random policy draws from ``Rng(derive_seed(seed, p + 1))``.  Returns
    ``(scores, winners, rounds, steps, actions)``: ``int32 (N, players)``,
    ``bool (N, players)``, ``int32 (N,)``, ``int64 (N,)`` and, with
    ``record``, a list of ``int32`` action arrays (else ``None``).
    """
    cdef GofRules r
    cdef int c_policies[4]
    cdef Py_ssize_t i, count = seeds.shape[0]
    cdef int p, players
    cdef GofMatch m
    cdef uint64_t policy_rng[4]
    cdef int32_t legal[MAX_LEGAL]
    cdef int n, action
    if not _ready:
        raise RuntimeError("the Gang of Four tables are not loaded")
    r = _rules_of(rules)
    players = r.players
    if not 2 <= players <= 4 or len(policies) != players:
        raise ValueError(f"need 2..4 players and a policy per seat, got {players} and {len(policies)}")
    for p in range(players):
        if policies[p] not in (POLICY_RANDOM, POLICY_GREEDY):
            raise ValueError(f"policy {policies[p]!r} is not 0 (random) or 1 (greedy)")
        c_policies[p] = policies[p]
    scores = np.zeros((count, players), dtype=np.int32)
    winners = np.zeros((count, players), dtype=np.bool_)
    rounds = np.zeros(count, dtype=np.int32)
    steps = np.zeros(count, dtype=np.int64)
    cdef int32_t[:, ::1] scores_view = scores
    cdef uint8_t[:, ::1] winners_view = winners.view(np.uint8)
    cdef int32_t[::1] rounds_view = rounds
    cdef int64_t[::1] steps_view = steps
    logs = [] if record else None
    cdef int32_t* action_log = NULL
    cdef Py_ssize_t log_capacity = 0
    cdef bint out_of_memory = False
    if record:
        log_capacity = 4096
        action_log = <int32_t*>malloc(log_capacity * sizeof(int32_t))
        if action_log == NULL:
            raise MemoryError()
    try:
        for i in range(count):
            with nogil:
                _sim_new(&m, r, seeds[i])
                for p in range(4):
                    policy_rng[p] = _seed_stream(seeds[i], p + 1)
                while m.phase != PHASE_OVER:
                    n = _sim_legal(&m, legal)
                    action = _choose(&m, c_policies[m.current], &policy_rng[m.current], legal, n)
                    if record and not _log_action(&action_log, &log_capacity, m.steps, action):
                        out_of_memory = True
                        break
                    _sim_apply(&m, action)
                for p in range(players):
                    scores_view[i, p] = m.totals[p]
                    winners_view[i, p] = (m.winners >> p) & 1
                rounds_view[i] = m.round
                steps_view[i] = m.steps
            if out_of_memory:
                raise MemoryError("no memory left for the action log")
            if record:
                logs.append(_log_array(action_log, m.steps))
    finally:
        free(action_log)
    return scores, winners, rounds, steps, logs


# -- information-set Monte Carlo tree search (SO-ISMCTS) ------------------------
#
# One tree over the searching player's information set.  Each iteration
# samples the hidden cards (a determinization consistent with what the player
# has seen), walks the tree choosing among the children whose action is legal
# in that determinization by UCB with availability counts, adds one node, plays
# the round out with the rule-based policy, and backs up each seat's reward.

ctypedef struct SearchNode:
    int32_t action
    int32_t parent
    int32_t first_child
    int32_t next_sibling
    int32_t mover
    uint32_t visits
    uint32_t available
    double reward


#: The largest ``GofSearch(capacity)``: nodes of 40 bytes, so 1.3 GB.
MAX_SEARCH_NODES = 1 << 25


def check_exploration(exploration):
    """``exploration`` as a float, refused unless a finite number 0..1000."""
    if not isinstance(exploration, (int, float)) or isinstance(exploration, bool):
        raise TypeError(f"exploration must be a number, not {type(exploration).__name__}")
    try:
        value = float(exploration)
    except OverflowError:
        value = float("inf")
    if not (0.0 <= value <= 1000.0):  # NaN fails too
        raise _deck.range_error("exploration", exploration, 0, 1000)
    return value


cdef void _check_search_root(int players, hand, me, sizes, table, table_player, passed,
                             announced, out, direction, played, totals, known, seed,
                             exploration) except *:
    """Check what ``GofSearch.reset`` is given: every field in range and the
    cards consistent (no card twice, enough unseen cards for the hidden hands),
    so the search in C cannot index out of bounds or loop."""
    cdef uint64_t additive = 0
    cdef int p, cards = 0, need = 0
    c_hand = _as_mask(hand)
    c_me = _as_size(me, "me", 0, players - 1)
    _as_action(table, "table")
    c_table_player = _as_size(table_player, "table_player", -1, players - 1)
    if (_index(table, "table") < 0) != (c_table_player < 0):
        raise ValueError(f"table={table} and table_player={table_player}: both -1 or neither")
    seats = (1 << players) - 1
    c_passed = _as_size(passed, "passed", 0, seats)
    _as_size(announced, "announced", 0, seats)
    c_out = _as_size(out, "out", 0, seats)
    if _index(direction, "direction") not in (1, -1):
        raise ValueError(f"direction={direction} is not 1 or -1")
    c_played = _as_mask(played)
    if not 0 <= _index(seed, "seed") < _TWO_64:
        raise _deck.range_error("seed", seed, 0, 2**64 - 1)
    check_exploration(exploration)
    for name, values in (("sizes", sizes), ("totals", totals), ("known", known)):
        if len(values) != players:
            raise ValueError(f"{name} lists {len(values)} seats, not {players}")
    for p in range(players):
        _as_size(totals[p], f"totals[{p}]", 0, 2**31 - 1)
        size = _as_size(sizes[p], f"sizes[{p}]", 0, 64)
        if ((c_out >> p) & 1) != (size == 0):
            raise ValueError(f"seat {p} holds {size} cards but is {'' if (c_out >> p) & 1 else 'not '}out")
        mask = _as_mask(known[p])
        if p != c_me:
            additive += _additive(mask)
            cards += fc_popcount64(mask)
            if fc_popcount64(mask) > size:
                raise ValueError(f"known[{p}] holds more cards than sizes[{p}]={size}")
            need += size - fc_popcount64(mask)
    if sizes[c_me] != fc_popcount64(c_hand) or c_hand == 0:
        raise ValueError(f"sizes[{c_me}]={sizes[c_me]} is not the {fc_popcount64(c_hand)} cards of the hand, "
                         "or the hand is empty")
    for mask in (c_hand, c_played):
        additive += _additive(mask)
        cards += fc_popcount64(mask)
    if fc_popcount64(_canon(additive)) != cards or cards + need > 64:
        raise _deck.ImpossibleCardsError(f"hand, played and known cards overlap or leave too few unseen cards "
                              f"for the hidden hands")


cdef class GofSearch:
    """A search tree for one decision (see ``fourcards.gangoffour.bots.SearchBot``)."""

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

    def __cinit__(self, capacity=200000):
        cdef Py_ssize_t c_capacity = _as_size(capacity, "capacity", 1, MAX_SEARCH_NODES)
        self.nodes = <SearchNode*>malloc(c_capacity * sizeof(SearchNode))
        if self.nodes == NULL:
            raise MemoryError(f"no memory for a search tree of {c_capacity} nodes")
        self.capacity = <int>c_capacity
        self.count = 0
        self.busy = False

    cdef void _check_idle(self) except *:
        if self.busy:
            raise RuntimeError("this GofSearch is searching in another thread; "
                               "use one GofSearch (one SearchBot) per thread")

    def __dealloc__(self):
        free(self.nodes)

    def reset(self, dict rules not None, hand, me, sizes, table, table_player,
              passed, announced, out, bint must_lead_m1,
              direction, played, totals, known, seed, exploration):
        """Start a new tree for the player ``me`` to act, from what they observe.

        ``played`` is the canonical mask of the cards played this round;
        ``known`` lists, per seat, a canonical mask of cards that seat is known
        to hold (the exchange's cards not yet seen played)."""
        cdef int p, players
        cdef uint64_t seen
        cdef GofRules c_rules
        self._check_idle()
        c_rules = _rules_of(rules)
        players = c_rules.players
        _check_search_root(players, hand, me, sizes, table, table_player, passed, announced, out,
                           direction, played, totals, known, seed, exploration)
        self.root.rules = c_rules
        self.root.rng = 0
        self.root.round = 1
        self.root.dealer = 0
        self.root.direction = direction
        self.root.phase = PHASE_PLAY
        self.root.current = me
        self.root.table = table
        self.root.table_player = table_player
        self.root.passed = passed
        self.root.announced = announced
        self.root.out = out
        self.root.m1_lead = must_lead_m1
        self.root.played = _additive(<uint64_t>played)
        self.root.loser = -1
        self.root.given = -1
        self.root.returned = -1
        self.root.winners = 0
        self.root.steps = 0
        for p in range(4):
            self.root.hands[p] = 0
            self.root.totals[p] = 0
            self.sizes[p] = 0
            self.known[p] = 0
        for p in range(players):
            self.root.totals[p] = totals[p]
            self.sizes[p] = sizes[p]
            self.known[p] = _additive(<uint64_t>known[p]) if p != me else 0
        self.root.hands[me] = <uint64_t>hand
        seen = _additive(<uint64_t>hand) + _additive(<uint64_t>played)
        for p in range(players):
            seen += self.known[p]
        self.unknown = _additive(_deck.FULL_DECK) - seen
        self.me = me
        self.rng = seed
        self.exploration = check_exploration(exploration)
        self.iterations = 0
        self.count = 1
        self.nodes[0].action = -1
        self.nodes[0].parent = -1
        self.nodes[0].first_child = -1
        self.nodes[0].next_sibling = -1
        self.nodes[0].mover = -1
        self.nodes[0].visits = 0
        self.nodes[0].available = 0
        self.nodes[0].reward = 0.0

    cdef void _determinize(self, GofMatch* m) noexcept nogil:
        """Deal the unseen cards to the other seats (hand sizes kept, known cards placed)."""
        cdef uint8_t pool[64]
        cdef int n = 0, i, j, p, need
        cdef uint64_t rest = _canon(self.unknown), additive
        cdef uint8_t swap
        while rest:
            pool[n] = _code_of_bit[fc_ctz64(rest)]
            n += 1
            rest &= rest - 1
        for i in range(n - 1, 0, -1):
            j = <int>_below(&self.rng, i + 1)
            swap = pool[i]
            pool[i] = pool[j]
            pool[j] = swap
        m[0] = self.root
        j = 0
        for p in range(m.rules.players):
            if p == self.me:
                continue
            additive = self.known[p]
            need = self.sizes[p] - fc_popcount64(_canon(additive))
            for i in range(need):
                additive += _add_bit[pool[j]]
                j += 1
            m.hands[p] = _canon(additive)

    cdef int _child(self, int node, int action) noexcept nogil:
        cdef int c = self.nodes[node].first_child
        while c >= 0:
            if self.nodes[c].action == action:
                return c
            c = self.nodes[c].next_sibling
        return -1

    cdef int _add_child(self, int node, int action, int mover) noexcept nogil:
        cdef int c
        if self.count >= self.capacity:
            return -1
        c = self.count
        self.count += 1
        self.nodes[c].action = action
        self.nodes[c].parent = node
        self.nodes[c].first_child = -1
        self.nodes[c].next_sibling = self.nodes[node].first_child
        self.nodes[node].first_child = c
        self.nodes[c].mover = mover
        self.nodes[c].visits = 0
        self.nodes[c].available = 0
        self.nodes[c].reward = 0.0
        return c

    cdef void _iterate(self) noexcept nogil:
        cdef GofMatch m
        cdef int node = 0, depth = 0, n, i, c, best, untried_count, pick, p, q, playout
        cdef int action = -1
        cdef int players, mover
        cdef int start_totals[4]
        cdef int penalty[4]
        cdef double best_score, score, mean_others, reward
        cdef int sizes[4]
        self._determinize(&m)
        players = m.rules.players
        for p in range(players):
            start_totals[p] = m.totals[p]
        self.path[0] = 0
        # selection and expansion
        while m.round == 1 and m.phase == PHASE_PLAY and 0 <= m.current < players:
            n = _sim_legal(&m, self.legal)
            mover = m.current
            untried_count = 0
            best = -1
            best_score = -1.0
            for i in range(n):
                c = self._child(node, self.legal[i])
                if c < 0:
                    untried_count += 1
                    continue
                self.nodes[c].available += 1
                score = self.nodes[c].reward / self.nodes[c].visits + self.exploration * sqrt(
                    log(<double>self.nodes[c].available) / self.nodes[c].visits)
                if score > best_score:
                    best_score = score
                    best = c
            if untried_count == 0 and best < 0:
                break  # no legal action (or no finite score): play out from here
            if untried_count > 0:
                pick = <int>_below(&self.rng, <uint64_t>untried_count)
                for i in range(n):
                    if self._child(node, self.legal[i]) < 0:
                        if pick == 0:
                            action = self.legal[i]
                            break
                        pick -= 1
                c = self._add_child(node, action, mover)
                if c < 0:  # the tree is full: play out from here
                    break
                self.nodes[c].available = 1
                _sim_apply(&m, action)
                node = c
                depth += 1
                if depth < 4095:
                    self.path[depth] = node
                break
            _sim_apply(&m, self.nodes[best].action)
            node = best
            depth += 1
            if depth >= 4095:
                break
            self.path[depth] = node
        # play the round out with the rule-based policy (a round has at most
        # 4 * 16 plays and a pass between; the bound guards a bad root)
        playout = 0
        while m.round == 1 and m.phase == PHASE_PLAY and 0 <= m.current < players and playout < 100000:
            playout += 1
            n = _sim_legal(&m, self.legal)
            if n == 0:
                break
            for p in range(players):
                sizes[p] = fc_popcount64(m.hands[p])
            action = _greedy_choose(m.hands[m.current], m.table, m.phase, m.current, players,
                                    sizes, self.legal, n)
            _sim_apply(&m, action)
        for p in range(players):
            penalty[p] = m.totals[p] - start_totals[p]
        # back up: each node scores the reward of the seat that moved into it
        for i in range(min(depth, 4095), -1, -1):
            node = self.path[i]
            self.nodes[node].visits += 1
            mover = self.nodes[node].mover
            if mover >= 0:
                mean_others = 0.0
                for q in range(players):
                    if q != mover:
                        mean_others += penalty[q]
                mean_others /= players - 1
                reward = 0.5 + (mean_others - penalty[mover]) / 160.0
                if reward < 0.0:
                    reward = 0.0
                elif reward > 1.0:
                    reward = 1.0
                self.nodes[node].reward += reward
        self.iterations += 1

    def run(self, iterations):
        """Run ``iterations`` more iterations without the GIL.

        One search at a time: a call while another thread is in ``run`` (or
        ``reset``/``statistics`` meanwhile) raises ``RuntimeError``."""
        cdef long i
        cdef long c_iterations = <long>_as_size(iterations, "iterations", 0, 2**31 - 1)
        self._check_idle()
        if self.count == 0:
            raise RuntimeError("reset() the search first")
        self.busy = True  # set and tested while holding the GIL: no two runs overlap
        try:
            with nogil:
                for i in range(c_iterations):
                    self._iterate()
        finally:
            self.busy = False
        return self.iterations

    def statistics(self):
        """``[(action, visits, mean reward)]`` of the root's children, most visited first."""
        self._check_idle()
        if self.count == 0:
            raise RuntimeError("reset() the search first")
        cdef int c = self.nodes[0].first_child
        result = []
        while c >= 0:
            n = self.nodes[c].visits
            result.append((self.nodes[c].action, n, self.nodes[c].reward / n if n else 0.0))
            c = self.nodes[c].next_sibling
        result.sort(key=lambda item: (-item[1], item[0]))
        return result

    @property
    def size(self):
        """Nodes in the tree."""
        return self.count

    def __reduce__(self):
        """Pickled whole: the root, the tree, the generator and the counters (not the
        scratch buffers of an iteration), so a loaded search goes on the same way."""
        cdef int p, c
        cdef SearchNode* node
        self._check_idle()
        cdef cnp.ndarray[cnp.uint64_t, ndim=1] root = np.empty(MATCH_WORDS + 11, dtype=np.uint64)
        cdef cnp.ndarray[cnp.int64_t, ndim=2] links = np.empty((self.count, 7), dtype=np.int64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] rewards = np.empty(self.count, dtype=np.float64)
        _match_to_words(&self.root, <uint64_t*>root.data)
        root[MATCH_WORDS] = self.unknown
        for p in range(4):
            root[MATCH_WORDS + 1 + p] = self.known[p]
            root[MATCH_WORDS + 5 + p] = <uint64_t><int64_t>self.sizes[p]
        root[MATCH_WORDS + 9] = self.rng
        root[MATCH_WORDS + 10] = <uint64_t><int64_t>self.me
        for c in range(self.count):
            node = &self.nodes[c]
            links[c, 0] = node.action
            links[c, 1] = node.parent
            links[c, 2] = node.first_child
            links[c, 3] = node.next_sibling
            links[c, 4] = node.mover
            links[c, 5] = node.visits
            links[c, 6] = node.available
            rewards[c] = node.reward
        return GofSearch, (self.capacity,), (root, links, rewards, self.exploration, self.iterations)

    def __setstate__(self, state):
        cdef int p, c
        cdef SearchNode* node
        root_words, links_in, rewards_in, exploration, iterations = state
        cdef cnp.ndarray[cnp.uint64_t, ndim=1] root = np.ascontiguousarray(root_words, dtype=np.uint64)
        cdef cnp.ndarray[cnp.int64_t, ndim=2] links = np.ascontiguousarray(links_in, dtype=np.int64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] rewards = np.ascontiguousarray(rewards_in, dtype=np.float64)
        self._check_idle()
        if (root.shape[0] != MATCH_WORDS + 11 or links.shape[1] != 7 or links.shape[0] != rewards.shape[0]
                or links.shape[0] > self.capacity):
            raise ValueError("not the state of a GofSearch of this capacity")
        _match_from_words(&self.root, <uint64_t*>root.data)
        self.unknown = root[MATCH_WORDS]
        for p in range(4):
            self.known[p] = root[MATCH_WORDS + 1 + p]
            self.sizes[p] = <int><int64_t>root[MATCH_WORDS + 5 + p]
        self.rng = root[MATCH_WORDS + 9]
        self.me = <int><int64_t>root[MATCH_WORDS + 10]
        self.exploration = check_exploration(exploration)
        self.iterations = iterations
        self.count = <int>links.shape[0]
        for c in range(self.count):
            node = &self.nodes[c]
            node.action = <int32_t>links[c, 0]
            node.parent = <int32_t>links[c, 1]
            node.first_child = <int32_t>links[c, 2]
            node.next_sibling = <int32_t>links[c, 3]
            node.mover = <int32_t>links[c, 4]
            node.visits = <uint32_t>links[c, 5]
            node.available = <uint32_t>links[c, 6]
            node.reward = rewards[c]



# -- random playouts from a match in progress ------------------------------------

#: Steps one playout may take before it is abandoned (a safety net: a match of
#: legal moves ends long before; see ``GangOfFour.max_game_length``).
MAX_PLAYOUT_STEPS = 1 << 22
cdef long _MAX_PLAYOUT_STEPS = MAX_PLAYOUT_STEPS


def gof_random_playouts(dict rules not None, hands, totals, round_, dealer, direction, phase,
                        current, table, table_player, passed, announced, out, bint m1_lead,
                        played, loser, given, returned, match_rng, playouts, seed,
                        bint record=False):
    """Play the match on to its end ``playouts`` times with uniformly random
    legal actions, without the GIL; returns ``(mean_returns, actions)``.

    The match is given field by field as ``fourcards.gangoffour.match.MatchState``
    holds it (``played`` a canonical mask; ``match_rng`` the state of the
    match's generator, which deals the later rounds: every playout continues
    from it).  Each action is ``legal[below(len(legal))]`` of the sorted legal
    actions, drawn from one SplitMix64 stream seeded with ``seed`` across the
    playouts, exactly as ``Rng(seed).below`` would.  ``mean_returns`` is a
    float64 array (``MatchState.returns`` averaged); ``actions`` (with
    ``record``) lists each playout's actions as an int32 array, else None.
    """
    cdef GofRules r
    cdef GofMatch root, m
    cdef int n_players, p, n, action, size
    cdef uint64_t additive = 0, rng_state, policy_rng
    cdef int cards = 0
    cdef long c_playouts, i, k
    cdef double share
    cdef bint stuck = False, too_long = False, out_of_memory = False
    cdef int32_t legal[MAX_LEGAL]
    cdef int32_t* action_log = NULL
    cdef Py_ssize_t log_capacity = 0
    if not _ready:
        raise RuntimeError("the Gang of Four tables are not loaded")
    r = _rules_of(rules)
    n_players = r.players
    c_playouts = <long>_as_size(playouts, "playouts", 1, 2**31 - 1)
    if not 0 <= _index(seed, "seed") < _TWO_64:
        raise _deck.range_error("seed", seed, 0, 2**64 - 1)
    if not 0 <= _index(match_rng, "match_rng") < _TWO_64:
        raise _deck.range_error("match_rng", match_rng, 0, 2**64 - 1)
    for name, values in (("hands", hands), ("totals", totals)):
        if len(values) != n_players:
            raise ValueError(f"{name} lists {len(values)} seats, not {n_players}")
    root.rules = r
    root.rng = <uint64_t>match_rng
    root.round = <int>_as_size(round_, "round_", 1, 2**31 - 1)
    root.dealer = <int>_as_size(dealer, "dealer", 0, n_players - 1)
    if _index(direction, "direction") not in (1, -1):
        raise ValueError(f"direction={direction} is not 1 or -1")
    root.direction = direction
    root.phase = <int>_as_size(phase, "phase", PHASE_PLAY, PHASE_GIVE_BACK)
    root.current = <int>_as_size(current, "current", 0, n_players - 1)
    root.table = _as_action(table, "table")
    root.table_player = <int>_as_size(table_player, "table_player", -1, n_players - 1)
    if (root.table < 0) != (root.table_player < 0):
        raise ValueError(f"table={table} and table_player={table_player}: both -1 or neither")
    seats = (1 << n_players) - 1
    root.passed = <unsigned int>_as_size(passed, "passed", 0, seats)
    root.announced = <unsigned int>_as_size(announced, "announced", 0, seats)
    root.out = <unsigned int>_as_size(out, "out", 0, seats)
    root.m1_lead = m1_lead
    root.played = _additive(_as_mask(played))
    root.loser = <int>_as_size(loser, "loser", -1, n_players - 1)
    root.given = <int>_as_size(given, "given", -1, N_KINDS - 1)
    root.returned = <int>_as_size(returned, "returned", -1, N_KINDS - 1)
    root.winners = 0
    root.steps = 0
    for p in range(4):
        root.hands[p] = 0
        root.totals[p] = 0
    for p in range(n_players):
        root.hands[p] = _as_mask(hands[p])
        root.totals[p] = <int>_as_size(totals[p], f"totals[{p}]", 0, 2**31 - 1)
        size = fc_popcount64(root.hands[p])
        if ((root.out >> p) & 1) != (size == 0):
            raise ValueError(f"seat {p} holds {size} cards but is {'' if (root.out >> p) & 1 else 'not '}out")
        additive += _additive(root.hands[p])
        cards += size
    additive += root.played
    cards += fc_popcount64(_as_mask(played))
    if fc_popcount64(_canon(additive)) != cards or cards > 64:
        raise _deck.ImpossibleCardsError("the hands and the played cards hold some card more often than the deck")
    if (root.out >> root.current) & 1:
        raise ValueError(f"current={current} is out of the round")
    if root.phase == PHASE_GIVE_BACK and (root.loser < 0 or root.loser == root.current or root.table >= 0):
        raise ValueError("a give-back needs a loser other than the current player and an empty table")
    if record:
        log_capacity = 4096
        action_log = <int32_t*>malloc(log_capacity * sizeof(int32_t))
        if action_log == NULL:
            raise MemoryError()
    sums = np.zeros(n_players, dtype=np.float64)
    cdef double[::1] sums_view = sums
    logs = [] if record else None
    policy_rng = <uint64_t>seed
    try:
        for i in range(c_playouts):
            with nogil:
                m = root
                while m.phase != PHASE_OVER:
                    n = _sim_legal(&m, legal)
                    if n == 0:
                        stuck = True
                        break
                    if m.steps >= _MAX_PLAYOUT_STEPS:
                        too_long = True
                        break
                    action = legal[_below(&policy_rng, <uint64_t>n)]
                    if record and not _log_action(&action_log, &log_capacity, m.steps, action):
                        out_of_memory = True
                        break
                    _sim_apply(&m, action)
                if not (stuck or too_long or out_of_memory):
                    share = 1.0 / fc_popcount64(m.winners)
                    for p in range(n_players):
                        sums_view[p] += (share if (m.winners >> p) & 1 else 0.0) - 1.0 / n_players
            if stuck:
                raise ValueError("the match has no legal action for the player to act (an inconsistent state)")
            if too_long:
                raise ValueError(f"a playout took more than {MAX_PLAYOUT_STEPS} steps")
            if out_of_memory:
                raise MemoryError("no memory left for the action log")
            if record:
                logs.append(_log_array(action_log, m.steps))
    finally:
        free(action_log)
    return sums / c_playouts, logs
