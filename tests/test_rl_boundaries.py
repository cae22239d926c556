"""What a first user of the RL adapters fed them (2026-12-04): each input is refused by
name or read the one way the docs give, the environment still works afterwards, and a
seed repeats its episodes."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from fourcards import FourCardsError
from fourcards.errors import InvalidTypeError
from fourcards.engine import derive_seed
from fourcards.games import GAMES, get_game
from fourcards.rng import Rng

pytestmark = [pytest.mark.rl]
gymnasium = pytest.importorskip("gymnasium", reason="the rl extra (gymnasium) is not installed")
pytest.importorskip("pettingzoo", reason="the rl extra (pettingzoo) is not installed")

from fourcards.rl import env, raw_env  # noqa: E402  (needs the extra)
from fourcards.rl.gymnasium import SeatEnv  # noqa: E402


def _first_legal(table: SeatEnv) -> int:
    return int(np.flatnonzero(table.action_masks())[0])


# -- SeatEnv -------------------------------------------------------------------------------------------

def test_matches_that_end_before_the_agent_acts_are_reported_with_their_returns() -> None:
    """On a Duelo table of eight, seat 0 never decides in about half the matches; ``reset``
    passed over them in silence, so a policy's mean return looked better than it is. Each
    one passed over is now in ``info["skipped_returns"]``, as the engine plays it."""
    entry = get_game("duelo")
    table = SeatEnv("duelo", players=8, opponents="random")
    game = table.game
    found = 0
    for seed in range(40):
        _, info = table.reset(seed=seed)
        seeds = Rng(seed)
        for expected in info["skipped_returns"]:
            match_seed = seeds.next_u64()
            state = game.new_match(match_seed)
            bots = {p: entry.new_bot("random", game, derive_seed(match_seed, p + 1)) for p in range(1, 8)}
            while not state.is_terminal:
                assert state.current_player != 0, "a match passed over had a turn for the agent"
                player = state.current_player
                state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
            assert float(state.returns()[0]) == expected
            found += 1
        assert table.match.seed == seeds.next_u64()  # the episode is the next match of the sequence
    assert found > 5
    _, info = SeatEnv("duelo", players=2).reset(seed=1)
    assert info["skipped_returns"] == []


@pytest.mark.parametrize("name", ["duelo", "four-pack"])
def test_search_opponents_with_iterations_repeat_their_episodes(name: str) -> None:
    """``opponents="search"`` ran on its clock: the same seed and actions gave other episodes.
    ``"search:iterations=N"`` (the tournament's syntax) repeats them."""
    rules: dict[str, Any] = {"players": 2} if name == "duelo" else {"players": 3, "max_asks": 40}

    def episode() -> list[Any]:
        table = SeatEnv(name, opponents="search:iterations=20", **rules)
        observation, _ = table.reset(seed=11)
        seen = [observation["observation"].tolist()]
        for _ in range(30):
            observation, reward, done, _, _ = table.step(_first_legal(table))
            seen.append((observation["observation"].tolist(), reward))
            if done:
                break
        return seen

    assert episode() == episode()
    table = SeatEnv(name, opponents="search:iterations=20", **rules)
    assert set(table.opponent_kinds.values()) == {"search"}
    with pytest.raises(FourCardsError, match="has no option 'bogus'"):
        SeatEnv(name, opponents="search:bogus=1", **rules)
    with pytest.raises(FourCardsError, match="takes no option"):
        SeatEnv(name, opponents="random:iterations=3", **rules)


def test_reset_seeds_are_checked_before_anything_changes() -> None:
    table = SeatEnv("duelo", players=2)
    first, _ = table.reset(seed=5)
    step = table.match.step
    bads: list[tuple[Any, type[Exception]]] = [(2**64, FourCardsError), (-1, FourCardsError), (3.0, InvalidTypeError),
                                               (True, InvalidTypeError), ("3", InvalidTypeError)]
    for bad, error in bads:
        with pytest.raises(error, match="seed"):
            table.reset(seed=bad)
        assert table.match.step == step
    again, _ = table.reset(seed=np.int64(5))  # type: ignore[arg-type]
    assert np.array_equal(first["observation"], again["observation"])
    assert table.reset(seed=2**64 - 1)[0]["observation"].shape == first["observation"].shape
    aec = raw_env("duelo")
    for bad in (2**64, 2**70, -1):
        with pytest.raises(FourCardsError, match="seed"):
            aec.reset(seed=bad)


def test_a_zero_dimensional_integer_array_is_an_action() -> None:
    """What ``model.predict(obs)`` gives for one observation: ``action_space.contains`` took it
    and ``step`` refused it."""
    table = SeatEnv("duelo", players=2, opponents="random")
    twin = SeatEnv("duelo", players=2, opponents="random")
    table.reset(seed=3)
    twin.reset(seed=3)
    action = _first_legal(table)
    assert table.action_space.contains(np.array(action))
    assert table.step(np.array(action))[0]["observation"].tolist() == twin.step(action)[0]["observation"].tolist()
    for bad in (np.array([action]), np.array(1.0), np.array(True), 1.0, None):
        with pytest.raises(InvalidTypeError, match="an action is an int"):
            table.step(bad)
    aec = raw_env("duelo", players=2)
    aec.reset(seed=3)
    agent = aec.agent_selection
    aec.step(np.array(int(np.flatnonzero(aec.observe(agent)["action_mask"])[0])))
    assert aec.match.step == 1


def test_seat_env_arguments_are_checked_by_name() -> None:
    for kwargs, error, words in (
            ({"opponents": None}, InvalidTypeError, "opponents is a bot kind"),
            ({"opponents": 3}, InvalidTypeError, "opponents is a bot kind"),
            ({"opponents": ["random", "random"]}, FourCardsError, "one bot, or 1"),
            ({"illegal_reward": "x"}, InvalidTypeError, "illegal_reward must be a number"),
            ({"illegal_reward": float("nan")}, FourCardsError, "illegal_reward=nan must be a finite number"),
            ({"illegal_reward": True}, InvalidTypeError, "illegal_reward must be a number"),
            ({"seat": 1.0}, InvalidTypeError, "seat must be an int"),
            ({"seat": 2}, FourCardsError, "seat=2 is not a seat of 2 players"),
            ({"observation": "candidates", "max_candidates": 4097}, FourCardsError, "from 2 to 4096"),
            ({"render_mode": "rgb_array"}, FourCardsError, "render_mode")):
        with pytest.raises(error, match=words):
            SeatEnv("duelo", players=2, **kwargs)
    table = SeatEnv("duelo", players=2, seat=np.int64(1), illegal_reward=np.float32(-2))  # type: ignore[arg-type]
    assert table.seat == 1 and type(table.seat) is int and table.illegal_reward == -2.0


def test_human_render_prints_and_pettingzoo_render_test_passes(capsys: pytest.CaptureFixture[str]) -> None:
    from pettingzoo.test import render_test

    render_test(functools.partial(env, "duelo"))
    capsys.readouterr()
    table = SeatEnv("duelo", players=2, render_mode="human")
    table.reset(seed=1)
    assert table.render() is None
    assert "[" in capsys.readouterr().out


# -- PettingZoo ------------------------------------------------------------------------------------------

def test_pettingzoo_refuses_by_name_what_raised_python_errors() -> None:
    """``observe(0)`` raised an AttributeError, ``step`` before ``reset`` another, ``step`` and
    ``last`` after the end a KeyError, ``observation_space('x')`` a KeyError."""
    aec = raw_env("duelo", players=2)
    with pytest.raises(FourCardsError, match="call reset"):
        aec.step(0)
    aec.reset(seed=4)
    with pytest.raises(InvalidTypeError, match="an agent is a name"):
        aec.observe(0)
    with pytest.raises(InvalidTypeError, match="an agent is a name"):
        aec.observe(None)
    for agent in ("player_9", "player_01", "x"):
        with pytest.raises(FourCardsError, match="agent"):
            aec.observe(agent)
        with pytest.raises(FourCardsError, match="agent"):
            aec.observation_space(agent)
        with pytest.raises(FourCardsError, match="agent"):
            aec.action_space(agent)
    with pytest.raises(InvalidTypeError, match="max_cycles must be a positive int"):
        raw_env("duelo", max_cycles=1.5)
    assert raw_env("duelo", max_cycles=np.int64(2)).max_cycles == 2
    while aec.agents:
        agent = aec.agent_selection
        observation, _, done, truncated, _ = aec.last()
        aec.step(None if done or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    with pytest.raises(FourCardsError, match="episode is over"):
        aec.step(0)
    with pytest.raises(FourCardsError, match="episode is over"):
        aec.last()
    aec.reset(seed=4)
    assert aec.agents and aec.last()[0]["action_mask"].any()


# -- the vector environment -------------------------------------------------------------------------------

def test_vector_refuses_a_bool_in_a_list_and_checks_match_seed() -> None:
    vector_module = pytest.importorskip("fourcards.rl.vector")
    from fourcards._backend import COMPILED

    if not COMPILED:
        pytest.skip("VectorGangOfFour needs the compiled kernels (FOURCARDS_NO_EXTENSIONS or no build)")
    vector = vector_module.VectorGangOfFour(2, seed=3, opponents="random")
    vector.reset()
    before = vector.observations.copy()
    legal = vector.legal_actions(1)[0]
    with pytest.raises(InvalidTypeError, match="not bools"):
        vector.step([True, legal])
    assert np.array_equal(vector.observations, before)
    assert vector.match_seed(1, 0) == derive_seed(derive_seed(3, 1), 0)
    for env_index, number in ((2, 0), (-1, 0), (0, -1), (0, 2**64)):
        with pytest.raises(FourCardsError):
            vector.match_seed(env_index, number)


def test_make_vec_names_the_seat_env_keywords_it_does_not_take() -> None:
    """``render_mode`` and ``illegal_action`` were called unknown rules of gang-of-four."""
    from fourcards._backend import COMPILED

    if not COMPILED:
        pytest.skip("make_vec is Gymnasium's SyncVectorEnv over SeatEnv without the compiled kernels")
    for keywords, words in (({"render_mode": "ansi"}, "renders nothing"),
                            ({"illegal_action": "end"}, "always raises"),
                            ({"illegal_reward": -2.0}, "illegal_reward")):
        with pytest.raises(FourCardsError, match=words):
            gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=2, **keywords)
    gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=2, render_mode=None, illegal_action="raise").close()


def test_a_step_before_reset_is_refused_by_the_env_and_by_gymnasiums_wrapper() -> None:
    """docs/rl.md (a first user's trial, 2026-12-05): through ``gymnasium.make`` a step before
    ``reset`` is Gymnasium's ``ResetNeeded`` (its order-enforcing wrapper); the env itself raises
    a ``FourCardsError``."""
    made = gymnasium.make("fourcards/Duelo-v0")
    with pytest.raises(gymnasium.error.ResetNeeded):
        made.step(0)
    with pytest.raises(FourCardsError, match=r"call reset\(\) before using the environment"):
        made.unwrapped.step(0)
    made.reset(seed=1)
    made.close()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_done_agents_action_other_than_none_is_refused_by_name(name: str) -> None:
    """PettingZoo's own check raised its bare ``ValueError`` (a hostile-input review, all five
    games); docs/rl.md says ``raw_env`` raises a ``FourCardsError`` for a step after the end."""
    from fourcards.errors import IllegalMoveError

    environment = raw_env(name)
    environment.reset(seed=3)
    while not environment.terminations[environment.agent_selection]:
        mask = environment.observe(environment.agent_selection)["action_mask"]
        environment.step(int(np.flatnonzero(mask)[0]))
    done, agents = environment.agent_selection, list(environment.agents)
    with pytest.raises(IllegalMoveError, match=f"{done} is done"):
        environment.step(0)
    assert environment.agent_selection == done and environment.agents == agents  # nothing changed
    environment.step(None)
    assert done not in environment.agents


def test_openspiel_load_game_takes_the_numpy_ints_the_engine_takes() -> None:
    openspiel_games = pytest.importorskip("fourcards.rl.openspiel_games",
                                          reason="the openspiel extra (open_spiel) is not installed")
    assert openspiel_games.load_game("zangle", players=np.int64(3)).num_players() == 3
    assert openspiel_games.load_game("gang-of-four", target_score=np.int32(50)).num_players() == 4
    import json
    from importlib import resources

    deck = json.loads(resources.files("fourcards.decks").joinpath("elements.json").read_text())  # the engine takes it
    with pytest.raises(InvalidTypeError, match="OpenSpiel takes rule values of int, float, str or bool"):
        openspiel_games.load_game("duelo", deck=deck)
