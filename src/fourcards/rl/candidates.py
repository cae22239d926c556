"""Candidate actions: each legal action of a seat as a row of features (DouZero style).

A policy that scores actions (one row each, next to the state's features)
sees what an action *is* (its cards, kind, rank, what it leaves in the hand)
instead of an index into a space of thousands.

>>> from fourcards.games import DEFAULT_GAME, get_game
>>> state = get_game(DEFAULT_GAME).new_game().new_match(7)
>>> features, actions = candidates(state, state.current_player)
>>> features.shape == (len(state.legal_actions()), feature_size(state.game)), actions.tolist() == state.legal_actions()
(True, True)

- A game whose registry entry names ``candidates`` (``module:object``, a
  tuple of its rows function ``(state, seat, actions) -> rows``, the row
  length and the rows' bounds) gets rows of its own (what a card game's row
  holds: the action's cards, its kind and rank, what it leaves in the hand,
  flags for passing and the like); a game's compiled vector environment may
  write the same rows (``candidates=K``).
- Any other game: :data:`GENERIC_SIZE` columns built from its
  ``action_view`` (the readable action's fields): each ``field=value`` leaf
  falls in one of ``GENERIC_BUCKETS`` buckets by a stable hash (CRC-32),
  a bucket holding ``c`` leaves reads ``1 - 2**-c``; the last column is the
  action's index over ``num_distinct_actions``.  Generic, not clever: a game
  that learners play should name a featurizer of its own in its entry.

Rows follow ``legal_actions()`` (sorted); a seat that is not to act has no
candidates (``k = 0``).  ``limit=K`` keeps at most ``K`` rows, spread evenly
over the sorted actions from the first to the last (the padded Gymnasium
observation and the vector environment use it).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import Game, State, check_count, spread_pick
from ..games import GAMES, load_object

__all__ = ["candidates", "feature_size", "feature_bounds", "pick_rows", "GENERIC_SIZE", "GENERIC_BUCKETS",
           "generic_rows", "MAX_CANDIDATES"]

#: The most candidate rows an observation holds (``max_candidates``, ``candidates=K``).
MAX_CANDIDATES = 4096

#: Hash buckets of the generic rows' ``field=value`` counts.
GENERIC_BUCKETS = 63
#: Length of a generic row: the buckets, then ``action / num_distinct_actions``.
GENERIC_SIZE = GENERIC_BUCKETS + 1

Rows = tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]


#: Which of ``count`` sorted actions fit in ``limit`` rows: all when they fit, else
#: ``limit`` of them spread evenly, the first and the last among them.
pick_rows = spread_pick


def _leaves(value: Any, path: str) -> list[str]:
    if isinstance(value, Mapping):
        return [leaf for key, item in value.items() for leaf in _leaves(item, f"{path}.{key}")]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves(item, path)]
    return [f"{path}={value}"]


def generic_rows(state: State[Any], actions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """The generic rows of ``actions`` in ``state`` (see the module docstring)."""
    game = state.game
    counts = np.zeros((len(actions), GENERIC_SIZE), dtype=np.float64)
    for k, action in enumerate(actions.tolist()):
        for leaf in _leaves(game.action_view(state.int_to_action(action)), ""):
            counts[k, zlib.crc32(leaf.encode()) % GENERIC_BUCKETS] += 1.0
    rows = (1.0 - np.exp2(-counts)).astype(np.float32)
    rows[:, GENERIC_BUCKETS] = actions / game.num_distinct_actions
    return rows


Featurizer = tuple[Callable[[State[Any], int, npt.NDArray[np.int64]], npt.NDArray[np.float32]], int,
                   tuple[float, float]]


def _featurizer(game: Game[Any]) -> Featurizer | None:
    """The game's own featurizer (its registry entry's ``candidates``), or None."""
    for entry in GAMES.values():
        if entry.candidates is not None and entry.game_class is type(game):
            found: Featurizer = load_object(entry.candidates)
            return found
    return None


def feature_size(game: Game[Any]) -> int:
    """The length of ``game``'s candidate rows."""
    entry = _featurizer(game)
    return GENERIC_SIZE if entry is None else entry[1]


def feature_bounds(game: Game[Any]) -> tuple[float, float]:
    """``(low, high)`` holding every value of ``game``'s candidate rows."""
    entry = _featurizer(game)
    return (0.0, 1.0) if entry is None else entry[2]


def candidates(state: State[Any], seat: int, limit: int | None = None) -> Rows:
    """``(features float32[k, F], actions int64[k])``: ``seat``'s legal actions
    (sorted; none when ``seat`` is not to act) and a row of features each;
    ``limit`` keeps at most that many rows (spread evenly, :func:`pick_rows`)."""
    size = feature_size(state.game)
    seat = state.check_seat(seat)
    if limit is not None:
        limit = check_count(limit, "limit")
    if state.is_terminal or state.current_player != seat:
        return np.zeros((0, size), dtype=np.float32), np.zeros(0, dtype=np.int64)
    actions = np.asarray(state.legal_actions(), dtype=np.int64)
    if limit is not None:
        actions = actions[pick_rows(len(actions), limit)]
    entry = _featurizer(state.game)
    rows = generic_rows(state, actions) if entry is None else entry[0](state, seat, actions)
    return rows, actions
