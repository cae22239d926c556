"""Learning in practice: the compact and candidate observations, the candidate
rows in Python and in C, and the learned Gang of Four bot with its policy file."""

from __future__ import annotations

import io
import os
import warnings
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourcards._backend import load
from fourcards.engine import play_match
from fourcards.errors import FourCardsError, IllegalMoveError, InvalidActionError, InvalidTypeError
from fourcards.games import GAMES, get_game
from fourcards.gangoffour import features
from fourcards.gangoffour.bots import GreedyBot
from fourcards.gangoffour.learned import FORMAT, FORMAT_VERSION, LearnedBot, load_policy
from fourcards.gangoffour.match import GangOfFour, Play, Rules
from fourcards.rl.candidates import GENERIC_SIZE, candidates, feature_size, pick_rows

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import fourcards.rl  # noqa: E402

_vector = load("fourcards.gangoffour._vector")


def _play_random(env: Any, seed: int) -> tuple[int, float]:
    """A whole episode with uniformly random legal actions; (steps, last reward)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done, steps, reward = False, 0, 0.0
    while not done:
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        _, reward, done, _, _ = env.step(action)
        steps += 1
    return steps, float(reward)


# -- the compact and the candidate observations ------------------------------------------------

@pytest.mark.rl
@pytest.mark.parametrize("env_id", sorted(fourcards.rl.GYMNASIUM_IDS))
@pytest.mark.parametrize("kind", ["compact", "candidates"])
def test_observation_kinds_pass_check_env(env_id: str, kind: str) -> None:
    env = gymnasium.make(env_id, observation=kind, opponents="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unbounded Box warnings of some games' tensors
        check_env(env.unwrapped, skip_render_check=True)
    game = env.unwrapped.game
    space = env.observation_space
    if kind == "compact":
        assert isinstance(space, gymnasium.spaces.Box) and space.shape == (game.observation_size,)
        assert env.action_space.n == game.num_distinct_actions
    else:
        assert space["candidates"].shape == (128, feature_size(game))
        assert env.action_space.n == 128
    steps, _ = _play_random(env, 3)
    assert steps > 0


@pytest.mark.rl
def test_compact_observation_is_the_tensor_and_the_mask_the_legal_actions() -> None:
    env = gymnasium.make("fourcards/GangOfFour-v0", observation="compact", opponents="greedy")
    observation, _ = env.reset(seed=5)
    assert observation.shape == (217,) and observation.dtype == np.float32
    state = env.unwrapped.match
    assert np.array_equal(observation, state.observation_tensor(0))
    mask = env.unwrapped.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (12387,)
    assert np.flatnonzero(mask).tolist() == state.legal_actions()


@pytest.mark.rl
def test_candidate_observation_rows_and_actions() -> None:
    env = gymnasium.make("fourcards/GangOfFour-v0", observation="candidates", opponents="greedy", max_candidates=16)
    observation, _ = env.reset(seed=11)
    for _ in range(30):
        state = env.unwrapped.match
        rows, actions = candidates(state, 0, 16)
        count = observation["count"]
        assert count == len(actions) <= 16
        assert np.array_equal(observation["candidates"][:count], rows)
        assert not observation["candidates"][count:].any()
        assert observation["actions"][:count].tolist() == actions.tolist()
        assert (observation["actions"][count:] == -1).all()
        assert env.unwrapped.action_masks().tolist() == [True] * count + [False] * (16 - count)
        before = state.step
        observation, _, done, _, _ = env.step(count - 1)  # the last row: a pass when there is one
        assert state.actions[before] == int(actions[-1])
        if done:
            break


@pytest.mark.rl
def test_candidate_observation_refuses_an_empty_row() -> None:
    env = gymnasium.make("fourcards/GangOfFour-v0", observation="candidates", max_candidates=8)
    observation, _ = env.reset(seed=2)
    empty = int(observation["count"])
    if empty < 8:
        _, reward, done, _, info = env.step(empty)
        assert done and reward == -1.0 and info["illegal_action"] == empty
    strict = gymnasium.make("fourcards/GangOfFour-v0", observation="candidates", max_candidates=8,
                            illegal_action="raise")
    observation, _ = strict.reset(seed=2)
    if int(observation["count"]) < 8:
        with pytest.raises(IllegalMoveError):
            strict.step(7)


@pytest.mark.rl
def test_observation_options_are_checked() -> None:
    with pytest.raises(FourCardsError, match="observation="):
        gymnasium.make("fourcards/GangOfFour-v0", observation="flat")
    with pytest.raises(FourCardsError, match="max_candidates"):
        gymnasium.make("fourcards/GangOfFour-v0", observation="candidates", max_candidates=1)


# -- candidate rows --------------------------------------------------------------------------

def test_pick_rows_keeps_all_or_spreads_from_first_to_last() -> None:
    assert pick_rows(5, 8).tolist() == [0, 1, 2, 3, 4]
    picked = pick_rows(100, 8).tolist()
    assert picked[0] == 0 and picked[-1] == 99 and len(set(picked)) == 8 and picked == sorted(picked)
    assert features.pick_rows(100, 8).tolist() == picked


def test_candidate_layout_is_contiguous_and_hashed() -> None:
    ends = [0]
    for _, first, end in features.FEATURE_LAYOUT:
        assert first == ends[-1] and end > first
        ends.append(end)
    assert ends[-1] == features.FEATURE_SIZE == feature_size(GangOfFour())
    assert features.layout_hash(features.FEATURE_LAYOUT, 217, features.LAYOUT_VERSION) == features.LAYOUT_HASH


@pytest.mark.parametrize("rules", [Rules(), Rules(players=3, manual_last_card=True), Rules(players=2)])
def test_gang_of_four_rows_describe_the_actions(rules: Rules) -> None:
    game = GangOfFour(rules)
    state = game.new_match(21)
    bots = [GreedyBot() for _ in range(rules.players)]
    seen = 0
    while not state.is_terminal and seen < 300:
        seat = state.current_player
        rows, actions = candidates(state, seat)
        assert actions.tolist() == state.legal_actions()
        assert candidates(state, (seat + 1) % rules.players)[0].shape == (0, features.FEATURE_SIZE)
        held = len(state.hand(seat))
        for row, action in zip(rows, actions.tolist()):
            readable = state.int_to_action(action)
            kind = type(readable).__name__
            assert row[47] == (kind == "Pass") and row[48] == (kind == "GiveBack")
            if isinstance(readable, Play):
                assert row[0:34].sum() == len(readable.combo.cards) == round(row[44] * 16)
                assert row[34 + int(readable.combo.kind)] == 1.0 and row[34:42].sum() == 1.0
                assert row[45] * 16 == held - len(readable.combo.cards)
                assert row[49] == readable.announce
            assert row.min() >= 0.0 and row.max() <= 2.0
        # the observation tensor rebuilt from what a bot sees
        for player in range(rules.players):
            assert np.array_equal(features.observation_tensor(state.observation(player)),
                                  state.observation_tensor(player))
        state.apply(bots[seat].choose(state.observation(seat), state.legal_actions()), seat)
        seen += 1


@pytest.mark.parametrize("name", [name for name in GAMES if name != "gang-of-four"])
def test_generic_rows_for_the_other_games(name: str) -> None:
    game = get_game(name).new_game()
    state = game.new_match(4)
    seat = state.current_player
    rows, actions = candidates(state, seat)
    assert rows.shape == (len(state.legal_actions()), GENERIC_SIZE) and rows.dtype == np.float32
    assert actions.tolist() == state.legal_actions()
    assert rows.min() >= 0.0 and rows.max() < 1.0
    assert np.array_equal(rows, candidates(state, seat)[0])  # a stable hash: the same rows every time
    if len(actions) > 1:
        assert len({row.tobytes() for row in rows}) == len(rows)


@pytest.mark.skipif(_vector is None, reason="the compiled environment is not in use")
@pytest.mark.parametrize(("rules", "limit", "opponents"), [
    (Rules(), 128, "greedy"),
    (Rules(players=3, manual_last_card=True, last_card_may_pass=True), 6, "random"),
    (Rules(players=2, pass_is_final=True), 2, "greedy"),
])
def test_vector_candidates_equal_the_python_rows(rules: Rules, limit: int, opponents: str) -> None:
    from fourcards.engine import derive_seed
    from fourcards.gangoffour.bots import RandomBot
    from fourcards.rl.vector import VectorGangOfFour

    envs = 5
    env = VectorGangOfFour(envs, seed=17, opponents=opponents, rules=rules, candidates=limit)
    env.reset()
    game = GangOfFour(rules)

    def start(i: int) -> tuple[Any, list[Any]]:
        seed = env.match_seed(i, int(env.match_numbers[i]))
        bots = [RandomBot(derive_seed(seed, p + 1)) if opponents == "random" else GreedyBot()
                for p in range(rules.players)]
        return game.new_match(seed), bots

    def bots_move(state: Any, bots: list[Any]) -> None:
        while not state.is_terminal and state.current_player != 0:
            p = state.current_player
            state.apply(bots[p].choose(state.observation(p), state.legal_actions()), p)

    mirrors = [start(i) for i in range(envs)]
    rng = np.random.default_rng(3)
    compared = 0
    for _ in range(250):
        actions = []
        for i, (state, bots) in enumerate(mirrors):
            bots_move(state, bots)
            rows, legal = candidates(state, 0, limit)
            count = int(env.candidate_counts[i])
            assert count == len(legal)
            assert env.candidate_actions[i, :count].tolist() == legal.tolist()
            assert np.array_equal(env.candidates[i, :count], rows)
            assert not env.candidates[i, count:].any() and (env.candidate_actions[i, count:] == -1).all()
            actions.append(int(legal[rng.integers(count)]))
            compared += 1
        env.step(actions)
        for i, (state, bots) in enumerate(mirrors):
            state.apply(actions[i], 0)
            bots_move(state, bots)
            assert state.is_terminal == bool(env.dones[i])
            if env.dones[i]:
                mirrors[i] = start(i)
    assert compared == 250 * envs


@pytest.mark.skipif(_vector is None, reason="the compiled environment is not in use")
def test_vector_candidates_are_checked_and_off_by_default() -> None:
    from fourcards.rl.vector import VectorGangOfFour

    assert VectorGangOfFour(2).candidates.shape == (2, 0, features.FEATURE_SIZE)
    with pytest.raises(FourCardsError, match="candidates"):
        VectorGangOfFour(2, candidates=1)
    with pytest.raises(InvalidTypeError):
        VectorGangOfFour(2, candidates=2.5)  # type: ignore[arg-type]


# -- the learned bot ---------------------------------------------------------------------------

def test_registry_has_the_learned_bot_but_not_as_the_best() -> None:
    entry = get_game("gang-of-four")
    assert "learned" in entry.bot_kinds and entry.best_bot == "search"
    bot = entry.new_bot("learned", entry.new_game(), seed=3)
    assert isinstance(bot, LearnedBot)
    with pytest.raises(FourCardsError, match="policy"):
        entry.new_bot("learned", entry.new_game(), seed=3, temperature=1)


def _actions_of(seed: int, bot_seed: int, players: int = 4) -> list[int]:
    game = GangOfFour(players=players, target_score=30)
    bots: list[Any] = [get_game("gang-of-four").new_bot("learned", game, bot_seed)]
    bots += [GreedyBot() for _ in range(players - 1)]
    state = play_match(game.new_match(seed), bots)  # every move checked legal by apply
    assert state.is_terminal
    return list(state.actions)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_learned_bot_plays_whole_matches_deterministically(players: int) -> None:
    first = _actions_of(8, 1, players)
    assert first == _actions_of(8, 1, players)
    assert first == _actions_of(8, 2, players)  # its choice does not depend on the seed


def test_shipped_policy_matches_its_feature_layout() -> None:
    shipped = resources.files("fourcards.gangoffour").joinpath("learned_policy.npz")
    assert shipped.is_file()
    with np.load(io.BytesIO(shipped.read_bytes()), allow_pickle=False) as data:
        assert str(data["format"]) == FORMAT and str(data["version"]) == FORMAT_VERSION
        assert str(data["layout_hash"]) == features.LAYOUT_HASH
        assert data["cand_w"].shape[0] == features.FEATURE_SIZE and data["state_w"].shape[0] == 217
    weights = load_policy()
    assert weights.cand_w.shape[1] == weights.state_w.shape[1] == weights.b1.shape[0]


def _policy_arrays() -> dict[str, np.ndarray]:
    with np.load(load_policy().source, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def _write(path: Path, arrays: dict[str, Any]) -> Path:
    np.savez(path, **arrays)
    return path


def test_a_policy_file_written_again_is_read_again(tmp_path: Path) -> None:
    """A trainer writing its policy to the same file round after round: the bot of the next round must
    play the new weights, not the first ones the cache kept."""
    arrays = _policy_arrays()
    path = _write(tmp_path / "policy.npz", arrays)
    first = load_policy(path)
    assert load_policy(path) is first  # unchanged: cached
    _write(path, {**arrays, "b3": arrays["b3"] + 1.0})
    np.testing.assert_allclose(load_policy(path).b3, first.b3 + 1.0)


@pytest.mark.parametrize(("damage", "problem"), [
    ("missing", "no such file"),
    ("truncated", "not a readable .npz"),
    ("garbage", "not an .npz file"),
    # a helper's first use: a text file was "pickled (object) data", an .npy a raw TypeError
    ("text", "not an .npz file"),
    ("npy", "not an .npz file"),
    ("directory", "not a regular file"),
    ("fifo", "not a regular file"),  # a second user's trial: opening a FIFO blocked for ever
    ("shape", "state_w has shape"),
    ("hidden", "w2 has shape"),
    ("format", "format"),
    ("version", "version"),
    ("layout", "trained on candidate features"),
    ("nan", "NaN"),
    ("dropped", "missing w3"),
    ("dtype", "dtype"),
    ("header", "header 'format' must be a string"),
    ("deeper without layers", "missing wh, bh"),
    ("deeper layers of another width", "wh has shape"),
    ("deeper biases of another count", "bh has shape"),
    # a first user's trial: a deeper policy labelled version 1 played without its layers
    ("deeper labelled version 1", "holds bh, wh, which a version 1 policy file has not"),
    ("too large for float32", "w3 holds values too large for float32"),
    ("b2 of two dimensions", r"b2 has shape \(1, \d+\), expected a 1-D array"),  # (1, the second width)
    ("b1 empty", r"b1 has shape \(0,\), expected a 1-D array"),
    ("deeper layers of no dimension", r"wh has shape \(\), expected \(L >= 1, (\d+), \1\)"),
])
def test_bad_policy_files_are_refused_by_name(tmp_path: Path, damage: str, problem: str) -> None:
    arrays = _policy_arrays()
    path = tmp_path / f"{damage}.npz"
    good = tmp_path / "good.npz"
    _write(good, arrays)
    if damage == "truncated":
        path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00not a zip" * 100)
    elif damage == "text":
        path.write_text("a policy, I thought\n")
    elif damage == "npy":
        with path.open("wb") as file:
            np.save(file, arrays["b1"])
    elif damage == "fifo":
        os.mkfifo(path)
    elif damage == "directory":
        path.mkdir()
    elif damage == "shape":
        _write(path, {**arrays, "state_w": arrays["state_w"][:-1]})
    elif damage == "hidden":
        _write(path, {**arrays, "w2": arrays["w2"][:, :-1]})
    elif damage == "format":
        _write(path, {**arrays, "format": np.array("something-else")})
    elif damage == "version":
        _write(path, {**arrays, "version": np.array("99")})
    elif damage == "layout":
        _write(path, {**arrays, "layout_hash": np.array("0123456789abcdef")})
    elif damage == "nan":
        _write(path, {**arrays, "b1": np.full_like(arrays["b1"], np.nan)})
    elif damage == "dropped":
        _write(path, {name: value for name, value in arrays.items() if name != "w3"})
    elif damage == "dtype":
        _write(path, {**arrays, "b2": arrays["b2"].astype(np.int32)})
    elif damage == "header":
        _write(path, {**arrays, "format": np.array(3)})
    elif damage == "deeper without layers":
        _write(path, {**arrays, "version": np.array("2")})
    elif damage == "deeper labelled version 1":
        width = arrays["b2"].shape[0]
        _write(path, {**arrays, "wh": np.zeros((1, width, width), np.float32), "bh": np.zeros((1, width), np.float32)})
    elif damage == "too large for float32":
        _write(path, {**arrays, "w3": np.full(arrays["w3"].shape, 1e39, np.float64)})
    elif damage == "b2 of two dimensions":
        _write(path, {**arrays, "b2": arrays["b2"][None, :]})
    elif damage == "b1 empty":
        _write(path, {**arrays, "b1": arrays["b1"][:0]})
    elif damage == "deeper layers of no dimension":
        _write(path, {**arrays, "version": np.array("2"), "wh": np.array(1.0, np.float32),
                      "bh": np.zeros((1, arrays["b2"].shape[0]), np.float32)})
    elif damage.startswith("deeper"):
        width = arrays["b2"].shape[0]
        wh = np.zeros((2, width, width + (damage == "deeper layers of another width")), np.float32)
        bh = np.zeros((2 + (damage == "deeper biases of another count"), width), np.float32)
        _write(path, {**arrays, "version": np.array("2"), "wh": wh, "bh": bh})
    with pytest.raises(FourCardsError, match=problem) as caught:
        LearnedBot(policy=path)
    assert str(path) in str(caught.value)
    assert isinstance(LearnedBot(policy=good), LearnedBot)


def test_a_deeper_policy_scores_through_its_layers(tmp_path: Path) -> None:
    """A version 2 policy file (``wh``, ``bh``: more layers before the output) scores each row as
    the layers written out in numpy say, and a version 1 file as before."""
    rng = np.random.default_rng(4)
    arrays = _policy_arrays()
    width = arrays["b2"].shape[0]
    wh = rng.normal(0, 0.3, (2, width, width)).astype(np.float32)
    bh = rng.normal(0, 0.3, (2, width)).astype(np.float32)
    deeper = load_policy(_write(tmp_path / "deeper.npz", {**arrays, "version": np.array("2"), "wh": wh, "bh": bh}))
    shallow = load_policy(_write(tmp_path / "shallow.npz", arrays))
    state = rng.random((int(arrays["state_w"].shape[0]),), dtype=np.float32)
    rows = rng.random((13, arrays["cand_w"].shape[0])).astype(np.float32)
    h = np.maximum(state @ arrays["state_w"] + rows @ arrays["cand_w"] + arrays["b1"], 0.0)
    h = np.maximum(h @ arrays["w2"] + arrays["b2"], 0.0)
    np.testing.assert_allclose(shallow.scores(state, rows), h @ arrays["w3"] + arrays["b3"][0], rtol=1e-4, atol=1e-4)
    for layer, bias in zip(wh, bh):
        h = np.maximum(h @ layer + bias, 0.0)
    np.testing.assert_allclose(deeper.scores(state, rows), h @ arrays["w3"] + arrays["b3"][0], rtol=1e-4, atol=1e-4)
    assert shallow.wh is None


def test_a_policy_file_need_not_be_a_zip_of_pickles(tmp_path: Path) -> None:
    path = tmp_path / "pickled.npz"
    with zipfile.ZipFile(path, "w") as archive:
        buffer = io.BytesIO()
        np.save(buffer, np.array([object()], dtype=object), allow_pickle=True)
        archive.writestr("state_w.npy", buffer.getvalue())
    with pytest.raises(FourCardsError, match=str(path)):
        LearnedBot(policy=path)


@pytest.mark.rl
@pytest.mark.skipif(_vector is None, reason="the compiled environment is not in use")
@pytest.mark.parametrize("kind", ["compact", "candidates"])
def test_make_vec_takes_the_observation_kinds(kind: str) -> None:
    envs = gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=6, opponents="greedy", observation=kind,
                              max_candidates=16)
    observations, _ = envs.reset(seed=3)
    assert envs.observation_space.contains(observations)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        masks = envs.unwrapped.action_masks()
        assert masks.shape == (6, 16 if kind == "candidates" else 12387)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        observations, _, terminations, _, infos = envs.step(actions)
        assert envs.observation_space.contains(observations)
        for i in np.flatnonzero(terminations):
            assert envs.single_observation_space.contains(infos["final_obs"][i])
            finished += 1
    assert finished > 0
    if kind == "candidates":
        assert np.array_equal(observations["candidates"], envs.unwrapped.vector.candidates)
        empty = np.argmin(observations["count"])
        if observations["count"][empty] < 16:
            rows = np.zeros(6, dtype=np.int64)
            rows[empty] = 15
            with pytest.raises(IllegalMoveError, match=f"env {empty}"):
                envs.step(rows)
        for outside in (16, -1):  # outside the space: an indexing bug (InvalidActionError), as SeatEnv says
            rows = np.zeros(6, dtype=np.int64)
            rows[2] = outside
            with pytest.raises(InvalidActionError, match=f"env 2: row {outside} is not in the action space"):
                envs.step(rows)
    envs.close()


@pytest.mark.parametrize("seat,error", [(1.5, InvalidTypeError), (None, InvalidTypeError), (True, InvalidTypeError),
                                        (-1, FourCardsError), (2**70, FourCardsError)])
def test_candidates_refuse_a_bad_seat_instead_of_answering(seat: object, error: type[Exception]) -> None:
    state = GangOfFour().new_match(7)
    with pytest.raises(error, match="seat|player"):
        candidates(state, seat)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="limit"):
        candidates(state, state.current_player, limit=-1)
