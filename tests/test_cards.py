"""Cards: notation, order, masks, and errors on bad input."""

from __future__ import annotations

import copy
import pickle

import pytest

from fourcards import FourCardsError, ImpossibleCardsError, InvalidCardError
from fourcards.gangoffour import DECK, KINDS, Card, format_cards, hand_mask, mask_cards, parse_cards
from fourcards.errors import InvalidTypeError

ALL_NOTATIONS = (
    [f"{c}{v}" for v in range(1, 11) for c in "GYR"] + ["M1", "GP", "YP", "RD"]
)


def test_34_notations_round_trip() -> None:
    assert len(ALL_NOTATIONS) == 34
    seen = set()
    for text in ALL_NOTATIONS:
        card = Card.parse(text)
        assert str(card) == text
        assert Card.parse(text.lower()) is card
        assert Card.parse(f"  {text.lower()} ") is card
        assert eval(repr(card)) is card
        seen.add(card)
    assert seen == set(KINDS)


def test_card_order_follows_the_rules() -> None:
    expected = ["G1", "Y1", "R1", "M1", "G2", "Y2", "R2", "G3"]
    assert [str(c) for c in sorted(KINDS)][:8] == expected
    assert [str(c) for c in sorted(KINDS)][-4:] == ["R10", "GP", "YP", "RD"]
    assert Card.parse("R10") < Card.parse("GP") < Card.parse("YP") < Card.parse("RD")
    assert Card.parse("M1") > Card.parse("R1") and Card.parse("M1") < Card.parse("G2")
    assert [c.code for c in KINDS] == list(range(34))


def test_card_properties() -> None:
    assert Card.parse("Y7").value == 7 and Card.parse("Y7").colour == "Y"
    assert Card.parse("M1").value == 1 and Card.parse("M1").colour == "M"
    assert Card.parse("GP").value is None and Card.parse("GP").is_phoenix
    assert Card.parse("RD").is_dragon and not Card.parse("R10").is_dragon
    assert Card.parse("R10").copies == 2 and Card.parse("M1").copies == 1


def test_deck_holds_64_cards() -> None:
    assert len(DECK) == 64
    assert sum(1 for c in DECK if c.value is not None and c.colour in "GYR") == 60
    assert list(DECK) == sorted(DECK)
    assert hand_mask(list(DECK)) == (1 << 64) - 1


def test_card_is_frozen_and_keeps_identity() -> None:
    card = Card.parse("G5")
    with pytest.raises(AttributeError):
        card._code = 3
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.deepcopy(card) is card
    with pytest.raises(InvalidTypeError):
        Card("G5")
    assert hash(card) == hash(Card.parse("g5"))


@pytest.mark.parametrize("text", ["G11", "B3", "", "M2", "PG", "R 7", "G0", "RD1"])
def test_bad_card_text(text: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        Card.parse(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, FourCardsError) and isinstance(info.value, ValueError)


def test_bad_card_in_hand_text_names_token_and_input() -> None:
    with pytest.raises(InvalidCardError, match=r"'X9' in 'G3 X9 R5' is not a card"):
        parse_cards("G3 X9 R5")


def test_wrong_types() -> None:
    with pytest.raises(InvalidTypeError):
        Card.parse(7)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        Card.from_code("G1")  # type: ignore[arg-type]
    with pytest.raises(InvalidCardError, match="34 is not a card code"):
        Card.from_code(34)
    with pytest.raises(InvalidTypeError):
        parse_cards(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        parse_cards([Card.parse("G1"), 3])  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError):
        hand_mask(Card.parse("G1"))  # type: ignore[arg-type]


def test_parse_accepts_commas_and_mixed_iterables() -> None:
    assert parse_cards("g3,y4  R5") == [Card.parse("G3"), Card.parse("Y4"), Card.parse("R5")]
    assert parse_cards(["G3", Card.parse("Y4")]) == [Card.parse("G3"), Card.parse("Y4")]
    assert format_cards(parse_cards("r10 gp")) == "R10 GP"


def test_masks_are_canonical_and_subsets_are_and_not() -> None:
    assert hand_mask("G1") == 1 and hand_mask("G1 G1") == 0b11
    assert hand_mask("M1") == 1 << 6 and hand_mask("RD") == 1 << 63
    small, big = hand_mask("G5 R7"), hand_mask("G5 G5 R7 YP")
    assert small & ~big == 0 and big & ~small != 0
    for text in ["G1 G1 M1", "R10 R10 RD", "Y4 Y4 G3 R2"]:
        assert hand_mask(mask_cards(hand_mask(text))) == hand_mask(text)
    assert hand_mask(hand_mask("G2 Y2")) == hand_mask("G2 Y2")
    assert hand_mask(()) == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("R7 R7 R7", "3 x R7 in 'R7 R7 R7': the deck holds 2 copies of R7"),
        ("M1 M1", "2 x M1 in 'M1 M1': the deck holds one copy of M1"),
        ("RD G2 RD", "2 x RD"),
    ],
)
def test_impossible_sets(text: str, message: str) -> None:
    with pytest.raises(ImpossibleCardsError) as info:
        hand_mask(text)
    assert message in str(info.value)
    with pytest.raises(ImpossibleCardsError):
        hand_mask(parse_cards(text))


def test_more_than_64_cards_is_impossible() -> None:
    with pytest.raises(ImpossibleCardsError, match="the deck holds"):
        hand_mask(list(DECK) + [Card.parse("G5")])


def test_bad_masks() -> None:
    with pytest.raises(ImpossibleCardsError, match="not canonical.*second G1"):
        hand_mask(0b10)
    with pytest.raises(ImpossibleCardsError, match="does not fit in 64 bits"):
        hand_mask(1 << 64)
    with pytest.raises(ImpossibleCardsError, match="does not fit in 64 bits"):
        hand_mask(-1)
