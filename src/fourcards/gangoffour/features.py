"""Gang of Four for learners: a legal action as a row of features, and the
observation tensor rebuilt from an :class:`~fourcards.gangoffour.match.Observation`.

Each legal action of a seat is one row of :data:`FEATURE_SIZE` float32 values
(the candidate-action interface of :mod:`fourcards.rl.candidates`; the
compiled vector environment writes the same rows, bit for bit)::

    0-33   cards of the action: copies of each card code (a play's combination,
           the card a give-back hands over)
    34-41  the combination's kind, one-hot (plays)
    42     its rank within its kind: (index - first index of the kind) / (kind size - 1)
    43     value of its highest card / 12 (plays and give-backs)
    44     cards in the action / 16
    45     cards left in the hand after the action / 16
    46     1 when the action empties the hand
    47     1 for a pass
    48     1 for a give-back
    49     1 for a play that announces the last card (``manual_last_card``)

>>> from fourcards.gangoffour.match import GangOfFour
>>> state = GangOfFour().new_match(7)
>>> rows, actions = action_rows(state.observation(state.current_player).hand_mask, state.legal_actions())
>>> rows.shape[1] == FEATURE_SIZE, len(actions) == len(rows)
(True, True)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..engine import spread_pick
from . import _deck, _kernels
from .match import ANNOUNCE_BASE, GIVE_BACK_BASE, HAND_SIZE, NUM_COMBOS, OBSERVATION_SIZE, PASS, Observation

__all__ = ["FEATURE_SIZE", "FEATURE_LAYOUT", "LAYOUT_HASH", "STATIC_ROWS", "ACTION_SIZES", "action_rows",
           "observation_tensor", "pick_rows", "layout_hash"]

#: The columns of a candidate row: (name, first column, end column).
FEATURE_LAYOUT: Final[tuple[tuple[str, int, int], ...]] = (
    ("cards", 0, 34),
    ("kind", 34, 42),
    ("rank", 42, 43),
    ("high_value", 43, 44),
    ("size", 44, 45),
    ("left", 45, 46),
    ("goes_out", 46, 47),
    ("pass", 47, 48),
    ("give_back", 48, 49),
    ("announce", 49, 50),
)
#: Length of a candidate row.
FEATURE_SIZE: Final = 50

_KIND, _RANK, _HIGH, _SIZE, _LEFT, _OUT, _PASS, _GIVE, _ANNOUNCE = 34, 42, 43, 44, 45, 46, 47, 48, 49


def layout_hash(layout: Sequence[tuple[str, int, int]], observation_size: int, version: str) -> str:
    """A short digest of a feature layout (what a policy file declares it was trained on)."""
    text = f"{version};obs={observation_size};" + ";".join(f"{name}:{lo}-{hi}" for name, lo, hi in layout)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: The version of the rows' meaning: bump it when a column's meaning changes.
LAYOUT_VERSION: Final = "gang-of-four-candidates-1"
#: The digest of :data:`FEATURE_LAYOUT` with the observation size and :data:`LAYOUT_VERSION`.
LAYOUT_HASH: Final = layout_hash(FEATURE_LAYOUT, OBSERVATION_SIZE, LAYOUT_VERSION)


def _static_rows() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int32]]:
    """The columns that depend on the action alone, for every action below
    ``ANNOUNCE_BASE`` (an announcing play takes its combination's row), and
    each action's number of cards."""
    rows = np.zeros((ANNOUNCE_BASE, FEATURE_SIZE), dtype=np.float32)
    sizes = np.zeros(ANNOUNCE_BASE, dtype=np.int32)
    starts = np.asarray(_deck.KIND_START)
    masks = np.asarray(_kernels.COMBO_MASKS, dtype=np.uint64)
    bits = ((masks[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(np.float32)
    code_of_bit = np.zeros((64, _deck.NUM_KINDS), dtype=np.float32)
    code_of_bit[np.arange(64), _deck.KIND_OF_BIT] = 1.0
    counts = bits @ code_of_bit  # exact: small integers
    rows[:NUM_COMBOS, 0:34] = counts
    action = np.arange(NUM_COMBOS)
    kind = np.searchsorted(starts, action, side="right") - 1
    rows[action, _KIND + kind] = 1.0
    first, span = starts[kind], np.maximum(1, starts[kind + 1] - starts[kind] - 1)
    rows[action, _RANK] = (action - first) / span
    values = np.asarray(_deck.VALUE, dtype=np.float64)
    high = np.max(np.where(counts > 0, values[None, :], 0.0), axis=1)
    rows[action, _HIGH] = high / 12
    sizes[:NUM_COMBOS] = counts.sum(axis=1).astype(np.int32)
    rows[action, _SIZE] = sizes[:NUM_COMBOS] / HAND_SIZE
    rows[PASS, _PASS] = 1.0
    for code in range(_deck.NUM_KINDS):
        give = GIVE_BACK_BASE + code
        rows[give, code] = 1.0
        rows[give, _HIGH] = _deck.VALUE[code] / 12
        rows[give, _SIZE] = 1 / HAND_SIZE
        rows[give, _GIVE] = 1.0
        sizes[give] = 1
    rows.flags.writeable = False
    sizes.flags.writeable = False
    return rows, sizes


#: Rows of every action below ``ANNOUNCE_BASE`` without the hand's columns (``left``, ``goes_out``).
#: ACTION_SIZES: the cards each of those actions takes from the hand (0 for a pass).
STATIC_ROWS, ACTION_SIZES = _static_rows()


#: Which of ``count`` sorted legal actions fit in ``limit`` rows (the pass, the last
#: but the announcing plays, and the highest gang stay): :func:`fourcards.engine.spread_pick`.
pick_rows = spread_pick


def candidate_rows(state: Any, seat: int, actions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """The rows of ``actions`` for ``seat`` of a match (``fourcards.rl.candidates``)."""
    rows, _ = action_rows(state._hand_masks()[seat], actions)
    return rows


#: The game's candidate featurizer as its registry entry names it: rows, row length, bounds.
CANDIDATES = (candidate_rows, FEATURE_SIZE, (0.0, 2.0))


def action_rows(hand_mask: int, legal_actions: Sequence[int] | npt.NDArray[np.integer],
                limit: int | None = None) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """``(rows float32[k, FEATURE_SIZE], actions int64[k])``: one row per legal
    action of a hand (its canonical mask), in the order given (sorted, from
    ``legal_actions()``); ``limit`` keeps at most that many (:func:`pick_rows`)."""
    actions = np.asarray(legal_actions, dtype=np.int64).reshape(-1)
    if limit is not None:
        actions = actions[pick_rows(len(actions), limit)]
    announce = actions >= ANNOUNCE_BASE
    base = np.where(announce, actions - ANNOUNCE_BASE, actions)
    rows = STATIC_ROWS[base]  # a copy (fancy indexing)
    sizes = ACTION_SIZES[base]
    left = int(hand_mask).bit_count() - sizes
    rows[:, _LEFT] = left.astype(np.float32) / np.float32(HAND_SIZE)
    rows[:, _OUT] = (left == 0) & (base < NUM_COMBOS)
    rows[:, _ANNOUNCE] = announce
    return rows, actions


def observation_tensor(observation: Observation,
                       out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
    """``MatchState.observation_tensor(player)`` rebuilt from what the player
    sees (what a bot is given), for policies that read the tensor."""
    obs = observation
    if out is None:
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    else:
        out[:] = 0.0
    n = len(obs.hand_sizes)
    player = obs.player
    out[0:34] = _deck.counts_of_mask(obs.hand_mask)
    out[34:68] = _deck.counts_of_mask(obs.played_mask)
    if obs.table is not None:
        out[68:102] = _deck.counts_of_mask(obs.table.mask)
        out[102 + int(obs.table.kind)] = 1.0
    target = obs.rules.target_score
    for k in range(n):
        seat = (player + k) % n
        out[110 + k] = obs.hand_sizes[seat] / HAND_SIZE
        out[114 + k] = obs.scores[seat] / target
        out[118 + k] = obs.passed[seat]
        out[122 + k] = obs.announced[seat]
        out[126 + k] = obs.out[seat]
        out[130 + k] = seat == obs.current_player
        out[134 + k] = seat == obs.table_player
    out[138] = obs.direction == 1
    out[139] = obs.phase == "give-back"
    out[140] = obs.must_lead_m1
    if obs.exchange is not None:
        out[141 + obs.exchange.given.code] = 1.0
        if obs.exchange.returned is not None:
            out[175 + obs.exchange.returned.code] = 1.0
        out[209 + (obs.exchange.loser - player) % n] = 1.0
        out[213 + (obs.exchange.winner - player) % n] = 1.0
    return out
