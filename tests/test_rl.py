"""The RL adapters (``fourcards[rl]``): PettingZoo, Gymnasium and OpenSpiel,
checked with each framework's own test tools and against the engines."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourcards.errors import FourCardsError, IllegalMoveError, InvalidActionError, InvalidTypeError

pytestmark = pytest.mark.rl

# Every turn-based game and mode, with short matches where the rules allow.
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("gang-of-four", {"players": 2, "target_score": 10}),
    ("gang-of-four", {"players": 3, "target_score": 5, "pass_is_final": True, "chinese_dealing": True}),
    ("gang-of-four", {"players": 4, "target_score": 3, "manual_last_card": True, "last_card_may_pass": True}),
    ("four-color", {"players": 2, "rounds": 1}),
    ("four-color", {"players": 3, "rounds": 1, "lucky_rank_only": True}),
    ("four-color", {"players": 4, "rounds": 1}),
    ("zangle", {"players": 2, "rounds": 1}),
    ("zangle", {"players": 4, "rounds": 2}),
    ("zangle", {"mode": "solitaire"}),
    ("four-pack", {"players": 3}),
    ("four-pack", {"players": 4, "must_hold_family": True}),
    ("duelo", {"players": 2}),
    ("duelo", {"players": 3}),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in rules.items())}" for name, rules in CONFIGS]


def play_random(table: Any, seed: int, limit: int = 100_000) -> list[int]:
    """Play an AEC environment to the end with masked random actions; the actions."""
    table.reset(seed=seed)
    space_rng = np.random.default_rng(seed)
    actions: list[int] = []
    for _agent in table.agent_iter(limit):
        observation, _, termination, truncation, _ = table.last()
        if termination or truncation:
            table.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(space_rng.choice(legal))
        actions.append(action)
        table.step(action)
    return actions


# -- PettingZoo ------------------------------------------------------------------------------

class TestPettingZoo:
    @pytest.fixture(autouse=True)
    def _frameworks(self) -> None:
        pytest.importorskip("pettingzoo")

    @pytest.mark.parametrize(("name", "rules"), CONFIGS, ids=IDS)
    def test_pettingzoo_api_and_seed_tests(self, name: str, rules: dict[str, Any]) -> None:
        from pettingzoo.test import api_test, seed_test

        from fourcards.rl import env

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the advice about dict observations
            api_test(env(name, **rules), num_cycles=200)
            seed_test(lambda: env(name, **rules), num_cycles=100)

    @pytest.mark.parametrize(("name", "rules"), CONFIGS, ids=IDS)
    def test_masks_are_the_legal_actions_and_rewards_the_returns(self, name: str, rules: dict[str, Any]) -> None:
        from fourcards.rl import raw_env

        table = raw_env(name, **rules)
        table.reset(seed=5)
        rng = np.random.default_rng(5)
        total = dict.fromkeys(table.possible_agents, 0.0)
        for agent in table.agent_iter(20_000):
            observation, reward, termination, truncation, _ = table.last()
            total[agent] += reward
            state = table.match
            if termination or truncation:
                table.step(None)
                continue
            assert agent == f"player_{state.current_player}"
            assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
            np.testing.assert_array_equal(observation["observation"], state.observation_tensor(state.current_player))
            for other in table.agents:
                if other != agent:
                    assert not table.observe(other)["action_mask"].any()
            table.step(int(rng.choice(state.legal_actions())))
        assert table.match.is_terminal
        assert table.agents == []
        assert [total[a] for a in table.possible_agents] == pytest.approx(table.match.returns())

    def test_same_seed_same_match_and_seeds_continue(self) -> None:
        from fourcards.rl import env

        first, second = env("gang-of-four", players=3, target_score=5), env("gang-of-four", players=3, target_score=5)
        assert play_random(first, 11) == play_random(second, 11)
        assert first.unwrapped.match.to_json() == second.unwrapped.match.to_json()
        play_random(first, 12)
        assert first.unwrapped.match.to_json() != second.unwrapped.match.to_json()
        # reset() without a seed continues the seeded sequence, the same in both
        first.reset(seed=3)
        second.reset(seed=3)
        first.reset()
        second.reset()
        assert first.unwrapped.match.seed == second.unwrapped.match.seed

    def test_illegal_action_raises_and_changes_nothing(self) -> None:
        from fourcards.rl import raw_env

        table = raw_env("duelo", players=2)
        table.reset(seed=1)
        table.step(0)
        four_pack = raw_env("four-pack", players=3)
        four_pack.reset(seed=2)
        before = four_pack.match.to_json()
        mask = four_pack.observe(four_pack.agent_selection)["action_mask"]
        illegal = int(np.flatnonzero(mask == 0)[0])
        with pytest.raises(IllegalMoveError):
            four_pack.step(illegal)
        with pytest.raises(InvalidTypeError):
            four_pack.step("A1")
        assert four_pack.match.to_json() == before

    def test_max_cycles_truncates_every_agent(self) -> None:
        from fourcards.rl import raw_env

        table = raw_env("gang-of-four", players=2, max_cycles=3)
        table.reset(seed=4)
        moves = 0
        for _ in table.agent_iter():
            observation, _, termination, truncation, _ = table.last()
            if termination or truncation:
                assert truncation and not termination
                table.step(None)
                continue
            table.step(int(np.flatnonzero(observation["action_mask"])[0]))
            moves += 1
        assert moves == 6 and table.match.step == 6 and not table.match.is_terminal

    def test_ansi_render_reads_the_games_record_texts(self) -> None:
        from fourcards.rl import raw_env

        table = raw_env("gang-of-four", players=2, target_score=10, render_mode="ansi")
        table.reset(seed=1)
        first = table.render()
        assert first is not None and "round 1: P" in first and "leads" in first
        action = int(np.flatnonzero(table.observe(table.agent_selection)["action_mask"])[0])
        text = table.match.action_to_string(action)
        table.step(action)
        second = table.render()
        assert second is not None and "round 1:" not in second and f"plays {text}" in second
        zangle = raw_env("zangle", mode="solitaire", render_mode="ansi")
        zangle.reset(seed=1)
        assert "centre" in (zangle.render() or "")

    def test_bad_input_is_refused(self) -> None:
        from fourcards.rl import env

        with pytest.raises(FourCardsError, match="unknown game"):
            env("poker")
        with pytest.raises(FourCardsError, match="render_mode"):
            env("duelo", render_mode="rgb_array")
        with pytest.raises(FourCardsError, match="max_cycles"):
            env("duelo", max_cycles=0)
        with pytest.raises(FourCardsError, match="players"):
            env("gang-of-four", players=5)
        with pytest.raises(FourCardsError, match="speedster"):
            env("zangle", mode="speedster")
        with pytest.raises(FourCardsError, match="unknown rule 'colour' for duelo"):
            env("duelo", colour="blue")
        table = env("duelo")
        with pytest.raises(InvalidTypeError):
            table.reset(seed="one")
        with pytest.raises(FourCardsError, match="seed"):
            table.reset(seed=-1)


# -- Gymnasium ---------------------------------------------------------------------------------

GYM_CASES: list[tuple[str, dict[str, Any]]] = [
    ("fourcards/GangOfFour-v0", {"players": 2, "target_score": 10, "opponents": "greedy"}),
    ("fourcards/GangOfFour-v0", {"players": 3, "target_score": 5, "seat": 2}),
    ("fourcards/FourColor-v0", {"players": 2, "rounds": 1, "opponents": "greedy"}),
    ("fourcards/Zangle-v0", {"players": 3, "rounds": 1}),
    ("fourcards/ZangleSolitaire-v0", {}),
    ("fourcards/FourPack-v0", {"players": 3, "opponents": ["memory", "random"]}),
    ("fourcards/Duelo-v0", {"players": 2, "opponents": "category"}),
]


class TestGymnasium:
    @pytest.fixture(autouse=True)
    def _frameworks(self) -> None:
        pytest.importorskip("gymnasium")

    @pytest.mark.parametrize(("env_id", "options"), GYM_CASES, ids=[f"{i}-{o}" for i, o in GYM_CASES])
    def test_check_env_and_an_episode(self, env_id: str, options: dict[str, Any]) -> None:
        import gymnasium
        from gymnasium.utils.env_checker import check_env

        import fourcards.rl  # noqa: F401  (registers the ids)
        from fourcards.rl.gymnasium import SeatEnv

        table = gymnasium.make(env_id, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the advice about unbounded score slots
            check_env(table.unwrapped)
        seat_env = table.unwrapped
        assert isinstance(seat_env, SeatEnv)
        seat = seat_env.seat
        observation, _ = table.reset(seed=8)
        rng = np.random.default_rng(8)
        reward: Any = 0.0
        for _ in range(5_000):
            state = seat_env.match
            assert state.current_player == seat
            assert np.flatnonzero(observation["action_mask"]).tolist() == state.legal_actions()
            assert np.flatnonzero(seat_env.action_masks()).tolist() == state.legal_actions()
            observation, reward, terminated, truncated, info = table.step(int(rng.choice(state.legal_actions())))
            assert not truncated
            if terminated:
                break
        assert state.is_terminal and reward == pytest.approx(state.returns()[seat])
        assert info["scores"] == state.scores

    def test_same_seed_same_episode(self) -> None:
        import gymnasium

        import fourcards.rl  # noqa: F401
        from fourcards.rl.gymnasium import SeatEnv

        def episode() -> str:
            table = gymnasium.make("fourcards/FourColor-v0", players=3, rounds=1, opponents="greedy")
            observation, _ = table.reset(seed=21)
            done = False
            while not done:
                observation, _, done, _, _ = table.step(int(np.flatnonzero(observation["action_mask"])[-1]))
            seat_env = table.unwrapped
            assert isinstance(seat_env, SeatEnv)
            return seat_env.match.to_json()

        assert episode() == episode()

    def test_illegal_actions_end_the_episode_or_raise(self) -> None:
        from fourcards.rl.gymnasium import SeatEnv

        table = SeatEnv("four-pack", players=3)
        observation, _ = table.reset(seed=3)
        before = table.match.to_json()
        illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
        _, reward, terminated, _, info = table.step(illegal)
        assert (reward, terminated, info["illegal_action"]) == (-1.0, True, illegal)
        assert table.match.to_json() == before
        with pytest.raises(FourCardsError, match="reset"):
            table.step(int(np.flatnonzero(observation["action_mask"])[0]))
        strict = SeatEnv("four-pack", players=3, illegal_action="raise")
        strict.reset(seed=3)
        with pytest.raises(IllegalMoveError):
            strict.step(illegal)
        assert strict.match.to_json() == before
        # a first user's trial: an action outside the space was scored as a move (-1, episode over)
        for kind, space in (("dict", table.game.num_distinct_actions), ("candidates", 16)):
            loose = SeatEnv("four-pack", players=3, observation=kind, max_candidates=16)
            loose.reset(seed=3)
            for outside in (space, 10**7, -1):
                with pytest.raises(InvalidActionError, match="action space"):
                    loose.step(outside)
            assert loose.match.to_json() == before and not loose._ended

    def test_a_match_over_before_the_agent_acts_is_skipped(self) -> None:
        from fourcards.rl.gymnasium import SeatEnv
        from fourcards.rng import Rng

        table = SeatEnv("duelo", players=2, opponents="category", seat=1)
        observation, _ = table.reset(seed=24)  # its first deal: the bot wins every hand it calls
        seeds = Rng(24)
        first = seeds.next_u64()
        assert table.match.seed != first and table.match.seed == seeds.next_u64()
        skipped = table.game.new_match(first)
        bot = table.entry.new_bot("category", table.game, 0)
        while not skipped.is_terminal:  # the deal skipped: seat 1 never has a turn
            assert skipped.current_player == 0
            skipped.apply(bot.choose(skipped.observation(0), skipped.legal_actions()), 0)
        assert observation["action_mask"].any() and table.match.current_player == 1

    def test_bad_options_are_refused(self) -> None:
        from fourcards.rl.gymnasium import SeatEnv

        with pytest.raises(FourCardsError, match="seat"):
            SeatEnv("duelo", seat=2)
        with pytest.raises(FourCardsError, match="unknown bot"):
            SeatEnv("duelo", opponents="greedy")
        with pytest.raises(FourCardsError, match="opponents"):
            SeatEnv("four-pack", players=3, opponents=["memory"])
        # a first user's trial: a one-seat game took any bot name; a long list was cut mid-item
        with pytest.raises(FourCardsError, match="unknown bot 'bogus'"):
            SeatEnv("zangle", mode="solitaire", players=1, opponents="bogus")
        with pytest.raises(FourCardsError, match=r"\.\.\.: one bot, or 3"):
            SeatEnv("gang-of-four", opponents=["random"] * 9)
        with pytest.raises(FourCardsError, match="illegal_action"):
            SeatEnv("duelo", illegal_action="ignore")
        with pytest.raises(FourCardsError, match="reset"):
            SeatEnv("duelo").step(0)


# -- OpenSpiel ---------------------------------------------------------------------------------

class TestOpenSpiel:
    @pytest.fixture(autouse=True)
    def _frameworks(self) -> None:
        pytest.importorskip("pyspiel")

    @pytest.mark.parametrize("players", [2, 3, 4])
    def test_random_sim_test_with_serialization(self, players: int) -> None:
        import pyspiel

        from fourcards.rl import openspiel

        game = pyspiel.load_game(openspiel.GAME_NAME, {"players": players, "target_score": 4})
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)

    def test_state_follows_the_engine_and_serializes(self) -> None:
        import pyspiel

        from fourcards.gangoffour.match import GangOfFour
        from fourcards.rl import openspiel

        game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 3, "target_score": 5, "pass_is_final": True})
        state = game.new_initial_state()
        state.apply_action(1234)
        engine = GangOfFour(players=3, target_score=5, pass_is_final=True).new_match(1234)
        rng = np.random.default_rng(1)
        while not state.is_terminal():
            player = state.current_player()
            assert player == engine.current_player and state.legal_actions() == engine.legal_actions()
            assert state.observation_tensor(player) == pytest.approx(engine.observation_tensor(player).tolist())
            assert len(state.information_state_tensor(player)) == game.information_state_tensor_size()
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            engine.apply(action)
        assert state.returns() == pytest.approx(engine.returns())
        assert sum(state.returns()) == pytest.approx(0.0)
        text = pyspiel.serialize_game_and_state(game, state)
        _, again = pyspiel.deserialize_game_and_state(text)
        assert again.returns() == state.returns() and again.history() == state.history()

    def test_resampling_keeps_what_the_player_knows(self) -> None:
        import pyspiel

        from fourcards.rl import openspiel

        game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 2, "target_score": 10})
        state = game.new_initial_state()
        state.apply_action(99)
        rng = np.random.default_rng(3)
        for _ in range(7):
            state.apply_action(int(rng.choice(state.legal_actions())))
        player = state.current_player()
        changed = False
        for _ in range(5):
            other = openspiel.resample(state, player, rng)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_tensor(player) == state.observation_tensor(player)
            assert other.legal_actions() == state.legal_actions()
            assert state.match is not None and other.match is not None
            hands, again = state.match._hand_masks(), other.match._hand_masks()
            assert [h.bit_count() for h in hands] == [h.bit_count() for h in again]
            changed |= hands[1 - player] != again[1 - player]
            cards = (openspiel._set_aside_codes(state.match), openspiel._set_aside_codes(other.match))
            assert sorted(cards[0] + _codes(hands[1 - player])) == sorted(cards[1] + _codes(again[1 - player]))
        assert changed

    def test_openspiel_ismcts_and_observers_run_on_it(self) -> None:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts
        from open_spiel.python.observation import make_observation

        from fourcards.rl import openspiel

        game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 2, "target_score": 5})
        state = game.new_initial_state()
        state.apply_action(5)
        random_state = np.random.RandomState(0)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, random_state), 2.0, max_simulations=4,
                               random_state=random_state)
        for _ in range(3):
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
        recall.set_from(state, 0)
        assert recall.tensor.tolist() == pytest.approx(state.information_state_tensor(0))
        assert recall.string_from(state, 0) == state.information_state_string(0)


def _codes(mask: int) -> list[int]:
    from fourcards.gangoffour import _deck

    return list(_deck.codes_of_mask(mask))


# -- the examples ------------------------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize(("script", "package"), [("rl_pettingzoo.py", "pettingzoo"), ("rl_gymnasium.py", "gymnasium"),
                                                 ("rl_openspiel.py", "pyspiel")])
def test_examples_run(script: str, package: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip(package)
    runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    assert capsys.readouterr().out.startswith(("returns:", "reward:"))
