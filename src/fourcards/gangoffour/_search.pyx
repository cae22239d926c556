# cython: language_level=3
"""The compiled Gang of Four search: information-set Monte Carlo tree search
(SO-ISMCTS) behind ``fourcards.gangoffour.bots.SearchBot``.

One tree over the searching player's information set.  Each iteration
samples the hidden cards (a determinization consistent with what the player
has seen), walks the tree choosing among the children whose action is legal
in that determinization by UCB with availability counts, adds one node, plays
the round out with the rule-based policy, and backs up each seat's reward.
The matches and the policy are the simulator's and the bots' (``_sim.pxd``,
``_bots.pxd``), compiled in.
"""

from libc.stdint cimport uint64_t, uint8_t, int32_t, int64_t, uint32_t
from libc.math cimport sqrt, log
from libc.stdlib cimport malloc, free

from fourcards._common cimport fc_popcount64, fc_ctz64, _below
from fourcards.gangoffour._gof cimport (
    GofTables, GofRules, GofMatch, PHASE_PLAY, MATCH_WORDS, _additive, _canon,
)
from fourcards.gangoffour._combos cimport gof_tables, _index, _as_mask, _as_action, _as_size
from fourcards.gangoffour._sim cimport _rules_of, _sim_legal, _sim_apply, _match_to_words, _match_from_words
from fourcards.gangoffour._bots cimport _greedy_choose

cimport numpy as cnp
import numpy as np

cnp.import_array()

from fourcards.gangoffour import _deck
from fourcards.errors import InvalidTypeError

cdef const GofTables* _t = gof_tables()
cdef object _TWO_64 = 1 << 64

#: The largest ``GofSearch(capacity)``: nodes of 40 bytes, so 1.3 GB.
MAX_SEARCH_NODES = 1 << 25


def check_exploration(exploration):
    """``exploration`` as a float, refused unless a finite number 0..1000."""
    if not isinstance(exploration, (int, float)) or isinstance(exploration, bool):
        raise InvalidTypeError(f"exploration must be a number, not {type(exploration).__name__}")
    try:
        value = float(exploration)
    except OverflowError:
        value = float("inf")
    if not (0.0 <= value <= 1000.0):  # NaN fails too
        raise _deck.range_error("exploration", exploration, 0, 1000)
    return value


cdef void _check_search_root(int players, hand, me, sizes, table, table_player, passed,
                             announced, out, direction, played, totals, known, seed,
                             exploration) except *:
    """Check what ``GofSearch.reset`` is given: every field in range and the
    cards consistent (no card twice, enough unseen cards for the hidden hands),
    so the search in C cannot index out of bounds or loop."""
    cdef const GofTables* t = _t
    cdef uint64_t additive = 0
    cdef int p, cards = 0, need = 0
    c_hand = _as_mask(hand)
    c_me = _as_size(me, "me", 0, players - 1)
    _as_action(table, "table")
    c_table_player = _as_size(table_player, "table_player", -1, players - 1)
    if (_index(table, "table") < 0) != (c_table_player < 0):
        raise ValueError(f"table={table} and table_player={table_player}: both -1 or neither")
    seats = (1 << players) - 1
    c_passed = _as_size(passed, "passed", 0, seats)
    _as_size(announced, "announced", 0, seats)
    c_out = _as_size(out, "out", 0, seats)
    if _index(direction, "direction") not in (1, -1):
        raise ValueError(f"direction={direction} is not 1 or -1")
    c_played = _as_mask(played)
    if not 0 <= _index(seed, "seed") < _TWO_64:
        raise _deck.range_error("seed", seed, 0, 2**64 - 1)
    check_exploration(exploration)
    for name, values in (("sizes", sizes), ("totals", totals), ("known", known)):
        if len(values) != players:
            raise ValueError(f"{name} lists {len(values)} seats, not {players}")
    for p in range(players):
        _as_size(totals[p], f"totals[{p}]", 0, 2**31 - 1)
        size = _as_size(sizes[p], f"sizes[{p}]", 0, 64)
        if ((c_out >> p) & 1) != (size == 0):
            raise ValueError(f"seat {p} holds {size} cards but is {'' if (c_out >> p) & 1 else 'not '}out")
        mask = _as_mask(known[p])
        if p != c_me:
            additive += _additive(t, mask)
            cards += fc_popcount64(mask)
            if fc_popcount64(mask) > size:
                raise ValueError(f"known[{p}] holds more cards than sizes[{p}]={size}")
            need += size - fc_popcount64(mask)
    if sizes[c_me] != fc_popcount64(c_hand) or c_hand == 0:
        raise ValueError(f"sizes[{c_me}]={sizes[c_me]} is not the {fc_popcount64(c_hand)} cards of the hand, "
                         "or the hand is empty")
    for mask in (c_hand, c_played):
        additive += _additive(t, mask)
        cards += fc_popcount64(mask)
    if fc_popcount64(_canon(t, additive)) != cards or cards + need > 64:
        raise _deck.ImpossibleCardsError(f"hand, played and known cards overlap or leave too few unseen cards "
                              f"for the hidden hands")


cdef class GofSearch:
    """A search tree for one decision (see ``fourcards.gangoffour.bots.SearchBot``)."""

    def __cinit__(self, capacity=200000):
        cdef Py_ssize_t c_capacity = _as_size(capacity, "capacity", 1, MAX_SEARCH_NODES)
        self.nodes = <SearchNode*>malloc(c_capacity * sizeof(SearchNode))
        if self.nodes == NULL:
            raise MemoryError(f"no memory for a search tree of {c_capacity} nodes")
        self.capacity = <int>c_capacity
        self.count = 0
        self.busy = False

    cdef void _check_idle(self) except *:
        if self.busy:
            raise RuntimeError("this GofSearch is searching in another thread; "
                               "use one GofSearch (one SearchBot) per thread")

    def __dealloc__(self):
        free(self.nodes)

    def reset(self, dict rules not None, hand, me, sizes, table, table_player,
              passed, announced, out, bint must_lead_m1,
              direction, played, totals, known, seed, exploration):
        """Start a new tree for the player ``me`` to act, from what they observe.

        ``played`` is the canonical mask of the cards played this round;
        ``known`` lists, per seat, a canonical mask of cards that seat is known
        to hold (the exchange's cards not yet seen played)."""
        cdef int p, players
        cdef uint64_t seen
        cdef const GofTables* t = _t
        cdef GofRules c_rules
        self._check_idle()
        c_rules = _rules_of(rules)
        players = c_rules.players
        _check_search_root(players, hand, me, sizes, table, table_player, passed, announced, out,
                           direction, played, totals, known, seed, exploration)
        self.root.rules = c_rules
        self.root.rng = 0
        self.root.round = 1
        self.root.dealer = 0
        self.root.direction = direction
        self.root.phase = PHASE_PLAY
        self.root.current = me
        self.root.table = table
        self.root.table_player = table_player
        self.root.passed = passed
        self.root.announced = announced
        self.root.out = out
        self.root.m1_lead = must_lead_m1
        self.root.played = _additive(t, <uint64_t>played)
        self.root.loser = -1
        self.root.given = -1
        self.root.returned = -1
        self.root.winners = 0
        self.root.steps = 0
        for p in range(4):
            self.root.hands[p] = 0
            self.root.totals[p] = 0
            self.sizes[p] = 0
            self.known[p] = 0
        for p in range(players):
            self.root.totals[p] = totals[p]
            self.sizes[p] = sizes[p]
            self.known[p] = _additive(t, <uint64_t>known[p]) if p != me else 0
        self.root.hands[me] = <uint64_t>hand
        seen = _additive(t, <uint64_t>hand) + _additive(t, <uint64_t>played)
        for p in range(players):
            seen += self.known[p]
        self.unknown = _additive(t, _deck.FULL_DECK) - seen
        self.me = me
        self.rng = seed
        self.exploration = check_exploration(exploration)
        self.iterations = 0
        self.count = 1
        self.nodes[0].action = -1
        self.nodes[0].parent = -1
        self.nodes[0].first_child = -1
        self.nodes[0].next_sibling = -1
        self.nodes[0].mover = -1
        self.nodes[0].visits = 0
        self.nodes[0].available = 0
        self.nodes[0].reward = 0.0

    cdef void _determinize(self, GofMatch* m) noexcept nogil:
        """Deal the unseen cards to the other seats (hand sizes kept, known cards placed)."""
        cdef const GofTables* t = _t
        cdef uint8_t pool[64]
        cdef int n = 0, i, j, p, need
        cdef uint64_t rest = _canon(t, self.unknown), additive
        cdef uint8_t swap
        while rest:
            pool[n] = t.code_of_bit[fc_ctz64(rest)]
            n += 1
            rest &= rest - 1
        for i in range(n - 1, 0, -1):
            j = <int>_below(&self.rng, i + 1)
            swap = pool[i]
            pool[i] = pool[j]
            pool[j] = swap
        m[0] = self.root
        j = 0
        for p in range(m.rules.players):
            if p == self.me:
                continue
            additive = self.known[p]
            need = self.sizes[p] - fc_popcount64(_canon(t, additive))
            for i in range(need):
                additive += t.add_bit[pool[j]]
                j += 1
            m.hands[p] = _canon(t, additive)

    cdef int _child(self, int node, int action) noexcept nogil:
        cdef int c = self.nodes[node].first_child
        while c >= 0:
            if self.nodes[c].action == action:
                return c
            c = self.nodes[c].next_sibling
        return -1

    cdef int _add_child(self, int node, int action, int mover) noexcept nogil:
        cdef int c
        if self.count >= self.capacity:
            return -1
        c = self.count
        self.count += 1
        self.nodes[c].action = action
        self.nodes[c].parent = node
        self.nodes[c].first_child = -1
        self.nodes[c].next_sibling = self.nodes[node].first_child
        self.nodes[node].first_child = c
        self.nodes[c].mover = mover
        self.nodes[c].visits = 0
        self.nodes[c].available = 0
        self.nodes[c].reward = 0.0
        return c

    cdef void _iterate(self) noexcept nogil:
        cdef const GofTables* t = _t
        cdef GofMatch m
        cdef int node = 0, depth = 0, n, i, c, best, untried_count, pick, p, q, playout
        cdef int action = -1
        cdef int players, mover
        cdef int start_totals[4]
        cdef int penalty[4]
        cdef double best_score, score, mean_others, reward
        cdef int sizes[4]
        self._determinize(&m)
        players = m.rules.players
        for p in range(players):
            start_totals[p] = m.totals[p]
        self.path[0] = 0
        # selection and expansion
        while m.round == 1 and m.phase == PHASE_PLAY and 0 <= m.current < players:
            n = _sim_legal(t, &m, self.legal)
            mover = m.current
            untried_count = 0
            best = -1
            best_score = -1.0
            for i in range(n):
                c = self._child(node, self.legal[i])
                if c < 0:
                    untried_count += 1
                    continue
                self.nodes[c].available += 1
                score = self.nodes[c].reward / self.nodes[c].visits + self.exploration * sqrt(
                    log(<double>self.nodes[c].available) / self.nodes[c].visits)
                if score > best_score:
                    best_score = score
                    best = c
            if untried_count == 0 and best < 0:
                break  # no legal action (or no finite score): play out from here
            if untried_count > 0:
                pick = <int>_below(&self.rng, <uint64_t>untried_count)
                for i in range(n):
                    if self._child(node, self.legal[i]) < 0:
                        if pick == 0:
                            action = self.legal[i]
                            break
                        pick -= 1
                c = self._add_child(node, action, mover)
                if c < 0:  # the tree is full: play out from here
                    break
                self.nodes[c].available = 1
                _sim_apply(t, &m, action)
                node = c
                depth += 1
                if depth < 4095:
                    self.path[depth] = node
                break
            _sim_apply(t, &m, self.nodes[best].action)
            node = best
            depth += 1
            if depth >= 4095:
                break
            self.path[depth] = node
        # play the round out with the rule-based policy (a round has at most
        # 4 * 16 plays and a pass between; the bound guards a bad root)
        playout = 0
        while m.round == 1 and m.phase == PHASE_PLAY and 0 <= m.current < players and playout < 100000:
            playout += 1
            n = _sim_legal(t, &m, self.legal)
            if n == 0:
                break
            for p in range(players):
                sizes[p] = fc_popcount64(m.hands[p])
            action = _greedy_choose(t, m.hands[m.current], m.table, m.phase, m.current, players,
                                    sizes, self.legal, n)
            _sim_apply(t, &m, action)
        for p in range(players):
            penalty[p] = m.totals[p] - start_totals[p]
        # back up: each node scores the reward of the seat that moved into it
        for i in range(min(depth, 4095), -1, -1):
            node = self.path[i]
            self.nodes[node].visits += 1
            mover = self.nodes[node].mover
            if mover >= 0:
                mean_others = 0.0
                for q in range(players):
                    if q != mover:
                        mean_others += penalty[q]
                mean_others /= players - 1
                reward = 0.5 + (mean_others - penalty[mover]) / 160.0
                if reward < 0.0:
                    reward = 0.0
                elif reward > 1.0:
                    reward = 1.0
                self.nodes[node].reward += reward
        self.iterations += 1

    def run(self, iterations):
        """Run ``iterations`` more iterations without the GIL.

        One search at a time: a call while another thread is in ``run`` (or
        ``reset``/``statistics`` meanwhile) raises ``RuntimeError``."""
        cdef long i
        cdef long c_iterations = <long>_as_size(iterations, "iterations", 0, 2**31 - 1)
        self._check_idle()
        if self.count == 0:
            raise RuntimeError("reset() the search first")
        self.busy = True  # set and tested while holding the GIL: no two runs overlap
        try:
            with nogil:
                for i in range(c_iterations):
                    self._iterate()
        finally:
            self.busy = False
        return self.iterations

    def statistics(self):
        """``[(action, visits, mean reward)]`` of the root's children, most visited first."""
        self._check_idle()
        if self.count == 0:
            raise RuntimeError("reset() the search first")
        cdef int c = self.nodes[0].first_child
        result = []
        while c >= 0:
            n = self.nodes[c].visits
            result.append((self.nodes[c].action, n, self.nodes[c].reward / n if n else 0.0))
            c = self.nodes[c].next_sibling
        result.sort(key=lambda item: (-item[1], item[0]))
        return result

    @property
    def size(self):
        """Nodes in the tree."""
        return self.count

    def __reduce__(self):
        """Pickled whole: the root, the tree, the generator and the counters (not the
        scratch buffers of an iteration), so a loaded search goes on the same way."""
        cdef int p, c
        cdef SearchNode* node
        self._check_idle()
        cdef cnp.ndarray[cnp.uint64_t, ndim=1] root = np.empty(MATCH_WORDS + 11, dtype=np.uint64)
        cdef cnp.ndarray[cnp.int64_t, ndim=2] links = np.empty((self.count, 7), dtype=np.int64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] rewards = np.empty(self.count, dtype=np.float64)
        _match_to_words(&self.root, <uint64_t*>root.data)
        root[MATCH_WORDS] = self.unknown
        for p in range(4):
            root[MATCH_WORDS + 1 + p] = self.known[p]
            root[MATCH_WORDS + 5 + p] = <uint64_t><int64_t>self.sizes[p]
        root[MATCH_WORDS + 9] = self.rng
        root[MATCH_WORDS + 10] = <uint64_t><int64_t>self.me
        for c in range(self.count):
            node = &self.nodes[c]
            links[c, 0] = node.action
            links[c, 1] = node.parent
            links[c, 2] = node.first_child
            links[c, 3] = node.next_sibling
            links[c, 4] = node.mover
            links[c, 5] = node.visits
            links[c, 6] = node.available
            rewards[c] = node.reward
        return GofSearch, (self.capacity,), (root, links, rewards, self.exploration, self.iterations)

    def __setstate__(self, state):
        cdef int p, c
        cdef SearchNode* node
        root_words, links_in, rewards_in, exploration, iterations = state
        cdef cnp.ndarray[cnp.uint64_t, ndim=1] root = np.ascontiguousarray(root_words, dtype=np.uint64)
        cdef cnp.ndarray[cnp.int64_t, ndim=2] links = np.ascontiguousarray(links_in, dtype=np.int64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] rewards = np.ascontiguousarray(rewards_in, dtype=np.float64)
        self._check_idle()
        if (root.shape[0] != MATCH_WORDS + 11 or links.shape[1] != 7 or links.shape[0] != rewards.shape[0]
                or links.shape[0] > self.capacity):
            raise ValueError("not the state of a GofSearch of this capacity")
        _match_from_words(&self.root, <uint64_t*>root.data)
        self.unknown = root[MATCH_WORDS]
        for p in range(4):
            self.known[p] = root[MATCH_WORDS + 1 + p]
            self.sizes[p] = <int><int64_t>root[MATCH_WORDS + 5 + p]
        self.rng = root[MATCH_WORDS + 9]
        self.me = <int><int64_t>root[MATCH_WORDS + 10]
        self.exploration = check_exploration(exploration)
        self.iterations = iterations
        self.count = <int>links.shape[0]
        for c in range(self.count):
            node = &self.nodes[c]
            node.action = <int32_t>links[c, 0]
            node.parent = <int32_t>links[c, 1]
            node.first_child = <int32_t>links[c, 2]
            node.next_sibling = <int32_t>links[c, 3]
            node.mover = <int32_t>links[c, 4]
            node.visits = <uint32_t>links[c, 5]
            node.available = <uint32_t>links[c, 6]
            node.reward = rewards[c]
