# The rule-based player's C level (fourcards.fourcolor.bots.GreedyBot): the
# worth of a hand and the choice, ``cdef inline`` so the simulator's loop
# compiles them in.  Its shape tables are built with the others by
# ``_melds.fc_init``.
from libc.stdint cimport uint8_t
from libc.string cimport memcpy
from libc.limits cimport INT_MIN

from fourcards.fourcolor._fc cimport (
    FcTables, FC_KINDS, FC_PASS, FC_HU, FC_CLAIM_BASE, _fc_indices, _fc_block_of, _fc_digit, _fc_table,
)
from fourcards.fourcolor._melds cimport _fc_best, _fc_best_plain


cdef inline int _fc_hand_value(const FcTables* t, const uint8_t* counts, int exposed_points,
                               int threshold) noexcept nogil:
    """The rule-based player's worth of a concealed hand (_reference.hand_value)."""
    cdef int index[5]
    cdef int value[5]
    cdef int code, b, failing = 0, total = 0, sub, points, waits = 0, good = 0, best = 0
    cdef int covered = 0, near = 0, shape
    _fc_indices(counts, index)
    for b in range(5):
        value[b] = _fc_table(t, b, index[b])
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
            sub = _fc_table(t, b, index[b] + _fc_digit(t, code))
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
        shape = t.shape_colour[index[b]]
        covered += shape >> 6
        near += shape & 63
    shape = t.shape_soldier[index[4]]
    covered += shape >> 6
    near += shape & 63
    return 10 * covered + 3 * near


cdef inline int _fc_after_discard(const FcTables* t, uint8_t* hand, int discard, int exposed_points,
                                  int threshold) noexcept nogil:
    cdef int value
    hand[discard] -= 1
    value = _fc_hand_value(t, hand, exposed_points, threshold)
    hand[discard] += 1
    return value


cdef inline int _fc_greedy(const FcTables* t, uint8_t* hand, int exposed_points, int threshold, int offer_card,
                           bint from_discard, const int* legal, int n_legal) noexcept nogil:
    """GreedyBot.choose: ``offer_card`` -1 to discard, else the card on offer."""
    cdef int i, d, value, best_value, best_action, action, g, k, j, points, n_discards
    cdef bint has_pass = False, has_hu = False, removed
    cdef uint8_t after[FC_KINDS]
    if offer_card < 0:
        best_action = legal[0]
        best_value = _fc_after_discard(t, hand, legal[0], exposed_points, threshold)
        for i in range(1, n_legal):
            value = _fc_after_discard(t, hand, legal[i], exposed_points, threshold)
            if value > best_value or (value == best_value and legal[i] < best_action):
                best_action, best_value = legal[i], value
        return best_action
    for i in range(n_legal):
        has_pass = has_pass or legal[i] == FC_PASS
        has_hu = has_hu or legal[i] == FC_HU
    if has_hu:
        memcpy(after, hand, FC_KINDS)
        after[offer_card] += 1
        points = _fc_best(t, after, offer_card if from_discard else -1) + exposed_points
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
        best_value = _fc_hand_value(t, hand, exposed_points, threshold)
    else:
        best_value = -2147483647
    for i in range(n_legal):
        action = legal[i]
        if action < FC_CLAIM_BASE:
            continue
        g = action - FC_CLAIM_BASE
        memcpy(after, hand, FC_KINDS)
        removed = False
        for j in range(t.meld_len[g]):
            k = t.meld_codes[g][j]
            if k == offer_card and not removed:
                removed = True
                continue
            after[k] -= 1
        points = exposed_points + t.exposed_points[t.meld_kind_of[g]]
        value = -2147483647
        n_discards = 0
        for d in range(FC_KINDS):
            if after[d] and d % 7 != 0:
                n_discards += 1
                k = _fc_after_discard(t, after, d, points, threshold)
                if k > value:
                    value = k
        if n_discards == 0:
            value = 1000
        if value < 1000:
            value += 10 * t.meld_len[g]
        if value > best_value:
            best_action, best_value = action, value
    return best_action


cdef inline bint _fc_can_claim(const FcTables* t, const uint8_t* hand, int g, int card) noexcept nogil:
    """Whether ``hand`` holds meld ``g`` but for one ``card`` (the card on offer)."""
    cdef int need[FC_KINDS]
    cdef int i, k
    cdef bint has_card = False
    for i in range(t.meld_len[g]):
        need[t.meld_codes[g][i]] = 0
    for i in range(t.meld_len[g]):
        k = t.meld_codes[g][i]
        if k == card and not has_card:
            has_card = True
        else:
            need[k] += 1
    if not has_card:
        return False
    for i in range(t.meld_len[g]):
        k = t.meld_codes[g][i]
        if hand[k] < need[k]:
            return False
    return True




cdef enum:
    # What a hand the next card completes is worth to the lookahead player
    # (_reference.LOOKAHEAD_WIN).
    FC_LOOKAHEAD_WIN = 10000


cdef inline int _fc_after_draw(const FcTables* t, uint8_t* hand, int exposed_points, int threshold) noexcept nogil:
    """A hand of 21 after a draw: complete with the threshold's points, else its best discard's worth."""
    cdef int d, value, best = -1
    cdef int points = _fc_best_plain(t, hand)
    if points >= 0 and points + exposed_points >= threshold:
        return FC_LOOKAHEAD_WIN + points + exposed_points
    for d in range(FC_KINDS):
        if hand[d] and d % 7 != 0:
            value = _fc_after_discard(t, hand, d, exposed_points, threshold)
            if value > best:
                best = value
    return best if best >= 0 else FC_LOOKAHEAD_WIN


cdef inline int _fc_lookahead(const FcTables* t, uint8_t* hand, int exposed_points, int threshold,
                              const uint8_t* unseen, const int* legal, int n_legal) noexcept nogil:
    """LookaheadBot's discard (_reference.lookahead_choose): the most worth, summed
    over the next card by its unseen copies; ties to the lowest card."""
    cdef int i, c, d, best_action = -1
    cdef bint any_unseen = False
    cdef long long total, best_total = 0
    for c in range(FC_KINDS):
        any_unseen = any_unseen or unseen[c] != 0
    for i in range(n_legal):
        d = legal[i]
        hand[d] -= 1
        if not any_unseen:
            total = _fc_hand_value(t, hand, exposed_points, threshold)
        else:
            total = 0
            for c in range(FC_KINDS):
                if unseen[c]:
                    hand[c] += 1
                    total += unseen[c] * <long long>_fc_after_draw(t, hand, exposed_points, threshold)
                    hand[c] -= 1
        hand[d] += 1
        if best_action < 0 or total > best_total or (total == best_total and d < best_action):
            best_action, best_total = d, total
    return best_action


cdef enum:
    # The greedy player's best discards the shortlisted lookahead looks one card ahead
    # among (_reference.SHORTLIST).
    FC_SHORTLIST = 3


cdef inline int _fc_lookahead_shortlist(const FcTables* t, uint8_t* hand, int exposed_points, int threshold,
                                        const uint8_t* unseen, const int* legal, int n_legal) noexcept nogil:
    """The lookahead player's discard among the greedy player's FC_SHORTLIST best
    (_reference.lookahead_shortlist_choose; ``legal`` ascending: of equal worths the
    lower card is taken, as both players take it)."""
    cdef int value[128]
    cdef int chosen[FC_SHORTLIST]
    cdef int i, j, k, best, n = 0
    if n_legal <= FC_SHORTLIST:
        return _fc_lookahead(t, hand, exposed_points, threshold, unseen, legal, n_legal)
    for i in range(n_legal):
        value[i] = _fc_after_discard(t, hand, legal[i], exposed_points, threshold)
    for k in range(FC_SHORTLIST):
        best = -1
        for i in range(n_legal):
            if value[i] != INT_MIN and (best < 0 or value[i] > value[best]
                                        or (value[i] == value[best] and legal[i] < legal[best])):
                best = i
        value[best] = INT_MIN
        j = n  # kept ascending
        while j > 0 and chosen[j - 1] > legal[best]:
            chosen[j] = chosen[j - 1]
            j -= 1
        chosen[j] = legal[best]
        n += 1
    return _fc_lookahead(t, hand, exposed_points, threshold, unseen, chosen, n)
