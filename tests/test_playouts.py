"""Random playouts from a Gang of Four match in progress: the compiled core
plays the same moves as the Python engine, and refuses states it cannot play."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fourcards.errors import FourCardsError, InvalidTypeError
from fourcards.gangoffour import _deck
from fourcards.gangoffour._kernels import pack_rules
from fourcards.gangoffour.match import GangOfFour, MatchState, Rules
from fourcards.gangoffour.simulate import random_playouts
from fourcards.rng import Rng

from .strategies import gof_rules

pytestmark = pytest.mark.engine
core = pytest.importorskip("fourcards.gangoffour._playouts", reason="compiled core not built")

rules_strategy = gof_rules(targets=(5, 20))


def _advanced(rules: Rules, seed: int, moves: int) -> MatchState:
    state = GangOfFour(rules).new_match(seed)
    rng = Rng(seed ^ 0x5EED)
    for _ in range(moves):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
    return state


@given(rules_strategy, st.integers(0, 2**64 - 1), st.integers(0, 250), st.integers(0, 2**64 - 1))
@settings(max_examples=30, deadline=None)
def test_compiled_playouts_agree_with_the_engine_move_for_move(rules: Rules, seed: int, moves: int,
                                                               playout_seed: int) -> None:
    state = _advanced(rules, seed, moves)
    before = state.to_json()
    fast = random_playouts(state, 3, playout_seed, record=True)
    slow = random_playouts(state, 3, playout_seed, record=True, compiled=False)
    assert fast.actions is not None and slow.actions is not None
    assert [a.tolist() for a in fast.actions] == [a.tolist() for a in slow.actions]
    assert fast.returns.tolist() == pytest.approx(slow.returns.tolist())
    assert state.to_json() == before, "the state itself is not changed"


def test_playouts_continue_the_match_as_the_engine_would() -> None:
    state = _advanced(Rules(players=3, target_score=20), 4, 40)
    result = random_playouts(state, 1, 9, record=True)
    assert result.actions is not None
    again = state.clone()
    for action in result.actions[0].tolist():
        again.apply(action)  # every action legal in the Python engine
    assert again.is_terminal and list(again.returns()) == pytest.approx(result.returns.tolist())
    many = random_playouts(state, 400, 1)
    assert abs(float(many.returns.sum())) < 1e-9 and (many.returns != result.returns).any()
    assert (random_playouts(state, 400, 1).returns == many.returns).all()


def test_terminal_and_stacked_states() -> None:
    game = GangOfFour(players=2, target_score=3)
    over = _advanced(game.rules, 1, 10_000)
    assert over.is_terminal
    result = random_playouts(over, 2, 0, record=True)
    assert result.returns.tolist() == list(over.returns()) and result.actions is not None
    deals = [["G1 G1 Y1 Y1 R1 R1 M1 G2 G2 Y2 Y2 R2 R2 G3 G3 Y3",
              "Y3 R3 R3 G4 G4 Y4 Y4 R4 R4 G5 G5 Y5 Y5 R5 R5 G6"]] * 2
    stacked = game.new_match(5, deals=deals)
    with pytest.raises(ValueError, match="stacked deals"):
        random_playouts(stacked, 1, 0, compiled=True)
    fallback = random_playouts(stacked, 2, 0, record=True)
    python = random_playouts(stacked, 2, 0, record=True, compiled=False)
    assert fallback.actions is not None and python.actions is not None
    assert [a.tolist() for a in fallback.actions] == [a.tolist() for a in python.actions]


def test_random_playouts_refuses_bad_arguments() -> None:
    state = GangOfFour(players=2).new_match(1)
    with pytest.raises(InvalidTypeError, match="MatchState"):
        random_playouts("state", 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="playouts"):
        random_playouts(state, 0)
    with pytest.raises(InvalidTypeError, match="playouts"):
        random_playouts(state, 1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="seed"):
        random_playouts(state, 1, "7")  # type: ignore[arg-type]


def _fields(state: MatchState) -> dict[str, Any]:
    return {
        "rules": pack_rules(state.game.rules), "hands": list(state._hands), "totals": list(state._totals),
        "round_": state._round, "dealer": state._dealer, "direction": state._direction, "phase": state._phase,
        "current": state._current, "table": state._table, "table_player": state._table_player,
        "passed": state._passed, "announced": state._announced, "out": state._out, "m1_lead": state._m1_lead,
        "played": _deck.canonical_from_sum(state._played), "loser": -1, "given": -1, "returned": -1,
        "match_rng": state._rng.state, "playouts": 2, "seed": 3,
    }


@pytest.mark.parametrize(("change", "error", "message"), [
    ({"hands": [0, 0]}, ValueError, "holds 0 cards but is not out"),
    ({"current": 5}, FourCardsError, "current"),
    ({"direction": 0}, ValueError, "direction"),
    ({"phase": 2}, FourCardsError, "phase"),
    ({"table": 20000}, FourCardsError, "table"),
    ({"table": 3}, ValueError, "both -1 or neither"),
    ({"passed": 8}, FourCardsError, "passed"),
    ({"totals": [0]}, ValueError, "totals lists 1 seats"),
    ({"played": "a card of seat 0"}, FourCardsError, "more often than the deck"),
    ({"hands": [3, 3]}, FourCardsError, "more often than the deck"),
    ({"hands": ["G1", 3]}, InvalidTypeError, "mask"),
    ({"seed": -1}, FourCardsError, "seed"),
    ({"match_rng": 2**64}, FourCardsError, "match_rng"),
    ({"playouts": 0}, FourCardsError, "playouts"),
    ({"phase": 1}, ValueError, "give-back needs a loser"),
    ({"out": 1}, ValueError, "holds 16 cards but is out"),
])
def test_compiled_playouts_refuse_inconsistent_states(change: dict[str, Any], error: type[Exception],
                                                      message: str) -> None:
    state = GangOfFour(players=2, target_score=10).new_match(2)
    fields = {**_fields(state), **change}
    if fields["played"] == "a card of seat 0":
        fields["played"] = state._hands[0] & -state._hands[0]
    with pytest.raises(error, match=message):
        core.gof_random_playouts(**fields)


def test_compiled_playouts_refuse_a_lead_without_m1() -> None:
    state = GangOfFour(players=4, target_score=10).new_match(2)
    assert state._m1_lead
    fields = _fields(state)
    fields["current"] = (state.current_player + 1) % 4  # a seat without M1 must lead it
    with pytest.raises(ValueError, match="no legal action"):
        core.gof_random_playouts(**fields)
    assert np.isfinite(core.gof_random_playouts(**_fields(state))[0]).all()
