"""Saves that load themselves (``fourcards.load``), snapshot saves, and the rules
round trip, over every game of the registry and the plug-in of ``tests/plugin/``.

The issue's findings, each a test here: a save's own rules did not rebuild its
game (Zangle's ``deck=[]``, Four Pack's and Duelo's deck digest); loading
replayed the whole match; a signed save loaded without its key was accepted.
"""

from __future__ import annotations

import base64
import json
import random
import re
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fourcards
from fourcards.engine import State, _digest, _signature
from fourcards.errors import FourCardsError, InvalidStateError, InvalidTypeError
from fourcards.fourpack.game import FourPack, FourPackState
from fourcards.games import get_game
from fourcards.saves import game_of

from .hosting_helpers import BUILTIN, PLUGIN, RULES, all_rules, new_state, play, plugin

__all__ = ["plugin"]  # the fixture, used by name

KEY = b"server secret"
GAMES_AND_PLUGIN = (*BUILTIN, PLUGIN)


def fingerprint(state: State[Any]) -> Any:
    """Everything a caller can see of a state, hidden parts included."""
    n = state.game.num_players
    return (state.game.rules_dict(), state.seed, state.setup, state.step, state.actions, state.history,
            state.current_player, state.is_terminal, state.legal_actions(), state.scores, state.winners,
            state.summary(), [state.observation(p) for p in range(n)], [state.view(p) for p in range(n)],
            state.spectator_view())


def resign(data: dict[str, Any], key: bytes | None = KEY) -> str:
    """``data`` digested (and signed with ``key``) again: an edit a forger with the key could make."""
    data = {k: v for k, v in data.items() if k not in ("digest", "signature")}
    data["digest"] = _digest(data)
    if key is not None:
        data["signature"] = _signature(data, key)
    return json.dumps(data)


# -- the rules round trip: a contract over the registry ------------------------------------------------

@pytest.mark.parametrize(("name", "rules"), all_rules(GAMES_AND_PLUGIN))
def test_rules_dict_rebuilds_the_same_game(plugin: str, name: str, rules: dict[str, Any]) -> None:
    """``new_game(**game.rules_dict())`` is the same game, in every game and for every option
    (decks included): the issue found Zangle refusing ``deck=[]`` and Four Pack and Duelo
    failing with an AttributeError on their own deck digest."""
    entry = get_game(name)
    game = entry.new_game(**rules)
    data = json.loads(json.dumps(game.rules_dict()))  # as a save holds it
    again = entry.new_game(**data)
    assert again.rules_dict() == game.rules_dict() and again.rules == game.rules
    assert again.info() == game.info()
    deck, again_deck = getattr(game, "deck", None), getattr(again, "deck", None)
    assert again_deck == deck or (deck is not None and again_deck is not None
                                  and again_deck.as_data() == deck.as_data())
    seed = 11
    a, b = game.new_match(seed), again.new_match(seed)
    rng = random.Random(seed)
    for _ in range(40):
        if a.is_terminal:
            break
        action = rng.choice(a.legal_actions())
        a.apply(action)
        b.apply(action)
    assert fingerprint(a)[3:] == fingerprint(b)[3:]


def test_every_registered_game_has_rule_sets_here(plugin: str) -> None:
    from fourcards.games import GAMES

    assert set(GAMES) == set(RULES)


def test_a_deck_of_ones_own_is_recorded_whole_and_the_shipped_one_by_digest() -> None:
    from fourcards.decks import shipped_deck

    from .hosting_helpers import custom_deck

    for name in ("four-pack", "duelo"):
        shipped = get_game(name).new_game()
        assert shipped.rules_dict()["deck"] == shipped_deck().digest
        own: Any = get_game(name).new_game(deck=custom_deck())
        assert own.rules_dict()["deck"] == own.deck.as_data() and own.deck.name == "Test deck"
        with pytest.raises(FourCardsError, match="not the digest of the shipped deck"):
            get_game(name).new_game(deck="0123456789abcdef")


# -- fourcards.load ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "rules"), all_rules(GAMES_AND_PLUGIN))
def test_load_reads_the_game_and_its_rules_from_the_save(plugin: str, name: str, rules: dict[str, Any]) -> None:
    state = play(new_state(name, rules, 5), random.Random(5), 60)
    for text, key in ((state.to_json(), None), (state.to_json(key=KEY), KEY),
                      (state.to_json(key=KEY, snapshot=True), KEY)):
        loaded = fourcards.load(text, key=key)
        assert type(loaded) is type(state) and loaded == state
        assert fingerprint(loaded) == fingerprint(state)
    # bytes too, and the game's own from_json reads every form
    assert fourcards.load(state.to_json().encode()) == state
    assert state.game.from_json(state.to_json(key=KEY, snapshot=True), key=KEY) == state


def test_a_signed_save_is_refused_without_its_key_unless_the_caller_says_so() -> None:
    state = play(new_state("gang-of-four", {}, 3), random.Random(3), 30)
    signed = state.to_json(key=KEY)
    with pytest.raises(InvalidStateError, match="is signed: load it with its key"):
        fourcards.load(signed)
    with pytest.raises(InvalidStateError, match="is signed"):
        state.game.from_json(signed)
    assert fourcards.load(signed, verify=False) == state  # replayed: still checked
    assert fourcards.load(signed, key=KEY) == state
    with pytest.raises(InvalidStateError, match="signature does not match"):
        fourcards.load(signed, key=b"another key")
    with pytest.raises(InvalidStateError, match="not signed"):
        fourcards.load(state.to_json(), key=KEY)
    # verify=False does not let damage through: the digest and the replay still check it
    edited = json.loads(signed)
    edited["actions"] = edited["actions"][:-1]
    with pytest.raises(InvalidStateError, match="altered"):
        fourcards.load(json.dumps(edited), verify=False)


def test_snapshots_are_accepted_only_signed() -> None:
    state = play(new_state("gang-of-four", {}, 4), random.Random(4), 50)
    with pytest.raises(FourCardsError, match="accepted only signed") as refused:
        state.to_json(snapshot=True)
    assert refused.value.code == "bad_request"  # the caller's mistake, not a broken save
    with pytest.raises(InvalidTypeError, match="snapshot must be a bool"):
        state.to_json(key=KEY, snapshot="yes")  # type: ignore[arg-type]
    for key in ("\ud800", "k\udfff"):  # a lone surrogate: a FourCardsError, not a UnicodeEncodeError
        with pytest.raises(FourCardsError, match="lone surrogate"):
            state.to_json(key=key)
        with pytest.raises(FourCardsError, match="lone surrogate"):
            fourcards.load(state.to_json(), key=key)
    snapshot = state.to_json(key=KEY, snapshot=True)
    data = json.loads(snapshot)
    assert "actions" not in data and set(data["snapshot"]) == {"class", "state", "links", "history", "width", "log"}
    with pytest.raises(InvalidStateError, match="is signed"):
        fourcards.load(snapshot)
    # without the key (verify=False) a snapshot is replayed from its packed actions: checked, slower
    replayed = fourcards.load(snapshot, verify=False)
    assert replayed == state and fingerprint(replayed) == fingerprint(state)
    unsigned = resign(data, key=None)
    for verify in (True, False):
        with pytest.raises(InvalidStateError, match="unsigned snapshot"):
            fourcards.load(unsigned, verify=verify)
    with pytest.raises(InvalidStateError, match="not signed"):
        fourcards.load(unsigned, key=KEY)
    # an edit re-digested without the key is refused by the signature
    data["snapshot"]["state"]["_totals"] = [0, 0, 0, 0]
    with pytest.raises(InvalidStateError, match="signature does not match"):
        fourcards.load(resign(data, key=b"guess"), key=KEY)


def test_a_snapshot_replayed_without_its_key_must_agree_with_its_state() -> None:
    """A snapshot whose state and actions disagree (made with the key) is refused when replayed."""
    state = play(new_state("four-color", {}, 8), random.Random(8), 40)
    data = json.loads(state.to_json(key=KEY, snapshot=True))
    raw = base64.b64decode(data["snapshot"]["log"])
    data["snapshot"]["log"] = base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 1])).decode()
    with pytest.raises(InvalidStateError):
        fourcards.load(resign(data), verify=False)


# -- every bad save is an InvalidStateError ------------------------------------------------------------

def bad_saves() -> list[tuple[str, str, bytes | None]]:
    """(why, text, key): saves fourcards.load must refuse, each with InvalidStateError."""
    state = play(new_state("gang-of-four", {}, 6), random.Random(6), 40)
    plain = json.loads(state.to_json())
    snap = json.loads(state.to_json(key=KEY, snapshot=True))

    def with_snapshot(**change: Any) -> str:
        data = json.loads(json.dumps(snap))
        data["snapshot"].update(change)
        return resign(data)

    def with_value(name: str, value: Any) -> str:
        data = json.loads(json.dumps(snap))
        data["snapshot"]["state"][name] = value
        return resign(data)

    cases: list[tuple[str, str, bytes | None]] = [
        ("not JSON", "{", None), ("a list", "[]", None), ("deep", "[" * 100_000 + "]" * 100_000, None),
        ("another format", json.dumps({**plain, "format": "x"}), None),
        ("another version", resign({**plain, "version": 99}, None), None),
        ("an unknown game", resign({**plain, "game": "chess"}, None), None),
        ("no game", resign({**plain, "game": 7}, None), None),
        ("rules of no game", resign({**plain, "rules": {**plain["rules"], "players": 9}}, None), None),
        ("an unknown rule", resign({**plain, "rules": {**plain["rules"], "jokers": True}}, None), None),
        ("rules that are a list", resign({**plain, "rules": [1]}, None), None),
        ("a rules object as a rule", resign({**plain, "rules": {"rules": 1}}, None), None),
        ("an altered action", json.dumps({**plain, "actions": plain["actions"][:-1]}), None),
        ("an illegal action", resign({**plain, "actions": [*plain["actions"], 12352, 12352, 12352, 12352]}, None),
         None),
        ("a huge seed", resign({**plain, "seed": 2**80}, None), None),
        ("a summary that differs", resign({**plain, "summary": {**plain["summary"], "round": 9}}, None), None),
        ("a snapshot naming os.system", with_snapshot(**{"class": "os:system"}), KEY),
        ("a snapshot naming a class outside the game", with_snapshot(**{"class": "fourcards.server.store:SQLiteStore"}),
         KEY),
        ("a snapshot naming a dunder", with_snapshot(**{"class": "fourcards.gangoffour.match:MatchState.__init__"}),
         KEY),
        ("a snapshot naming no state class", with_snapshot(**{"class": "fourcards.gangoffour.match:Rules"}), KEY),
        ("a value calling os.system", with_value("_round", {"call": "os:system", "args": ["true"]}), KEY),
        ("a value calling a module function", with_value("_round", {"call": "fourcards.decks:load_deck",
                                                                     "args": ["/etc/passwd"]}), KEY),
        ("a value making a class elsewhere", with_value("_round", {"new": "fourcards.server.store:SQLiteStore",
                                                                    "args": [], "state": None}), KEY),
        ("a value that is no form", with_value("_round", {"x": 1}), KEY),
        ("a value with a bad tuple", with_value("_winners", {"t": 5}), KEY),
        ("a value with a bad generator", with_value("_rng", {"rng": "x"}), KEY),
        ("a constant out of range", with_value("_round", {"k": 99}), KEY),
        ("an unknown slot", with_value("_nothing", 1), KEY),
        ("a wrong value", with_value("_round", 77), KEY),
        ("a value of the wrong type", with_value("_hands", "x"), KEY),
        ("links that do not fit", with_snapshot(links={"_asks": []}), KEY),
        ("a malformed history flag", with_snapshot(history="yes"), KEY),
        ("a log of another width", with_snapshot(width=4), KEY),
        ("a log that is not text", with_snapshot(log=5), KEY),
        ("a log cut in an action", with_snapshot(log=base64.b64encode(b"abc").decode()), KEY),
        ("a log that is not ASCII", with_snapshot(log="\u00e9\u00e9\u00e9\u00e9"), KEY),
        ("a malformed state", with_snapshot(state=[1]), KEY),
    ]
    return cases


@pytest.mark.parametrize(("why", "text", "key"), bad_saves(), ids=[case[0] for case in bad_saves()])
def test_every_bad_save_is_an_invalid_state_error(why: str, text: str, key: bytes | None) -> None:
    with pytest.raises(InvalidStateError) as caught:
        fourcards.load(text, key=key)
    assert caught.value.code == "bad_save"


def test_a_snapshot_log_that_is_not_base64_is_refused_when_the_actions_are_read() -> None:
    """The packed actions are decoded only when needed (a load stays fast): garbage of the
    right length is found then, still as an InvalidStateError."""
    state = play(new_state("gang-of-four", {}, 6), random.Random(6), 40)
    data = json.loads(state.to_json(key=KEY, snapshot=True))
    log = data["snapshot"]["log"]
    body = log.rstrip("=")
    data["snapshot"]["log"] = "!" * len(body) + log[len(body):]  # the right length, the padding kept
    loaded = fourcards.load(resign(data), key=KEY)
    with pytest.raises(InvalidStateError, match="not base64"):
        _ = loaded.actions


def test_an_old_save_of_a_deck_of_ones_own_loads_with_its_game() -> None:
    """Before, a custom deck was recorded by its digest alone: such a save still loads
    with a game made with that deck, and fourcards.load says what is missing."""
    from dataclasses import asdict

    from .hosting_helpers import custom_deck

    game: Any = get_game("four-pack").new_game(deck=custom_deck())
    state = play(game.new_match(2), random.Random(2), 20)
    data = json.loads(state.to_json())
    data["rules"] = {**asdict(game.rules), "deck": game.deck.digest}
    old = resign(data, key=None)
    assert game.from_json(old) == state
    with pytest.raises(InvalidStateError, match="not the digest of the shipped deck"):
        fourcards.load(old)


# -- snapshots restore the state exactly -----------------------------------------------------------

@pytest.mark.engine
@pytest.mark.parametrize("name", GAMES_AND_PLUGIN)
@given(data=st.data(), seed=st.integers(0, 2**32), steps=st.integers(0, 400))
@settings(max_examples=8, deadline=None)
def test_a_snapshot_restores_the_state_exactly_and_plays_on_the_same(plugin: str, name: str, data: st.DataObject,
                                                                     seed: int, steps: int) -> None:
    rules = data.draw(st.sampled_from(RULES[name]), label="rules")
    rng = random.Random(seed)
    state = play(new_state(name, rules, seed), rng, steps)
    restored = fourcards.load(state.to_json(key=KEY, snapshot=True), key=KEY)
    assert restored == state and fingerprint(restored) == fingerprint(state)
    # both play on the same actions alike, and so does a snapshot of the restored state
    for _ in range(3):
        play(state, rng, 15)
        restored = _follow(restored, state)
        assert fingerprint(restored) == fingerprint(state)
        restored = fourcards.load(restored.to_json(key=KEY, snapshot=True), key=KEY)
        assert fingerprint(restored) == fingerprint(state)
    clone = restored.clone()
    if not clone.is_terminal:
        clone.apply(clone.legal_actions()[0])
        assert restored.step == state.step  # the clone is independent


def _follow(restored: State[Any], state: State[Any]) -> State[Any]:
    """Apply to ``restored`` the actions ``state`` took since the step ``restored`` is at."""
    for action in state.actions[restored.step:]:
        restored.apply(action)
    return restored


def test_a_restored_history_is_rebuilt_once_for_every_thread() -> None:
    state = play(new_state("four-color", {}, 9), random.Random(9), 300)
    restored = fourcards.load(state.to_json(key=KEY, snapshot=True), key=KEY)
    results: list[Any] = []
    barrier = threading.Barrier(8)

    def read() -> None:
        barrier.wait()
        results.append((restored.history, restored.actions, restored.recent_history(5)))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8 and all(r == (state.history, state.actions, state.recent_history(5)) for r in results)


def test_game_of_makes_a_game_once_for_many_saves() -> None:
    state = new_state("zangle", {"players": 2}, 1)
    rules = json.loads(state.to_json())["rules"]
    assert game_of("zangle", rules) is game_of("zangle", dict(rules))
    with pytest.raises(InvalidStateError, match="not installed"):
        game_of("chess", rules)


def test_the_saves_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/bench_saves.py measures and reports (no time is asserted: a benchmark prints ratios)."""
    from fourcards.benchmarks.saves import main

    if not fourcards.COMPILED:
        assert main(["--quick"]) == 1  # it measures the compiled core only, and says so
        return
    assert main(["--quick", "--rounds", "1", "--inner", "1"]) == 0
    out = capsys.readouterr().out
    assert "3,000 actions" in out and len(re.findall(r"\|\s*(?:met|not met here)\s*\|", out)) == 2


def test_a_rule_or_version_of_another_json_type_is_refused_as_load_refuses_it() -> None:
    """A first user's trial: ``rules.pass_is_final = 0`` (re-digested) loaded through
    ``game.from_json`` (``0 == False``) while ``fourcards.load`` refused it, and the envelope took
    ``"version": true`` or ``1.0``."""
    game = get_game("gang-of-four").new_game()
    state = game.new_match(3)
    for change in ({"pass_is_final": 0}, {"target_score": 100.0}):
        data = json.loads(state.to_json())
        data["rules"].update(change)
        data["digest"] = _digest(data)
        with pytest.raises(InvalidStateError, match="rules"):
            game.from_json(json.dumps(data))
        with pytest.raises(InvalidStateError, match="rules"):
            fourcards.load(json.dumps(data))
    for version in (True, 1.0, "1"):
        data = json.loads(state.to_json())
        data["version"] = version
        data["digest"] = _digest(data)
        with pytest.raises(InvalidStateError, match="version"):
            fourcards.load(json.dumps(data))
    assert game.from_json(state.to_json()).actions == state.actions


@pytest.mark.parametrize("name", ["gang-of-four", "four-color", "zangle", "four-pack", "duelo"])
def test_a_signed_snapshot_lacking_a_value_is_refused_on_load(name: str) -> None:
    """A first user's trial: a signed snapshot with a slot deleted loaded, then failed with an
    AttributeError at the first call (the form check looked for unknown slots only)."""
    state = get_game(name).new_game().new_match(3)
    for _ in range(3):
        if not state.is_terminal:
            state.apply(state.legal_actions()[0])
    text = state.to_json(key=KEY, snapshot=True)
    assert fourcards.load(text, key=KEY).summary() == state.summary()
    for slot in list(json.loads(text)["snapshot"]["state"])[:4]:
        data = json.loads(text)
        del data["snapshot"]["state"][slot], data["digest"], data["signature"]
        data["digest"] = _digest(data)
        data["signature"] = _signature(data, KEY)
        with pytest.raises(InvalidStateError, match=f"no value for \\['{slot}'\\]"):
            fourcards.load(json.dumps(data), key=KEY)



class MemoState(FourPackState):
    """A plug-in's state that sets a slot under some rules only (must_hold_family)."""

    __slots__ = ("_memo",)

    def __init__(self, game: Any, seed: int, position: Any = None) -> None:
        super().__init__(game, seed, position)
        if game.rules.must_hold_family:
            self._memo = [1, 2]


class MemoPack(FourPack):
    def new_match(self, seed: int, position: Any = None, **setup: Any) -> Any:
        self._no_setup(setup)
        return MemoState(self, seed, position)


def test_a_slot_set_under_some_rules_only_does_not_refuse_the_other_rules_snapshots() -> None:
    """A reviewer's trial: the slots a snapshot must hold were learned once per state class, from
    whichever rules loaded first; a state class setting a slot under some rules only then refused
    every valid snapshot of the other rules."""
    holding, plain = MemoPack(must_hold_family=True), MemoPack()
    assert type(holding.from_json(holding.new_match(1).to_json(KEY, snapshot=True), KEY)) is MemoState
    assert type(plain.from_json(plain.new_match(1).to_json(KEY, snapshot=True), KEY)) is MemoState


def test_a_saved_seed_outside_64_bits_is_refused_on_load() -> None:
    """A reviewer's trial: a signed snapshot with seed 2**64 + 1 loaded, and its history then
    failed; a replayed save with it is refused too, by the envelope's check."""
    state = get_game("duelo").new_game().new_match(3)
    for snapshot in (False, True):
        data = json.loads(state.to_json(KEY, snapshot=snapshot))
        data["seed"] = 2**64 + 1
        del data["digest"], data["signature"]
        data["digest"] = _digest(data)
        data["signature"] = _signature(data, KEY)
        with pytest.raises(InvalidStateError, match="'seed'"):
            fourcards.load(json.dumps(data), key=KEY)


# -- one name everywhere (a first user, 2026-12-05) ----------------------------------------------------

def test_every_game_calls_itself_by_its_registry_name() -> None:
    """Four Color named itself ``four-color-cards`` in ``info().name``, its saves' ``"game"`` and its
    errors, while the registry, the command line and the server call it ``four-color``."""
    from fourcards.games import GAMES

    for name, entry in GAMES.items():
        game = entry.new_game()
        assert game.name == name and game.info().name == name
        assert json.loads(game.new_match(1).to_json())["game"] == name


@pytest.mark.parametrize("key", [None, KEY])
def test_a_save_under_the_former_name_still_loads(key: bytes | None) -> None:
    """A save written before the rename (``"game": "four-color-cards"``, digested and signed as it
    was) loads through ``fourcards.load`` and the game's ``from_json``, and saves again under the
    new name; no other name is taken for it."""
    game = get_game("four-color").new_game(players=3)
    state = game.new_match(5)
    for _ in range(7):
        state.apply(state.legal_actions()[0])
    data = json.loads(state.to_json(key))
    data["game"] = "four-color-cards"
    old = resign(data, key)
    for loaded in (fourcards.load(old, key), game.from_json(old, key)):
        assert fingerprint(loaded) == fingerprint(state)
        assert json.loads(loaded.to_json(key))["game"] == "four-color"
    data["game"] = "four-pack"
    with pytest.raises(InvalidStateError, match="saved match is of 'four-pack', not 'four-color'"):
        game.from_json(resign(data, key), key)


def test_former_names_must_be_a_tuple_of_names() -> None:
    """A game that wrote ``former_names = "old-name"`` would have taken any part of it
    (``"old"``) as its name in a save: refused when the class is made."""
    from fourcards.fourcolor.game import FourColor

    for bad in ("old-name", ["old-name"], (1,)):
        with pytest.raises(InvalidTypeError, match="former_names must be a tuple of names"):
            type("Renamed", (FourColor,), {"former_names": bad})
    renamed: Any = type("Renamed", (FourColor,), {"former_names": ("old-name",)})
    assert renamed.former_names == ("old-name",)
