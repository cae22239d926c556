# The rule-based (greedy) player's C level: the policy, ``cdef inline`` so the
# simulator's, the search's and the vector environment's hot loops compile it
# in, and the policy switch (random or greedy) the matches in C use.
from libc.stdint cimport uint64_t, int32_t

from fourcards._common cimport fc_popcount64, fc_ctz64, _below
from fourcards.gangoffour._gof cimport (
    GofTables, GofMatch, GANG_KIND, PASS_ACTION, GIVE_BACK_BASE, ANNOUNCE_BASE, PHASE_GIVE_BACK,
    POLICY_RANDOM, M1_CODE, GP_CODE, _highest_code,
)


cdef inline int _top_code(const GofTables* t, int combo) noexcept nogil:
    return _highest_code(t, t.masks[combo])


cdef inline int _with_announce(int action, const int32_t* legal, int n) noexcept nogil:
    """The announcing form of a play when it is legal (always announce)."""
    cdef int i
    for i in range(n - 1, -1, -1):
        if legal[i] == ANNOUNCE_BASE + action:
            return ANNOUNCE_BASE + action
        if legal[i] < ANNOUNCE_BASE:
            break
    return action


cdef inline bint _breaks_gang(const GofTables* t, int combo, uint64_t gang_bits) noexcept nogil:
    cdef uint64_t rest = t.masks[combo]
    while rest:
        if (gang_bits >> t.value_of_code[t.code_of_bit[fc_ctz64(rest)]]) & 1:
            return True
        rest &= rest - 1
    return False


cdef inline int _greedy_choose(const GofTables* t, uint64_t hand, int table, int phase, int me, int players,
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
        counts[t.value_of_code[t.code_of_bit[fc_ctz64(rest)]]] += 1
        rest &= rest - 1
    if phase == PHASE_GIVE_BACK:
        best = -1
        for i in range(n):  # lowest loner that is not M1, a phoenix or the dragon
            code = legal[i] - GIVE_BACK_BASE
            if code != M1_CODE and code < GP_CODE and counts[t.value_of_code[code]] == 1:
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
        elif legal[i] < t.kind_start[GANG_KIND]:
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
            if has_non_gang and a >= t.kind_start[GANG_KIND]:
                continue
            size = fc_popcount64(t.masks[a])
            if danger:
                key = size * 100000 + a  # biggest, then highest: hardest to beat
                if best < 0 or key > best_key:
                    best, best_key = a, key
            else:
                key = _top_code(t, a) - 4 * size  # shed many low cards
                if best < 0 or key < best_key:
                    best, best_key = a, key
        return _with_announce(best, legal, n)
    for code in range(1, 11):
        if counts[code] >= 4:
            gang_bits |= (<uint64_t>1) << code
    size = fc_popcount64(hand)
    for i in range(n):
        a = legal[i]
        if a >= t.kind_start[GANG_KIND]:
            break
        if _breaks_gang(t, a, gang_bits):
            continue
        if _top_code(t, a) >= GP_CODE and not danger and size > 6:
            continue
        return _with_announce(a, legal, n)
    for i in range(n):
        a = legal[i]
        if a >= PASS_ACTION:
            break
        if a >= t.kind_start[GANG_KIND]:
            if danger or size - fc_popcount64(t.masks[a]) <= 3:
                return _with_announce(a, legal, n)
            break
    if has_pass:
        return PASS_ACTION
    return _with_announce(legal[0], legal, n)


cdef inline int _choose(const GofTables* t, GofMatch* m, int policy, uint64_t* policy_rng, int32_t* legal,
                        int n) noexcept nogil:
    cdef int sizes[4]
    cdef int p
    if policy == POLICY_RANDOM:
        return legal[_below(policy_rng, <uint64_t>n)]
    for p in range(m.rules.players):
        sizes[p] = fc_popcount64(m.hands[p])
    return _greedy_choose(t, m.hands[m.current], m.table, m.phase, m.current,
                          m.rules.players, sizes, legal, n)

