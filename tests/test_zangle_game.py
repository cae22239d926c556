"""Zangle games: turn style, solitaire, bonus rounds, and Speedster from many threads."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fourcards import FourCardsError, IllegalMoveError, InvalidRulesError
from fourcards.engine import play_match
from fourcards.zangle.bots import GreedyBot, RandomBot
from fourcards.zangle.cards import CENTRE, OWN, Zangle, find_zangles, kind_code, zangles_with_z_at_most
from fourcards.zangle.game import Hit, Made, RoundEnd, Rules, ZangleGame
from fourcards.zangle.speedster import SpeedsterBot, SpeedsterTable, run_speedster

pytestmark = pytest.mark.engine


def test_setup_and_refill_order() -> None:
    s = ZangleGame(players=3).new_match(2)
    assert len(s.centre) == 4 and all(len(c) == 4 for c in s.face_up)
    assert s.card_count() == 120 and [len(p) for p in s._piles] == [6, 6, 6]
    player = s.current_player
    action = s.legal_actions()[0]
    zangle = s.int_to_action(action)
    centre_pile = len(s._centre_pile)
    s.apply(action)
    used_centre = sum(zangle.uses(CENTRE).values())
    # the centre is refilled first, from the centre draw pile
    assert len(s._centre_pile) == max(0, centre_pile - used_centre) or len(s.centre) == 4
    assert isinstance(next(r for r in reversed(s.history) if isinstance(r, Made)), Made)
    assert s.card_count() == 120 and player != s.current_player or s.is_terminal


def test_hits_only_when_no_zangle_is_possible() -> None:
    s = ZangleGame(players=2).from_position(centre="4b 4b 4b 4b", cards=["5a 5a 5a 5a", "1 1 1 1"],
                                            centre_pile="3 3 5b", current=0)
    hits = [r for r in s.history if isinstance(r, Hit)]
    assert hits and hits[0].player == 0  # nothing fits: a hit was dealt automatically
    assert hits[0].card == "5b"  # the top of the centre draw pile (its last card)
    t = ZangleGame(players=2).new_match(1)
    assert t.legal_actions()  # a player with a Zangle is never dealt a hit
    before = len(t.history)
    t._begin_turn()
    assert not any(isinstance(r, Hit) for r in t.history[before:])


def test_solitaire() -> None:
    game = ZangleGame(mode="solitaire")
    assert game.num_players == 1
    state = play_match(game.new_match(3), [GreedyBot()])
    end = next(r for r in state.history if isinstance(r, RoundEnd))
    hits = sum(1 for r in state.history if isinstance(r, Hit))
    assert state.is_terminal and end.points[0] == state.scores[0]
    assert state.scores[0] == len(state._cards[0]) + len(state._piles[0]) + hits


def test_bonus_round_for_a_tie() -> None:
    # seat 2, the last to play, makes a Zangle with its last cards: every total ties at 0,
    # so a bonus round among all three
    s = ZangleGame(players=3, rounds=1).from_position(centre="2", cards=["", "", "1 1"], current=2, seed=5)
    s.apply("2(centre) = 1(own) + 1(own)")
    assert s._bonus
    assert all(len(s._cards[p]) == 4 for p in range(3)) and not any(s._piles)
    rng = random.Random(1)
    while not s.is_terminal:
        s.apply(rng.choice(s.legal_actions()))
    assert s.winners


def test_illegal_actions_change_nothing() -> None:
    s = ZangleGame(players=2).new_match(7)
    legal = set(s.legal_actions())
    bad = next(a for a in range(s.game.num_distinct_actions) if a not in legal)
    before = (s.summary(), s.face_up, s.centre)
    with pytest.raises(IllegalMoveError, match="not on the table"):
        s.apply(bad)
    with pytest.raises(IllegalMoveError):
        s.apply(10**6)
    assert (s.summary(), s.face_up, s.centre) == before
    with pytest.raises(InvalidRulesError):
        Rules(players=9)
    with pytest.raises(InvalidRulesError):
        Rules(mode="speedy")


def test_observations_and_greedy_bot() -> None:
    s = ZangleGame(players=3).new_match(11)
    obs = s.observation(s.current_player)
    assert len(obs.legal_zangles) == len(obs.legal_actions) > 0
    choice = GreedyBot().choose(obs, s.legal_actions())
    best = max(obs.legal_zangles, key=lambda z: (z.own_cards, z.cards))
    assert s.int_to_action(choice).own_cards == best.own_cards
    tensor = s.observation_tensor(0)
    assert tensor.shape == (s.game.observation_size,)
    wins = 0.0
    for seed in range(60):
        seat = seed % 3
        bots = [RandomBot(seed * 3 + p) for p in range(3)]
        bots[seat] = GreedyBot()  # type: ignore[call-overload]
        final = play_match(ZangleGame(players=3).new_match(seed), bots)
        wins += (seat in final.winners) / len(final.winners)
    assert wins / 60 > 0.4  # an even seat wins a third


# -- Speedster ------------------------------------------------------------------------------

def zangle_for(table: SpeedsterTable, seat: int) -> Zangle | None:
    snap = table.snapshot()
    found = find_zangles(list(snap.centre), list(snap.cards[seat]))
    return found[0] if found else None


def test_speedster_calls_hits_and_false_calls() -> None:
    table = SpeedsterTable(players=2, seed=4)
    assert table.card_count() == 120
    seat = next(s for s in range(2) if zangle_for(table, s) is not None)
    zangle = zangle_for(table, seat)
    assert zangle is not None
    table.submit_call(seat, zangle, 1.0)
    table.submit_hit(1 - seat, 0.5)
    outcomes = table.resolve(2.0)
    assert [o.kind for o in outcomes][:2] == ["hit", "zangle"]  # arrival order by timestamp
    bogus = Zangle(kind_code("5a"), CENTRE, ((kind_code("1"), OWN), (kind_code("1"), OWN)))
    pile = len(table.piles[seat])
    table.submit_call(seat, bogus, 3.0)
    assert table.resolve(3.0)[-1].kind == "false call"
    assert len(table.piles[seat]) == pile + 1  # the penalty card, at the bottom of their pile
    assert table.card_count() == 120
    with pytest.raises(FourCardsError, match="after the table resolved"):
        table.submit_hit(0, 1.0)
    with pytest.raises(FourCardsError):
        table.submit(5, "hit", 9.0)


def test_speedster_check_at_round_end_takes_zangles_on_trust() -> None:
    four_b, two = kind_code("4b"), kind_code("2")
    # 2 + 2 does not cover the big triangle 4b: a wrong Zangle whose cards are on the table
    wrong = Zangle(four_b, CENTRE, ((two, OWN), (two, OWN)))
    outcomes = {}
    for check in ("each", "at_round_end"):
        table = SpeedsterTable(players=2, seed=4, check=check)
        table.centre[0] = four_b
        table.cards[0] = [two, two]
        table.piles[0] = []
        table.submit_call(0, wrong, 1.0)
        outcomes[check] = [o.kind for o in table.resolve(1.0)]
        if check == "at_round_end":
            # seat 0 went out (round winner) with a wrong Zangle: it scores 5, everyone else 0
            assert outcomes[check][:2] == ["zangle", "round end"]
            assert table.totals == [5, 0] and table.levels == [0, 0]
    assert outcomes["each"][0] == "false call"


def test_speedster_from_many_threads_matches_one_thread() -> None:
    def events(table: SpeedsterTable) -> list[tuple[int, float]]:
        return [(p, 0.1 * k + 0.01 * p) for k in range(30) for p in range(3)]

    def drive(threaded: bool) -> tuple[list[int], list[str]]:
        table = SpeedsterTable(players=3, seed=9)
        work = events(table)
        if threaded:
            chunks = [work[i::3] for i in range(3)]
            def deliver(chunk: list[tuple[int, float]]) -> None:
                for p, when in chunk:
                    table.submit_hit(p, when)

            threads = [threading.Thread(target=deliver, args=(c,)) for c in chunks]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        else:
            for p, when in work:
                table.submit_hit(p, when)
        table.resolve()
        return table.totals, [o.kind + str(o.player) for o in table.outcomes]

    assert drive(True) == drive(False)


def test_speedster_games_end_with_equalizers() -> None:
    table = run_speedster(SpeedsterTable(players=3, seed=2), [SpeedsterBot(0, 0.2), SpeedsterBot(1, 0.4),
                                                               SpeedsterBot(2, 0.6)])
    ends = [o for o in table.outcomes if o.kind == "round end"]
    assert table.over and len(ends) >= 5 and sum(table.levels) >= 5
    assert table.winners
    level4 = SpeedsterTable(players=2, seed=1)
    level4.levels = [4, 0]
    level4._start_round([0, 1], bonus=False)
    assert len(level4.cards[0]) == 3 and len(level4.piles[0]) == 12  # 15 cards, 3 face up
    with pytest.raises(InvalidRulesError):
        SpeedsterTable(check="sometimes")


@pytest.mark.parametrize("seed", range(6))
def test_fast_legal_actions_agree_with_the_careful_search(seed: int) -> None:
    # The engine finds Zangles with the packed-count search (compiled, or its twin);
    # the careful search over Zangle objects must give the same actions at every turn.
    game = ZangleGame(players=2 + seed % 3, rounds=1)
    state = game.new_match(seed)
    rng = random.Random(seed)
    turns = 0
    while not state.is_terminal:
        seat = state.current_player
        careful = sorted(game.index[z] for z in zangles_with_z_at_most(state._centre, state._cards[seat], game.z_max))
        assert state.legal_actions() == careful
        state.apply(rng.choice(careful))
        turns += 1
    assert turns > 5


def test_more_than_fifteen_of_a_kind_are_counted_as_fifteen_and_change_no_action() -> None:
    # No action takes more than 15 of a kind from one place (at most z_max <= 15 Z cards, at
    # most 6 of a shape): the packed counts stop at 15, where they used to fall back to a
    # search over Zangle objects that many Z cards made slow (and a round no one could play
    # recursed into the next).
    from fourcards.zangle.game import _packed

    assert _packed([3] * 15) == 15 << 12
    assert _packed([3] * 16) == 15 << 12 and _packed([3] * 40 + [1]) == (15 << 12) + (1 << 4)
    assert _packed([10] * 16) == 15 << 40  # the top kind stays in its own bits
    state = ZangleGame(players=2).new_match(1)
    seat = state.current_player
    state._cards[seat] = [1] * 16 + [0] * 20 + list(state._cards[seat])  # 16 of a kind (not a real deal)
    careful = sorted(state.game.index[z] for z in zangles_with_z_at_most(state._centre, state._cards[seat],
                                                                          state.game.z_max))
    assert careful and state.legal_actions() == careful


@pytest.mark.parametrize("seed", range(4))
def test_a_deck_of_many_z_cards_gives_the_careful_actions(seed: int) -> None:
    game = ZangleGame(players=2, rounds=2, deck={"Z": 200, "1": 12, "2": 12, "3": 12, "4a": 4, "5a": 4})
    state = game.new_match(seed)
    rng = random.Random(seed)
    many = False
    while not state.is_terminal:
        seat = state.current_player
        many |= state._cards[seat].count(0) > 15
        careful = sorted(game.index[z] for z in zangles_with_z_at_most(state._centre, state._cards[seat], game.z_max))
        assert state.legal_actions() == careful
        state.apply(rng.choice(careful))
    assert many


@pytest.mark.parametrize("deck", [{"Z": 100}, {"1": 100}, {"5a": 100}])
def test_a_deck_that_makes_no_zangle_is_refused(deck: dict[str, int]) -> None:
    # every turn would be an automatic hit, round after round (rounds=247 recursed past
    # Python's limit; 246 rounds of 1,000 Z cards for 8 players took 15 s to set up)
    with pytest.raises(InvalidRulesError, match="no Zangle can be made from this deck"):
        ZangleGame(deck=deck, rounds=247)


def test_a_match_deals_at_most_max_round_cards() -> None:
    from fourcards.zangle.cards import MAX_ROUND_CARDS

    assert ZangleGame(rounds=1000).rules.rounds == 1000  # the default deck: 120,000 cards
    with pytest.raises(InvalidRulesError, match=f"at most {MAX_ROUND_CARDS} cards dealt in a match"):
        ZangleGame(rounds=121, deck={"Z": 990, "1": 5, "2": 5})
    assert ZangleGame(mode="solitaire", rounds=1000, deck={"Z": 990, "1": 5, "2": 5}).rules.rounds == 1000


def test_rounds_nobody_can_play_follow_each_other_without_recursion() -> None:
    # 120 rounds of a deck where a Zangle is rare: the match is set up and played to the end
    # by loops (it recursed once per round nobody could play: 247 such rounds broke Python's limit)
    import sys

    game = ZangleGame(players=2, rounds=120, deck={"Z": 990, "1": 5, "2": 5})
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200)
    try:
        state = play_match(game.new_match(1), [GreedyBot(), GreedyBot()])
    finally:
        sys.setrecursionlimit(limit)
    assert state.is_terminal and sum(isinstance(r, RoundEnd) for r in state.history) >= 120


def test_a_winner_caught_with_a_wrong_zangle_gains_no_equalizer() -> None:
    """Seed 002: "El ganador de cada ronda DEBE mostrar sus Zangles al final. Si sus Zangles
    no son correctos, entonces ese jugador suma 5 puntos a su puntuación y todos los demás
    reciben 0 puntos para la ronda" and "En cada ronda, se otorga un [ecualizador] al jugador
    que gana esa ronda": with the worst score of the round, they did not win it, so they go
    up no equalizer level; a winner whose Zangles were right does."""
    four_b, two, one = kind_code("4b"), kind_code("2"), kind_code("1")
    wrong = Zangle(four_b, CENTRE, ((two, OWN), (two, OWN)))
    right = Zangle(two, CENTRE, ((one, OWN), (one, OWN)))
    for zangle, totals, levels in ((wrong, [5, 0], [0, 0]), (right, [0, None], [1, 0])):
        table = SpeedsterTable(players=2, seed=4, check="at_round_end")
        table.centre[0] = zangle.target
        table.cards[0] = [k for k, _ in zangle.pieces]
        table.piles[0] = []
        table.submit_call(0, zangle, 1.0)
        kinds = [o.kind for o in table.resolve(1.0)]
        assert kinds[:2] == ["zangle", "round end"]
        assert table.totals[0] == totals[0] and (totals[1] is None or table.totals[1] == totals[1])
        assert table.levels == levels


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 5), steps=st.integers(0, 40),
       shuffle=st.randoms(use_true_random=False))
def test_no_observation_shows_a_face_down_card(seed: int, players: int, steps: int, shuffle: random.Random) -> None:
    """Seed 002: "Reparte una pila de 10 cartas para cada jugador. ¡Sin espiar!": nobody, the
    pile's owner included, sees what a face-down pile holds, only how many cards it has.
    Every seat's observation, tensor and view stay the same when the face-down cards (every
    pile and the centre draw pile) are dealt among those places again, sizes kept."""
    s = ZangleGame(players=players, mode="solitaire" if players == 1 else "turn").new_match(seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_terminal:
            break
        s.apply(rng.choice(s.legal_actions()))
    other = s.clone()
    hidden = [card for pile in other._piles for card in pile] + list(other._centre_pile)
    shuffle.shuffle(hidden)
    for pile in other._piles:
        pile[:], hidden = hidden[:len(pile)], hidden[len(pile):]
    other._centre_pile[:] = hidden
    for seat in range(players):
        assert other.observation(seat) == s.observation(seat)
        assert np.array_equal(other.observation_tensor(seat), s.observation_tensor(seat))
        assert other.view(seat) == s.view(seat)


def test_the_tensor_carries_pile_sizes_not_contents() -> None:
    s = ZangleGame(players=3).new_match(5)
    tensor = s.observation_tensor(1)
    nk = 11
    assert s.game.observation_size == 2 * nk + 8 * nk + 19 == tensor.shape[0]
    assert np.allclose(tensor[10 * nk:10 * nk + 3], [len(p) / 10 for p in (s._piles[1], s._piles[2], s._piles[0])])
    assert tensor[:nk].sum() == 4 and tensor[nk:2 * nk].sum() == len(s._cards[1])
