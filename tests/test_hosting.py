"""The hosting layer (fourcards.hosting) over every game and the plug-in: matches played
to the end through per-seat updates, compare-and-swap under real threads (exactly one
of two racing actions stored, no update lost), bots that are stateless or hand their
memory over, answers that do not grow with the match, and no hidden card in any
seat's update."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fourcards.errors import (
    BadTokenError, FourCardsError, InvalidRulesError, InvalidSeatsError, InvalidTypeError, NotYourTurnError,
    StaleActionError, TooCostlyError, UnknownGameError, UnknownMatchError, UnknownSeatError,
)
from fourcards.games import GameEntry, get_game, register, unregister
from fourcards.hosting import (
    MatchService, MatchStore, MemoryMatchStore, SQLiteMatchStore, StoredMatch, Update, changes, merge,
)
from fourcards.hosting.updates import REMOVED, REPLACED, delta

from .hosting_helpers import BUILTIN, PLUGIN, at_once, hidden_twin, plugin
from .hosting_helpers import counting_game as counting_game_registered
from .pg_cluster import ENV, Cluster, find_bin

#: Whole matches through the service: run in compiled mode (slow on the pure-Python twin).
pytestmark = pytest.mark.engine

__all__ = ["plugin"]

KEY = "hosting secret"

#: Short matches of every game (the bots' kinds: each game's best that plays fast).
SHORT: dict[str, dict[str, Any]] = {
    "gang-of-four": {"target_score": 20}, "four-color": {"rounds": 1}, "zangle": {"rounds": 1},
    "four-pack": {}, "duelo": {"hand_limit": 40}, PLUGIN: {"players": 3},
}


def fast_bot(name: str) -> str:
    """``best`` where it plays on no clock, else the rule-based bot (repeatable)."""
    entry = get_game(name)
    return next(k for k in entry.bot_kinds if k not in ("random", "search", "learned")) \
        if entry.best_bot == "search" else "best"


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[Any]:
    """A throwaway PostgreSQL cluster for the server's PostgreSQL store (started when a test asks)."""
    if importlib.util.find_spec("psycopg") is None:
        pytest.skip("psycopg is not installed (the postgres extra): the server's PostgreSQL store is not tested")
    if not os.environ.get(ENV) and find_bin() is None:
        pytest.skip(f"PostgreSQL is not installed (no initdb) and {ENV} is not set: the server's PostgreSQL "
                    "store is not tested")
    cluster = Cluster(fsync=False)
    try:
        cluster.start()
    except Exception as error:  # pragma: no cover - depends on the environment
        pytest.skip(f"no throwaway PostgreSQL cluster could start: {error}")
    yield cluster
    cluster.stop()


#: The stores every contract test runs on: the two of fourcards.hosting, and the bundled
#: server's two (its stores are MatchStores: a MatchService may keep matches in its database).
STORES = ["memory", "sqlite", "server-sqlite", "server-postgres"]


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MatchStore]:
    if request.param == "memory":
        yield MemoryMatchStore()
        return
    closing: Any
    if request.param == "sqlite":
        closing = SQLiteMatchStore(tmp_path / "matches.db", synchronous="NORMAL")
    elif request.param == "server-sqlite":
        pytest.importorskip("starlette", reason="the server extra is not installed: its stores are not tested")
        from fourcards.server.store import SQLiteStore

        closing = SQLiteStore(tmp_path / "tables.db")
    else:
        pytest.importorskip("starlette", reason="the server extra is not installed: its stores are not tested")
        from fourcards.server.pgstore import PostgresStore

        closing = PostgresStore(request.getfixturevalue("pg_cluster").database())
    assert isinstance(closing, MatchStore)
    yield closing
    closing.close()  # type: ignore[attr-defined]


def history_views(service: MatchService, match_id: str, seat: int | None) -> list[dict[str, Any]]:
    state = service.state(match_id)
    views = [state.game.seat_record_view(r, seat) for r in state.history]
    return [v for v in views if v is not None]


def without_steps(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "step"} for r in records]


# -- every game, to the end ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", (*BUILTIN, PLUGIN))
def test_every_game_is_played_to_the_end_through_updates(plugin: str, store: MatchStore, name: str) -> None:
    """A person at seat 0, bots elsewhere: each answer brings the client's copy of its view
    exactly to the host's, its records add up to the history, and the spectators' too."""
    service = MatchService(store, KEY, history=10_000)
    entry = get_game(name)
    players = entry.new_game(**SHORT[name]).num_players
    hosted = service.create(name, [None] + [fast_bot(name)] * (players - 1), rules=SHORT[name], seed=17)
    first = service.update(hosted.id, 0)
    assert first.reset and first.step == hosted.step and first.since is None
    view, records = first.apply_to(None), list(first.records)
    watcher = service.update(hosted.id, None)
    spectator, watched = watcher.apply_to(None), list(watcher.records)
    update = first
    rng = random.Random(3)
    while not update.terminal:
        assert update.current_player == 0 and update.legal, "the bots play until the person is to act"
        choice = rng.choice(update.legal)
        assert set(choice) >= {"action", "text"}
        update = service.act(hosted.id, 0, choice["action"] if rng.random() < 0.5 else choice["text"],
                             expected_step=update.step)
        assert update.since is not None and not update.reset
        view = update.apply_to(view)
        records += update.records
        full = service.update(hosted.id, 0)
        assert view == full.view and update.step == full.step
        watcher = service.update(hosted.id, None, since=watcher.step)
        spectator = watcher.apply_to(spectator)
        watched += watcher.records
        assert watcher.legal == [] and spectator == service.update(hosted.id, None).view
    assert without_steps(records) == history_views(service, hosted.id, 0)
    assert without_steps(watched) == history_views(service, hosted.id, None)
    state = service.state(hosted.id)
    assert update.result == {"winners": list(state.winners), "scores": list(state.scores),
                             "returns": list(state.returns())}
    info = service.info(hosted.id)
    assert info["terminal"] and info["seats"][0] is None and info["step"] == state.step
    with pytest.raises(FourCardsError) as over:
        service.act(hosted.id, 0, 0, expected_step=state.step)
    assert over.value.code in ("game_over", "bad_action")


def test_a_match_of_bots_alone_is_played_at_creation(store: MatchStore) -> None:
    service = MatchService(store, KEY)
    hosted = service.create("zangle", ["best", "random"], rules={"players": 2, "rounds": 1}, seed=4)
    assert service.info(hosted.id)["terminal"] and hosted.step == service.state(hosted.id).step > 0


def test_two_people_take_turns_and_each_catches_up_on_the_other(store: MatchStore) -> None:
    service = MatchService(store, KEY)
    hosted = service.create("four-pack", [None, "best", None], rules={"players": 3}, seed=8)
    known = {0: service.update(hosted.id, 0), 2: service.update(hosted.id, 2)}
    views = {seat: update.apply_to(None) for seat, update in known.items()}
    rng = random.Random(5)
    for _ in range(60):
        now = service.update(hosted.id, 0)
        if now.terminal:
            break
        seat = now.current_player
        assert seat in (0, 2)
        catch_up = service.update(hosted.id, seat, since=known[seat].step)  # a poll: what the other did
        views[seat] = catch_up.apply_to(views[seat])
        answer = service.act(hosted.id, seat, rng.choice(catch_up.legal)["action"], expected_step=catch_up.step)
        views[seat] = answer.apply_to(views[seat])
        known[seat] = answer
        assert views[seat] == service.update(hosted.id, seat).view


# -- compare-and-swap under threads -------------------------------------------------------------------

class RacingStore:
    """A store whose first ``parties`` reads wait for each other: the racing requests all
    load the same version before any of them stores."""

    def __init__(self, inner: MatchStore, parties: int) -> None:
        self.inner = inner
        self.barrier = threading.Barrier(parties, timeout=20)
        self.first_reads = 0
        self.parties = parties
        self.lock = threading.Lock()
        self.racing = False

    def get(self, match_id: str) -> StoredMatch | None:
        found = self.inner.get(match_id)
        with self.lock:
            wait = self.racing and self.first_reads < self.parties
            if wait:
                self.first_reads += 1
        if wait:
            self.barrier.wait()
        return found

    def create(self, match: StoredMatch) -> bool:
        return self.inner.create(match)

    def replace(self, match: StoredMatch, expected_step: int) -> bool:
        return self.inner.replace(match, expected_step)

    def delete(self, match_id: str) -> bool:
        return self.inner.delete(match_id)


def test_exactly_one_of_two_racing_actions_is_stored(store: MatchStore) -> None:
    racing = RacingStore(store, 2)
    service = MatchService(racing, KEY)
    for round_ in range(5):
        hosted = service.create("gang-of-four", [None, "greedy", "greedy", "greedy"], rules={"target_score": 20},
                                seed=round_)
        start = service.update(hosted.id, 0)
        actions = [start.legal[0]["action"], start.legal[-1]["action"]]
        racing.racing, racing.first_reads = True, 0
        results = at_once([partial(service.act, hosted.id, 0, action, expected_step=start.step)
                           for action in actions])
        racing.racing = False
        won = [r for r in results if isinstance(r, Update)]
        lost = [r for r in results if isinstance(r, StaleActionError)]
        assert len(won) == 1 and len(lost) == 1, results
        winner = actions[results.index(won[0])]
        state = service.state(hosted.id)
        assert state.actions[start.step] == winner and state.step == won[0].step
        assert lost[0].code == "stale"


def test_no_update_is_lost_when_actions_without_a_step_race(plugin: str, store: MatchStore) -> None:
    """Four requests play four different cards of seat 0 at once, none naming a step: each
    is stored on a version of its own (tried again after another stored first)."""
    racing = RacingStore(store, 4)
    service = MatchService(racing, KEY)
    hosted = service.create(PLUGIN, [None, "highest"], rules={"players": 2, "hand_size": 6}, seed=9)
    start = service.update(hosted.id, 0)
    cards = [view["action"] for view in start.legal][:4]
    racing.racing = True
    results = at_once([partial(service.act, hosted.id, 0, card) for card in cards])
    assert all(isinstance(r, Update) for r in results), results
    state = service.state(hosted.id)
    mine = [action for step, action in enumerate(state.actions) if step % 2 == start.step % 2][-4:]
    assert sorted(mine) == sorted(cards) and state.step == start.step + 8
    assert sorted(r.step for r in results) == [start.step + 2 * k for k in range(1, 5)]


def test_many_threads_on_many_matches_agree_with_one(store: MatchStore) -> None:
    service = MatchService(store, KEY)
    ids = [service.create("duelo", [None, "category"], seed=s).id for s in range(6)]

    def play_out(index: int) -> list[int]:
        match = ids[index]
        rng = random.Random(index)
        update = service.update(match, 0)
        while not update.terminal:
            update = service.act(match, 0, rng.choice(update.legal)["action"], expected_step=update.step)
        return list(service.state(match).actions)

    threaded = at_once([partial(play_out, index) for index in range(len(ids))])
    again = MatchService(MemoryMatchStore(), KEY)
    for index, actions in enumerate(threaded):
        assert isinstance(actions, list)
        copy = again.create("duelo", [None, "category"], seed=index, match_id=f"m{index}")
        rng = random.Random(index)
        update = again.update(copy.id, 0)
        while not update.terminal:
            update = again.act(copy.id, 0, rng.choice(update.legal)["action"])
        assert list(again.state(copy.id).actions) == actions  # seeded bots: the same match


def test_sqlite_compare_and_swap_holds_across_connections(tmp_path: Path) -> None:
    """Two stores on one file (two processes' view of it): a replace at an old step is refused."""
    one, two = SQLiteMatchStore(tmp_path / "m.db"), SQLiteMatchStore(tmp_path / "m.db")
    try:
        assert one.create(StoredMatch("a", 0, "s0", "d0")) and not two.create(StoredMatch("a", 0, "x", "x"))
        assert two.replace(StoredMatch("a", 3, "s3", "d3"), expected_step=0)
        assert not one.replace(StoredMatch("a", 4, "s4", "d4"), expected_step=0)
        assert one.get("a") == StoredMatch("a", 3, "s3", "d3") and len(one) == 1
        assert not one.replace(StoredMatch("b", 1, "s", "d"), expected_step=0) and one.get("b") is None
        assert two.delete("a") and not one.delete("a") and one.get("a") is None
    finally:
        one.close()
        two.close()


# -- bots ----------------------------------------------------------------------------------------------

@pytest.fixture
def counting_game() -> Iterator[str]:
    with counting_game_registered("counting-ends") as entry:
        yield entry.name


def test_a_bot_gets_its_memory_back_from_the_save(counting_game: str, store: MatchStore) -> None:
    service = MatchService(store, KEY)
    hosted = service.create(counting_game, [None, "counting"], seed=2)
    update = service.update(hosted.id, 0)
    acts = 0
    while not update.terminal:
        update = service.act(hosted.id, 0, update.legal[0]["action"], expected_step=update.step)
        acts += 1
    data = json.loads(store.get(hosted.id).data)  # type: ignore[union-attr]
    bot_moves = sum(1 for step in range(service.state(hosted.id).step) if step % 2 == 1)
    assert acts > 3 and data["memory"] == {"1": {"decisions": bot_moves}}


def test_a_bot_that_declares_neither_is_refused(counting_game: str, store: MatchStore) -> None:
    service = MatchService(store, KEY)
    with pytest.raises(InvalidSeatsError, match="declares neither stateless = True nor its memory") as caught:
        service.create(counting_game, [None, "forgetful"])
    assert caught.value.code == "bad_seats"


def test_every_bot_of_every_game_declares_itself(plugin: str) -> None:
    from fourcards.hosting.service import _bot_kind

    for name in (*BUILTIN, PLUGIN):
        entry = get_game(name)
        game = entry.new_game()
        for kind in entry.available_bots:
            assert _bot_kind(entry.new_bot(kind, game, seed=1)) == "stateless", (name, kind)


# -- answers do not grow with the match -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["four-pack", "duelo"])
def test_an_answer_holds_what_changed_not_the_whole_past(store: MatchStore, name: str) -> None:
    """Four Pack's view lists every ask and Duelo's every hand played: an answer holds only
    the new ones, so it stays small while the view grows."""
    service = MatchService(store, KEY)
    players = get_game(name).new_game().num_players
    hosted = service.create(name, [None] + ["random"] * (players - 1), seed=12)
    update = service.update(hosted.id, 0)
    grown = {"four-pack": "asks", "duelo": "hands"}[name]
    rng = random.Random(1)
    sizes = []
    while not update.terminal:
        update = service.act(hosted.id, 0, rng.choice(update.legal)["action"], expected_step=update.step)
        new_items = len(update.appended.get(grown, update.view.get(grown, [])))
        assert grown not in update.view or update.since == 0  # sent whole only at the start
        assert new_items <= len(update.records)
        # the legal actions are as many as the rules allow at this moment, not more with the match
        sizes.append((len(json.dumps(update.as_dict())) - len(json.dumps(update.legal)), len(update.records)))
    full = len(json.dumps(service.update(hosted.id, 0).view))
    assert max(size - 400 * records for size, records in sizes) < 2000 < 5000 < full


def test_changes_and_merge() -> None:
    assert changes({"a": 1, "b": [1], "c": 3}, {"a": 2, "b": [1, 2], "d": 4}) == {
        "a": REPLACED, "b": 1, "d": REPLACED, "c": REMOVED}
    assert changes({"b": [1, 2]}, {"b": [1]}) == {"b": REPLACED}
    assert merge([{"b": 1}, {"b": 3}, {"a": REPLACED}]) == {"b": 1, "a": REPLACED}
    assert merge([{"b": 1}, {"b": REPLACED}]) == {"b": REPLACED}
    assert merge([{"b": REMOVED}, {"b": REPLACED}]) == {"b": REPLACED}
    assert merge([{"b": REMOVED}, {"b": 0}]) == {"b": REPLACED}
    assert delta({"a": 1, "b": [1, 2, 3]}, {"a": REPLACED, "b": 1, "c": REMOVED}) == ({"a": 1}, {"b": [2, 3]}, ["c"])


def test_a_client_further_behind_than_the_journal_starts_again(store: MatchStore) -> None:
    service = MatchService(store, KEY, journal=2)
    hosted = service.create("zangle", [None, "best"], rules={"players": 2}, seed=3)
    old = service.update(hosted.id, 0)
    update = old
    for _ in range(4):
        if update.terminal:
            break
        update = service.act(hosted.id, 0, update.legal[0]["action"], expected_step=update.step)
    late = service.update(hosted.id, 0, since=old.step)
    assert late.reset and late.view == service.update(hosted.id, 0).view
    assert service.update(hosted.id, 0, since=update.step).view == {}  # nothing new


# -- hidden information -----------------------------------------------------------------------------------

HIDDEN = ("gang-of-four", "four-color", "four-pack", "duelo", "zangle", PLUGIN)
HIDDEN_RULES: dict[str, dict[str, Any]] = {
    "gang-of-four": {"players": 4, "target_score": 20}, "four-color": {"players": 3, "rounds": 1},
    "four-pack": {"players": 4}, "duelo": {"players": 3}, "zangle": {"players": 3, "rounds": 1},
    PLUGIN: {"players": 3},
}


def comparable(update: Update) -> dict[str, Any]:
    data = update.as_dict()
    data.pop("match")
    return data


def private_part(service: MatchService, match_id: str, seat: int) -> Any:
    """What only ``seat`` may see in its view (the game's ``private_view_fields``)."""
    state = service.state(match_id)
    view = state.view(seat)
    return {name: view.get(name) for name in state.game.private_view_fields}


def compare_twins(name: str, seed: int, seat_draw: int, choices: list[int]) -> int:
    """Two matches alike in all that a seat may see, unlike in cards it may not (traded
    between the other seats, or with the stock), played on with the same actions: while
    what everyone sees and what only the seat sees stay alike (a traded card may come to
    light by the rules: turned up from the stock, asked for, given in an exchange), its
    updates and its answers are the same in both, field for field, and so are the
    spectators'. Returns how many steps were compared."""
    rules = HIDDEN_RULES[name]
    service = MatchService(MemoryMatchStore(), KEY)
    players = get_game(name).new_game(**rules).num_players
    seat = seat_draw % players
    a = service.create(name, [None] * players, rules=rules, seed=seed, match_id="a")
    twin = hidden_twin(service.state(a.id), seat, random.Random(seed))
    if twin is None:
        return 0
    stored = service.store.get("a")
    assert stored is not None
    assert service.store.create(StoredMatch("b", 0, twin.to_json(KEY, snapshot=True), stored.data))
    inside = [json.loads(service.state(m).to_json(KEY, snapshot=True))["snapshot"]["state"] for m in "ab"]
    assert inside[0] != inside[1]  # the twins differ...
    seen = {"a": service.update("a", seat), "b": service.update("b", seat)}
    watched = {"a": service.update("a", None), "b": service.update("b", None)}
    assert comparable(seen["a"]) == comparable(seen["b"])  # ... not to the seat
    assert comparable(watched["a"]) == comparable(watched["b"])
    compared = 0
    for choice in choices:
        states = {m: service.state(m) for m in "ab"}
        if states["a"].is_terminal:
            break
        actor = states["a"].current_player
        common = sorted(set(states["a"].legal_actions()) & set(states["b"].legal_actions()))
        if not common:
            break
        action = common[choice % len(common)]
        answers = {m: service.act(m, actor, action, expected_step=states[m].step) for m in "ab"}
        public = [service.update(m, None).view for m in "ab"]
        if public[0] != public[1] or private_part(service, "a", seat) != private_part(service, "b", seat):
            break  # a traded card came to light by the rules: the twins are no longer alike to the seat
        if actor == seat:
            assert comparable(answers["a"]) == comparable(answers["b"])
        for m in "ab":
            seen[m] = service.update(m, seat, since=seen[m].step)
            watched[m] = service.update(m, None, since=watched[m].step)
        assert comparable(seen["a"]) == comparable(seen["b"])
        assert comparable(watched["a"]) == comparable(watched["b"])
        compared += 1
    return compared


@pytest.mark.parametrize("name", HIDDEN)
@given(seed=st.integers(0, 2**32), seat_draw=st.integers(0, 7), choices=st.lists(st.integers(0, 10**6), min_size=40,
                                                                                  max_size=40))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_seats_updates_do_not_change_when_only_cards_it_may_not_see_do(
        plugin: str, name: str, seed: int, seat_draw: int, choices: list[int]) -> None:
    compare_twins(name, seed, seat_draw, choices)


@pytest.mark.parametrize("name", HIDDEN)
def test_the_twins_are_compared_for_many_steps(plugin: str, name: str) -> None:
    """The property above is not empty: in every game, twins stay alike to a seat for steps."""
    best = max(compare_twins(name, seed, seed, [seed * 7 + k for k in range(25)]) for seed in range(6))
    assert best >= 5


def test_a_game_with_private_records_sends_each_seat_its_own(plugin: str) -> None:
    """A game whose records hold a seat's secret says so in ``seat_record_view``: each seat,
    and the spectators, get only what it gives them."""
    entry = get_game(PLUGIN)

    class Secretive(entry.game_class):  # type: ignore[name-defined,misc]
        name = "secretive-card"

        def seat_record_view(self, record: Any, seat: int | None) -> dict[str, Any] | None:
            view: dict[str, Any] = self.record_view(record)
            if view.get("kind") == "played" and seat != view["player"]:
                return {"kind": "played", "player": view["player"], "text": f"P{view['player']} plays"}
            return view

    register(GameEntry("secretive-card", "Secretive Card", Secretive, dict(entry.bots), best_bot=entry.best_bot))
    try:
        service = MatchService(MemoryMatchStore(), KEY)
        hosted = service.create("secretive-card", [None, None], seed=1)
        update = service.update(hosted.id, 0)
        played = service.act(hosted.id, 0, update.legal[0]["action"], expected_step=update.step)
        other = service.update(hosted.id, 1, since=update.step)
        spectator = service.update(hosted.id, None, since=update.step)
        assert played.records[0]["card"] == update.legal[0]["text"].split()[-1]
        assert "card" not in other.records[0] and "card" not in spectator.records[0]
        assert other.records[0]["text"] == "P0 plays"
    finally:
        unregister("secretive-card")


# -- input the service refuses ---------------------------------------------------------------------------

@dataclass
class Refusal:
    why: str
    call: Any
    error: type[Exception]


def test_what_the_service_refuses_changes_nothing(store: MatchStore) -> None:
    service = MatchService(store, KEY)
    hosted = service.create("gang-of-four", [None, "greedy", "greedy", "greedy"], rules={"target_score": 20}, seed=1)
    start = service.update(hosted.id, 0)
    before = store.get(hosted.id)
    action = start.legal[0]["action"]
    refusals = [
        Refusal("unknown match", lambda: service.act("nope", 0, action), UnknownMatchError),
        Refusal("a malformed id", lambda: service.update("../etc", 0), UnknownMatchError),
        Refusal("a seat off the table", lambda: service.act(hosted.id, 9, action), UnknownSeatError),
        Refusal("a bot's seat", lambda: service.act(hosted.id, 1, action), NotYourTurnError),
        Refusal("a stale step", lambda: service.act(hosted.id, 0, action, expected_step=start.step + 1),
                StaleActionError),
        Refusal("nonsense", lambda: service.act(hosted.id, 0, "no such cards"), FourCardsError),
        Refusal("since ahead", lambda: service.update(hosted.id, 0, since=start.step + 5), FourCardsError),
        # act checked since after it stored the action (an adversarial review): the refusal stored it
        Refusal("an action's since below 0", lambda: service.act(hosted.id, 0, action, expected_step=start.step,
                                                                 since=-1), FourCardsError),
        Refusal("an action's since past its step", lambda: service.act(hosted.id, 0, action, since=2**70),
                FourCardsError),
        Refusal("a float seat", lambda: service.act(hosted.id, 0.0, action), InvalidTypeError),  # type: ignore[arg-type]
        Refusal("a bool step", lambda: service.act(hosted.id, 0, action, expected_step=True), InvalidTypeError),
        Refusal("unknown game", lambda: service.create("chess", [None]), UnknownGameError),
        Refusal("bad rules", lambda: service.create("zangle", [None], rules={"players": 99}), InvalidRulesError),
        Refusal("an unknown option", lambda: service.create("zangle", [None], rules={"jokers": 1}), InvalidRulesError),
        Refusal("too few seats", lambda: service.create("zangle", [None]), InvalidSeatsError),
        Refusal("an unknown bot", lambda: service.create("zangle", [None, "genius", None]), InvalidSeatsError),
        Refusal("seats as text", lambda: service.create("zangle", "abc"), InvalidSeatsError),
        Refusal("a taken id", lambda: service.create("zangle", [None] * 3, match_id=hosted.id), FourCardsError),
        Refusal("a bad id", lambda: service.create("zangle", [None] * 3, match_id="a b"), FourCardsError),
        Refusal("a bad token", lambda: service.check_token(hosted.id, 0, "x" * 32), BadTokenError),
        Refusal("another seat's token", lambda: service.check_token(hosted.id, 0, service.seat_token(hosted.id, 1)),
                BadTokenError),
        Refusal("no token", lambda: service.check_token(hosted.id, 0, None), BadTokenError),
    ]
    for refusal in refusals:
        with pytest.raises(refusal.error):
            refusal.call()
        assert store.get(hosted.id) == before, refusal.why
    service.check_token(hosted.id, 0, service.seat_token(hosted.id, 0))
    with pytest.raises(UnknownMatchError):
        service.delete("\ud800")  # UnicodeEncodeError from SQLite: no id the service makes
    service.delete(hosted.id)
    with pytest.raises(UnknownMatchError):
        service.delete(hosted.id)


def test_what_a_store_cannot_hold_is_refused_by_name(store: MatchStore) -> None:
    """An adversarial review: a lone surrogate in an id, a save or data, and a step past a
    64-bit integer reached SQLite (UnicodeEncodeError, OverflowError)."""
    match = StoredMatch("m1", 0, "{}", "{}")
    assert store.create(match)
    for call, name in ((lambda: store.get("a\ud800"), "match_id"), (lambda: store.delete("a\ud800"), "match_id"),
                       (lambda: store.create(StoredMatch("m\ud800", 0, "{}", "{}")), "match.id"),
                       (lambda: store.create(StoredMatch("m2", 0, "\ud800", "{}")), "match.save"),
                       (lambda: store.create(StoredMatch("m2", 2**70, "{}", "{}")), "match.step"),
                       (lambda: store.create(StoredMatch("m2", -1, "{}", "{}")), "match.step"),
                       (lambda: store.replace(StoredMatch("m1", 1, "{}", "{}"), 2**70), "expected_step"),
                       (lambda: store.replace(StoredMatch("m1", 1, "{}", "\udfff"), 0), "match.data")):
        with pytest.raises(FourCardsError, match=name.replace(".", "[.]")):
            call()
    assert store.get("m1") == match and store.get("m2") is None


@pytest.mark.parametrize("path, error", [(None, InvalidTypeError), (5, InvalidTypeError), ("", FourCardsError),
                                         ("a\0b.db", FourCardsError), ("\ud800.db", FourCardsError)])
def test_an_sqlite_store_needs_a_file_path(path: Any, error: type[Exception], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # None and 5 made files "None" and "5" (and their -wal, -shm) in the working folder
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match="path"):
        SQLiteMatchStore(path)
    assert list(tmp_path.iterdir()) == []


def test_the_bots_of_one_request_play_for_a_bounded_time(store: MatchStore) -> None:
    """A match of bots alone is played out when it is created: one request for a target
    score of 100,000 ran for minutes (random bots) to hours (search) in a review."""
    service = MatchService(store, KEY, bot_seconds=0.05)
    with pytest.raises(TooCostlyError, match="bot_seconds") as refused:
        service.create("gang-of-four", ["random"] * 4, rules={"target_score": 100_000}, seed=1, match_id="long")
    assert refused.value.code == "too_costly" and store.get("long") is None
    hosted = service.create("gang-of-four", ["random"] * 4, rules={"target_score": 5}, seed=1)  # within it
    assert service.info(hosted.id)["terminal"]
    for bad in (0, -1.0, float("nan"), 86_401):
        with pytest.raises(FourCardsError, match="bot_seconds"):
            MatchService(store, KEY, bot_seconds=bad)
    with pytest.raises(InvalidTypeError, match="bot_seconds"):
        MatchService(store, KEY, bot_seconds="1")  # type: ignore[arg-type]


@pytest.mark.parametrize("damage, problem", [
    (lambda data: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    (lambda data: json.dumps({k: v for k, v in json.loads(data).items() if k != "journal"}), "journal"),
    (lambda data: json.dumps({**json.loads(data), "seats": 5}), "seats"),
    (lambda data: json.dumps({**json.loads(data), "seats": []}), "seats"),
    (lambda data: json.dumps({**json.loads(data), "seats": [None, "zzz"]}), "seats"),  # an unknown bot kind
    (lambda data: json.dumps({**json.loads(data), "version": True}), "version"),  # read as 1
    (lambda data: json.dumps({**json.loads(data), "journal": [1, 2]}), "journal"),
    (lambda data: json.dumps({**json.loads(data), "journal": [{"from": 0, "to": 0, "records": [5], "changed": {}}]}),
     "records"),
    (lambda data: json.dumps({**json.loads(data), "memory": []}), "memory"),
    (lambda data: json.dumps({**json.loads(data), "bot_seed": "x"}), "bot_seed"),
])
def test_stored_data_that_is_not_a_hosts_is_a_bad_save(damage: Any, problem: str) -> None:
    """A row changed by another writer or a damaged database: RecursionError, KeyError, TypeError
    and IndexError came out of the service (an adversarial review); it is a bad save (500)."""
    from fourcards.errors import InvalidStateError

    store = MemoryMatchStore()
    service = MatchService(store, KEY)
    hosted = service.create("duelo", [None, "category"], seed=3)
    stored = store.get(hosted.id)
    assert stored is not None
    legal = service.state(hosted.id).legal_actions()
    broken = StoredMatch(stored.id, stored.step, stored.save, damage(stored.data))
    assert store.replace(broken, stored.step)
    for call in (lambda: service.update(hosted.id, 0), lambda: service.info(hosted.id),
                 lambda: service.act(hosted.id, 0, legal[0])):
        with pytest.raises(InvalidStateError, match=problem) as refused:
            call()
        assert refused.value.code == "bad_save"
    assert store.get(hosted.id) == broken


def test_an_update_applied_to_a_view_it_cannot_follow_says_so() -> None:
    service = MatchService(MemoryMatchStore(), KEY)
    hosted = service.create("four-pack", [None, "memory", "memory", "memory"], seed=2)
    first = service.update(hosted.id, 0)
    after = service.act(hosted.id, 0, first.legal[0]["action"], expected_step=first.step)
    assert after.apply_to(first.apply_to(None)) == service.update(hosted.id, 0).view
    if after.appended:
        with pytest.raises(FourCardsError, match="ask for a reset"):
            after.apply_to({})
    with pytest.raises(InvalidTypeError, match="view must be"):
        after.apply_to(5)  # type: ignore[arg-type]


def test_a_service_needs_a_key() -> None:
    with pytest.raises(InvalidTypeError):
        MatchService(MemoryMatchStore(), None)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        MatchService(MemoryMatchStore(), "")
    with pytest.raises(FourCardsError):
        MatchService(MemoryMatchStore(), "k", journal=0)
