"""Four Color Cards as the seed prints it (``shared/seeds/003``, Board Game Arena's
Italian guide): each test quotes the words it checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fourcards.fourcolor import Meld, MeldKind, best_split, is_complete, waits
from fourcards.fourcolor import _deck, _kernels
from fourcards.fourcolor.game import (
    CLAIM_BASE, HU, MELD_INDEX, MELDS, PASS, Claimed, FourColor, FourColorState, RoundEnd, Rules,
)
from fourcards.fourcolor.simulate import simulate

pytestmark = pytest.mark.engine

CODE = _deck.CODE_OF
GENERAL_QUADS = {CLAIM_BASE + i for i, m in enumerate(MELDS) if len(m) == 4 and m[0] == m[3] and m[0] % 7 == 0}


def claim(text: str) -> int:
    return CLAIM_BASE + MELD_INDEX[tuple(sorted(CODE[n] for n in text.split()))]


def texts(state: FourColorState) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions()]


def position(hands: list[str], stock: str = "", exposed: list[list[str]] | None = None,
             **rules: Any) -> FourColorState:
    return FourColor(players=len(hands), **rules).from_position(hands=hands, stock=stock, exposed=exposed)


def round_end(state: FourColorState) -> RoundEnd:
    return next(r for r in state.history if isinstance(r, RoundEnd))


# -- 1. a quad of Generals -------------------------------------------------------------------------

def test_a_player_holding_three_generals_claims_the_fourth_out_of_turn_as_a_kong() -> None:
    """"quadrupla (gan) dei Generali = 8/6 punti (terra/mano)"; "I giocatori possono fare
    una tripla (pong), quadrupla (gan) o una vittoria (hu) senza riguardo per l'ordine del
    giocatore"; "I Generali non vengono mai scartati": claiming a turned-up General is the
    only way to expose a quad of them, and it beats the revealer's lone General (a chi)."""
    s = position(["WN YC", "YC YH", "RG RG RG WA"], stock="WS RG")
    s.apply(CODE["WN"])
    while s.phase == "claim" and s._offer is not None and s._offer.source == "discard":
        s.apply(PASS)
    assert s._offer is not None and s._offer.source == "turned" and s._offer.player == 1
    assert s.current_player == 1 and texts(s) == ["claim RG"]  # the revealer must meld it
    s.apply(claim("RG"))
    assert s.current_player == 2 and texts(s) == ["pass", "claim RG RG RG RG"]
    s.apply(claim("RG RG RG RG"))
    assert s.current_player == 0 and texts(s) == ["pass"]
    s.apply(PASS)
    claimed = [r for r in s.history if isinstance(r, Claimed)]
    assert [(c.player, str(c.meld), c.meld.kind, c.meld.points) for c in claimed] == [
        (2, "RG RG RG RG", MeldKind.GENERAL_QUAD, 8)]
    assert s.phase == "discard" and s.current_player == 2 and s.legal_actions() == [CODE["WA"]]
    assert s.observation(0).exposed[2] == ((CODE["RG"],) * 4,)


def test_the_revealer_holding_three_generals_may_claim_the_quad_too() -> None:
    """The revealer of a General melds it ("I Generali non vengono mai scartati"): alone, in a
    command set, or, holding the other three, as a quad ("quadrupla (gan) dei Generali")."""
    s = position(["WN YC", "RG RG RG RA RE WS"], stock="WS RG")
    s.apply(CODE["WN"])
    s.apply(PASS)
    assert s.current_player == 1 and texts(s) == ["claim RG", "claim RG RG RG RG", "claim RG RA RE"]
    s.apply(claim("RG RG RG RG"))
    assert s.current_player == 0 and texts(s) == ["pass"]
    s.apply(PASS)
    assert s.phase == "discard" and s.current_player == 1
    assert [str(m) for r in s.history if isinstance(r, Claimed) for m in [r.meld]] == ["RG RG RG RG"]


def test_an_exposed_quad_of_generals_scores_8() -> None:
    """"quadrupla (gan) dei Generali = 8/6 punti (terra/mano)": 8 on the table."""
    s = position(["WA YC", "WA WA"], stock="YS", exposed=[[], ["RG RG RG RG"]], threshold=9)
    s.apply(CODE["WA"])
    assert texts(s) == ["pass", "hu", "claim WA WA", "claim WA WA WA"]
    s.apply(HU)
    end = round_end(s)
    assert end.points == 8 + 1 and end.payments == (-1, 1)  # 9 - 9 + 1
    assert [(str(m), m.exposed, m.points) for m in end.melds] == [("RG RG RG RG", True, 8), ("WA WA WA", True, 1)]
    assert Meld.parse("RG RG RG RG").points == 6  # concealed ("mano")


def test_general_quad_claims_play_alike_in_the_compiled_simulator() -> None:
    """The compiled simulator and the Python engine play the same games move for move,
    games with a claimed quad of Generals among them."""
    if _kernels.sim is None:
        pytest.skip("the package runs on the twin: no compiled simulator to compare")
    for policies in (("random",) * 4, ("greedy", "random", "greedy")):
        fast = simulate(60, seed=3, policies=policies, record=True)
        assert fast.actions is not None
        with_quads = [i for i, actions in enumerate(fast.actions) if GENERAL_QUADS & set(actions.tolist())]
        assert with_quads, "no game claimed a quad of Generals: the comparison would prove nothing"
        seeds = fast.seeds[with_quads[:4]]
        slow = simulate(seeds, policies=policies, record=True, compiled=False)
        again = simulate(seeds, policies=policies, record=True)
        assert slow.actions is not None and again.actions is not None
        assert [a.tolist() for a in again.actions] == [a.tolist() for a in slow.actions]
        assert again.scores.tolist() == slow.scores.tolist()


# -- 2. the lucky card counts the cards of its "tipo" (rank) ---------------------------------------

def hu_with_a_lucky_card(lucky: str, **rules: Any) -> RoundEnd:
    """Seat 1 wins on seat 0's WA discard; ``lucky`` is the next stock card."""
    s = position(["WA YC", "WA WA"], stock=lucky, exposed=[[], ["RA RA RA", "GA GA GA"]], **rules)
    s.apply(CODE["WA"])
    s.apply(HU)
    return round_end(s)


def test_the_lucky_card_counts_every_card_of_its_rank_by_default() -> None:
    """"tipo: ci sono 7 tipi (Generale, Consigliere (Adviser), Elefante, ...)" and "Se il
    giocatore riceve una carta dello stesso tipo di quella che ha già, ottiene punti a
    seconda del numero di carte dello stesso tipo": the lucky card's rank, any colour."""
    assert Rules().lucky_rank_only is True
    end = hu_with_a_lucky_card("RA")  # seat 1 owns WA WA WA, RA RA RA, GA GA GA: 9 Advisors
    assert end.lucky == 9 and str(end.lucky_card) == "RA"
    end = hu_with_a_lucky_card("RA", lucky_rank_only=False)  # the option: rank and colour
    assert end.lucky == 3


# -- 3. the winner shows the hand ------------------------------------------------------------------

def test_a_hu_shows_the_winning_melds_and_the_lucky_card_to_everyone() -> None:
    """"il giocatore può dichiarare di aver vinto ("hu") e mostrare la sua mano": the
    round's record, every seat's view and the text show the split that scored, the card
    that completed it and the lucky card."""
    s = position(["WA YC", "WA WA RC RH RN WS GS YS"], stock="YS RC", exposed=[[], ["RG RA RE"]])
    before = [s.observation(p) for p in range(2)]
    assert all(o.last_round is None for o in before)
    s.apply(CODE["WA"])
    s.apply(HU)
    end = round_end(s)
    shown = [(str(m), m.kind.name, m.exposed, m.points) for m in end.melds]
    assert shown == [("RG RA RE", "COMMAND", True, 2), ("WA WA WA", "TRIPLE", True, 1),
                     ("RC RH RN", "FIELD", False, 1), ("GS YS WS", "THREE_SOLDIERS", False, 3)]
    assert end.points == sum(m.points for m in end.melds) == 7
    assert str(end.card) == "WA" and str(end.lucky_card) == "RC" and end.lucky == 1
    game = s.game
    view = game.record_view(end)
    assert view["melds"][1] == {"cards": ["WA", "WA", "WA"], "kind": "triple", "exposed": True, "points": 1}
    assert view["card"] == "WA" and view["lucky_card"] == "RC" and view["lucky"] == 1
    text = game.record_text(end)
    assert "with WA, showing RG RA RE | WA WA WA | RC RH RN | GS YS WS: 7 points, lucky card RC +1" in text
    for seat in range(2):  # the next round has begun; every seat's view shows the last one
        assert s.observation(seat).last_round == end
        assert s.view(seat)["last_round"]["melds"] == view["melds"]


def test_a_round_without_a_winner_shows_no_hand() -> None:
    s = position(["WA WS", "YC"], stock="")
    s.apply(CODE["WA"])
    s.apply(PASS)
    end = round_end(s)
    assert end.winner == -1 and end.melds == () and end.card is None and end.lucky_card is None


def test_the_split_is_hidden_until_the_hu() -> None:
    """Before the hu nothing of the hand shows: the observations of the other seat do not
    change when the winner's concealed cards do."""
    s = FourColor(players=3).new_match(7)
    for _ in range(40):
        s.apply(s.legal_actions()[0])
    other = s.clone()
    seat = (s.current_player + 1) % 3
    other._hands[seat], other._hands[(seat + 1) % 3] = other._hands[(seat + 1) % 3], other._hands[seat]
    watcher = (seat + 2) % 3
    assert s.observation(watcher).last_round == other.observation(watcher).last_round
    assert s.view(watcher) == other.view(watcher)


# -- 4. the seed's ambiguities: one reading the default, the other an option -------------------------

def test_soldiers_of_one_colour_form_triples_and_quads_unless_the_option_says_otherwise() -> None:
    """"Le carte dello stesso tipo e colore possono essere combinate in coppie, triplette o
    quadruple tranne Generali e Soldati; i Generali possono andare da soli e i Soldati non
    possono fondersi in coppie." The default reads the exception for Soldiers as pairs only
    ("non possono fondersi in coppie"); ``same_colour_soldiers=False`` reads it whole."""
    hand = "RS RS RS GS YS WS"
    assert best_split(hand) is not None and best_split(hand).points == 3 + 3  # type: ignore[union-attr]
    assert not is_complete(hand, same_colour_soldiers=False)
    assert best_split("RS GS YS WS RS GS YS", same_colour_soldiers=False).points == 5 + 3  # type: ignore[union-attr]
    five = "RS RS GS YS WS"
    strict = {str(c) for c in waits(five, same_colour_soldiers=False)}
    assert "RS" in {str(c) for c in waits(five)} and "RS" not in strict
    assert {str(c) for c in waits(five, same_colour_soldiers=False)} == {"GS", "YS", "WS"}
    # in the game: no pong of Soldiers, no hu that needs one
    s = position(["RS WA", "RS RS GS YS WS"], stock="YC YC", same_colour_soldiers=False)
    s.apply(CODE["RS"])
    assert "hu" not in texts(s) and "claim RS RS RS" not in texts(s) and "claim RS GS YS" in texts(s)
    s = position(["RS WA", "RS RS GS YS WS"], stock="YC YC")
    s.apply(CODE["RS"])
    assert {"hu", "claim RS RS RS", "claim RS GS YS"} <= set(texts(s))


def test_a_player_left_with_only_generals_wins_unless_the_option_says_otherwise() -> None:
    """"I Generali non possono essere scartati. Se il giocatore non può scartare, il round
    finisce immediatamente e vengono segnati i punti." The default scores that hand as the
    player's hu; ``only_generals="no_winner"`` ends the round with nobody scoring."""
    end = round_end(position(["RG YG", "WA"], stock="WS WS"))
    assert end.winner == 0 and end.reason == "only Generals left" and end.points == 2
    assert [str(m) for m in end.melds] == ["RG", "YG"] and end.card is None
    end = round_end(position(["RG YG", "WA"], stock="WS WS", only_generals="no_winner"))
    assert end.winner == -1 and end.reason == "only Generals left" and end.payments == (0, 0)


@pytest.mark.parametrize("rules", [
    {"same_colour_soldiers": False}, {"only_generals": "no_winner"}, {"lucky_rank_only": False},
    {"same_colour_soldiers": False, "only_generals": "no_winner", "threshold": 4},
])
def test_the_options_play_alike_in_the_compiled_simulator(rules: dict[str, Any]) -> None:
    if _kernels.sim is None:
        pytest.skip("the package runs on the twin: no compiled simulator to compare")
    policies = ("greedy", "random", "greedy", "random")
    game_rules = Rules(**rules)
    fast = simulate(6, seed=5, policies=policies, rules=game_rules, record=True)
    slow = simulate(6, seed=5, policies=policies, rules=game_rules, record=True, compiled=False)
    assert fast.actions is not None and slow.actions is not None
    assert [a.tolist() for a in fast.actions] == [a.tolist() for a in slow.actions]
    assert np.array_equal(fast.scores, slow.scores)
