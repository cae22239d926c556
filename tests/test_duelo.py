"""Duelo: the rules, ties, the contract, bots."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fourcards import IllegalMoveError, InvalidRulesError
from fourcards.decks import CARD_IDS, load_deck, parse_deck
from fourcards.duelo import CategoryBot, Choose, Duelo, Eliminated, HandPlayed, RandomBot, Rules
from fourcards.duelo.bots import own_pile_cards
from fourcards.duelo.game import DueloState
from fourcards.engine import play_match

DECK = load_deck()
Z = DECK.category_index("atomic_number")


def code(card: str) -> int:
    return CARD_IDS.index(card)


def position(piles: list[str], current: int = 0, **rules: Any) -> DueloState:
    """Piles (top first) as text; seat 0 received cards first."""
    return Duelo(players=len(piles), **rules).from_position(piles=piles, current=current, first=0)


def accounted(state: DueloState) -> bool:
    cards = [c for pile in state._piles for c in pile] + state._table
    return sorted(cards) == list(range(32))


def test_deal_piles_and_the_first_caller() -> None:
    s = Duelo(players=3).new_match(6)
    dealt = s.history[0]
    assert s.pile_sizes in ((11, 11, 10), (11, 10, 11), (10, 11, 11)) and accounted(s)
    assert s.current_player == (dealt.dealer + 1) % 3
    obs = s.observation(0)
    assert obs.top_card == s.pile(0)[0] and str(obs.categories[Z]) == "atomic_number"


def test_the_highest_value_wins_the_top_cards_in_order() -> None:
    # A1 Li (3), H4 Xe (54), C3 Ga (31): Xe has the highest atomic number.
    s = position(["A1 B1", "H4 B2", "C3 B3"], current=0)
    record = s.choose("atomic_number")
    assert isinstance(record, HandPlayed) and record.winner == 1
    assert tuple(map(str, s.pile(1))) == ("B2", "H4", "C3", "A1")  # own card first, then in turn order from the winner
    assert s.current_player == 1 and s.pile_sizes == (1, 4, 1)


def test_lower_wins_categories(tmp_path: Path) -> None:
    data = json.loads(resources.files("fourcards.decks").joinpath("elements.json").read_text())
    for category in data["categories"]:
        category["higher_wins"] = False
    deck = parse_deck(data)
    s = Duelo(players=2, deck=deck).from_position(piles=["A1 B1", "H4 B2"], current=0)
    assert s.choose("atomic_number").winner == 0  # type: ignore[union-attr]


def test_a_tie_puts_the_cards_on_the_table_and_the_tied_play_on() -> None:
    # A1 and A1 cannot tie with a single deck: tie on "isotopes" instead.
    values = {c.id: c.value("isotopes") for c in DECK.cards}
    pairs = [(a, b) for a in CARD_IDS for b in CARD_IDS if a < b and values[a] == values[b]]
    a, b = pairs[0]
    low = min(CARD_IDS, key=lambda c: values[c])
    assert values[low] < values[a]
    rest = [c for c in CARD_IDS if c not in (a, b, low)]
    s = position([f"{low} {rest[0]}", f"{a} {rest[1]} {rest[2]}", f"{b} {rest[3]}"], current=0)
    record = s.choose("isotopes")
    assert record.winner == -1 and record.tied == (1, 2) and record.table == 3  # type: ignore[union-attr]
    assert tuple(map(str, s.table)) == (low, a, b) and s.observation(0).contenders == (1, 2)
    assert s.current_player == 1  # the tied player who received cards first
    second = s.choose("atomic_number")
    assert second.winner in (1, 2)  # type: ignore[union-attr]
    assert len(s.table) == 0 and accounted_partial(s)


def accounted_partial(state: DueloState) -> bool:
    cards = [c for pile in state._piles for c in pile] + state._table
    return len(cards) == len(set(cards))


def test_elimination_and_the_end() -> None:
    s = position(["A1", "H4 B2"], current=0)
    s.choose("atomic_number")
    assert any(isinstance(r, Eliminated) and r.player == 0 for r in s.history)
    assert s.is_terminal and s.winners == (1,) and not s.is_draw


def test_tied_players_running_out() -> None:
    values = {c.id: c.value("isotopes") for c in DECK.cards}
    a, b = next((x, y) for x in CARD_IDS for y in CARD_IDS if x < y and values[x] == values[y])
    s = position([a, b], current=0)
    s.choose("isotopes")
    assert s.is_terminal and s.is_draw and s.winners == () and tuple(map(str, s.table)) == (a, b)
    low = min((c for c in CARD_IDS if c not in (a, b)), key=lambda c: values[c])
    spare = next(c for c in CARD_IDS if c not in (a, b, low))
    t = position([a, b, f"{low} {spare}"], current=0)
    t.choose("isotopes")  # both tied players run out: the player left takes the table
    assert t.is_terminal and t.winners == (2,) and t.pile_sizes == (0, 0, 4)


def test_hand_limit_is_a_draw() -> None:
    s = Duelo(players=2, hand_limit=3).new_match(4)
    while not s.is_terminal:
        s.apply(0)
    assert s.is_draw and len(s.actions) == 3


def test_errors_and_rules() -> None:
    s = Duelo().new_match(2)
    with pytest.raises(IllegalMoveError, match="not an action"):
        s.apply(9)
    with pytest.raises(Exception, match="not a category of"):
        s.apply(Choose("colour"))
    with pytest.raises(InvalidRulesError):
        Rules(players=1)
    assert s.actions == ()


def test_observation_shows_only_the_own_top_card() -> None:
    s = Duelo(players=3).new_match(7)
    s.apply(0)
    obs = s.observation(2)
    t = s.clone()
    t._piles[0][1], t._piles[1][1] = t._piles[1][1], t._piles[0][1]  # hidden cards under the tops
    assert t.observation(2) == obs
    assert np.array_equal(t.observation_tensor(2), s.observation_tensor(2))
    assert s.observation_tensor(2).shape == (s.game.observation_size,)


def test_category_bot_and_its_memory() -> None:
    s = position(["A1 B1", "H4 B2"], current=1)
    s.choose("atomic_number")  # seat 1 wins A1 and H4
    obs = s.observation(1)
    assert own_pile_cards(obs) == {code("H4"), code("A1")}
    bot = CategoryBot()
    action = bot.choose(obs, s.legal_actions())
    assert 0 <= action < len(DECK.categories)
    state = play_match(Duelo(players=2).new_match(3), [CategoryBot(), RandomBot(2)])
    assert state.is_terminal


@pytest.mark.parametrize("players", [9, 16, 32])
def test_as_many_players_as_the_deck_can_deal(players: int) -> None:
    """Seed 004: "Participantes: 2 o más." and "El mazo de 32 naipes es repartido en su
    totalidad": up to 32 players, each dealt one card at least; a 33rd would be dealt none
    (eliminated before the first hand) and is refused."""
    from fourcards.duelo.game import MAX_PLAYERS

    game = Duelo(players=players)
    state = game.new_match(players)
    assert all(len(pile) >= 1 for pile in state._piles) and sum(len(p) for p in state._piles) == 32
    final = play_match(state, [CategoryBot(deck=game.deck) if p % 2 else RandomBot(p) for p in range(players)])
    assert final.is_terminal
    assert final.observation_tensor(0).shape == (game.observation_size,)
    assert game.observation_size == 32 + len(game.deck.categories) + 3 * players + 2
    assert MAX_PLAYERS == 32 and Duelo(players=8).observation_size == 32 + len(game.deck.categories) + 26
    with pytest.raises(InvalidRulesError, match="from 2 to 32"):
        Duelo(players=33)
