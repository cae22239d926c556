"""The C simulator plays the same matches as the Python engine, move for move."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fourcards.errors import FourCardsError
from fourcards.gangoffour import _reference as ref
from fourcards.gangoffour.bots import GreedyBot, RandomBot
from fourcards.gangoffour.match import GangOfFour, Rules
from fourcards.gangoffour.simulate import match_seeds, simulate

from .strategies import gof_rules

pytestmark = pytest.mark.engine
core = pytest.importorskip("fourcards.gangoffour._bots", reason="compiled core not built")

rules_strategy = gof_rules(targets=(20, 100))


@given(rules_strategy, st.integers(0, 2**64 - 1),
       st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4))
@settings(max_examples=25, deadline=None)
def test_simulator_agrees_with_the_engine(rules: Rules, seed: int, policies: list[str]) -> None:
    policies = policies[: rules.players]
    fast = simulate([seed], policies=policies, rules=rules, record=True)
    slow = simulate([seed], policies=policies, rules=rules, record=True, compiled=False)
    assert fast.actions is not None and slow.actions is not None
    assert fast.actions[0].tolist() == slow.actions[0].tolist()
    assert np.array_equal(fast.scores, slow.scores) and np.array_equal(fast.winners, slow.winners)
    assert fast.rounds.tolist() == slow.rounds.tolist() and fast.steps.tolist() == slow.steps.tolist()


def test_simulation_results_and_seeding() -> None:
    a = simulate(50, seed=3, policies=("greedy", "random", "random", "random"))
    b = simulate(match_seeds(3, 50))
    assert a.seeds.tolist() == b.seeds.tolist()
    assert np.array_equal(a.scores, simulate(50, seed=3, policies=("greedy", "random", "random", "random")).scores)
    assert (a.scores.max(axis=1) >= 100).all()
    assert np.isclose(a.win_share().sum(), 50)
    assert a.win_share()[0] > 40  # the rule-based player beats random players


def test_simulator_threads_agree() -> None:
    seeds = match_seeds(9, 64)

    def run(chunk: np.ndarray) -> np.ndarray:
        return simulate(chunk, policies=("greedy", "random", "greedy", "random")).scores

    single = run(seeds)
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(run, np.array_split(seeds, 4)))
    assert np.array_equal(np.concatenate(parts), single)


def test_simulate_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown policy"):
        simulate(1, policies=("random", "clever", "random", "random"))
    with pytest.raises(FourCardsError, match=r"unknown policy None of seat 3"):  # every game's simulators alike
        simulate(1, policies=("random", "random", "random", None))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="4 players need 4 policies"):
        simulate(1, policies=("random",), rules=Rules())


def test_greedy_policy_twin_agrees_on_real_positions() -> None:
    game = GangOfFour(manual_last_card=True)
    checked = 0
    for seed in range(6):
        state = game.new_match(seed)
        bots = [RandomBot(seed * 10 + p) for p in range(4)]
        while not state.is_terminal and checked < 1500:
            obs = state.observation(state.current_player)
            legal = state.legal_actions()
            table = -1 if obs.table is None else obs.table.action
            phase = 1 if obs.phase == "give-back" else 0
            args = (obs.hand_mask, table, phase, obs.player, obs.hand_sizes)
            assert core.greedy_choose(*args, np.array(legal, np.int32)) == ref.greedy_choose(*args, legal)
            checked += 1
            state.apply(bots[state.current_player].choose(obs, legal))
    assert checked >= 1000


def test_bots_decide_from_the_observation_only() -> None:
    """Two states that differ only in hidden cards get the same decisions."""
    state = GangOfFour().new_match(21)
    for _ in range(12):
        state.apply(state.legal_actions()[-1])
    other = state.clone()
    hands = other._hand_masks()
    seat = state.current_player
    a, b = [p for p in range(4) if p != seat][:2]
    low_a, low_b = hands[a] & -hands[a], hands[b] & -hands[b]
    from fourcards.gangoffour._deck import KIND_OF_BIT
    ca, cb = KIND_OF_BIT[low_a.bit_length() - 1], KIND_OF_BIT[low_b.bit_length() - 1]
    assert ca != cb
    other._move_card(a, b, ca)
    other._move_card(b, a, cb)
    assert other._hand_masks() != state._hand_masks()
    obs1, obs2 = state.observation(seat), other.observation(seat)
    assert obs1 == obs2
    legal = state.legal_actions()
    assert GreedyBot().choose(obs1, legal) == GreedyBot().choose(obs2, legal)
    assert RandomBot(5).choose(obs1, legal) == RandomBot(5).choose(obs2, legal)


def test_recording_a_very_long_match_grows_the_log() -> None:
    result = simulate(1, seed=3, rules=Rules(target_score=20000), record=True)
    assert result.actions is not None
    assert len(result.actions[0]) == result.steps[0] > 200_000


def test_greedy_ignores_players_who_are_out() -> None:
    from fourcards.gangoffour import hand_mask

    hand = hand_mask("G2 R9 R9")
    legal = ref.legal_actions(hand, -1).tolist()
    for kernel in (core.greedy_choose, ref.greedy_choose):
        calm = kernel(hand, -1, 0, 0, (3, 0, 7, 8), legal)  # seat 1 is out of the round
        tense = kernel(hand, -1, 0, 0, (3, 2, 7, 8), legal)  # seat 1 is about to go out
        assert ref.TABLE[calm][1] == (4,) and ref.TABLE[tense][1] == (27, 27)


def test_greedy_rejects_out_of_range_actions() -> None:
    for kernel in (core.greedy_choose, ref.greedy_choose):
        with pytest.raises(ValueError):
            kernel(0b1, -1, 1, 0, (1, 1), [5])
        with pytest.raises(ValueError):
            kernel(0b1, -1, 0, 0, (1, 1), [-3])
