# cython: language_level=3
"""Many Gang of Four matches stepped together in C (behind ``fourcards.rl.VectorGangOfFour``).

One learning seat per match; the other seats are built-in policies that move
inside C.  The matches are the compiled simulator's (``_core``: ``_sim_new``,
``_sim_legal``, ``_sim_apply``, ``_choose``), which the tests compare move for
move with the Python engine.  Observations are written in the layout of
``MatchState.observation_tensor`` and legal-action masks as bools or bits
(``np.packbits`` order).  Batch loops release the GIL; the Python wrapper
checks every input before anything here runs.
"""

from libc.stdint cimport uint64_t, int64_t, int32_t, uint8_t
from libc.string cimport memset
from libc.stdlib cimport malloc, calloc, free

import numpy as np
cimport numpy as cnp

from fourcards._common cimport fc_popcount64, fc_ctz64, _seed_stream
from fourcards.gangoffour._core cimport (
    GofRules, GofMatch, _sim_new, _sim_legal, _sim_apply, _choose, _rules_of,
    GIVE_BACK_BASE, ANNOUNCE_BASE, PHASE_GIVE_BACK, PHASE_OVER, MAX_LEGAL, POLICY_RANDOM, POLICY_GREEDY,
)

cnp.import_array()

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <windows.h>
    static Py_ssize_t fc_fetch_add(Py_ssize_t* p, Py_ssize_t v) {
        return (Py_ssize_t)InterlockedExchangeAdd64((volatile LONG64*)p, (LONG64)v);
    }
    #else
    static Py_ssize_t fc_fetch_add(Py_ssize_t* p, Py_ssize_t v) {
        return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    #endif
    """
    Py_ssize_t fc_fetch_add(Py_ssize_t* p, Py_ssize_t v) noexcept nogil

cdef enum:
    OBS_SIZE = 217
    N_COMBOS = 12352
    HAND_SIZE = 16
    AGENT_POLICY = -1

#: Length of an observation (``MatchState.observation_tensor``).
OBSERVATION_SIZE = OBS_SIZE

# -- tables, from the Python modules at import ------------------------------------
cdef uint64_t _masks[N_COMBOS]
cdef uint8_t _kind_of[N_COMBOS]
cdef uint8_t _code_of_bit[64]
cdef uint64_t _pair_lo = 0


def _load_tables():
    global _pair_lo
    from fourcards.gangoffour import _deck, _kernels  # _kernels loads _core's tables too
    cdef int i, k
    if _kernels.core is None:  # FOURCARDS_NO_EXTENSIONS=1: _core's tables are not loaded
        raise ImportError("fourcards.gangoffour._vector needs the compiled kernels in use "
                          "(FOURCARDS_NO_EXTENSIONS is set)")
    masks = _kernels.COMBO_MASKS
    if masks.shape[0] != N_COMBOS or len(_deck.KIND_OF_BIT) != 64:
        raise ImportError("the Gang of Four tables do not match the compiled environment")
    for i in range(N_COMBOS):
        _masks[i] = masks[i]
    for k in range(8):
        for i in range(_deck.KIND_START[k], _deck.KIND_START[k + 1]):
            _kind_of[i] = k
    for i in range(64):
        _code_of_bit[i] = _deck.KIND_OF_BIT[i]
    _pair_lo = _deck.PAIR_LO


_load_tables()


cdef void _observe(const GofMatch* m, int seat, float* out) noexcept nogil:
    """``MatchState.observation_tensor(seat)`` into ``out`` (OBS_SIZE floats)."""
    cdef int n = m.rules.players, k, p
    cdef uint64_t rest
    memset(out, 0, OBS_SIZE * sizeof(float))
    rest = m.hands[seat]
    while rest:
        out[_code_of_bit[fc_ctz64(rest)]] += 1.0
        rest &= rest - 1
    rest = m.played | ((m.played >> 1) & _pair_lo)
    while rest:
        out[34 + _code_of_bit[fc_ctz64(rest)]] += 1.0
        rest &= rest - 1
    if m.table >= 0:
        rest = _masks[m.table]
        while rest:
            out[68 + _code_of_bit[fc_ctz64(rest)]] += 1.0
            rest &= rest - 1
        out[102 + _kind_of[m.table]] = 1.0
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


cdef class GofVector:
    """The C side of ``fourcards.rl.VectorGangOfFour`` (checked there, unchecked here).

    Env ``i``'s match ``k`` has seed ``derive_seed(derive_seed(seed, i), k)``;
    in a match with seed ``s`` a random seat ``p`` draws from
    ``Rng(derive_seed(s, p + 1))``, as ``fourcards.gangoffour.simulate`` does.
    """

    cdef GofMatch* matches
    cdef uint64_t* policy_rngs      # 4 a match
    cdef uint64_t* env_seeds        # derive_seed(seed, i)
    cdef uint64_t* legal_bits       # private copy of each env's legal actions (bits), for checking actions
    cdef Py_ssize_t legal_words
    cdef Py_ssize_t cursor          # next env of a batch shared by threads (step_shared)
    cdef GofRules rules
    cdef int policies[4]
    cdef readonly int seat
    cdef readonly Py_ssize_t num_envs
    cdef readonly int num_actions
    cdef readonly bint packed
    cdef Py_ssize_t mask_width
    cdef float* obs_data
    cdef uint8_t* mask_data
    cdef float* reward_data
    cdef uint8_t* done_data
    cdef int64_t* episode_data
    cdef int64_t* step_data
    cdef int64_t* match_step_data
    cdef uint64_t* seed_data
    cdef int32_t* score_data
    cdef int64_t* number_data
    cdef readonly object observations, masks, rewards, dones, episodes, steps, match_steps, seeds, final_scores
    cdef readonly object match_numbers

    def __cinit__(self, Py_ssize_t num_envs, uint64_t seed, dict rules not None, policies, int seat,
                  bint packed):
        cdef Py_ssize_t i
        cdef int p
        self.matches = NULL
        self.policy_rngs = NULL
        self.env_seeds = NULL
        self.legal_bits = NULL
        self.rules = _rules_of(rules)
        if num_envs < 1:
            raise ValueError(f"num_envs={num_envs} must be at least 1")
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat {seat} is not a seat of {self.rules.players} players")
        if len(policies) != self.rules.players:
            raise ValueError(f"need a policy per seat, got {len(policies)}")
        for p in range(4):
            self.policies[p] = AGENT_POLICY
        for p in range(self.rules.players):
            if p == seat:
                continue
            if policies[p] not in (POLICY_RANDOM, POLICY_GREEDY):
                raise ValueError(f"policy {policies[p]!r} of seat {p} is not 0 (random) or 1 (greedy)")
            self.policies[p] = policies[p]
        self.seat = seat
        self.num_envs = num_envs
        self.num_actions = ANNOUNCE_BASE + (N_COMBOS if self.rules.manual else 0)
        self.packed = packed
        self.mask_width = (self.num_actions + 7) // 8 if packed else self.num_actions
        self.matches = <GofMatch*>malloc(num_envs * sizeof(GofMatch))
        self.policy_rngs = <uint64_t*>malloc(num_envs * 4 * sizeof(uint64_t))
        self.env_seeds = <uint64_t*>malloc(num_envs * sizeof(uint64_t))
        self.legal_words = (self.num_actions + 63) // 64
        self.legal_bits = <uint64_t*>calloc(num_envs * self.legal_words, sizeof(uint64_t))
        if self.matches == NULL or self.policy_rngs == NULL or self.env_seeds == NULL or self.legal_bits == NULL:
            raise MemoryError(f"no memory for {num_envs} matches")
        for i in range(num_envs):
            self.env_seeds[i] = _seed_stream(seed, <uint64_t>i)
        self.observations = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self.masks = np.zeros((num_envs, self.mask_width), dtype=np.uint8 if packed else np.bool_)
        self.rewards = np.zeros(num_envs, dtype=np.float32)
        self.dones = np.zeros(num_envs, dtype=np.bool_)
        self.episodes = np.zeros(num_envs, dtype=np.int64)
        self.steps = np.zeros(num_envs, dtype=np.int64)
        self.match_steps = np.zeros(num_envs, dtype=np.int64)
        self.seeds = np.zeros(num_envs, dtype=np.uint64)
        self.final_scores = np.zeros((num_envs, self.rules.players), dtype=np.int32)
        self.match_numbers = np.zeros(num_envs, dtype=np.int64)
        self.obs_data = <float*>cnp.PyArray_DATA(self.observations)
        self.mask_data = <uint8_t*>cnp.PyArray_DATA(self.masks)
        self.reward_data = <float*>cnp.PyArray_DATA(self.rewards)
        self.done_data = <uint8_t*>cnp.PyArray_DATA(self.dones)
        self.episode_data = <int64_t*>cnp.PyArray_DATA(self.episodes)
        self.step_data = <int64_t*>cnp.PyArray_DATA(self.steps)
        self.match_step_data = <int64_t*>cnp.PyArray_DATA(self.match_steps)
        self.seed_data = <uint64_t*>cnp.PyArray_DATA(self.seeds)
        self.score_data = <int32_t*>cnp.PyArray_DATA(self.final_scores)
        self.number_data = <int64_t*>cnp.PyArray_DATA(self.match_numbers)

    def __dealloc__(self):
        free(self.matches)
        free(self.policy_rngs)
        free(self.env_seeds)
        free(self.legal_bits)

    # -- per match ---------------------------------------------------------------------
    cdef void _begin(self, Py_ssize_t i) noexcept nogil:
        """Start env ``i``'s match number ``match_numbers[i]``."""
        cdef uint64_t s = _seed_stream(self.env_seeds[i], <uint64_t>self.number_data[i])
        cdef int p
        self.seed_data[i] = s
        _sim_new(&self.matches[i], self.rules, s)
        for p in range(4):
            self.policy_rngs[4 * i + p] = _seed_stream(s, <uint64_t>(p + 1))

    cdef void _advance(self, Py_ssize_t i, int32_t* legal) noexcept nogil:
        """Play the other seats until the learning seat is to act (starting the next
        match when one ends), then write its observation and mask."""
        cdef GofMatch* m = &self.matches[i]
        cdef int n, action, p, players = self.rules.players
        cdef double reward = 0.0
        cdef bint done = False
        cdef uint8_t* row
        cdef uint64_t* bits = self.legal_bits + i * self.legal_words
        cdef uint64_t word
        cdef Py_ssize_t k, w
        while True:
            if m.phase == PHASE_OVER:
                if (m.winners >> self.seat) & 1:
                    reward += 1.0 / fc_popcount64(m.winners)
                reward -= 1.0 / players
                done = True
                for p in range(players):
                    self.score_data[i * players + p] = m.totals[p]
                self.match_step_data[i] = m.steps
                self.episode_data[i] += 1
                self.number_data[i] += 1
                self._begin(i)
                continue
            n = _sim_legal(m, legal)
            if m.current == self.seat:
                break
            action = _choose(m, self.policies[m.current], &self.policy_rngs[4 * i + m.current], legal, n)
            _sim_apply(m, action)
            self.step_data[i] += 1
        self.reward_data[i] = <float>reward
        self.done_data[i] = done
        _observe(m, self.seat, self.obs_data + i * OBS_SIZE)
        row = self.mask_data + i * self.mask_width
        if self.packed:
            memset(row, 0, self.mask_width)
            for k in range(n):
                row[legal[k] >> 3] |= <uint8_t>(0x80 >> (legal[k] & 7))
        else:
            # Clear only the entries the last mask set (the private bits list them):
            # a few cache lines instead of the whole 12 KB row.  The public rows are
            # read-only views, so nothing else writes them.
            for w in range(self.legal_words):
                word = bits[w]
                while word:
                    row[(w << 6) + fc_ctz64(word)] = 0
                    word &= word - 1
            for k in range(n):
                row[legal[k]] = 1
        memset(bits, 0, self.legal_words * sizeof(uint64_t))
        for k in range(n):
            bits[legal[k] >> 6] |= (<uint64_t>1) << (legal[k] & 63)

    # -- batches (ranges of envs, so that threads can share a batch) -----------------------
    def reset_range(self, bint next_match, Py_ssize_t lo, Py_ssize_t hi):
        """Start a match in envs ``lo..hi-1`` and play to the learning seat's first
        turn (``next_match``: abandon the match in progress for the next number)."""
        cdef Py_ssize_t i
        cdef int32_t* legal
        self._check_range(lo, hi)
        legal = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
        if legal == NULL:
            raise MemoryError()
        with nogil:
            for i in range(lo, hi):
                if next_match:
                    self.number_data[i] += 1
                self._begin(i)
                self._advance(i, legal)
        free(legal)

    def first_illegal(self, const int64_t[::1] actions not None, Py_ssize_t lo, Py_ssize_t hi):
        """The first env in ``lo..hi-1`` whose action is not legal, or -1 (from the
        legal actions kept when the mask was written)."""
        cdef Py_ssize_t i, bad = -1
        cdef int64_t a
        self._check_range(lo, hi)
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"need {self.num_envs} actions, got {actions.shape[0]}")
        with nogil:
            for i in range(lo, hi):
                a = actions[i]
                if (a < 0 or a >= self.num_actions or self.matches[i].current != self.seat
                        or not (self.legal_bits[i * self.legal_words + (a >> 6)] >> (a & 63)) & 1):
                    bad = i
                    break
        return bad

    def step_range(self, const int64_t[::1] actions not None, Py_ssize_t lo, Py_ssize_t hi):
        """Apply envs ``lo..hi-1``'s actions (checked legal by ``first_illegal``) and
        advance each to the learning seat's next turn."""
        cdef Py_ssize_t i
        cdef int32_t* legal
        self._check_range(lo, hi)
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"need {self.num_envs} actions, got {actions.shape[0]}")
        legal = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
        if legal == NULL:
            raise MemoryError()
        with nogil:
            for i in range(lo, hi):
                _sim_apply(&self.matches[i], <int>actions[i])
                self.step_data[i] += 1
                self._advance(i, legal)
        free(legal)

    def start_shared(self):
        """Open a batch for ``step_shared`` (call before the threads start)."""
        self.cursor = 0

    def step_shared(self, const int64_t[::1] actions not None, Py_ssize_t chunk):
        """Like ``step_range``, over chunks of ``chunk`` envs taken from a counter
        shared by every thread in the batch: a thread that starts late (or runs
        slowly) leaves its share to the others.  Returns the envs it stepped."""
        cdef Py_ssize_t i, lo, hi, done = 0
        cdef int32_t* legal
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"need {self.num_envs} actions, got {actions.shape[0]}")
        if chunk < 1:
            raise ValueError(f"chunk={chunk} must be at least 1")
        legal = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
        if legal == NULL:
            raise MemoryError()
        with nogil:
            while True:
                lo = fc_fetch_add(&self.cursor, chunk)
                if lo >= self.num_envs:
                    break
                hi = min(lo + chunk, self.num_envs)
                for i in range(lo, hi):
                    _sim_apply(&self.matches[i], <int>actions[i])
                    self.step_data[i] += 1
                    self._advance(i, legal)
                done += hi - lo
        free(legal)
        return done

    cdef void _check_range(self, Py_ssize_t lo, Py_ssize_t hi) except *:
        if not 0 <= lo <= hi <= self.num_envs:
            raise ValueError(f"env range {lo}..{hi} is not within 0..{self.num_envs}")

    def legal_actions(self, Py_ssize_t env):
        """The learning seat's legal actions in env ``env`` (sorted int32)."""
        cdef int32_t* legal
        cdef int n
        self._check_range(env, env + 1)
        legal = <int32_t*>malloc(MAX_LEGAL * sizeof(int32_t))
        if legal == NULL:
            raise MemoryError()
        n = _sim_legal(&self.matches[env], legal)
        result = np.array([legal[k] for k in range(n)], dtype=np.int32)
        free(legal)
        return result
