"""The Zangle kernels: the pure-Python twin (``fourcards.zangle._reference``)
gives the compiled kernel's answers, row for row, and refuses the same inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import FourCardsError
from fourcards.zangle import KINDS, _kernels, _reference
from fourcards.zangle.cards import TILING_COUNTS, _find_packed_reference, pack_counts
from fourcards.errors import InvalidTypeError

_reference.zangle_init(TILING_COUNTS)
COMPILED: Any = _kernels.kernels("compiled")["zangle_find_packed"] if _kernels.core is not None else None
COMPILED_ANY: Any = _kernels.kernels("compiled")["zangle_any_packed"] if _kernels.core is not None else None
needs_compiled = pytest.mark.skipif(COMPILED is None, reason="the compiled Zangle kernel is not built")

CARDS = st.lists(st.sampled_from(list(KINDS)), max_size=9)
PACKED = st.integers(0, (1 << 44) - 1)


def rows(found: Any) -> list[tuple[int, ...]]:
    assert isinstance(found, np.ndarray) and found.dtype == np.uint8 and found.ndim == 2 and found.shape[1] == 24
    return [tuple(row) for row in found.tolist()]


@given(CARDS, CARDS)
def test_the_twin_finds_what_find_zangles_finds(centre: list[str], own: list[str]) -> None:
    c, o = pack_counts(centre), pack_counts(own)
    assert rows(_reference.zangle_find_packed(c, o)) == _find_packed_reference(c, o)


@needs_compiled
@given(CARDS, CARDS)
def test_the_twin_equals_the_compiled_kernel(centre: list[str], own: list[str]) -> None:
    c, o = pack_counts(centre), pack_counts(own)
    assert rows(_reference.zangle_find_packed(c, o)) == rows(COMPILED(c, o))


@needs_compiled
@given(PACKED.map(lambda p: p & 0x33333333333), PACKED.map(lambda p: p & 0x33333333333))
def test_the_twin_equals_the_compiled_kernel_on_any_packed_counts(centre: int, own: int) -> None:
    assert rows(_reference.zangle_find_packed(centre, own)) == rows(COMPILED(centre, own))


@given(PACKED.map(lambda p: p & 0x33333333333), PACKED.map(lambda p: p & 0x33333333333))
def test_any_zangle_is_whether_the_twin_finds_one(centre: int, own: int) -> None:
    """The early-exit kernel (a player's turn asks it before every hit) against the full search."""
    found = len(_reference.zangle_find_packed(centre, own)) > 0
    assert _reference.zangle_any_packed(centre, own) is found
    if COMPILED_ANY is not None:
        assert COMPILED_ANY(centre, own) is found


def test_any_zangle_golden() -> None:
    # "un objetivo, una pieza idéntica y una Z" (a target, one identical piece and a Z card)
    for any_packed in filter(None, (_reference.zangle_any_packed, COMPILED_ANY)):
        assert any_packed(pack_counts("1"), pack_counts("1 Z")) is True
        assert any_packed(pack_counts("1"), pack_counts("1")) is False  # 2 cards: no Zangle
        assert any_packed(0, 0) is False


@pytest.mark.parametrize("centre, own, error", [
    (1.5, 0, InvalidTypeError), (0, "1", InvalidTypeError), (True, 0, InvalidTypeError), (-1, 0, FourCardsError),
    (1 << 44, 0, FourCardsError), (0, 1 << 70, FourCardsError),
])
def test_both_refuse_the_same_inputs(centre: Any, own: Any, error: type[Exception]) -> None:
    for kernel in filter(None, (_reference.zangle_find_packed, COMPILED, _reference.zangle_any_packed, COMPILED_ANY)):
        with pytest.raises(error):
            kernel(centre, own)


def test_nothing_found_is_an_empty_table() -> None:
    assert _reference.zangle_find_packed(0, 0).shape == (0, 24)
    assert _reference.zangle_find_packed(pack_counts("Z Z"), pack_counts("Z")).shape == (0, 24)
