"""Combinations: golden counts and hash, the rules' examples, the API."""

from __future__ import annotations

import hashlib
import pickle

import numpy as np
import pytest

from fourcards import FourCardsError, ImpossibleCardsError, InvalidComboError
from fourcards.errors import InvalidTypeError
from fourcards.gangoffour import (
    NUM_ACTIONS, Card, Combo, ComboKind, action_to_combo, all_combos, beats, classify,
    classify_mask, combo_to_action, hand_mask, legal_actions, legal_mask, legal_plays, penalty,
)

# The per-kind counts of the whole deck, from the rules file.
RULES_COUNTS = {
    ComboKind.SINGLE: 34, ComboKind.PAIR: 64, ComboKind.TRIPLE: 76, ComboKind.STRAIGHT: 1518,
    ComboKind.FLUSH: 6153, ComboKind.FULL_HOUSE: 4369, ComboKind.STRAIGHT_FLUSH: 21,
    ComboKind.GANG: 117,
}
# sha256 of the canonical text of all 12,352 combinations in action order, one a line:
# any change of ranking or numbering changes it.
ACTION_ORDER_SHA256 = "b8cc0dbc4a44d20a479c90fc4cc8320943c4262b1e7b6b7b972c21ff5a57a73e"


def kind(text: str) -> ComboKind | None:
    combo = classify(text)
    return None if combo is None else combo.kind


def test_counts_per_kind_match_the_rules() -> None:
    combos = all_combos()
    assert len(combos) == NUM_ACTIONS == 12352 == sum(RULES_COUNTS.values())
    for k, count in RULES_COUNTS.items():
        assert sum(1 for c in combos if c.kind is k) == count
        assert all(combos[a].kind is k for a in k.actions)


def test_action_order_hash() -> None:
    text = "\n".join(str(c) for c in all_combos())
    assert hashlib.sha256(text.encode()).hexdigest() == ACTION_ORDER_SHA256


def test_every_combo_round_trips_through_text_and_action() -> None:
    for action, combo in enumerate(all_combos()):
        assert combo.action == action
        assert Combo.parse(str(combo)) is combo
        assert Combo.parse(str(combo).lower()) is combo
        assert combo_to_action(str(combo)) == action
        assert classify_mask(combo.mask) == action
        assert classify(reversed(combo.cards)) is combo


def test_action_order_is_sizes_then_kinds_then_rank() -> None:
    combos = all_combos()
    sizes = [len(c) if c.kind is not ComboKind.GANG else 8 for c in combos]
    assert sizes == sorted(sizes)
    assert [c.kind for c in combos] == sorted(c.kind for c in combos)
    gangs = [c for c in combos if c.kind is ComboKind.GANG]
    assert [(len(g), g.cards[0].value) for g in gangs] == sorted((len(g), g.cards[0].value) for g in gangs)
    # Within a kind, each combination beats the one before it.
    for k in ComboKind:
        for a in list(k.actions)[1:]:
            assert combos[a].beats(combos[a - 1]) and not combos[a - 1].beats(combos[a])


# -- the rules file, example by example --------------------------------------------

@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("G3 Y4 R5 G6 Y7", ComboKind.STRAIGHT),
        ("G5 G5 G7 G8 G9", ComboKind.FLUSH),  # the two copies of a card in a flush
        ("GP YP", ComboKind.PAIR),
        ("M1 G1", ComboKind.PAIR),
        ("M1 R1 R1", ComboKind.TRIPLE),
        ("R1 R1 M1 R5 R5", ComboKind.FULL_HOUSE),  # not a flush
        ("G3 G3 G3", None),  # impossible: checked below
        ("R2 R3 R4 R5 R6", ComboKind.STRAIGHT_FLUSH),  # a straight in one colour
        ("M1 Y2 Y3 Y4 Y5", ComboKind.STRAIGHT_FLUSH),  # M1 counts as any colour
        ("M1 Y2 Y3 Y4 Y6", ComboKind.FLUSH),
        ("M1 G2 Y3 R4 G5", ComboKind.STRAIGHT),
        ("G1 Y2 R3 G4 Y5", ComboKind.STRAIGHT),  # lowest straight
        ("G6 Y7 R8 G9 Y10", ComboKind.STRAIGHT),  # highest straight
        ("G7 Y8 R9 G10 Y1", None),  # no wrap-around
        ("G7 Y7 R7 G7 R5", None),  # four 7s plus a kicker
        ("G7 Y7 R7 R7", ComboKind.GANG),
        ("G7 G7 Y7 R7 R7", ComboKind.GANG),
        ("G1 G1 Y1 Y1 R1 R1 M1", ComboKind.GANG),  # a gang of 7 exists only for 1s
        ("G2 Y3 R4 G5 GP", None),  # a straight containing a phoenix
        ("G2 G3 G4 G5 YP", None),
        ("RD R5", None),  # the dragon with anything
        ("RD GP", None),
        ("RD", ComboKind.SINGLE),
        ("GP", ComboKind.SINGLE),
        ("G3 Y3 R3 YP GP", ComboKind.FULL_HOUSE),  # the pair may be GP YP
        ("GP YP G3", None),  # phoenixes cannot form triples
        ("G3 Y4", None),
        ("G3 Y3 R3 G4 Y4 R4", None),
        ("G5 Y6 R7 G8 Y9 R10", None),
    ],
)
def test_rules_examples_classify(text: str, expected: ComboKind | None) -> None:
    if text == "G3 G3 G3":
        with pytest.raises(ImpossibleCardsError):
            classify(text)
        return
    assert kind(text) is expected


def test_canonical_text() -> None:
    assert str(Combo.parse("G3 Y3 R3 GP YP")) == "R3 Y3 G3 YP GP"
    assert str(Combo.parse("y7 g3 r5 g6 y4")) == "Y7 G6 R5 Y4 G3"
    assert str(Combo.parse("R5 R5 R1 M1 R1")) == "M1 R1 R1 R5 R5"
    assert str(Combo.parse("G9 G9 Y2 Y2 R2")) == "R2 Y2 Y2 G9 G9"
    assert repr(Combo.parse("YP GP")) == "Combo.parse('YP GP')"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("R7", "R7", False),  # the second R7 on R7
        ("G2 Y2", "G2 Y2", False),
        ("Y2 G2", "Y1 M1", True),
        ("M1", "R1", True),
        ("G2", "M1", True),
        ("RD", "YP", True),
        ("YP", "RD", False),
        ("GP YP", "R10 R10", True),
        ("R10 R10", "R10 Y10", True),
        ("R10 G10", "Y10 Y10", True),  # card by card: R10 > Y10 first
        ("G3 G3", "Y3 G3", False),
        ("G3 Y4 R5 G6 Y7", "G3 G5 G7 G8 G9", False),  # straight < flush
        ("G3 G5 G7 G8 G9", "R6 Y7 R8 G9 Y10", True),
        ("G3 G3 Y3 G2 G2", "R10 R10 R8 R7 R6", True),  # full house > flush
        ("R2 R3 R4 R5 R6", "G10 G10 Y10 YP GP", True),  # straight flush > full house
        ("G3 Y3 R3 Y2 G2", "G2 Y2 R2 YP GP", True),  # full house: the triple first
        ("R3 R3 Y3 G2 G2", "R3 R3 Y3 Y2 G2", False),  # equal triples: the pair decides
        ("R3 R3 Y3 Y2 G2", "R3 R3 Y3 G2 G2", True),
        ("M1 G2 G3 G4 G5", "G1 G2 G3 G4 G5", True),  # M1 sorts as the highest 1
        ("G2 Y3 R4 G5 Y6", "Y1 Y2 Y3 Y4 Y5", False),
        ("G9 G9 Y9 R9", "RD", True),  # gangs beat every non-gang
        ("G2 Y2 R2 R2", "R10 R9 R8 R7 R6", True),
        ("G2 Y2 R2 R2", "G3 G4 G5 G6 Y7", True),
        ("G3 G3 Y3 R3 R3", "G10 G10 Y10 R10", True),  # more cards beats fewer
        ("G10 G10 Y10 R10", "G3 G3 Y3 R3 R3", False),
        ("G10 Y10 R10 R10", "G9 G9 Y9 R9", True),  # equal size: higher value
        ("R5 R5 Y5 G5", "R5 Y5 Y5 G5", True),  # equal value: card by card by colour
        ("R5 Y5 Y5 G5", "R5 R5 Y5 G5", False),
        ("G4 Y4", "G3", False),  # sizes must match
        ("G7 Y7 R7", "G3 G3", False),
    ],
)
def test_rules_examples_beat(a: str, b: str, expected: bool) -> None:
    assert beats(a, b) is expected
    assert Combo.parse(a).beats(b) is expected


def test_anything_may_lead() -> None:
    assert beats("G2", None) and beats("R5 R5 Y5 G5", None)


def test_legal_plays_following_and_leading() -> None:
    plays = legal_plays("G2 Y2 G9 Y9 R9 R9", "M1 Y1")
    assert [str(c) for c in plays] == ["Y2 G2", "Y9 G9", "R9 G9", "R9 Y9", "R9 R9", "R9 R9 Y9 G9"]
    assert [str(c) for c in legal_plays("G5 RD", "RD")] == []
    assert [str(c) for c in legal_plays("G5 RD", "YP")] == ["RD"]
    leads = legal_plays("G1 G1 Y1 R1 M1 RD")
    assert len(leads) == 24 and all(isinstance(c, Combo) for c in leads)
    assert Combo.parse("M1 R1 Y1 G1 G1") in leads
    # A gang on the table is beaten only by higher gangs.
    assert [str(c) for c in legal_plays("G9 G9 Y9 R9 G3 G3 Y3 R3", "G5 Y5 R5 R5")] == ["R9 Y9 G9 G9"]


def test_legal_plays_are_distinct_and_sub_multisets() -> None:
    hand = "G3 G3 Y3 R3 R3 G4 Y5 R6 G7 G7 M1 Y1 YP GP RD R10"
    plays = legal_plays(hand)
    assert len(plays) == len(set(plays))
    have = hand_mask(hand)
    assert all(c.mask & ~have == 0 for c in plays)
    assert [c.action for c in plays] == sorted(c.action for c in plays)


def test_legal_mask_matches_legal_actions() -> None:
    hand = hand_mask("G3 G3 Y3 R3 R3 G4 Y5 R6 G7 G7 M1 Y1 YP GP RD R10")
    for table in (-1, combo_to_action("G3"), combo_to_action("Y4 G4"), combo_to_action("R4 R4 Y4 G4")):
        mask = legal_mask(hand, table)
        assert mask.dtype == np.bool_ and mask.shape == (NUM_ACTIONS,)
        actions = legal_actions(hand, table)
        assert actions.dtype == np.int32
        assert np.flatnonzero(mask).tolist() == actions.tolist()


def test_action_space_api() -> None:
    assert action_to_combo(0) == Combo.parse("G1")
    assert combo_to_action("GP YP") == 97
    assert combo_to_action(Combo.parse("RD")) == 33
    assert pickle.loads(pickle.dumps(Combo.parse("G5 G5"))) is Combo.parse("G5 G5")
    assert action_to_combo(np.int32(5)) is action_to_combo(5)
    with pytest.raises(InvalidComboError, match="12352 is not an action index"):
        action_to_combo(12352)
    with pytest.raises(InvalidTypeError):
        action_to_combo("5")  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        Combo.parse("G5").foo = 1


def test_errors_name_the_input() -> None:
    with pytest.raises(InvalidComboError, match=r"'G3 Y4' is not a combination"):
        Combo.parse("G3 Y4")
    with pytest.raises(InvalidComboError, match=r"'G5 Y6' is not a combination"):
        beats("G5 Y6", None)
    with pytest.raises(InvalidComboError, match=r"table action 99999 is not an action index"):
        legal_actions(hand_mask("G5"), 99999)
    with pytest.raises(InvalidComboError):
        legal_mask("G5", -2)
    with pytest.raises(ImpossibleCardsError, match="not canonical"):
        legal_actions(0b10)
    with pytest.raises(ImpossibleCardsError, match="not canonical"):
        classify_mask(0b10)
    with pytest.raises(ImpossibleCardsError, match="does not fit"):
        classify_mask(-1)
    with pytest.raises(InvalidTypeError):
        classify_mask("G5")  # type: ignore[arg-type]
    with pytest.raises(FourCardsError):
        legal_plays("G5 G5 G5")


@pytest.mark.parametrize(
    ("left", "points"),
    [(0, 0), (1, 1), (5, 5), (7, 7), (8, 16), (10, 20), (11, 33), (13, 39), (14, 56), (15, 60), (16, 80)],
)
def test_penalty_table(left: int, points: int) -> None:
    assert penalty(left) == points


def test_penalty_bad_input() -> None:
    with pytest.raises(ImpossibleCardsError, match="cards_left 17"):
        penalty(17)
    with pytest.raises(ImpossibleCardsError):
        penalty(-1)
    with pytest.raises(InvalidTypeError):
        penalty(2.0)  # type: ignore[arg-type]


def test_every_five_card_set_of_one_value_pattern_is_the_higher_kind() -> None:
    # A set that fits two kinds is the higher one: no straight is monochrome and
    # no flush is a full house or consecutive.
    for combo in all_combos():
        if combo.kind is ComboKind.STRAIGHT:
            colours = {c.colour for c in combo.cards if c != Card.parse("M1")}
            assert len(colours) > 1
        if combo.kind is ComboKind.FLUSH:
            values = sorted(c.value or 0 for c in combo.cards)
            assert values != list(range(values[0], values[0] + 5))
            assert sorted(values.count(v) for v in set(values)) != [2, 3]
