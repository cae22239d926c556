"""The shared pieces of the contract: the RNG in C and Python, simultaneous decisions."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import IllegalMoveError, NotYourTurnError
from fourcards.engine import SimultaneousDecision, derive_seed
from fourcards.rng import Rng


def test_rng_published_vectors() -> None:
    # SplitMix64 reference outputs for seed 1234567 and seed 0.
    rng = Rng(1234567)
    assert [rng.next_u64() for _ in range(5)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423,
        4593380528125082431, 16408922859458223821,
    ]
    zero = Rng(0)
    assert zero.next_u64() == 0xE220A8397B1DCDAF


def test_below_and_shuffle_vectors() -> None:
    rng = Rng(99)
    assert [rng.below(10) for _ in range(10)] == [3, 4, 7, 7, 6, 9, 5, 5, 6, 2]
    items = list(range(8))
    Rng(99).shuffle(items)
    assert items == [6, 4, 5, 0, 2, 1, 7, 3]
    with pytest.raises(ValueError):
        Rng(1).below(0)
    with pytest.raises(TypeError):
        Rng("seed")  # type: ignore[arg-type]


def test_rng_state_round_trips() -> None:
    a = Rng(5)
    a.next_u64()
    b = Rng.from_state(a.state)
    assert b == a and [a.next_u64() for _ in range(3)] == [b.next_u64() for _ in range(3)]


try:
    core: ModuleType | None = importlib.import_module("fourcards._native")
except ImportError:  # pragma: no cover
    core = None


@pytest.mark.skipif(core is None, reason="compiled core not built")
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_c_and_python_generators_agree(seed: int, bound: int) -> None:
    assert core is not None
    rng = Rng(seed)
    assert core.rng_outputs(seed, 4) == [rng.next_u64() for _ in range(4)]
    bound = max(bound, 1)
    rng = Rng(seed)
    assert core.rng_outputs(seed, 4, bound) == [rng.below(bound) for _ in range(4)]
    items = list(range(64))
    Rng(seed).shuffle(items)
    assert core.rng_shuffle(seed, 64) == items


def test_derive_seed_streams_differ() -> None:
    assert len({derive_seed(1, s) for s in range(100)}) == 100
    assert derive_seed(1, 0) == Rng(1).next_u64()


def test_simultaneous_decision_hides_answers_until_all_are_in() -> None:
    decision: SimultaneousDecision[str] = SimultaneousDecision((3, 0, 1))
    assert decision.current == 3
    with pytest.raises(NotYourTurnError):
        decision.answer(0, "pong")
    decision.answer(3, "hu")
    assert decision.answer_of(3, viewer=0) is None and decision.answer_of(3, viewer=3) == "hu"
    with pytest.raises(IllegalMoveError, match="hidden"):
        decision.answers
    copy = decision.copy()
    decision.answer(0, "pass")
    decision.answer(1, "chi")
    assert decision.complete and decision.current == -1
    assert decision.answers == {3: "hu", 0: "pass", 1: "chi"}
    assert decision.answer_of(3, viewer=1) == "hu"
    assert copy.answered == 1 and not copy.complete
    with pytest.raises(ValueError):
        SimultaneousDecision((1, 1))


def test_stale_action_is_refused_and_changes_nothing() -> None:
    from fourcards.errors import StaleActionError
    from fourcards.gangoffour.match import GangOfFour

    state = GangOfFour(players=4).new_match(3)
    state.apply(state.legal_actions()[0], expected_step=0)
    before = state.to_json()
    with pytest.raises(StaleActionError, match="step 0"):
        state.apply(state.legal_actions()[0], expected_step=0)
    with pytest.raises(TypeError):
        state.apply(state.legal_actions()[0], expected_step=True)
    assert state.to_json() == before and state.step == 1


def test_returns_share_the_win_and_sum_to_zero() -> None:
    from fourcards.engine import play_match
    from fourcards.gangoffour.bots import RandomBot
    from fourcards.gangoffour.match import GangOfFour

    state = GangOfFour(players=3, target_score=20).new_match(5)
    assert state.returns() == (0.0, 0.0, 0.0)
    play_match(state, [RandomBot(seed=i) for i in range(3)])
    returns = state.returns()
    assert abs(sum(returns)) < 1e-12
    for seat in range(3):
        expected = (1 / len(state.winners) if seat in state.winners else 0.0) - 1 / 3
        assert returns[seat] == pytest.approx(expected)
