"""Four Color Cards game: flow, claims and their priority, scoring, the contract."""

from __future__ import annotations

import random

import pytest

from fourcards import IllegalMoveError, InvalidRulesError
from fourcards.fourcolor import _deck
from fourcards.fourcolor.game import (
    CLAIM_BASE, HU, MELD_INDEX, PASS, Claimed, FourColor, FourColorState, Offer, RoundEnd, Rules,
)

pytestmark = pytest.mark.engine


def counts(text: str) -> list[int]:
    out = [0] * 28
    for name in text.split():
        out[_deck.CODE_OF[name]] += 1
    return out


def claim(*names: str) -> int:
    return CLAIM_BASE + MELD_INDEX[tuple(sorted(_deck.CODE_OF[n] for n in names))]


def position(hands: list[str], stock: str = "", **rules: object) -> FourColorState:
    """Seat 0 to discard, with these hands and stock (its top card last)."""
    return FourColor(players=len(hands), **rules).from_position(hands=hands, stock=stock)


def test_deal() -> None:
    s = FourColor().new_match(3)
    assert s.hand_sizes == (21, 20, 20, 20) and s.current_player == 0 and s.phase == "discard"
    assert s.card_count() == 112 and len(s._stock) == 31
    assert all(a % 7 != _deck.GENERAL for a in s.legal_actions())


def test_generals_are_never_discarded() -> None:
    s = position(["RG RA RA", "YC YC", "WS"])
    assert s.legal_actions() == [_deck.CODE_OF["RA"]]
    with pytest.raises(IllegalMoveError, match="never discarded"):
        s.apply(_deck.CODE_OF["RG"])


def test_claims_are_asked_in_order_and_hu_beats_pong_beats_chi() -> None:
    # Seat 0 discards RC: seat 1 (next) may chi with RH RN, seat 2 may pong, seat 3 may hu.
    s = position(["RC WA", "RH RN WA", "RC RC GS", "RC YG"], stock="WS WS WS")
    s.apply(_deck.CODE_OF["RC"])
    assert s.phase == "claim" and s.current_player == 1
    assert claim("RC", "RH", "RN") in s.legal_actions() and HU not in s.legal_actions()
    s.apply(claim("RC", "RH", "RN"))
    assert s.current_player == 2 and s.observation(3).answered == 1
    assert claim("RC", "RC", "RC") in s.legal_actions()
    s.apply(claim("RC", "RC", "RC"))
    assert s.current_player == 3 and HU in s.legal_actions()  # RC RC (pair) + YG alone
    s.apply(HU)
    end = next(r for r in s.history if isinstance(r, RoundEnd))
    assert end.winner == 3


def test_pong_beats_chi() -> None:
    s = position(["RC WA", "RH RN WA", "RC RC GS", "WN"], stock="WS WS WS")
    s.apply(_deck.CODE_OF["RC"])
    s.apply(claim("RC", "RH", "RN"))
    s.apply(claim("RC", "RC", "RC"))
    if s.current_player == 3:
        s.apply(PASS)
    claimed = [r for r in s.history if isinstance(r, Claimed)]
    assert claimed[-1].player == 2 and s.phase == "discard" and s.current_player == 2
    assert s._exposed[2] == [tuple(sorted([_deck.CODE_OF["RC"]] * 3))]


def test_only_the_next_player_may_chi_a_discard() -> None:
    s = position(["RC WA", "WN", "RH RN GS", "YA"], stock="WS")
    s.apply(_deck.CODE_OF["RC"])
    # seat 2 holds RH RN but is not next after the discarder: no chi, so nobody is asked
    assert s.phase in ("claim", "discard") and not (s.phase == "claim" and s.current_player == 2)


def test_unclaimed_turned_card_is_laid_for_the_next_player_only() -> None:
    s = position(["WA WA", "YC", "YG YE GS", "RE"], stock="WH YA")
    s.apply(_deck.CODE_OF["WA"])
    # every seat the rules allow is asked (even with only a pass): being asked reveals nothing
    assert s.phase == "claim" and s.current_player == 1 and s.legal_actions() == [PASS]
    while s._offer is not None and s._offer.source != "laid":
        s.apply(PASS)  # nobody claims WA; seat 1 turns up YA, which nobody claims either
    offer = s._offer
    assert offer is not None and _deck.NAMES[offer.card] == "YA"
    assert offer.source == "laid" and offer.player == 1 and s.current_player == 2
    # laid for seat 2 only, who may now make any meld with it (a command set)
    assert claim("YG", "YA", "YE") in s.legal_actions()
    s.apply(claim("YG", "YA", "YE"))
    assert s.phase == "discard" and s.current_player == 2


def test_dead_stock_ends_the_round_without_scores() -> None:
    s = position(["WA WS", "YC", "GS", "RE"], stock="")
    s.apply(_deck.CODE_OF["WA"])
    while not any(isinstance(r, RoundEnd) for r in s.history):
        s.apply(s.legal_actions()[0] if PASS not in s.legal_actions() else PASS)
    end = next(r for r in s.history if isinstance(r, RoundEnd))
    assert end.winner == -1 and end.payments == (0, 0, 0, 0) and end.reason == "the stock ran out"


def hu_on_a_turned_up_general(s: FourColorState) -> RoundEnd:
    """Seat 0 discards WN; seat 1 passes and turns up RG, which it must meld; seat 0 calls hu with it."""
    s.apply(_deck.CODE_OF["WN"])
    s.apply(PASS)
    assert s.phase == "claim" and s.current_player == 1 and PASS not in s.legal_actions()
    s.apply(claim("RG"))
    assert s.current_player == 0 and HU in s.legal_actions()
    s.apply(HU)
    return next(r for r in s.history if isinstance(r, RoundEnd))


def test_scoring_threshold_false_win_and_lucky_card() -> None:
    # 2 players: seat 0 wins with a concealed quad (8) + concealed triple (3) + lone General (1) + lucky YA:
    # the lucky card counts the three YA seat 0 owns.
    end = hu_on_a_turned_up_general(position(["RC RC RC RC YA YA YA WN", "WS"], stock="YA RG"))
    assert end.winner == 0 and end.points == 12 and end.lucky == 3
    assert end.payments == (15 - 10 + 1, -(15 - 10 + 1))
    # 3 + lone General exposed 1 = 4 < 10: a false win
    end = hu_on_a_turned_up_general(position(["YA YA YA WN", "WS"], stock="GS RG"))
    assert end.points == 4 and end.lucky == 0 and end.payments == (-11, 11)
    # lucky_rank_only: the lucky GA counts every Advisor seat 0 owns
    end = hu_on_a_turned_up_general(position(["YA YA YA WN", "WS"], stock="GA RG", lucky_rank_only=True))
    assert end.lucky == 3


def test_only_generals_left_ends_the_round_as_a_hu() -> None:
    s = position(["RG YG", "WA"], stock="WS WS")  # seat 0 must discard but holds only Generals
    end = next(r for r in s.history if isinstance(r, RoundEnd))
    assert end.winner == 0 and end.reason == "only Generals left" and end.points == 2


def test_game_of_three_rounds_and_rules() -> None:
    s = FourColor(rounds=2).new_match(5)
    rng = random.Random(5)
    while not s.is_terminal:
        s.apply(rng.choice(s.legal_actions()))
    assert sum(isinstance(r, RoundEnd) for r in s.history) == 2 and s.winners
    with pytest.raises(InvalidRulesError):
        Rules(players=5)


def test_observation_hides_hands_and_answers() -> None:
    s = position(["RC WA", "RH RN WA", "RC RC GS", "RC YG"], stock="WS WS WS")
    s.apply(_deck.CODE_OF["RC"])
    s.apply(claim("RC", "RH", "RN"))
    obs = s.observation(3)
    assert obs.answered == 1 and obs.hand == tuple(counts("RC YG"))
    t = s.clone()
    t._hands[0], t._hands[2] = t._hands[2], t._hands[0]
    assert t.observation(3).exposed == obs.exposed
    tensor = s.observation_tensor(3)
    assert tensor.shape == (s.game.observation_size,) and tensor[:28].sum() == 2
    assert Offer(0, "discard", 0).source == "discard"


def test_bots_play_legal_moves_from_their_observation() -> None:
    from fourcards.engine import play_match
    from fourcards.fourcolor.bots import GreedyBot, RandomBot

    state = play_match(FourColor(rounds=1).new_match(2), [GreedyBot(), RandomBot(1), RandomBot(2), GreedyBot()])
    assert state.is_terminal and sum(state.scores) == 0
    s = FourColor().new_match(4)
    obs = s.observation(0)
    t = s.clone()
    t._hands[1], t._hands[2] = t._hands[2], t._hands[1]
    assert t.observation(0) == obs
    assert GreedyBot().choose(obs, s.legal_actions()) == GreedyBot().choose(t.observation(0), t.legal_actions())
