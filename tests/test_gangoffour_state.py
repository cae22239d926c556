"""Gang of Four's own part of the contract: penalties, the save envelope, the tensor layout.

The contract every game shares is tested once, over all five games, in
``test_match_contract.py``."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fourcards import IllegalMoveError, InvalidStateError
from fourcards.engine import Bot, play_match
from fourcards.gangoffour import _deck, penalty
from fourcards.gangoffour.match import OBSERVATION_SIZE, PASS, GangOfFour, MatchState, RoundEnd, Rules

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


class RandomPlayer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[int]) -> int:
        return self.rng.choice(legal_actions)


def conserved(state: MatchState) -> bool:
    """Hands + played this round + set aside = the 64 cards."""
    additive = sum(h - ((h >> 1) & _deck.PAIR_LO) for h in state._hand_masks())
    additive += state._played + state._set_aside
    return _deck.canonical_from_sum(additive) == _deck.FULL_DECK and additive.bit_count() <= 64


def check_penalties(s: MatchState) -> None:
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


@given(rules_strategy, st.integers(0, 2**32))
@settings(max_examples=8, deadline=None)
def test_every_match_scores_penalties_and_keeps_its_cards(rules: Rules, seed: int) -> None:
    game = GangOfFour(rules)
    state = game.new_match(seed)
    bots = [RandomPlayer(seed + p) for p in range(rules.players)]
    while not state.is_terminal:
        assert conserved(state)
        player = state.current_player
        state.apply(bots[player].choose(None, state.legal_actions()), player)
        if isinstance(state.history[-1], RoundEnd):
            check_penalties(state)
    check_penalties(state)


def test_same_seed_same_deal_different_seed_different_deal() -> None:
    game = GangOfFour()
    assert game.new_match(5)._hand_masks() == game.new_match(5)._hand_masks()
    assert game.new_match(5)._hand_masks() != game.new_match(6)._hand_masks()


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
