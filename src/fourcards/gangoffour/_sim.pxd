# The match simulator's C level: Gang of Four matches in C, the same rules as
# fourcards.gangoffour.match (the readable engine, which the tests compare move
# for move), for fast simulation without the GIL.
#
# The steps are ``cdef inline`` here, so every module that drives matches in a
# hot loop (``_sim``, ``_search``, ``_playouts``, ``_vector``) compiles them in
# rather than calling across modules; each takes the tables (``gof_tables()``).
from libc.stdint cimport uint64_t, int32_t, uint8_t, int64_t
from libc.stdlib cimport realloc

from fourcards._common cimport fc_popcount64, fc_ctz64, _below
from fourcards.gangoffour._gof cimport (
    GofTables, GofRules, GofMatch, GANG_KIND, PASS_ACTION, GIVE_BACK_BASE, ANNOUNCE_BASE,
    PHASE_PLAY, PHASE_GIVE_BACK, PHASE_OVER, M1_CODE, _additive, _canon, _highest_code,
)
from fourcards.gangoffour._combos cimport _legal

cdef GofRules _rules_of(dict rules) except *
cdef object _log_array(const int32_t* log, int steps)


cdef inline int _next_seat(GofMatch* m, int player, bint skip_passed) noexcept nogil:
    cdef int n = m.rules.players, seat = player, k
    cdef unsigned int skip = m.out | (m.passed if skip_passed else 0)
    for k in range(n):
        seat = (seat + m.direction + n) % n
        if not (skip >> seat) & 1:
            return seat
    return -1


cdef inline void _move_card(const GofTables* t, GofMatch* m, int giver, int receiver, int code) noexcept nogil:
    m.hands[giver] = _canon(t, _additive(t, m.hands[giver]) - t.add_bit[code])
    m.hands[receiver] = _canon(t, _additive(t, m.hands[receiver]) + t.add_bit[code])


cdef inline void _start_round(const GofTables* t, GofMatch* m, int dealer, int winner, int* cards_left) noexcept nogil:
    """Deal a round; ``winner < 0`` for the first round."""
    cdef int n = m.rules.players, i, j, first, p, k, best, code, holder
    cdef uint8_t deck[64]
    cdef uint8_t swap
    cdef uint64_t additive[4]
    m.round += 1
    m.dealer = dealer
    m.direction = 1 if m.round % 2 == 1 else -1
    for i in range(64):
        deck[i] = t.deck_codes[i]
    for i in range(63, 0, -1):
        j = <int>_below(&m.rng, i + 1)
        swap = deck[i]
        deck[i] = deck[j]
        deck[j] = swap
    if m.rules.chinese:
        first = (dealer + t.value_of_code[deck[63]] - 1) % n
    else:
        first = (dealer + 1) % n
    for p in range(4):
        additive[p] = 0
    for i in range(16 * n):
        additive[(first + i) % n] += t.add_bit[deck[i]]
    for p in range(4):
        m.hands[p] = _canon(t, additive[p]) if p < n else 0
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
            if m.hands[p] & t.add_bit[M1_CODE]:
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
    code = _highest_code(t, m.hands[best])
    _move_card(t, m, best, winner, code)
    m.given = code
    m.phase = PHASE_GIVE_BACK
    m.current = winner


cdef inline void _end_round(const GofTables* t, GofMatch* m, int winner) noexcept nogil:
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
            m.totals[p] += left * t.penalty_per_card[left]
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
    _start_round(t, m, winner, winner, cards_left)


cdef inline bint _constrained(GofMatch* m) noexcept nogil:
    cdef int nxt = _next_seat(m, m.current, m.rules.pass_is_final)
    if nxt < 0 or nxt == m.current or fc_popcount64(m.hands[nxt]) != 1:
        return False
    return not m.rules.manual or ((m.announced >> nxt) & 1)


cdef inline int _sim_legal(const GofTables* t, GofMatch* m, int32_t* out) noexcept nogil:
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
            k = t.code_of_bit[fc_ctz64(hand)]
            if k != c:
                out[n] = GIVE_BACK_BASE + k
                n += 1
                c = k
            hand &= hand - 1
        return n
    count = <int>_legal(t, hand, m.table, out)
    constrained = _constrained(m)
    if m.table < 0 and m.m1_lead:
        k = 0
        for i in range(count):
            if (t.masks[out[i]] & t.add_bit[M1_CODE]) and fc_popcount64(t.masks[out[i]]) <= 5:
                out[k] = out[i]
                k += 1
        count = k
    if constrained:
        highest = _highest_code(t, hand)
        if m.table < 0:
            has_multi = count > 0 and out[count - 1] >= t.kind_start[1]
            k = 0
            for i in range(count):
                if out[i] >= t.kind_start[1] or (not has_multi and out[i] == highest):
                    out[k] = out[i]
                    k += 1
            count = k
        elif m.table < t.kind_start[1] and highest > m.table:
            k = 0
            for i in range(count):
                if out[i] >= t.kind_start[GANG_KIND] or out[i] == highest:
                    out[k] = out[i]
                    k += 1
            count = k
    n = count
    if m.table >= 0:
        if not (constrained and not m.rules.may_pass and m.table < t.kind_start[1]
                and _highest_code(t, hand) > m.table):
            out[n] = PASS_ACTION
            n += 1
    if m.rules.manual:
        left = fc_popcount64(hand)
        for i in range(count):
            if left - fc_popcount64(t.masks[out[i]]) == 1:
                out[n] = ANNOUNCE_BASE + out[i]
                n += 1
    return n


cdef inline bint _cycle_over(GofMatch* m) noexcept nogil:
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


cdef inline void _sim_apply(const GofTables* t, GofMatch* m, int action) noexcept nogil:
    """Apply a legal action, exactly as MatchState._apply."""
    cdef int player = m.current, combo, had, left, p, active, last_active
    cdef bint announce
    cdef uint64_t mask
    m.steps += 1
    if m.phase == PHASE_GIVE_BACK:
        _move_card(t, m, player, m.loser, action - GIVE_BACK_BASE)
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
    mask = t.masks[combo]
    had = fc_popcount64(m.hands[player])
    m.hands[player] = _canon(t, _additive(t, m.hands[player]) - _additive(t, mask))
    m.played += _additive(t, mask)
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
            _end_round(t, m, player)
            return
        m.out |= 1u << player
        active = 0
        last_active = -1
        for p in range(m.rules.players):
            if not (m.out >> p) & 1:
                active += 1
                last_active = p
        if active == 1:
            _end_round(t, m, last_active)
            return
    if not _cycle_over(m):
        m.current = _next_seat(m, player, m.rules.pass_is_final)


cdef inline void _sim_new(const GofTables* t, GofMatch* m, GofRules rules, uint64_t seed) noexcept nogil:
    cdef int p
    m.rules = rules
    m.rng = seed
    for p in range(4):
        m.totals[p] = 0
        m.hands[p] = 0
    m.round = 0
    m.winners = 0
    m.steps = 0
    _start_round(t, m, rules.dealer, -1, NULL)




cdef inline bint _log_action(int32_t** log, Py_ssize_t* capacity, int step, int action) noexcept nogil:
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


# -- a match as integers (what pickles keep) ---------------------------------------

cdef inline void _match_to_words(const GofMatch* m, uint64_t* w) noexcept nogil:
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


cdef inline void _match_from_words(GofMatch* m, const uint64_t* w) noexcept nogil:
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
