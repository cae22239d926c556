# cython: language_level=3
"""The compiled Gang of Four random playouts: a match in progress played on to
its end with uniformly random legal actions, many times, without the GIL
(``fourcards.gangoffour.simulate.random_playouts``).  The matches are the
simulator's (``_sim.pxd``), compiled in.
"""

from libc.stdint cimport uint64_t, int32_t
from libc.stdlib cimport malloc, free

import numpy as np

from fourcards._common cimport fc_popcount64, _below
from fourcards.gangoffour._gof cimport (
    GofTables, GofRules, GofMatch, N_KINDS, PHASE_PLAY, PHASE_GIVE_BACK, PHASE_OVER, MAX_LEGAL,
    _additive, _canon,
)
from fourcards.gangoffour._combos cimport gof_tables, _index, _as_mask, _as_action, _as_size
from fourcards.gangoffour._sim cimport _rules_of, _log_action, _log_array, _sim_legal, _sim_apply

from fourcards.gangoffour import _deck

cdef const GofTables* _t = gof_tables()
cdef object _TWO_64 = 1 << 64

#: Steps one playout may take before it is abandoned (a safety net: a match of
#: legal moves ends long before; see ``GangOfFour.max_game_length``).
MAX_PLAYOUT_STEPS = 1 << 22
cdef long _MAX_PLAYOUT_STEPS = MAX_PLAYOUT_STEPS


def gof_random_playouts(dict rules not None, hands, totals, round_, dealer, direction, phase,
                        current, table, table_player, passed, announced, out, bint m1_lead,
                        played, loser, given, returned, match_rng, playouts, seed,
                        bint record=False):
    """Play the match on to its end ``playouts`` times with uniformly random
    legal actions, without the GIL; returns ``(mean_returns, actions)``.

    The match is given field by field as ``fourcards.gangoffour.match.MatchState``
    holds it (``played`` a canonical mask; ``match_rng`` the state of the
    match's generator, which deals the later rounds: every playout continues
    from it).  Each action is ``legal[below(len(legal))]`` of the sorted legal
    actions, drawn from one SplitMix64 stream seeded with ``seed`` across the
    playouts, exactly as ``Rng(seed).below`` would.  ``mean_returns`` is a
    float64 array (``MatchState.returns`` averaged); ``actions`` (with
    ``record``) lists each playout's actions as an int32 array, else None.
    """
    cdef GofRules r
    cdef GofMatch root, m
    cdef int n_players, p, n, action, size
    cdef uint64_t additive = 0, rng_state, policy_rng
    cdef int cards = 0
    cdef long c_playouts, i, k
    cdef double share
    cdef bint stuck = False, too_long = False, out_of_memory = False
    cdef int32_t legal[MAX_LEGAL]
    cdef int32_t* action_log = NULL
    cdef Py_ssize_t log_capacity = 0
    cdef const GofTables* t = _t
    if not t.ready:
        raise RuntimeError("the Gang of Four tables are not loaded")
    r = _rules_of(rules)
    n_players = r.players
    c_playouts = <long>_as_size(playouts, "playouts", 1, 2**31 - 1)
    if not 0 <= _index(seed, "seed") < _TWO_64:
        raise _deck.range_error("seed", seed, 0, 2**64 - 1)
    if not 0 <= _index(match_rng, "match_rng") < _TWO_64:
        raise _deck.range_error("match_rng", match_rng, 0, 2**64 - 1)
    for name, values in (("hands", hands), ("totals", totals)):
        if len(values) != n_players:
            raise ValueError(f"{name} lists {len(values)} seats, not {n_players}")
    root.rules = r
    root.rng = <uint64_t>match_rng
    root.round = <int>_as_size(round_, "round_", 1, 2**31 - 1)
    root.dealer = <int>_as_size(dealer, "dealer", 0, n_players - 1)
    if _index(direction, "direction") not in (1, -1):
        raise ValueError(f"direction={direction} is not 1 or -1")
    root.direction = direction
    root.phase = <int>_as_size(phase, "phase", PHASE_PLAY, PHASE_GIVE_BACK)
    root.current = <int>_as_size(current, "current", 0, n_players - 1)
    root.table = _as_action(table, "table")
    root.table_player = <int>_as_size(table_player, "table_player", -1, n_players - 1)
    if (root.table < 0) != (root.table_player < 0):
        raise ValueError(f"table={table} and table_player={table_player}: both -1 or neither")
    seats = (1 << n_players) - 1
    root.passed = <unsigned int>_as_size(passed, "passed", 0, seats)
    root.announced = <unsigned int>_as_size(announced, "announced", 0, seats)
    root.out = <unsigned int>_as_size(out, "out", 0, seats)
    root.m1_lead = m1_lead
    root.played = _additive(t, _as_mask(played))
    root.loser = <int>_as_size(loser, "loser", -1, n_players - 1)
    root.given = <int>_as_size(given, "given", -1, N_KINDS - 1)
    root.returned = <int>_as_size(returned, "returned", -1, N_KINDS - 1)
    root.winners = 0
    root.steps = 0
    for p in range(4):
        root.hands[p] = 0
        root.totals[p] = 0
    for p in range(n_players):
        root.hands[p] = _as_mask(hands[p])
        root.totals[p] = <int>_as_size(totals[p], f"totals[{p}]", 0, 2**31 - 1)
        size = fc_popcount64(root.hands[p])
        if ((root.out >> p) & 1) != (size == 0):
            raise ValueError(f"seat {p} holds {size} cards but is {'' if (root.out >> p) & 1 else 'not '}out")
        additive += _additive(t, root.hands[p])
        cards += size
    additive += root.played
    cards += fc_popcount64(_as_mask(played))
    if fc_popcount64(_canon(t, additive)) != cards or cards > 64:
        raise _deck.ImpossibleCardsError("the hands and the played cards hold some card more often than the deck")
    if (root.out >> root.current) & 1:
        raise ValueError(f"current={current} is out of the round")
    if root.phase == PHASE_GIVE_BACK and (root.loser < 0 or root.loser == root.current or root.table >= 0):
        raise ValueError("a give-back needs a loser other than the current player and an empty table")
    if record:
        log_capacity = 4096
        action_log = <int32_t*>malloc(log_capacity * sizeof(int32_t))
        if action_log == NULL:
            raise MemoryError()
    sums = np.zeros(n_players, dtype=np.float64)
    cdef double[::1] sums_view = sums
    logs = [] if record else None
    policy_rng = <uint64_t>seed
    try:
        for i in range(c_playouts):
            with nogil:
                m = root
                while m.phase != PHASE_OVER:
                    n = _sim_legal(t, &m, legal)
                    if n == 0:
                        stuck = True
                        break
                    if m.steps >= _MAX_PLAYOUT_STEPS:
                        too_long = True
                        break
                    action = legal[_below(&policy_rng, <uint64_t>n)]
                    if record and not _log_action(&action_log, &log_capacity, m.steps, action):
                        out_of_memory = True
                        break
                    _sim_apply(t, &m, action)
                if not (stuck or too_long or out_of_memory):
                    share = 1.0 / fc_popcount64(m.winners)
                    for p in range(n_players):
                        sums_view[p] += (share if (m.winners >> p) & 1 else 0.0) - 1.0 / n_players
            if stuck:
                raise ValueError("the match has no legal action for the player to act (an inconsistent state)")
            if too_long:
                raise ValueError(f"a playout took more than {MAX_PLAYOUT_STEPS} steps")
            if out_of_memory:
                raise MemoryError("no memory left for the action log")
            if record:
                logs.append(_log_array(action_log, m.steps))
    finally:
        free(action_log)
    return sums / c_playouts, logs
