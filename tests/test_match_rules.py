"""Gang of Four match rules, one scenario each (stacked deals, scripted play)."""

from __future__ import annotations

import pytest

from fourcards import IllegalMoveError, InvalidRulesError, InvalidStateError, NotYourTurnError
from fourcards.gangoffour import DECK, Card, Combo, action_to_combo, hand_mask
from fourcards.gangoffour.match import (
    ANNOUNCE_BASE, GIVE_BACK_BASE, PASS, CardGiven, GangOfFour, MatchEnd, Played, RoundEnd,
    RoundStart, Rules,
)

from .gof_helpers import match, moves, stack
from fourcards.errors import InvalidTypeError

pytestmark = pytest.mark.engine

# Seat 0 can go out in four leads: three straights and a last card G3.
QUICK = "M1 Y2 Y3 R4 G5 G6 Y7 R8 G9 Y10 Y6 R7 G8 Y9 R10 G3"
STRAIGHTS = ("M1 Y2 Y3 R4 G5", "G6 Y7 R8 G9 Y10", "Y6 R7 G8 Y9 R10")


def play_strs(state: object) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]  # type: ignore[attr-defined]


def test_round_one_lead_contains_m1_and_has_at_most_five_cards() -> None:
    s = match("M1 G1 G1 Y1 Y1 R1 R1 G2 Y2 R2 G3 Y3 R3 G4 Y4 R4")
    assert s.current_player == 0
    leads = [action_to_combo(a) for a in s.legal_actions()]
    assert leads and all(Card.parse("M1") in c.cards and len(c) <= 5 for c in leads)
    assert Combo.parse("M1 R1 R1 Y1 Y1 G1 G1") not in leads  # gang of 7: too long
    assert Combo.parse("M1 R1 Y1 Y1 G1") in leads  # gang of 5 with M1
    with pytest.raises(IllegalMoveError, match="must contain M1"):
        s.play("G2")
    with pytest.raises(IllegalMoveError, match="at most five cards"):
        s.play("M1 R1 R1 Y1 Y1 G1")
    with pytest.raises(IllegalMoveError, match="leader must play"):
        s.pass_()
    s.play("M1 G1")
    s.pass_()
    assert s.table == Combo.parse("M1 G1")


def test_only_the_first_lead_needs_m1() -> None:
    s = match(QUICK)
    moves(s, STRAIGHTS[0], "pass", "pass", "pass")
    assert s.current_player == 0 and s.table is None
    s.play("G3")  # no M1 needed any more


def test_passing_is_allowed_holding_a_play_and_the_cycle_ends_after_all_others_pass() -> None:
    s = match(QUICK, "R2 R3 R5 R6 R9 Y4")
    moves(s, STRAIGHTS[0])
    assert s.current_player == 1 and PASS in s.legal_actions() and len(s.legal_actions()) > 1
    moves(s, "pass", "pass")
    assert s.table is not None and s.current_player == 3
    moves(s, "pass")
    assert s.table is None and s.current_player == 0


def test_a_pass_is_not_final_by_default_and_is_with_the_option() -> None:
    hands = ("M1 Y9 R9 RD", "G2 Y2 R2 G3", "G5 Y5 R5 G6")
    for final, expected in ((False, 1), (True, 2)):
        s = match(*hands, pass_is_final=final)
        moves(s, "M1", "pass", "G5", "pass", "Y9")  # seats 1 and 3 passed in this cycle
        assert s.current_player == expected
        assert s.observation(0).passed[1] is final
    s = match(*hands, pass_is_final=True)
    moves(s, "M1", "pass", "G5", "pass", "Y9", "pass")
    # seat 2 passed too: every other seat has passed in this cycle, seat 0 leads
    assert s.table is None and s.current_player == 0


def test_round_ends_at_once_on_the_last_card_with_penalties() -> None:
    s = match(QUICK)
    for lead in STRAIGHTS:
        moves(s, lead, "pass", "pass", "pass")
    assert s.hand_sizes[0] == 1
    record = s.play("G3")
    end = next(r for r in s.history if isinstance(r, RoundEnd))
    assert isinstance(record, Played) and record.cards_left == 0
    assert end.winner == 0 and end.penalties == (0, 80, 80, 80) and s.scores == (0, 80, 80, 80)
    assert s.round == 2


def test_direction_alternates_and_the_winner_leads_after_the_exchange() -> None:
    s = match(QUICK)
    assert s.direction == 1
    for lead in STRAIGHTS:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, "G3")
    assert s.round == 2 and s.direction == -1
    # Loser: all hold 16 with equal totals, so the seat nearest the winner counter-clockwise.
    given = [r for r in s.history if isinstance(r, CardGiven)]
    assert given[-1].giver == 1 and given[-1].receiver == 0 and given[-1].automatic
    assert s.phase == "give-back" and s.current_player == 0
    assert all(GIVE_BACK_BASE <= a < ANNOUNCE_BASE for a in s.legal_actions())
    with pytest.raises(IllegalMoveError, match="give a card back"):
        s.pass_()
    received = given[-1].card
    assert received == max(s.hand(0)) or received in s.hand(0)
    s.give_back(received)  # the card just received may go back
    assert s.phase == "play" and s.current_player == 0 and s.hand_sizes == (16, 16, 16, 16)
    last = s.history[-1]
    assert isinstance(last, CardGiven) and not last.automatic and last.receiver == 1
    obs = s.observation(3)
    assert obs.exchange is not None and obs.exchange.given == received and obs.exchange.returned == received
    # clockwise now: seat 0 -> 3 -> 2 -> 1
    s.play(str(min(s.hand(0))))
    assert s.current_player == 3


def test_the_loser_gives_their_highest_card() -> None:
    s = match(QUICK)
    for lead in STRAIGHTS:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, "G3")
    given = [r for r in s.history if isinstance(r, CardGiven)][-1]
    start = [r for r in s.history if isinstance(r, RoundStart)][-1]
    assert start.round == 2
    # seat 1's round-2 hand before the exchange had the given card as its highest
    assert all(c <= given.card for c in s.hand(1))


def loser(totals: list[int], winner: int, cards_left: list[int]) -> int:
    """Who gives the winner a card: ``winner`` goes out with RD, the others holding ``cards_left``."""
    deck = [str(card) for card in DECK if str(card) != "RD"]
    hands = []
    for seat, count in enumerate(cards_left):
        hands.append("RD" if seat == winner else " ".join(deck[:count]))
        deck = deck if seat == winner else deck[count:]
    s = GangOfFour(target_score=1000).from_position(hands=hands, current=winner, totals=totals, round=2)
    s.play("RD")
    given = next(r for r in s.history if isinstance(r, CardGiven))
    assert given.receiver == winner and given.automatic
    return given.giver


def test_loser_ties_break_by_total_then_nearest_counter_clockwise() -> None:
    assert loser([10, 5, 30, 30], 0, [0, 16, 16, 16]) == 2  # equal cards: the highest total, then nearest
    assert loser([10, 5, 30, 30], 0, [0, 16, 12, 16]) == 3
    assert loser([10, 5, 30, 30], 2, [5, 5, 0, 5]) == 3  # totals 10/5/-/30 -> seat 3
    assert loser([7, 7, 7, 7], 2, [5, 5, 0, 5]) == 3  # everything equal: the next seat from the winner
    assert loser([7, 7, 7, 7], 3, [5, 5, 5, 0]) == 0


def test_automatic_last_card_constrains_the_player_before() -> None:
    s = match(QUICK, "R2 R3 R5 R6 R9 Y4 GP", "", "RD YP")
    for lead in STRAIGHTS[:2]:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, STRAIGHTS[2])
    assert s.history[-1].announced and s.observation(2).announced[0]
    moves(s, "R2 R3 R5 R6 R9", "pass", "pass", "pass")  # seat 1's flush wins the cycle
    assert s.current_player == 1 and s.table is None
    moves(s, "Y4", "pass")
    assert s.current_player == 3  # the player before the one-card seat 0
    highest = max(s.hand(3))
    assert str(highest) == "RD"
    legal = play_strs(s)
    assert "RD" in legal and "pass" not in legal
    assert all(s.action_to_string(a) == "RD" or action_to_combo(a).kind.name == "GANG"
               for a in s.legal_actions())
    with pytest.raises(IllegalMoveError, match="highest single"):
        s.play("YP")
    with pytest.raises(IllegalMoveError, match="highest single"):
        s.pass_()
    s.play("RD")


def test_last_card_may_pass_option() -> None:
    s = match(QUICK, "R2 R3 R5 R6 R9 Y4 GP", "", "RD YP", last_card_may_pass=True)
    for lead in STRAIGHTS[:2]:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, STRAIGHTS[2], "R2 R3 R5 R6 R9", "pass", "pass", "pass", "Y4", "pass")
    legal = play_strs(s)
    assert "pass" in legal and "RD" in legal and "YP" not in legal


def test_leading_before_a_one_card_player() -> None:
    s = match(QUICK, "R2 R3 R5 R6 R9 Y4 GP", "", "RD YP")
    for lead in STRAIGHTS[:2]:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, STRAIGHTS[2], "R2 R3 R5 R6 R9", "pass", "pass", "pass", "Y4", "pass", "RD", "pass", "pass", "pass")
    assert s.current_player == 3 and s.table is None
    leads = [action_to_combo(a) for a in s.legal_actions()]
    assert leads and all(len(c) > 1 for c in leads)  # seat 3 holds pairs: no single lead
    with pytest.raises(IllegalMoveError, match="not a single"):
        s.play("YP")


def test_leading_only_singles_before_a_one_card_player_means_the_highest() -> None:
    # round 3 (counter-clockwise, as round 1): seat 3 leads, and seat 0 next holds one card
    s = GangOfFour().from_position(hands=["G3", "G5 Y7 R9", "G10 Y10 R10 GP", "Y2 R4 G6 Y8"], current=3, round=3)
    assert play_strs(s) == ["Y8"]


def test_manual_last_card_announcing_forms_and_forgetting() -> None:
    s = match(QUICK, manual_last_card=True)
    assert s.game.num_distinct_actions == ANNOUNCE_BASE + 12352
    for lead in STRAIGHTS[:2]:
        moves(s, lead, "pass", "pass", "pass")
    announce = ANNOUNCE_BASE + Combo.parse(STRAIGHTS[2]).action
    assert announce in s.legal_actions() and Combo.parse(STRAIGHTS[2]).action in s.legal_actions()
    moves(s, STRAIGHTS[2], "pass", "pass", "pass")  # no announcement
    assert not s.observation(1).announced[0]
    s.play("G3")  # the last card, unannounced: seat 0 is out, not the winner
    assert s.round == 1 and s.observation(1).out[0] and s.current_player == 1
    with pytest.raises(IllegalMoveError):
        s.apply(ANNOUNCE_BASE + Combo.parse("G2").action)


def test_manual_last_card_announced_wins() -> None:
    s = match(QUICK, manual_last_card=True)
    for lead in STRAIGHTS[:2]:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, STRAIGHTS[2] + " !", "pass", "pass", "pass", "G3")
    assert s.round == 2 and s.scores == (0, 80, 80, 80)


def test_forgetful_player_scores_one_and_the_next_to_go_out_wins() -> None:
    s = match(QUICK, "G1 G1 Y1 Y1 R1 R1 G4 G4 Y4 Y4 R4 R5 R5 Y5 G2 G2", manual_last_card=True,
              target_score=1000)
    for lead in STRAIGHTS[:2]:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, STRAIGHTS[2], "pass", "pass", "pass", "G3")
    assert s.observation(2).out[0] and s.round == 1
    # the table's player is out: the cycle's lead goes to the next seat in the round
    moves(s, "pass", "pass", "pass")
    assert s.table is None and s.current_player == 1
    moves(s, "R1 R1 Y1 Y1 G1 G1", "pass", "pass", "R4 Y4 Y4 G4 G4", "pass", "pass")
    assert s.current_player == 1 and s.hand_sizes[1] == 5
    s.play("R5 R5 Y5 G2 G2")  # out with a multi-card combination: no announcement needed
    end = next(r for r in s.history if isinstance(r, RoundEnd))
    assert end.winner == 1 and end.forgot_last_card == (0,)
    assert end.penalties == (1, 0, 80, 80) and s.round == 2


def test_match_ends_at_the_target_with_shared_wins() -> None:
    game = GangOfFour(target_score=100)
    second = stack("", QUICK.replace("M1", "G1").replace("G3", "M1"))
    s = game.new_match(1, deals=[stack(QUICK), second])
    for lead in STRAIGHTS:
        moves(s, lead, "pass", "pass", "pass")
    moves(s, "G3")
    assert not s.is_terminal and s.scores == (0, 80, 80, 80)
    assert s.current_player == 0  # give back first
    s.give_back(str(s.hand(0)[0]))
    # round 2: seat 1 holds the quick hand (seat 0 leads, clockwise: 0 -> 3 -> 2 -> 1)
    while not s.is_terminal:
        player = s.current_player
        if player == 1:
            plays = [action_to_combo(a) for a in s.legal_actions() if a < 12352]
            five = [c for c in plays if len(c) == 5]
            s.play(five[0] if five else plays[-1])
        elif s.table is None:
            s.play(str(min(s.hand(player))))
        else:
            s.pass_()
    assert s.is_terminal and s.current_player == -1 and s.legal_actions() == []
    totals = s.scores
    assert max(totals) >= 100 and s.winners == tuple(p for p in range(4) if totals[p] == min(totals))
    assert isinstance(s.history[-1], MatchEnd)
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply(PASS)


def test_shared_win() -> None:
    s = GangOfFour(target_score=1).from_position(hands=["G2", "G3 G4", "Y3", "Y4 Y5"], current=0, round=2)
    s.play("G2")
    assert s.is_terminal and s.winners == (0,)
    t = GangOfFour(target_score=5).from_position(hands=["G2 G3", "Y9", "Y3 Y4", "R5 R6"], current=1,
                                                 totals=[4, 0, 4, 0], round=2)
    t.play("Y9")  # seat 1 wins the round, seat 3 scores its cards
    assert t.winners == (1,) and t.is_terminal
    u = GangOfFour(target_score=81).from_position(hands=["G2", "Y9", "G3", "G4"], current=1,
                                                  totals=[0, 80, 0, 80], round=2)
    u.play("Y9")
    assert u.is_terminal and u.scores == (1, 80, 1, 81) and u.winners == (0, 2)


@pytest.mark.parametrize("players", [2, 3])
def test_fewer_players_set_cards_aside_and_without_m1_the_next_seat_after_the_dealer_leads(players: int) -> None:
    s = match(spare="M1", players=players, dealer=0)
    assert all(not (h & hand_mask("M1")) for h in s._hand_masks())
    assert s.hand_sizes == (16,) * players
    assert s.current_player == 1  # to the right of the dealer: the next seat counter-clockwise
    assert any(len(action_to_combo(a)) == 1 and action_to_combo(a).cards[0] != Card.parse("M1")
               for a in s.legal_actions())
    default = GangOfFour(players=players).new_match(4)
    assert default.game.rules.dealer == players - 1
    assert sum(default.hand_sizes) == 16 * players


def test_dealer_and_chinese_dealing() -> None:
    plain = GangOfFour(dealer=2).new_match(9)
    start = plain.history[0]
    assert isinstance(start, RoundStart) and start.dealer == 2 and start.first_dealt == 3
    chinese = GangOfFour(dealer=2, chinese_dealing=True).new_match(9)
    first = chinese.history[0]
    assert isinstance(first, RoundStart)
    # the same shuffle: the dealt cards are the same multiset, seat by seat rotated
    hands_plain = plain._hand_masks()
    hands_chinese = chinese._hand_masks()
    shift = (first.first_dealt - start.first_dealt) % 4
    assert hands_chinese == tuple(hands_plain[(p - shift) % 4] for p in range(4))
    assert any(GangOfFour(chinese_dealing=True).new_match(s).history[0].first_dealt != 0
               for s in range(10))


def test_rules_validation() -> None:
    with pytest.raises(InvalidRulesError, match="2, 3 or 4"):
        Rules(players=5)
    with pytest.raises(InvalidRulesError, match="dealer=4"):
        Rules(dealer=4)
    with pytest.raises(InvalidRulesError, match="target_score"):
        Rules(target_score=0)
    with pytest.raises(InvalidRulesError, match="must be bool"):
        Rules(pass_is_final=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        GangOfFour(Rules(), players=3)


def test_bad_deals() -> None:
    with pytest.raises(InvalidStateError, match="must list 4 hands"):
        GangOfFour().new_match(1, deals=[["G1"]])
    with pytest.raises(InvalidStateError, match="gets 1 cards"):
        GangOfFour().new_match(1, deals=[["G1", "G2", "G3", "G4"]])
    hands = stack(QUICK)
    hands[1] = hands[0]
    with pytest.raises(InvalidStateError, match="more often than the deck"):
        GangOfFour().new_match(1, deals=[hands])


def test_errors_name_player_action_and_table_and_change_nothing() -> None:
    s = match(QUICK, "R2 R3 R5 R6 R9 Y4 GP")
    moves(s, STRAIGHTS[0])
    before = (s.to_json(), s._hand_masks(), s.history)
    with pytest.raises(IllegalMoveError) as info:
        s.play("G2 G2")
    message = str(info.value)
    assert "player 1" in message and "'G2 G2'" in message
    assert "table G5 R4 Y3 Y2 M1 by player 0" in message and "does not beat" in message
    with pytest.raises(IllegalMoveError, match="do not hold"):
        s.play("YP GP")
    with pytest.raises(NotYourTurnError, match="player 2 tried 'pass' but it is player 1's turn"):
        s.apply(PASS, player=2)
    with pytest.raises(IllegalMoveError, match="no card exchange"):
        s.apply(GIVE_BACK_BASE)
    with pytest.raises(IllegalMoveError, match="not an action"):
        s.apply(99999)
    with pytest.raises(InvalidTypeError):
        s.apply(1.5)  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="do not hold"):
        s.apply("YP GP")
    assert (s.to_json(), s._hand_masks(), s.history) == before
    assert not s.can_apply(PASS, player=2) and s.can_apply(PASS, player=1) and not s.can_apply(99999)
    assert s.can_apply("pass", player=1) and s.why_illegal("pass", player=2) == "it is not player 2's turn"


def test_with_pass_is_final_the_next_player_is_the_next_still_in_the_cycle() -> None:
    hands = ["G2 Y3 G4 Y6 R10", "Y10 G3", "R9", "G7 R7 Y8 G9 Y9"]
    s = GangOfFour(pass_is_final=True).from_position(hands=hands, current=0, table="G6", table_player=3, passed=[1])
    # seat 1 passed out of the cycle: seat 2, holding one card, is next, so seat 0 must play R10
    assert s._constrained() and [s.action_to_string(a) for a in s.legal_actions()] == ["R10"]
    t = GangOfFour().from_position(hands=hands, current=0, table="G6", table_player=3)
    # by default seat 1 is next (a pass lasts until the next play), and holds two cards
    assert not t._constrained() and "pass" in [t.action_to_string(a) for a in t.legal_actions()]


def test_chinese_dealing_counts_the_dealer_as_the_first_seat() -> None:
    from fourcards.gangoffour import _deck
    from fourcards.rng import Rng

    for seed in range(6):
        deck = [code for code in range(34) for _ in range(_deck.CAP[code])]
        Rng(seed).shuffle(deck)
        drawn = _deck.VALUE[deck[-1]]
        start = GangOfFour(dealer=1, chinese_dealing=True).new_match(seed).history[0]
        assert isinstance(start, RoundStart) and start.first_dealt == (1 + drawn - 1) % 4


def test_a_saved_match_with_bad_deals_is_refused() -> None:
    import json

    from fourcards.engine import _digest

    s = match(QUICK)
    data = json.loads(s.to_json())
    data["setup"]["deals"][0][0] = data["setup"]["deals"][0][0].replace("M1", "M9")
    data["digest"] = _digest(data)
    with pytest.raises(InvalidStateError, match="does not replay"):
        GangOfFour().from_json(json.dumps(data))
