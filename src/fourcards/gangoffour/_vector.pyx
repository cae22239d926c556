# cython: language_level=3
"""Many Gang of Four matches stepped together in C (behind ``fourcards.rl.VectorGangOfFour``).

One or more learning seats per match (all of them: self-play); the other seats
are built-in policies that move inside C.  The matches are the compiled simulator's (``_sim.pxd``: ``_sim_new``,
``_sim_legal``, ``_sim_apply``; ``_bots.pxd``: ``_choose``), which the tests compare move for
move with the Python engine.  Observations are written in the layout of
``MatchState.observation_tensor`` and legal-action masks as bools or bits
(``np.packbits`` order).  Batch loops release the GIL; the Python wrapper
checks every input before anything here runs.
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint8_t
from libc.string cimport memset, memcpy
from libc.stdlib cimport malloc, calloc, free
from cpython.pythread cimport (
    PyThread_type_lock, PyThread_allocate_lock, PyThread_free_lock, PyThread_acquire_lock,
    PyThread_release_lock, WAIT_LOCK, NOWAIT_LOCK,
)

import os
import threading

import numpy as np
cimport numpy as cnp

from fourcards._common cimport fc_popcount64, fc_ctz64, _seed_stream
from fourcards.gangoffour._gof cimport (
    GofTables, GofRules, GofMatch, MATCH_WORDS,
    GIVE_BACK_BASE, ANNOUNCE_BASE, PHASE_GIVE_BACK, PHASE_OVER, MAX_LEGAL, POLICY_RANDOM, POLICY_GREEDY,
)
from fourcards.gangoffour._combos cimport gof_tables
from fourcards.gangoffour._sim cimport _sim_new, _sim_legal, _sim_apply, _rules_of, _match_to_words, _match_from_words
from fourcards.gangoffour._bots cimport _choose

cnp.import_array()

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <windows.h>
    static Py_ssize_t fc_fetch_add(Py_ssize_t* p, Py_ssize_t v) {
        return (Py_ssize_t)InterlockedExchangeAdd64((volatile LONG64*)p, (LONG64)v);
    }
    static void fc_relax(void) { YieldProcessor(); }
    static void fc_yield(void) { SwitchToThread(); }
    #else
    #include <sched.h>
    static void fc_yield(void) { sched_yield(); }
    static Py_ssize_t fc_fetch_add(Py_ssize_t* p, Py_ssize_t v) {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    #if defined(__x86_64__) || defined(__i386__)
    static void fc_relax(void) { __builtin_ia32_pause(); }
    #elif defined(__aarch64__) || defined(__arm__)
    static void fc_relax(void) { __asm__ __volatile__("yield"); }
    #else
    static void fc_relax(void) { }
    #endif
    #endif
    """
    Py_ssize_t fc_fetch_add(Py_ssize_t* p, Py_ssize_t v) noexcept nogil
    void fc_relax() noexcept nogil
    void fc_yield() noexcept nogil


cdef enum:
    OBS_SIZE = 217
    N_COMBOS = 12352
    HAND_SIZE = 16
    AGENT_POLICY = -1
    JOB_STEP = 0
    JOB_RESET = 1
    JOB_RESET_NEXT = 2
    MAX_PARTS = 64          # threads a batch may use (fourcards.rl.vector.MAX_THREADS)
    CAND_F = 50             # a candidate row (fourcards.gangoffour.features.FEATURE_SIZE)
    CAND_LEFT = 45          # its columns that depend on the hand, and the announce flag
    CAND_OUT = 46
    CAND_ANNOUNCE = 49

#: Length of an observation (``MatchState.observation_tensor``).
OBSERVATION_SIZE = OBS_SIZE

# -- the tables: the combination kernels' (``_combos``), filled by their gof_init ----
cdef const GofTables* _t = gof_tables()


def _load_tables():
    from fourcards.gangoffour import _kernels  # loads _combos' tables (gof_init)
    if _kernels.combos is None:  # FOURCARDS_NO_EXTENSIONS=1: the tables are not loaded
        raise ImportError("fourcards.gangoffour._vector needs the compiled kernels in use "
                          "(FOURCARDS_NO_EXTENSIONS is set)")
    if not _t.ready:
        raise ImportError("the Gang of Four tables are not loaded")


_load_tables()


# -- candidate rows (fourcards.gangoffour.features), loaded on first use -----------
cdef const float* _cand_rows = NULL      # STATIC_ROWS: ANNOUNCE_BASE rows of CAND_F
cdef const int32_t* _cand_sizes = NULL   # ACTION_SIZES
_cand_arrays = None                      # keeps the two arrays alive


def _load_candidate_tables():
    global _cand_rows, _cand_sizes, _cand_arrays
    if _cand_arrays is not None:
        return
    from fourcards.gangoffour import features
    rows = np.ascontiguousarray(features.STATIC_ROWS, dtype=np.float32)
    sizes = np.ascontiguousarray(features.ACTION_SIZES, dtype=np.int32)
    if rows.shape != (ANNOUNCE_BASE, CAND_F) or sizes.shape != (ANNOUNCE_BASE,):
        raise ImportError("the candidate tables do not match the compiled environment")
    _cand_arrays = (rows, sizes)
    _cand_rows = <const float*>cnp.PyArray_DATA(rows)
    _cand_sizes = <const int32_t*>cnp.PyArray_DATA(sizes)


cdef void _write_candidates(VecCore* v, Py_ssize_t i, const int32_t* legal, int n) noexcept nogil:
    """Env ``i``'s candidate rows (``features.action_rows`` of the acting seat's
    hand and legal actions, ``features.pick_rows`` when more than fit), their
    actions and count; the rows of the last call past the new count are zeroed."""
    cdef Py_ssize_t k = v.cand_k, j, idx
    cdef float* rows = v.cand_data + i * k * CAND_F
    cdef int32_t* acts = v.cand_action_data + i * k
    cdef int old = v.cand_count_data[i], count = n if n < k else <int>k
    cdef int a, base, left, held = fc_popcount64(v.matches[i].hands[v.matches[i].current])
    cdef float* row
    for j in range(count):
        idx = j if n <= k else <Py_ssize_t>((<int64_t>j * (n - 1)) // (k - 1))
        a = legal[idx]
        base = a - ANNOUNCE_BASE if a >= ANNOUNCE_BASE else a
        row = rows + j * CAND_F
        memcpy(row, _cand_rows + <Py_ssize_t>base * CAND_F, CAND_F * sizeof(float))
        left = held - _cand_sizes[base]
        row[CAND_LEFT] = <float>left / <float>HAND_SIZE
        row[CAND_OUT] = 1.0 if left == 0 and base < N_COMBOS else 0.0
        row[CAND_ANNOUNCE] = 1.0 if a >= ANNOUNCE_BASE else 0.0
        acts[j] = a
    for j in range(count, old):
        memset(rows + j * CAND_F, 0, CAND_F * sizeof(float))
        acts[j] = -1
    v.cand_count_data[i] = count


cdef void _observe(const GofMatch* m, int seat, float* out) noexcept nogil:
    """``MatchState.observation_tensor(seat)`` into ``out`` (OBS_SIZE floats)."""
    cdef const GofTables* t = _t
    cdef int n = m.rules.players, k, p
    cdef uint64_t rest
    memset(out, 0, OBS_SIZE * sizeof(float))
    rest = m.hands[seat]
    while rest:
        out[t.code_of_bit[fc_ctz64(rest)]] += 1.0
        rest &= rest - 1
    rest = m.played | ((m.played >> 1) & t.pair_lo)
    while rest:
        out[34 + t.code_of_bit[fc_ctz64(rest)]] += 1.0
        rest &= rest - 1
    if m.table >= 0:
        rest = t.masks[m.table]
        while rest:
            out[68 + t.code_of_bit[fc_ctz64(rest)]] += 1.0
            rest &= rest - 1
        out[102 + t.kind_of[m.table]] = 1.0
    for k in range(n):
        p = (seat + k) % n
        out[110 + k] = <float>(<double>fc_popcount64(m.hands[p]) / HAND_SIZE)
        out[114 + k] = <float>(<double>m.totals[p] / <double>m.rules.target)
        out[118 + k] = (m.passed >> p) & 1
        out[122 + k] = (m.announced >> p) & 1
        out[126 + k] = (m.out >> p) & 1
        out[130 + k] = p == m.current
        out[134 + k] = p == m.table_player
    out[138] = m.direction == 1
    out[139] = m.phase == PHASE_GIVE_BACK
    out[140] = m.m1_lead and m.table < 0
    if m.loser >= 0:  # an exchange this round: the loser gave, the winner (the dealer) returns
        out[141 + m.given] = 1.0
        if m.returned >= 0:
            out[175 + m.returned] = 1.0
        out[209 + (m.loser - seat + n) % n] = 1.0
        out[213 + (m.dealer - seat + n) % n] = 1.0


ctypedef struct VecCore:
    # Everything the C loops read and write (the buffers belong to GofVector's arrays).
    GofMatch* matches
    uint64_t* policy_rngs      # 4 a match
    uint64_t* env_seeds        # derive_seed(seed, i)
    uint64_t* legal_bits       # private copy of each env's legal actions (bits), for checking actions
    Py_ssize_t legal_words
    GofRules rules
    int policies[4]            # AGENT_POLICY at the learning seats
    int seat                   # the learning seat whose rewards and final observations are kept
    Py_ssize_t num_envs
    int num_actions
    bint packed
    Py_ssize_t mask_width
    float* obs_data
    float* final_obs_data      # the learning seat's observation when its last match ended
    float* returns_data        # every seat's returns() when the last match ended
    int32_t* acting_data       # the learning seat to act (whose observation and mask are written)
    uint8_t* mask_data
    float* reward_data
    uint8_t* done_data
    int64_t* episode_data
    int64_t* step_data
    int64_t* match_step_data
    uint64_t* seed_data
    int32_t* score_data
    int64_t* number_data
    Py_ssize_t cand_k          # candidate rows an env (0: none written)
    float* cand_data           # (n, cand_k, CAND_F)
    int32_t* cand_action_data  # (n, cand_k), -1 past the count
    int32_t* cand_count_data   # (n,)


ctypedef struct Share:
    # One thread's share of a batch: envs ``next..end-1``, taken ``chunk`` at a time
    # (by that thread, and by the others once theirs are done).  Padded to a cache
    # line of its own: each thread's counter is written by that thread alone almost always.
    Py_ssize_t next
    Py_ssize_t end
    char padding[48]


ctypedef struct Batch:
    # One call's work.  Thread ``k`` owns the same slice of envs at every call, so
    # its matches and buffer rows stay in its core's cache; a thread that is done
    # takes chunks of the others' slices, so none waits for a slow one.
    const int64_t* actions
    int job
    int parts
    Py_ssize_t chunk
    Share* shares


ctypedef struct Worker:
    VecCore* core
    Batch* batch
    int32_t* legal
    int part                   # its share of a batch (the calling thread's is 0)
    PyThread_type_lock start   # released by the caller: a batch is ready (or stop)
    PyThread_type_lock done    # released by the worker: its share is done (or it stopped)
    bint* stop
    int* spin


cdef void _begin(VecCore* v, Py_ssize_t i) noexcept nogil:
    """Start env ``i``'s match number ``number_data[i]``."""
    cdef uint64_t s = _seed_stream(v.env_seeds[i], <uint64_t>v.number_data[i])
    cdef int p
    v.seed_data[i] = s
    _sim_new(_t, &v.matches[i], v.rules, s)
    for p in range(4):
        v.policy_rngs[4 * i + p] = _seed_stream(s, <uint64_t>(p + 1))


cdef void _advance(VecCore* v, Py_ssize_t i, int32_t* legal) noexcept nogil:
    """Play the bots' seats until a learning seat is to act (starting the next
    match when one ends), then write its observation and mask."""
    cdef const GofTables* t = _t
    cdef GofMatch* m = &v.matches[i]
    cdef int n, action, p, players = v.rules.players, seat = v.seat
    cdef double reward = 0.0, share
    cdef bint done = False
    cdef uint8_t* row
    cdef uint64_t* bits = v.legal_bits + i * v.legal_words
    cdef uint64_t word
    cdef Py_ssize_t k, w
    while True:
        if m.phase == PHASE_OVER:
            share = 1.0 / fc_popcount64(m.winners)
            if (m.winners >> seat) & 1:
                reward += share
            reward -= 1.0 / players
            done = True
            for p in range(players):
                v.score_data[i * players + p] = m.totals[p]
                v.returns_data[i * players + p] = <float>((share if (m.winners >> p) & 1 else 0.0)
                                                          - 1.0 / players)
            v.match_step_data[i] = m.steps
            _observe(m, seat, v.final_obs_data + i * OBS_SIZE)
            v.episode_data[i] += 1
            v.number_data[i] += 1
            _begin(v, i)
            continue
        n = _sim_legal(t, m, legal)
        if v.policies[m.current] == AGENT_POLICY:
            break
        action = _choose(t, m, v.policies[m.current], &v.policy_rngs[4 * i + m.current], legal, n)
        _sim_apply(t, m, action)
        v.step_data[i] += 1
    v.reward_data[i] = <float>reward
    v.done_data[i] = done
    v.acting_data[i] = m.current
    _observe(m, m.current, v.obs_data + i * OBS_SIZE)
    row = v.mask_data + i * v.mask_width
    if v.packed:
        memset(row, 0, v.mask_width)
        for k in range(n):
            row[legal[k] >> 3] |= <uint8_t>(0x80 >> (legal[k] & 7))
    else:
        # Clear only the entries the last mask set (the private bits list them):
        # a few cache lines instead of the whole 12 KB row.  The public rows are
        # read-only views, so nothing else writes them.
        for w in range(v.legal_words):
            word = bits[w]
            while word:
                row[(w << 6) + fc_ctz64(word)] = 0
                word &= word - 1
        for k in range(n):
            row[legal[k]] = 1
    memset(bits, 0, v.legal_words * sizeof(uint64_t))
    for k in range(n):
        bits[legal[k] >> 6] |= (<uint64_t>1) << (legal[k] & 63)
    if v.cand_k > 0:
        _write_candidates(v, i, legal, n)


cdef void _run_env(VecCore* v, const Batch* b, Py_ssize_t i, int32_t* legal) noexcept nogil:
    if b.job == JOB_STEP:
        _sim_apply(_t, &v.matches[i], <int>b.actions[i])
        v.step_data[i] += 1
    else:
        if b.job == JOB_RESET_NEXT:
            v.number_data[i] += 1
        _begin(v, i)
    _advance(v, i, legal)


cdef Py_ssize_t _run_batch(VecCore* v, Batch* b, int part, int32_t* legal) noexcept nogil:
    """Thread ``part``'s share of the batch, then chunks of the others' until none is
    left; the envs this thread did."""
    cdef Py_ssize_t i, lo, hi, count = 0
    cdef int k, j
    cdef Share* share
    for k in range(b.parts):
        j = (part + k) % b.parts
        share = &b.shares[j]
        while True:
            lo = fc_fetch_add(&share.next, b.chunk)
            if lo >= share.end:
                break
            hi = min(lo + b.chunk, share.end)
            for i in range(lo, hi):
                _run_env(v, b, i, legal)
            count += hi - lo
    return count


cdef Py_ssize_t _first_illegal(const VecCore* v, const int64_t* actions) noexcept nogil:
    """The first env whose action is out of range, else the first whose action is not
    legal (from the legal actions kept when the mask was written), else -1."""
    cdef Py_ssize_t i, bad = -1
    cdef int64_t a
    for i in range(v.num_envs):
        a = actions[i]
        if a < 0 or a >= v.num_actions:
            return i
        if bad < 0 and (v.policies[v.matches[i].current] != AGENT_POLICY
                        or not (v.legal_bits[i * v.legal_words + (a >> 6)] >> (a & 63)) & 1):
            bad = i
    return bad


cdef void _take(PyThread_type_lock lock, int spin) noexcept nogil:
    """Acquire ``lock``: ``spin`` tries (a pause after each), then asleep."""
    cdef int tries
    for tries in range(spin):
        if PyThread_acquire_lock(lock, NOWAIT_LOCK):
            return
        fc_relax()
    PyThread_acquire_lock(lock, WAIT_LOCK)


cdef void _await(PyThread_type_lock lock, int spin) noexcept nogil:
    """The calling thread waits for a helper that is working: ``spin`` tries, each
    after a pause, giving the core away every 32 (so that on a busy machine the
    helper can run), then asleep.  Sleeping here would add a wake-up to every call."""
    cdef int tries
    for tries in range(spin):
        if PyThread_acquire_lock(lock, NOWAIT_LOCK):
            return
        if tries & 31 == 31:
            fc_yield()
        else:
            fc_relax()
    PyThread_acquire_lock(lock, WAIT_LOCK)


cdef void _serve(Worker* w) noexcept nogil:
    """A worker thread's life: wait for a batch, do a share of it, report; until stopped."""
    while True:
        _take(w.start, w.spin[0])
        if w.stop[0]:
            PyThread_release_lock(w.done)
            return
        _run_batch(w.core, w.batch, w.part, w.legal)
        PyThread_release_lock(w.done)


class IllegalAction(ValueError):
    """``GofVector.run`` refused a step: env ``env``'s action is out of range or
    not legal (the first such env); nothing was played."""

    def __init__(self, env):
        super().__init__(f"env {env}: the action is not legal")
        self.env = env


cdef class GofVector:
    """The C side of ``fourcards.rl.VectorGangOfFour`` (checked there, unchecked here).

    Env ``i``'s match ``k`` has seed ``derive_seed(derive_seed(seed, i), k)``;
    in a match with seed ``s`` a random seat ``p`` draws from
    ``Rng(derive_seed(s, p + 1))``, as ``fourcards.gangoffour.simulate`` does.

    ``run(job, actions, threads, chunk)`` does a batch, in this thread alone or
    with ``threads - 1`` helper threads that live as long as the instance
    (or until ``stop_workers()``): each waits on a lock without the GIL, takes
    chunks of envs from a shared counter, and hands back through another lock.
    """

    cdef VecCore core
    cdef Batch batch
    cdef Share shares[MAX_PARTS]
    cdef int32_t* legal             # the calling thread's legal-action buffer
    cdef Worker* workers
    cdef int n_workers
    cdef bint stop
    cdef bint busy
    cdef bint started               # a reset job has run: the matches exist
    # Tries at a lock before sleeping on it (a pause each, some tens of nanoseconds):
    # a short spin, since a long one slows the other threads of a busy machine.
    cdef public int spin
    cdef public int await_spin
    cdef object worker_threads
    cdef object worker_pid
    cdef readonly int seat
    cdef readonly Py_ssize_t num_envs
    cdef readonly int num_actions
    cdef readonly bint packed
    cdef readonly object observations, final_observations, final_returns, acting_seats, masks, rewards, dones, episodes, steps, match_steps, seeds, final_scores
    cdef readonly object match_numbers
    cdef object arguments           # what __cinit__ was given (for pickling)
    cdef readonly object candidates, candidate_actions, candidate_counts

    def __cinit__(self, Py_ssize_t num_envs, uint64_t seed, dict rules not None, policies, int seat,
                  bint packed, Py_ssize_t candidates=0):
        cdef Py_ssize_t i
        cdef int p
        cdef VecCore* v = &self.core
        memset(v, 0, sizeof(VecCore))
        self.arguments = (num_envs, seed, dict(rules), list(policies), seat, packed, candidates)
        self.legal = NULL
        self.workers = NULL
        self.n_workers = 0
        self.worker_threads = []
        self.spin = 200
        self.await_spin = 20000
        v.rules = _rules_of(rules)
        if num_envs < 1:
            raise ValueError(f"num_envs={num_envs} must be at least 1")
        if not 0 <= seat < v.rules.players:
            raise ValueError(f"seat {seat} is not a seat of {v.rules.players} players")
        if len(policies) != v.rules.players:
            raise ValueError(f"need a policy per seat, got {len(policies)}")
        for p in range(4):
            v.policies[p] = AGENT_POLICY
        for p in range(v.rules.players):
            if policies[p] not in (AGENT_POLICY, POLICY_RANDOM, POLICY_GREEDY):
                raise ValueError(f"policy {policies[p]!r} of seat {p} is not -1 (learning), 0 (random) "
                                 "or 1 (greedy)")
            v.policies[p] = policies[p]
        if v.policies[seat] != AGENT_POLICY:
            raise ValueError(f"seat {seat} must be a learning seat (policy -1)")
        v.seat = self.seat = seat
        v.num_envs = self.num_envs = num_envs
        v.num_actions = self.num_actions = ANNOUNCE_BASE + (N_COMBOS if v.rules.manual else 0)
        v.packed = self.packed = packed
        v.mask_width = (self.num_actions + 7) // 8 if packed else self.num_actions
        v.matches = <GofMatch*>calloc(num_envs, sizeof(GofMatch))
        v.policy_rngs = <uint64_t*>calloc(num_envs * 4, sizeof(uint64_t))
        v.env_seeds = <uint64_t*>malloc(num_envs * sizeof(uint64_t))
        v.legal_words = (self.num_actions + 63) // 64
        v.legal_bits = <uint64_t*>calloc(num_envs * v.legal_words, sizeof(uint64_t))
        self.legal = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
        if (v.matches == NULL or v.policy_rngs == NULL or v.env_seeds == NULL or v.legal_bits == NULL
                or self.legal == NULL):
            raise MemoryError(f"no memory for {num_envs} matches")
        for i in range(num_envs):
            v.env_seeds[i] = _seed_stream(seed, <uint64_t>i)
        self.observations = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self.final_observations = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self.final_returns = np.zeros((num_envs, v.rules.players), dtype=np.float32)
        self.acting_seats = np.zeros(num_envs, dtype=np.int32)
        self.masks = np.zeros((num_envs, v.mask_width), dtype=np.uint8 if packed else np.bool_)
        self.rewards = np.zeros(num_envs, dtype=np.float32)
        self.dones = np.zeros(num_envs, dtype=np.bool_)
        self.episodes = np.zeros(num_envs, dtype=np.int64)
        self.steps = np.zeros(num_envs, dtype=np.int64)
        self.match_steps = np.zeros(num_envs, dtype=np.int64)
        self.seeds = np.zeros(num_envs, dtype=np.uint64)
        self.final_scores = np.zeros((num_envs, v.rules.players), dtype=np.int32)
        self.match_numbers = np.zeros(num_envs, dtype=np.int64)
        v.obs_data = <float*>cnp.PyArray_DATA(self.observations)
        v.final_obs_data = <float*>cnp.PyArray_DATA(self.final_observations)
        v.returns_data = <float*>cnp.PyArray_DATA(self.final_returns)
        v.acting_data = <int32_t*>cnp.PyArray_DATA(self.acting_seats)
        v.mask_data = <uint8_t*>cnp.PyArray_DATA(self.masks)
        v.reward_data = <float*>cnp.PyArray_DATA(self.rewards)
        v.done_data = <uint8_t*>cnp.PyArray_DATA(self.dones)
        v.episode_data = <int64_t*>cnp.PyArray_DATA(self.episodes)
        v.step_data = <int64_t*>cnp.PyArray_DATA(self.steps)
        v.match_step_data = <int64_t*>cnp.PyArray_DATA(self.match_steps)
        v.seed_data = <uint64_t*>cnp.PyArray_DATA(self.seeds)
        v.score_data = <int32_t*>cnp.PyArray_DATA(self.final_scores)
        v.number_data = <int64_t*>cnp.PyArray_DATA(self.match_numbers)
        self._init_candidates(candidates)

    cdef void _init_candidates(self, Py_ssize_t k) except *:
        """The candidate buffers (``k`` rows an env; none when ``k`` is 0)."""
        cdef VecCore* v = &self.core
        if k != 0 and k < 2:
            raise ValueError(f"candidates={k} must be 0 (none) or at least 2")
        if k:
            _load_candidate_tables()
        self.candidates = np.zeros((v.num_envs, k, CAND_F), dtype=np.float32)
        self.candidate_actions = np.full((v.num_envs, k), -1, dtype=np.int32)
        self.candidate_counts = np.zeros(v.num_envs, dtype=np.int32)
        v.cand_k = k
        v.cand_data = <float*>cnp.PyArray_DATA(self.candidates)
        v.cand_action_data = <int32_t*>cnp.PyArray_DATA(self.candidate_actions)
        v.cand_count_data = <int32_t*>cnp.PyArray_DATA(self.candidate_counts)

    def __dealloc__(self):
        # Live workers hold a reference to this object (their thread's target), so
        # they have stopped by now, or never existed in this process (a fork).
        self._free_workers()
        free(self.core.matches)
        free(self.core.policy_rngs)
        free(self.core.env_seeds)
        free(self.core.legal_bits)
        free(self.legal)

    # -- pickling ----------------------------------------------------------------------
    _BUFFERS = ("observations", "final_observations", "final_returns", "acting_seats", "masks", "rewards",
                "dones", "episodes", "steps", "match_steps", "seeds", "final_scores", "match_numbers",
                "candidates", "candidate_actions", "candidate_counts")

    def __reduce__(self):
        """Pickled whole: every match, the bots' generators, the legal actions kept for
        checking steps, and the buffers; the helper threads are not (a call with
        ``threads > 1`` starts them again)."""
        cdef Py_ssize_t i
        cdef VecCore* v = &self.core
        if self.busy:
            raise RuntimeError("this environment is being stepped by another thread")
        cdef cnp.ndarray[cnp.uint64_t, ndim=2] matches = np.empty((self.num_envs, MATCH_WORDS), dtype=np.uint64)
        for i in range(self.num_envs):
            _match_to_words(&v.matches[i], <uint64_t*>cnp.PyArray_GETPTR2(matches, i, 0))
        rngs = np.array(<uint64_t[:self.num_envs * 4]>v.policy_rngs, dtype=np.uint64)
        bits = np.array(<uint64_t[:self.num_envs * v.legal_words]>v.legal_bits, dtype=np.uint64)
        buffers = {name: getattr(self, name).copy() for name in self._BUFFERS}
        state = (matches, rngs, bits, buffers, self.started, self.spin, self.await_spin)
        return GofVector, self.arguments, state

    def __setstate__(self, state):
        cdef Py_ssize_t i
        cdef VecCore* v = &self.core
        matches_in, rngs_in, bits_in, buffers, started, spin, await_spin = state
        cdef cnp.ndarray[cnp.uint64_t, ndim=2] matches = np.ascontiguousarray(matches_in, dtype=np.uint64)
        cdef cnp.ndarray[cnp.uint64_t, ndim=1] rngs = np.ascontiguousarray(rngs_in, dtype=np.uint64)
        cdef cnp.ndarray[cnp.uint64_t, ndim=1] bits = np.ascontiguousarray(bits_in, dtype=np.uint64)
        if (matches.shape[0] != self.num_envs or matches.shape[1] != MATCH_WORDS
                or rngs.shape[0] != self.num_envs * 4 or bits.shape[0] != self.num_envs * v.legal_words):
            raise ValueError("not the state of a GofVector of this size")
        for name in self._BUFFERS:
            np.copyto(getattr(self, name), buffers[name], casting="no")
        for i in range(self.num_envs):
            _match_from_words(&v.matches[i], <uint64_t*>cnp.PyArray_GETPTR2(matches, i, 0))
        for i in range(self.num_envs * 4):
            v.policy_rngs[i] = rngs[i]
        for i in range(self.num_envs * v.legal_words):
            v.legal_bits[i] = bits[i]
        self.started = started
        self.spin = spin
        self.await_spin = await_spin

    # -- worker threads --------------------------------------------------------------
    cdef void _free_worker(self, int k) noexcept:
        """Worker ``k``'s locks and buffer (its thread has ended or never started)."""
        cdef Worker* w = &self.workers[k]
        if w.start != NULL:
            PyThread_free_lock(w.start)
        if w.done != NULL:
            PyThread_free_lock(w.done)
        free(w.legal)
        w.start = w.done = NULL
        w.legal = NULL

    cdef void _free_workers(self) noexcept:
        cdef int k
        if self.workers == NULL:
            return
        for k in range(self.n_workers):
            self._free_worker(k)
        free(self.workers)
        self.workers = NULL
        self.n_workers = 0

    def _worker_main(self, int k):
        """The target of worker thread ``k`` (returns when the workers stop)."""
        cdef Worker* w = &self.workers[k]
        with nogil:
            _serve(w)

    def start_workers(self, int count):
        """Have ``count`` helper threads (stopping the ones there are first)."""
        cdef int k
        cdef Worker* w
        if self.busy:
            raise RuntimeError("this environment is being stepped by another thread")
        self.stop_workers()
        if count < 1:
            return
        self.workers = <Worker*>calloc(count, sizeof(Worker))
        if self.workers == NULL:
            raise MemoryError()
        self.n_workers = count
        self.stop = False
        for k in range(count):
            w = &self.workers[k]
            w.core = &self.core
            w.batch = &self.batch
            w.stop = &self.stop
            w.spin = &self.spin
            w.part = k + 1
            w.legal = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
            w.start = PyThread_allocate_lock()
            w.done = PyThread_allocate_lock()
            if w.legal == NULL or w.start == NULL or w.done == NULL:
                self._free_workers()
                raise MemoryError("no memory for a worker thread")
            # Both locks start taken: a release is a message ("go", "done").
            PyThread_acquire_lock(w.start, NOWAIT_LOCK)
            PyThread_acquire_lock(w.done, NOWAIT_LOCK)
        self.worker_pid = os.getpid()
        threads = []
        try:
            for k in range(count):
                thread = threading.Thread(target=self._worker_main, args=(k,), daemon=True,
                                          name=f"fourcards-vector-{k + 1}")
                thread.start()
                threads.append(thread)
        finally:
            self.worker_threads = threads
            if len(threads) < count:  # could not start them all: stop the ones that run
                self._keep_first(len(threads))
                self.stop_workers()

    cdef void _keep_first(self, int started) noexcept:
        """Forget the workers past the first ``started`` (their threads did not start)."""
        cdef int k
        for k in range(started, self.n_workers):
            self._free_worker(k)
        self.n_workers = started

    def stop_workers(self):
        """Stop and join the helper threads (a no-op without them)."""
        cdef int k
        if self.workers == NULL:
            return
        if self.busy:
            raise RuntimeError("this environment is being stepped by another thread")
        threads, self.worker_threads = self.worker_threads, []
        if self.worker_pid != os.getpid():
            # A forked child: the threads do not exist here; nobody waits on the locks.
            self._free_workers()
            return
        self.stop = True
        for k in range(self.n_workers):
            PyThread_release_lock(self.workers[k].start)
        for thread in threads:
            thread.join()
        # Each worker released ``done`` before its thread returned: consume it.
        for k in range(self.n_workers):
            PyThread_acquire_lock(self.workers[k].done, NOWAIT_LOCK)
        self._free_workers()

    @property
    def worker_count(self):
        """Helper threads alive for this instance."""
        return self.n_workers if self.worker_pid == os.getpid() else 0

    # -- batches ---------------------------------------------------------------------
    def run(self, int job, const int64_t[::1] actions, int threads, Py_ssize_t chunk):
        """Do a batch over every env: ``job`` 0 applies ``actions`` (checked legal by
        ``_first_illegal``: else ``IllegalAction``), 1 starts the envs' current match, 2 the next one; then
        each env plays to the learning seat's turn.  ``threads``: this one and
        ``threads - 1`` helpers (started when there are too few).  Returns the
        number of envs this thread did (the helpers did the rest)."""
        cdef int k, helpers
        cdef Py_ssize_t mine = 0, bad
        cdef const int64_t* data = NULL
        if job not in (JOB_STEP, JOB_RESET, JOB_RESET_NEXT):
            raise ValueError(f"job {job} is not 0, 1 or 2")
        if job == JOB_STEP:
            self._check_ready()
            if actions is None or actions.shape[0] != self.num_envs:
                raise ValueError(f"need {self.num_envs} actions")
            data = &actions[0]
            bad = _first_illegal(&self.core, data)
            if bad >= 0:  # nothing unchecked reaches the loops; nothing has moved
                raise IllegalAction(bad)
        if not 1 <= threads <= MAX_PARTS or chunk < 1:
            raise ValueError(f"threads={threads} must be 1..{MAX_PARTS} and chunk={chunk} at least 1")
        if self.busy:
            raise RuntimeError("this environment is being stepped by another thread")
        threads = <int>min(threads, self.num_envs)
        helpers = threads - 1
        if helpers > self.worker_count:
            self.start_workers(helpers)
        self.busy = True
        self.batch.actions = data
        self.batch.job = job
        self.batch.chunk = chunk
        self.batch.parts = threads
        self.batch.shares = self.shares
        for k in range(threads):
            self.shares[k].next = self.num_envs * k // threads
            self.shares[k].end = self.num_envs * (k + 1) // threads
        try:
            with nogil:
                for k in range(helpers):
                    PyThread_release_lock(self.workers[k].start)
                mine = _run_batch(&self.core, &self.batch, 0, self.legal)
                for k in range(helpers):
                    _await(self.workers[k].done, self.await_spin)
        finally:
            self.busy = False
        if job != JOB_STEP:
            self.started = True
        return mine

    cdef void _check_ready(self) except *:
        if self.busy:
            raise RuntimeError("this environment is being stepped by another thread")
        if not self.started:
            raise RuntimeError("no match has started: run a reset job first")

    def legal_actions(self, Py_ssize_t env):
        """The acting learning seat's legal actions in env ``env`` (sorted int32)."""
        cdef int32_t* legal
        cdef int n
        self._check_ready()
        if not 0 <= env < self.num_envs:
            raise ValueError(f"env {env} is not within 0..{self.num_envs - 1}")
        legal = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
        if legal == NULL:
            raise MemoryError()
        n = _sim_legal(_t, &self.core.matches[env], legal)
        result = np.array([legal[k] for k in range(n)], dtype=np.int32)
        free(legal)
        return result
