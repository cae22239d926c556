# cython: language_level=3
"""The compiled Gang of Four rule-based player (``fourcards.gangoffour.bots.GreedyBot``).

The policy itself is in ``_bots.pxd`` (inlined by the simulator and the
search); this module is its entry point from Python, checked like its twin,
``fourcards.gangoffour._reference.greedy_choose``.
"""

from libc.stdint cimport uint64_t, int32_t

import numpy as np

from fourcards.errors import InvalidTypeError

from fourcards.gangoffour._gof cimport GofTables, N_ACTIONS, GIVE_BACK_BASE, ANNOUNCE_BASE, PHASE_GIVE_BACK
from fourcards.gangoffour._combos cimport gof_tables, _as_mask, _as_action, _as_size

cdef const GofTables* _t = gof_tables()


def greedy_choose(hand, table, phase, player, sizes, legal):
    """The rule-based policy: the action it picks from ``legal`` (sorted ints)."""
    cdef int c_sizes[4]
    cdef int players, i
    cdef uint64_t c_hand = _as_mask(hand)
    cdef int c_table = _as_action(table, "table action")
    cdef int c_phase = <int>_as_size(phase, "phase", 0, 1)
    cdef int c_player
    cdef int32_t[::1] view
    players = len(sizes)
    if not 2 <= players <= 4:
        raise ValueError(f"sizes must list 2 to 4 hand sizes, got {players}")
    c_player = <int>_as_size(player, "player", 0, players - 1)
    for i in range(players):
        c_sizes[i] = <int>_as_size(sizes[i], f"sizes[{i}]", 0, 64)
    array = np.asarray(legal)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise InvalidTypeError(f"legal must be a 1-D sequence of ints, not {array.ndim}-D {array.dtype}")
    if array.size == 0:
        raise ValueError("no legal action to choose from")
    low, high = int(array.min()), int(array.max())
    if (low < 0 or high >= ANNOUNCE_BASE + N_ACTIONS
            or (c_phase == PHASE_GIVE_BACK and (low < GIVE_BACK_BASE or high >= ANNOUNCE_BASE))):
        raise ValueError(f"legal actions out of range for phase {c_phase}")
    view = np.ascontiguousarray(array, dtype=np.int32)
    return _greedy_choose(_t, c_hand, c_table, c_phase, c_player, players, c_sizes, &view[0], <int>view.shape[0])
