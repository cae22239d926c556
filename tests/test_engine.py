"""The shared pieces of the contract: the RNG in C and Python, simultaneous decisions."""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import FourCardsError, IllegalMoveError, InvalidStateError, NotYourTurnError
from fourcards.engine import SimultaneousDecision, derive_seed
from fourcards.rng import Rng
from fourcards.errors import InvalidTypeError


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
    with pytest.raises(InvalidTypeError):
        Rng("seed")  # type: ignore[arg-type]


@given(st.integers(0, 2**64 - 1), st.lists(st.integers(), max_size=60))
def test_shuffle_is_the_swap_with_below_at_each_index(seed: int, items: list[int]) -> None:
    """The inlined shuffle draws exactly as ``below(i + 1)`` from the last index down."""
    by_below, rng = list(items), Rng(seed)
    for i in range(len(by_below) - 1, 0, -1):
        j = rng.below(i + 1)
        by_below[i], by_below[j] = by_below[j], by_below[i]
    shuffled, inlined = list(items), Rng(seed)
    inlined.shuffle(shuffled)
    assert shuffled == by_below and inlined == rng


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
        decision.answers  # noqa: B018 - reading the property is the test
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
    with pytest.raises(InvalidTypeError):
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


# -- saves: integrity, signatures and hostile input ----------------------------------------------

def _played(name: str, steps: int = 6) -> Any:
    from fourcards.games import get_game

    state = get_game(name).new_game().new_match(4)
    for _ in range(steps):
        state.apply(state.legal_actions()[-1])
    return state


@pytest.mark.parametrize("name", ["gang-of-four", "four-color", "zangle", "four-pack", "duelo"])
def test_signed_saves_refuse_edits_wrong_and_missing_keys(name: str) -> None:
    from fourcards.engine import _digest

    state = _played(name)
    game = state.game
    signed = state.to_json(key="server secret")
    assert game.from_json(signed, key="server secret") == state
    assert game.from_json(signed, key=b"server secret") == state
    with pytest.raises(InvalidStateError, match="is signed: load it with its key"):
        game.from_json(signed)  # a signed save without its key is refused, not its signature ignored
    assert game.from_json(signed, verify=False) == state  # unless the caller says so (the digest still checks)
    data = json.loads(signed)
    # an edit re-digested by a client (the digest is unkeyed) is caught by the signature only
    edited = dict(data, actions=data["actions"][:-1])
    edited["digest"] = _digest(edited)
    with pytest.raises(InvalidStateError, match="signature"):
        game.from_json(json.dumps(edited), key="server secret")
    with pytest.raises(InvalidStateError, match="signature"):
        game.from_json(signed, key="another key")
    unsigned = state.to_json()
    with pytest.raises(InvalidStateError, match="not signed"):
        game.from_json(unsigned, key="server secret")
    stripped = {k: v for k, v in data.items() if k != "signature"}
    with pytest.raises(InvalidStateError, match="not signed"):
        game.from_json(json.dumps(stripped), key="server secret")
    # without a key, an edit that is not re-digested is still caught
    with pytest.raises(InvalidStateError, match="altered"):
        game.from_json(json.dumps(dict(data, actions=data["actions"][:-1])))
    with pytest.raises(InvalidStateError, match="altered"):
        game.from_json(json.dumps(dict(data, digest="\u00e9\ud800")))
    with pytest.raises(InvalidTypeError):
        state.to_json(key=123)
    with pytest.raises(ValueError):
        game.from_json(signed, key=b"")


@pytest.mark.parametrize("name", ["gang-of-four", "four-color", "zangle", "four-pack", "duelo"])
def test_hostile_saves_get_clean_errors(name: str) -> None:
    from fourcards.engine import _digest

    state = _played(name)
    game = state.game
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000):
        with pytest.raises(InvalidStateError, match="nested too deeply|not JSON"):
            game.from_json(text)
    data = json.loads(state.to_json())
    deep: Any = 1
    for _ in range(200):
        deep = [deep]
    for change in ({"actions": [2**70]}, {"actions": [-1]}, {"setup": {"deals": [[2**70] * 4]}},
                   {"setup": {"deals": deep}}, {"setup": {"x": 1}}, {"seed": 2**70}):
        forged = dict(data, **change)
        forged["digest"] = _digest(forged)
        with pytest.raises(InvalidStateError):
            game.from_json(json.dumps(forged))
    with pytest.raises(InvalidTypeError):
        game.from_json(None)


def test_gang_of_four_deal_with_a_huge_card_mask_is_refused_cleanly() -> None:
    from fourcards.engine import _digest
    from fourcards.gangoffour.match import GangOfFour

    game = GangOfFour()
    data = json.loads(game.new_match(1).to_json())
    forged = dict(data, setup={"deals": [[2**70, 1, 2, 3]]})
    forged["digest"] = _digest(forged)
    with pytest.raises(InvalidStateError, match="does not replay.*64 bits"):
        game.from_json(json.dumps(forged))


def test_four_color_cards_do_not_compare_with_ints() -> None:
    from fourcards.fourcolor import Card

    card = Card.parse("RG")
    assert card.__lt__(3) is NotImplemented
    with pytest.raises(TypeError):
        card < 3  # noqa: B015
    assert card.__eq__(0) is NotImplemented and Card.parse("RG") < Card.parse("RA")
    assert sorted([Card.parse("WS"), Card.parse("RG")]) == [Card.parse("RG"), Card.parse("WS")]


@pytest.mark.parametrize("name", ["gang-of-four", "four-color", "zangle", "four-pack", "duelo"])
def test_seats_refuse_bools_and_strangers(name: str) -> None:
    state = _played(name, 0)
    n = state.game.num_players
    for bad in (True, False):
        with pytest.raises(InvalidTypeError, match="bool"):
            state.observation(bad)
        with pytest.raises(InvalidTypeError, match="bool"):
            state.observation_tensor(bad)
    for bad_seat in (-1, n):
        with pytest.raises(IllegalMoveError, match="not a seat"):
            state.observation_tensor(bad_seat)
    with pytest.raises(InvalidTypeError, match="out must be a numpy"):
        state.observation_tensor(0, out=[0.0])
    if name == "four-pack":
        with pytest.raises(InvalidTypeError, match="bool"):
            state.ask(True, "A1")
        assert state.step == 0


def test_step_is_a_counter_shared_by_clones() -> None:
    from fourcards.gangoffour.match import GangOfFour

    state = GangOfFour().new_match(2)
    for expected in range(1, 6):
        state.apply(state.legal_actions()[0], expected_step=expected - 1)
        assert state.step == expected == len(state.actions)
    clone = state.clone()
    clone.apply(clone.legal_actions()[0])
    assert (state.step, clone.step) == (5, 6)


@pytest.mark.parametrize("bad,error", [(1.5, InvalidTypeError), (None, InvalidTypeError), (True, InvalidTypeError),
                                       (float("nan"), InvalidTypeError), ("3", InvalidTypeError), (-1, FourCardsError)])
def test_counts_are_checked_before_any_work(bad: object, error: type[Exception]) -> None:
    from fourcards.engine import spread_pick
    from fourcards.games import get_game

    state = get_game("gang-of-four").new_game().new_match(1)
    before = state.history
    with pytest.raises(error, match="limit"):
        state.recent_history(bad)
    with pytest.raises(error, match="limit"):
        spread_pick(10, bad)  # type: ignore[arg-type]
    assert state.history == before
    assert spread_pick(3, 2**70).tolist() == [0, 1, 2] and len(state.recent_history(2**70)) == len(before)
