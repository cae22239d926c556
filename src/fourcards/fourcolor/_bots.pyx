# cython: language_level=3
"""The compiled Four Color rule-based player (``fourcards.fourcolor.bots.GreedyBot``).

The player itself is in ``_bots.pxd`` (inlined by the simulator); this module
is its entry point from Python, checked like its twin
(``fourcards.fourcolor._reference.hand_value`` and ``greedy_choose``).
"""

import operator

from libc.stdint cimport uint8_t

from fourcards.fourcolor._fc cimport FcTables, FC_KINDS, FC_NUM_MELDS, FC_PASS, FC_CLAIM_BASE
from fourcards.fourcolor._melds cimport fc_tables

cdef const FcTables* _t = fc_tables()


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


cdef enum:
    # The exposed points and threshold the players take (_reference.MAX_EXPOSED_POINTS
    # and MAX_THRESHOLD): the kernels add them in ints, with room to spare.
    FC_MAX_EXPOSED_POINTS = 1000
    FC_MAX_THRESHOLD = 1 << 30


cdef int _fc_read_bounded(object given, str name, int top) except -1:
    """An int 0..top (numpy ints too; never a bool or a float), named in the error (_reference.check_points)."""
    if isinstance(given, bool) or not hasattr(type(given), "__index__") or not 0 <= operator.index(given) <= top:
        raise ValueError(f"{name} = {given!r} is not an int in 0..{top:,}")
    return operator.index(given)


def fc_hand_value(counts, exposed_points=0, threshold=10):
    """The rule-based player's worth of a concealed hand (28 counts, 0..4)."""
    cdef uint8_t hand[FC_KINDS]
    cdef int points, top
    if not (_t.ready and _t.num_melds):
        raise RuntimeError("the Four Color tables are not loaded")
    points = _fc_read_bounded(exposed_points, "exposed_points", FC_MAX_EXPOSED_POINTS)
    top = _fc_read_bounded(threshold, "threshold", FC_MAX_THRESHOLD)
    _fc_read_small(counts, hand, FC_KINDS, 4, "counts")
    return _fc_hand_value(_t, hand, points, top)


def fc_greedy_choose(hand, exposed_points, threshold, int offer_card, bint from_discard, legal):
    """GreedyBot's choice: ``hand`` 28 counts; ``offer_card`` -1 in the discard
    phase, else the card on offer; ``legal`` the legal actions (ascending)."""
    cdef uint8_t counts[FC_KINDS]
    cdef int actions[128]
    cdef int i, n = len(legal), points, top
    if not (_t.ready and _t.num_melds):
        raise RuntimeError("the Four Color tables are not loaded")
    points = _fc_read_bounded(exposed_points, "exposed_points", FC_MAX_EXPOSED_POINTS)
    top = _fc_read_bounded(threshold, "threshold", FC_MAX_THRESHOLD)
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
        if a >= FC_CLAIM_BASE and not _fc_can_claim(_t, counts, a - FC_CLAIM_BASE, offer_card):
            raise ValueError(f"claim {a} needs cards the hand does not hold, or a card on offer it lacks")
    return _fc_greedy(_t, counts, points, top, offer_card, from_discard, actions, n)




cdef int _fc_read_discard_args(hand, exposed_points, threshold, unseen, legal, bint distinct,
                               uint8_t* counts, uint8_t* live, int* actions, int* points, int* top) except -1:
    """Check and read the lookahead kernels' arguments (see :func:`fc_lookahead_choose`):
    ``legal`` (any iterable, read once) into ``actions``, sorted and each once when
    ``distinct``; returns how many."""
    cdef int i, n
    if not (_t.ready and _t.num_melds):
        raise RuntimeError("the Four Color tables are not loaded")
    points[0] = _fc_read_bounded(exposed_points, "exposed_points", FC_MAX_EXPOSED_POINTS)
    top[0] = _fc_read_bounded(threshold, "threshold", FC_MAX_THRESHOLD)
    legal = list(legal)
    if distinct and all(type(a) is int for a in legal):
        legal.sort()
    n = len(legal)
    _fc_read_small(hand, counts, FC_KINDS, 4, "hand")
    _fc_read_small(unseen, live, FC_KINDS, 4, "unseen")
    for i in range(FC_KINDS):
        if counts[i] + live[i] > 4:
            raise ValueError(f"unseen[{i}] = {live[i]}: the hand holds {counts[i]} of the 4 copies")
    if n == 0:
        raise ValueError("no legal action to choose from")
    if n > FC_KINDS:
        raise ValueError(f"{n} legal actions: a discard has at most {FC_KINDS}")
    for i in range(n):
        a = legal[i]
        if type(a) is not int or not 0 <= a < FC_KINDS or counts[a] == 0 or a % 7 == 0:
            raise ValueError(f"cannot discard {a!r}: the hand does not hold it, or it is a General")
        if distinct and i and a == legal[i - 1]:
            raise ValueError(f"discard {a} is listed twice")
        actions[i] = a
    return n


def fc_lookahead_choose(hand, exposed_points, threshold, unseen, legal):
    """LookaheadBot's discard: ``hand`` and ``unseen`` 28 counts (together at most 4
    of a kind), ``legal`` the discards to choose from (any iterable)."""
    cdef uint8_t counts[FC_KINDS]
    cdef uint8_t live[FC_KINDS]
    cdef int actions[FC_KINDS]
    cdef int n, points, top
    n = _fc_read_discard_args(hand, exposed_points, threshold, unseen, legal, False, counts, live, actions,
                              &points, &top)
    return _fc_lookahead(_t, counts, points, top, live, actions, n)


def fc_lookahead_shortlist_choose(hand, exposed_points, threshold, unseen, legal):
    """The Four Color search's own discards in its playouts (``SearchBot(playout="lookahead")``):
    LookaheadBot's discard among GreedyBot's three best; arguments as
    :func:`fc_lookahead_choose`'s (``legal`` in any order, each once)."""
    cdef uint8_t counts[FC_KINDS]
    cdef uint8_t live[FC_KINDS]
    cdef int actions[FC_KINDS]
    cdef int n, points, top
    n = _fc_read_discard_args(hand, exposed_points, threshold, unseen, legal, True, counts, live, actions,
                              &points, &top)
    return _fc_lookahead_shortlist(_t, counts, points, top, live, actions, n)
