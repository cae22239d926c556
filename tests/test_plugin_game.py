"""A third-party game, installed as a plug-in, played everywhere fourcards
plays games, with no edit to fourcards.

``tests/plugin/fourcards_highcard.py`` is written against the public engine
contract only. The tests install it the way pip would (the module and a
``.dist-info`` with its entry point in the group ``fourcards.games``, in a
folder on the import path) and then play it through the registry, ``fourcards
demo --game``, ``fourcards play`` in a pseudo-terminal, ``fourcards
tournament``, the server (the catalogue, a bot table to the end, a person
over a WebSocket), the page in Chromium, PettingZoo's ``api_test`` and
Gymnasium's ``check_env``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import fourcards
from fourcards.errors import FourCardsError
from fourcards.games import GAMES, GameEntry, PluginWarning, get_game, load_plugins, register, unregister

PLUGIN = Path(__file__).parent / "plugin" / "fourcards_highcard.py"
NAME = "high-card"


def install(folder: Path, module: str, entry_points: dict[str, str], source: Path | None = None) -> Path:
    """A distribution installed in ``folder`` as pip would: its module and its
    ``.dist-info`` naming ``entry_points`` in the group ``fourcards.games``."""
    folder.mkdir(parents=True, exist_ok=True)
    if source is not None:
        shutil.copy(source, folder / f"{module}.py")
    info = folder / f"{module}-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
    lines = ["[fourcards.games]"] + [f"{name} = {value}" for name, value in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install(tmp_path_factory.mktemp("site"), "fourcards_highcard", {NAME: "fourcards_highcard:ENTRY"}, PLUGIN)


@pytest.fixture(scope="module")
def installed(plugin_path: Path) -> Iterator[GameEntry]:
    """The plug-in installed in this process (and found as pip would find it)."""
    sys.path.insert(0, str(plugin_path))
    try:
        assert load_plugins() == [NAME]
        yield get_game(NAME)
    finally:
        if NAME in GAMES:
            unregister(NAME)
        sys.path.remove(str(plugin_path))
        sys.modules.pop("fourcards_highcard", None)


def environ(*paths: Path) -> dict[str, str]:
    """This process's environment with ``paths`` first on the import path (for a subprocess)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_NO")}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), *filter(None, [env.get("PYTHONPATH")])])
    return env


def fourcards_command(plugin_path: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fourcards", *args], env=environ(plugin_path), text=True,
                          capture_output=True, timeout=timeout, check=False)


# -- the registry ---------------------------------------------------------------------------------------

def test_the_plug_in_is_not_part_of_fourcards(installed: GameEntry) -> None:
    module = sys.modules["fourcards_highcard"]
    assert module.__file__ is not None
    assert Path(fourcards.__file__).parent not in Path(module.__file__).parents
    assert not (Path(fourcards.__file__).parent / "highcard").exists()


def test_the_registry_plays_it_with_its_facts_and_views(installed: GameEntry) -> None:
    game = installed.new_game(players=3)
    info = game.info()
    assert (info.name, info.title, info.min_players, info.max_players) == (NAME, "High Card", 2, 4)
    assert (info.observation_shape, info.observation_low, info.observation_high) == ((73,), 0.0, 1.0)
    state = game.new_match(seed=4)
    bots = [installed.new_bot(installed.hint_bot, game, seed=seat) for seat in range(3)]
    while not state.is_terminal:
        seat = state.current_player
        view = state.view(seat)
        assert len(view["hand"]) == view["hand_sizes"][seat] and all(isinstance(c, str) for c in view["hand"])
        actions = state.legal_action_views()
        assert {a["card"] for a in actions} == set(view["hand"])  # structured fields beside the text
        assert all(a["text"] == f"play {a['card']}" and a["kind"] == "play" for a in actions)
        state.apply(bots[seat].choose(state.observation(seat), state.legal_actions()), seat)
    assert state.winners and sum(state.returns()) == pytest.approx(0.0)
    records = [game.record_view(r) for r in state.history]
    assert records[-1]["kind"] == "game_end" and "winners" in records[-1]["text"]
    assert json.loads(json.dumps(records)) == records
    assert game.from_json(state.to_json()) == state


def test_a_name_is_taken_once(installed: GameEntry) -> None:
    with pytest.raises(FourCardsError, match="taken"):
        register(installed)
    with pytest.raises(FourCardsError, match="must be a fourcards.games.GameEntry"):
        register("high-card")  # type: ignore[arg-type]


def test_a_broken_plug_in_warns_and_never_breaks_import(tmp_path: Path, plugin_path: Path) -> None:
    broken = install(tmp_path / "broken", "broken_games", {
        "missing-module": "no_such_module_here:ENTRY",
        "not-an-entry": "broken_games:NOT_AN_ENTRY",
        "raises": "broken_games:RAISES",
        "taken": "broken_games:TAKEN",
    })
    (broken / "broken_games.py").write_text(
        "from fourcards.games import GameEntry, get_game\n"
        "NOT_AN_ENTRY = 42\n"
        "TAKEN = get_game('four-pack')\n"
        "def RAISES():\n"
        "    raise RuntimeError('the plug-in is broken')\n")
    code = "import fourcards, fourcards.games as g; print(' '.join(g.GAMES))"
    done = subprocess.run([sys.executable, "-W", "always", "-c", code], env=environ(broken, plugin_path), text=True,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert NAME in done.stdout.split() and "four-pack" in done.stdout.split()  # the good plug-in still loads
    for name in ("missing-module", "not-an-entry", "raises", "taken"):
        assert f"game plug-in {name!r}" in done.stderr, done.stderr
    assert "PluginWarning" in done.stderr and "No module named 'no_such_module_here'" in done.stderr
    assert "the plug-in is broken" in done.stderr and "is taken" in done.stderr


def test_plugin_warnings_are_warnings(tmp_path: Path) -> None:
    folder = install(tmp_path / "one", "one_broken", {"bad": "one_broken_missing:ENTRY"})
    sys.path.insert(0, str(folder))
    try:
        with pytest.warns(PluginWarning, match="'bad'"):
            assert load_plugins() == []
    finally:
        sys.path.remove(str(folder))


# -- the command line ------------------------------------------------------------------------------------

@pytest.mark.engine
def test_demo_plays_it(plugin_path: Path) -> None:
    done = fourcards_command(plugin_path, "demo", "--game", NAME, "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("plays") + done.stdout.count("played") >= 6, done.stdout
    assert "winner" in done.stdout.lower() or "wins" in done.stdout.lower(), done.stdout


@pytest.mark.engine
def test_tournament_plays_it(plugin_path: Path) -> None:
    done = fourcards_command(plugin_path, "tournament", "--game", NAME, "--bots", "random,highest", "--deals", "6",
                             "--workers", "1", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "highest" in done.stdout and "random" in done.stdout and "score per game" in done.stdout, done.stdout


@pytest.mark.engine
@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_in_a_terminal(plugin_path: Path) -> None:
    from tests.test_play_terminal import PROMPT, Terminal

    terminal = Terminal("play", NAME, "--seed", "2", "--hand-size", "4",
                        env={"PYTHONPATH": environ(plugin_path)["PYTHONPATH"]})
    try:
        first = terminal.read_until(PROMPT)
        assert "High Card" in first and "Hand: " in first, first
        assert "  1. play " in first and "  4. play " in first, first  # the legal actions, numbered
        terminal.send("help")
        assert "hint" in terminal.read_until(PROMPT)
        terminal.send("hint")
        assert "play " in terminal.read_until(PROMPT)
        terminal.send("2")  # by number
        shown = terminal.read_until(PROMPT)
        assert "P0 played: card" in shown and "P1 played: card" in shown, shown
        choices = [line.split(". ", 1)[1] for line in shown.splitlines() if line.startswith("  ") and ". play " in line]
        assert len(choices) == 3, shown
        terminal.send(choices[-1].upper())  # by the action's text, in any case
        shown = terminal.read_until(PROMPT)
        assert f"P0 played: card {choices[-1].split()[1]}" in shown, shown
        terminal.send("1")
        end = terminal.read_until("Game over")  # the last card plays itself
        assert "game end: winners" in end, end
    finally:
        drain(terminal)
        terminal.close()


def drain(terminal: Any, timeout: float = 30) -> None:
    """Read what the command still writes until it closes the terminal (so it never blocks on a full one)."""
    import select

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([terminal.master], [], [], 0.2)
        if ready:
            try:
                if not os.read(terminal.master, 65536):
                    return
            except OSError:
                return
        elif terminal.proc.poll() is not None:
            return


# -- the server --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def plugin_server(plugin_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    pytest.importorskip("starlette")
    pytest.importorskip("websockets")
    from tests.server_helpers import ServerProcess

    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = environ(plugin_path)["PYTHONPATH"]
    try:
        server = ServerProcess(tmp_path_factory.mktemp("plugin-server") / "tables.db", bot_delay=0.0).start()
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved
    yield server
    server.stop()


def test_the_server_lists_it_with_its_player_range(plugin_server: Any) -> None:
    from tests.server_helpers import request

    status, answer = request("GET", plugin_server.http + "/api/games")
    assert status == 200
    game = next(g for g in answer["games"] if g["name"] == NAME)
    assert game["title"] == "High Card" and game["players"] == [2, 4] and game["bots"] == ["random", "highest"]
    assert game["script"] is None and game["real_time"] is False
    assert {"name": "hand_size", "type": "int", "default": 3, "low": 1, "high": 9} in game["rules"]
    status, answer = request("POST", plugin_server.http + "/api/tables", {"game": NAME, "rules": {"players": 5}})
    assert status == 400 and "players" in answer["error"]["reason"]


def test_a_bot_table_plays_to_the_end(plugin_server: Any) -> None:
    from tests.server_helpers import create_table, request

    table = create_table(plugin_server, NAME, {"players": 4, "hand_size": 5},
                         [{"kind": "bot", "bot": "highest"}, {"kind": "bot", "bot": "random"}] * 2)
    deadline = time.monotonic() + 60
    while True:
        status, answer = request("GET", f"{plugin_server.http}/api/tables/{table['id']}")
        assert status == 200
        if answer["terminal"]:
            break
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    assert answer["version"] == 20 and answer["winners"] and len(answer["scores"]) == 4


def test_a_person_plays_over_a_websocket(plugin_server: Any) -> None:
    from tests.server_helpers import Seat, claim, create_table

    async def main() -> None:
        table = create_table(plugin_server, NAME, {"players": 2, "hand_size": 4},
                             [{"kind": "human"}, {"kind": "bot", "bot": "highest"}])
        seat = Seat(plugin_server, table["id"], claim(plugin_server, table["id"], 0))
        welcome = await seat.join()
        assert welcome["title"] == "High Card" and welcome["rules"] == {"players": 2, "hand_size": 4}
        played = 0
        while True:
            message = await seat.recv()
            if message["type"] == "end":
                break
            if message["type"] != "state" or not message["legal_actions"]:
                continue
            view = message["view"]
            assert view["hand"] and len(view["hand"]) == view["hand_sizes"][0]
            assert sorted(a["card"] for a in message["legal_actions"]) == sorted(view["hand"])
            choice = random.Random(played).choice(message["legal_actions"])
            await seat.send({"type": "act", "id": f"m{played}", "version": message["version"],
                             "action": choice["action"]})
            ack = await seat.until("ack")
            assert ack["id"] == f"m{played}"
            played += 1
        assert played == 4 and message["winners"]
        records = [m for m in seat.messages if m["type"] == "state"][-1]["history"]
        assert [r["kind"] for r in records].count("played") == 8 and records[-1]["kind"] == "game_end"
        # the bot's hand was never sent to the person before it was played
        bot_cards = {r["card"] for r in records if r["kind"] == "played" and r["player"] == 1}
        for message in seat.messages:
            if message["type"] == "state":
                assert not bot_cards & set(message["view"]["hand"])
        await seat.close()

    asyncio.run(main())


def test_the_page_draws_it_and_plays_it_by_clicking(plugin_server: Any) -> None:
    from tests.test_web import CHROMIUM, Page, _browser_parts

    sync_api = _browser_parts()

    class Server:  # what the page helper needs of a server
        url = plugin_server.http

        def post(self, path: str, body: dict[str, Any]) -> Any:
            from tests.server_helpers import request

            status, answer = request("POST", self.url + path, body)
            assert status in (200, 201), answer
            return answer

    server = Server()
    table = server.post("/api/tables", {"game": NAME, "rules": {"players": 2, "hand_size": 3},
                                        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]})["id"]
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = Page(chromium, server, width=1000, height=900)  # type: ignore[arg-type]
            page.take_seat(table)
            page.wait_for_turn_or_end()
            board = page.page.inner_text("#board")
            hand = json.loads(page.page.evaluate("JSON.stringify(window.fourcardsState?.view?.hand ?? null)"))
            assert hand and all(card in board for card in hand), board  # the generic board drew the hand
            assert page.play() == 3  # every move by clicking
            page.page.wait_for_selector("#end")
            page.close()
        finally:
            chromium.close()


# -- the RL frameworks' own checks -------------------------------------------------------------------------

@pytest.mark.rl
def test_pettingzoo_api_test(installed: GameEntry) -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from fourcards.rl import env

    api_test(env(NAME, players=3, hand_size=4), num_cycles=200)


@pytest.mark.rl
def test_gymnasium_check_env(installed: GameEntry) -> None:
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env

    import fourcards.rl

    assert fourcards.rl.register_gymnasium()
    assert fourcards.rl.GYMNASIUM_IDS["fourcards/HighCard-v0"] == (NAME, {})
    table = gymnasium.make("fourcards/HighCard-v0", players=2, opponents="highest")
    check_env(table.unwrapped, skip_render_check=True)
    observation, _ = table.reset(seed=1)
    done = False
    while not done:
        action = int(observation["action_mask"].nonzero()[0][0])
        observation, reward, terminated, truncated, _ = table.step(action)
        done = terminated or truncated
    assert reward in (-0.5, 0.0, 0.5)


def test_its_information_sets_are_sampled(installed: GameEntry) -> None:
    """A plug-in samples what a seat cannot see with the same tools (``fourcards.sampling``)."""
    state = installed.new_game(players=3).new_match(5)
    state.apply(state.legal_actions()[0])
    moved = 0
    for seat in range(3):
        for k in range(5):
            sample = state.resample(seat, k)
            assert sample.view(seat) == state.view(seat) and sample._hands[seat] == state._hands[seat]
            moved += sample._hands != state._hands
    assert moved > 0


def test_openspiel_loads_it_through_the_registry(installed: GameEntry) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from fourcards.rl import openspiel_games

    game = openspiel_games.load_game(NAME, players=3)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    state = game.new_initial_state()
    state.apply_action(9)
    state.apply_action(state.legal_actions()[0])
    other = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert other.information_state_string(1) == state.information_state_string(1)
