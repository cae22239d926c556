"""Zangles: the rules of one, finding every one, the best; the compiled core vs its twin."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import FourCardsError, InvalidCardError
from fourcards.zangle.cards import (
    CENTRE, DEFAULT_DECK, KINDS, OWN, _find_packed_reference, best_zangle, check_zangle, deck_cards,
    find_zangles, kind_code, pack_counts, zangle_from_row, zangle_rows,
)


def test_default_deck() -> None:
    cards = deck_cards()
    assert len(cards) == 120 and cards.count(kind_code("Z")) == 4
    assert sum(DEFAULT_DECK.values()) == 120
    assert len(deck_cards({"1": 3, "Z": 1})) == 4
    with pytest.raises(InvalidCardError):
        deck_cards({"6q": 1})
    with pytest.raises(FourCardsError):
        deck_cards({"1": -1})


@pytest.mark.parametrize(
    ("target", "pieces", "places", "target_place", "reason"),
    [
        ("4b", ["3", "1"], ["centre", "own"], "centre", ""),
        ("1", ["1", "Z"], ["own", "centre"], "centre", ""),  # a target, one identical piece and a Z card
        ("1", ["1"], ["own"], "centre", "at least two pieces"),
        ("Z", ["1", "1"], ["own", "centre"], "centre", "a Z card cannot be a target"),
        ("4b", ["3", "1"], ["centre", "centre"], "centre", "both the centre and the player's own cards"),
        ("4b", ["2", "2"], ["centre", "own"], "own", "do not cover 4b exactly"),
        ("5a", ["4b", "1"], ["centre", "own"], "own", "do not cover 5a exactly"),
        ("2", ["Z", "Z"], ["own", "own"], "centre", "do not cover 2 exactly"),
    ],
)
def test_every_rule_of_a_zangle(target: str, pieces: list[str], places: list[str], target_place: str,
                                reason: str) -> None:
    check = check_zangle(target, pieces, places, target_place)
    assert check.valid is (reason == "")
    assert reason in check.reason


def test_bad_input() -> None:
    with pytest.raises(FourCardsError):
        check_zangle("4b", ["3"], ["centre", "own"])
    with pytest.raises(FourCardsError, match="not a place"):
        check_zangle("4b", ["3", "1"], ["centre", "hand"])
    with pytest.raises(InvalidCardError, match="'9x' is not a Zangle card"):
        find_zangles(["9x"], [])


def test_find_and_best() -> None:
    zangles = find_zangles(["4b", "2", "Z", "3"], ["1", "5a", "1"])
    assert len(zangles) == len(set(zangles)) == 13
    for z in zangles:
        pieces = [KINDS[k] for k, _ in z.pieces]
        places = ["centre" if p == CENTRE else "own" for _, p in z.pieces]
        assert check_zangle(KINDS[z.target], pieces, places, "centre" if z.target_place == CENTRE else "own").valid
    best = best_zangle(["4b", "2", "Z", "3"], ["1", "5a", "1"])
    assert best is not None and best.own_cards == max(z.own_cards for z in zangles)
    assert best_zangle(["1"], ["2"]) is None


cards = st.lists(st.sampled_from(list(KINDS)), max_size=8)


@given(st.lists(st.sampled_from(list(KINDS)), min_size=4, max_size=4), st.lists(st.sampled_from(list(KINDS)),
                                                                                 min_size=4, max_size=8))
def test_every_zangle_found_is_valid_and_rows_round_trip(centre: list[str], own: list[str]) -> None:
    zangles = find_zangles(centre, own)
    assert len(zangles) == len(set(zangles))
    for z in zangles:
        assert zangle_from_row(zangle_rows([z])[0]) == z
        assert all(n <= centre.count(KINDS[k]) for k, n in z.uses(CENTRE).items())
        assert all(n <= own.count(KINDS[k]) for k, n in z.uses(OWN).items())


core = pytest.importorskip("fourcards.zangle._core")
from fourcards.zangle.cards import TILING_COUNTS  # noqa: E402

core.zangle_init(TILING_COUNTS)


@given(st.lists(st.sampled_from(list(KINDS)), max_size=6), st.lists(st.sampled_from(list(KINDS)), max_size=9))
def test_core_agrees_with_the_twin(centre: list[str], own: list[str]) -> None:
    c, o = pack_counts(centre), pack_counts(own)
    assert [tuple(r) for r in core.zangle_find_packed(c, o).tolist()] == _find_packed_reference(c, o)


def test_packed_errors() -> None:
    with pytest.raises(ValueError):
        core.zangle_find_packed(1 << 60, 0)
    with pytest.raises(ValueError):
        _find_packed_reference(1 << 60, 0)
    with pytest.raises(FourCardsError):
        pack_counts(["1"] * 16)
