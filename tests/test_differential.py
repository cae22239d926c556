"""The compiled core agrees with its pure-Python twin (hypothesis and exhaustive)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import FourCardsError
from fourcards.gangoffour import _deck
from fourcards.gangoffour import _reference as ref

from .strategies import hand_codes, mask_of, small_sets

core = pytest.importorskip("fourcards.gangoffour._combos", reason="compiled core not built")
parse = pytest.importorskip("fourcards.gangoffour._parse", reason="compiled core not built")
import fourcards.gangoffour  # noqa: E402,F401  (loads the table into the core)

core.gof_init(fourcards.gangoffour._kernels.COMBO_MASKS)
parse.set_card_type(fourcards.gangoffour.Card)
ref.set_card_type(fourcards.gangoffour.Card)  # the twin, imported here beside the core
actions = st.integers(-1, _deck.NUM_ACTIONS - 1)


@given(small_sets())
def test_classify_agrees_on_near_combinations(codes: list[int]) -> None:
    mask = mask_of(codes)
    assert core.classify_mask(mask) == ref.classify_mask(mask)


@given(hand_codes(max_size=8))
def test_classify_agrees_on_arbitrary_sets(codes: list[int]) -> None:
    mask = mask_of(codes)
    assert core.classify_mask(mask) == ref.classify_mask(mask)


@given(hand_codes(max_size=16), actions)
def test_legal_actions_agree(codes: list[int], table: int) -> None:
    mask = mask_of(codes)
    expected = ref.legal_actions(mask, table)
    assert core.legal_actions(mask, table).tolist() == expected.tolist()
    assert np.array_equal(core.legal_mask(mask, table), ref.legal_mask(mask, table))


@given(hand_codes(min_size=10, max_size=16), st.data())
def test_legal_actions_agree_following_own_plays(codes: list[int], data: st.DataObject) -> None:
    mask = mask_of(codes)
    leads = ref.legal_actions(mask, -1).tolist()
    table = data.draw(st.sampled_from(leads)) if leads else -1
    assert core.legal_actions(mask, table).tolist() == ref.legal_actions(mask, table).tolist()


@given(actions, actions)
def test_beats_agrees(a: int, b: int) -> None:
    assert core.beats(a, b) == ref.beats(a, b)


rows = st.lists(st.sampled_from(list(range(34)) + [255, 255, 255]), min_size=7, max_size=7)


@given(st.lists(rows, min_size=0, max_size=40))
def test_batch_agrees(table: list[list[int]]) -> None:
    codes = np.array(table, dtype=np.uint8).reshape(len(table), 7)
    try:
        expected = ref.classify_batch(codes)
    except FourCardsError as error:
        with pytest.raises(type(error)) as info:
            core.classify_batch(codes)
        assert str(info.value) == str(error)
        return
    kinds, found = core.classify_batch(codes)
    assert kinds.tolist() == expected[0].tolist() and found.tolist() == expected[1].tolist()
    assert kinds.dtype == np.int8 and found.dtype == np.int32


@given(st.lists(st.lists(st.integers(0, 255), min_size=3, max_size=3), min_size=1, max_size=10))
def test_batch_errors_agree(table: list[list[int]]) -> None:
    codes = np.array(table, dtype=np.uint8)
    outcomes = []
    for kernel in (core.classify_batch, ref.classify_batch):
        try:
            kinds, found = kernel(codes)
            outcomes.append((kinds.tolist(), found.tolist()))
        except FourCardsError as error:
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("bad", [0b10, 1 << 64, -1])
def test_bad_masks_raise_the_same(bad: int) -> None:
    for kernel in (core.classify_mask, ref.classify_mask):
        with pytest.raises(FourCardsError) as info:
            kernel(bad)
        if bad == 0b10:
            assert "not canonical" in str(info.value)


def _multisets(max_size: int) -> list[tuple[int, ...]]:
    kinds = [(code, _deck.CAP[code]) for code in range(_deck.NUM_KINDS)]
    out: list[tuple[int, ...]] = []
    for size in range(1, max_size + 1):
        for combo in itertools.combinations_with_replacement(range(_deck.NUM_KINDS), size):
            if all(combo.count(c) <= cap for c, cap in kinds if c in combo):
                out.append(combo)
    return out


def test_exhaustive_classification_of_every_set_up_to_five_cards() -> None:
    """Every multiset of 1..5 cards the deck can hold: the compiled batch
    classifier agrees with the rules-based reference classifier."""
    sets = _multisets(5)
    codes = np.full((len(sets), 7), 255, dtype=np.uint8)
    for i, s in enumerate(sets):
        codes[i, : len(s)] = s
    kinds, found = core.classify_batch(codes)
    expected = [ref.classify_codes(s) for s in sets]
    expected_actions = [-1 if e is None else ref.action_of(*e) for e in expected]
    assert found.tolist() == expected_actions
    # Every non-gang combination and every gang of 4 or 5 has 5 cards or fewer.
    small = {a for a in found.tolist() if a >= 0}
    big_gangs = sum(1 for k, key in ref.TABLE if k == _deck.GANG and key[0] > 5)
    assert len(small) == _deck.NUM_ACTIONS - big_gangs


card_text = st.lists(
    st.sampled_from(["G1", "y1", "R10", "r10", "M1", "m1", "GP", "yp", "RD", "G5", "Y7", "X1", "G0",
                     "G11", "GD", "RP", "M2", "7", "G", "1G", "", "Y100"]),
    max_size=8,
)
separators = st.sampled_from([" ", ", ", ",", "  ", "\t", " ,"])


@given(card_text, separators)
def test_text_fast_path_agrees(tokens: list[str], sep: str) -> None:
    text = sep.join(tokens)
    assert parse.fast_mask(text) == ref.fast_mask(text)
    assert parse.fast_classify(text) == ref.fast_classify(text)


@given(hand_codes(max_size=9))
def test_card_tuple_fast_path_agrees(codes: list[int]) -> None:
    from fourcards.gangoffour import KINDS

    cards = tuple(KINDS[c] for c in codes)
    assert parse.fast_mask(cards) == ref.fast_mask(cards) == mask_of(codes)
    assert parse.fast_mask(list(cards)) == mask_of(codes)
    assert parse.fast_classify(cards) == ref.fast_classify(cards)
    assert parse.fast_mask(cards + ("G1",)) == ref.fast_mask(cards + ("G1",)) == -1


def test_fast_path_declines_what_it_cannot_parse() -> None:
    for odd in ["G1 G1 G1", "M1 M1", "G1G2", "G1,,Y2x", 5, None, {"G1"}, "R10 R10 R10"]:
        assert parse.fast_mask(odd) == ref.fast_mask(odd) == -1


@given(hand_codes(max_size=64))
def test_counts_of_mask_counts_each_code(codes: list[int]) -> None:
    counts = _deck.counts_of_mask(mask_of(codes))
    assert counts == [float(codes.count(code)) for code in range(_deck.NUM_KINDS)]
