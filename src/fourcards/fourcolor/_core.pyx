# cython: language_level=3
"""The compiled Four Color Cards kernels: the best split of a hand into melds.

Each kernel has a pure-Python twin (``fourcards.fourcolor._reference``); the
tests check that they agree.
"""

from libc.stdint cimport uint64_t, uint32_t, int64_t, int32_t, int16_t, uint8_t, int8_t
from libc.string cimport memcpy, memset
from libc.stdlib cimport malloc, free
from cpython.ref cimport PyObject, Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from fourcards._common cimport _below, _seed_stream, _splitmix_next

import numpy as np

# =============================================================================
# Four Color Cards: the best split of a hand into melds, by block tables.
# A colour block (ranks General..Cannon of one colour, counts 0..4) has 5**6
# states; the soldier block (soldiers by colour) 5**4.  Each table holds the
# best concealed points of a complete split of that block (-1: none).
# =============================================================================

cdef enum:
    FC_KINDS = 28
    FC_COLOUR_STATES = 15625
    FC_SOLDIER_STATES = 625

cdef int8_t _fc_colour_best[FC_COLOUR_STATES]
cdef int8_t _fc_soldier_best[FC_SOLDIER_STATES]
cdef int _fc_pow5[8]
cdef bint _fc_ready = False
# (exposed, concealed) points by meld kind, as fourcolor._deck.POINTS
cdef int _fc_exposed_points[9]
cdef int _fc_concealed_points[9]
# The melds holding each kind, within its block: kind, and the count taken of
# each rank (colour blocks: ranks 0..5; soldier block: colours 0..3).
cdef int _fc_meld_count[FC_KINDS]
cdef int _fc_meld_kind[FC_KINDS][8]
cdef int _fc_meld_take[FC_KINDS][8][6]


cdef int _fc_colour(int index) noexcept nogil:
    """Best concealed points of a colour block state (memoised in the table)."""
    cdef int counts[6]
    cdef int r, best = -1, sub, first = -1, rest
    if index == 0:
        return 0
    if _fc_colour_best[index] != -2:
        return _fc_colour_best[index]
    for r in range(6):
        counts[r] = index // _fc_pow5[r] % 5
        if first < 0 and counts[r]:
            first = r
    # every meld holding one card of the lowest rank present
    if first == 0:  # General: alone, four of them, or with Advisor and Elephant
        sub = _fc_colour(index - 1)
        if sub >= 0 and 1 + sub > best:
            best = 1 + sub
        if counts[0] == 4:
            sub = _fc_colour(index - 4)
            if sub >= 0 and 6 + sub > best:
                best = 6 + sub
        if counts[1] and counts[2]:
            sub = _fc_colour(index - 1 - _fc_pow5[1] - _fc_pow5[2])
            if sub >= 0 and 2 + sub > best:
                best = 2 + sub
    else:
        if counts[first] >= 2:
            sub = _fc_colour(index - 2 * _fc_pow5[first])
            if sub >= 0 and sub > best:
                best = sub
        if counts[first] >= 3:
            sub = _fc_colour(index - 3 * _fc_pow5[first])
            if sub >= 0 and 3 + sub > best:
                best = 3 + sub
        if counts[first] == 4:
            sub = _fc_colour(index - 4 * _fc_pow5[first])
            if sub >= 0 and 8 + sub > best:
                best = 8 + sub
        if first == 3 and counts[4] and counts[5]:
            sub = _fc_colour(index - _fc_pow5[3] - _fc_pow5[4] - _fc_pow5[5])
            if sub >= 0 and 1 + sub > best:
                best = 1 + sub
    _fc_colour_best[index] = best
    return best


cdef int _fc_soldiers(int index) noexcept nogil:
    cdef int counts[4]
    cdef int c, a, b, best = -1, sub, first = -1
    if index == 0:
        return 0
    if _fc_soldier_best[index] != -2:
        return _fc_soldier_best[index]
    for c in range(4):
        counts[c] = index // _fc_pow5[c] % 5
        if first < 0 and counts[c]:
            first = c
    if counts[first] >= 3:
        sub = _fc_soldiers(index - 3 * _fc_pow5[first])
        if sub >= 0 and 3 + sub > best:
            best = 3 + sub
    if counts[first] == 4:
        sub = _fc_soldiers(index - 4 * _fc_pow5[first])
        if sub >= 0 and 8 + sub > best:
            best = 8 + sub
    for a in range(first + 1, 4):  # three soldiers: the first colour and two higher ones
        for b in range(a + 1, 4):
            if counts[a] and counts[b]:
                sub = _fc_soldiers(index - _fc_pow5[first] - _fc_pow5[a] - _fc_pow5[b])
                if sub >= 0 and 3 + sub > best:
                    best = 3 + sub
    if first == 0 and counts[1] and counts[2] and counts[3]:
        sub = _fc_soldiers(index - 1 - _fc_pow5[1] - _fc_pow5[2] - _fc_pow5[3])
        if sub >= 0 and 5 + sub > best:
            best = 5 + sub
    _fc_soldier_best[index] = best
    return best


def fc_init(melds_by_kind, points, all_melds=None):
    """Build the block tables; ``melds_by_kind[k]`` lists ``(meld kind, codes)``
    of every meld holding kind ``k`` (from fourcards.fourcolor._reference);
    ``all_melds`` lists every meld's codes in action order (``_reference.MELDS``)."""
    global _fc_ready
    cdef int i, k, m, c
    _fc_pow5[0] = 1
    for i in range(1, 8):
        _fc_pow5[i] = 5 * _fc_pow5[i - 1]
    for i in range(9):
        _fc_exposed_points[i] = points[i][0]
        _fc_concealed_points[i] = points[i][1]
    for i in range(FC_COLOUR_STATES):
        _fc_colour_best[i] = -2
    for i in range(FC_SOLDIER_STATES):
        _fc_soldier_best[i] = -2
    _fc_colour_best[0] = 0
    _fc_soldier_best[0] = 0
    for i in range(FC_COLOUR_STATES):
        _fc_colour(i)
    for i in range(FC_SOLDIER_STATES):
        _fc_soldiers(i)
    for k in range(FC_KINDS):
        melds = melds_by_kind[k]
        if len(melds) > 8:
            raise ValueError("too many melds for one kind")
        _fc_meld_count[k] = len(melds)
        for m, (kind, codes) in enumerate(melds):
            _fc_meld_kind[k][m] = kind
            for i in range(6):
                _fc_meld_take[k][m][i] = 0
            for c in codes:
                if k % 7 == 6:
                    _fc_meld_take[k][m][c // 7] += 1
                else:
                    _fc_meld_take[k][m][c % 7] += 1
    if all_melds is not None:
        _fc_init_melds(all_melds, melds_by_kind)
    _fc_init_shape()
    _fc_ready = True


cdef inline int _fc_indices(const uint8_t* counts, int* index) noexcept nogil:
    """Block indices of 28 counts; non-zero if a count is above 4."""
    cdef int c
    cdef const uint8_t* k
    cdef uint64_t w0, w1, w2
    cdef uint32_t w3
    # Any byte above 4: adding 123 sets its top bit (a byte of 128 or more has it already).
    memcpy(&w0, counts, 8)
    memcpy(&w1, counts + 8, 8)
    memcpy(&w2, counts + 16, 8)
    memcpy(&w3, counts + 24, 4)
    if ((((w0 + 0x7B7B7B7B7B7B7B7BULL) | w0) | ((w1 + 0x7B7B7B7B7B7B7B7BULL) | w1)
            | ((w2 + 0x7B7B7B7B7B7B7B7BULL) | w2)) & 0x8080808080808080ULL) \
            or ((((w3 + 0x7B7B7B7BU) | w3)) & 0x80808080U):
        return 1
    for c in range(4):
        k = counts + 7 * c
        index[c] = k[0] + 5 * k[1] + 25 * k[2] + 125 * k[3] + 625 * k[4] + 3125 * k[5]
    index[4] = counts[6] + 5 * counts[13] + 25 * counts[20] + 125 * counts[27]
    return 0


cdef inline int _fc_best_plain(const uint8_t* counts) noexcept nogil:
    """Best concealed points of a complete split (-1: none, -2: a count above 4)."""
    cdef int index[5]
    cdef int a, b, c, d, e, neg
    if _fc_indices(counts, index):
        return -2
    a = _fc_colour_best[index[0]]
    b = _fc_colour_best[index[1]]
    c = _fc_colour_best[index[2]]
    d = _fc_colour_best[index[3]]
    e = _fc_soldier_best[index[4]]
    # branch-free: -1 when any block fails to split (half of random hands)
    neg = (a | b | c | d | e) >> 31
    return ((a + b + c + d + e) & ~neg) | neg


cdef int _fc_best(const uint8_t* counts, int exposed_code) noexcept nogil:
    """Best points of a complete split (-1: none, -2: a count above 4)."""
    cdef int index[5]
    cdef int block, r, c, total = 0, best_block, m, sub, n, shifted, take
    cdef bint fits
    if exposed_code < 0:
        return _fc_best_plain(counts)
    if _fc_indices(counts, index):
        return -2
    block = -1
    if exposed_code >= 0:
        block = 4 if exposed_code % 7 == 6 else exposed_code // 7
    for c in range(5):
        if c == block:
            continue
        sub = _fc_colour_best[index[c]] if c < 4 else _fc_soldier_best[index[c]]
        if sub < 0:
            return -1
        total += sub
    if block < 0:
        return total
    # The meld holding the card from a discard is scored exposed: try each.
    best_block = -1
    for m in range(_fc_meld_count[exposed_code]):
        shifted = index[block]
        fits = True
        for r in range(6 if block < 4 else 4):
            take = _fc_meld_take[exposed_code][m][r]
            if take:
                n = index[block] // _fc_pow5[r] % 5
                if n < take:
                    fits = False
                    break
                shifted -= take * _fc_pow5[r]
        if not fits:
            continue
        sub = _fc_colour_best[shifted] if block < 4 else _fc_soldier_best[shifted]
        if sub >= 0 and sub + _fc_exposed_points[_fc_meld_kind[exposed_code][m]] > best_block:
            best_block = sub + _fc_exposed_points[_fc_meld_kind[exposed_code][m]]
    if best_block < 0:
        return -1
    return total + best_block


cdef inline void _fc_check(int exposed_code) except *:
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if not -1 <= exposed_code < FC_KINDS:
        raise ValueError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")


def fc_best_points_packed(object packed, int exposed_code=-1):
    """Best points of a complete split of a packed hand (3 bits a kind, kind
    ``k`` at bit ``3k``); -1: none; -2: a count above 4."""
    cdef uint8_t counts[FC_KINDS]
    cdef uint64_t low, high
    cdef int k
    _fc_check(exposed_code)
    if packed < 0 or packed >> 84:
        raise OverflowError(f"packed hand {packed:#x} does not fit in 84 bits")
    low = <uint64_t>(packed & 0xFFFFFFFFFFFFFFFF)
    high = <uint64_t>(packed >> 64)
    for k in range(21):
        counts[k] = (low >> (3 * k)) & 7
    counts[21] = ((low >> 63) | (high << 1)) & 7
    for k in range(22, FC_KINDS):
        counts[k] = (high >> (3 * k - 64)) & 7
    return _fc_best(counts, exposed_code)


def fc_best_points(counts, int exposed_code=-1):
    """Best points of a complete split of 28 counts; -1: none; -2: a count above 4."""
    cdef const uint8_t[::1] view = np.ascontiguousarray(counts, dtype=np.uint8)
    _fc_check(exposed_code)
    if view.shape[0] != FC_KINDS:
        raise ValueError(f"a hand is 28 counts, got {view.shape[0]}")
    return _fc_best(&view[0], exposed_code)


def fc_block_best(int block, int index):
    """Best concealed points of a block state (0..3 colour blocks, 4 soldiers); -1: none."""
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if block < 4:
        if not 0 <= index < FC_COLOUR_STATES:
            raise ValueError(f"colour block index {index} out of range")
        return _fc_colour_best[index]
    if block != 4 or not 0 <= index < FC_SOLDIER_STATES:
        raise ValueError(f"block {block} / index {index} out of range")
    return _fc_soldier_best[index]


def fc_best_points_batch(counts, exposed=None):
    """Best points (int16; -1 none, -2 a count above 4) of rows of 28 counts, without the GIL."""
    cdef const uint8_t[:, ::1] rows = np.ascontiguousarray(counts, dtype=np.uint8)
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef const int8_t[::1] exposed_view
    if rows.shape[1] != FC_KINDS:
        raise ValueError(f"rows must hold 28 counts, got {rows.shape[1]}")
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    cdef bint all_plain = exposed is None
    if exposed is None:
        exposed = np.full(n, -1, dtype=np.int8)
    exposed_view = np.ascontiguousarray(exposed, dtype=np.int8)
    if exposed_view.shape[0] != n:
        raise ValueError("one exposed code a row")
    for i in range(n):
        if not -1 <= exposed_view[i] < FC_KINDS:
            raise ValueError(f"exposed code {exposed_view[i]} in row {i} is not a card code")
    out = np.empty(n, dtype=np.int16)
    cdef int16_t[::1] out_view = out
    if n == 0:
        return out
    cdef const uint8_t* base = &rows[0, 0]
    with nogil:
        if all_plain:
            for i in range(n):
                out_view[i] = <int16_t>_fc_best_plain(base + FC_KINDS * i)
        else:
            for i in range(n):
                out_view[i] = <int16_t>_fc_best(base + FC_KINDS * i, exposed_view[i])
    return out



# =============================================================================
# Every meld by its action index (game.MELDS order), and the melds holding each
# kind by index: what the split reconstruction, the claims and the simulator use.
# =============================================================================

cdef enum:
    FC_NUM_MELDS = 89
    FC_MAX_SPLIT = 64
    FC_PASS = 28
    FC_HU = 29
    FC_CLAIM_BASE = 30
    FC_LONE_GENERAL = 0
    FC_TRIPLE = 2
    FC_QUAD = 3
    FC_COMMAND = 5

cdef int _fc_meld_len[FC_NUM_MELDS]
cdef int _fc_meld_codes[FC_NUM_MELDS][4]
cdef int _fc_meld_kind_of[FC_NUM_MELDS]
cdef int _fc_meld_global[FC_KINDS][8]
cdef int _fc_num_melds = 0
# Per block state, which meld (position in the lowest kind's MELDS_WITH list)
# the reconstruction takes first: colour blocks as colour 0 (the lists follow
# the same pattern in every colour), the soldier block as is.
cdef int8_t _fc_choice_colour[FC_COLOUR_STATES]
cdef int8_t _fc_choice_soldier[FC_SOLDIER_STATES]


cdef int _fc_init_melds(object melds, object melds_by_kind) except -1:
    global _fc_num_melds
    cdef int g, i, k, m
    if len(melds) != FC_NUM_MELDS:
        raise ValueError(f"expected {FC_NUM_MELDS} melds, got {len(melds)}")
    index = {tuple(codes): g for g, codes in enumerate(melds)}
    for k in range(FC_KINDS):
        for m, (kind, codes) in enumerate(melds_by_kind[k]):
            g = index[tuple(codes)]
            _fc_meld_global[k][m] = g
            _fc_meld_kind_of[g] = kind
            _fc_meld_len[g] = len(codes)
            for i in range(len(codes)):
                _fc_meld_codes[g][i] = codes[i]
    _fc_num_melds = FC_NUM_MELDS
    _fc_init_choices()
    return 0


cdef int _fc_choose(int block, int index, int kind) noexcept nogil:
    """The first meld of MELDS_WITH[kind] that keeps the block's best split, or -1."""
    cdef int m, g, i, shifted, sub, k, r, take, cur = _fc_table(block, index)
    cdef int counts[6]
    for r in range(6):
        counts[r] = index // _fc_pow5[r] % 5 if (block < 4 or r < 4) else 0
    for m in range(_fc_meld_count[kind]):
        g = _fc_meld_global[kind][m]
        shifted = index
        for r in range(6):
            take = _fc_meld_take[kind][m][r]
            if take > counts[r]:
                shifted = -1
                break
            shifted -= take * _fc_pow5[r]
        if shifted < 0:
            continue
        sub = _fc_table(block, shifted)
        if sub >= 0 and sub + _fc_concealed_points[_fc_meld_kind_of[g]] == cur:
            return m
    return -1


cdef void _fc_init_choices() noexcept nogil:
    cdef int s, r, first
    _fc_choice_colour[0] = -1
    _fc_choice_soldier[0] = -1
    for s in range(1, FC_COLOUR_STATES):
        _fc_choice_colour[s] = -1
        if _fc_colour_best[s] < 0:
            continue
        first = 0
        while s // _fc_pow5[first] % 5 == 0:
            first += 1
        _fc_choice_colour[s] = <int8_t>_fc_choose(0, s, first)
    for s in range(1, FC_SOLDIER_STATES):
        _fc_choice_soldier[s] = -1
        if _fc_soldier_best[s] < 0:
            continue
        first = 0
        while s // _fc_pow5[first] % 5 == 0:
            first += 1
        _fc_choice_soldier[s] = <int8_t>_fc_choose(4, s, 7 * first + 6)


cdef inline int _fc_block_of(int code) noexcept nogil:
    return 4 if code % 7 == 6 else code // 7


cdef inline int _fc_digit(int code) noexcept nogil:
    """The power of five of a kind within its block."""
    return _fc_pow5[code // 7] if code % 7 == 6 else _fc_pow5[code % 7]


cdef inline int _fc_table(int block, int index) noexcept nogil:
    return _fc_colour_best[index] if block < 4 else _fc_soldier_best[index]


cdef int _fc_split(const uint8_t* counts, int exposed_code, int* out, int* n_out) noexcept nogil:
    """The best split: its points (-1 none, -2 a count above 4), and the action
    indices of its melds in ``out`` (the exposed one first, then by lowest card)."""
    cdef int index[5]
    cdef int rest[FC_KINDS]
    cdef int total, block, target, m, g, i, shifted, sub, first, cur, k, c, count
    cdef bint fits
    n_out[0] = 0
    total = _fc_best(counts, exposed_code)
    if total < 0:
        return total
    _fc_indices(counts, index)
    for k in range(FC_KINDS):
        rest[k] = counts[k]
    count = 0
    if exposed_code >= 0:
        block = _fc_block_of(exposed_code)
        target = total
        for c in range(5):
            if c != block:
                target -= _fc_table(c, index[c])
        for m in range(_fc_meld_count[exposed_code]):
            g = _fc_meld_global[exposed_code][m]
            shifted = index[block]
            fits = True
            for i in range(_fc_meld_len[g]):
                k = _fc_meld_codes[g][i]
                rest[k] -= 1
                fits = fits and rest[k] >= 0
                shifted -= _fc_digit(k)
            if fits:
                sub = _fc_table(block, shifted)
                if sub >= 0 and sub + _fc_exposed_points[_fc_meld_kind_of[g]] == target:
                    index[block] = shifted
                    out[count] = g
                    count += 1
                    break
            for i in range(_fc_meld_len[g]):
                rest[_fc_meld_codes[g][i]] += 1
    first = 0
    while True:
        while first < FC_KINDS and rest[first] == 0:
            first += 1
        if first == FC_KINDS or count >= FC_MAX_SPLIT:
            break
        block = _fc_block_of(first)
        m = _fc_choice_colour[index[block]] if block < 4 else _fc_choice_soldier[index[block]]
        if m < 0:  # cannot happen: the tables guarantee a way
            return -3
        g = _fc_meld_global[first][m]
        for i in range(_fc_meld_len[g]):
            k = _fc_meld_codes[g][i]
            rest[k] -= 1
            index[block] -= _fc_digit(k)
        out[count] = g
        count += 1
    n_out[0] = count
    return total


cdef void _fc_wait_points(const uint8_t* counts, const uint8_t* on_table, bint from_discard,
                          int16_t* out) noexcept nogil:
    """Per kind, the points of the hand completed by one more card of it (-1: none)."""
    cdef int index[5]
    cdef int value[5]
    cdef uint8_t trial[FC_KINDS]
    cdef int code, b, failing = 0, total = 0, sub, p
    if _fc_indices(counts, index):
        for code in range(FC_KINDS):
            out[code] = -1
        return
    if from_discard:
        memcpy(trial, counts, FC_KINDS)
        for code in range(FC_KINDS):
            out[code] = -1
            if counts[code] + on_table[code] >= 4:
                continue
            trial[code] += 1
            p = _fc_best(trial, code)
            trial[code] -= 1
            if p >= 0:
                out[code] = <int16_t>p
        return
    for b in range(5):
        value[b] = _fc_table(b, index[b])
        if value[b] < 0:
            failing += 1
        else:
            total += value[b]
    for code in range(FC_KINDS):
        out[code] = -1
        if counts[code] + on_table[code] >= 4:
            continue
        b = _fc_block_of(code)
        if failing > 1 or (failing == 1 and value[b] >= 0):
            continue
        sub = _fc_table(b, index[b] + _fc_digit(code))
        if sub >= 0:
            out[code] = <int16_t>(total - (value[b] if value[b] >= 0 else 0) + sub)


def fc_split(counts, int exposed_code=-1):
    """The best split of 28 counts: ``(points, meld action indices)``, or None (no
    split, or a count above 4)."""
    cdef const uint8_t[::1] view = np.ascontiguousarray(counts, dtype=np.uint8)
    cdef int melds[FC_MAX_SPLIT]
    cdef int n, total, i
    _fc_check(exposed_code)
    if view.shape[0] != FC_KINDS:
        raise ValueError(f"a hand is 28 counts, got {view.shape[0]}")
    total = _fc_split(&view[0], exposed_code, melds, &n)
    if total < 0:
        return None
    return total, tuple([melds[i] for i in range(n)])


def fc_wait_points(counts, on_table=None, bint from_discard=False):
    """Per kind, the points a hand of 28 counts completed by one more card of it
    scores (-1: not a wait; kinds with 4 in hand and ``on_table`` are skipped)."""
    cdef const uint8_t[::1] view = np.ascontiguousarray(counts, dtype=np.uint8)
    cdef uint8_t table[FC_KINDS]
    cdef int16_t out[FC_KINDS]
    cdef int k
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if view.shape[0] != FC_KINDS:
        raise ValueError(f"a hand is 28 counts, got {view.shape[0]}")
    for k in range(FC_KINDS):
        table[k] = 0
    if on_table is not None:
        for k in range(FC_KINDS):
            table[k] = <uint8_t>min(max(int(on_table[k]), 0), 4)
    _fc_wait_points(&view[0], table, from_discard, out)
    return [out[k] for k in range(FC_KINDS)]


def fc_best_split_batch(counts, exposed=None):
    """Rows of 28 counts (``uint8``, checked by the caller): ``(points int16,
    melds int8 (rows, 64))``, the melds' action indices padded with -1; without the GIL."""
    cdef const uint8_t[:, ::1] rows = np.ascontiguousarray(counts, dtype=np.uint8)
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef int j, m
    cdef int buf[FC_MAX_SPLIT]
    cdef const int8_t[::1] exposed_view
    if rows.shape[1] != FC_KINDS:
        raise ValueError(f"rows must hold 28 counts, got {rows.shape[1]}")
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if exposed is None:
        exposed = np.full(n, -1, dtype=np.int8)
    exposed_view = np.ascontiguousarray(exposed, dtype=np.int8)
    if exposed_view.shape[0] != n:
        raise ValueError("one exposed code a row")
    for i in range(n):
        if not -1 <= exposed_view[i] < FC_KINDS:
            raise ValueError(f"exposed code {exposed_view[i]} in row {i} is not a card code")
    points = np.empty(n, dtype=np.int16)
    melds = np.full((n, FC_MAX_SPLIT), -1, dtype=np.int8)
    cdef int16_t[::1] points_view = points
    cdef int8_t[:, ::1] melds_view = melds
    if n == 0:
        return points, melds
    with nogil:
        for i in range(n):
            points_view[i] = <int16_t>_fc_split(&rows[i, 0], exposed_view[i], buf, &m)
            for j in range(m):
                melds_view[i, j] = <int8_t>buf[j]
    return points, melds


def fc_waits_batch(counts, bint from_discard=False):
    """Rows of 28 counts (``uint8``, checked by the caller): int16 (rows, 28),
    the points each kind would complete the hand with (-1: none); without the GIL."""
    cdef const uint8_t[:, ::1] rows = np.ascontiguousarray(counts, dtype=np.uint8)
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef uint8_t none[FC_KINDS]
    if rows.shape[1] != FC_KINDS:
        raise ValueError(f"rows must hold 28 counts, got {rows.shape[1]}")
    if not _fc_ready:
        raise RuntimeError("the Four Color tables are not loaded")
    out = np.empty((n, FC_KINDS), dtype=np.int16)
    cdef int16_t[:, ::1] out_view = out
    memset(none, 0, FC_KINDS)
    if n == 0:
        return out
    with nogil:
        for i in range(n):
            _fc_wait_points(&rows[i, 0], none, from_discard, &out_view[i, 0])
    return out


# =============================================================================
# The public functions' fast path: a list or tuple of Card (or card names), or
# 28 small ints, read in C.  Anything else answers FALLBACK, and the Python
# path (which raises the proper errors) takes over.
# =============================================================================

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
    return _fc_best_plain(counts) >= 0


def fc_best_points_hand(hand, exposed_code=-1):
    """Best points of a hand (-1: no split); FALLBACK for the Python path."""
    cdef uint8_t counts[FC_KINDS]
    cdef long code
    if type(exposed_code) is not int:
        return FALLBACK
    code = exposed_code if -1 <= exposed_code < FC_KINDS else -2
    if code == -2 or _fc_read_hand(hand, counts):
        return FALLBACK
    return _fc_best(counts, code)


def fc_best_split_hand(hand):
    """The public ``Split`` of a hand (None: no split); FALLBACK for the Python path."""
    cdef uint8_t counts[FC_KINDS]
    cdef int melds[FC_MAX_SPLIT]
    cdef int n, total, i
    if _fc_read_hand(hand, counts):
        return FALLBACK
    total = _fc_split(counts, -1, melds, &n)
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
    _fc_wait_points(counts, none, from_discard, out)
    result = {}
    for k in range(FC_KINDS):
        if out[k] >= 0:
            result[_fc_cards[k]] = out[k]
    return result


# =============================================================================
# The rule-based player (fourcards.fourcolor.bots.GreedyBot) in C.
# Shape tables: per block state, the most cards covered by complete melds and
# then the most near-melds (two cards of a command or field set, two soldiers
# of two colours), as _reference.covered.
# =============================================================================

cdef int16_t _fc_shape_colour[FC_COLOUR_STATES]   # covered * 64 + near
cdef int16_t _fc_shape_soldier[FC_SOLDIER_STATES]
cdef bint _fc_shape_ready = False


cdef int _fc_covered(int index, bint soldiers) noexcept nogil:
    cdef int counts[6]
    cdef int width = 4 if soldiers else 6
    cdef int r, first = -1, best, sub, value, a, b, present, near
    cdef int16_t* table = &_fc_shape_colour[0]
    if soldiers:
        table = &_fc_shape_soldier[0]
    if index == 0:
        return 0
    if table[index] >= 0:
        return table[index]
    for r in range(width):
        counts[r] = index // _fc_pow5[r] % 5
        if first < 0 and counts[r]:
            first = r
    # leave the lowest card out: it may still be a near-meld
    near = 0
    if soldiers:
        present = 0
        for r in range(4):
            present += counts[r] > 0
        near = present >= 2
    elif first <= 2:
        near = (counts[0] > 0) + (counts[1] > 0) + (counts[2] > 0) >= 2
    elif first <= 5:
        near = (counts[3] > 0) + (counts[4] > 0) + (counts[5] > 0) >= 2
    sub = _fc_covered(index - _fc_pow5[first], soldiers)
    best = sub + near
    if soldiers:
        if counts[first] >= 3:
            sub = _fc_covered(index - 3 * _fc_pow5[first], soldiers) + 3 * 64
            if sub > best:
                best = sub
        if counts[first] == 4:
            sub = _fc_covered(index - 4 * _fc_pow5[first], soldiers) + 4 * 64
            if sub > best:
                best = sub
        for a in range(first + 1, 4):
            for b in range(a + 1, 4):
                if counts[a] and counts[b]:
                    sub = _fc_covered(index - _fc_pow5[first] - _fc_pow5[a] - _fc_pow5[b], soldiers) + 3 * 64
                    if sub > best:
                        best = sub
        if first == 0 and counts[1] and counts[2] and counts[3]:
            sub = _fc_covered(index - 1 - _fc_pow5[1] - _fc_pow5[2] - _fc_pow5[3], soldiers) + 4 * 64
            if sub > best:
                best = sub
    elif first == 0:
        sub = _fc_covered(index - 1, soldiers) + 64
        if sub > best:
            best = sub
        if counts[0] == 4:
            sub = _fc_covered(index - 4, soldiers) + 4 * 64
            if sub > best:
                best = sub
        if counts[1] and counts[2]:
            sub = _fc_covered(index - 1 - _fc_pow5[1] - _fc_pow5[2], soldiers) + 3 * 64
            if sub > best:
                best = sub
    else:
        for value in range(2, 5):
            if counts[first] >= value:
                sub = _fc_covered(index - value * _fc_pow5[first], soldiers) + value * 64
                if sub > best:
                    best = sub
        if first == 3 and counts[4] and counts[5]:
            sub = _fc_covered(index - _fc_pow5[3] - _fc_pow5[4] - _fc_pow5[5], soldiers) + 3 * 64
            if sub > best:
                best = sub
    table[index] = <int16_t>best
    return best


cdef void _fc_init_shape() noexcept nogil:
    global _fc_shape_ready
    cdef int i
    for i in range(FC_COLOUR_STATES):
        _fc_shape_colour[i] = -1
    for i in range(FC_SOLDIER_STATES):
        _fc_shape_soldier[i] = -1
    _fc_shape_colour[0] = 0
    _fc_shape_soldier[0] = 0
    for i in range(FC_COLOUR_STATES):
        _fc_covered(i, False)
    for i in range(FC_SOLDIER_STATES):
        _fc_covered(i, True)
    _fc_shape_ready = True


cdef int _fc_hand_value(const uint8_t* counts, int exposed_points, int threshold) noexcept nogil:
    """The rule-based player's worth of a concealed hand (_reference.hand_value)."""
    cdef int index[5]
    cdef int value[5]
    cdef int code, b, failing = 0, total = 0, sub, points, waits = 0, good = 0, best = 0
    cdef int covered = 0, near = 0, shape
    _fc_indices(counts, index)
    for b in range(5):
        value[b] = _fc_table(b, index[b])
        if value[b] < 0:
            failing += 1
        else:
            total += value[b]
    if failing <= 1:
        for code in range(FC_KINDS):
            if counts[code] >= 4:
                continue
            b = _fc_block_of(code)
            if failing == 1 and value[b] >= 0:
                continue
            sub = _fc_table(b, index[b] + _fc_digit(code))
            if sub < 0:
                continue
            points = total - (value[b] if value[b] >= 0 else 0) + sub + exposed_points
            waits += 1
            good += points >= threshold - 1
            if points > best:
                best = points
    if waits:
        return 1000 + 60 * good + 10 * waits + best
    for b in range(4):
        shape = _fc_shape_colour[index[b]]
        covered += shape >> 6
        near += shape & 63
    shape = _fc_shape_soldier[index[4]]
    covered += shape >> 6
    near += shape & 63
    return 10 * covered + 3 * near


cdef inline int _fc_after_discard(uint8_t* hand, int discard, int exposed_points, int threshold) noexcept nogil:
    cdef int value
    hand[discard] -= 1
    value = _fc_hand_value(hand, exposed_points, threshold)
    hand[discard] += 1
    return value


cdef int _fc_greedy(uint8_t* hand, int exposed_points, int threshold, int offer_card, bint from_discard,
                    const int* legal, int n_legal) noexcept nogil:
    """GreedyBot.choose: ``offer_card`` -1 to discard, else the card on offer."""
    cdef int i, d, value, best_value, best_action, action, g, k, j, points, n_discards
    cdef bint has_pass = False, has_hu = False, removed
    cdef uint8_t after[FC_KINDS]
    if offer_card < 0:
        best_action = legal[0]
        best_value = _fc_after_discard(hand, legal[0], exposed_points, threshold)
        for i in range(1, n_legal):
            value = _fc_after_discard(hand, legal[i], exposed_points, threshold)
            if value > best_value or (value == best_value and legal[i] < best_action):
                best_action, best_value = legal[i], value
        return best_action
    for i in range(n_legal):
        has_pass = has_pass or legal[i] == FC_PASS
        has_hu = has_hu or legal[i] == FC_HU
    if has_hu:
        memcpy(after, hand, FC_KINDS)
        after[offer_card] += 1
        points = _fc_best(after, offer_card if from_discard else -1) + exposed_points
        if points >= threshold or not has_pass:
            return FC_HU
    best_action = -1
    for i in range(n_legal):
        if legal[i] >= FC_CLAIM_BASE:
            best_action = legal[i]
            break
    if best_action < 0:
        return FC_PASS if has_pass else legal[0]
    if has_pass:
        best_action = FC_PASS
        best_value = _fc_hand_value(hand, exposed_points, threshold)
    else:
        best_value = -2147483647
    for i in range(n_legal):
        action = legal[i]
        if action < FC_CLAIM_BASE:
            continue
        g = action - FC_CLAIM_BASE
        memcpy(after, hand, FC_KINDS)
        removed = False
        for j in range(_fc_meld_len[g]):
            k = _fc_meld_codes[g][j]
            if k == offer_card and not removed:
                removed = True
                continue
            after[k] -= 1
        points = exposed_points + _fc_exposed_points[_fc_meld_kind_of[g]]
        value = -2147483647
        n_discards = 0
        for d in range(FC_KINDS):
            if after[d] and d % 7 != 0:
                n_discards += 1
                k = _fc_after_discard(after, d, points, threshold)
                if k > value:
                    value = k
        if n_discards == 0:
            value = 1000
        if value < 1000:
            value += 10 * _fc_meld_len[g]
        if value > best_value:
            best_action, best_value = action, value
    return best_action


cdef bint _fc_can_claim(const uint8_t* hand, int g, int card) noexcept nogil:
    """Whether ``hand`` holds meld ``g`` but for one ``card`` (the card on offer)."""
    cdef int need[FC_KINDS]
    cdef int i, k
    cdef bint has_card = False
    for i in range(_fc_meld_len[g]):
        need[_fc_meld_codes[g][i]] = 0
    for i in range(_fc_meld_len[g]):
        k = _fc_meld_codes[g][i]
        if k == card and not has_card:
            has_card = True
        else:
            need[k] += 1
    if not has_card:
        return False
    for i in range(_fc_meld_len[g]):
        k = _fc_meld_codes[g][i]
        if hand[k] < need[k]:
            return False
    return True


cdef int _fc_read_small(object values, uint8_t* out, int size, int top, str what) except -1:
    cdef int i
    if len(values) != size:
        raise ValueError(f"{what} must hold {size} values, got {len(values)}")
    for i in range(size):
        v = values[i]
        if type(v) is not int or not 0 <= v <= top:
            raise ValueError(f"{what}[{i}] = {v!r} is not an int in 0..{top}")
        out[i] = <uint8_t>v
    return 0


def fc_hand_value(counts, int exposed_points=0, int threshold=10):
    """The rule-based player's worth of a concealed hand (28 counts, 0..4)."""
    cdef uint8_t hand[FC_KINDS]
    if not (_fc_ready and _fc_num_melds):
        raise RuntimeError("the Four Color tables are not loaded")
    _fc_read_small(counts, hand, FC_KINDS, 4, "counts")
    return _fc_hand_value(hand, exposed_points, threshold)


def fc_greedy_choose(hand, int exposed_points, int threshold, int offer_card, bint from_discard, legal):
    """GreedyBot's choice: ``hand`` 28 counts; ``offer_card`` -1 in the discard
    phase, else the card on offer; ``legal`` the legal actions (ascending)."""
    cdef uint8_t counts[FC_KINDS]
    cdef int actions[128]
    cdef int i, n = len(legal)
    if not (_fc_ready and _fc_num_melds):
        raise RuntimeError("the Four Color tables are not loaded")
    _fc_read_small(hand, counts, FC_KINDS, 4, "hand")
    if not -1 <= offer_card < FC_KINDS:
        raise ValueError(f"offer_card {offer_card} is not a card code (0..27, or -1)")
    if not 0 < n <= 119:
        raise ValueError("no legal action to choose from" if n == 0 else "too many legal actions")
    for i in range(n):
        a = legal[i]
        if type(a) is not int or not 0 <= a < FC_CLAIM_BASE + FC_NUM_MELDS:
            raise ValueError(f"legal action {a!r} is not an action (0..118)")
        actions[i] = a
        if offer_card < 0 and (a >= FC_PASS or counts[a] == 0 or a % 7 == 0):
            raise ValueError(f"cannot discard {a}: the hand does not hold it, or it is a General")
        if offer_card >= 0 and a < FC_PASS:
            raise ValueError(f"action {a} is a discard, but a card is on offer")
        if a >= FC_CLAIM_BASE and not _fc_can_claim(counts, a - FC_CLAIM_BASE, offer_card):
            raise ValueError(f"claim {a} needs cards the hand does not hold, or a card on offer it lacks")
    return _fc_greedy(counts, exposed_points, threshold, offer_card, from_discard, actions, n)


# =============================================================================
# Whole games in C: fourcards.fourcolor.game.FourColorState's rules, mirrored
# move for move (the tests play both and compare every action).
# =============================================================================

cdef enum:
    FC_DISCARD = 0
    FC_CLAIM = 1
    FC_OVER = 2
    FC_FROM_DISCARD = 0
    FC_TURNED = 1
    FC_LAID = 2

cdef struct FcGame:
    int n, threshold, rounds, rank_only
    uint64_t rng
    int round, first
    uint8_t hands[4][FC_KINDS]
    uint8_t exposed[4][FC_KINDS]
    int exposed_points[4]
    int8_t stock[112]
    int stock_n
    int phase, current
    int offer_card, offer_source, offer_player
    int order[4]
    int n_order, answered
    int answers[4]
    int64_t totals[4]


cdef int _sim_claim_options(FcGame* s, int player, int* out) noexcept nogil:
    """FourColorState._claim_options, ascending."""
    cdef int card = s.offer_card, n = 0, m, g, kind, i, j, t
    cdef const uint8_t* hand = s.hands[player]
    cdef uint8_t counts[FC_KINDS]
    cdef bint general = card % 7 == 0, revealer_general, chi_allowed, pong_kong
    revealer_general = general and s.offer_source == FC_TURNED and player == s.offer_player
    if not revealer_general:
        out[n] = FC_PASS
        n += 1
    memcpy(counts, hand, FC_KINDS)
    counts[card] += 1
    if _fc_best_plain(counts) >= 0:
        out[n] = FC_HU
        n += 1
    chi_allowed = (s.offer_source == FC_LAID
                   or (s.offer_source == FC_FROM_DISCARD and player == (s.offer_player + 1) % s.n)
                   or (s.offer_source == FC_TURNED and player == s.offer_player))
    for m in range(_fc_meld_count[card]):
        g = _fc_meld_global[card][m]
        if not _fc_can_claim(hand, g, card):
            continue
        kind = _fc_meld_kind_of[g]
        pong_kong = ((kind == FC_TRIPLE or kind == FC_QUAD)
                     and _fc_meld_codes[g][0] == _fc_meld_codes[g][_fc_meld_len[g] - 1])
        if general and s.offer_source == FC_TURNED:
            if player == s.offer_player and (kind == FC_LONE_GENERAL or kind == FC_COMMAND):
                out[n] = FC_CLAIM_BASE + g
                n += 1
            continue
        if pong_kong or chi_allowed:
            out[n] = FC_CLAIM_BASE + g
            n += 1
    for i in range(1, n):  # insertion sort
        t = out[i]
        j = i - 1
        while j >= 0 and out[j] > t:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = t
    return n


cdef void _sim_hu(FcGame* s, int player, int card, bint from_discard) noexcept nogil:
    cdef uint8_t counts[FC_KINDS]
    cdef int points, lucky = 0, lucky_card, k
    memcpy(counts, s.hands[player], FC_KINDS)
    if card >= 0:
        counts[card] += 1
    points = _fc_best(counts, card if from_discard else -1) + s.exposed_points[player]
    if s.stock_n:
        s.stock_n -= 1
        lucky_card = s.stock[s.stock_n]
        if s.rank_only:
            for k in range(FC_KINDS):
                if k % 7 == lucky_card % 7:
                    lucky += counts[k] + s.exposed[player][k]
        else:
            lucky = counts[lucky_card] + s.exposed[player][lucky_card]
    _sim_end_round(s, player, points, lucky)


cdef void _sim_check_only_generals(FcGame* s) noexcept nogil:
    cdef int k
    if s.phase != FC_DISCARD:
        return
    for k in range(FC_KINDS):
        if k % 7 != 0 and s.hands[s.current][k]:
            return
    _sim_hu(s, s.current, -1, False)


cdef void _sim_end_round(FcGame* s, int winner, int points, int lucky) noexcept nogil:
    cdef int p
    cdef int64_t total, amount
    if winner >= 0:
        total = points + lucky
        amount = total - s.threshold + 1 if total >= s.threshold else -(<int64_t>s.threshold + 1)
        for p in range(s.n):
            if p != winner:
                s.totals[p] -= amount
                s.totals[winner] += amount
    if s.round >= s.rounds:
        s.phase = FC_OVER
        s.current = -1
        s.offer_card = -1
        return
    _sim_start_round(s)


cdef void _sim_start_round(FcGame* s) noexcept nogil:
    cdef int8_t deck[112]
    cdef int i, j, n = s.n
    cdef int8_t t
    s.round += 1
    s.first = (s.round - 1) % n
    for i in range(112):
        deck[i] = <int8_t>(i // 4)
    for i in range(111, 0, -1):
        j = <int>_below(&s.rng, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    memset(s.hands, 0, sizeof(s.hands))
    memset(s.exposed, 0, sizeof(s.exposed))
    for i in range(4):
        s.exposed_points[i] = 0
    for i in range(20 * n + 1):
        s.hands[(s.first + i) % n][deck[i]] += 1
    s.stock_n = 112 - (20 * n + 1)
    for i in range(s.stock_n):
        s.stock[i] = deck[20 * n + 1 + i]
    s.offer_card = -1
    s.phase = FC_DISCARD
    s.current = s.first
    _sim_check_only_generals(s)


cdef void _sim_offer(FcGame* s, int card, int source, int player) noexcept nogil:
    cdef int order[4]
    cdef int options[128]
    cdef int k, count, n = s.n
    s.offer_card, s.offer_source, s.offer_player = card, source, player
    if source == FC_LAID:
        order[0] = (player + 1) % n
        count = 1
    elif source == FC_FROM_DISCARD:
        for k in range(1, n):
            order[k - 1] = (player + k) % n
        count = n - 1
    else:
        for k in range(n):
            order[k] = (player + k) % n
        count = n
    s.n_order = 0
    for k in range(count):
        if _sim_claim_options(s, order[k], options):
            s.order[s.n_order] = order[k]
            s.n_order += 1
    if s.n_order == 0:
        _sim_no_claim(s)
        return
    s.answered = 0
    s.phase = FC_CLAIM
    s.current = s.order[0]


cdef void _sim_turn_up(FcGame* s, int player) noexcept nogil:
    if s.stock_n == 0:
        s.offer_card = -1
        _sim_end_round(s, -1, 0, 0)
        return
    s.stock_n -= 1
    _sim_offer(s, s.stock[s.stock_n], FC_TURNED, player)


cdef void _sim_no_claim(FcGame* s) noexcept nogil:
    cdef int card = s.offer_card, source = s.offer_source, player = s.offer_player
    s.offer_card = -1
    if source == FC_TURNED:
        _sim_offer(s, card, FC_LAID, player)
    else:
        _sim_turn_up(s, (player + 1) % s.n)


cdef void _sim_resolve(FcGame* s) noexcept nogil:
    cdef int i, player = -1, action = -1, g, k, card = s.offer_card
    cdef bint removed = False
    for i in range(s.n_order):
        if s.answers[i] == FC_HU:
            player = s.order[i]
            s.offer_card = -1
            _sim_hu(s, player, card, s.offer_source != FC_TURNED or player != s.offer_player)
            return
    for i in range(s.n_order):  # a pong or kong first, then the first claim in priority order
        if s.answers[i] >= FC_CLAIM_BASE:
            g = s.answers[i] - FC_CLAIM_BASE
            if (_fc_meld_len[g] >= 3 and _fc_meld_codes[g][0] == _fc_meld_codes[g][_fc_meld_len[g] - 1]
                    and _fc_meld_codes[g][0] % 7 != 0):
                player, action = s.order[i], s.answers[i]
                break
    if player < 0:
        for i in range(s.n_order):
            if s.answers[i] >= FC_CLAIM_BASE:
                player, action = s.order[i], s.answers[i]
                break
    if player < 0:
        _sim_no_claim(s)
        return
    g = action - FC_CLAIM_BASE
    for i in range(_fc_meld_len[g]):
        k = _fc_meld_codes[g][i]
        s.exposed[player][k] += 1
        if k == card and not removed:
            removed = True
        else:
            s.hands[player][k] -= 1
    s.exposed_points[player] += _fc_exposed_points[_fc_meld_kind_of[g]]
    s.offer_card = -1
    s.phase = FC_DISCARD
    s.current = player
    _sim_check_only_generals(s)


cdef int _sim_legal(FcGame* s, int* out) noexcept nogil:
    cdef int k, n = 0
    if s.phase == FC_OVER:
        return 0
    if s.phase == FC_DISCARD:
        for k in range(FC_KINDS):
            if s.hands[s.current][k] and k % 7 != 0:
                out[n] = k
                n += 1
        return n
    return _sim_claim_options(s, s.current, out)


cdef void _sim_apply(FcGame* s, int action) noexcept nogil:
    cdef int player = s.current
    if s.phase == FC_DISCARD:
        s.hands[player][action] -= 1
        _sim_offer(s, action, FC_FROM_DISCARD, player)
        return
    s.answers[s.answered] = action
    s.answered += 1
    if s.answered == s.n_order:
        _sim_resolve(s)
    else:
        s.current = s.order[s.answered]


cdef int64_t _sim_play(FcGame* s, uint64_t seed, const int* policies, const uint64_t* bot_seeds,
                       int32_t* log, int64_t log_size) noexcept nogil:
    """Play one game from ``seed``; the number of actions (-1: the log overflowed)."""
    cdef uint64_t bot_rng[4]
    cdef int legal[128]
    cdef int n_legal, p, action, offer
    cdef int64_t steps = 0
    for p in range(s.n):
        bot_rng[p] = bot_seeds[p] if bot_seeds != NULL else _seed_stream(seed, p + 1)
        s.totals[p] = 0
    s.rng = seed
    s.round = 0
    _sim_start_round(s)
    while s.phase != FC_OVER:
        p = s.current
        n_legal = _sim_legal(s, legal)
        if n_legal == 0:  # cannot happen: every player asked has an answer
            return -2
        if policies[p] == 0:
            action = legal[_below(&bot_rng[p], n_legal)]
        else:
            offer = s.offer_card if s.phase == FC_CLAIM else -1
            action = _fc_greedy(s.hands[p], s.exposed_points[p], s.threshold, offer,
                                s.offer_source != FC_TURNED or s.offer_player != p, legal, n_legal)
        if log != NULL:
            if steps >= log_size:
                return -1
            log[steps] = action
        steps += 1
        _sim_apply(s, action)
    return steps


def fc_simulate(seeds, policies, int players, int threshold, int rounds, bint lucky_rank_only,
                bint record=False, bot_seeds=None):
    """Whole games in C, without the GIL: per seed ``(totals int64 (games, players),
    winners bool, steps int64, actions or None)``; policies 0 random, 1 greedy;
    ``bot_seeds`` (games x players, uint64): the random players' seeds, else
    ``derive_seed(game seed, seat + 1)``."""
    cdef const uint64_t[::1] seed_view = np.ascontiguousarray(seeds, dtype=np.uint64)
    cdef const uint64_t[:, ::1] bot_view
    cdef const uint64_t* bot_row = NULL
    cdef Py_ssize_t i, games = seed_view.shape[0]
    cdef int pol[4]
    cdef int p
    cdef int64_t steps, best, log_size
    cdef FcGame* state
    cdef int32_t* log = NULL
    if not (_fc_ready and _fc_num_melds):
        raise RuntimeError("the Four Color tables are not loaded")
    if not 2 <= players <= 4 or len(policies) != players:
        raise ValueError(f"players={players} needs 2..4 players and one policy each")
    if not 0 <= threshold <= 1_000_000 or not 1 <= rounds <= 1_000_000:
        raise ValueError("threshold must be in 0..1,000,000 and rounds in 1..1,000,000")
    for p in range(players):
        if policies[p] not in (0, 1):
            raise ValueError(f"policy {policies[p]!r} is not 0 (random) or 1 (greedy)")
        pol[p] = policies[p]
    if bot_seeds is not None:
        bot_view = np.ascontiguousarray(bot_seeds, dtype=np.uint64)
        if bot_view.shape[0] != games or bot_view.shape[1] != players:
            raise ValueError("bot_seeds must hold one seed a seat for every game")
    totals = np.zeros((games, players), dtype=np.int64)
    winners = np.zeros((games, players), dtype=np.bool_)
    step_counts = np.zeros(games, dtype=np.int64)
    cdef int64_t[:, ::1] totals_view = totals
    cdef uint8_t[:, ::1] winners_view = winners.view(np.uint8)
    cdef int64_t[::1] steps_view = step_counts
    cdef int32_t[::1] log_view
    logs = [] if record else None
    log_size = <int64_t>rounds * 112 * (2 + 2 * players)
    state = <FcGame*>malloc(sizeof(FcGame))
    if state == NULL:
        raise MemoryError()
    try:
        memset(state, 0, sizeof(FcGame))
        state.n, state.threshold, state.rounds, state.rank_only = players, threshold, rounds, lucky_rank_only
        for i in range(games):
            if record:
                buffer = np.empty(log_size, dtype=np.int32)
                log_view = buffer
                log = &log_view[0]
            if bot_seeds is not None:
                bot_row = &bot_view[i, 0]
            with nogil:
                steps = _sim_play(state, seed_view[i], pol, bot_row, log, log_size)
            if steps < 0:
                raise RuntimeError(f"game {i} (seed {seed_view[i]}) ran past its length bound")
            steps_view[i] = steps
            best = state.totals[0]
            for p in range(players):
                totals_view[i, p] = state.totals[p]
                if state.totals[p] > best:
                    best = state.totals[p]
            for p in range(players):
                winners_view[i, p] = state.totals[p] == best
            if record:
                logs.append(buffer[:steps].copy())
    finally:
        free(state)
    return totals, winners, step_counts, logs
