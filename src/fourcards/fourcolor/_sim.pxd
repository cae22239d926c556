# The simulator's C level: a game's state (fourcards.fourcolor.game.FourColorState
# as C), for other modules.
from libc.stdint cimport uint64_t, int64_t, uint8_t, int8_t

from fourcards.fourcolor._fc cimport FC_KINDS

cdef enum:
    FC_DISCARD = 0
    FC_CLAIM = 1
    FC_OVER = 2
    FC_FROM_DISCARD = 0
    FC_TURNED = 1
    FC_LAID = 2

ctypedef struct FcGame:
    int n, threshold, rounds, rank_only
    # the rules' readings: Soldiers of one colour form triples and quads
    # (same_colour_soldiers); a hand of only Generals is a hu (else no winner)
    int soldier_pongs, generals_hu
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
    # the cards discarded this round and never claimed (the observation's discards)
    uint8_t gone[FC_KINDS]
