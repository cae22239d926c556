# C-level entry points of the compiled core, for other Cython modules
# (``fourcards.gangoffour._vector`` drives matches through them).
from libc.stdint cimport uint64_t, int32_t, int8_t, uint8_t

cdef Py_ssize_t _legal(uint64_t hand, int table, int32_t* out) noexcept nogil
cdef Py_ssize_t _classify_rows(const uint8_t* codes, Py_ssize_t rows, Py_ssize_t width,
                               int8_t* kinds, int32_t* actions) noexcept nogil

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
    MATCH_WORDS = 33      # a GofMatch as integers (_match_to_words)

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

cdef void _sim_new(GofMatch* m, GofRules rules, uint64_t seed) noexcept nogil
cdef int _sim_legal(GofMatch* m, int32_t* out) noexcept nogil
cdef void _sim_apply(GofMatch* m, int action) noexcept nogil
cdef int _choose(GofMatch* m, int policy, uint64_t* policy_rng, int32_t* legal, int n) noexcept nogil
cdef GofRules _rules_of(dict rules) except *
cdef void _match_to_words(const GofMatch* m, uint64_t* w) noexcept nogil
cdef void _match_from_words(GofMatch* m, const uint64_t* w) noexcept nogil
