"""Every game of the registry on OpenSpiel (``fourcards.rl.openspiel_games``):
loaded by its name, passing OpenSpiel's own ``random_sim_test`` (serialization
included), with ``resample_from_infostate`` keeping what the player knows."""

from __future__ import annotations

import functools
import pickle
from typing import Any

import numpy as np
import pytest

from fourcards.errors import InvalidTypeError
from fourcards.games import GAMES

pytestmark = [pytest.mark.rl]
pyspiel = pytest.importorskip("pyspiel")

from fourcards.rl import openspiel_games  # noqa: E402  (needs pyspiel)

#: Rules that keep matches short (random play can run a game a long time).
SHORT = {"gang-of-four": {"target_score": 10}, "four-color": {"rounds": 1}, "zangle": {"rounds": 1},
         "duelo": {"hand_limit": 60}, "four-pack": {"max_asks": 150}}
CASES = [(name, {**SHORT.get(name, {}), **extra}) for name in GAMES
         for extra in ([{}, {"players": 2}] if name != "zangle" else [{}, {"mode": "solitaire"}])
         if not (name == "four-pack" and extra)]


def test_every_game_of_the_registry_is_registered() -> None:
    names = openspiel_games.register_all()
    assert names == [openspiel_games.spiel_name(name) for name in GAMES]
    assert set(names) <= set(pyspiel.registered_names())
    assert openspiel_games.spiel_name("four-color-cards") == "python_fourcards_four_color"


@pytest.mark.parametrize("name, params", CASES, ids=lambda v: v if isinstance(v, str) else repr(v))
def test_random_sim_test_passes(name: str, params: dict[str, Any]) -> None:
    game = openspiel_games.load_game(name, **params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _midgame(name: str, params: dict[str, Any], moves: int, seed: int = 3) -> Any:
    import numpy as np

    game = openspiel_games.load_game(name, **params)
    state = game.new_initial_state()
    state.apply_action(seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("name", list(GAMES))
def test_resample_from_infostate_keeps_what_the_player_knows(name: str) -> None:
    state = _midgame(name, SHORT.get(name, {}), 12)
    if state.is_terminal():
        pytest.skip(f"{name}: the random match ended within 12 moves")  # pragma: no cover
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for player in range(state.num_players()):
        for _ in range(4):
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            assert other.history() == state.history()
            if player == state.current_player():
                assert other.legal_actions() == state.legal_actions()
    before = state.resample_from_infostate(0, sampler)
    assert state.information_state_string(0) == before.information_state_string(0)


def test_states_and_games_pickle() -> None:
    state = _midgame("four-pack", {}, 10)
    again = pickle.loads(pickle.dumps(state))
    assert str(again) == str(state) and again.history() == state.history()
    game = pickle.loads(pickle.dumps(state.get_game()))
    assert game.get_parameters() == state.get_game().get_parameters()


@pytest.mark.parametrize("name", list(GAMES))
def test_a_state_resampled_from_still_pickles_and_serializes(name: str) -> None:
    # a helper's first use: Gang of Four's state kept the engine's sampler (closures) in its cache
    state = _midgame(name, SHORT.get(name, {}), 12)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    other = state.resample_from_infostate(0, sampler)
    for each in (state, other):
        again = pickle.loads(pickle.dumps(each))
        assert again.history() == each.history() and str(again) == str(each)
        text = pyspiel.serialize_game_and_state(each.get_game(), each)
        assert pyspiel.deserialize_game_and_state(text)[1].history() == each.history()
    assert state.resample_from_infostate(0, sampler).information_state_string(0) == state.information_state_string(0)


def test_ismcts_plays_a_registry_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    import numpy as np

    game = openspiel_games.load_game("duelo", hand_limit=100)
    state = game.new_initial_state()
    state.apply_action(5)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)), 1.0, 20,
                           random_state=np.random.RandomState(2))
    action = bot.step(state)
    assert action in state.legal_actions()


@pytest.mark.parametrize("name", list(GAMES))
def test_resample_from_infostate_refuses_what_is_not_a_seat(name: str) -> None:
    state = _midgame(name, SHORT.get(name, {}), 6)
    for seat in (True, -1, state.num_players(), 1.0, "0", 10**30):
        with pytest.raises((ValueError, InvalidTypeError)):
            state.resample_from_infostate(seat, None)


@pytest.mark.parametrize("name", list(GAMES))
def test_resample_from_infostate_follows_its_sampler(name: str) -> None:
    """A first user's find: Gang of Four's adapter drew from fresh entropy whatever the sampler,
    so an ISMCTS run with a seeded sampler could not be repeated; a sampler of the wrong kind was
    replaced by fresh entropy in the other games."""
    import numpy as np

    from fourcards import FourCardsError

    state = _midgame(name, SHORT.get(name, {}), 6)
    if state.is_terminal():
        pytest.skip(f"{name}: the random match ended within 6 moves")  # pragma: no cover
    player = state.current_player()
    other = (player + 1) % state.num_players()

    def sample(seed: int) -> str:
        sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
        texts = []
        for _ in range(3):
            resampled = state.resample_from_infostate(player, sampler)
            texts.append(resampled.observation_string(other) + "|" + resampled.serialize())
        return "\n".join(texts)

    assert sample(7) == sample(7)
    if state.num_players() > 1:
        assert len({sample(seed) for seed in range(8)}) > 1
    generated = [state.resample_from_infostate(player, np.random.default_rng(5)).serialize() for _ in range(2)]
    assert generated[0] == generated[1]
    for bad in (5, "abc", object()):
        with pytest.raises(InvalidTypeError, match="sampler"):
            state.resample_from_infostate(player, bad)
    for draw in (float("nan"), 1.0, -0.5, "x"):
        with pytest.raises(FourCardsError, match="sampler gave"):
            state.resample_from_infostate(player, lambda draw=draw: draw)


def test_load_game_refuses_bad_rules_by_name_before_openspiel_converts_them() -> None:
    """``load_game("zangle", mode="\\ud800")`` was OpenSpiel's 'dictionary update sequence element'
    error; ``target_score=10**30`` a C++ cast failure."""
    from fourcards.errors import InvalidRulesError

    with pytest.raises(InvalidRulesError, match="rule mode="):
        openspiel_games.load_game("zangle", mode="\ud800")
    with pytest.raises(InvalidRulesError, match="target_score="):
        openspiel_games.load_game("gang-of-four", target_score=10**30)
    with pytest.raises(InvalidRulesError, match="solitaire is for one player"):
        openspiel_games.load_game("zangle", mode="solitaire", players=3)
    assert openspiel_games.load_game("zangle", mode="solitaire").num_players() == 1


@pytest.mark.parametrize("name", list(GAMES))
def test_observations_refuse_what_is_not_a_seat_and_never_show_another_seat(name: str) -> None:
    """``observation_string(-1)`` returned seat n-1's hand: -1, OpenSpiel's chance player (what
    ``current_player()`` gives at the deal), was read as a Python index."""
    from open_spiel.python.observation import make_observation

    from fourcards.errors import UnknownSeatError

    game = openspiel_games.load_game(name, **SHORT.get(name, {}))
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    at_deal = game.new_initial_state()
    for state in (at_deal, _midgame(name, SHORT.get(name, {}), 6)):
        n = state.num_players()
        for seat in (-1, -4, -n, n, 10**30):
            for call in (state.observation_string, state.information_state_string, state.observation_tensor,
                         functools.partial(observer.string_from, state), functools.partial(recall.string_from, state),
                         functools.partial(observer.set_from, state)):
                with pytest.raises(UnknownSeatError, match=f"player {seat} is not a seat"):
                    call(seat)
        for seat in (True, 1.0, "0"):
            with pytest.raises(InvalidTypeError, match="player must be an int"):
                state.observation_string(seat)
        for seat in range(n):
            assert state.observation_string(seat) == state.observation_string(np.int64(seat))
    with pytest.raises(UnknownSeatError):
        at_deal.observation_string()  # the chance player's turn


def test_gang_of_four_observations_refuse_what_is_not_a_seat() -> None:
    from fourcards.errors import UnknownSeatError
    from fourcards.rl import openspiel

    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 2, "target_score": 10})
    state = game.new_initial_state()
    with pytest.raises(UnknownSeatError):
        state.observation_string()  # the chance player's turn
    state.apply_action(5)
    hands = [state.observation_string(seat) for seat in range(2)]
    for seat in (-1, -2, 2):
        for call in (state.observation_string, state.information_state_string, state.observation_tensor,
                     state.information_state_tensor):
            with pytest.raises(UnknownSeatError, match=f"player {seat} is not a seat"):
                call(seat)
    assert hands == [state.observation_string(seat) for seat in range(2)]


@pytest.mark.parametrize("name", [openspiel_games.spiel_name(game) for game in GAMES])
def test_the_deal_takes_only_its_outcomes(name: str) -> None:
    """A first user's trial: ``apply_action(70000)`` at the deal dealt seed 4464's match (70000 mod
    2**16), and ``apply_action(2**40)`` a state OpenSpiel could not deserialize."""
    from fourcards.errors import InvalidActionError
    from fourcards.rl import openspiel

    game = pyspiel.load_game(name)
    gang = openspiel.GangOfFourSpielGame()
    for state in (game.new_initial_state(), gang.new_initial_state()):
        for outcome in (openspiel_games.DEALS, 70_000, 2**40):
            with pytest.raises(InvalidActionError, match=f"not {outcome}"):
                state.apply_action(outcome)
            assert state.is_chance_node()  # nothing changed
        state.apply_action(openspiel_games.DEALS - 1)
        assert not state.is_chance_node()
