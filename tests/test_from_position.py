"""``Game.from_position``: positions of every game, played on, saved and loaded,
compared with the same position reached by play; and every bad input refused
with a FourCardsError that names it."""

from __future__ import annotations

from dataclasses import replace

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fourcards import FourCardsError, ImpossibleCardsError, InvalidCardError, InvalidComboError, InvalidStateError
from fourcards.decks import CARD_IDS
from fourcards.duelo import Duelo
from fourcards.engine import Game, State, _digest
from fourcards.fourcolor import FourColor
from fourcards.fourcolor import _deck as fc_deck
from fourcards.fourpack import FourPack
from fourcards.gangoffour import GangOfFour
from fourcards.gangoffour import _deck as gof_deck
from fourcards.gangoffour.match import Played
from fourcards.zangle import KINDS as ZANGLE_KINDS
from fourcards.zangle import ZangleGame

# -- what every position must support -------------------------------------------------------


def exercise(state: State[Any], steps: int = 6, seed: int = 0) -> None:
    """The contract holds: a save round-trips, a clone is independent, and play goes on."""
    game = state.game
    loaded = game.from_json(state.to_json())
    assert loaded == state and loaded.summary() == state.summary() and loaded.setup == state.setup
    assert loaded.legal_actions() == state.legal_actions()
    seats = range(game.num_players)
    assert [loaded.observation(p) for p in seats] == [state.observation(p) for p in seats]
    assert all((loaded.observation_tensor(p) == state.observation_tensor(p)).all() for p in seats)
    # the canonical position reads back to itself
    again = game.new_match(state.seed, **state.setup)
    assert again.setup == state.setup
    clone = state.clone()
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        action = rng.choice(state.legal_actions())
        state.apply(action)
        loaded.apply(action)
    assert clone.actions == () and loaded.summary() == state.summary()
    assert game.from_json(state.to_json()).summary() == state.summary()


def test_the_base_game_refuses_positions() -> None:
    with pytest.raises(FourCardsError, match="cannot be set up from a position"):
        Game.from_position(GangOfFour())


# -- Gang of Four ----------------------------------------------------------------------------

def test_gang_of_four_position_plays_on() -> None:
    game = GangOfFour()
    state = game.from_position(hands=["G2 Y2 R5", "Y9 Y9", "RD", "M1 G3"], current=1, table="R8", table_player=0,
                               totals=[3, 10, 0, 7], round=2, seed=5)
    assert state.round == 2 and state.direction == -1 and state.scores == (3, 10, 0, 7)
    assert state.table is not None and str(state.table) == "R8" and state.table_player == 0
    # round 2 goes clockwise (0 -> 3 -> 2 -> 1): after seat 0's R8, seats 3 and 2 passed
    assert state.observation(1).passed == (False, False, True, True)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["Y9", "pass"]
    assert state.observation(0).announced == (False, False, True, False)
    exercise(state)


def test_gang_of_four_round_one_opens_with_m1() -> None:
    state = GangOfFour(players=3).from_position(hands=["G2 M1 G1", "Y3", "R4 R4"], current=0)
    assert state.observation(0).must_lead_m1
    assert all("M1" in state.action_to_string(a) for a in state.legal_actions())
    with pytest.raises(InvalidStateError, match="round 1 opens with seat 0, who holds M1"):
        GangOfFour(players=3).from_position(hands=["G2 M1 G1", "Y3", "R4 R4"], current=1)
    # nobody holds M1: the seat after the dealer (seat 2) opens
    assert GangOfFour(players=3).from_position(hands=["G2", "Y3", "R4"], current=0).current_player == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gang_of_four_position_equals_the_one_reached_by_play(seed: int) -> None:
    game = GangOfFour()
    played = game.new_match(seed)
    rng = random.Random(seed)
    while True:  # play on in round 1 until the table holds a combination again, some plays in
        played.apply(rng.choice(played.legal_actions()))
        if played.round == 1 and played.table is not None and len(played.actions) > 6:
            break
    obs = played.observation(0)
    state = game.from_position(
        hands=[played.hand(p) for p in range(4)], current=played.current_player,
        table=played.table, table_player=played.table_player,
        passed=[p for p in range(4) if obs.passed[p]], played=obs.played,
        announced=[p for p in range(4) if obs.announced[p]], totals=list(played.scores), round=played.round,
        dealer=obs.dealer,
    )
    for _ in range(40):  # the same play from both, to the end of the round
        assert state.legal_actions() == played.legal_actions()
        assert [state.observation(p) for p in range(4)] == [played.observation(p) for p in range(4)]
        if played.round != 1:
            break
        action = rng.choice(played.legal_actions())
        assert state.apply(action) == played.apply(action)


# -- Four Color --------------------------------------------------------------------------------

def test_four_color_position_plays_on() -> None:
    game = FourColor(players=3, rounds=2)
    state = game.from_position(hands=["RC RC WA YS GS", "RH RN WA", "RC GG"], exposed=[[], ["YA YA YA"], ["WS GS RS"]],
                               discards="YC", stock="WE WE WH", totals=[5, -3, -2], round=2, current=0, seed=3)
    assert state.phase == "discard" and state.current_player == 0 and state.scores == (5, -3, -2)
    assert state.observation(2).exposed[1] == ((fc_deck.CODE_OF["YA"],) * 3,)
    assert state.card_count() == 5 + 3 + 2 + 3 + 3 + 1 + 3
    exercise(state, steps=12)


def test_four_color_position_equals_the_one_reached_by_play() -> None:
    game = FourColor()
    played = game.new_match(8)
    rng = random.Random(8)
    for _ in range(30):
        played.apply(rng.choice(played.legal_actions()))
    while played.phase != "discard":
        played.apply(rng.choice(played.legal_actions()))
    obs = played.observation(0)

    def text(counts: tuple[int, ...]) -> str:
        return " ".join(fc_deck.NAMES[k] for k in range(28) for _ in range(counts[k]))

    state = game.from_position(
        hands=[text(played.hand(p)) for p in range(4)], current=played.current_player,
        exposed=[[" ".join(fc_deck.NAMES[c] for c in meld) for meld in melds] for melds in obs.exposed],
        discards=" ".join(fc_deck.NAMES[c] for c in obs.discards),
        stock=" ".join(fc_deck.NAMES[c] for c in played._stock), totals=list(played.scores), round=obs.round)
    assert state.card_count() == played.card_count() == 112
    for _ in range(40):
        assert state.legal_actions() == played.legal_actions()
        # (the round's public records before the position are not part of it)
        assert [replace(state.observation(p), round_history=()) for p in range(4)] == \
            [replace(played.observation(p), round_history=()) for p in range(4)]
        if played.is_terminal or state.observation(0).round != obs.round:
            break
        action = rng.choice(played.legal_actions())
        state.apply(action)
        played.apply(action)


def test_four_color_only_generals_end_the_round_at_once() -> None:
    state = FourColor(players=2).from_position(hands=["RG YG", "WA"], stock="WS WS")
    assert state.history[0].winner == 0 and state.observation(0).round == 2


# -- Zangle --------------------------------------------------------------------------------------

def test_zangle_position_plays_on() -> None:
    game = ZangleGame(players=3, rounds=2)
    state = game.from_position(centre="4b 2 Z 3", cards=["1 5a 1 2", "5d 5d 1 1", "3 3 3 4c"],
                               piles=["1 2", "", "5c"], centre_pile="1 2 3 4a", totals=[4, 0, 2], hits=[1, 0, 0],
                               round=2, current=1, seed=9)
    assert state.current_player == 1 and state.scores == (4, 0, 2) and state.centre == ("4b", "2", "Z", "3")
    assert state.observation(0).piles == (2, 0, 1) and state.observation(0).hits == (1, 0, 0)
    exercise(state, steps=10)


def test_zangle_position_equals_the_one_reached_by_play() -> None:
    game = ZangleGame(players=3)
    played = game.new_match(4)
    rng = random.Random(4)
    for _ in range(5):
        played.apply(rng.choice(played.legal_actions()))
    obs = played.observation(0)
    state = game.from_position(
        centre=obs.centre, cards=list(obs.cards), piles=[[ZANGLE_KINDS[k] for k in p] for p in played._piles],
        centre_pile=[ZANGLE_KINDS[k] for k in played._centre_pile], current=played.current_player,
        totals=list(obs.totals), hits=list(obs.hits), round=obs.round)
    for _ in range(12):
        assert state.legal_actions() == played.legal_actions()
        if played.is_terminal or played.observation(0).round != obs.round:
            break
        assert state.observation(0).centre == played.observation(0).centre
        assert state.observation(0).cards == played.observation(0).cards
        action = rng.choice(played.legal_actions())
        state.apply(action)
        played.apply(action)


def test_zangle_solitaire_position() -> None:
    state = ZangleGame(mode="solitaire").from_position(centre="2 2 3 3", cards=["1 1 1 4a"], piles=["5a 5b"],
                                                       centre_pile="1 2", hits=[2])
    assert state.current_player == 0 and state.legal_actions()
    exercise(state)


# -- Four Pack and Duelo -------------------------------------------------------------------------

def test_four_pack_position_plays_on() -> None:
    state = FourPack(players=4).from_position(hands=["A1 A2 B1", "A3 C1 C2", "", "A4 B2 B3 B4 C3 C4"],
                                              families=["D", "E F", "G H", ""], current=1, seed=2)
    assert state.scores == (1, 2, 2, 0) and state.hand_sizes == (3, 3, 0, 6)
    assert all(a // 32 != 2 for a in state.legal_actions())  # seat 2 is out
    exercise(state, steps=20)


def test_four_pack_position_equals_the_one_reached_by_play() -> None:
    game = FourPack(players=3)
    played = game.new_match(3)
    rng = random.Random(3)
    for _ in range(10):
        played.apply(rng.choice(played.legal_actions()))
    state = game.from_position(
        hands=[[str(c) for c in played.hand(p)] for p in range(3)],
        families=[list(f) for f in played.observation(0).families_down], current=played.current_player)
    for _ in range(30):
        assert state.legal_actions() == played.legal_actions()
        assert [state.hand(p) for p in range(3)] == [played.hand(p) for p in range(3)]
        assert state.scores == played.scores and state.winners == played.winners
        if played.is_terminal:
            break
        action = rng.choice(played.legal_actions())
        state.apply(action)
        played.apply(action)


def test_duelo_position_plays_on() -> None:
    state = Duelo(players=3).from_position(piles=["A1 B1 C1", "H4 B2", "C3 B3 D1"], table="E1 E2",
                                           contenders=[0, 2], first=2, current=2, hands_played=4)
    assert state.observation(1).contenders == (0, 2) and len(state.table) == 2
    exercise(state, steps=8)


def test_duelo_position_equals_the_one_reached_by_play() -> None:
    game = Duelo(players=3)
    played = game.new_match(5)
    first = played.history[0].first
    for action in (0, 1, 2, 3):
        played.apply(action)
    obs = played.observation(0)
    state = game.from_position(piles=[[str(c) for c in played.pile(p)] for p in range(3)],
                               table=[str(c) for c in played.table], contenders=list(obs.contenders),
                               first=first, current=played.current_player, hands_played=4)
    for action in (4, 0, 2, 1, 3, 0, 0, 1):
        assert [state.pile(p) for p in range(3)] == [played.pile(p) for p in range(3)]
        assert state.current_player == played.current_player
        if played.is_terminal:
            break
        state.apply(action)
        played.apply(action)


# -- hostile input -------------------------------------------------------------------------------

GOF: dict[str, Any] = {"hands": ["G2 Y2", "R5", "M1 G3", "Y9 Y8"], "current": 2}
FC: dict[str, Any] = {"hands": ["RC WA", "RH RN", "RC"], "stock": "WS"}
ZANGLE: dict[str, Any] = {"centre": "4b 2 Z 3", "cards": ["1 5a 1", "5d 5d"]}
FOUR_PACK: dict[str, Any] = {"hands": ["A1 A2", "A3 B1", "A4"]}
DUELO: dict[str, Any] = {"piles": ["A1 B1", "H4 B2"]}
GAMES: dict[str, tuple[Callable[[], Game[Any]], dict[str, Any]]] = {
    "gang-of-four": (GangOfFour, GOF), "four-color": (lambda: FourColor(players=3), FC),
    "zangle": (lambda: ZangleGame(players=2), ZANGLE),
    "four-pack": (lambda: FourPack(players=3), FOUR_PACK), "duelo": (Duelo, DUELO),
}

BAD: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    # Gang of Four
    ("gang-of-four", {"hands": ["G2 G2 G2", "R5", "M1", "Y9"]},
     ImpossibleCardsError, r"hands\[0\]: 3 x G2 in 'G2 G2 G2'"),
    ("gang-of-four", {"hands": ["G2 G2", "R5", "M1 G2", "Y9"]},
     ImpossibleCardsError, r"G2 is placed 3 times \(hands\[0\] x2, hands\[2\]\)"),
    ("gang-of-four", {"hands": ["G2", "R5", "M1 G3", "Y9"]}, InvalidStateError, "leaves seat 2 no legal action"),
    ("gang-of-four", {"hands": ["RD", "R5", "M1 RD", "Y9"]},
     ImpossibleCardsError, r"RD is placed 2 times \(hands\[0\], hands\[2\]\)"),
    ("gang-of-four", {"hands": ["G2", "R5", "M1"]}, InvalidStateError, "hands lists 3 seats, but the game has 4"),
    ("gang-of-four", {"hands": "G2 R5 M1 Y9"}, InvalidStateError, "hands must be a list with one entry a seat"),
    ("gang-of-four", {"hands": ["G2", "R5", "M1", "Q9"]}, InvalidCardError, r"hands\[3\]: 'Q9'"),
    ("gang-of-four", {"hands": ["G2", "R5", "M1", [7]]}, InvalidStateError, r"hands\[3\]: cards must be Card or str"),
    ("gang-of-four", {"hands": ["G2", "", "M1", "Y9"]}, InvalidStateError, r"hands\[1\] holds 0 cards"),
    ("gang-of-four", {"current": 4}, InvalidStateError, "current=4 is not a seat"),
    ("gang-of-four", {"current": True}, InvalidStateError, "current must be a seat"),
    ("gang-of-four", {"current": 0}, InvalidStateError, "round 1 opens with seat 2, who holds M1"),
    ("gang-of-four", {"table": "G3 Y5", "table_player": 0}, InvalidComboError, "table: 'G3 Y5' is not a combination"),
    ("gang-of-four", {"table": "G3"}, InvalidStateError, "table_player is required"),
    ("gang-of-four", {"table_player": 1}, InvalidStateError, "table_player=1 without a table"),
    ("gang-of-four", {"table": "G3", "table_player": 2}, InvalidStateError, "table_player=2 is current"),
    ("gang-of-four", {"table": "M1", "table_player": 1},
     ImpossibleCardsError, r"M1 is placed 2 times \(hands\[2\], played\)"),
    ("gang-of-four", {"table": "G3", "table_player": 1, "played": "G4"},
     InvalidStateError, "played .* lacks the table's cards"),
    ("gang-of-four", {"table": "G3", "table_player": 0, "passed": [3]},
     InvalidStateError, r"passed=\[3\]: after seat 0's play, seats \[1\]"),
    ("gang-of-four", {"table": "G3", "table_player": 0, "passed": [1, 1]},
     InvalidStateError, "passed names a seat twice"),
    ("gang-of-four", {"passed": [1]}, InvalidStateError, "without a table"),
    ("gang-of-four", {"announced": [0]}, InvalidStateError, "without manual_last_card"),
    ("gang-of-four", {"totals": [0, 0, 100, 0]}, InvalidStateError, "reach the target score 100: the match is over"),
    ("gang-of-four", {"totals": [0, -1, 0, 0]}, InvalidStateError, r"totals\[1\]=-1 must be at least 0"),
    ("gang-of-four", {"round": 0}, InvalidStateError, "round=0 must be at least 1"),
    ("gang-of-four", {"round": 1.5}, InvalidStateError, "round must be an int"),
    ("gang-of-four", {"dealer": -1}, InvalidStateError, "dealer=-1 is not a seat"),
    ("gang-of-four", {"hand": "G2"}, InvalidStateError, "Gang of Four positions have no hand: they take hands"),
    ("gang-of-four", {"hands": None}, InvalidStateError, "hands is required"),
    # Four Color
    ("four-color", {"hands": ["RC RC RC", "RC", "RC"]},
     ImpossibleCardsError, r"RC is placed 5 times \(hands\[0\] x3, hands\[1\], hands\[2\]\)"),
    ("four-color", {"stock": "WA WA WA WA"}, ImpossibleCardsError, r"WA is placed 5 times \(hands\[0\], stock x4\)"),
    ("four-color", {"exposed": [["RC RH"], [], []]}, InvalidComboError, r"exposed\[0\]\[0\]: 'RC RH' is not a meld"),
    ("four-color", {"exposed": [["RC RC RC", "RC"], [], []]}, InvalidComboError, r"exposed\[0\]\[1\]"),
    ("four-color", {"exposed": ["RC RC RC", [], []]}, InvalidStateError, r"exposed\[0\] must be a list of melds"),
    ("four-color", {"exposed": [[], []]}, InvalidStateError, "exposed lists 2 seats"),
    ("four-color", {"hands": ["RC XX", "RH", "RC"]}, InvalidCardError, r"hands\[0\]: 'XX' is not a card"),
    ("four-color", {"discards": 12}, InvalidStateError, "discards: "),
    ("four-color", {"round": 4}, InvalidStateError, "round=4 must be from 1 to 3"),
    ("four-color", {"totals": [1, 2, "3"]}, InvalidStateError, r"totals\[2\] must be an int"),
    ("four-color", {"current": 3}, InvalidStateError, "current=3 is not a seat: seats are 0..2"),
    ("four-color", {"hands": ["RC " * 22, "RH", "RC"]},
     InvalidStateError, r"hands\[0\] holds 22 cards: a hand holds at most 21"),
    # Zangle
    ("zangle", {"centre_pile": "Z Z Z Z Z"}, ImpossibleCardsError, r"Z is placed 6 times \(centre, centre_pile x5\)"),
    ("zangle", {"centre": "1 2 3 4a 4b"}, InvalidStateError, "centre holds 5 cards"),
    ("zangle", {"centre": "1 2", "centre_pile": "1"},
     InvalidStateError, "centre holds 2 cards: 4 while the centre draw pile"),
    ("zangle", {"piles": ["5a", ""]}, InvalidStateError, r"cards\[0\] holds 3 cards while piles\[0\] holds 1"),
    ("zangle", {"cards": ["1 5a 6", "5d"]}, InvalidCardError, r"cards\[0\]: '6' is not a Zangle card"),
    ("zangle", {"cards": ["1", "2", "3"]}, InvalidStateError, "cards lists 3 seats, but the game has 2"),
    ("zangle", {"cards": [[1.5], "2"]}, InvalidStateError, r"cards\[0\]: a Zangle card is a notation"),
    ("zangle", {"round": 4}, InvalidStateError, "round=4 must be from 1 to 3"),
    ("zangle", {"hits": [0, -2]}, InvalidStateError, r"hits\[1\]=-2"),
    ("zangle", {"current": 2}, InvalidStateError, "current=2 is not a seat"),
    ("zangle", {"bonus": True}, InvalidStateError, "Zangle positions have no bonus"),
    # Four Pack
    ("four-pack", {"hands": ["A1 A2", "A3 A1", "A4"]},
     ImpossibleCardsError, r"A1 is placed 2 times \(hands\[0\], hands\[1\]\)"),
    ("four-pack", {"families": ["", "A", ""]},
     ImpossibleCardsError, r"A1 is placed 2 times \(hands\[0\], families\[1\]\)"),
    ("four-pack", {"families": ["B", "B", ""]},
     ImpossibleCardsError, r"B1 is placed 3 times \(hands\[1\], families\[0\], families\[1\]\)"),
    ("four-pack", {"families": ["Q", "", ""]}, InvalidStateError, r"families\[0\]: 'Q' is not a family"),
    ("four-pack", {"hands": ["A1 A2 A3 A4", "B1", "B2"]}, InvalidStateError, r"hands\[0\] holds all of family A"),
    ("four-pack", {"hands": ["A1 A2", "A3 B1", "Z9"]}, FourCardsError, r"hands\[2\]: 'Z9' is not a card"),
    ("four-pack", {"hands": ["A1 A2", "", ""]}, InvalidStateError, "only one seat holds cards"),
    ("four-pack", {"current": 1, "hands": ["A1 A2", "", "A3"]}, InvalidStateError, "current=1 holds no cards"),
    ("four-pack", {"hands": ["", "", ""], "families": ["A B C", "D E F", "G H"]},
     InvalidStateError, "every family is laid down"),
    ("four-pack", {"hands": [["A1", 3], "A3", "A4"]}, FourCardsError, r"hands\[0\]: 3 is not a card"),
    # Duelo
    ("duelo", {"piles": ["A1 B1", "A1"]}, ImpossibleCardsError, r"A1 is placed 2 times \(piles\[0\], piles\[1\]\)"),
    ("duelo", {"table": "B2"}, ImpossibleCardsError, r"B2 is placed 2 times \(piles\[1\], table\)"),
    ("duelo", {"piles": ["A1 B1", ""]}, InvalidStateError, "1 seat"),
    ("duelo", {"piles": ["A1 B1", "H4 B2", "C1"]}, InvalidStateError, "piles lists 3 seats"),
    ("duelo", {"contenders": [0]}, InvalidStateError, r"contenders=\[0\]: with no cards on the table"),
    ("duelo", {"table": "C1", "contenders": [0]}, InvalidStateError, "a lone contender takes the table"),
    ("duelo", {"table": "C1", "current": 1, "first": 0}, InvalidStateError, "after a tie seat 0"),
    ("duelo", {"hands_played": 10_000}, InvalidStateError, "hands_played=10000 must be from 0 to 9999"),
    ("duelo", {"first": "0"}, InvalidStateError, "first must be a seat"),
]


@pytest.mark.parametrize("name, changes, error, message", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_bad_positions_are_refused_naming_the_input(name: str, changes: dict[str, Any], error: type[Exception],
                                                    message: str) -> None:
    make, base = GAMES[name]
    game = make()
    with pytest.raises(error, match=message) as info:
        game.from_position(**{**base, **changes})
    assert isinstance(info.value, FourCardsError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_valid_base_positions_play(name: str) -> None:
    make, base = GAMES[name]
    state = make().from_position(**base)
    assert not state.is_terminal and state.legal_actions()


VOCABULARY = list(gof_deck.NAMES) + list(fc_deck.NAMES) + list(ZANGLE_KINDS) + list(CARD_IDS) + list("ABCDEFGH")
JUNK = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 40) | st.floats(allow_nan=False) | st.text(max_size=6)
    | st.sampled_from(VOCABULARY) | st.lists(st.sampled_from(VOCABULARY), max_size=6).map(" ".join),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=2), inner,
                                                                                            max_size=2),
    max_leaves=12,
)
KEYWORDS = {
    "gang-of-four": ["hands", "current", "table", "table_player", "passed", "played", "announced", "totals", "round",
                     "dealer"],
    "four-color": ["hands", "current", "exposed", "discards", "stock", "totals", "round"],
    "zangle": ["centre", "cards", "piles", "centre_pile", "current", "totals", "hits", "round"],
    "four-pack": ["hands", "families", "current"],
    "duelo": ["piles", "current", "table", "contenders", "first", "hands_played"],
}


@given(name=st.sampled_from(sorted(GAMES)), data=st.data())
def test_any_input_is_a_position_or_a_fourcards_error(name: str, data: st.DataObject) -> None:
    make, base = GAMES[name]
    game = make()
    changes = data.draw(st.dictionaries(st.sampled_from(KEYWORDS[name]), JUNK, min_size=1, max_size=3))
    try:
        state = game.from_position(**{**base, **changes})
    except FourCardsError as error:
        assert str(error)
        return
    # whatever was accepted is a whole position: it saves, loads and plays
    assert game.from_json(state.to_json()).summary() == state.summary()
    if not state.is_terminal:
        assert state.legal_actions()


def test_a_saved_position_edited_is_refused() -> None:
    state = GangOfFour().from_position(**GOF)
    body = json.loads(state.to_json())
    body["setup"]["position"]["hands"][0] = "G2 G2 G2"
    body["digest"] = _digest(body)
    with pytest.raises(InvalidStateError, match=r"does not replay: hands\[0\]: 3 x G2"):
        GangOfFour().from_json(json.dumps(body))


def test_positions_record_no_history_and_start_the_action_count() -> None:
    state = GangOfFour().from_position(**GOF)
    assert state.history == () and state.actions == () and state.step == 0
    record = state.apply(state.legal_actions()[0])
    assert isinstance(record, Played) and state.step == 1
