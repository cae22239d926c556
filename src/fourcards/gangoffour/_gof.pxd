# What every compiled Gang of Four module shares (cimported, never built on
# its own): the sizes and action constants, the combination tables' struct, the
# match structs and the small card-mask helpers the hot loops inline.
#
# The tables are filled once by ``fourcards.gangoffour._combos.gof_init`` into
# the one ``GofTables`` that module owns; every other module takes a pointer to
# it at import (``_combos.gof_tables()``) and passes it to the helpers, which
# Cython compiles into each module that cimports them (so no hot loop calls
# across modules).  The portable bit helpers and the generator are in
# ``fourcards._common``.
from libc.stdint cimport uint64_t, int32_t, int16_t, uint16_t, uint8_t, int8_t

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
    MATCH_WORDS = 33      # a GofMatch as integers (_sim._match_to_words)

# -- the combination tables, filled once by gof_init() ----------------------------

ctypedef struct GofTables:
    bint ready
    uint64_t pair_lo
    uint64_t masks[N_ACTIONS]
    int8_t kind_of[N_ACTIONS]
    int32_t kind_start[9]
    int32_t group_end[8]
    # A perfect hash from combination mask to action index ("hash and displace"):
    # the mask's bucket picks a displacement, the displaced slot holds the only
    # action that can match, and one comparison with its mask confirms it.  The
    # tables are small (8 KiB + 32 KiB) and a lookup has no branch to mispredict.
    uint16_t displacement[N_BUCKETS]
    int16_t slot_action[N_SLOTS]
    uint64_t mul1
    uint64_t mul2
    # Runs: maximal spans of actions whose first card (in text order) is the same
    # kind; a run is skipped when the hand lacks that card.
    int32_t run_of[N_ACTIONS]
    int32_t run_end[N_ACTIONS]
    uint64_t run_lead[N_ACTIONS]
    int32_t n_runs
    # Blocks: the actions 8k..8k+7 (a block may cross runs and kinds); a block's
    # ``need`` holds the cards all its combinations contain, so a hand missing one
    # of them skips the block (a third of a run's blocks survive, for a dealt hand).
    uint64_t block_need[N_BLOCKS]
    # Per card code (256 entries, so any uint8 indexes safely).
    uint64_t add_bit[256]
    # Weight of each code in a row's card count: 1 for a card, 0 for padding, and
    # 256 for an invalid code, which no popcount of a 64-bit mask can equal.
    int16_t weight[256]
    uint8_t value_of_bit[64]
    uint8_t base_of_bit[64]
    # The simulator's: card code per bit, value per code, the sorted deck, penalties.
    uint8_t code_of_bit[64]
    uint8_t value_of_code[34]
    uint8_t deck_codes[64]
    uint8_t penalty_per_card[17]


# -- Gang of Four matches in C (the same rules as fourcards.gangoffour.match) --

cdef enum:
    PASS_ACTION = 12352
    GIVE_BACK_BASE = 12353
    ANNOUNCE_BASE = 12387
    PHASE_PLAY = 0
    PHASE_GIVE_BACK = 1
    PHASE_OVER = 2
    MAX_LEGAL = 24739
    POLICY_RANDOM = 0
    POLICY_GREEDY = 1
    M1_CODE = 3
    GP_CODE = 31
    RD_CODE = 33

ctypedef struct GofRules:
    int players
    int target
    int dealer
    bint pass_is_final
    bint manual
    bint may_pass
    bint chinese


ctypedef struct GofMatch:
    GofRules rules
    uint64_t rng
    uint64_t hands[4]        # canonical masks
    int totals[4]
    int round
    int dealer
    int direction
    int phase
    int current
    int table                # action index of the table's combination, -1: leading
    int table_player
    unsigned int passed
    unsigned int announced
    unsigned int out
    bint m1_lead
    uint64_t played          # additive mask of the cards played this round
    int loser                # the exchange's loser this round, -1: none (round 1)
    int given                # card code the loser gave the winner, -1: none
    int returned             # card code the winner gave back, -1: not yet
    unsigned int winners
    int steps


# -- card masks ------------------------------------------------------------------

cdef inline bint _canonical(const GofTables* t, uint64_t mask) noexcept nogil:
    return ((mask >> 1) & t.pair_lo & ~mask) == 0


cdef inline uint64_t _additive(const GofTables* t, uint64_t mask) noexcept nogil:
    return mask - ((mask >> 1) & t.pair_lo)


cdef inline uint64_t _canon(const GofTables* t, uint64_t additive) noexcept nogil:
    return additive | ((additive >> 1) & t.pair_lo)


cdef inline int _highest_code(const GofTables* t, uint64_t mask) noexcept nogil:
    cdef int bit = 63
    while not (mask >> bit) & 1:
        bit -= 1
    return t.code_of_bit[bit]
