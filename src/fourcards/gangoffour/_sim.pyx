# cython: language_level=3
"""The compiled Gang of Four match simulator: whole matches in C, without the GIL.

The rules are those of ``fourcards.gangoffour.match`` (the readable engine,
which the tests compare move for move); the steps are in ``_sim.pxd``, inlined
here and by the search, the playouts and the vector environment.
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint8_t
from libc.string cimport memcpy
from libc.stdlib cimport malloc, free

import numpy as np
cimport numpy as cnp

from fourcards._common cimport _seed_stream
from fourcards.gangoffour._gof cimport (
    GofTables, GofRules, GofMatch, PHASE_OVER, MAX_LEGAL, POLICY_RANDOM, POLICY_GREEDY,
)
from fourcards.gangoffour._combos cimport gof_tables, _as_size
from fourcards.gangoffour._bots cimport _choose

cnp.import_array()

cdef const GofTables* _t = gof_tables()

# The action constants and the GofRules / GofMatch structs are declared in _gof.pxd,
# the steps of a match in _sim.pxd (so other compiled modules, such as _vector,
# can drive matches).


cdef GofRules _rules_of(dict rules) except *:
    """The ``GofRules`` struct from ``fourcards.gangoffour._kernels.pack_rules``
    (a dict by field name), checked."""
    cdef GofRules r
    names = ("players", "target", "dealer", "pass_is_final", "manual", "may_pass", "chinese")
    if sorted(rules) != sorted(names):
        raise ValueError(f"rules must give exactly the fields {', '.join(names)}; got {sorted(map(str, rules))}")
    for name in names:  # ints only: Cython's struct conversion would truncate floats
        _as_size(rules[name], f"rules[{name!r}]", 0, 2**31 - 1)
    r = rules
    if not 2 <= r.players <= 4:
        raise ValueError(f"players={r.players} is not 2..4")
    if r.target < 1:
        raise ValueError(f"target={r.target} must be positive")
    if not 0 <= r.dealer < r.players:
        raise ValueError(f"dealer={r.dealer} is not a seat of {r.players} players")
    return r


cdef object _log_array(const int32_t* log, int steps):
    """A match's actions (``steps`` of them from ``log``) as a new int32 array."""
    cdef cnp.npy_intp dims[1]
    dims[0] = steps
    result = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT32, 0)
    if steps:
        memcpy(cnp.PyArray_DATA(result), log, steps * sizeof(int32_t))
    return result


def gof_simulate(const uint64_t[::1] seeds not None, policies, dict rules not None, bint record=False):
    """Play one match per seed between policies (0 random, 1 greedy), without the GIL.

    ``rules`` is ``pack_rules(Rules)``: the ``GofRules`` fields by name.  Seat ``p``'s
    random policy draws from ``Rng(derive_seed(seed, p + 1))``.  Returns
    ``(scores, winners, rounds, steps, actions)``: ``int32 (N, players)``,
    ``bool (N, players)``, ``int32 (N,)``, ``int64 (N,)`` and, with
    ``record``, a list of ``int32`` action arrays (else ``None``).
    """
    cdef GofRules r
    cdef int c_policies[4]
    cdef Py_ssize_t i, count = seeds.shape[0]
    cdef int p, players
    cdef GofMatch m
    cdef uint64_t policy_rng[4]
    cdef int32_t legal[MAX_LEGAL]
    cdef int n, action
    cdef const GofTables* t = _t
    if not t.ready:
        raise RuntimeError("the Gang of Four tables are not loaded")
    r = _rules_of(rules)
    players = r.players
    if not 2 <= players <= 4 or len(policies) != players:
        raise ValueError(f"need 2..4 players and a policy per seat, got {players} and {len(policies)}")
    for p in range(players):
        if policies[p] not in (POLICY_RANDOM, POLICY_GREEDY):
            raise ValueError(f"policy {policies[p]!r} is not 0 (random) or 1 (greedy)")
        c_policies[p] = policies[p]
    scores = np.zeros((count, players), dtype=np.int32)
    winners = np.zeros((count, players), dtype=np.bool_)
    rounds = np.zeros(count, dtype=np.int32)
    steps = np.zeros(count, dtype=np.int64)
    cdef int32_t[:, ::1] scores_view = scores
    cdef uint8_t[:, ::1] winners_view = winners.view(np.uint8)
    cdef int32_t[::1] rounds_view = rounds
    cdef int64_t[::1] steps_view = steps
    logs = [] if record else None
    cdef int32_t* action_log = NULL
    cdef Py_ssize_t log_capacity = 0
    cdef bint out_of_memory = False
    if record:
        log_capacity = 4096
        action_log = <int32_t*>malloc(log_capacity * sizeof(int32_t))
        if action_log == NULL:
            raise MemoryError()
    try:
        for i in range(count):
            with nogil:
                _sim_new(t, &m, r, seeds[i])
                for p in range(4):
                    policy_rng[p] = _seed_stream(seeds[i], p + 1)
                while m.phase != PHASE_OVER:
                    n = _sim_legal(t, &m, legal)
                    action = _choose(t, &m, c_policies[m.current], &policy_rng[m.current], legal, n)
                    if record and not _log_action(&action_log, &log_capacity, m.steps, action):
                        out_of_memory = True
                        break
                    _sim_apply(t, &m, action)
                for p in range(players):
                    scores_view[i, p] = m.totals[p]
                    winners_view[i, p] = (m.winners >> p) & 1
                rounds_view[i] = m.round
                steps_view[i] = m.steps
            if out_of_memory:
                raise MemoryError("no memory left for the action log")
            if record:
                logs.append(_log_array(action_log, m.steps))
    finally:
        free(action_log)
    return scores, winners, rounds, steps, logs

