# cython: language_level=3
"""The compiled Four Color simulator: whole games in C, without the GIL.

The rules are fourcards.fourcolor.game.FourColorState's, mirrored move for
move (the tests play both and compare every action); the kernels and the
rule-based player are the meld splitter's and the bots' (``_melds.pxd``,
``_bots.pxd``), compiled in.
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint8_t, int8_t
from libc.string cimport memcpy, memset
from libc.stdlib cimport malloc, free

from fourcards._common cimport _below, _seed_stream

import numpy as np

from fourcards.fourcolor._fc cimport (
    FcTables, FC_KINDS, FC_PASS, FC_HU, FC_CLAIM_BASE, FC_LONE_GENERAL, FC_TRIPLE, FC_QUAD, FC_GENERAL_QUAD,
    FC_COMMAND,
)
from fourcards.fourcolor._melds cimport fc_tables, _fc_best_plain, _fc_best
from fourcards.fourcolor._bots cimport _fc_greedy, _fc_can_claim

cdef const FcTables* _t = fc_tables()


cdef int _sim_strict_soldiers(const uint8_t* counts) noexcept nogil:
    """The soldier block's points when Soldiers of one colour form no triple or
    quad (-1: it does not split): ``fourcolor._deck.strict_soldiers``."""
    cdef int c, fours, threes, least = 4, total = 0
    for c in range(4):
        total += counts[7 * c + 6]
        if counts[7 * c + 6] < least:
            least = counts[7 * c + 6]
    for fours in range(least, -1, -1):
        if (total - 4 * fours) % 3:
            continue
        threes = (total - 4 * fours) // 3
        for c in range(4):
            if fours + threes - counts[7 * c + 6] < 0:
                break
        else:
            return 5 * fours + 3 * threes
    return -1


cdef int _sim_points(FcGame* s, const uint8_t* counts, int exposed_code) noexcept nogil:
    """Best points of a complete split under the game's rules (-1: none): ``_variants.points``."""
    cdef uint8_t rest[FC_KINDS]
    cdef int c, base, soldiers
    if s.soldier_pongs:
        return _fc_best(_t, counts, exposed_code)
    memcpy(rest, counts, FC_KINDS)
    for c in range(4):
        rest[7 * c + 6] = 0
    base = _fc_best(_t, rest, exposed_code if exposed_code % 7 != 6 else -1)
    soldiers = _sim_strict_soldiers(counts)
    if base < 0 or soldiers < 0:
        return -1
    return base + soldiers


cdef int _sim_claim_options(FcGame* s, int player, int* out) noexcept nogil:
    """FourColorState._claim_options, ascending."""
    cdef const FcTables* t = _t
    cdef int card = s.offer_card, n = 0, m, g, kind, i, j, x
    cdef const uint8_t* hand = s.hands[player]
    cdef uint8_t counts[FC_KINDS]
    cdef bint general = card % 7 == 0, revealer_general, chi_allowed, pong_kong
    revealer_general = general and s.offer_source == FC_TURNED and player == s.offer_player
    if not revealer_general:
        out[n] = FC_PASS
        n += 1
    memcpy(counts, hand, FC_KINDS)
    counts[card] += 1
    if (_fc_best_plain(t, counts) if s.soldier_pongs else _sim_points(s, counts, -1)) >= 0:
        out[n] = FC_HU
        n += 1
    chi_allowed = (s.offer_source == FC_LAID
                   or (s.offer_source == FC_FROM_DISCARD and player == (s.offer_player + 1) % s.n)
                   or (s.offer_source == FC_TURNED and player == s.offer_player))
    for m in range(t.meld_count[card]):
        g = t.meld_global[card][m]
        if not _fc_can_claim(t, hand, g, card):
            continue
        kind = t.meld_kind_of[g]
        pong_kong = kind == FC_TRIPLE or kind == FC_QUAD or kind == FC_GENERAL_QUAD
        if pong_kong and not s.soldier_pongs and card % 7 == 6:
            continue
        if general and s.offer_source == FC_TURNED:
            # a quad of Generals: anyone holding the other three, the revealer too
            if kind == FC_GENERAL_QUAD or (player == s.offer_player
                                           and (kind == FC_LONE_GENERAL or kind == FC_COMMAND)):
                out[n] = FC_CLAIM_BASE + g
                n += 1
            continue
        if pong_kong or chi_allowed:
            out[n] = FC_CLAIM_BASE + g
            n += 1
    for i in range(1, n):  # insertion sort
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return n


cdef void _sim_hu(FcGame* s, int player, int card, bint from_discard) noexcept nogil:
    cdef const FcTables* t = _t
    cdef uint8_t counts[FC_KINDS]
    cdef int points, lucky = 0, lucky_card, k
    memcpy(counts, s.hands[player], FC_KINDS)
    if card >= 0:
        counts[card] += 1
    points = _sim_points(s, counts, card if from_discard else -1) + s.exposed_points[player]
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
    if s.generals_hu:
        _sim_hu(s, s.current, -1, False)
    else:
        _sim_end_round(s, -1, 0, 0)


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
    cdef const FcTables* t = _t
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
            if t.meld_len[g] >= 3 and t.meld_codes[g][0] == t.meld_codes[g][t.meld_len[g] - 1]:
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
    for i in range(t.meld_len[g]):
        k = t.meld_codes[g][i]
        s.exposed[player][k] += 1
        if k == card and not removed:
            removed = True
        else:
            s.hands[player][k] -= 1
    s.exposed_points[player] += t.exposed_points[t.meld_kind_of[g]]
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


cdef int _sim_strict_hu(FcGame* s, int player, int offer, bint from_discard, int* legal, int n_legal,
                        int* action) noexcept nogil:
    """The rule-based player's hu when Soldiers of one colour form no triple or
    quad (``GreedyBot.choose``): hu when it reaches the threshold or nothing else
    is allowed (``action``), else the legal actions without hu (their count)."""
    cdef uint8_t counts[FC_KINDS]
    cdef int i, j = 0, points
    cdef bint has_hu = False, has_pass = False
    for i in range(n_legal):
        has_hu = has_hu or legal[i] == FC_HU
        has_pass = has_pass or legal[i] == FC_PASS
    if not has_hu:
        return n_legal
    memcpy(counts, s.hands[player], FC_KINDS)
    counts[offer] += 1
    points = _sim_points(s, counts, offer if from_discard else -1) + s.exposed_points[player]
    if points >= s.threshold or not has_pass:
        action[0] = FC_HU
        return n_legal
    for i in range(n_legal):
        if legal[i] != FC_HU:
            legal[j] = legal[i]
            j += 1
    return j


cdef int64_t _sim_play(FcGame* s, uint64_t seed, const int* policies, const uint64_t* bot_seeds,
                       int32_t* log, int64_t log_size) noexcept nogil:
    """Play one game from ``seed``; the number of actions (-1: the log overflowed)."""
    cdef const FcTables* t = _t
    cdef uint64_t bot_rng[4]
    cdef int legal[128]
    cdef int n_legal, p, action, offer
    cdef bint from_discard
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
            from_discard = s.offer_source != FC_TURNED or s.offer_player != p
            action = -1
            if offer >= 0 and not s.soldier_pongs:
                n_legal = _sim_strict_hu(s, p, offer, from_discard, legal, n_legal, &action)
            if action < 0:
                action = _fc_greedy(t, s.hands[p], s.exposed_points[p], s.threshold, offer, from_discard,
                                    legal, n_legal)
        if log != NULL:
            if steps >= log_size:
                return -1
            log[steps] = action
        steps += 1
        _sim_apply(s, action)
    return steps


def fc_simulate(seeds, policies, int players, int threshold, int rounds, bint lucky_rank_only,
                bint record=False, bot_seeds=None, bint same_colour_soldiers=True, bint generals_hu=True):
    """Whole games in C, without the GIL: per seed ``(totals int64 (games, players),
    winners bool, steps int64, actions or None)``; policies 0 random, 1 greedy;
    ``bot_seeds`` (games x players, uint64): the random players' seeds, else
    ``derive_seed(game seed, seat + 1)``; the rules' ``same_colour_soldiers`` and
    ``only_generals == "hu"`` (``generals_hu``)."""
    cdef const FcTables* t = _t
    cdef const uint64_t[::1] seed_view = np.ascontiguousarray(seeds, dtype=np.uint64)
    cdef const uint64_t[:, ::1] bot_view
    cdef const uint64_t* bot_row = NULL
    cdef Py_ssize_t i, games = seed_view.shape[0]
    cdef int pol[4]
    cdef int p
    cdef int64_t steps, best, log_size
    cdef FcGame* state
    cdef int32_t* log = NULL
    if not (t.ready and t.num_melds):
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
        state.soldier_pongs, state.generals_hu = same_colour_soldiers, generals_hu
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
