"""The shared state contract on Gang of Four: property and stateful tests."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from fourcards import IllegalMoveError, InvalidStateError
from fourcards.engine import Bot, play_match
from fourcards.gangoffour import _deck
from fourcards.gangoffour import penalty
from fourcards.gangoffour.match import (
    OBSERVATION_SIZE, PASS, GangOfFour, MatchState, Observation, Rules, RoundEnd,
)

pytestmark = pytest.mark.engine

rules_strategy = st.builds(
    Rules,
    players=st.sampled_from([2, 3, 4]),
    target_score=st.sampled_from([1, 30, 100]),
    pass_is_final=st.booleans(),
    manual_last_card=st.booleans(),
    last_card_may_pass=st.booleans(),
    chinese_dealing=st.booleans(),
)


def conserved(state: MatchState) -> bool:
    """Hands + played this round + set aside = the 64 cards."""
    additive = sum(h - ((h >> 1) & _deck.PAIR_LO) for h in state._hand_masks())
    additive += state._played + state._set_aside
    return _deck.canonical_from_sum(additive) == _deck.FULL_DECK and additive.bit_count() <= 64


class RandomPlayer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[int]) -> int:
        return self.rng.choice(legal_actions)


class MatchMachine(RuleBasedStateMachine):
    """Random legal play, checking the contract after every step."""

    @initialize(rules=rules_strategy, seed=st.integers(0, 2**64 - 1))
    def start(self, rules: Rules, seed: int) -> None:
        self.game = GangOfFour(rules)
        self.state = self.game.new_match(seed)
        self.steps = 0

    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        s = self.state
        if s.is_terminal:
            return
        legal = s.legal_actions()
        assert legal == sorted(legal) and len(legal) == len(set(legal))
        action = data.draw(st.sampled_from(legal))
        assert s.can_apply(action)
        s.apply(action)
        self.steps += 1

    @rule(data=st.data())
    def illegal_changes_nothing(self, data: st.DataObject) -> None:
        s = self.state
        legal = set(s.legal_actions())
        action = data.draw(st.integers(0, s.game.num_distinct_actions - 1))
        if action in legal:
            return
        before = s.to_json()
        hands = s._hand_masks()
        assert not s.can_apply(action)
        with pytest.raises(IllegalMoveError):
            s.apply(action)
        assert s.to_json() == before and s._hand_masks() == hands

    @rule()
    def finish_quickly(self) -> None:
        """Play a while with the lowest legal action (cheap progress to round ends)."""
        s = self.state
        for _ in range(40):
            if s.is_terminal:
                return
            s.apply(s.legal_actions()[0] if s.legal_actions()[-1] != PASS else PASS)

    @invariant()
    def cards_accounted_for(self) -> None:
        assert conserved(self.state)

    @invariant()
    def mask_matches_list(self) -> None:
        s = self.state
        mask = s.legal_actions_mask()
        assert mask.shape == (s.game.num_distinct_actions,)
        assert np.flatnonzero(mask).tolist() == s.legal_actions()

    @invariant()
    def copies_are_equal(self) -> None:
        s = self.state
        clone = s.clone()
        assert clone == s and clone.to_json() == s.to_json()
        assert clone._hand_masks() == s._hand_masks()
        loaded = s.game.from_json(s.to_json())
        assert loaded == s and loaded.summary() == s.summary() and loaded._hand_masks() == s._hand_masks()
        assert loaded.history == s.history

    @invariant()
    def observations_hide_other_hands(self) -> None:
        s = self.state
        for player in range(s.game.num_players):
            obs = s.observation(player)
            assert obs.hand_mask == s._hand_masks()[player]
            assert sum(obs.hand_sizes) == sum(h.bit_count() for h in s._hand_masks())
            tensor = s.observation_tensor(player)
            assert tensor.shape == (OBSERVATION_SIZE,) and tensor[:34].sum() == obs.hand_sizes[player]

    @invariant()
    def scores_are_penalties(self) -> None:
        s = self.state
        assert all(v >= 0 for v in s.scores)
        totals = [0] * s.game.num_players
        for record in s.history:
            if isinstance(record, RoundEnd):
                for p, (left, points) in enumerate(zip(record.cards_left, record.penalties)):
                    if p == record.winner:
                        assert points == 0
                    elif p in record.forgot_last_card:
                        assert points == 1 and left == 0
                    else:
                        assert points == penalty(left) and left > 0
                    totals[p] += points
                assert tuple(totals) == record.totals
        assert tuple(totals) == s.scores
        if s.is_terminal:
            assert max(s.scores) >= s.game.rules.target_score
            assert s.winners and all(s.scores[w] == min(s.scores) for w in s.winners)


MatchMachine.TestCase.settings = settings(max_examples=15, stateful_step_count=30, deadline=None)
TestMatchMachine = MatchMachine.TestCase


@given(rules_strategy, st.integers(0, 2**32))
@settings(max_examples=8, deadline=None)
def test_every_match_ends_and_replays(rules: Rules, seed: int) -> None:
    game = GangOfFour(rules)
    bots = [RandomPlayer(seed + p) for p in range(rules.players)]
    state = play_match(game.new_match(seed), bots)
    assert state.is_terminal and len(state.actions) <= game.max_game_length
    again = game.replay(seed, state.actions)
    assert again == state and again.scores == state.scores and again.history == state.history


def test_same_seed_same_deal_different_seed_different_deal() -> None:
    game = GangOfFour()
    assert game.new_match(5)._hand_masks() == game.new_match(5)._hand_masks()
    assert game.new_match(5)._hand_masks() != game.new_match(6)._hand_masks()


def test_clone_is_independent() -> None:
    s = GangOfFour().new_match(3)
    c = s.clone()
    c.apply(c.legal_actions()[0])
    assert s.actions == () and len(c.actions) == 1 and s._hand_masks() != c._hand_masks()
    assert s.history != c.history


def test_observation_does_not_depend_on_hidden_cards() -> None:
    s = GangOfFour().new_match(11)
    s.apply(s.legal_actions()[0])
    t = s.clone()
    # Swap one card between two hands the observer cannot see.
    h = list(t._hands)
    a = h[2] & -h[2]
    b = h[3] & -h[3]
    code_a, code_b = _deck.KIND_OF_BIT[a.bit_length() - 1], _deck.KIND_OF_BIT[b.bit_length() - 1]
    if code_a != code_b:
        t._move_card(2, 3, code_a)
        t._move_card(3, 2, code_b)
        assert t._hand_masks() != s._hand_masks()
    for viewer in (0, 1):
        o1, o2 = s.observation(viewer), t.observation(viewer)
        assert o1 == o2
        assert np.array_equal(s.observation_tensor(viewer), t.observation_tensor(viewer))


def test_observation_tensor_layout_and_out_buffer() -> None:
    s = GangOfFour().new_match(2)
    buffer = np.full(OBSERVATION_SIZE, 7.0, dtype=np.float32)
    out = s.observation_tensor(1, out=buffer)
    assert out is buffer
    hand = s.observation(1).hand
    for card in set(hand):
        assert buffer[card.code] == hand.count(card)
    assert buffer[110] == 1.0 and buffer[138] == 1.0  # own hand 16/16; counter-clockwise
    assert buffer[130 + (s.current_player - 1) % 4] == 1.0
    with pytest.raises(ValueError):
        s.observation_tensor(1, out=np.zeros(5, np.float32))
    with pytest.raises(IllegalMoveError):
        s.observation_tensor(4)


def test_json_envelope_and_tampering() -> None:
    game = GangOfFour(players=3)
    s = game.new_match(8)
    for _ in range(10):
        s.apply(s.legal_actions()[-1])
    text = s.to_json()
    data = json.loads(text)
    assert data["format"] == "fourcards-match" and data["version"] == 1
    assert data["game"] == "gang-of-four" and data["rules"]["players"] == 3
    assert game.from_json(text) == s
    tampered = dict(data, actions=data["actions"][:-1])
    with pytest.raises(InvalidStateError, match="altered"):
        game.from_json(json.dumps(tampered))
    with pytest.raises(InvalidStateError, match="not JSON"):
        game.from_json("{oops")
    with pytest.raises(InvalidStateError, match="not 'gang-of-four'|of 'zangle'"):
        game.from_json(json.dumps(dict(data, game="zangle")))
    with pytest.raises(InvalidStateError, match="version"):
        game.from_json(json.dumps(dict(data, version=99)))
    with pytest.raises(InvalidStateError, match="rules"):
        GangOfFour().from_json(text)
    forged = dict(data, actions=[99999])
    from fourcards.engine import _digest
    forged["digest"] = _digest(forged)
    with pytest.raises(InvalidStateError, match="does not replay"):
        game.from_json(json.dumps(forged))
    stacked = GangOfFour().new_match(1, deals=[[s for s in _four_hands()]])
    assert GangOfFour().from_json(stacked.to_json())._hand_masks() == stacked._hand_masks()


def _four_hands() -> list[str]:
    from fourcards.gangoffour import DECK
    names = [str(c) for c in DECK]
    return [" ".join(names[i::4]) for i in range(4)]


def test_readable_and_integer_actions_round_trip() -> None:
    game = GangOfFour(manual_last_card=True)
    s = game.new_match(1)
    for action in (0, 500, 12351, PASS, 12353, 12386, 12387, 24738):
        assert s.action_to_int(s.int_to_action(action)) == action
    assert s.action_to_string(PASS) == "pass" and s.action_to_string(12353) == "give G1"
    assert s.action_to_string(12387) == "G1 !"
    with pytest.raises(IllegalMoveError):
        GangOfFour().new_match(1).int_to_action(12387)


def test_bots_satisfy_the_protocol_and_runner_checks_seats() -> None:
    assert isinstance(RandomPlayer(1), Bot)
    with pytest.raises(ValueError, match="needs 4 bots"):
        play_match(GangOfFour().new_match(1), [RandomPlayer(1)])


def test_static_facts() -> None:
    game = GangOfFour()
    assert game.num_players == 4 and game.num_distinct_actions == 12387
    assert game.observation_size == OBSERVATION_SIZE
    assert game.max_game_length > 1000
    assert GangOfFour(manual_last_card=True).num_distinct_actions == 24739
