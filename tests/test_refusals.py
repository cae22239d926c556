"""Bad input a first user of the wheel fed the library (2026-12-04): each is refused by
name, or read the one way the docs give, and changes nothing."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from fourcards import FourCardsError
from fourcards.errors import (
    InvalidTypeError,
    GameOverError, IllegalMoveError, InvalidActionError, InvalidComboError, InvalidRulesError, NotYourTurnError,
)
from fourcards.fourcolor.simulate import simulate
from fourcards.games import GAMES, get_game
from fourcards.gangoffour import Card, Combo, beats, combo_to_action, hand_mask
from fourcards.hosting import MatchService, MemoryMatchStore
from fourcards.rng import Rng, check_seed
from fourcards.tournament import parse_entrant, run_tournament

GAME_NAMES = list(GAMES)


# -- Gang of Four's values ----------------------------------------------------------------------------

def test_beats_reads_an_int_as_an_action_index_in_both_places() -> None:
    """``beats(1, 0)`` was False: the first int was read as a card mask, the second as an
    action index, so two action indices gave wrong answers without an error."""
    assert beats(1, 0) is True  # Y1 on G1
    assert beats(7, 0) is True
    assert beats(0, 1) is False
    g9_gang = combo_to_action("G9 G9 Y9 R9")
    assert beats(g9_gang, "RD") is True and beats(np.int32(g9_gang), combo_to_action("RD")) is True  # type: ignore[arg-type]
    pairs = [(a, b) for a in range(0, 12352, 97) for b in range(0, 12352, 89)]
    from fourcards.gangoffour import action_to_combo
    assert all(beats(a, b) == action_to_combo(a).beats(action_to_combo(b)) for a, b in pairs)
    with pytest.raises(InvalidComboError):
        beats(12352, 0)
    with pytest.raises(InvalidTypeError):
        beats(None, 0)  # type: ignore[arg-type]


def test_a_mask_that_is_no_combination_is_an_invalid_combo() -> None:
    """``Combo.parse(hand_mask("G1 G2"))`` raised a TypeError about text while formatting its message."""
    with pytest.raises(InvalidComboError, match="'G2 G1' is not a combination|'G1 G2' is not a combination"):
        Combo.parse(hand_mask("G1 G2"))  # type: ignore[arg-type]
    with pytest.raises(InvalidComboError):
        combo_to_action(0)  # type: ignore[arg-type]


def test_legal_mask_takes_a_numpy_int_mask_as_legal_actions_does() -> None:
    from fourcards.errors import ImpossibleCardsError
    from fourcards.gangoffour import legal_actions, legal_mask

    mask = hand_mask("G2 Y2 G9 Y9 R9 R9")
    as_numpy: Any = np.int64(mask)
    assert legal_mask(as_numpy, -1).tolist() == legal_mask(mask, -1).tolist()
    assert legal_actions(as_numpy, -1).tolist() == legal_actions(mask, -1).tolist()
    negative: Any = np.int64(-5)
    with pytest.raises(ImpossibleCardsError):
        legal_mask(negative, -1)


def test_numpy_ints_are_ints_for_seeds_and_card_codes() -> None:
    """The library's own ``derive_seeds`` (uint64) and ``deal_codes`` (uint8) were refused."""
    from fourcards.engine import derive_seeds
    from fourcards.gangoffour import deal_codes

    seed = derive_seeds(1, 3)[0]
    entry = get_game("gang-of-four")
    game = entry.new_game()
    assert game.new_match(seed) == game.new_match(int(seed))
    assert type(game.new_match(seed).seed) is int
    code = deal_codes(1, 1, 5)[0, 0]
    assert Card.from_code(code) == Card.from_code(int(code))
    bot = entry.new_bot("random", game, seed=np.int64(3))  # type: ignore[arg-type]
    state = game.new_match(4)
    seat = state.current_player
    assert bot.choose(state.observation(seat), state.legal_actions()) == entry.new_bot("random", game, seed=3).choose(
        state.observation(seat), state.legal_actions())
    with pytest.raises(InvalidTypeError):
        game.new_match(np.bool_(True))  # type: ignore[arg-type]


SEED_TAKERS: list[tuple[str, Any]] = [
    ("check_seed", check_seed),
    ("Rng", Rng),
    ("simulate", lambda seed: simulate(1, seed=seed)),
    ("run_tournament", lambda seed: run_tournament([parse_entrant("random")] * 2, deals=1, seed=seed, game="duelo")),
    ("new_bot", lambda seed: get_game("duelo").new_bot("random", get_game("duelo").new_game(), seed=seed)),
]


@pytest.mark.parametrize("bad", [True, np.bool_(False), 1.0, "1", None], ids=repr)
@pytest.mark.parametrize("name, take", SEED_TAKERS, ids=[n for n, _ in SEED_TAKERS])
def test_every_seed_goes_through_one_check(name: str, take: Any, bad: Any) -> None:
    """A seed is an int or a numpy int, never a bool or a float, wherever it is given
    (``rng.check_seed``): Four Color's ``simulate`` refused a numpy seed the others took."""
    with pytest.raises(InvalidTypeError, match="seed must be an int"):
        take(bad)
    take(np.int64(3))
    take(np.uint64(2**64 - 1))


def test_numpy_seeds_are_their_ints() -> None:
    assert check_seed(np.uint64(2**64 - 1)) == 2**64 - 1 and type(check_seed(np.int8(-3))) is int
    numpy_seed: Any = np.int64(9)
    assert Rng(numpy_seed).next_u64() == Rng(9).next_u64()
    assert simulate(4, seed=numpy_seed).winners.tolist() == simulate(4, seed=9).winners.tolist()
    service = MatchService(MemoryMatchStore(), "key")
    assert service.create("duelo", [None, "random"], seed=numpy_seed).game == "duelo"
    for bad in (True, 1.0, "1"):
        with pytest.raises(InvalidTypeError, match="seed must be an int"):
            service.create("duelo", [None, "random"], seed=bad)  # type: ignore[arg-type]


def test_gang_of_four_parse_action_of_a_non_text_is_a_type_error() -> None:
    state = get_game("gang-of-four").new_game().new_match(1)
    with pytest.raises(InvalidTypeError, match="str"):
        state.parse_action(5)


def test_long_inputs_are_cut_short_in_messages() -> None:
    """The whole input was quoted back (Gang of Four twice: a 200,078-character message)."""
    for name in GAME_NAMES:
        state = get_game(name).new_game().new_match(1)
        before = state.to_json()
        with pytest.raises(FourCardsError) as info:
            state.apply("x" * 100_000)
        assert len(str(info.value)) < 1100, name
        assert state.to_json() == before
    assert len(str(FourCardsError("y" * 10**6))) < 1100
    assert str(FourCardsError("short")) == "short"


# -- the engine contract ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", GAME_NAMES)
def test_action_to_int_refuses_an_int_that_is_no_action(name: str) -> None:
    state = get_game(name).new_game().new_match(1)
    n = state.game.num_distinct_actions
    assert state.action_to_int(n - 1) == n - 1 and state.action_to_int(np.int64(0)) == 0
    for bad in (n, -1, 2**70):
        with pytest.raises(InvalidActionError, match="not an action"):
            state.action_to_int(bad)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_replay_keeps_the_refusal_class_and_refuses_one_text(name: str) -> None:
    """``replay(1, [-1])`` said ``illegal_action`` and ``replay(1, "abc")`` replayed letters."""
    game = get_game(name).new_game()
    with pytest.raises(InvalidActionError, match="replay step 0") as info:
        game.replay(1, [-1])
    assert info.value.code == "bad_action"
    with pytest.raises(InvalidTypeError, match="one text"):
        game.replay(1, "abc")  # type: ignore[arg-type]
    state = game.new_match(1)
    first = state.legal_actions()[0]
    state.apply(first)
    illegal = next((a for a in range(game.num_distinct_actions) if a not in state.legal_actions()), None)
    if illegal is not None:  # (Duelo's five categories are legal all through a match)
        with pytest.raises(IllegalMoveError, match="replay step 1"):
            game.replay(1, [first, illegal])


def test_zangle_solitaire_refuses_more_players() -> None:
    """``ZangleGame(mode="solitaire", players=3)`` quietly became a one-player game."""
    entry = get_game("zangle")
    with pytest.raises(InvalidRulesError, match="solitaire is for one player"):
        entry.new_game(mode="solitaire", players=3)
    assert entry.new_game(mode="solitaire").num_players == 1
    assert entry.new_game(mode="solitaire", players=1).num_players == 1


# -- bots -------------------------------------------------------------------------------------------

def _bot_kinds() -> list[tuple[str, str]]:
    return [(name, kind) for name, entry in GAMES.items() for kind in entry.available_bots]


def _options(kind: str) -> dict[str, Any]:
    return {"iterations": 8} if kind == "search" else {}


@pytest.mark.parametrize("name,kind", _bot_kinds(), ids=[f"{n}-{k}" for n, k in _bot_kinds()])
def test_every_bot_takes_a_numpy_array_of_legal_actions_and_refuses_bad_ones(name: str, kind: str) -> None:
    """``bot.choose(obs, np.flatnonzero(mask))`` was 'the truth value of an array is ambiguous' in
    most bots; a float was truncated by some, an empty list a plain ValueError."""
    entry = get_game(name)
    game = entry.new_game()
    state = game.new_match(3)
    while len(state.legal_actions()) < 2 and not state.is_terminal:
        state.apply(state.legal_actions()[0])
    seat = state.current_player
    observation, legal = state.observation(seat), state.legal_actions()
    as_list = entry.new_bot(kind, game, seed=5, **_options(kind)).choose(observation, legal)
    as_array = entry.new_bot(kind, game, seed=5, **_options(kind)).choose(
        observation, np.flatnonzero(state.legal_actions_mask()))  # type: ignore[arg-type]
    assert as_list == as_array and as_list in legal
    bot = entry.new_bot(kind, game, seed=5, **_options(kind))
    for bad in ([], [float(legal[0])], [True], np.array([[legal[0]]]), np.array([0.5]), "12"):
        with pytest.raises(FourCardsError):
            bot.choose(observation, bad)  # type: ignore[arg-type]
    # another game's observation, or none: a TypeError naming it (was an AttributeError in the rule bots)
    other = get_game("duelo" if name != "duelo" else "four-pack").new_game().new_match(1)
    if kind != "random":  # it plays any game
        for wrong in (other.observation(0), None):
            with pytest.raises(InvalidTypeError, match="observation must be"):
                bot.choose(wrong, legal)
    if state.game.num_players > 1:  # another seat's observation: Gang of Four, Zangle, Duelo chose for it
        with pytest.raises(NotYourTurnError):
            bot.choose(state.observation((seat + 1) % state.game.num_players), legal)
    over, rng = game.new_match(3), Rng(3)  # a first user's trial: "but it is seat -1's turn"
    while not over.is_terminal:
        moves = over.legal_actions()
        over.apply(moves[rng.below(len(moves))])
    with pytest.raises(GameOverError, match="the match is over: no seat is to act"):
        bot.choose(over.observation(0), legal)
    if (name, kind) not in {("zangle", "greedy"), ("four-pack", "memory")}:  # (made without the game)
        for outside in (game.num_distinct_actions + 5, -1, 2**70):  # Duelo's category: an IndexError
            with pytest.raises(InvalidActionError):
                bot.choose(observation, [outside])
    else:  # a first user's trial: they returned -1, no game's action
        with pytest.raises(InvalidActionError, match="-1 is not an action of any game"):
            bot.choose(observation, [-1])
    fresh = entry.new_bot(kind, game, seed=5, **_options(kind))
    assert bot.choose(observation, legal) == fresh.choose(observation, legal)  # the refusals changed nothing
    for seed in ("x", None, 1.5, True):
        with pytest.raises(InvalidTypeError, match="seed"):
            entry.new_bot(kind, game, seed=seed, **_options(kind))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_new_bot_option_refusals_are_four_cards_errors(name: str) -> None:
    """A rule bot given ``time_per_move`` and a search given an unknown option raised TypeErrors;
    ``time_per_move=1e9`` was taken."""
    entry = get_game(name)
    game = entry.new_game()
    for kind in entry.available_bots:
        if kind == "search":
            continue
        with pytest.raises(FourCardsError, match=f"the {kind} bot of {name} takes (no|only the) option"):
            entry.new_bot(kind, game, seed=1, time_per_move=0.02)
    if "search" not in entry.available_bots:  # the compiled search of Gang of Four and Four Color
        return
    with pytest.raises(FourCardsError, match="has no option 'bogus'"):
        entry.new_bot("search", game, seed=1, bogus=1)
    with pytest.raises(InvalidTypeError, match="time_per_move must be a number") as refused:
        entry.new_bot("search", game, seed=1, time_per_move="fast")  # the bot's own error, a TypeError too
    assert isinstance(refused.value, TypeError) and refused.value.code == "bad_type"
    with pytest.raises(FourCardsError, match="at most 3600"):
        entry.new_bot("search", game, seed=1, time_per_move=1e9)
    assert entry.new_bot("search", game, seed=1, iterations=np.int64(5)) is not None


@pytest.mark.parametrize("name", GAME_NAMES)
def test_an_option_named_as_a_parameter_the_library_passes_is_refused_by_name(name: str) -> None:
    """``search:game=1`` (a tournament's or a SeatEnv's text) gave Python's raw "got multiple values
    for argument 'game'"; ``search:label=x`` silently renamed the entrant."""
    entry = get_game(name)
    if "search" not in entry.available_bots:
        pytest.skip(f"{name}: no search bot here (compiled kernels missing)")
    game = entry.new_game()
    for option in ("kind", "game", "self"):
        with pytest.raises(FourCardsError, match=f"the search bot of {entry.name} has no option '{option}'"):
            entry.new_bot("search", game, 1, **{option: 1})
        with pytest.raises(FourCardsError, match=f"has no option '{option}'"):
            run_tournament([parse_entrant(f"search:{option}=1")] + [parse_entrant("random")] * (game.num_players - 1),
                           deals=1, game=name)
    assert parse_entrant("search:label=x").label == ""
    with pytest.raises(FourCardsError, match="has no option 'label'"):
        entry.new_bot("search", game, 1, **dict(parse_entrant("search:label=x").options))


# -- the Four Color kernels and simulate ---------------------------------------------------------------

@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "reference"])
def test_best_points_packed_refuses_what_is_no_packed_hand(compiled: bool) -> None:
    from fourcards.fourcolor import _reference
    from fourcards.fourcolor import best_points_packed as fast
    from fourcards.errors import ImpossibleCardsError

    kernel = fast if compiled else _reference.best_points_packed
    for bad in (-1, 1 << 84):
        with pytest.raises(ImpossibleCardsError, match="84 bits"):
            kernel(bad)
    wrong: list[Any] = ["x", 1.0, True, None]
    for bad in wrong:
        with pytest.raises(InvalidTypeError, match="packed hand"):
            kernel(bad)
    assert kernel(np.int64(0)) == kernel(0)  # type: ignore[arg-type]


def test_simulate_many_checks_its_counts() -> None:
    from fourcards.gangoffour.simulate import MAX_MATCHES, simulate_many

    with pytest.raises(FourCardsError, match="matches=-1"):
        simulate_many(-1)
    with pytest.raises(FourCardsError, match="split it"):
        simulate_many(MAX_MATCHES + 1)
    with pytest.raises(InvalidTypeError):
        simulate_many(2.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("argv,words", [
    (["simulate", "--bots", "greedy,,random,random", "--matches", "2"], "empty bot between commas"),
    (["simulate", "--matches", "1000000000"], "--matches"),
])
def test_simulate_refuses_an_empty_bot_and_too_many_matches_in_one_line(argv: list[str], words: str) -> None:
    """``--bots greedy,,random,random`` played 3-player matches; 10**9 matches hung building seeds."""
    result = subprocess.run([sys.executable, "-m", "fourcards", *argv], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert words in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_serve_refuses_a_file_that_is_no_database_in_one_line(tmp_path: Any) -> None:
    """``fourcards serve --db notes.txt`` printed uvicorn's startup traceback and exited 3."""
    pytest.importorskip("starlette", reason="the server extra is not installed")
    bad = tmp_path / "notes.db"
    bad.write_text("not a database\n" * 100)
    for db in (bad, tmp_path):
        result = subprocess.run([sys.executable, "-m", "fourcards", "serve", "--port", "0", "--db", str(db)],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, result.stdout + result.stderr
        assert f"--db {db}:" in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert bad.read_text().startswith("not a database")


def test_serve_refuses_a_database_url_it_cannot_use_in_one_line(tmp_path: Any) -> None:
    """A first user's trial: ``--db mysql://u@host/db`` made SQLite files in ``./mysql:/u@host/``,
    and a PostgreSQL URL without the postgres extra printed the banner, then a traceback."""
    pytest.importorskip("starlette", reason="the server extra is not installed")
    from fourcards.errors import MissingExtraError
    from fourcards.server import create_app

    result = subprocess.run([sys.executable, "-m", "fourcards", "serve", "--port", "0", "--db", "mysql://u:pw@h/db"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "--db mysql://h/db: db: 'mysql':// is not a database this server takes" in result.stderr
    assert "pw" not in result.stderr and list(tmp_path.iterdir()) == []
    with pytest.raises(FourCardsError, match="'sqlite':// is not a database"):
        create_app("sqlite://x.db")
    hide = "import sys; sys.modules['psycopg'] = None; from fourcards.cli import main; sys.exit(main(sys.argv[1:]))"
    result = subprocess.run([sys.executable, "-c", hide, "serve", "--port", "0", "--db", "postgresql://u@127.0.0.1:1/d"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert 'pip install "fourcards[postgres]"' in result.stderr and "fourcards server on" not in result.stdout
    assert issubclass(MissingExtraError, ImportError)


def test_serve_says_where_it_listens_after_binding(tmp_path: Any) -> None:
    """A first user's trial: ``serve --port 0`` printed ``http://127.0.0.1:0/`` (no address to
    open), a taken port printed the banner and then uvicorn's error, and ``--db`` made missing
    folders without a word; ``--db ''`` and ``--key-file ''`` failed on the folder ``.``."""
    pytest.importorskip("starlette", reason="the server extra is not installed")
    import socket
    import urllib.request

    db = tmp_path / "new" / "sub" / "tables.db"
    process = subprocess.Popen([sys.executable, "-m", "fourcards", "serve", "--port", "0", "--db", str(db)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        banner = process.stdout.readline()
        assert banner.startswith("fourcards server on http://127.0.0.1:"), banner
        assert f"made the folder {tmp_path / 'new'}" in banner, banner
        url = banner.split()[3]
        assert not url.endswith(":0/")
        with urllib.request.urlopen(url + "api/games", timeout=30) as answer:  # bound before the banner
            assert answer.status == 200
    finally:
        process.terminate()
        process.communicate(timeout=30)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        result = subprocess.run([sys.executable, "-m", "fourcards", "serve", "--port", port, "--db",
                                 str(tmp_path / "other.db")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
    assert f"--port {port}: cannot listen there" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "other.db").exists()
    for flag in ("--db", "--key-file"):
        result = subprocess.run([sys.executable, "-m", "fourcards", "serve", flag, " "], capture_output=True,
                                text=True, timeout=60, cwd=tmp_path)
        assert result.returncode == 2 and f"argument {flag}: needs a file name" in result.stderr, result.stderr


def test_serve_refuses_a_database_folder_it_cannot_make_in_one_line(tmp_path: Any) -> None:
    """A first user's trial (2026-12-05): ``serve --db /proc/nope/x.db`` (a folder that looks
    writable, as ``/proc`` does to root, but refuses a new folder) printed "made the folder
    /proc/nope", then uvicorn's traceback, exit code 3. The file is made before the banner now."""
    pytest.importorskip("starlette", reason="the server extra is not installed")
    import pathlib

    if not pathlib.Path("/proc/self").is_dir():
        pytest.skip("needs Linux's /proc, a folder no process can make folders in")
    result = subprocess.run([sys.executable, "-m", "fourcards", "serve", "--port", "0", "--db",
                             "/proc/fourcards-test/tables.db"], capture_output=True, text=True, timeout=60,
                            cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == "", result.stdout + result.stderr
    assert result.stderr.startswith("fourcards serve: error: --db /proc/fourcards-test/tables.db: cannot be made: ")
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr


def test_rule_counts_have_an_upper_bound_and_numpy_ints_are_ints() -> None:
    """``target_score=10**30`` was taken (a tournament then never ended, OpenSpiel failed to cast
    it); ``players=np.int64(3)`` was refused while seats and actions took numpy ints."""
    for name, rule, high in (("gang-of-four", "target_score", 100_000), ("four-color", "rounds", 1000),
                             ("zangle", "rounds", 1000), ("duelo", "hand_limit", 1_000_000),
                             ("four-pack", "max_asks", 1_000_000), ("four-color", "threshold", 1000)):
        entry = get_game(name)
        assert getattr(entry.new_game(**{rule: high}).rules, rule) == high
        with pytest.raises(InvalidRulesError, match=f"{rule}="):
            entry.new_game(**{rule: high + 1})
    game = get_game("gang-of-four").new_game(players=np.int64(3))
    assert game.num_players == 3 and type(game.rules.players) is int
    assert game == get_game("gang-of-four").new_game(players=3)
    with pytest.raises(InvalidRulesError):
        get_game("gang-of-four").new_game(players=np.bool_(True))


def test_run_tournament_and_play_match_refuse_bad_arguments_before_playing() -> None:
    """``seed=1.5`` was a TypeError about ``&``, a str entrant an AttributeError, ``progress=5``
    failed after every match was played, and two bots of one name merged into one row."""
    from fourcards.engine import play_match
    from fourcards.errors import InvalidSeatsError
    from fourcards.tournament import Entrant, parse_entrant, run_tournament

    greedy = [parse_entrant("greedy")] * 2
    for seed in (1.5, "x", None):
        with pytest.raises(InvalidTypeError, match="seed"):
            run_tournament(greedy, deals=1, seed=seed)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="one text"):
        run_tournament("greedy,greedy", deals=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="an entrant is an Entrant"):
        run_tournament(["greedy", "greedy"], deals=1)  # type: ignore[list-item]
    with pytest.raises(InvalidTypeError, match="progress"):
        run_tournament(greedy, deals=1, progress=5)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="both named 'search'"):
        run_tournament([Entrant.of("search", iterations=5), Entrant.of("search", iterations=9)], deals=1,
                       game="duelo")
    result = run_tournament([Entrant.of("search", "a", iterations=5), Entrant.of("search", "b", iterations=9)],
                            deals=1, seed=np.int64(3), game="duelo", hand_limit=40)  # type: ignore[arg-type]
    assert set(result.stats) == {"a", "b"}
    entry = get_game("duelo")
    game = entry.new_game()
    with pytest.raises(InvalidSeatsError, match="needs 2 bots, got 1"):
        play_match(game.new_match(1), [entry.new_bot("random", game)])
    # a first user's trial: max_steps -1, 0, True and 1.5 were taken, bots=None a TypeError about len()
    bots = [entry.new_bot("random", game, seat) for seat in range(2)]
    state = game.new_match(1)
    before = state.to_json()
    for steps, error in ((-1, FourCardsError), (0, FourCardsError), (True, InvalidTypeError), (1.5, InvalidTypeError)):
        with pytest.raises(error, match="max_steps"):
            play_match(state, bots, max_steps=steps)  # type: ignore[arg-type]
    for bad in (None, "ab", [object(), object()]):
        with pytest.raises(InvalidTypeError, match="bots must be|has no choose"):
            play_match(state, bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="state must be a fourcards State"):
        play_match(None, bots)  # type: ignore[type-var]
    assert state.to_json() == before
    with pytest.raises(RuntimeError, match="not over after 3 steps"):
        play_match(state, bots, max_steps=np.int64(3))  # type: ignore[arg-type]


def test_four_color_search_refuses_settle_with_deals() -> None:
    """``deals=10, settle=4`` was taken, the settle silently dropped (deals plays every action)."""
    entry = get_game("four-color")
    if "search" not in entry.available_bots:
        pytest.skip("the Four Color search needs the compiled simulator (FOURCARDS_NO_EXTENSIONS or no build)")
    game = entry.new_game()
    with pytest.raises(FourCardsError, match="give one of them"):
        entry.new_bot("search", game, seed=1, deals=10, settle=4)
    assert "deals=10" in repr(entry.new_bot("search", game, seed=1, deals=10))


# -- the simulators' counts and seeds (a first user of the batch calls, 2026-12-04) ------------------------

@pytest.mark.parametrize("game", ["gang-of-four", "four-color"])
def test_simulate_reads_counts_and_seeds_one_way_and_refuses_the_rest(game: str) -> None:
    """``simulate(2**64)`` built a list until the kernel killed the process; Gang of Four's
    ``simulate(np.int64(3))`` played one match of seed 3 (and ``"3"``, ``2.9``, ``True`` alike);
    seeds -1 and 2**64 aliased 2**64-1 and 0; a list of seeds above 2**63 was refused."""
    from fourcards.engine import MAX_GAMES, derive_seeds
    from fourcards.fourcolor.simulate import simulate as four_color
    from fourcards.gangoffour.simulate import simulate as gang_of_four

    from fourcards.gangoffour import Rules as GangOfFourRules

    run: Any = gang_of_four if game == "gang-of-four" else four_color
    short: dict[str, Any] = {"rules": GangOfFourRules(target_score=5)} if game == "gang-of-four" else {}
    three = run(np.int64(3), seed=5, **short)
    assert len(three.seeds) == 3 and three.seeds.tolist() == derive_seeds(5, 3).tolist()
    assert run(3, seed=np.uint64(5), **short).scores.tolist() == three.scores.tolist()
    big = [2**64 - 1, 2**63, 7]
    assert run(big, **short).seeds.tolist() == big == run(np.array(big, dtype=np.uint64), **short).seeds.tolist()
    wrong_types: list[Any] = ["3", 2.9, True, None, np.array([1.5]), np.array([True]), ["1"], [True],
                              np.ma.array([1, 2])]
    for bad in wrong_types:
        with pytest.raises(InvalidTypeError):
            run(bad)
    out_of_range: list[Any] = [-1, MAX_GAMES + 1, 2**64, [-1], [2**64], np.array([-1, 2])]
    for bad in out_of_range:
        with pytest.raises(FourCardsError):
            run(bad)
    for seed in (-1, 2**64):
        with pytest.raises(FourCardsError, match=f"seed={seed} must be in 0..2\\*\\*64-1"):
            run(1, seed=seed)
    with pytest.raises(InvalidTypeError, match="policies are one name a seat"):
        run(1, policies="greedy")
    with pytest.raises(InvalidTypeError, match="rules must be"):
        run(1, rules="x")
    with pytest.raises(FourCardsError, match="at most 10,000,000"):
        derive_seeds(1, 10**12)


# -- the fast calls' arguments (a first user of the batch calls, 2026-12-04) ---------------------------------

def test_readable_actions_with_fields_of_the_wrong_type_are_refused_and_change_nothing() -> None:
    """``Play("M1")``, ``GiveBack(99)``, ``Discard("rc")``, ``Claim("RC RH RN")`` raised an
    AttributeError in ``apply``; ``Zangle(99, 0, ())`` an IndexError, and ``str(Zangle(-1, ...))``
    printed the last card."""
    from fourcards.fourcolor.game import Claim, Discard
    from fourcards.gangoffour.match import GiveBack, Play
    from fourcards.zangle.cards import Zangle

    cases: dict[str, list[Any]] = {
        "gang-of-four": [Play("M1"), GiveBack(99), Play(None), Play(Combo.parse("G1"), announce="yes")],  # type: ignore[arg-type]
        "four-color": [Discard("rc"), Claim("RC RH RN"), Discard(None)],  # type: ignore[arg-type]
        "zangle": [Zangle(99, 0, ()), Zangle(-1, 0, ()), Zangle(1, 0, [(1, 0)])],  # type: ignore[arg-type]
    }
    for name, actions in cases.items():
        state = get_game(name).new_game().new_match(1)
        before = state.to_json()
        for action in actions:
            assert state.can_apply(action) is False
            with pytest.raises((InvalidTypeError, InvalidActionError)):
                state.apply(action)
            assert state.to_json() == before
    assert str(Zangle(-1, 0, ())) == "Zangle(target=-1, target_place=0, pieces=())"


def test_a_read_only_out_buffer_is_refused_by_name() -> None:
    for name in GAME_NAMES:
        state = get_game(name).new_game().new_match(1)
        out = np.zeros(state.game.observation_size, np.float32)
        out.flags.writeable = False
        with pytest.raises(FourCardsError, match="out is read-only"):
            state.observation_tensor(0, out=out)


def test_four_color_values_are_checked_as_made() -> None:
    """``Meld(QUAD, (RG,))`` printed as an 8-point quad and scored so in ``best_split``;
    ``Card.from_code(True)`` was RA and ``from_code(np.int64(3))`` refused; ``exposed_code=1.9``
    was read as 1; ``same_colour_soldiers="no"`` as True."""
    from fourcards.fourcolor import Card as FcCard
    from fourcards.fourcolor import Meld, MeldKind, best_points, best_points_packed, best_split, pack, waits

    red_general = FcCard.parse("RG")
    with pytest.raises(InvalidComboError, match="'RG' is not a meld of kind quad"):
        Meld(MeldKind.QUAD, (red_general,))
    with pytest.raises(InvalidTypeError, match="a Meld's cards"):
        Meld(MeldKind.LONE_GENERAL, (5,))  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="exposed"):
        Meld(MeldKind.LONE_GENERAL, (red_general,), "no")  # type: ignore[arg-type]
    with pytest.raises(InvalidComboError):
        best_split("RC RH RN", exposed=[Meld(MeldKind.QUAD, (FcCard.parse("RA"), FcCard.parse("RE")), True)])
    assert Meld(1 + 4, tuple(FcCard.parse(c) for c in ("RG", "RA", "RE"))).kind is MeldKind.COMMAND  # type: ignore[arg-type]
    assert FcCard.from_code(np.int64(3)) == FcCard.from_code(3)  # type: ignore[arg-type]
    for bad in (True, 1.0, None):
        with pytest.raises(InvalidTypeError, match="a card code is an int"):
            FcCard.from_code(bad)  # type: ignore[arg-type]
    packed = pack("RA RA RA")
    assert best_points_packed(packed, np.int64(-1)) == best_points_packed(packed) == 3  # type: ignore[arg-type]
    for bad in (1.9, True, None):
        with pytest.raises(InvalidTypeError, match="exposed_code must be an int"):
            best_points_packed(packed, bad)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="exposed_code"):
        best_points_packed(packed, 2**63)
    yes: Any = "no"
    for call in (lambda: waits("RA RA", from_discard=yes), lambda: best_points("RA RA RA", same_colour_soldiers=yes),
                 lambda: best_split("RA RA", incoming="RA", incoming_from_discard=yes)):
        with pytest.raises(InvalidTypeError, match="must be a bool"):
            call()
    numpy_true: Any = np.bool_(True)
    assert waits("RA RA", from_discard=numpy_true) == waits("RA RA", from_discard=True)


def test_every_yes_no_option_takes_a_bool_or_a_numpy_bool_and_nothing_else() -> None:
    """One check (``engine.check_flag``) for every yes/no option: a numpy bool was refused by
    some and taken by others; ``"no"`` or ``0`` is refused by all."""
    from fourcards.engine import check_flag
    from fourcards.fourcolor import Meld as FcMeld
    from fourcards.fourcolor import _kernels as fc_kernels

    fourpack, zangle = get_game("four-pack"), get_game("zangle")
    calls: list[tuple[str, Any]] = [
        ("exposed", lambda flag: FcMeld.parse("RA RA RA", exposed=flag).exposed),
        ("from_discard", lambda flag: fc_kernels.waits_batch(np.zeros((1, 28), np.uint8), flag).shape),
    ]
    def search(entry: Any, **options: Any) -> Any:
        return entry.new_bot("search", entry.new_game(), 1, **options)

    if "search" in fourpack.available_bots:
        calls.append(("paired", lambda flag: search(fourpack, paired=flag).paired))
        calls.append(("askers_hold", lambda flag: search(fourpack, askers_hold=flag).askers_hold))
    if "search" in zangle.available_bots:
        calls.append(("paired", lambda flag: search(zangle, paired=flag).paired))
    for name, call in calls:
        assert call(np.bool_(True)) == call(True), name
        for bad in ("no", 0, None):
            with pytest.raises(InvalidTypeError, match=f"{name} must be a bool, not {type(bad).__name__}"):
                call(bad)
    assert check_flag(np.bool_(False), "x") is False


def test_four_color_rule_bots_name_an_action_the_hand_cannot_play() -> None:
    entry = get_game("four-color")
    game = entry.new_game()
    state = game.new_match(2)
    observation = state.observation(state.current_player)
    missing = [code for code in range(28) if observation.hand[code] == 0][:1]
    for kind in ("greedy", "lookahead"):
        if kind not in entry.available_bots:
            continue
        with pytest.raises(IllegalMoveError, match="do not fit the observation"):
            entry.new_bot(kind, game, seed=1).choose(observation, missing)


def test_text_in_any_case_where_every_game_takes_it() -> None:
    """Duelo refused ``CALL DENSITY``; Zangle's ``tiles("4B", ...)`` and ``check_zangle``'s
    ``"CENTRE"`` were refused."""
    from fourcards.duelo.game import Choose
    from fourcards.zangle import tiles
    from fourcards.zangle.cards import check_zangle

    state = get_game("duelo").new_game().new_match(1)
    first = state.legal_actions()[0]
    text = state.action_to_string(first)
    assert state.action_to_int(text.upper()) == state.action_to_int(Choose(text.split()[1].upper())) == first
    assert tiles("4B", "3 1") is True and tiles(" 4b", ["3", "1"]) is True
    assert check_zangle("4B", ["3", "1"], ["CENTRE", " own "]) == check_zangle("4b", ["3", "1"], ["centre", "own"])
    with pytest.raises(InvalidTypeError):
        tiles("4b", None)  # type: ignore[arg-type]


def test_messages_print_anywhere_and_name_the_step() -> None:
    """A lone surrogate in a message made ``print(error)`` raise UnicodeEncodeError; an
    ``expected_step`` ahead of the match was reported as chosen at that step; a numpy step was
    refused."""
    from fourcards.decks import DeckError, load_deck

    with pytest.raises(DeckError) as refused:
        load_deck("deck-\udc80.json")
    str(refused.value).encode("utf-8")
    state = get_game("gang-of-four").new_game().new_match(1)
    action = state.legal_actions()[0]
    with pytest.raises(FourCardsError, match="expected_step 5 is ahead of the match, at step 0"):
        state.apply(action, expected_step=5)
    state.apply(action, expected_step=np.int64(0))
    with pytest.raises(InvalidTypeError):
        state.apply(state.legal_actions()[0], expected_step=True)


def test_format_cards_takes_cards_only() -> None:
    from fourcards.fourcolor import Card as FcCard
    from fourcards.gangoffour import format_cards, parse_cards

    assert format_cards(parse_cards("g1 rd")) == "G1 RD"
    for bad in ("G1 Y1", [1, 2], [FcCard.parse("RG")], None):
        with pytest.raises(InvalidTypeError, match="format_cards takes"):
            format_cards(bad)  # type: ignore[arg-type]


def test_batch_calls_refuse_what_numpy_would_misread() -> None:
    """A bool in a list was a count of 1; a masked array's mask was ignored; None and text
    were said to be floats."""
    from fourcards.fourcolor import best_points_batch, best_split_batch, waits_batch
    from fourcards.gangoffour import classify_batch

    row = [0] * 28
    for call in (best_points_batch, best_split_batch, waits_batch):
        for bad in ([[True] + row[1:]], np.ma.array([row]), None, "RG"):
            with pytest.raises(InvalidTypeError):
                call(bad)
        with pytest.raises(FourCardsError, match="rows of the same length"):
            call([row, row[1:]])
    with pytest.raises(InvalidTypeError, match="bools"):
        best_points_batch([row], exposed=[True])
    with pytest.raises(InvalidTypeError, match="masked"):
        classify_batch(np.ma.array(np.zeros((1, 2), np.uint8)))


def test_deals_are_bounded_and_a_table_of_the_wrong_type_is_named() -> None:
    """``deal_codes(2**64)`` raised numpy's "Maximum allowed dimension exceeded";
    ``legal_mask(hand, 1.0)`` blamed the cards for a table of the wrong type."""
    from fourcards.fourcolor.deal import deal_counts
    from fourcards.gangoffour import deal_codes, legal_mask

    for deal_many in (deal_codes, deal_counts):
        with pytest.raises(FourCardsError, match="at most 10,000,000"):
            deal_many(2**64)
    wrong: Any = 1.0
    for call in (lambda: legal_mask(hand_mask("G1 Y1"), wrong), lambda: beats("G1", wrong)):
        with pytest.raises(InvalidTypeError, match="table must be a Combo, cards, an action index or None, not float"):
            call()


@pytest.mark.parametrize("seed", [-1, 2**64, 2**64 + 5])
def test_a_seed_outside_64_bits_is_refused_not_wrapped(seed: int) -> None:
    """A first user's trial: ``new_match(2**64)`` dealt seed 0's match and ``-1`` that of
    2**64-1, while the command line refused both."""
    from fourcards.bots import RandomBot

    for name in GAME_NAMES:
        entry = get_game(name)
        game = entry.new_game()
        with pytest.raises(FourCardsError, match=r"must be in 0..2\*\*64-1"):
            game.new_match(seed)
        with pytest.raises(FourCardsError, match=r"a bot's seed=.* must be in 0..2\*\*64-1"):
            entry.new_bot("random", game, seed)
    with pytest.raises(FourCardsError, match=r"must be in 0..2\*\*64-1"):
        RandomBot(seed)
    with pytest.raises(FourCardsError, match=r"must be in 0..2\*\*64-1"):
        Rng(seed)
    with pytest.raises(FourCardsError, match=r"must be in 0..2\*\*64-1"):
        run_tournament([parse_entrant("random")] * 4, deals=1, seed=seed)
    top = get_game("gang-of-four").new_game().new_match(2**64 - 1)
    assert top.seed == 2**64 - 1 and RandomBot(2**64 - 1) is not None


@pytest.mark.parametrize("seed", [-1, 2**64, 2**80])
def test_the_deal_helpers_and_derive_seed_refuse_a_seed_outside_64_bits(seed: int) -> None:
    """A first user's trial (2026-12-05): ``deal_codes(1, seed=2**80)`` and ``deal_counts(1,
    seed=2**64)`` dealt, ``derive_seed(2**64, 1)`` gave ``derive_seed(0, 1)`` and ``derive_seed(-1, 1)``
    that of 2**64-1, and ``derive_seed(1.5, 1)`` failed inside with a bare ``&`` TypeError."""
    from fourcards.engine import derive_seed
    from fourcards.fourcolor.deal import deal_counts
    from fourcards.gangoffour import deal_codes

    for deal_many in (deal_codes, deal_counts):
        with pytest.raises(FourCardsError, match=r"seed=.* must be in 0..2\*\*64-1"):
            deal_many(1, seed=seed)
        assert deal_many(1, seed=2**64 - 1).shape[0] == 1
        wrongs: tuple[Any, ...] = (1.5, True, "3", None)
        for wrong in wrongs:
            with pytest.raises(InvalidTypeError, match=f"seed must be an int, not {type(wrong).__name__}"):
                deal_many(1, seed=wrong)
    with pytest.raises(FourCardsError, match=r"seed=.* must be in 0..2\*\*64-1"):
        derive_seed(seed, 1)
    with pytest.raises(FourCardsError, match=r"stream=.* must be in 0..2\*\*64-1"):
        derive_seed(1, seed)
    for wrong in wrongs:
        with pytest.raises(InvalidTypeError, match=f"seed must be an int, not {type(wrong).__name__}"):
            derive_seed(wrong, 1)
        with pytest.raises(InvalidTypeError, match=f"stream must be an int, not {type(wrong).__name__}"):
            derive_seed(1, wrong)
    from fourcards.engine import derive_seeds

    with pytest.raises(FourCardsError, match=r"streams .* must be in 0..2\*\*64-1"):
        derive_seeds(1, 2, start=2**64 - 1)  # would be derive_seeds(1, 1, start=0)'s second
    assert derive_seeds(1, 1, start=2**64 - 1).tolist() == [derive_seed(1, 2**64 - 1)]
    top: Any = np.uint64(2**64 - 1)
    assert derive_seed(top, np.int64(3).item()) == derive_seed(2**64 - 1, 3) == derive_seed(top, top * 0 + 3)


# -- a first user's trial of wrong types (the fourteenth session) -------------------------------

def test_rng_below_refuses_a_bound_past_64_bits_instead_of_drawing_forever() -> None:
    """``Rng(1).below(2**64 + 1)`` looped without end: its threshold was at or above 2**64, so
    no draw was ever accepted (a float bound went on to ``0.5`` answers)."""
    rng = Rng(1)
    for huge in (2**64 + 1, 2**70, 10**400):
        with pytest.raises(FourCardsError, match="below_big draws beyond"):
            rng.below(huge)
    for wrong in (1.5, float("nan"), float("inf"), "3", True, None):
        with pytest.raises(InvalidTypeError, match="below\\(\\) needs an int n"):
            rng.below(wrong)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="1 <= n"):
        rng.below(0)
    assert rng == Rng(1)  # nothing drawn by a refusal
    seven: Any = np.int64(7)
    assert rng.below(2**64) == Rng(1).next_u64() and Rng(1).below(seven) == Rng(1).below(7)
    from fourcards.sampling import below_big

    assert below_big(Rng(2), 2**100) < 2**100 and below_big(Rng(2), 7) == Rng(2).below(7)
    for wrong in ("3", float("nan"), 1.5):
        with pytest.raises(InvalidTypeError, match="below_big\\(\\) needs an int n"):
            below_big(Rng(2), wrong)  # type: ignore[arg-type]


def test_rng_state_and_shuffle_refuse_what_they_cannot_take() -> None:
    with pytest.raises(InvalidTypeError, match="state must be an int"):
        Rng.from_state(1.5)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="state=.* must be in 0..2\\*\\*64-1"):
        Rng.from_state(2**70)  # was taken, cut to 64 bits
    assert Rng.from_state(Rng(5).state) == Rng(5)
    rng = Rng(3)
    for wrong in (1.5, (1, 2, 3), "abc", None):
        with pytest.raises(InvalidTypeError, match="shuffle\\(\\) needs a list"):
            rng.shuffle(wrong)  # type: ignore[arg-type]
    assert rng == Rng(3)
    items, array = [0, 1, 2, 3], np.arange(4)
    Rng(3).shuffle(items)
    Rng(3).shuffle(array)  # type: ignore[arg-type]
    assert items == array.tolist()


@pytest.mark.parametrize("options, message", [
    ({"policies": 1.5}, "policies must be a sequence"), ({"compiled": np.zeros(3)}, "compiled must be a bool"),
    ({"progress": 1}, "progress must be a function"), ({"executor": 1}, "executor must be a concurrent"),
])
def test_gang_of_four_simulate_many_refuses_wrong_types_by_name(options: dict[str, Any], message: str) -> None:
    from fourcards.gangoffour.simulate import simulate as simulate_gof, simulate_many

    with pytest.raises(InvalidTypeError, match=message):
        simulate_many(2, 0, **options)
    if "policies" in options or "compiled" in options:
        with pytest.raises(InvalidTypeError, match=message):
            simulate_gof(2, 0, **options)


def test_bots_and_kinds_refuse_wrong_types_by_name() -> None:
    from fourcards.bots import RandomBot
    from fourcards.gangoffour import LearnedBot

    for call, message in ((lambda: LearnedBot(0, policy=1.5), "policy must be a file path"),  # type: ignore[arg-type]
                          (lambda: LearnedBot(seed="x"), "seed must be an int"),  # type: ignore[arg-type]
                          (lambda: RandomBot(0, num_actions="3"), "num_actions"),  # type: ignore[arg-type]
                          (lambda: RandomBot(0, num_actions=1.5), "num_actions")):  # type: ignore[arg-type]
        with pytest.raises(InvalidTypeError, match=message):
            call()
    with pytest.raises(FourCardsError, match="num_actions must be at least 1"):
        RandomBot(0, num_actions=0)
    for name in GAMES:
        entry = get_game(name)
        for kind in (np.array([1, 2]), 1.5, None):
            with pytest.raises(InvalidTypeError, match="a bot kind is a name"):
                entry.new_bot(kind, entry.new_game())  # type: ignore[arg-type]
        other = get_game(next(n for n in GAMES if n != name)).new_game()
        with pytest.raises(InvalidTypeError, match="plays a"):
            entry.new_bot("random", other)
    with pytest.raises(FourCardsError, match="rule mode=.* must be str"):
        get_game("zangle").new_game(mode=np.array([1, 2]))  # was numpy's "truth value ... ambiguous"


@pytest.mark.parametrize("exposed", [1.5, None, 3, "RG RA RE", b"RG"])
def test_four_color_exposed_melds_must_be_a_list(exposed: Any) -> None:
    from fourcards.fourcolor import best_split, is_complete, waits

    hand = "RG RA RE RG RA RE"
    for call in (best_split, is_complete, waits):
        with pytest.raises(InvalidTypeError, match="exposed must be a list of melds"):
            call(hand, exposed)
    assert is_complete(hand, ["GG GA GE"]) in (True, False)


@pytest.mark.parametrize("options, message", [
    ({"free": 1.5}, "free must be a sequence"), ({"free": None}, "free must be a sequence"),
    ({"groups": 1.5}, "groups must be a sequence"), ({"groups": "ab"}, "groups must be a sequence"),
    ({"groups": ["3"]}, "groups must hold Group or Placements"), ({"groups": [None]}, "groups must hold Group"),
    ({"accept": 3}, "accept must be a function"),
])
def test_deal_sampler_refuses_wrong_types_by_name(options: dict[str, Any], message: str) -> None:
    """A first user's trial: ``DealSampler([1, 1], 1.5)`` was "'float' object is not iterable" and a
    str group "'str' object has no attribute 'labels'"."""
    from fourcards.sampling import DealSampler

    arguments: dict[str, Any] = {"sizes": [1, 1], "free": [0, 1], **options}
    with pytest.raises(InvalidTypeError, match=message):
        DealSampler(**arguments)
    assert sorted(sum(DealSampler([1, 1], [0, 1]).sample(Rng(1)), [])) == [0, 1]


def test_wrong_typed_deal_sizes_and_legal_actions_are_type_errors() -> None:
    """Left alone in the fourteenth session's note: ``deal_codes(1.5)``, ``deal_counts(2,
    cards=1.5)``, ``deal(1, players=True)`` and a bot's ``choose(obs, 1.5)`` were plain
    ``FourCardsError``s (``deal`` dealt to one seat for ``True``); a wrong type is an
    ``InvalidTypeError`` everywhere else, and an ``except TypeError`` should catch these too."""
    from fourcards.fourcolor.deal import deal_counts
    from fourcards.gangoffour import deal_codes
    from fourcards.gangoffour.deal import deal

    wrongs: tuple[Any, ...] = (1.5, True, "3", None)
    for wrong in wrongs:
        for deal_many in (deal_codes, deal_counts):
            with pytest.raises(InvalidTypeError, match=f"hands must be an int >= 0, not {type(wrong).__name__}"):
                deal_many(wrong)
        with pytest.raises(InvalidTypeError, match=f"cards must be a hand size 0..112, not {type(wrong).__name__}"):
            deal_counts(2, cards=wrong)
        with pytest.raises(InvalidTypeError, match="cards must be a hand size 0..64 or a .low, high. pair"):
            deal_codes(2, cards=wrong)
        with pytest.raises(InvalidTypeError, match=f"players must be an int >= 0, not {type(wrong).__name__}"):
            deal(1, players=wrong)
        with pytest.raises(InvalidTypeError, match=f"cards_each must be an int >= 0, not {type(wrong).__name__}"):
            deal(1, cards_each=wrong)
    with pytest.raises(InvalidTypeError, match="cards must be a hand size 0..64"):
        deal_codes(2, cards=(1, 2.5))  # type: ignore[arg-type]
    for out_of_range in (lambda: deal_codes(-1), lambda: deal_counts(2, cards=113), lambda: deal_codes(2, cards=(3, 2)),
                         lambda: deal(1, players=5), lambda: deal(1, cards_each=17)):
        with pytest.raises(FourCardsError) as caught:
            out_of_range()
        assert not isinstance(caught.value, TypeError), caught.value
    assert [len(hand) for hand in deal(1, players=2, cards_each=3)] == [3, 3]
    for name in GAME_NAMES:
        entry = get_game(name)
        game = entry.new_game()
        state = game.new_match(3)
        observation = state.observation(state.current_player)
        bot = entry.new_bot("random", game, 1)
        bad_legals: tuple[tuple[Any, str], ...] = (
            (1.5, "the legal actions must be a sequence of ints, not float"),
            (np.zeros((1, 2), dtype=np.int64), "the legal actions must be a 1-D array of ints"),
            ([1.5], "legal action 1.5 is not an int"))
        for legal, reason in bad_legals:
            with pytest.raises(InvalidTypeError, match=reason):
                bot.choose(observation, legal)
