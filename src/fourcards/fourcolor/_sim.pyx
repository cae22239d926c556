# cython: language_level=3
"""The compiled Four Color simulator: whole games in C, without the GIL.

The rules are fourcards.fourcolor.game.FourColorState's, mirrored move for
move (the tests play both and compare every action); the kernels and the
rule-based player are the meld splitter's and the bots' (``_melds.pxd``,
``_bots.pxd``), compiled in.
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint32_t, uint8_t, int8_t, int16_t
from libc.string cimport memcpy, memset
from libc.stdlib cimport malloc, free
from libc.limits cimport LONG_MAX
from libc.math cimport exp, sqrt

from fourcards._common cimport _below, _seed_stream, _splitmix_next

import numpy as np

from fourcards.fourcolor._fc cimport (
    FcTables, FC_KINDS, FC_PASS, FC_HU, FC_CLAIM_BASE, FC_LONE_GENERAL, FC_TRIPLE, FC_QUAD, FC_GENERAL_QUAD,
    FC_COMMAND,
)
from fourcards.fourcolor._melds cimport fc_tables, _fc_best_plain, _fc_best
from fourcards.fourcolor._bots cimport _fc_greedy, _fc_can_claim, _fc_hand_value, _fc_lookahead, _fc_lookahead_shortlist

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
    memset(s.gone, 0, sizeof(s.gone))
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
        s.gone[card] += 1
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


cdef void _sim_unseen(FcGame* s, int p, uint8_t* unseen) noexcept nogil:
    """The cards seat ``p`` has not seen: those outside its hand, the exposed melds
    and the discards (28 counts)."""
    cdef int k, q, left
    for k in range(FC_KINDS):
        left = 4 - s.hands[p][k] - s.gone[k]
        for q in range(s.n):
            left -= s.exposed[q][k]
        unseen[k] = <uint8_t>(left if left > 0 else 0)


cdef int _sim_lookahead(FcGame* s, int p, const int* legal, int n_legal) noexcept nogil:
    """LookaheadBot's discard for seat ``p`` (the cards it has not seen: :func:`_sim_unseen`)."""
    cdef uint8_t unseen[FC_KINDS]
    _sim_unseen(s, p, unseen)
    return _fc_lookahead(_t, s.hands[p], s.exposed_points[p], s.threshold, unseen, legal, n_legal)


cdef int _sim_lookahead_shortlist(FcGame* s, int p, const int* legal, int n_legal) noexcept nogil:
    """The lookahead player's discard for seat ``p`` among the greedy player's best few
    (``_fc_lookahead_shortlist``), the unseen cards as :func:`_sim_unseen` has them."""
    cdef uint8_t unseen[FC_KINDS]
    _sim_unseen(s, p, unseen)
    return _fc_lookahead_shortlist(_t, s.hands[p], s.exposed_points[p], s.threshold, unseen, legal, n_legal)


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
            if action < 0 and offer < 0 and policies[p] == 2:
                action = _sim_lookahead(s, p, legal, n_legal)
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
    winners bool, steps int64, actions or None)``; policies 0 random, 1 greedy, 2 lookahead;
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
        if policies[p] not in (0, 1, 2):
            raise ValueError(f"policy {policies[p]!r} is not 0 (random), 1 (greedy) or 2 (lookahead)")
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


# -- search: information-set Monte Carlo at the root, rule-bot playouts -----------------------


cdef enum:
    FC_MAX_EVENTS = 256


cdef class FcSearch:
    """The compiled root search behind ``fourcards.fourcolor.search.SearchBot``.

    ``reset`` takes what the seat to act observes (checked by the caller:
    ``fourcards.fourcolor.search.search_inputs``): the game so far, its own hand,
    the hidden cards (every card it cannot see) and how many each other hand and
    the stock hold, and its legal actions. Each round of ``run`` deals the
    hidden cards at random (other hands, then the stock, the rest out of play)
    and plays every root action still in from that same deal, the round out,
    with the rule-based player in every seat (the seat's own discards, with
    ``own_playout=2``, the lookahead player's among the greedy player's three best):
    actions are compared on the same
    cards (the playouts are deterministic, so the difference is exact on that
    deal). A playout scores the seat's payments against the others' mean (the
    last round: its share of the game's win). As rounds double, the weaker half
    of the actions is set aside (sequential halving), unless ``reset`` is told
    ``halving=False``."""

    cdef FcGame root
    cdef int8_t pool[112]
    cdef int pool_n
    cdef int sizes[4]
    cdef int me
    cdef uint64_t rng
    cdef int actions[128]
    cdef int n_actions
    cdef uint32_t visits[128]
    cdef double totals[128]
    cdef int alive[128]
    cdef int n_alive
    cdef long rounds
    cdef long next_cut
    cdef double scale
    # The baseline (the rule-based player's own choice, ``set_baseline``): never set
    # aside; every other action's score less the baseline's on the same deal, summed
    # and squared, to tell a real gain from noise (``choice``).
    cdef int baseline
    cdef double gain[128]
    cdef double gain_sq[128]
    cdef uint32_t paired[128]
    # The Markov chain over deals of the hidden cards (see ``_chain_step``).
    cdef int8_t chain[112]
    cdef uint8_t held[4][FC_KINDS]
    cdef int start_of[4]
    cdef int agree[4]
    cdef int rest_at
    cdef bint chain_ready
    cdef int burn
    cdef int mixing
    cdef double weight
    # What each other seat did this round, to weigh its hands (``set_history``):
    # per event, its kind (0 a discard, 1 an answer to a card on offer), the
    # card discarded or offered, the offer's source and who offered it, the
    # answer, the seat's exposed points then, and the cards it gave up from its
    # hand from that event on (its hand then is its hand now and those).
    cdef int n_events[4]
    cdef int16_t event_kind[4][FC_MAX_EVENTS]
    cdef int16_t event_card[4][FC_MAX_EVENTS]
    cdef int16_t event_source[4][FC_MAX_EVENTS]
    cdef int16_t event_player[4][FC_MAX_EVENTS]
    cdef int16_t event_answer[4][FC_MAX_EVENTS]
    cdef int16_t event_points[4][FC_MAX_EVENTS]
    cdef uint8_t event_after[4][FC_MAX_EVENTS][FC_KINDS]
    cdef public long iterations
    cdef bint ready
    cdef bint busy
    # The seat's own discards in the playouts: 1 the greedy player's, 2 the lookahead
    # player's among the greedy player's best few (``reset(own_playout=...)``).
    cdef int own_playout

    def __cinit__(self):
        self.ready = False
        self.busy = False
        self.iterations = 0

    def reset(self, int players, int threshold, int rounds, bint rank_only, int round_, int me, hand, exposed,
              exposed_points, hidden, sizes, int stock_n, int phase, int offer_card, int offer_source,
              int offer_player, order, int answered, answers, totals, legal, seed, double scale, int burn,
              int mixing, double weight, bint same_colour_soldiers=True, bint generals_hu=True,
              bint halving=True, int own_playout=1):
        """Start a search (see the class); every argument is checked by the caller.
        ``halving=False``: every action stays in (each round plays all of them).
        ``own_playout``: the seat's own discards in the playouts, 1 the greedy player's,
        2 the lookahead player's among the greedy player's three best."""
        cdef int p, k, i
        cdef uint64_t seed_value = seed
        cdef FcGame* s
        if self.busy:
            raise RuntimeError("this FcSearch is searching in another thread")
        if own_playout not in (1, 2):
            raise ValueError(f"own_playout={own_playout} is not 1 (greedy) or 2 (lookahead)")
        self.own_playout = own_playout
        memset(&self.root, 0, sizeof(FcGame))
        s = &self.root
        s.n, s.threshold, s.rounds, s.rank_only = players, threshold, rounds, rank_only
        s.soldier_pongs, s.generals_hu = same_colour_soldiers, generals_hu
        s.round = round_
        s.first = (round_ - 1) % players
        for p in range(players):
            for k in range(FC_KINDS):
                s.exposed[p][k] = exposed[p][k]
            s.exposed_points[p] = exposed_points[p]
            s.totals[p] = totals[p]
            self.sizes[p] = sizes[p]
        for k in range(FC_KINDS):
            s.hands[me][k] = hand[k]
        self.pool_n = len(hidden)
        for i in range(self.pool_n):
            self.pool[i] = hidden[i]
        s.stock_n = stock_n
        s.phase = phase
        s.current = me
        s.offer_card, s.offer_source, s.offer_player = offer_card, offer_source, offer_player
        s.n_order = len(order)
        for i in range(s.n_order):
            s.order[i] = order[i]
        s.answered = answered
        for i in range(answered):
            s.answers[i] = answers[i]
        self.me = me
        self.rng = seed_value
        self.n_actions = len(legal)
        for i in range(self.n_actions):
            self.actions[i] = legal[i]
            self.visits[i] = 0
            self.totals[i] = 0.0
            self.alive[i] = i
            self.gain[i] = 0.0
            self.gain_sq[i] = 0.0
            self.paired[i] = 0
        self.baseline = -1
        self.n_alive = self.n_actions
        self.rounds = 0
        self.next_cut = 4 if halving else LONG_MAX
        self.scale = scale
        self.burn, self.mixing, self.weight = burn, mixing, weight
        self.chain_ready = False
        for p in range(4):
            self.n_events[p] = 0
        self.iterations = 0
        self.ready = True

    def set_history(self, int seat, events):
        """What ``seat`` did this round (checked by the caller): ``(kind, card, source,
        offerer, answer, exposed points, cards given up from then on (28 counts))``."""
        cdef int i, k
        if not 0 <= seat < 4 or len(events) > FC_MAX_EVENTS:
            raise ValueError("a seat 0..3 and at most 256 events")
        self.n_events[seat] = len(events)
        for i, event in enumerate(events):
            kind, card, source, player, answer, points, after = event
            self.event_kind[seat][i] = kind
            self.event_card[seat][i] = card
            self.event_source[seat][i] = source
            self.event_player[seat][i] = player
            self.event_answer[seat][i] = answer
            self.event_points[seat][i] = points
            for k in range(FC_KINDS):
                self.event_after[seat][i][k] = after[k]

    def agreement(self, int seat, hand):
        """How many of ``seat``'s choices this round the rule-based player makes
        holding ``hand`` (28 counts) now, of how many (-1: no such hand)."""
        cdef uint8_t counts[FC_KINDS]
        cdef int k
        if not 0 <= seat < self.root.n or len(hand) != FC_KINDS:
            raise ValueError("a seat of the table and 28 counts")
        for k in range(FC_KINDS):
            if not 0 <= hand[k] <= 4:
                raise ValueError("counts are 0..4")
            counts[k] = hand[k]
        return self._agreement(seat, counts), self.n_events[seat]

    cdef int _agreement(self, int seat, const uint8_t* hand) noexcept nogil:
        """How many of ``seat``'s choices this round the rule-based player makes
        holding ``hand`` now (its hand at each choice: ``hand`` and what it gave up
        since)."""
        cdef const FcTables* t = _t
        cdef FcGame scratch
        cdef uint8_t then[FC_KINDS]
        cdef int legal[128]
        cdef int e, k, n_legal, agree = 0, choice
        if self.n_events[seat]:
            # every rule field the claim options read (which Soldiers pong, how a hand
            # scores) from the game itself, not from whatever the stack held
            memcpy(&scratch, &self.root, sizeof(FcGame))
        for e in range(self.n_events[seat]):
            for k in range(FC_KINDS):
                then[k] = hand[k] + self.event_after[seat][e][k]
                if then[k] > 4:
                    return -1  # more copies than the deck holds: no hand then
            if self.event_kind[seat][e] == 0:
                n_legal = 0
                for k in range(FC_KINDS):
                    if then[k] and k % 7 != 0:
                        legal[n_legal] = k
                        n_legal += 1
                if n_legal == 0 or then[self.event_card[seat][e]] == 0:
                    continue
                choice = _fc_greedy(t, then, self.event_points[seat][e], self.threshold_value(), -1, False,
                                    legal, n_legal)
            else:
                memcpy(scratch.hands[seat], then, FC_KINDS)
                scratch.offer_card = self.event_card[seat][e]
                scratch.offer_source = self.event_source[seat][e]
                scratch.offer_player = self.event_player[seat][e]
                n_legal = _sim_claim_options(&scratch, seat, legal)
                if n_legal == 0:
                    continue
                choice = _fc_greedy(t, then, self.event_points[seat][e], self.threshold_value(),
                                    scratch.offer_card, scratch.offer_source != FC_TURNED or scratch.offer_player != seat,
                                    legal, n_legal)
            agree += choice == self.event_answer[seat][e]
        return agree

    cdef inline int threshold_value(self) noexcept nogil:
        return self.root.threshold

    cdef void _shuffle_tail(self, int8_t* cards, int start, int end) noexcept nogil:
        """Shuffle ``cards[start:end]`` (Fisher-Yates)."""
        cdef int i, j
        cdef int8_t swap
        for i in range(end - 1, start, -1):
            j = start + <int>_below(&self.rng, i - start + 1)
            swap = cards[i]
            cards[i] = cards[j]
            cards[j] = swap

    cdef void _chain_start(self) noexcept nogil:
        """A first deal of the chain: the hidden cards at random (other hands in seat
        order, then the stock and the cards out of play), then ``burn`` steps."""
        cdef int i, p, k, at = 0
        for i in range(self.pool_n):
            self.chain[i] = self.pool[i]
        self._shuffle_tail(self.chain, 0, self.pool_n)
        for p in range(self.root.n):
            self.start_of[p] = at
            memset(self.held[p], 0, FC_KINDS)
            if p != self.me:
                for k in range(self.sizes[p]):
                    self.held[p][self.chain[at + k]] += 1
                at += self.sizes[p]
            self.agree[p] = self._agreement(p, self.held[p]) if self.n_events[p] else 0
        self.rest_at = at
        self.chain_ready = True
        for i in range(self.burn):
            self._chain_step()

    cdef int _place_of(self, int i) noexcept nogil:
        """The seat whose hand holds chain slot ``i`` (-1: the stock or out of play)."""
        cdef int p
        if i >= self.rest_at:
            return -1
        for p in range(self.root.n):
            if p != self.me and self.start_of[p] <= i < self.start_of[p] + self.sizes[p]:
                return p
        return -1

    cdef void _chain_step(self) noexcept nogil:
        """One Metropolis step: swap two hidden cards of different places (a hand of a
        seat with choices to explain among them), kept with probability
        ``min(1, exp(weight * (agreement after - agreement before)))``."""
        cdef int i, j, a, b, new_a = 0, new_b = 0, delta
        cdef int8_t x, y
        if self.rest_at == 0 or self.pool_n < 2:
            return
        i = <int>_below(&self.rng, <uint64_t>self.rest_at)
        j = <int>_below(&self.rng, <uint64_t>self.pool_n)
        a = self._place_of(i)
        b = self._place_of(j)
        x, y = self.chain[i], self.chain[j]
        if a == b or x == y:
            return
        self.held[a][x] -= 1
        self.held[a][y] += 1
        if b >= 0:
            self.held[b][y] -= 1
            self.held[b][x] += 1
        new_a = self._agreement(a, self.held[a]) if self.n_events[a] else 0
        if b >= 0:
            new_b = self._agreement(b, self.held[b]) if self.n_events[b] else 0
        delta = (new_a - self.agree[a]) + ((new_b - self.agree[b]) if b >= 0 else 0)
        if new_a >= 0 and new_b >= 0 and (delta >= 0 or (<double>_below(&self.rng, 1 << 30)) / (1 << 30)
                                           < exp(self.weight * delta)):
            self.chain[i], self.chain[j] = y, x
            self.agree[a] = new_a
            if b >= 0:
                self.agree[b] = new_b
            return
        self.held[a][y] -= 1
        self.held[a][x] += 1
        if b >= 0:
            self.held[b][x] -= 1
            self.held[b][y] += 1

    cdef void _determinize(self, FcGame* s) noexcept nogil:
        """Deal the hidden cards: the chain's next deal of the other hands (``mixing``
        Metropolis steps on from the last: the deals in which the rule-based player
        would have made each seat's choices of this round come up most), then the
        stock at random from the rest."""
        cdef int i, p
        if not self.chain_ready:
            self._chain_start()
        for i in range(self.mixing):
            self._chain_step()
        memcpy(s, &self.root, sizeof(FcGame))
        for p in range(s.n):
            if p != self.me:
                memcpy(s.hands[p], self.held[p], FC_KINDS)
        self._shuffle_tail(self.chain, self.rest_at, self.pool_n)
        for i in range(s.stock_n):
            s.stock[i] = self.chain[self.rest_at + i]
        s.rng = _splitmix_next(&self.rng)

    cdef double _playout(self, FcGame* s, int action) noexcept nogil:
        """Apply ``action`` and play the round out; the seat's score in [0, 1]."""
        cdef const FcTables* t = _t
        cdef int legal[128]
        cdef int64_t before[4]
        cdef int p, n_legal, chosen, offer, start, n = s.n, winners = 0
        cdef double mean_others, reward, mine
        cdef int64_t top
        for p in range(n):
            before[p] = s.totals[p]
        start = s.round
        _sim_apply(s, action)
        while s.phase != FC_OVER and s.round == start:
            p = s.current
            n_legal = _sim_legal(s, legal)
            if n_legal == 0:
                break
            offer = s.offer_card if s.phase == FC_CLAIM else -1
            if p == self.me and offer < 0 and self.own_playout == 2:
                chosen = _sim_lookahead_shortlist(s, p, legal, n_legal)
            else:
                chosen = _fc_greedy(t, s.hands[p], s.exposed_points[p], s.threshold, offer,
                                    s.offer_source != FC_TURNED or s.offer_player != p, legal, n_legal)
            _sim_apply(s, chosen)
        if s.phase == FC_OVER:  # the game's end: its share of the win
            top = s.totals[0]
            for p in range(n):
                if s.totals[p] > top:
                    top = s.totals[p]
            for p in range(n):
                winners += s.totals[p] == top
            return (1.0 / winners) if s.totals[self.me] == top else 0.0
        mine = <double>(s.totals[self.me] - before[self.me])
        mean_others = 0.0
        for p in range(n):
            if p != self.me:
                mean_others += <double>(s.totals[p] - before[p])
        mean_others /= n - 1
        reward = 0.5 + (mine - mean_others) / (2.0 * self.scale)
        return 0.0 if reward < 0.0 else 1.0 if reward > 1.0 else reward

    cdef void _round(self) noexcept nogil:
        cdef FcGame deal, s
        cdef int a, i, j, k, keep
        cdef double mean_i, mean_j, base = 0.0, d
        cdef double score[128]
        self._determinize(&deal)
        for a in range(self.n_alive):
            i = self.alive[a]
            memcpy(&s, &deal, sizeof(FcGame))
            score[i] = self._playout(&s, self.actions[i])
            self.totals[i] += score[i]
            self.visits[i] += 1
            self.iterations += 1
            if i == self.baseline:
                base = score[i]
        if self.baseline >= 0:
            for a in range(self.n_alive):
                i = self.alive[a]
                d = score[i] - base
                self.gain[i] += d
                self.gain_sq[i] += d * d
                self.paired[i] += 1
        self.rounds += 1
        if self.rounds >= self.next_cut and self.n_alive > 2:
            for a in range(1, self.n_alive):  # best mean first (insertion sort)
                i = self.alive[a]
                mean_i = self.totals[i] / self.visits[i]
                k = a - 1
                while k >= 0:
                    j = self.alive[k]
                    mean_j = self.totals[j] / self.visits[j]
                    if mean_j >= mean_i:
                        break
                    self.alive[k + 1] = j
                    k -= 1
                self.alive[k + 1] = i
            keep = (self.n_alive + 1) // 2
            if keep < 2:
                keep = 2
            if self.baseline >= 0:  # the baseline stays in (last, in place of the weakest kept)
                for a in range(self.n_alive):
                    if self.alive[a] == self.baseline:
                        if a >= keep:
                            self.alive[a] = self.alive[keep - 1]
                            self.alive[keep - 1] = self.baseline
                        break
            self.n_alive = keep
            self.next_cut *= 2

    def run(self, iterations):
        """Play rounds until ``iterations`` more playouts are done (a round plays every
        action still in), without the GIL; the playouts so far."""
        cdef long target
        if not self.ready:
            raise RuntimeError("reset() the search first")
        if self.busy:
            raise RuntimeError("this FcSearch is searching in another thread")
        if iterations < 0:
            raise ValueError("iterations must be at least 0")
        target = self.iterations + iterations
        self.busy = True
        try:
            with nogil:
                while self.iterations < target:
                    self._round()
        finally:
            self.busy = False
        return self.iterations

    def set_baseline(self, int action):
        """Compare every action with ``action`` (one of the legal ones: the rule-based
        player's choice) on the same deals, and never set it aside. Before ``run``."""
        cdef int i
        if not self.ready:
            raise RuntimeError("reset() the search first")
        for i in range(self.n_actions):
            if self.actions[i] == action:
                self.baseline = i
                return
        raise ValueError(f"the baseline {action} is not a legal action")

    def choice(self, double margin):
        """The action to play: the best mean among the actions still in, when its gain
        over the baseline on the same deals is above ``margin`` standard errors (else
        the baseline, a gain lost in the noise); the best mean when there is no baseline."""
        cdef int i, best = -1
        cdef double mean, var, n
        if not self.ready:
            raise RuntimeError("reset() the search first")
        for i in range(self.n_actions):
            if self.visits[i] and (best < 0 or self.totals[i] / self.visits[i] > self.totals[best] / self.visits[best]):
                if any(self.alive[a] == i for a in range(self.n_alive)):
                    best = i
        if best < 0:
            return self.actions[self.baseline if self.baseline >= 0 else 0]
        if self.baseline < 0 or best == self.baseline:
            return self.actions[best]
        n = self.paired[best]
        if n < 2:
            return self.actions[self.baseline]
        mean = self.gain[best] / n
        var = (self.gain_sq[best] - n * mean * mean) / (n - 1)
        if mean > 0 and mean * mean * n > margin * margin * (var if var > 0 else 0.0):
            return self.actions[best]
        return self.actions[self.baseline]

    def settled(self, double margin):
        """Whether more rounds would hardly change :meth:`choice` at ``margin``: every action
        still in is, on the same deals, no better than the baseline by a standard error
        (the baseline stays the choice), or the best is ahead of it by twice ``margin``
        standard errors (it is the choice). False without a baseline."""
        cdef int a, i
        cdef double n, mean, error, lead, best_lead = 0.0
        cdef bint all_behind = True
        if not self.ready:
            raise RuntimeError("reset() the search first")
        if self.baseline < 0 or self.rounds == 0:
            return False
        for a in range(self.n_alive):
            i = self.alive[a]
            if i == self.baseline:
                continue
            n = self.paired[i]
            if n < 2:
                return False
            mean = self.gain[i] / n
            error = (self.gain_sq[i] - n * mean * mean) / (n - 1)
            error = sqrt(error / n) if error > 0 else 0.0
            if mean + error > 0:
                all_behind = False
            if mean > 0:
                lead = 1e300 if error == 0 else mean / error
                if lead > best_lead:
                    best_lead = lead
        return all_behind or best_lead > 2 * margin

    def sample_hands(self):
        """The chain's next deal of the other hands (as the search's playouts get
        them): 28 counts a seat, the seat's own hand at its place."""
        cdef FcGame s
        if not self.ready:
            raise RuntimeError("reset() the search first")
        if self.busy:
            raise RuntimeError("this FcSearch is searching in another thread")
        self.busy = True
        try:
            with nogil:
                self._determinize(&s)
        finally:
            self.busy = False
        return [[s.hands[p][k] for k in range(FC_KINDS)] for p in range(s.n)]

    @property
    def rounds_played(self):
        """Rounds of the search so far (each plays every action still in on one deal)."""
        return self.rounds

    def statistics(self):
        """``[(action, playouts, mean score)]``: the actions still in first, best mean first."""
        if not self.ready:
            raise RuntimeError("reset() the search first")
        alive = {self.alive[i] for i in range(self.n_alive)}
        rows = [(self.actions[i], self.visits[i], self.totals[i] / self.visits[i] if self.visits[i] else 0.0,
                 i in alive) for i in range(self.n_actions)]
        rows.sort(key=lambda row: (not row[3], -row[2], row[0]))
        return [row[:3] for row in rows]
