"""Information-set sampling in the contract (``State.resample``, ``State.information_set``),
for every registered game.

Generic, over the registry: a sample never changes what the sampled seat
observes (its observation, view and tensor, and its legal actions when it is
to act), it plays on to the end, and it is never saved. Exact, on a small
position of each game: every deal of the hidden cards is built (each
arrangement of the hidden pool into the hidden slots, from the position), the
recorded actions are played on it, and it counts when the seat sees exactly
what it saw at every step; samples land on those deals as often as the counts
say (Pearson's chi-square), and never elsewhere."""

from __future__ import annotations

import json
import math
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from fourcards.engine import RESAMPLED, State
from fourcards.errors import FourCardsError, InvalidStateError, InvalidTypeError
from fourcards.games import GAMES, get_game
from fourcards.rng import Rng

from .stats import chi_square, expected_counts

#: Rule sets to try beyond each game's defaults.
RULES: dict[str, list[dict[str, Any]]] = {
    "gang-of-four": [{"players": 4, "target_score": 40}, {"players": 3, "target_score": 40},
                     {"players": 2, "target_score": 30}],
    "four-color-cards": [{"players": 4, "rounds": 1}, {"players": 3, "rounds": 2}, {"players": 2, "rounds": 1}],
    "zangle": [{"players": 3, "rounds": 1}, {"players": 2, "rounds": 2}, {"mode": "solitaire"}],
    "four-pack": [{"players": 4}, {"players": 3, "must_hold_family": True}, {"players": 6}],
    "duelo": [{"players": 2}, {"players": 3}],
}


def rule_sets() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, entry in GAMES.items():
        for rules in RULES.get(entry.game_class.name, RULES.get(name, [{}])):
            yield name, rules


def samples_along(state: State[Any], rng: Rng, every: int, limit: int) -> Iterator[State[Any]]:
    """The state at every ``every``-th step of a match played at random (up to ``limit`` steps)."""
    step = 0
    while not state.is_terminal and step < limit:
        if step % every == 0:
            yield state
        legal = state.legal_actions()
        state.apply(legal[rng.below(len(legal))])
        step += 1


def hidden_state(state: State[Any]) -> dict[str, Any]:
    """Everything a state holds but its generator and setup (where the samples differ
    from the state by construction)."""
    values = dict(state.__reduce__()[1][1])
    for name in ("_rng", "setup", "_decision"):
        values.pop(name, None)
    return values


def same_for(seat: int, a: State[Any], b: State[Any]) -> bool:
    return (a.observation(seat) == b.observation(seat) and a.view(seat) == b.view(seat)
            and np.array_equal(a.observation_tensor(seat), b.observation_tensor(seat))
            and (a.current_player != seat or a.legal_actions() == b.legal_actions()))


@pytest.mark.parametrize("name, rules", list(rule_sets()), ids=lambda v: v if isinstance(v, str) else json.dumps(v))
def test_a_sample_never_changes_what_the_seat_observes(name: str, rules: dict[str, Any]) -> None:
    entry = get_game(name)
    game = entry.new_game(**rules)
    rng = Rng(zlib.crc32(name.encode()))  # not hash(): it changes from run to run
    checked = moved = 0
    for seed in range(2):
        for state in samples_along(game.new_match(seed), rng, every=9, limit=120):
            for seat in range(game.num_players):
                info = state.information_set(seat)
                for _ in range(3):
                    sample = info.sample(rng)
                    assert same_for(seat, state, sample), (name, rules, seat, state.describe())
                    assert sample.setup[RESAMPLED] == seat and sample != state
                    assert sample.history == state.history and sample.step == state.step
                    checked += 1
                    moved += hidden_state(sample) != hidden_state(state)
    assert checked > 10 and moved > 0  # cards were hidden, and dealt again


@pytest.mark.engine  # whole matches: slow on the pure-Python twin
@pytest.mark.parametrize("name, rules", list(rule_sets()), ids=lambda v: v if isinstance(v, str) else json.dumps(v))
def test_a_sample_plays_on_to_the_end_and_is_never_saved(name: str, rules: dict[str, Any]) -> None:
    game = get_game(name).new_game(**rules)
    rng = Rng(5)
    for state in samples_along(game.new_match(11), rng, every=9, limit=200):
        to_act = state.current_player if not state.is_terminal else 0
        # as the seat to act (a search player) and as the next (OpenSpiel's resample_from_infostate
        # of any seat): a Four Color sample gave a seat to discard only Generals, with no legal action
        for seat in dict.fromkeys((to_act, (to_act + 1) % game.num_players)):
            sample = state.resample(seat, rng)
            with pytest.raises(InvalidStateError, match="resampled state"):
                sample.to_json()
            again = sample.clone()
            steps = 0
            while not again.is_terminal and steps < game.max_game_length:
                legal = again.legal_actions()
                assert legal, again.describe()
                again.apply(legal[rng.below(len(legal))])
                steps += 1
            counted: Any = state
            if hasattr(counted, "card_count"):
                assert counted.card_count() == sample.card_count()  # type: ignore[attr-defined]


@pytest.mark.parametrize("name, rules", list(rule_sets()), ids=lambda v: v if isinstance(v, str) else json.dumps(v))
def test_samples_are_equal_only_when_their_cards_are(name: str, rules: dict[str, Any]) -> None:
    """A helper's first use: two samples (same seed, setup and actions) compared equal whatever
    cards they dealt. They are equal when drawn alike, and stay so as they play on alike."""
    game = get_game(name).new_game(**rules)
    rng = Rng(6)
    told_apart = 0
    for state in samples_along(game.new_match(12), rng, every=7, limit=60):
        seat = state.current_player if not state.is_terminal else 0
        first, again, other = state.resample(seat, 1), state.resample(seat, 1), state.resample(seat, 2)
        assert first == again and first.clone() == first and first != state
        assert first != other or hidden_state(first) == hidden_state(other)
        told_apart += first != other
        if not first.is_terminal:
            action = first.legal_actions()[0]
            first.apply(action)
            assert first != again
            again.apply(action)
            assert first == again
    assert told_apart > 0  # samples with other cards were drawn, and told apart


def test_resample_checks_its_arguments() -> None:
    state = get_game("duelo").new_game().new_match(1)
    for seat in (True, 1.0, "0"):
        with pytest.raises(InvalidTypeError):
            state.resample(seat, 1)
    with pytest.raises(FourCardsError):
        state.resample(2, 1)
    for rng in (1.5, True, np.bool_(True), "7"):
        with pytest.raises(InvalidTypeError, match="rng"):
            state.resample(0, rng)
    assert state.resample(0, 7).view(0) == state.resample(0, Rng(7)).view(0)
    # a numpy seed is taken as a numpy seat is (a helper found the one refused, the other taken)
    assert state.resample(np.int64(0), np.int64(7)).view(0) == state.resample(0, Rng(7)).view(0)


def test_the_same_generator_gives_the_same_samples() -> None:
    for name in GAMES:
        game = get_game(name).new_game()
        state = game.new_match(3)
        for _ in range(4):
            if not state.is_terminal:
                state.apply(state.legal_actions()[0])
        a, b = state.resample(0, Rng(9)), state.resample(0, Rng(9))
        assert all(a.view(seat) == b.view(seat) for seat in range(game.num_players)), name


def test_later_chance_is_drawn_afresh() -> None:
    """A sample's next rounds are not the real ones: the seed that deals them is
    hidden too (the real next round's deal never leaks into a search)."""
    game = get_game("four-color").new_game(players=2, rounds=2)
    state = game.new_match(4)
    first = state.resample(0, Rng(1))
    second = state.resample(0, Rng(2))
    assert first._rng.state != state._rng.state != second._rng.state


# -- exact: every deal of a small position ------------------------------------------------------------

def distinct_orders(items: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every distinct ordering of a multiset."""
    counts = Counter(items)
    kinds = sorted(counts)
    order: list[int] = []

    def walk(left: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield tuple(order)
            return
        for kind in kinds:
            if counts[kind]:
                counts[kind] -= 1
                order.append(kind)
                yield from walk(left - 1)
                order.pop()
                counts[kind] += 1

    yield from walk(len(items))


@dataclass
class Position:
    """A small position of one game: ``build(hidden)`` sets it up with the hidden
    slots filled in order; ``pool`` the hidden cards of the real position (in its
    slots' order); ``actions`` played from it; ``seat`` whose information set is
    sampled; ``key`` where the hidden cards are in a state."""

    game: Any
    build: Callable[[Sequence[int]], Any]
    pool: tuple[int, ...]
    actions: Callable[[Any], list[Any]]
    seat: int
    key: Callable[[Any], Any]


def exact_weights(position: Position, real: State[Any], actions: list[int]) -> Counter[Any]:
    """Per key, how many arrangements of the hidden pool give a match the seat
    cannot tell from the real one at any step."""
    seat = position.seat
    seen = []
    replay = position.build(position.pool)
    seen.append(replay.view(seat))
    for action in actions:
        replay.apply(action)
        seen.append((replay.view(seat), replay.observation_tensor(seat).tobytes()))
    weights: Counter[Any] = Counter()
    for hidden in distinct_orders(position.pool):
        try:
            state = position.build(hidden)
        except FourCardsError:
            continue
        if state.view(seat) != seen[0]:
            continue
        ok = True
        for action, expected in zip(actions, seen[1:]):
            if not state.can_apply(action):
                ok = False
                break
            state.apply(action)
            if (state.view(seat), state.observation_tensor(seat).tobytes()) != expected:
                ok = False
                break
        if ok:
            weights[position.key(state)] += 1
    return weights


def check_exact(position: Position, samples: int = 4000, method: str = "auto") -> None:
    real = position.build(position.pool)
    actions = [real.action_to_int(a) for a in position.actions(real.clone())]
    for action in actions:
        real.apply(action)
    weights = exact_weights(position, real, actions)
    assert len(weights) >= 2, "the position must leave the seat some doubt"
    info = real.information_set(position.seat)
    if info.deal is not None:
        info.deal.method = method  # by proposal: the same deals, as often
    rng = Rng(2026)
    samples = max(samples, 8 * len(weights))
    seen = Counter(position.key(info.sample(rng)) for _ in range(samples))
    assert set(seen) <= set(weights), f"samples the seat could rule out: {set(seen) - set(weights)}"
    statistic, df, p = chi_square(seen, expected_counts(weights, samples))
    assert p > 1e-4, (statistic, df, p, len(weights))


def ask_texts(texts: Sequence[str]) -> Callable[[State[Any]], list[Any]]:
    """The actions named (or the first legal one where a text is not legal), played on the state."""

    def play(state: State[Any]) -> list[Any]:
        actions = []
        for text in texts:
            if state.is_terminal:
                break
            action = state.action_to_int(text) if state.can_apply(text) else state.legal_actions()[0]
            actions.append(action)
            state.apply(action)
        return actions

    return play


def gang_of_four(mine: str, hidden: list[str], texts: list[str]) -> Position:
    """3 players in round 1, seat 0 leading, the rest of the deck played: seat 1
    holds hidden[:3], seat 2 hidden[3], the others are out of play."""
    from fourcards.gangoffour import _deck

    game = get_game("gang-of-four").new_game(players=3)
    names = list(_deck.NAMES)
    rest = [names[c] for c in range(_deck.NUM_KINDS) for _ in range(_deck.CAP[c])]
    for card in mine.split() + hidden:
        rest.remove(card)

    def build(pool: Sequence[int]) -> Any:
        cards = [names[i] for i in pool]
        return game.from_position(hands=[mine, " ".join(cards[:3]), cards[3]], played=" ".join(rest), current=0)

    return Position(game, build, tuple(names.index(c) for c in hidden), ask_texts(texts), 0,
                    lambda state: (state._hands[1], state._hands[2], state._set_aside))


def four_color() -> Position:
    """3 players; seat 0 discards RC, seat 1 answers a chi that loses to seat 2's
    pong (so its RH and RN are shown), seat 2 discards GS: seat 0 is asked."""
    from fourcards.fourcolor import _deck

    game = get_game("four-color").new_game(players=3, rounds=1)
    names = list(_deck.NAMES)
    mine, hidden = "RC WA WA", ["RH", "RN", "YS", "RC", "RC", "GS", "GS", "YS"]
    rest = [name for name in names for _ in range(_deck.COPIES)]
    for card in mine.split() + hidden:
        rest.remove(card)

    def build(pool: Sequence[int]) -> Any:
        cards = [names[i] for i in pool]
        return game.from_position(hands=[mine, " ".join(cards[:3]), " ".join(cards[3:7])], stock=cards[7],
                                  discards=" ".join(rest), current=0)

    return Position(game, build, tuple(names.index(c) for c in hidden),
                    ask_texts(["discard RC", "claim RC RH RN", "claim RC RC RC", "discard GS"]), 0,
                    lambda state: (tuple(state._hands[1]), tuple(state._hands[2]), tuple(state._stock)))


def four_color_discarder() -> Position:
    """2 players, seat 1 to discard two cards seat 0 cannot see: "the player who must discard
    but holds only Generals" would have ended the round, so seat 1 holds another card."""
    from fourcards.fourcolor import _deck

    game = get_game("four-color").new_game(players=2, rounds=1)
    names = list(_deck.NAMES)
    mine, hidden = "RC WA WA", ["RG", "YS", "WG", "RC"]
    rest = [name for name in names for _ in range(_deck.COPIES)]
    for card in mine.split() + hidden:
        rest.remove(card)

    def build(pool: Sequence[int]) -> Any:
        cards = [names[i] for i in pool]
        return game.from_position(hands=[mine, " ".join(cards[:2])], stock=cards[2:], discards=" ".join(rest),
                                  current=1)

    return Position(game, build, tuple(names.index(c) for c in hidden), lambda state: [], 0,
                    lambda state: (tuple(state._hands[1]), tuple(state._stock)))


def zangle() -> Position:
    """Solitaire with a 14-card deck: the pile and the centre pile are face down."""
    from fourcards.zangle.cards import KINDS

    game = get_game("zangle").new_game(mode="solitaire", deck={"Z": 2, "1": 4, "2": 4, "3": 4})
    kinds = list(KINDS)
    hidden = ["1", "2", "Z", "3", "2", "3"]

    def build(pool: Sequence[int]) -> Any:
        cards = [kinds[i] for i in pool]
        return game.from_position(centre="1 2 3 Z", cards=["1 1 2 3"], piles=[" ".join(cards[:3])],
                                  centre_pile=" ".join(cards[3:]))

    return Position(game, build, tuple(kinds.index(c) for c in hidden), lambda state: [state.legal_actions()[0]],
                    0, lambda state: (tuple(state._piles[0]), tuple(state._centre_pile)))


def four_pack(**rules: Any) -> Position:
    """3 players, families C to H laid down: the cards of A and B are in hands."""
    from fourcards.decks import CARD_IDS

    game = get_game("four-pack").new_game(players=3, **rules)
    ids = list(CARD_IDS)
    hidden = ["A2", "B2", "A3", "A4", "B3", "B4"]

    def build(pool: Sequence[int]) -> Any:
        cards = [ids[i] for i in pool]
        return game.from_position(hands=["A1 B1", " ".join(cards[:3]), " ".join(cards[3:])],
                                  families=["C D", "E F G", "H"], current=0)

    texts = ["ask P1 for A4", "ask P2 for B2", "ask P1 for B3", "ask P2 for A4", "ask P1 for B3"]
    return Position(game, build, tuple(ids.index(c) for c in hidden), ask_texts(texts), 0,
                    lambda state: (state._hands[1], state._hands[2]))


def duelo() -> Position:
    """2 players after a tie, most of the deck on the table: the piles' unseen cards."""
    from fourcards.decks import CARD_IDS

    game = get_game("duelo").new_game(players=2)
    ids = list(CARD_IDS)
    hidden = ["B2", "C3", "D4", "E1"]
    rest = [c for c in ids if c not in ["A1", *hidden]]

    def build(pool: Sequence[int]) -> Any:
        cards = [ids[i] for i in pool]
        return game.from_position(piles=[" ".join(["A1", *cards[:2]]), " ".join(cards[2:])], table=" ".join(rest),
                                  contenders=[0, 1], current=0, first=0)

    def calls(state: Any) -> list[Any]:
        actions = []
        for category in (0,):
            if not state.is_terminal:
                actions.append(category)
                state.apply(category)
        return actions

    return Position(game, build, tuple(ids.index(c) for c in hidden), calls, 0,
                    lambda state: tuple(tuple(state._piles[p][:state._unseen[p]]) for p in range(2)))


EXACT: dict[str, Callable[[], Position]] = {
    "gang-of-four: a single forced by the last-card rule": lambda: gang_of_four(
        "G3 Y9 R9", ["G2", "R7", "Y5", "G6", "Y2", "R7"], ["G3", "R7", "pass", "R9"]),
    "gang-of-four: the highest single, not the lower pair card": lambda: gang_of_four(
        "G4 G8 R9", ["G5", "G5", "Y5", "R5", "Y2", "G6", "G3"], ["G4", "G5", "pass"]),
    "four-color: a losing claim shows its cards": four_color,
    "four-color: the seat to discard holds a card it may discard": four_color_discarder,
    "zangle: the face-down piles": zangle,
    "four-pack: asks that failed": four_pack,
    "four-pack: must hold the family": lambda: four_pack(must_hold_family=True),
    "duelo: the unseen tops of the piles": duelo,
}


@pytest.mark.engine  # thousands of samples: slow on the pure-Python twin
@pytest.mark.parametrize("method", ["auto", "propose"])
@pytest.mark.parametrize("case", list(EXACT))
def test_samples_land_where_the_exact_count_says(case: str, method: str) -> None:
    """Drawn from the counts, and by proposal (what a table of many seats uses): each
    game's own bounds, listed placements, ``accept`` and ``removed`` weights."""
    check_exact(EXACT[case](), method=method)


def test_every_game_of_fourcards_has_an_exact_case() -> None:
    covered = {case.split(":")[0] for case in EXACT}
    assert covered == {"gang-of-four", "four-color", "zangle", "four-pack", "duelo"}


@pytest.mark.engine  # matches played to the exchange: slow on the pure-Python twin
def test_gang_of_four_samples_keep_the_exchange() -> None:
    """Round 2 on: the winner holds the card the loser gave (unless given back or
    played), the loser the card given back, and nothing above the card it gave."""
    from fourcards.gangoffour import _deck

    game = get_game("gang-of-four").new_game(players=4, target_score=60)
    rng = Rng(3)
    checked = 0
    for seed in range(3):
        for state in samples_along(game.new_match(seed), rng, every=4, limit=600):
            match: Any = state
            exchange = match._exchange
            if exchange is None or exchange.returned is None:
                continue
            for seat in range(4):
                if seat in (exchange.loser, exchange.winner):
                    continue
                for _ in range(2):
                    sample: Any = state.resample(seat, rng)
                    played = _deck.canonical_from_sum(sum(
                        r.combo.mask - ((r.combo.mask >> 1) & _deck.PAIR_LO) for r in sample._round_records()
                        if type(r).__name__ == "Played" and r.player == exchange.loser))
                    loser = _deck.codes_of_mask(sample._hands[exchange.loser])
                    assert all(code <= exchange.given.code or code == exchange.returned.code for code in loser)
                    if exchange.returned.code not in _deck.codes_of_mask(played):
                        assert exchange.returned.code in loser
                    checked += 1
    assert checked > 20


def test_no_state_repr_names_its_seed() -> None:
    """A first user's trial: Gang of Four's ``repr(state)`` printed the seed, which with the
    public actions rebuilds every hand; a repr ends up in logs and error pages."""
    from fourcards.games import GAMES

    for name, entry in GAMES.items():
        state = entry.new_game().new_match(982_451_653)
        assert "982451653" not in repr(state) and "982451653" not in str(state), name


@pytest.mark.parametrize("name", list(GAMES))
def test_an_information_set_is_of_the_position_it_was_made_at(name: str) -> None:
    """A first user's trial: a set made, then moves played on its state, gave samples at the
    new step with the old position's hidden cards (the seat's own observation differed from
    the live one in most samples). The set keeps its position."""
    state = get_game(name).new_game().new_match(7)
    rng = Rng(3)
    for _ in range(2):
        state.apply(state.legal_actions()[rng.below(len(state.legal_actions()))])
    seat = state.current_player
    before = state.clone()
    made = state.information_set(seat)
    for _ in range(4):
        if not state.is_terminal:
            state.apply(state.legal_actions()[rng.below(len(state.legal_actions()))])
    assert state.step > before.step
    for k in range(20):
        sample = made.sample(k)
        assert sample.step == before.step and same_for(seat, sample, before)


@pytest.mark.parametrize("name", list(GAMES))
def test_threads_sharing_an_information_set_draw_what_one_draws(name: str) -> None:
    """A first user's trial: one set shared by two threads gave other samples for the same
    generators than one thread did (1,215 of 3,000 Four Color samples). Each sample depends on
    its generator only."""
    import threading

    state = get_game(name).new_game().new_match(11)
    rng = Rng(5)
    for _ in range(3):
        state.apply(state.legal_actions()[rng.below(len(state.legal_actions()))])
    seat = state.current_player
    seeds = list(range(60))
    alone_set = state.information_set(seat)
    alone = [hidden_state(alone_set.sample(s)) for s in seeds]
    for _ in range(3):
        shared = state.information_set(seat)
        together: list[Any] = [None] * len(seeds)

        def draw(part: int, shared: Any, together: list[Any]) -> None:
            for i in range(part, len(seeds), 2):
                together[i] = hidden_state(shared.sample(seeds[i]))

        threads = [threading.Thread(target=draw, args=(part, shared, together)) for part in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert together == alone


def test_a_resample_keeps_to_its_deadline_and_says_why_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first user's trial: at a table of 32 Four Pack seats ``State.resample`` took 3 to 5 s
    and then raised, with no way to bound it but an undocumented route. ``deadline`` bounds it;
    the error is exported, with a code of its own (the input was valid)."""
    import time

    import fourcards
    from fourcards.errors import ERROR_CODES, SamplingCostError

    state = get_game("four-pack").new_game(players=32).new_match(8)
    rng = Rng(1)
    for _ in range(12):  # 6 are enough to make its count cost more than 0.05 s
        state.apply(state.legal_actions()[rng.below(len(state.legal_actions()))])
    seat = state.current_player
    before = state.to_json()
    from fourcards.fourpack import game as four_pack

    with monkeypatch.context() as patched:  # by default so many places are drawn as a matching: a sample in ms
        patched.setattr(four_pack, "MATCHED_FROM", 99)
        counted = state.information_set(seat)
    counted.deal.method = "count"
    started = time.perf_counter()
    with pytest.raises(SamplingCostError) as caught:
        counted.sample(1, deadline=started + 0.05)
    assert time.perf_counter() - started < 1.5  # the deadline is looked at every few thousand splits
    assert state.resample(seat, 1).observation(seat) == state.observation(seat)
    assert caught.value.code == "too_costly" and "too_costly" in ERROR_CODES
    assert fourcards.SamplingCostError is SamplingCostError and isinstance(caught.value, FourCardsError)
    assert state.to_json() == before
    for bad in ("soon", True, [1.0]):
        with pytest.raises(InvalidTypeError, match="deadline"):
            state.resample(seat, 1, deadline=bad)
    with pytest.raises(FourCardsError, match="deadline=nan"):  # it was taken as no deadline
        state.resample(seat, 1, deadline=math.nan)
    assert state.to_json() == before
    small = get_game("four-pack").new_game(players=3).new_match(8)
    assert small.resample(small.current_player, 1, deadline=time.perf_counter() + 60).step == small.step
    from fractions import Fraction

    assert small.resample(small.current_player, 1, deadline=Fraction(10**6)).step == small.step
    assert small.resample(small.current_player, 1, deadline=math.inf).step == small.step  # no deadline


def test_a_deadline_on_the_wrong_clock_is_refused() -> None:
    """An easy slip: ``deadline=time.time() + 1`` (the wall clock, about 1.8e9) was taken
    as a ``time.perf_counter()`` value decades away, so a sample it was meant to bound in a
    server ran without one (up to seconds at a large Four Pack table). A finite deadline
    more than ten years away is refused, naming the other clock; infinity stays no deadline."""
    import time

    from fourcards.engine import DEADLINE_HORIZON

    state = get_game("four-pack").new_game(players=3).new_match(8)
    seat = state.current_player
    before = state.to_json()
    information = state.information_set(seat)
    for wall in (time.time() + 1, time.perf_counter() + DEADLINE_HORIZON + 3600, 1e300):
        with pytest.raises(FourCardsError, match=r"years away on time\.perf_counter\(\)'s clock.*time\.time\(\)"):
            state.resample(seat, 1, deadline=wall)
        with pytest.raises(FourCardsError, match="years away"):
            information.sample(1, deadline=wall)
    assert state.to_json() == before
    soon = time.perf_counter() + DEADLINE_HORIZON - 3600
    assert state.resample(seat, 1, deadline=soon).step == state.step
    assert state.resample(seat, 1, deadline=10**400).step == state.step  # past a float: infinity, no deadline


def test_a_thread_with_a_deadline_does_not_wait_out_another_threads_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reviewer's trial: one thread's long sample (4.4 s at a 32-seat table) held the set's lock,
    and another thread's 20 ms deadline was met only after it. It now waits at most its deadline."""
    import threading
    import time

    from fourcards.errors import SamplingCostError

    state = get_game("four-pack").new_game(players=32).new_match(8)
    rng = Rng(1)
    for _ in range(60):
        state.apply(state.legal_actions()[rng.below(len(state.legal_actions()))])
    from fourcards.fourpack import game as four_pack

    monkeypatch.setattr(four_pack, "MATCHED_FROM", 99)  # counted, as at a few seats (by default a matching)
    shared = state.information_set(state.current_player)
    shared.deal.method = "count"  # seconds to count
    first: list[str] = []

    def long_sample() -> None:
        try:
            shared.sample(1, deadline=time.perf_counter() + 1.0)
            first.append("drawn")
        except SamplingCostError:
            first.append("too costly")

    thread = threading.Thread(target=long_sample)
    thread.start()
    time.sleep(0.1)  # the first thread is counting
    started = time.perf_counter()
    with pytest.raises(SamplingCostError, match="another thread"):
        shared.sample(2, deadline=time.perf_counter() + 0.02)
    waited = time.perf_counter() - started
    thread.join()
    assert first == ["too costly"] and waited < 0.5, waited


def test_an_information_set_copies_with_a_lock_of_its_own() -> None:
    """``copy.deepcopy`` of a set said "cannot pickle '_thread.lock' object" once it held a lock."""
    import copy

    for name in GAMES:
        state = get_game(name).new_game().new_match(3)
        seat = state.current_player
        made = state.information_set(seat)
        for twin in (copy.copy(made), copy.deepcopy(made)):
            assert twin._lock is not made._lock
            assert hidden_state(twin.sample(4)) == hidden_state(made.sample(4))
        assert state.resample(seat, 1, deadline=10**400).step == state.step  # past a float: no deadline
