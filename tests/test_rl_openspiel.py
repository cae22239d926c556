"""Gang of Four on OpenSpiel as a yardstick (``fourcards[rl]``): resampling keeps
every card a player can know where it is, and the compiled rollout evaluator
plays the same rollouts as uniformly random play through the OpenSpiel state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from fourcards.errors import InvalidTypeError
from fourcards.gangoffour import _deck
from fourcards.gangoffour.match import CardGiven, MatchState, RoundStart
from fourcards.rng import Rng

pytestmark = [pytest.mark.rl, pytest.mark.engine]  # the evaluator tests play many rollouts: compiled mode
pyspiel = pytest.importorskip("pyspiel")

from fourcards.rl import openspiel  # noqa: E402  (needs pyspiel)


def _additive(mask: int) -> int:
    return mask - ((mask >> 1) & _deck.PAIR_LO)


def _match(state: Any) -> MatchState:
    match = state.match
    assert isinstance(match, MatchState)
    return match


def _codes(mask: int) -> list[int]:
    return list(_deck.codes_of_mask(mask))


def _states(players: int, seed: int, where: str, count: int, **rules: Any) -> Iterator[Any]:
    """States of random matches: right after an exchange (``"give-back"``: the
    winner is to give a card back; ``"after-give-back"``: just after), or in
    the first moves of round 1 (``"round-1"``)."""
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": players, "target_score": 30, **rules})
    rng = np.random.default_rng(seed)
    found = 0
    deal = 0
    while found < count:
        state = game.new_initial_state()
        state.apply_action(seed * 1000 + deal)
        deal += 1
        previous = ""
        while not state.is_terminal() and found < count:
            match = state.match
            hit = ((where == "give-back" and match.phase == "give-back")
                   or (where == "after-give-back" and previous == "give-back")
                   or (where == "round-1" and match.round == 1 and len(match.actions) in (0, 1, 3)))
            if hit:
                found += 1
                yield state.clone()
            previous = match.phase
            state.apply_action(int(rng.choice(state.legal_actions())))


def _replay(resampled: Any) -> Any:
    """The match replayed from the deals of the resampled world (its dealt
    hands, with each round's automatic card moved back to the loser): it
    raises if some action of the history is illegal there."""
    match = resampled.match
    automatic: dict[int, CardGiven] = {}
    round_ = 0
    for record in match.history:
        if isinstance(record, RoundStart):
            round_ = record.round
        elif isinstance(record, CardGiven) and record.automatic:
            automatic[round_] = record
    deals = []
    for index, hands in enumerate(zip(*resampled._dealt)):
        additive = [_additive(hand) for hand in hands]
        given = automatic.get(index + 1)
        if given is not None:
            additive[given.receiver] -= _deck.BIT[given.card.code]
            additive[given.giver] += _deck.BIT[given.card.code]
        deals.append([_deck.canonical_from_sum(a) for a in additive])
    replayed = match.game.new_match(match.seed, deals=deals)
    for action in match.actions:
        replayed.apply(action)
    return replayed


@pytest.mark.parametrize(("players", "where"), [(2, "give-back"), (2, "after-give-back"), (3, "give-back"),
                                                (3, "after-give-back"), (4, "give-back"), (4, "after-give-back")])
def test_resample_after_the_exchange_keeps_what_each_seat_knows(players: int, where: str) -> None:
    rng = np.random.default_rng(players)
    for state in _states(players, players, where, count=4):
        match = state.match
        exchange = match._exchange
        assert exchange is not None
        loser, winner, given = exchange.loser, exchange.winner, exchange.given.code
        returned = None if exchange.returned is None else exchange.returned.code
        hands = match._hand_masks()
        hidden_total = sum(_additive(h) for h in hands) + match._set_aside
        for player in range(players):
            for _ in range(25):
                other = openspiel.resample(state, player, rng)
                again = _match(other)._hand_masks()
                assert [h.bit_count() for h in again] == [h.bit_count() for h in hands]
                assert again[player] == hands[player]
                assert sum(_additive(h) for h in again) + _match(other)._set_aside == hidden_total
                if returned != given:
                    assert again[winner] & _deck.BIT[given], "the winner holds the card the loser gave"
                rest = _additive(again[loser])
                if returned is not None:
                    assert again[loser] & _deck.BIT[returned], "the loser holds the card given back"
                    rest -= _deck.BIT[returned]
                assert max(_codes(_deck.canonical_from_sum(rest))) <= given, "the loser gave their highest"
                assert other.information_state_string(player) == state.information_state_string(player)
                assert other.information_state_tensor(player) == state.information_state_tensor(player)
                assert other.observation_tensor(player) == state.observation_tensor(player)
                if player == match.current_player:
                    assert other.legal_actions() == state.legal_actions()
                assert other.legal_actions() == _match(other).legal_actions(), "no stale cached actions"
                replayed = _replay(other)
                assert replayed._hand_masks() == again and replayed._set_aside == _match(other)._set_aside


@pytest.mark.parametrize("players", [2, 3, 4])
def test_resample_in_round_one_keeps_m1_and_replays(players: int) -> None:
    rng = np.random.default_rng(10 + players)
    aside_m1 = 0
    for state in _states(players, 20 + players, "round-1", count=9):
        match = state.match
        first = next((r for r in match.history if type(r).__name__ == "Played"), None)
        for player in range(players):
            for _ in range(10):
                other = openspiel.resample(state, player, rng)
                hands = _match(other)._hand_masks()
                if first is None and match._m1_lead and player != match.current_player:
                    assert hands[match.current_player] & _deck.BIT[_deck.M1], "the M1 lead shows who holds M1"
                if (first is None and not match._m1_lead) or (first is not None and not first.combo.mask
                                                              & _deck.BIT[_deck.M1]):
                    aside_m1 += 1
                    assert _deck.canonical_from_sum(_match(other)._set_aside) & _deck.BIT[_deck.M1]
                assert other.information_state_string(player) == state.information_state_string(player)
                assert other.information_state_tensor(player) == state.information_state_tensor(player)
                _replay(other)
    if players == 4:
        assert aside_m1 == 0
    else:
        assert aside_m1 > 0, "some match dealt nobody M1"


def test_resample_deals_the_hidden_cards_at_random() -> None:
    state = next(_states(2, 5, "after-give-back", count=1))
    match = state.match
    player = match.current_player
    rng = np.random.default_rng(0)
    seen = {_match(openspiel.resample(state, player, rng))._hand_masks()[1 - player] for _ in range(40)}
    assert len(seen) > 30
    with pytest.raises(ValueError, match="not a seat"):
        openspiel.resample(state, 2, rng)


def test_known_cards_lists_the_exchange() -> None:
    state = next(_states(3, 7, "give-back", count=1))
    exchange = state.match._exchange
    known, aside = openspiel.known_cards(state)
    assert known[exchange.winner] == _deck.BIT[exchange.given.code] and aside == 0
    assert sum(k.bit_count() for k in known) == 1


# -- the compiled rollout evaluator ------------------------------------------------------

def _late_state(seed: int, moves: int) -> Any:
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 2, "target_score": 10})
    state = game.new_initial_state()
    state.apply_action(seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert not state.is_terminal()
    return state


def _rollout_through_openspiel(state: Any, seed: int) -> list[float]:
    """A uniformly random rollout through the OpenSpiel state, with the
    evaluator's generator: ``legal[below(len(legal))]`` each move."""
    rng = Rng(seed)
    working = state.clone()
    while not working.is_terminal():
        legal = working.legal_actions()
        working.apply_action(legal[rng.below(len(legal))])
    returns: list[float] = working.returns()
    return returns


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compiled_evaluator_plays_the_rollouts_of_the_openspiel_state(seed: int) -> None:
    state = _late_state(seed, 60)
    evaluator = openspiel.CompiledRolloutEvaluator(n_rollouts=1, seed=seed)
    seeds = Rng(seed)
    for _ in range(6):
        expected = _rollout_through_openspiel(state, seeds.next_u64())
        assert evaluator.evaluate(state).tolist() == pytest.approx(expected)
    again = openspiel.CompiledRolloutEvaluator(n_rollouts=5, seed=seed)
    assert (again.evaluate(state) == openspiel.CompiledRolloutEvaluator(n_rollouts=5, seed=seed).evaluate(state)).all()
    prior = evaluator.prior(state)
    assert [a for a, _ in prior] == state.legal_actions() and sum(p for _, p in prior) == pytest.approx(1.0)


def test_compiled_evaluator_matches_random_rollout_evaluator_in_distribution() -> None:
    from open_spiel.python.algorithms import mcts

    state = _late_state(11, 80)
    python = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    reference = np.array([python.evaluate(state)[0] for _ in range(120)])
    compiled = openspiel.CompiledRolloutEvaluator(n_rollouts=3000, seed=4).evaluate(state)[0]
    spread = max(reference.std(), 0.05) / np.sqrt(len(reference))
    assert abs(reference.mean() - compiled) < 4.5 * spread, (reference.mean(), compiled)


def test_compiled_evaluator_at_the_deal_and_bad_input() -> None:
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 3, "target_score": 5})
    state = game.new_initial_state()
    evaluator = openspiel.CompiledRolloutEvaluator(n_rollouts=4, seed=2)
    values = evaluator.evaluate(state)
    assert values.shape == (3,) and abs(values.sum()) < 1e-9
    assert len(evaluator.prior(state)) == openspiel.DEALS
    with pytest.raises(ValueError, match="n_rollouts"):
        openspiel.CompiledRolloutEvaluator(n_rollouts=0)
    with pytest.raises(InvalidTypeError, match="seed"):
        openspiel.CompiledRolloutEvaluator(seed="1")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="OpenSpiel state"):
        evaluator.evaluate(pyspiel.load_game("kuhn_poker").new_initial_state())


def test_ismcts_searches_with_the_compiled_evaluator() -> None:
    from open_spiel.python.algorithms import ismcts

    state = _late_state(5, 10)
    game = state.get_game()
    sampler = np.random.default_rng(1)
    bot = ismcts.ISMCTSBot(game, openspiel.CompiledRolloutEvaluator(1, seed=1), 2.0, max_simulations=60,
                           random_state=np.random.RandomState(1),
                           max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES)
    bot.set_resampler(lambda s, p: openspiel.resample(s, p, sampler))
    for _ in range(4):
        if state.is_terminal():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
