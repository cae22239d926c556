"""Four Color Cards core: melds, scores, best splits; the compiled core vs its twin."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import ImpossibleCardsError, InvalidCardError, InvalidComboError
from fourcards.fourcolor import (
    DECK, KINDS, Card, Meld, MeldKind, best_points, best_points_batch, best_points_packed, best_split,
    hand_counts, is_complete, pack, waits,
)
from fourcards.fourcolor import _reference as ref


def test_cards_and_notation() -> None:
    assert len(KINDS) == 28 and len(DECK) == 112
    for card in KINDS:
        assert Card.parse(str(card).lower()) is card and eval(repr(card)) is card
    assert Card.parse("rg").name == "red General" and Card.parse("WS").name == "white Soldier"
    with pytest.raises(InvalidCardError, match="'RX' is not a card"):
        Card.parse("RX")


# Every meld of the rules file, with its (exposed, concealed) points.
RULES_MELDS = [
    ("RG", MeldKind.LONE_GENERAL, 1, 1),
    ("YC YC", MeldKind.PAIR, 0, 0),
    ("WA WA WA", MeldKind.TRIPLE, 1, 3),
    ("GH GH GH GH", MeldKind.QUAD, 6, 8),
    ("RG RG RG RG", MeldKind.GENERAL_QUAD, 8, 6),
    ("YG YA YE", MeldKind.COMMAND, 2, 2),
    ("WC WH WN", MeldKind.FIELD, 1, 1),
    ("RS GS WS", MeldKind.THREE_SOLDIERS, 3, 3),
    ("RS GS YS WS", MeldKind.FOUR_SOLDIERS, 5, 5),
    ("GS GS GS", MeldKind.TRIPLE, 1, 3),  # decision: soldier triples follow the triple row
    ("GS GS GS GS", MeldKind.QUAD, 6, 8),
]


@pytest.mark.parametrize(("text", "kind", "exposed", "concealed"), RULES_MELDS)
def test_every_meld_and_score_of_the_rules(text: str, kind: MeldKind, exposed: int, concealed: int) -> None:
    assert Meld.parse(text).kind is kind
    assert Meld.parse(text, exposed=True).points == exposed and Meld.parse(text).points == concealed
    split = best_split(text)
    assert split is not None and split.points == concealed and len(split.melds) == 1
    from_discard = best_split(" ".join(text.split()[1:]), incoming=text.split()[0], incoming_from_discard=True)
    assert from_discard is not None and from_discard.points == exposed


@pytest.mark.parametrize("text", ["RG RG", "RG RG RG", "RS RS", "RS", "RS GS", "RG GA GE", "RC RH YN",
                                  "RS RS GS", "RA", "RC RH"])
def test_not_melds(text: str) -> None:
    with pytest.raises(InvalidComboError):
        Meld.parse(text)
    # Generals may stand alone, so two or three of them still split; the rest do not.
    assert is_complete(text) is text.startswith("RG RG")


def test_the_best_of_several_splits() -> None:
    # Three Generals alone (3 points) rather than anything else; four as a quad concealed: 6 > 4 lone.
    assert best_points("RG RG RG") == 3
    assert best_points("RG RG RG RG") == 6
    # A Chariot quad (8) beats a triple plus a field set when the field set cannot take the fourth.
    assert best_points("RC RC RC RC") == 8
    # Soldiers: four of each colour make four four-soldier sets (20) or quads (32): quads win.
    assert best_points("RS RS RS RS GS GS GS GS YS YS YS YS WS WS WS WS") == 32
    assert best_points("RS GS YS WS RS GS YS") == 8  # four soldiers + three soldiers
    split = best_split("RG RG RA RE")
    assert split is not None and split.points == 3  # a command set and a lone General


def test_exposed_melds_and_the_card_from_a_discard() -> None:
    split = best_split("RA RA", exposed=["WC WC WC"], incoming="RA", incoming_from_discard=True)
    assert split is not None and split.points == 1 + 1  # exposed triple + triple made with a discard
    self_drawn = best_split("RA RA", exposed=["WC WC WC"], incoming="RA")
    assert self_drawn is not None and self_drawn.points == 1 + 3
    assert [m.exposed for m in split.melds] == [True, True]
    with pytest.raises(ImpossibleCardsError, match="5 x WC"):
        best_split("WC WC", exposed=["WC WC WC"])


def test_waits() -> None:
    assert waits("RC RH RS RS RS GG") == {Card.parse("RN"): 5}
    assert waits("RC RH RS RS RS GG", from_discard=True) == {Card.parse("RN"): 5}
    generals = {Card.parse(c): 1 for c in ("RG", "GG", "YG", "WG")}  # a lone General beside the pair
    assert waits("YA YA") == {Card.parse("YA"): 3, **generals}
    assert waits("YA YA", from_discard=True) == {Card.parse("YA"): 1, **generals}
    assert waits("RA RE") == {Card.parse("RG"): 2}
    # four red soldiers split as a quad: a General alone completes, a soldier cannot
    assert waits("RS RS RS RS") == {Card.parse(c): 9 for c in ("RG", "GG", "YG", "WG")}


def test_impossible_hands() -> None:
    with pytest.raises(ImpossibleCardsError, match="5 x RG"):
        best_split("RG RG RG RG RG")
    with pytest.raises(ImpossibleCardsError):
        hand_counts([5] + [0] * 27)
    with pytest.raises(InvalidCardError):
        best_split("RG XX")
    assert best_points_packed(pack("RG") | (7 << 3)) == -2  # a count above 4 in the packed form


def test_packed_and_count_forms_agree() -> None:
    hand = "RG RA RE RC RH RN RS RS RS GA GA GA YC YC WG WN WN WN GS YS WS"
    counts = hand_counts(hand)
    assert best_points_packed(pack(hand)) == best_points(counts) == best_points(hand) == 16
    assert ref.unpack(pack(hand)) == tuple(counts)


card_codes = st.lists(st.integers(0, 111), unique=True, max_size=22)


def counts_of(cards: list[int]) -> list[int]:
    counts = [0] * 28
    for c in cards:
        counts[c // 4] += 1
    return counts




core = pytest.importorskip("fourcards.fourcolor._melds")
from fourcards.fourcolor import _deck  # noqa: E402

from .strategies import meldy_hands  # noqa: E402

# Load the tables into the core even when the package runs on the twin.
core.fc_init([[(_deck.meld_kind(m), m) for m in melds] for melds in ref.MELDS_WITH], _deck.POINTS)


@given(meldy_hands(), st.integers(-1, 27))
def test_core_agrees_with_the_plain_search(counts: list[int], exposed: int) -> None:
    if exposed >= 0 and counts[exposed] == 0:
        exposed = -1
    assert core.fc_best_points(counts, exposed) == ref.best_points(counts, exposed)
    packed = sum(n << (3 * k) for k, n in enumerate(counts))
    assert core.fc_best_points_packed(packed, exposed) == ref.best_points_packed(packed, exposed)


@given(card_codes)
def test_core_agrees_on_random_hands(cards: list[int]) -> None:
    counts = counts_of(cards)
    assert core.fc_best_points(counts) == ref.best_points(counts)


def test_block_tables_match_the_search_everywhere() -> None:
    for index in range(0, 15625, 7):
        assert core.fc_block_best(0, index) == ref.block_best(0, index)
    for index in range(625):
        assert core.fc_block_best(4, index) == ref.block_best(4, index)


def test_batch_and_threads() -> None:
    rng = np.random.default_rng(3)
    rows = np.zeros((4000, 28), dtype=np.uint8)
    for i in range(len(rows)):
        for c in rng.choice(112, size=21, replace=False):
            rows[i, c // 4] += 1
    expected = [ref.best_points(row) for row in rows[:300].tolist()]
    out = best_points_batch(rows)
    assert out.dtype == np.int16 and out[:300].tolist() == expected
    with ThreadPoolExecutor(2) as pool:
        parts = list(pool.map(best_points_batch, np.array_split(rows, 4)))
    assert np.array_equal(np.concatenate(parts), out)
    with pytest.raises(ValueError):
        best_points_batch(np.zeros((2, 27), np.uint8))


def test_batch_flags_counts_above_four() -> None:
    rows = np.zeros((3, 28), dtype=np.uint8)
    rows[0, 0] = 1  # a lone General
    rows[1, 27] = 5
    rows[2, 0] = 200
    assert best_points_batch(rows).tolist() == [1, -2, -2]
    assert core.fc_best_points(rows[1]) == ref.best_points_packed(5 << 81) == -2
