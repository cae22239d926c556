# What every compiled Four Color module shares (cimported, never built on its
# own): the sizes and action constants, the tables' struct and the small block
# helpers the hot loops inline.
#
# The tables are filled once by ``fourcards.fourcolor._melds.fc_init`` into the
# one ``FcTables`` that module owns; every other module takes a pointer to it
# at import (``_melds.fc_tables()``) and passes it to the helpers, which Cython
# compiles into each module that cimports them.
from libc.stdint cimport uint64_t, uint32_t, int16_t, uint8_t, int8_t
from libc.string cimport memcpy

# A colour block (ranks General..Cannon of one colour, counts 0..4) has 5**6
# states; the soldier block (soldiers by colour) 5**4.
cdef enum:
    FC_KINDS = 28
    FC_COLOUR_STATES = 15625
    FC_SOLDIER_STATES = 625

# Every meld by its action index (game.MELDS order), and the actions.
cdef enum:
    FC_NUM_MELDS = 89
    FC_MAX_SPLIT = 64
    FC_PASS = 28
    FC_HU = 29
    FC_CLAIM_BASE = 30
    FC_LONE_GENERAL = 0
    FC_TRIPLE = 2
    FC_QUAD = 3
    FC_GENERAL_QUAD = 4
    FC_COMMAND = 5


ctypedef struct FcTables:
    bint ready
    # Each block table holds the best concealed points of a complete split of
    # that block (-1: none).
    int8_t colour_best[FC_COLOUR_STATES]
    int8_t soldier_best[FC_SOLDIER_STATES]
    int pow5[8]
    # (exposed, concealed) points by meld kind, as fourcolor._deck.POINTS
    int exposed_points[9]
    int concealed_points[9]
    # The melds holding each kind, within its block: kind, and the count taken of
    # each rank (colour blocks: ranks 0..5; soldier block: colours 0..3).
    int meld_count[FC_KINDS]
    int meld_kind[FC_KINDS][8]
    int meld_take[FC_KINDS][8][6]
    # Every meld by its action index, and the melds holding each kind by index:
    # what the split reconstruction, the claims and the simulator use.
    int meld_len[FC_NUM_MELDS]
    int meld_codes[FC_NUM_MELDS][4]
    int meld_kind_of[FC_NUM_MELDS]
    int meld_global[FC_KINDS][8]
    int num_melds
    # Per block state, which meld (position in the lowest kind's MELDS_WITH list)
    # the reconstruction takes first: colour blocks as colour 0 (the lists follow
    # the same pattern in every colour), the soldier block as is.
    int8_t choice_colour[FC_COLOUR_STATES]
    int8_t choice_soldier[FC_SOLDIER_STATES]
    # The rule-based player's shape tables: per block state, the most cards
    # covered by complete melds and then the most near-melds (covered * 64 + near).
    int16_t shape_colour[FC_COLOUR_STATES]
    int16_t shape_soldier[FC_SOLDIER_STATES]
    bint shape_ready


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



cdef inline int _fc_block_of(int code) noexcept nogil:
    return 4 if code % 7 == 6 else code // 7


cdef inline int _fc_digit(const FcTables* t, int code) noexcept nogil:
    """The power of five of a kind within its block."""
    return t.pow5[code // 7] if code % 7 == 6 else t.pow5[code % 7]


cdef inline int _fc_table(const FcTables* t, int block, int index) noexcept nogil:
    return t.colour_best[index] if block < 4 else t.soldier_best[index]
