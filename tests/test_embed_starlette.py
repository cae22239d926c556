"""examples/embed_starlette.py, started for real (uvicorn on loopback) and raced with real
HTTP requests: of two actions sent at once on one step exactly one is applied and the
other refused as stale; actions sent at once without a step are all applied, none lost;
every game is served with no code of its own; no answer holds a save."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")

import fourcards  # noqa: E402
from fourcards.games import get_game  # noqa: E402
from fourcards.hosting import MatchService, MemoryMatchStore  # noqa: E402

from .hosting_helpers import at_once  # noqa: E402
from .server_helpers import ServerProcess, request  # noqa: E402
from .test_layout import names_in  # noqa: E402

EXAMPLE = Path(__file__).parent.parent / "examples" / "embed_starlette.py"
KEY = "example secret"
#: Whole matches through the service: run in compiled mode (slow on the pure-Python twin).
pytestmark = pytest.mark.engine

BUILTIN = ("gang-of-four", "four-color", "zangle", "four-pack", "duelo")


class Example(ServerProcess):
    """The example in its own process, on 127.0.0.1 and a free port (``stop`` as the server's)."""

    def start(self) -> Example:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FOURCARDS_NO")}
        self.process = subprocess.Popen(
            [sys.executable, str(EXAMPLE), "--port", str(self.port), "--db", str(self.db), "--key", KEY],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the example stopped: {self.process.stderr.read().decode()}")  # type: ignore[union-attr]
            try:
                urllib.request.urlopen(self.http + "/games", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the example did not start in 60 s")

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return request(method, self.http + path, body, headers=headers)

    def stored_state(self, match: str) -> Any:
        """The match as stored (the save, loaded with the key: what only the server may read)."""
        with sqlite3.connect(self.db) as db:
            (save,) = db.execute("SELECT save FROM hosted_matches WHERE id=?", (match,)).fetchone()
        return fourcards.load(save, key=KEY)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Example]:
    running = Example(tmp_path_factory.mktemp("embed") / "matches.db").start()
    try:
        yield running
    finally:
        running.stop()


def bot_for(name: str) -> str:
    """``best`` where it plays on no clock, else the rule-based bot (repeatable)."""
    entry = get_game(name)
    return next(k for k in entry.bot_kinds if k not in ("random", "search", "learned")) \
        if entry.best_bot == "search" else "best"


def test_the_example_names_no_game() -> None:
    assert names_in(EXAMPLE) == []


@pytest.mark.parametrize("name", BUILTIN)
def test_exactly_one_of_two_racing_actions_wins(service: Example, name: str) -> None:
    """Eight races per game (40 in all, as in the issue): both requests name the same step."""
    players = get_game(name).new_game().num_players
    status, created = service.call("POST", "/matches", {"game": name, "seats": [None] + [bot_for(name)] * (players - 1),
                                                        "seed": 5})
    assert status == 201 and set(created["tokens"]) == {"0"}
    match, token = created["match"], created["tokens"]["0"]
    status, update = service.call("GET", f"/matches/{match}/updates?seat=0", token=token)
    assert status == 200 and update["reset"]
    races = 0
    while races < 8 and not update["terminal"]:
        legal = update["legal"]
        picks = [legal[0], legal[-1]]
        results = at_once([partial(service.call, "POST", f"/matches/{match}/actions",
                                   {"seat": 0, "action": pick["action"], "expected_step": update["step"]}, token)
                           for pick in picks])
        statuses = sorted(status for status, _ in results)
        assert statuses == [200, 409], results
        (won, answer), = [(i, body) for i, (status, body) in enumerate(results) if status == 200]
        lost = results[1 - won][1]
        assert lost["error"]["code"] == "stale"
        state = service.stored_state(match)
        assert state.actions[update["step"]] == picks[won]["action"] and state.step == answer["step"]
        update = answer
        races += 1
    assert races > 0


def test_actions_sent_at_once_without_a_step_are_all_applied(service: Example) -> None:
    """Four calls of Duelo's person at once, none naming a step: each is applied on a version of
    its own (tried again after another stored first); none is lost, none applied twice."""
    status, created = service.call("POST", "/matches", {"game": "duelo", "seats": [None, "best"], "seed": 3,
                                                        "rules": {"hand_limit": 10_000}})
    match, token = created["match"], created["tokens"]["0"]
    _, update = service.call("GET", f"/matches/{match}/updates?seat=0", token=token)
    before = service.stored_state(match)
    mine_before = [a for a, seat in zip(before.actions, seats_of(before)) if seat == 0]
    texts = [view["text"] for view in update["legal"]][:4]
    results = at_once([partial(service.call, "POST", f"/matches/{match}/actions", {"seat": 0, "action": text},
                               token) for text in texts])
    after = service.stored_state(match)
    applied = [status for status, _ in results if status == 200]
    if after.is_terminal:  # the match may end within the four: the rest are refused as over
        assert all(status in (200, 409) for status, _ in results)
    else:
        assert applied == [200] * 4, results
    mine_after = [a for a, seat in zip(after.actions, seats_of(after)) if seat == 0]
    assert len(mine_after) == len(mine_before) + len(applied)
    assert sorted(after.action_to_string(a) for a in mine_after[len(mine_before):]) == sorted(
        texts[i] for i, (status, _) in enumerate(results) if status == 200)


def seats_of(state: Any) -> list[int]:
    """The seat that took each action of a match (replayed)."""
    replay = state.game.new_match(state.seed, **state.setup)
    seats = []
    for action in state.actions:
        seats.append(replay.current_player)
        replay.apply(action)
    return seats


def test_errors_have_their_code_and_status(service: Example) -> None:
    status, created = service.call("POST", "/matches", {"game": "gang-of-four", "seats": [None, "greedy", None,
                                                                                          "greedy"], "seed": 1})
    assert status == 201 and set(created["tokens"]) == {"0", "2"}
    match, token = created["match"], created["tokens"]["0"]
    _, update = service.call("GET", f"/matches/{match}/updates?seat=0", token=token)
    act = f"/matches/{match}/actions"
    elsewhere = MatchService(MemoryMatchStore(), KEY)  # a good token of a match this service does not have
    elsewhere.create("zangle", [None, None, None], match_id="nope")
    cases = [
        (service.call("POST", act, {"seat": 0, "action": 1}, token="wrong"), 403, "bad_token"),
        (service.call("POST", act, {"seat": 0, "action": 1}, token=created["tokens"]["2"]), 403, "bad_token"),
        (service.call("POST", act, {"seat": 0, "action": 1}), 403, "bad_token"),
        (service.call("GET", f"/matches/{match}/updates?seat=0"), 403, "bad_token"),
        (service.call("POST", "/matches/nope/actions", {"seat": 0, "action": 1},
                      token=created["tokens"]["0"]), 403, "bad_token"),  # the token is checked first
        (service.call("POST", "/matches/nope/actions", {"seat": 0, "action": 1},
                      token=elsewhere.seat_token("nope", 0)), 404, "unknown_table"),
        (service.call("GET", "/matches/nope/updates"), 404, "unknown_table"),
        (service.call("POST", act, {"seat": 0, "action": "zz"}, token=token), 400, "bad_action"),
        (service.call("POST", act, {"seat": 0, "action": 99_999}, token=token), 400, "bad_action"),
        (service.call("POST", act, {"seat": 0, "action": "pass", "expected_step": update["step"]}, token=token),
         422, "illegal_action"),  # seat 0 leads: it may not pass
        (service.call("POST", act, {"seat": 0, "action": update["legal"][0]["action"],
                                    "expected_step": update["step"] + 1}, token=token), 409, "stale"),
        (service.call("POST", act, {"seat": 0.5, "action": 1}, token=token), 400, "bad_request"),
        (service.call("POST", "/matches", {"game": "chess", "seats": [None]}), 404, "unknown_game"),
        (service.call("POST", "/matches", {"game": "zangle", "seats": [None]}), 400, "bad_seats"),
        (service.call("POST", "/matches", {"game": "zangle", "seats": [None, None], "rules": {"players": 99}}), 400,
         "bad_rules"),
        (service.call("POST", "/matches", [1]), 400, "bad_request"),
    ]
    for (status, body), expected_status, code in cases:
        assert (status, body["error"]["code"]) == (expected_status, code), body


def test_no_answer_holds_a_save_or_another_seats_cards(service: Example) -> None:
    status, created = service.call("POST", "/matches", {"game": "four-pack", "seats": [None, "best", "best", "best"],
                                                        "seed": 21})
    match, token = created["match"], created["tokens"]["0"]
    answers = [service.call("GET", f"/matches/{match}/updates?seat=0", token=token)[1],
               service.call("GET", f"/matches/{match}")[1], service.call("GET", f"/matches/{match}/updates")[1]]
    state = service.stored_state(match)
    for answer in answers:
        text = json.dumps(answer)
        assert "fourcards-match" not in text and "signature" not in text and str(state.seed) not in text
    view = answers[0]["view"]
    assert set(view["hand"]) == {str(card) for card in state.hand(0)}
    assert "hand" not in answers[2]["view"]  # a spectator sees no hand
