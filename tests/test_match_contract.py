"""The game contract, tested once over all five games, their modes and rule options.

One hypothesis state machine (the models: frozenlist's test mixin run over
both implementations, OpenSpiel's per-game ``RandomSimTest``) plays random
legal actions in every game and checks after every step: the mask equals the
list, an illegal, stale or out-of-turn action changes nothing, a clone is
independent, a JSON round trip is exact, observations hide what they must,
every seat argument is checked, every legal action's text parses back, and
``returns()`` sums to 0 and matches ``winners``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from fourcards import FourCardsError, IllegalMoveError, NotYourTurnError, StaleActionError
from fourcards.bots import RandomBot
from fourcards.engine import Game, State, play_match
from fourcards.errors import InvalidTypeError
from fourcards.games import GAMES, get_game
from fourcards.rng import Rng

pytestmark = pytest.mark.engine

# Every game's rule options, small enough for matches to end within a test.
RULES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "gang-of-four": st.fixed_dictionaries({
        "players": st.sampled_from([2, 3, 4]), "target_score": st.sampled_from([1, 30]),
        "pass_is_final": st.booleans(), "manual_last_card": st.booleans(),
        "last_card_may_pass": st.booleans(), "chinese_dealing": st.booleans(),
    }),
    "four-color": st.fixed_dictionaries({
        "players": st.sampled_from([2, 3, 4]), "threshold": st.sampled_from([0, 10]),
        "rounds": st.sampled_from([1, 2]), "lucky_rank_only": st.booleans(),
        "same_colour_soldiers": st.booleans(), "only_generals": st.sampled_from(["hu", "no_winner"]),
    }),
    "zangle": st.one_of(
        st.fixed_dictionaries({"players": st.sampled_from([2, 3, 5]), "rounds": st.sampled_from([1, 2])}),
        st.just({"mode": "solitaire"}),
    ),
    "four-pack": st.fixed_dictionaries({
        "players": st.sampled_from([3, 4, 8, 11, 32]), "must_hold_family": st.booleans(),
        "max_asks": st.sampled_from([30, 10_000]),
    }),
    "duelo": st.fixed_dictionaries({
        "players": st.sampled_from([2, 3, 8, 13, 32]), "hand_limit": st.sampled_from([15, 10_000]),
    }),
}
assert set(RULES) == set(GAMES)

_GAMES: dict[tuple[str, str], Game[Any]] = {}


def make_game(name: str, rules: dict[str, Any]) -> Game[Any]:
    """The game (cached: Zangle numbers its actions once per game)."""
    key = (name, json.dumps(rules, sort_keys=True))
    if key not in _GAMES:
        _GAMES[key] = get_game(name).new_game(**rules)
    return _GAMES[key]


def game_name(state: State[Any]) -> str:
    """The registry's name of the state's game."""
    return get_game(state.game.name).name


def private_view(state: State[Any], seat: int) -> Any:
    """What only ``seat`` (and the referee) may know, through the public referee methods."""
    if hasattr(state, "hand"):
        return state.hand(seat)
    if hasattr(state, "pile"):
        return state.pile(seat)
    return None  # Zangle: every card on the table is face up; the piles' order is nobody's


def own_part(state: State[Any], seat: int) -> Any:
    """The part of ``seat``'s observation that shows its private cards."""
    obs = state.observation(seat)
    name = game_name(state)
    if name == "four-color":
        return tuple(obs.hand)
    if name == "duelo":
        return obs.top_card
    if name == "gang-of-four":
        return tuple(obs.hand)
    if name == "four-pack":
        return tuple(obs.hand)
    return None


def expected_own_part(state: State[Any], seat: int) -> Any:
    view = private_view(state, seat)
    if game_name(state) == "duelo":
        return view[0] if view else None
    return view


def cards_conserved(state: Any) -> bool:
    """Every card of the game is somewhere (counted through public facts)."""
    name = game_name(state)
    if name == "gang-of-four":
        obs = state.observation(0)
        return bool(sum(obs.hand_sizes) + len(obs.played) == 16 * state.game.num_players)
    if name == "four-color":
        return bool(state.is_terminal or state.card_count() == 112)
    if name == "zangle":
        return bool(state.card_count() == len(state.game.rules.deck_cards()))
    if name == "four-pack":
        held = sum(state.hand_sizes)
        down = sum(state.scores)
        return bool(held + 4 * down == 32)
    if name == "duelo":
        return bool(sum(state.pile_sizes) + len(state.table) == 32)
    raise AssertionError(name)


def fingerprint(state: State[Any]) -> Any:
    """Everything a test can see of a state, hidden parts included."""
    n = state.game.num_players
    return (
        state.to_json(), state.step, state.history, state.current_player, state.legal_actions(),
        [private_view(state, p) for p in range(n)], [state.observation(p) for p in range(n)],
    )


SEAT_PARAMETERS = {"player", "seat", "target", "viewer"}


def seat_methods(state: State[Any]) -> list[tuple[str, Callable[..., Any]]]:
    """Every public method of the state whose first argument is a seat."""
    found = []
    for name in dir(type(state)):
        if name.startswith("_"):
            continue
        member = getattr(type(state), name)
        if not callable(member) or isinstance(member, property):
            continue
        params = list(inspect.signature(member).parameters)
        if len(params) > 1 and params[1] in SEAT_PARAMETERS:
            found.append((name, getattr(state, name)))
    return found


class ContractMachine(RuleBasedStateMachine):
    """Random legal play in any game, checking the whole contract after every step."""

    state: State[Any]

    @initialize(name=st.sampled_from(sorted(GAMES)), data=st.data(), seed=st.integers(0, 2**64 - 1))
    def start(self, name: str, data: st.DataObject, seed: int) -> None:
        rules = data.draw(RULES[name], label="rules")
        self.game = make_game(name, rules)
        self.state = self.game.new_match(seed)

    def not_over(self) -> bool:
        return not self.state.is_terminal

    @precondition(not_over)
    @rule(data=st.data(), form=st.sampled_from(["int", "numpy", "readable", "text"]))
    def act(self, data: st.DataObject, form: str) -> None:
        s = self.state
        legal = s.legal_actions()
        action = data.draw(st.sampled_from(legal), label="action")
        given_as: Any = {"int": action, "numpy": np.int64(action), "readable": s.int_to_action(action),
                         "text": s.action_to_string(action)}[form]
        step, player = s.step, s.current_player
        assert s.can_apply(given_as, player) and s.why_illegal(given_as) is None
        record = s.apply(given_as, player=player, expected_step=step)
        assert s.step == step + 1 and s.actions[-1] == action
        assert record is not None and record in s.history  # apply returns a record it appended

    @precondition(not_over)
    @rule(count=st.integers(1, 60))
    def play_on(self, count: int) -> None:
        """Play a while with the first legal action (cheap progress to round and game ends)."""
        s = self.state
        for _ in range(count):
            if s.is_terminal:
                return
            s.apply(s.legal_actions()[0])

    @rule(data=st.data())
    def refused_actions_change_nothing(self, data: st.DataObject) -> None:
        s = self.state
        size = self.game.num_distinct_actions
        legal = set(s.legal_actions())
        action = data.draw(st.one_of(st.integers(-3, size + 3), st.sampled_from(
            [True, 1.5, None, "", "no such action", b"pass", 2**70, -(2**70)])), label="refused")
        if isinstance(action, int) and not isinstance(action, bool) and action in legal:
            return
        before = fingerprint(s)
        assert not s.can_apply(action) and isinstance(s.why_illegal(action), str)
        with pytest.raises((FourCardsError, InvalidTypeError)):
            s.apply(action)
        assert fingerprint(s) == before

    @precondition(not_over)
    @rule(data=st.data())
    def stale_or_out_of_turn_changes_nothing(self, data: st.DataObject) -> None:
        s = self.state
        action = data.draw(st.sampled_from(s.legal_actions()), label="action")
        before = fingerprint(s)
        with pytest.raises(StaleActionError):
            s.apply(action, expected_step=s.step + 1)
        if s.step:
            with pytest.raises(StaleActionError):
                s.apply(action, expected_step=s.step - 1)
        others = [p for p in range(self.game.num_players) if p != s.current_player]
        if others:
            with pytest.raises(NotYourTurnError):
                s.apply(action, player=data.draw(st.sampled_from(others), label="other"))
            assert not s.can_apply(action, others[0])
        with pytest.raises(InvalidTypeError):
            s.apply(action, expected_step=True)
        with pytest.raises(InvalidTypeError):
            s.apply(action, player=True)
        assert fingerprint(s) == before

    @invariant()
    def mask_equals_list(self) -> None:
        s = self.state
        legal = s.legal_actions()
        assert legal == sorted(set(legal)) and all(0 <= a < self.game.num_distinct_actions for a in legal)
        mask = s.legal_actions_mask()
        assert mask.shape == (self.game.num_distinct_actions,) and mask.dtype == np.bool_
        assert np.flatnonzero(mask).tolist() == legal
        assert bool(legal) != s.is_terminal and (s.current_player == -1) == s.is_terminal
        assert s.step == len(s.actions)

    @invariant()
    def every_legal_action_round_trips_as_text(self) -> None:
        s = self.state
        for action in s.legal_actions():
            readable = s.int_to_action(action)
            text = s.action_to_string(action)
            assert text == str(readable) and s.action_to_int(readable) == action
            assert s.action_to_int(text) == action and s.action_to_int(s.parse_action(text)) == action
            assert s.can_apply(text)

    @invariant()
    def clone_is_independent(self) -> None:
        s = self.state
        before = fingerprint(s)
        clone = s.clone()
        assert clone == s and fingerprint(clone) == before
        if not clone.is_terminal:
            clone.apply(clone.legal_actions()[-1])
            if not clone.is_terminal:
                clone.apply(clone.legal_actions()[0])
        assert fingerprint(s) == before

    @invariant()
    def json_round_trip_is_exact(self) -> None:
        s = self.state
        loaded = self.game.from_json(s.to_json())
        assert loaded == s and fingerprint(loaded) == fingerprint(s) and loaded.summary() == s.summary()
        signed = s.to_json(key=b"server secret")
        assert fingerprint(self.game.from_json(signed, key=b"server secret")) == fingerprint(s)

    @invariant()
    def observations_hide_what_they_must(self) -> None:
        s = self.state
        n = self.game.num_players
        for seat in range(n):
            obs = s.observation(seat)
            assert obs.player == seat and obs.current_player == s.current_player
            assert own_part(s, seat) == expected_own_part(s, seat)
            assert obs.legal_actions == (tuple(s.legal_actions()) if seat == s.current_player else ())
            shown = repr(obs)
            # (Duelo's piles are made of cards every player saw taken: only their order is hidden.)
            for other in range(n if game_name(s) != "duelo" else 0):
                secret = private_view(s, other)
                if other != seat and secret and secret != private_view(s, seat) and len(secret) > 1:
                    assert repr(secret) not in shown  # no other seat's hand in the observation
            tensor = s.observation_tensor(seat)
            assert tensor.shape == (self.game.observation_size,) and tensor.dtype == np.float32
            buffer = np.full(self.game.observation_size, 9.0, dtype=np.float32)
            assert s.observation_tensor(seat, out=buffer) is buffer and np.array_equal(buffer, tensor)
        assert cards_conserved(s)

    @invariant()
    def every_seat_argument_is_checked(self) -> None:
        s = self.state
        n = self.game.num_players
        methods = seat_methods(s)
        assert {"observation", "observation_tensor"} <= {name for name, _ in methods}
        for name, method in methods:
            more = {"ask": ("A1",), "resample": (Rng(0),)}.get(name, ())  # the other arguments, good ones
            for bad in (True, False, -1, n, 2**70, 1.0, "0", None):
                with pytest.raises((InvalidTypeError, IllegalMoveError)):
                    method(bad, *more)
        with pytest.raises(InvalidTypeError, match="out"):
            s.observation_tensor(0, out=[0.0] * self.game.observation_size)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="out"):
            s.observation_tensor(0, out=np.zeros(3, np.float32))

    @invariant()
    def returns_match_winners(self) -> None:
        s = self.state
        returns = s.returns()
        n = self.game.num_players
        assert len(returns) == n and abs(sum(returns)) < 1e-9
        if not s.is_terminal:
            assert s.winners == () and returns == (0.0,) * n
            return
        winners = s.winners
        assert len(set(winners)) == len(winners) and all(0 <= w < n for w in winners)
        for seat in range(n):
            expected = (1 / len(winners) if seat in winners else 0.0) - 1 / n if winners else 0.0
            assert returns[seat] == pytest.approx(expected)
        assert len(s.scores) == n


ContractMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=12, deadline=None)
TestContractMachine = ContractMachine.TestCase


@pytest.mark.parametrize("name", sorted(GAMES))
@given(data=st.data(), seed=st.integers(0, 2**32))
@settings(max_examples=4, deadline=None)
def test_random_matches_end_and_replay(name: str, data: st.DataObject, seed: int) -> None:
    """OpenSpiel's RandomSimTest, once for every game: random bots play to the end."""
    game = make_game(name, data.draw(RULES[name]))
    bots = [RandomBot(seed + p) for p in range(game.num_players)]
    state = play_match(game.new_match(seed), bots)
    assert state.is_terminal and state.step <= game.max_game_length and cards_conserved(state)
    again = game.replay(seed, state.actions)
    assert again == state and again.history == state.history and again.returns() == state.returns()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_rules_are_checked_from_their_types(name: str) -> None:
    game_class = get_game(name).game_class
    with pytest.raises(FourCardsError, match="players"):
        game_class(players=True)
    with pytest.raises(FourCardsError, match="players"):
        game_class(players=99)
    with pytest.raises(FourCardsError, match="unknown rule 'no_such_rule'"):
        game_class(no_such_rule=1)
    with pytest.raises(InvalidTypeError, match="rules must be"):
        game_class(rules={"players": 2})
