"""The costs around the bots: the tables a rule set needs are built once a process
and shared read-only (so a game's constructor is cheap after the first), and a
tournament builds one game for its rule set and hands it to every bot. The
timings themselves are in ``benchmarks/bench_costs.py`` (no timing assertions here)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from fourcards import tournament
from fourcards.decks import load_deck
from fourcards.duelo.game import Duelo
from fourcards.fourpack.game import FourPack
from fourcards.games import GameEntry
from fourcards.zangle.game import ZangleGame, action_tables


def test_zangle_games_share_their_action_tables() -> None:
    first, second = ZangleGame(), ZangleGame(players=2)
    assert first.actions is second.actions and first.index is second.index
    assert first.row_index is second.row_index
    solitaire = ZangleGame(mode="solitaire")
    assert solitaire.actions is first.actions  # the same number of Z cards: the same numbering
    fewer_z = ZangleGame(deck={"Z": 2, "1": 40, "2": 40, "3": 40})
    assert fewer_z.actions is not first.actions and len(fewer_z.actions) < len(first.actions)


def test_the_shared_tables_are_read_only() -> None:
    tables = action_tables(4)
    assert ZangleGame().actions is tables.actions
    assert isinstance(tables.actions, tuple)
    with pytest.raises(TypeError):
        tables.index[tables.actions[0]] = 5  # type: ignore[index]
    with pytest.raises(TypeError):
        tables.row_index[b""] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        tables.actions = ()  # type: ignore[misc]


def test_threads_building_the_tables_at_once_get_the_same_ones() -> None:
    z_max = 11  # no shipped deck has 11 Z cards: nobody built these tables before this test
    barrier = threading.Barrier(4)
    found: list[Any] = []

    def build() -> None:
        barrier.wait()
        found.append(action_tables(z_max))

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 4 and all(tables is found[0] for tables in found)
    assert found[0].index[found[0].actions[-1]] == len(found[0].actions) - 1


def test_the_shipped_deck_is_read_once() -> None:
    assert load_deck() is load_deck()
    assert FourPack().deck is Duelo(players=3).deck is load_deck()


def test_a_tournament_builds_one_game_for_its_rule_set_and_gives_it_to_every_bot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Any] = []
    given: list[Any] = []
    new_game, new_bot = GameEntry.new_game, GameEntry.new_bot

    def counting_new_game(self: GameEntry, **rules: Any) -> Any:
        game = new_game(self, **rules)
        built.append(game)
        return game

    def recording_new_bot(self: GameEntry, kind: str, game: Any, seed: int = 0, **options: Any) -> Any:
        given.append(game)
        return new_bot(self, kind, game, seed, **options)

    monkeypatch.setattr(GameEntry, "new_game", counting_new_game)
    monkeypatch.setattr(GameEntry, "new_bot", recording_new_bot)
    entrants = [tournament.Entrant("category")] * 3
    records = tournament.play_deals(entrants, [0, 1], seed=4, rules={"players": 3}, game_name="duelo")
    assert len(records) == 6 and len(built) == 1
    assert len(given) == 18 and all(game is built[0] for game in given)
    assert built[0].num_players == 3  # the bots play the tournament's rules, not the defaults



def test_a_zangle_game_pickles_as_its_rules_and_finds_the_shared_tables_again() -> None:
    import pickle

    game = ZangleGame(players=2, rounds=2)
    again = pickle.loads(pickle.dumps(game))
    assert again.rules == game.rules and again.actions is game.actions
