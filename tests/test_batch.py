"""Batch classification: layout, errors, and threads giving one thread's answers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from fourcards import ImpossibleCardsError, InvalidCardError
from fourcards.gangoffour import KINDS, NUM_ACTIONS, PAD, ComboKind, action_to_combo, classify, classify_batch
from fourcards.gangoffour._deck import KIND_OF_BIT
from fourcards.errors import InvalidTypeError


def random_rows(n: int, seed: int) -> np.ndarray:
    """Rows of card codes (padded, shuffled): two thirds combinations, one third random sets."""
    rng = np.random.default_rng(seed)
    rows = np.full((n, 7), PAD, dtype=np.uint8)
    for i, action in enumerate(rng.integers(0, NUM_ACTIONS, size=n)):
        if i % 3 == 2:
            # distinct physical cards: always a set the deck can hold
            cards = rng.choice(64, size=rng.integers(1, 8), replace=False)
            codes = [KIND_OF_BIT[int(b)] for b in cards]
        else:
            codes = [c.code for c in action_to_combo(int(action)).cards]
        rows[i, : len(codes)] = rng.permutation(codes)
    return rows


def test_batch_matches_classify_row_by_row() -> None:
    rows = random_rows(2000, seed=1)
    kinds, actions = classify_batch(rows)
    for row, k, a in zip(rows.tolist(), kinds.tolist(), actions.tolist()):
        combo = classify([KINDS[c] for c in row if c != PAD])
        if combo is None:
            assert (k, a) == (-1, -1)
        else:
            assert (k, a) == (combo.kind, combo.action)
    assert (actions >= 0).mean() > 0.6


def test_batch_layout_and_edges() -> None:
    kinds, actions = classify_batch(np.array([[31, 32, PAD], [PAD, PAD, PAD], [33, PAD, PAD]], np.uint8))
    assert kinds.tolist() == [ComboKind.PAIR, -1, ComboKind.SINGLE]
    assert actions.tolist() == [97, -1, 33]
    empty_kinds, empty_actions = classify_batch(np.zeros((0, 7), np.uint8))
    assert empty_kinds.shape == (0,) and empty_actions.shape == (0,)
    # Non-contiguous input is accepted.
    wide = np.full((4, 14), PAD, dtype=np.uint8)
    wide[:, 0] = 33
    assert classify_batch(wide[:, ::2])[1].tolist() == [33] * 4


def test_batch_errors_name_the_row() -> None:
    rows = np.array([[0, 1, PAD], [20, 20, 20], [5, 5, 5]], np.uint8)
    with pytest.raises(ImpossibleCardsError, match=r"3 x Y7 in row 1: the deck holds 2 copies of Y7"):
        classify_batch(rows)
    with pytest.raises(InvalidCardError, match=r"40 is not a card code .* in row 0"):
        classify_batch(np.array([[40, PAD]], np.uint8))
    with pytest.raises(InvalidTypeError, match="2-D uint8"):
        classify_batch(np.zeros((3, 7), np.int64))
    with pytest.raises(InvalidTypeError, match="2-D uint8"):
        classify_batch(np.zeros(7, np.uint8))
    with pytest.raises(InvalidTypeError, match="numpy array"):
        classify_batch([[0, 1]])  # type: ignore[arg-type]


def test_threads_give_the_answers_of_one_thread() -> None:
    rows = random_rows(200_000, seed=7)
    single = classify_batch(rows)
    chunks = np.array_split(rows, 8)
    with ThreadPoolExecutor(max_workers=4) as pool:
        parts = list(pool.map(classify_batch, chunks))
    assert np.array_equal(np.concatenate([p[0] for p in parts]), single[0])
    assert np.array_equal(np.concatenate([p[1] for p in parts]), single[1])
