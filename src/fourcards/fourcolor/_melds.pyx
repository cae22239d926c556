# cython: language_level=3
"""The compiled Four Color Cards kernels: the best split of a hand into melds,
by block tables, and the tables every compiled Four Color module reads.

Each kernel has a pure-Python twin (``fourcards.fourcolor._reference``); the
tests check that they agree.  This module owns the one ``FcTables``
(``_fc.pxd``), filled by ``fc_init`` (the rule-based player's shape tables
too); the fast path of the public functions (``_parse``), the rule-based player
(``_bots``) and the simulator (``_sim``) read it through ``fc_tables()``.
"""

from libc.stdint cimport uint64_t, int16_t, uint8_t, int8_t
from libc.string cimport memcpy, memset

import numpy as np

from fourcards.errors import ImpossibleCardsError, InvalidCardError, InvalidTypeError

from fourcards.fourcolor._fc cimport (
    FcTables, FC_KINDS, FC_COLOUR_STATES, FC_SOLDIER_STATES, FC_NUM_MELDS, FC_MAX_SPLIT,
    _fc_indices, _fc_block_of, _fc_digit, _fc_table,
)

# =============================================================================
# Four Color Cards: the best split of a hand into melds, by block tables.
# A colour block (ranks General..Cannon of one colour, counts 0..4) has 5**6
# states; the soldier block (soldiers by colour) 5**4.  Each table holds the
# best concealed points of a complete split of that block (-1: none).
# =============================================================================

cdef FcTables _tables


cdef const FcTables* fc_tables() noexcept nogil:
    """The tables (filled once ``fc_init`` has run: see ``ready``)."""
    return &_tables


cdef int _fc_colour(FcTables* t, int index) noexcept nogil:
    """Best concealed points of a colour block state (memoised in the table)."""
    cdef int counts[6]
    cdef int r, best = -1, sub, first = -1, rest
    if index == 0:
        return 0
    if t.colour_best[index] != -2:
        return t.colour_best[index]
    for r in range(6):
        counts[r] = index // t.pow5[r] % 5
        if first < 0 and counts[r]:
            first = r
    # every meld holding one card of the lowest rank present
    if first == 0:  # General: alone, four of them, or with Advisor and Elephant
        sub = _fc_colour(t, index - 1)
        if sub >= 0 and 1 + sub > best:
            best = 1 + sub
        if counts[0] == 4:
            sub = _fc_colour(t, index - 4)
            if sub >= 0 and 6 + sub > best:
                best = 6 + sub
        if counts[1] and counts[2]:
            sub = _fc_colour(t, index - 1 - t.pow5[1] - t.pow5[2])
            if sub >= 0 and 2 + sub > best:
                best = 2 + sub
    else:
        if counts[first] >= 2:
            sub = _fc_colour(t, index - 2 * t.pow5[first])
            if sub >= 0 and sub > best:
                best = sub
        if counts[first] >= 3:
            sub = _fc_colour(t, index - 3 * t.pow5[first])
            if sub >= 0 and 3 + sub > best:
                best = 3 + sub
        if counts[first] == 4:
            sub = _fc_colour(t, index - 4 * t.pow5[first])
            if sub >= 0 and 8 + sub > best:
                best = 8 + sub
        if first == 3 and counts[4] and counts[5]:
            sub = _fc_colour(t, index - t.pow5[3] - t.pow5[4] - t.pow5[5])
            if sub >= 0 and 1 + sub > best:
                best = 1 + sub
    t.colour_best[index] = best
    return best


cdef int _fc_soldiers(FcTables* t, int index) noexcept nogil:
    cdef int counts[4]
    cdef int c, a, b, best = -1, sub, first = -1
    if index == 0:
        return 0
    if t.soldier_best[index] != -2:
        return t.soldier_best[index]
    for c in range(4):
        counts[c] = index // t.pow5[c] % 5
        if first < 0 and counts[c]:
            first = c
    if counts[first] >= 3:
        sub = _fc_soldiers(t, index - 3 * t.pow5[first])
        if sub >= 0 and 3 + sub > best:
            best = 3 + sub
    if counts[first] == 4:
        sub = _fc_soldiers(t, index - 4 * t.pow5[first])
        if sub >= 0 and 8 + sub > best:
            best = 8 + sub
    for a in range(first + 1, 4):  # three soldiers: the first colour and two higher ones
        for b in range(a + 1, 4):
            if counts[a] and counts[b]:
                sub = _fc_soldiers(t, index - t.pow5[first] - t.pow5[a] - t.pow5[b])
                if sub >= 0 and 3 + sub > best:
                    best = 3 + sub
    if first == 0 and counts[1] and counts[2] and counts[3]:
        sub = _fc_soldiers(t, index - 1 - t.pow5[1] - t.pow5[2] - t.pow5[3])
        if sub >= 0 and 5 + sub > best:
            best = 5 + sub
    t.soldier_best[index] = best
    return best


def fc_init(melds_by_kind, points, all_melds=None):
    """Build the block tables; ``melds_by_kind[k]`` lists ``(meld kind, codes)``
    of every meld holding kind ``k`` (from fourcards.fourcolor._reference);
    ``all_melds`` lists every meld's codes in action order (``_reference.MELDS``)."""
    cdef FcTables* t = &_tables
    cdef int i, k, m, c
    t.pow5[0] = 1
    for i in range(1, 8):
        t.pow5[i] = 5 * t.pow5[i - 1]
    for i in range(9):
        t.exposed_points[i] = points[i][0]
        t.concealed_points[i] = points[i][1]
    for i in range(FC_COLOUR_STATES):
        t.colour_best[i] = -2
    for i in range(FC_SOLDIER_STATES):
        t.soldier_best[i] = -2
    t.colour_best[0] = 0
    t.soldier_best[0] = 0
    for i in range(FC_COLOUR_STATES):
        _fc_colour(t, i)
    for i in range(FC_SOLDIER_STATES):
        _fc_soldiers(t, i)
    for k in range(FC_KINDS):
        melds = melds_by_kind[k]
        if len(melds) > 8:
            raise ValueError("too many melds for one kind")
        t.meld_count[k] = len(melds)
        for m, (kind, codes) in enumerate(melds):
            t.meld_kind[k][m] = kind
            for i in range(6):
                t.meld_take[k][m][i] = 0
            for c in codes:
                if k % 7 == 6:
                    t.meld_take[k][m][c // 7] += 1
                else:
                    t.meld_take[k][m][c % 7] += 1
    if all_melds is not None:
        _fc_init_melds(t, all_melds, melds_by_kind)
    _fc_init_shape(t)
    t.ready = True


cdef int _fc_best(const FcTables* t, const uint8_t* counts, int exposed_code) noexcept nogil:
    """Best points of a complete split (-1: none, -2: a count above 4)."""
    cdef int index[5]
    cdef int block, r, c, total = 0, best_block, m, sub, n, shifted, take
    cdef bint fits
    if exposed_code < 0:
        return _fc_best_plain(t, counts)
    if _fc_indices(counts, index):
        return -2
    block = -1
    if exposed_code >= 0:
        block = 4 if exposed_code % 7 == 6 else exposed_code // 7
    for c in range(5):
        if c == block:
            continue
        sub = t.colour_best[index[c]] if c < 4 else t.soldier_best[index[c]]
        if sub < 0:
            return -1
        total += sub
    if block < 0:
        return total
    # The meld holding the card from a discard is scored exposed: try each.
    best_block = -1
    for m in range(t.meld_count[exposed_code]):
        shifted = index[block]
        fits = True
        for r in range(6 if block < 4 else 4):
            take = t.meld_take[exposed_code][m][r]
            if take:
                n = index[block] // t.pow5[r] % 5
                if n < take:
                    fits = False
                    break
                shifted -= take * t.pow5[r]
        if not fits:
            continue
        sub = t.colour_best[shifted] if block < 4 else t.soldier_best[shifted]
        if sub >= 0 and sub + t.exposed_points[t.meld_kind[exposed_code][m]] > best_block:
            best_block = sub + t.exposed_points[t.meld_kind[exposed_code][m]]
    if best_block < 0:
        return -1
    return total + best_block


cdef inline void _fc_check(int exposed_code) except *:
    if not _tables.ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if not -1 <= exposed_code < FC_KINDS:
        raise InvalidCardError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")


cdef int _fc_exposed_code(object exposed_code) except -2:
    """A card code 0..27 or -1 (no meld exposed) as a C int: TypeError for a bool, a float or
    another type (Cython would truncate a float), before any C conversion."""
    if type(exposed_code) is not int:
        if isinstance(exposed_code, (bool, np.bool_)) or not isinstance(exposed_code, (int, np.integer)):
            raise InvalidTypeError(f"exposed_code must be an int card code, not {type(exposed_code).__name__}")
        exposed_code = int(exposed_code)
    if not -1 <= exposed_code < FC_KINDS:
        raise InvalidCardError(f"exposed_code {exposed_code} is not a card code (0..27, or -1)")
    return exposed_code


def fc_best_points_packed(object packed, object exposed_code=-1):
    """Best points of a complete split of a packed hand (3 bits a kind, kind
    ``k`` at bit ``3k``); -1: none; -2: a count above 4."""
    cdef uint8_t counts[FC_KINDS]
    cdef uint64_t low, high
    cdef int k
    cdef int code = _fc_exposed_code(exposed_code)
    _fc_check(code)
    if type(packed) is not int:
        if isinstance(packed, (bool, np.bool_)) or not isinstance(packed, (int, np.integer)):
            raise InvalidTypeError(f"a packed hand must be an int, not {type(packed).__name__}")
        packed = int(packed)
    if packed < 0 or packed >> 84:
        raise ImpossibleCardsError(f"packed hand {packed:#x} does not fit in 84 bits (3 a kind)")
    low = <uint64_t>(packed & 0xFFFFFFFFFFFFFFFF)
    high = <uint64_t>(packed >> 64)
    for k in range(21):
        counts[k] = (low >> (3 * k)) & 7
    counts[21] = ((low >> 63) | (high << 1)) & 7
    for k in range(22, FC_KINDS):
        counts[k] = (high >> (3 * k - 64)) & 7
    return _fc_best(&_tables, counts, code)


def fc_best_points(counts, int exposed_code=-1):
    """Best points of a complete split of 28 counts; -1: none; -2: a count above 4."""
    cdef const uint8_t[::1] view = np.ascontiguousarray(counts, dtype=np.uint8)
    _fc_check(exposed_code)
    if view.shape[0] != FC_KINDS:
        raise ValueError(f"a hand is 28 counts, got {view.shape[0]}")
    return _fc_best(&_tables, &view[0], exposed_code)


def fc_block_best(int block, int index):
    """Best concealed points of a block state (0..3 colour blocks, 4 soldiers); -1: none."""
    if not _tables.ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if block < 4:
        if not 0 <= index < FC_COLOUR_STATES:
            raise ValueError(f"colour block index {index} out of range")
        return _tables.colour_best[index]
    if block != 4 or not 0 <= index < FC_SOLDIER_STATES:
        raise ValueError(f"block {block} / index {index} out of range")
    return _tables.soldier_best[index]


def fc_best_points_batch(counts, exposed=None):
    """Best points (int16; -1 none, -2 a count above 4) of rows of 28 counts, without the GIL."""
    cdef const uint8_t[:, ::1] rows = np.ascontiguousarray(counts, dtype=np.uint8)
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef const int8_t[::1] exposed_view
    if rows.shape[1] != FC_KINDS:
        raise ValueError(f"rows must hold 28 counts, got {rows.shape[1]}")
    if not _tables.ready:
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
                out_view[i] = <int16_t>_fc_best_plain(&_tables, base + FC_KINDS * i)
        else:
            for i in range(n):
                out_view[i] = <int16_t>_fc_best(&_tables, base + FC_KINDS * i, exposed_view[i])
    return out


# =============================================================================
# Every meld by its action index (game.MELDS order), and the melds holding each
# kind by index: what the split reconstruction, the claims and the simulator use.
# =============================================================================

cdef int _fc_init_melds(FcTables* t, object melds, object melds_by_kind) except -1:
    cdef int g, i, k, m
    if len(melds) != FC_NUM_MELDS:
        raise ValueError(f"expected {FC_NUM_MELDS} melds, got {len(melds)}")
    index = {tuple(codes): g for g, codes in enumerate(melds)}
    for k in range(FC_KINDS):
        for m, (kind, codes) in enumerate(melds_by_kind[k]):
            g = index[tuple(codes)]
            t.meld_global[k][m] = g
            t.meld_kind_of[g] = kind
            t.meld_len[g] = len(codes)
            for i in range(len(codes)):
                t.meld_codes[g][i] = codes[i]
    t.num_melds = FC_NUM_MELDS
    _fc_init_choices(t)
    return 0


cdef int _fc_choose(const FcTables* t, int block, int index, int kind) noexcept nogil:
    """The first meld of MELDS_WITH[kind] that keeps the block's best split, or -1."""
    cdef int m, g, i, shifted, sub, k, r, take, cur = _fc_table(t, block, index)
    cdef int counts[6]
    for r in range(6):
        counts[r] = index // t.pow5[r] % 5 if (block < 4 or r < 4) else 0
    for m in range(t.meld_count[kind]):
        g = t.meld_global[kind][m]
        shifted = index
        for r in range(6):
            take = t.meld_take[kind][m][r]
            if take > counts[r]:
                shifted = -1
                break
            shifted -= take * t.pow5[r]
        if shifted < 0:
            continue
        sub = _fc_table(t, block, shifted)
        if sub >= 0 and sub + t.concealed_points[t.meld_kind_of[g]] == cur:
            return m
    return -1


cdef void _fc_init_choices(FcTables* t) noexcept nogil:
    cdef int s, r, first
    t.choice_colour[0] = -1
    t.choice_soldier[0] = -1
    for s in range(1, FC_COLOUR_STATES):
        t.choice_colour[s] = -1
        if t.colour_best[s] < 0:
            continue
        first = 0
        while s // t.pow5[first] % 5 == 0:
            first += 1
        t.choice_colour[s] = <int8_t>_fc_choose(t, 0, s, first)
    for s in range(1, FC_SOLDIER_STATES):
        t.choice_soldier[s] = -1
        if t.soldier_best[s] < 0:
            continue
        first = 0
        while s // t.pow5[first] % 5 == 0:
            first += 1
        t.choice_soldier[s] = <int8_t>_fc_choose(t, 4, s, 7 * first + 6)


cdef int _fc_split(const FcTables* t, const uint8_t* counts, int exposed_code, int* out,
                   int* n_out) noexcept nogil:
    """The best split: its points (-1 none, -2 a count above 4), and the action
    indices of its melds in ``out`` (the exposed one first, then by lowest card)."""
    cdef int index[5]
    cdef int rest[FC_KINDS]
    cdef int total, block, target, m, g, i, shifted, sub, first, cur, k, c, count
    cdef bint fits
    n_out[0] = 0
    total = _fc_best(t, counts, exposed_code)
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
                target -= _fc_table(t, c, index[c])
        for m in range(t.meld_count[exposed_code]):
            g = t.meld_global[exposed_code][m]
            shifted = index[block]
            fits = True
            for i in range(t.meld_len[g]):
                k = t.meld_codes[g][i]
                rest[k] -= 1
                fits = fits and rest[k] >= 0
                shifted -= _fc_digit(t, k)
            if fits:
                sub = _fc_table(t, block, shifted)
                if sub >= 0 and sub + t.exposed_points[t.meld_kind_of[g]] == target:
                    index[block] = shifted
                    out[count] = g
                    count += 1
                    break
            for i in range(t.meld_len[g]):
                rest[t.meld_codes[g][i]] += 1
    first = 0
    while True:
        while first < FC_KINDS and rest[first] == 0:
            first += 1
        if first == FC_KINDS or count >= FC_MAX_SPLIT:
            break
        block = _fc_block_of(first)
        m = t.choice_colour[index[block]] if block < 4 else t.choice_soldier[index[block]]
        if m < 0:  # cannot happen: the tables guarantee a way
            return -3
        g = t.meld_global[first][m]
        for i in range(t.meld_len[g]):
            k = t.meld_codes[g][i]
            rest[k] -= 1
            index[block] -= _fc_digit(t, k)
        out[count] = g
        count += 1
    n_out[0] = count
    return total


cdef void _fc_wait_points(const FcTables* t, const uint8_t* counts, const uint8_t* on_table, bint from_discard,
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
            p = _fc_best(t, trial, code)
            trial[code] -= 1
            if p >= 0:
                out[code] = <int16_t>p
        return
    for b in range(5):
        value[b] = _fc_table(t, b, index[b])
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
        sub = _fc_table(t, b, index[b] + _fc_digit(t, code))
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
    total = _fc_split(&_tables, &view[0], exposed_code, melds, &n)
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
    if not _tables.ready:
        raise RuntimeError("the Four Color tables are not loaded")
    if view.shape[0] != FC_KINDS:
        raise ValueError(f"a hand is 28 counts, got {view.shape[0]}")
    for k in range(FC_KINDS):
        table[k] = 0
    if on_table is not None:
        for k in range(FC_KINDS):
            table[k] = <uint8_t>min(max(int(on_table[k]), 0), 4)
    _fc_wait_points(&_tables, &view[0], table, from_discard, out)
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
    if not _tables.ready:
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
            points_view[i] = <int16_t>_fc_split(&_tables, &rows[i, 0], exposed_view[i], buf, &m)
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
    if not _tables.ready:
        raise RuntimeError("the Four Color tables are not loaded")
    out = np.empty((n, FC_KINDS), dtype=np.int16)
    cdef int16_t[:, ::1] out_view = out
    memset(none, 0, FC_KINDS)
    if n == 0:
        return out
    with nogil:
        for i in range(n):
            _fc_wait_points(&_tables, &rows[i, 0], none, from_discard, &out_view[i, 0])
    return out


# =============================================================================
# The rule-based player's shape tables (see _bots): per block state, the most
# cards covered by complete melds and then the most near-melds (two cards of a
# command or field set, two soldiers of two colours), as _reference.covered.
# =============================================================================

cdef int _fc_covered(FcTables* t, int index, bint soldiers) noexcept nogil:
    cdef int counts[6]
    cdef int width = 4 if soldiers else 6
    cdef int r, first = -1, best, sub, value, a, b, present, near
    cdef int16_t* table = &t.shape_colour[0]
    if soldiers:
        table = &t.shape_soldier[0]
    if index == 0:
        return 0
    if table[index] >= 0:
        return table[index]
    for r in range(width):
        counts[r] = index // t.pow5[r] % 5
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
    sub = _fc_covered(t, index - t.pow5[first], soldiers)
    best = sub + near
    if soldiers:
        if counts[first] >= 3:
            sub = _fc_covered(t, index - 3 * t.pow5[first], soldiers) + 3 * 64
            if sub > best:
                best = sub
        if counts[first] == 4:
            sub = _fc_covered(t, index - 4 * t.pow5[first], soldiers) + 4 * 64
            if sub > best:
                best = sub
        for a in range(first + 1, 4):
            for b in range(a + 1, 4):
                if counts[a] and counts[b]:
                    sub = _fc_covered(t, index - t.pow5[first] - t.pow5[a] - t.pow5[b], soldiers) + 3 * 64
                    if sub > best:
                        best = sub
        if first == 0 and counts[1] and counts[2] and counts[3]:
            sub = _fc_covered(t, index - 1 - t.pow5[1] - t.pow5[2] - t.pow5[3], soldiers) + 4 * 64
            if sub > best:
                best = sub
    elif first == 0:
        sub = _fc_covered(t, index - 1, soldiers) + 64
        if sub > best:
            best = sub
        if counts[0] == 4:
            sub = _fc_covered(t, index - 4, soldiers) + 4 * 64
            if sub > best:
                best = sub
        if counts[1] and counts[2]:
            sub = _fc_covered(t, index - 1 - t.pow5[1] - t.pow5[2], soldiers) + 3 * 64
            if sub > best:
                best = sub
    else:
        for value in range(2, 5):
            if counts[first] >= value:
                sub = _fc_covered(t, index - value * t.pow5[first], soldiers) + value * 64
                if sub > best:
                    best = sub
        if first == 3 and counts[4] and counts[5]:
            sub = _fc_covered(t, index - t.pow5[3] - t.pow5[4] - t.pow5[5], soldiers) + 3 * 64
            if sub > best:
                best = sub
    table[index] = <int16_t>best
    return best


cdef void _fc_init_shape(FcTables* t) noexcept nogil:
    cdef int i
    for i in range(FC_COLOUR_STATES):
        t.shape_colour[i] = -1
    for i in range(FC_SOLDIER_STATES):
        t.shape_soldier[i] = -1
    t.shape_colour[0] = 0
    t.shape_soldier[0] = 0
    for i in range(FC_COLOUR_STATES):
        _fc_covered(t, i, False)
    for i in range(FC_SOLDIER_STATES):
        _fc_covered(t, i, True)
    t.shape_ready = True
