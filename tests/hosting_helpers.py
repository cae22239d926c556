"""Helpers of the save, error-code and hosting tests: the plug-in of ``tests/plugin/``
installed as pip would, rule options of every game (decks included), random play, and
twins of a match that differ only in what one seat may not see."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from fourcards.decks import shipped_deck
from fourcards.engine import State
from fourcards.games import GAMES, GameEntry, get_game, load_plugins, register, unregister

from .test_plugin_game import install

PLUGIN_SOURCE = Path(__file__).parent / "plugin" / "fourcards_highcard.py"
PLUGIN = "high-card"
BUILTIN = ("gang-of-four", "four-color", "zangle", "four-pack", "duelo")


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The plug-in of ``tests/plugin/`` installed (a module and its entry point) and
    registered for the tests of a module; its game's name."""
    folder = install(tmp_path_factory.mktemp("site"), "fourcards_highcard", {PLUGIN: "fourcards_highcard:ENTRY"},
                     PLUGIN_SOURCE)
    sys.path.insert(0, str(folder))
    try:
        assert PLUGIN in load_plugins() or PLUGIN in GAMES
        yield PLUGIN
    finally:
        if PLUGIN in GAMES:
            unregister(PLUGIN)
        sys.path.remove(str(folder))
        sys.modules.pop("fourcards_highcard", None)


def at_once(calls: list[Callable[[], Any]], timeout: float = 120) -> list[Any]:
    """Run the calls in threads that start together: each one's result, or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = calls[index]()
        except Exception as error:  # kept: the test looks at what each call got
            results[index] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return results


def custom_deck() -> dict[str, Any]:
    """A deck of the shipped deck's cards with other names, values and directions (as JSON data)."""
    data = shipped_deck().as_data()
    data["name"] = "Test deck"
    data["source"] = "the tests"
    data["categories"][0]["higher_wins"] = not data["categories"][0]["higher_wins"]
    data["cards"][3]["name"] = "Renamed"
    data["cards"][5]["values"][data["categories"][1]["id"]] = 123.5
    return data


#: Rule options of every game: the defaults, other values of every option, a deck of one's own.
RULES: dict[str, list[dict[str, Any]]] = {
    "gang-of-four": [{}, {"players": 2, "target_score": 30}, {"players": 3, "dealer": 0, "pass_is_final": True},
                     {"manual_last_card": True, "last_card_may_pass": True, "chinese_dealing": True}],
    "four-color": [{}, {"players": 2, "threshold": 0, "rounds": 1}, {"players": 3, "lucky_rank_only": True}],
    "zangle": [{}, {"players": 2, "rounds": 1, "dealer": 1}, {"mode": "solitaire"},
               {"players": 4, "deck": [["1", 24], ["2", 16], ["3", 20], ["4a", 6], ["4b", 8], ["4c", 8],
                                      ["5a", 8], ["5b", 8], ["5c", 8], ["5d", 8], ["Z", 6]]}],
    "four-pack": [{}, {"players": 3, "must_hold_family": True, "max_asks": 40}, {"deck": custom_deck()}],
    "duelo": [{}, {"players": 3, "hand_limit": 20}, {"players": 2, "deck": custom_deck()}],
    PLUGIN: [{}, {"players": 3, "hand_size": 5}],
}


def all_rules(names: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    """``(game, rules)`` for every game named and each of its rule sets."""
    return [(name, rules) for name in names for rules in RULES[name]]


def play(state: State[Any], rng: random.Random, steps: int) -> State[Any]:
    """``state`` after up to ``steps`` random legal actions (fewer when it ends)."""
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


def new_state(name: str, rules: dict[str, Any], seed: int) -> State[Any]:
    state: State[Any] = get_game(name).new_game(**rules).new_match(seed)
    return state


# -- twins: the same match but for cards one seat may not see ----------------------------------------------

def _bits(mask: int) -> list[int]:
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


def hidden_twin(state: State[Any], seat: int, rng: random.Random) -> State[Any] | None:
    """A copy of a match **at its start** (nothing shown yet) whose cards hidden from
    ``seat`` are dealt otherwise (two of them traded between the other seats, or with
    the stock); None when there is nothing to trade. Private slots are read: a test's
    knowledge of each game."""
    assert state.step == 0
    twin = state.clone()
    name = get_game(state.game.name).name
    n = state.game.num_players
    others = [p for p in range(n) if p != seat]
    if name == "gang-of-four":  # hands are canonical card masks (two copies of a coloured card)
        from fourcards.gangoffour.cards import hand_mask, mask_cards

        if len(others) < 2:
            return None
        a, b = rng.sample(others, 2)
        hands = twin._hands  # type: ignore[attr-defined]
        cards_a, cards_b = list(mask_cards(hands[a])), list(mask_cards(hands[b]))
        pairs = [(i, j) for i, x in enumerate(cards_a) for j, y in enumerate(cards_b) if x != y]
        if not pairs:
            return None
        i, j = rng.choice(pairs)
        cards_a[i], cards_b[j] = cards_b[j], cards_a[i]
        hands[a], hands[b] = hand_mask(cards_a), hand_mask(cards_b)
        return twin
    if name == "four-pack":  # hands are masks of the 32 cards
        if len(others) < 2:
            return None
        a, b = rng.sample(others, 2)
        hands = twin._hands  # type: ignore[attr-defined]
        only_a = [c for c in _bits(hands[a]) if not hands[b] >> c & 1]
        only_b = [c for c in _bits(hands[b]) if not hands[a] >> c & 1]
        if not only_a or not only_b:
            return None
        x, y = rng.choice(only_a), rng.choice(only_b)
        hands[a] = hands[a] ^ (1 << x) ^ (1 << y)
        hands[b] = hands[b] ^ (1 << x) ^ (1 << y)
        return twin
    if name == "four-color":  # hands are counts by kind; the stock is hidden from all
        hands, stock = twin._hands, twin._stock  # type: ignore[attr-defined]
        other = rng.choice(others)
        kinds = [k for k, count in enumerate(hands[other]) if count]
        swaps = [(k, i) for k in kinds for i, card in enumerate(stock) if card != k]
        if not swaps:
            return None
        kind, index = rng.choice(swaps)
        hands[other][kind] -= 1
        hands[other][stock[index]] += 1
        stock[index] = kind
        return twin
    if name == "duelo":  # piles, top card first: the cards under the tops are hidden
        piles = twin._piles  # type: ignore[attr-defined]
        under = [(p, i) for p in others for i in range(1, len(piles[p]))]
        if len(under) < 2:
            return None
        (p, i), (q, j) = rng.sample(under, 2)
        piles[p][i], piles[q][j] = piles[q][j], piles[p][i]
        return twin
    if name == "zangle":  # every card is face up; the order of the centre pile is hidden
        pile = twin._centre_pile  # type: ignore[attr-defined]
        pairs = [(i, j) for i in range(len(pile)) for j in range(i + 1, len(pile)) if pile[i] != pile[j]]
        if not pairs:
            return None
        i, j = rng.choice(pairs)
        pile[i], pile[j] = pile[j], pile[i]
        return twin
    if name == PLUGIN:  # hands are lists of card codes
        if len(others) < 2:
            return None
        a, b = rng.sample(others, 2)
        hands = twin._hands  # type: ignore[attr-defined]
        i, j = rng.randrange(len(hands[a])), rng.randrange(len(hands[b]))
        hands[a][i], hands[b][j] = hands[b][j], hands[a][i]
        return twin
    raise AssertionError(name)


# -- bots a host makes again for each turn ---------------------------------------------------------------

class CountingBot:
    """Remembers how many decisions it took: its memory, handed over to the host. It plays
    the first legal action (``last``: the last)."""

    def __init__(self, last: bool = False) -> None:
        self.decisions, self.last = 0, last

    def choose(self, observation: Any, legal_actions: Any) -> int:
        self.decisions += 1
        return int(legal_actions[-1 if self.last else 0])

    def save_memory(self) -> dict[str, int]:
        return {"decisions": self.decisions}

    def load_memory(self, data: dict[str, int]) -> None:
        self.decisions = data["decisions"]


class ForgetfulBot:
    """Says nothing of its memory: no host may make it again for each turn."""

    def choose(self, observation: Any, legal_actions: Any) -> int:
        return int(legal_actions[0])


@contextmanager
def counting_game(name: str, last: bool = False) -> Iterator[GameEntry]:
    """A plug-in game (the plug-in's ends-pick rules) registered as ``name`` while in use, with
    bots ``counting`` (:class:`CountingBot`, its best), ``forgetful`` and ``random``."""
    from fourcards.bots import RandomBot

    from .plugin_game import EndsPick

    class Counting(EndsPick):
        pass

    Counting.name = name
    entry = GameEntry(name, "Counting Ends", Counting,
                      {"random": lambda game, seed, options: RandomBot(seed),
                       "counting": lambda game, seed, options: CountingBot(last),
                       "forgetful": lambda game, seed, options: ForgetfulBot()}, best_bot="counting")
    register(entry)
    try:
        yield entry
    finally:
        unregister(entry.name)
