"""Four Color at kernel speed: the split itself, waits, the checks, the batches,
the rule-based bot and the compiled simulator, against the pure-Python twin
and the Python engine; and what each entry point does with hostile input."""

from __future__ import annotations

import math
import random
import re
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fourcards import FourCardsError, ImpossibleCardsError, InvalidCardError, InvalidRulesError
from fourcards.fourcolor import (
    KINDS, Card, Split, best_points, best_points_batch, best_split, best_split_batch, hand_counts, is_complete,
    waits, waits_batch,
)
from fourcards.fourcolor import _deck, _kernels
from fourcards.fourcolor import _reference as ref
from fourcards.fourcolor.bots import GreedyBot, LookaheadBot, hand_value, unseen_counts
from fourcards.fourcolor.game import MELDS, FourColor, Rules
from fourcards.fourcolor.simulate import game_seeds, simulate

from .strategies import meldy_hands
from fourcards.errors import InvalidTypeError

_MODULES = [pytest.importorskip(f"fourcards.fourcolor.{name}") for name in ("_melds", "_parse", "_bots", "_sim")]
#: The compiled kernels as one namespace (they are one module per concern).
core: Any = SimpleNamespace(**{name: getattr(module, name) for module in _MODULES for name in dir(module)
                               if not name.startswith("__")})
# Load every table into the core even when the package runs on the twin.
core.fc_init([[(_deck.meld_kind(m), m) for m in melds] for melds in ref.MELDS_WITH], _deck.POINTS, ref.MELDS)




def cards_of(counts: list[int]) -> list[Card]:
    return [KINDS[k] for k in range(28) for _ in range(counts[k])]


def random_hand(rng: random.Random, size: int) -> list[int]:
    counts = [0] * 28
    for c in rng.sample(range(112), size):
        counts[c // 4] += 1
    return counts


# -- the kernels against the twin -------------------------------------------------------------

@given(meldy_hands(size=8), st.integers(-1, 27))
def test_split_agrees_with_the_twin(counts: list[int], exposed: int) -> None:
    if exposed >= 0 and counts[exposed] == 0:
        exposed = -1
    found = core.fc_split(counts, exposed)
    assert found == ref.split(counts, exposed)
    if found is not None:  # the melds hold every card once and score the points
        total, indices = found
        used = [0] * 28
        for g in indices:
            for k in MELDS[g]:
                used[k] += 1
        assert used == counts
        points = sum(_deck.POINTS[_deck.meld_kind(MELDS[g])][1 if i or exposed < 0 else 0]
                     for i, g in enumerate(indices))
        assert points == total and (exposed < 0 or exposed in MELDS[indices[0]])


@given(meldy_hands(size=8), st.lists(st.integers(0, 4), min_size=28, max_size=28), st.booleans())
def test_wait_points_agree_with_the_twin(counts: list[int], on_table: list[int], from_discard: bool) -> None:
    assert core.fc_wait_points(counts, on_table, from_discard) == ref.wait_points(counts, on_table, from_discard)
    assert core.fc_wait_points(counts, None, from_discard) == ref.wait_points(counts, None, from_discard)


@given(meldy_hands(size=7), st.integers(0, 12), st.integers(0, 15))
def test_hand_value_agrees_with_the_twin(counts: list[int], exposed_points: int, threshold: int) -> None:
    assert core.fc_hand_value(counts, exposed_points, threshold) == ref.hand_value(counts, exposed_points, threshold)


def test_batches_agree_with_the_twin_and_across_threads() -> None:
    rng = random.Random(4)
    rows = np.array([random_hand(rng, rng.choice((20, 21))) for _ in range(300)]
                    + [[int(k < 7) * 3 if k % 7 != 6 else 0 for k in range(28)]], dtype=np.uint8)
    exposed = np.array([next((k for k in range(28) if r[k]), -1) if i % 3 == 0 else -1
                        for i, r in enumerate(rows.tolist())], dtype=np.int8)
    points, melds = best_split_batch(rows, exposed)
    ref_points, ref_melds = ref.best_split_batch(rows, exposed)
    assert points.tolist() == ref_points.tolist() and melds.tolist() == ref_melds.tolist()
    assert (points >= 0).any() and (points == -1).any()
    for from_discard in (False, True):
        assert waits_batch(rows, from_discard).tolist() == ref.waits_batch(rows, from_discard).tolist()
    big = np.repeat(rows, 20, axis=0)
    with ThreadPoolExecutor(2) as pool:
        parts = list(pool.map(best_split_batch, np.array_split(big, 4)))
        wait_parts = list(pool.map(waits_batch, np.array_split(big, 4)))
    assert np.array_equal(np.concatenate([p[1] for p in parts]), best_split_batch(big)[1])
    assert np.array_equal(np.concatenate(wait_parts), waits_batch(big))


def test_batch_rows_above_four_answer_minus_two() -> None:
    rows = np.zeros((2, 28), dtype=np.int64)
    rows[0, 3] = 5
    rows[1, 0] = 255
    points, melds = best_split_batch(rows)
    assert points.tolist() == [-2, -2] and (melds == -1).all()
    assert (waits_batch(rows) == -1).all()


# -- the public functions: the fast path gives what the Python path gives ------------------------

@given(meldy_hands(size=8))
def test_public_fast_path_matches_the_python_path(counts: list[int]) -> None:
    cards = cards_of(counts)
    text = " ".join(str(c) for c in cards).lower()  # lower case: always the Python path
    array = np.array(counts, dtype=np.int64)         # an array: always the Python path
    split = best_split(cards)
    assert split == best_split(text) == best_split(array) == best_split(tuple(cards))
    assert is_complete(cards) == is_complete(text) == (split is not None)
    assert best_points(cards) == best_points(counts) == best_points(text) == (-1 if split is None else split.points)
    if sum(counts) > 1:
        short = cards[1:]
        assert waits(short) == waits(" ".join(str(c) for c in short).lower())
        assert waits(short, from_discard=True) == waits(" ".join(str(c) for c in short), (), True)
    if split is not None:
        assert isinstance(split, Split) and sorted(c for m in split.melds for c in m.cards) == sorted(cards)
        assert sum(m.points for m in split.melds) == split.points


def test_fast_path_reads_names_and_counts() -> None:
    hand = "RG RA RE RC RH RN RS RS RS GA GA GA YC YC WG WN WN WN GS YS WS"
    split = best_split(hand.split())
    assert split is not None and split.points == 16 and len(split.melds) == 8
    assert best_split(hand.split()) == best_split(hand) == best_split([Card.parse(t) for t in hand.split()])
    assert waits(["RC", "RH", "RS", "RS", "RS", "GG"]) == {Card.parse("RN"): 5}
    assert best_points(hand_counts(hand)) == 16


def test_waits_with_exposed_melds_and_the_card_from_a_discard() -> None:
    # Pong from a discard: the triple made with it scores exposed (1) instead of concealed (3);
    # a General completes the hand alone (two pairs score 0).
    generals = {Card.parse(c + "G"): 1 + 1 for c in "RGYW"}
    assert waits("RA RA YC YC", exposed=["WC WC WC"]) == {Card.parse("RA"): 1 + 3, Card.parse("YC"): 1 + 3,
                                                          **generals}
    assert waits("RA RA YC YC", exposed=["WC WC WC"], from_discard=True) == {
        Card.parse("RA"): 1 + 1, Card.parse("YC"): 1 + 1, **generals}
    three = waits(["RA", "RA", "RA", "YC", "YC"])
    assert three[Card.parse("YC")] == 6 and three[Card.parse("RA")] == 8 and three[Card.parse("RG")] == 4
    assert Card.parse("RA") not in waits("RA RA YC YC", exposed=["RA RA"])  # every RA is out


# -- hostile input ------------------------------------------------------------------------------

@pytest.mark.parametrize("batch", [best_points_batch, best_split_batch, waits_batch,
                                   ref.best_points_batch, ref.best_split_batch, ref.waits_batch])
def test_batches_refuse_what_a_cast_would_corrupt(batch: Any) -> None:
    rows = np.zeros((2, 28), dtype=np.int64)
    rows[1, 5] = 260  # would wrap to 4 in uint8
    with pytest.raises(ImpossibleCardsError, match=r"counts\[1, 5\] = 260"):
        batch(rows)
    rows[1, 5] = -1
    with pytest.raises(ImpossibleCardsError, match="-1"):
        batch(rows)
    with pytest.raises(InvalidTypeError, match="float64"):
        batch(np.full((2, 28), 1.5))  # never truncated to 1
    with pytest.raises(InvalidTypeError, match="float64"):
        batch(np.full((1, 28), math.nan))
    with pytest.raises(InvalidTypeError, match="bool"):
        batch(np.zeros((1, 28), dtype=np.bool_))
    with pytest.raises(ImpossibleCardsError):
        batch([[2 ** 70] + [0] * 27])
    with pytest.raises(InvalidTypeError):
        batch([[None] * 28])
    with pytest.raises(InvalidTypeError):
        batch(None)
    with pytest.raises(FourCardsError, match="rows of 28"):
        batch(np.zeros((2, 27), dtype=np.uint8))
    assert len(batch(np.zeros((0, 28), dtype=np.uint8))) in (0, 2)


def test_public_functions_refuse_bad_hands_cleanly() -> None:
    with pytest.raises(InvalidTypeError, match="float64"):
        best_split(np.full(28, 1.0))  # never truncated
    with pytest.raises(InvalidTypeError, match="bool"):
        is_complete(np.zeros(28, dtype=np.bool_))
    with pytest.raises(ImpossibleCardsError, match="5 x RA"):
        best_split([0, 5] + [0] * 26)
    with pytest.raises(ImpossibleCardsError, match="5 x RA"):
        is_complete(["RA"] * 5)
    with pytest.raises(ImpossibleCardsError):
        best_points([2 ** 70] + [0] * 27)
    with pytest.raises(ImpossibleCardsError):
        waits([-1] + [0] * 27)
    for bad in (None, 3, 1.5, True, math.nan, b"RG RA", object()):
        for function in (best_split, waits, is_complete, best_points):
            with pytest.raises(InvalidTypeError, match=f"cards must be text or an iterable of Card or str, "
                                                f"not {type(bad).__name__}"):
                function(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        waits([KINDS[0], None])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        is_complete([True] * 28)  # bools are not counts
    for code in (1.5, None, True):
        with pytest.raises(InvalidTypeError):
            best_points("RA RA", exposed_code=code)  # type: ignore[arg-type]
    for code in (2 ** 70, 28, -2):
        with pytest.raises(InvalidCardError):
            best_points("RA RA", exposed_code=code)


def test_bot_kernels_refuse_impossible_input() -> None:
    hand = [0] * 28
    hand[1] = 2
    for choose in (core.fc_greedy_choose, ref.greedy_choose):
        with pytest.raises(ValueError, match="no legal action"):
            choose(hand, 0, 10, -1, False, [])
        with pytest.raises(ValueError, match="cannot discard"):
            choose(hand, 0, 10, -1, False, [2])
        with pytest.raises(ValueError, match="needs cards"):
            choose(hand, 0, 10, 1, True, [30 + MELDS.index((1, 1, 1, 1))])
        with pytest.raises(ValueError, match="not an int"):
            choose(hand[:27] + [1.5], 0, 10, -1, False, [1])
        with pytest.raises(ValueError, match="not a card code"):
            choose(hand, 0, 10, 40, False, [28])
    for value in (core.fc_hand_value, ref.hand_value):
        with pytest.raises(ValueError):
            value([5] + [0] * 27)
        with pytest.raises(ValueError):
            value([None] * 28)

    hand = [0] * 28
    hand[1] = 2
    kernels: list[Callable[[Any, Any], int]] = [
        lambda p, t: core.fc_hand_value(hand, p, t), lambda p, t: ref.hand_value(hand, p, t),
        lambda p, t: core.fc_greedy_choose(hand, p, t, -1, False, [1]),
        lambda p, t: ref.greedy_choose(hand, p, t, -1, False, [1]),
        lambda p, t: core.fc_lookahead_choose(hand, p, t, [0] * 28, [1]),
        lambda p, t: ref.lookahead_choose(hand, p, t, [0] * 28, [1]),
    ]
    for kernel in kernels:
        # the C kernels add them in ints: nothing past a bound, nothing truncated, the argument named
        for bad_points in (2 ** 70, 2 ** 31 - 1, 1001, -1, 1.9, True, "3", None):
            with pytest.raises(ValueError, match=re.escape(f"exposed_points = {bad_points!r} is not an int")):
                kernel(bad_points, 10)
        for bad_threshold in (2 ** 70, 2 ** 30 + 1, -1, 10.0, False, "10", None):
            with pytest.raises(ValueError, match=re.escape(f"threshold = {bad_threshold!r} is not an int")):
                kernel(0, bad_threshold)
        assert kernel(np.int64(3), 2 ** 30) == kernel(3, 2 ** 30)  # numpy ints are ints


# -- the rule-based bot: C against its Python twin, on real game states ------------------------------

def test_greedy_bot_chooses_as_its_twin_on_real_states() -> None:
    game = FourColor(players=4)
    decisions = 0
    for seed in range(4):
        state = game.new_match(seed)
        rng = random.Random(seed)
        while not state.is_terminal and decisions < 100 * (seed + 1):
            player = state.current_player
            obs = state.observation(player)
            legal = state.legal_actions()
            exposed_points = sum(_deck.POINTS[_deck.meld_kind(m)][0] for m in obs.exposed[player])
            card = -1 if obs.phase == "discard" or obs.offer is None else obs.offer.card
            from_discard = obs.offer is not None and (obs.offer.source != "turned" or obs.offer.player != player)
            args = (list(obs.hand), exposed_points, obs.rules.threshold, card, from_discard, legal)
            choice = core.fc_greedy_choose(*args)
            assert choice == ref.greedy_choose(*args) and choice in legal
            decisions += 1
            state.apply(choice if rng.random() < 0.5 else rng.choice(legal), player)
    assert decisions > 300
    assert hand_value([0] * 28) == ref.hand_value([0] * 28) == 1000 + 10 * 4 + 1  # waits on any General


# -- the lookahead player: C against its Python twin ------------------------------------------------

def _discard_args(counts: list[int], seen: list[int], exposed_points: int,
                  threshold: int) -> tuple[list[int], int, int, list[int], list[int]]:
    """The lookahead kernels' arguments for a hand: every discard it allows (none: the
    example is dropped), and the kinds ``seen`` unseen once each, within the 4 copies."""
    legal = [k for k in range(28) if counts[k] and k % 7 != 0]
    assume(legal)
    unseen = [0] * 28
    for k in seen:
        unseen[k] = min(4 - counts[k], unseen[k] + 1)
    return counts, exposed_points, threshold, unseen, legal


@settings(max_examples=40, deadline=None)
@given(meldy_hands(size=3), st.lists(st.integers(0, 27), max_size=6), st.integers(0, 4), st.sampled_from([0, 4, 10]))
def test_lookahead_chooses_as_its_twin(counts: list[int], seen: list[int], exposed_points: int,
                                       threshold: int) -> None:
    # a small hand and a few unseen kinds keep the twin's plain search quick
    args = _discard_args(counts, seen, exposed_points, threshold)
    legal, unseen = args[4], args[3]
    choice = core.fc_lookahead_choose(*args)
    assert choice == ref.lookahead_choose(*args) and choice in legal
    assert core.fc_lookahead_choose(counts, exposed_points, threshold, unseen, legal[::-1]) == choice


@settings(max_examples=40, deadline=None)
@given(meldy_hands(size=5), st.lists(st.integers(0, 27), max_size=6), st.integers(0, 4), st.sampled_from([0, 4, 10]))
def test_the_shortlisted_lookahead_chooses_as_its_twin(counts: list[int], seen: list[int], exposed_points: int,
                                                       threshold: int) -> None:
    """The search's own discards in its playouts with ``playout="lookahead"``: the lookahead
    player's choice among the greedy player's three best discards, in C as in Python."""
    args = _discard_args(counts, seen, exposed_points, threshold)
    legal, unseen = args[4], args[3]
    choice = core.fc_lookahead_shortlist_choose(*args)
    assert choice == ref.lookahead_shortlist_choose(*args) and choice in legal
    assert core.fc_lookahead_shortlist_choose(counts, exposed_points, threshold, unseen, legal[::-1]) == choice
    shortlist = sorted(legal, key=lambda a: (-ref.hand_value([c - (k == a) for k, c in enumerate(counts)],
                                                             exposed_points, threshold), a))[:3]
    assert choice == ref.lookahead_choose(counts, exposed_points, threshold, unseen, sorted(shortlist))


def test_the_shortlisted_lookahead_refuses_what_the_lookahead_refuses() -> None:
    hand = hand_counts("RC RH RN GS YS RA")
    for kernel in (core.fc_lookahead_shortlist_choose, ref.lookahead_shortlist_choose):
        with pytest.raises(ValueError, match="no legal action"):
            kernel(hand, 0, 10, [0] * 28, [])
        with pytest.raises(ValueError, match="cannot discard"):
            kernel(hand, 0, 10, [0] * 28, [Card.parse("WS").code])
        with pytest.raises(ValueError, match="listed twice"):
            kernel(hand, 0, 10, [0] * 28, [Card.parse("GS").code] * 2)
        with pytest.raises(ValueError):
            kernel(hand, -1, 10, [0] * 28, [Card.parse("GS").code])
        many = [Card.parse(c).code for c in ("RC", "RH", "RN", "GS", "YS", "RA")]
        with pytest.raises(ValueError, match="cannot discard"):  # past the three kept, a General too
            kernel(hand_counts("RC RH RN GS YS RA RG"), 0, 10, [0] * 28, [*many, Card.parse("RG").code])
        wrongs: tuple[Any, ...] = (None, 1.5, "RA")
        for bad in wrongs:
            with pytest.raises(ValueError, match="cannot discard"):
                kernel(hand, 0, 10, [0] * 28, [*many, bad])
        assert kernel(hand, 0, 10, [0] * 28, (a for a in many)) == kernel(hand, 0, 10, [0] * 28, many)


def test_lookahead_takes_the_discard_the_next_card_is_likeliest_to_complete() -> None:
    # RC RH RN is a field set and GS YS wait on a third soldier; the lone RA hangs
    # with nothing. With only white soldiers unseen, discarding RA is the one way the
    # next card completes the hand; with only red advisors unseen, keeping RA and
    # discarding a soldier waits on the pair instead.
    hand = hand_counts("RC RH RN GS YS RA")
    legal = [k for k in range(28) if hand[k] and k % 7 != 0]
    white_soldiers, red_advisors = [0] * 28, [0] * 28
    white_soldiers[Card.parse("WS").code] = 4
    red_advisors[Card.parse("RA").code] = 3
    for kernel in (core.fc_lookahead_choose, ref.lookahead_choose):
        assert KINDS[kernel(hand, 0, 0, white_soldiers, legal)] == Card.parse("RA")
        assert KINDS[kernel(hand, 0, 0, red_advisors, legal)] in (Card.parse("GS"), Card.parse("YS"))


def test_lookahead_refuses_impossible_input() -> None:
    hand = [0] * 28
    hand[1] = 2
    for choose in (core.fc_lookahead_choose, ref.lookahead_choose):
        with pytest.raises(ValueError, match="no legal action"):
            choose(hand, 0, 10, [0] * 28, [])
        with pytest.raises(ValueError, match="cannot discard"):
            choose(hand, 0, 10, [0] * 28, [2])
        with pytest.raises(ValueError, match="cannot discard"):
            choose(hand, 0, 10, [0] * 28, [0])
        with pytest.raises(ValueError, match="cannot discard"):
            choose(hand, 0, 10, [0] * 28, [1.0])  # type: ignore[list-item]
        with pytest.raises(ValueError, match="unseen\\[1\\] = 3"):
            choose(hand, 0, 10, [0, 3] + [0] * 26, [1])
        with pytest.raises(ValueError, match="not an int"):
            choose(hand, 0, 10, [0.5] * 28, [1])
        with pytest.raises(ValueError, match="28 values"):
            choose(hand, 0, 10, [0] * 27, [1])
        with pytest.raises(ValueError, match="100 legal actions: a discard has at most 28"):
            choose(hand, 0, 10, [0] * 28, [1] * 100)
        assert choose(hand, 0, 10, [0] * 28, iter([1])) == choose(hand, 0, 10, [0] * 28, {1}) == 1


def test_lookahead_bot_chooses_as_its_twin_on_real_states() -> None:
    game = FourColor(players=4)
    bot, greedy = LookaheadBot(), GreedyBot()
    state = game.new_match(8)
    rng = random.Random(8)
    checked = 0
    while not state.is_terminal and checked < 3:
        player = state.current_player
        obs = state.observation(player)
        legal = state.legal_actions()
        if obs.phase == "discard" and len(legal) > 1 and rng.random() < 0.1:  # the twin takes a second a hand of 20
            exposed_points = sum(_deck.POINTS[_deck.meld_kind(m)][0] for m in obs.exposed[player])
            unseen = unseen_counts(obs)
            assert sum(unseen) == 112 - sum(obs.hand) - sum(len(m) for ms in obs.exposed for m in ms) \
                - len(obs.discards)
            args = (list(obs.hand), exposed_points, obs.rules.threshold, unseen, legal)
            choice = ref.lookahead_choose(*args)
            assert bot.choose(obs, legal) == core.fc_lookahead_choose(*args) == choice
            checked += 1
        elif obs.phase != "discard":
            assert bot.choose(obs, legal) == greedy.choose(obs, legal)  # its claims and hu are the greedy player's
        state.apply(greedy.choose(obs, legal), player)
    assert checked == 3
    # the bots take the legal actions as ints: a float or a bool is refused, never truncated
    state = game.new_match(8)
    obs, legal = state.observation(state.current_player), state.legal_actions()
    for rule in (bot, greedy):
        assert rule.choose(obs, np.array(legal)) == rule.choose(obs, legal)  # type: ignore[arg-type]
        for bad in ([float(legal[0])], [True], ["1"], []):
            with pytest.raises(FourCardsError, match="legal action|no legal action"):
                rule.choose(obs, bad)  # type: ignore[arg-type]


# -- the compiled simulator: the Python engine's games, move for move --------------------------------

@pytest.mark.parametrize(("policies", "options"), [
    (("random", "random", "random", "random"), {}),
    (("greedy", "random", "greedy", "random"), {"threshold": 6, "rounds": 2}),
    (("greedy", "greedy", "random"), {"lucky_rank_only": False}),
    (("random", "greedy"), {"threshold": 0, "rounds": 4}),
    (("lookahead", "greedy", "random", "lookahead"), {"rounds": 1}),
    (("lookahead", "random", "random"), {"threshold": 4, "rounds": 1, "same_colour_soldiers": False}),
])
def test_compiled_games_are_the_python_engines_move_for_move(
        policies: tuple[str, ...], options: dict[str, Any]) -> None:
    if _kernels.sim is None:
        pytest.skip("the package runs on the twin")
    rules = Rules(players=len(policies), **options)
    fast = simulate(3, seed=11, policies=policies, rules=rules, record=True)
    slow = simulate(3, seed=11, policies=policies, rules=rules, record=True, compiled=False)
    assert fast.actions is not None and slow.actions is not None
    for a, b in zip(fast.actions, slow.actions):
        assert a.tolist() == b.tolist()
    assert fast.scores.tolist() == slow.scores.tolist() and fast.winners.tolist() == slow.winners.tolist()
    assert fast.steps.tolist() == [len(a) for a in slow.actions]
    assert (fast.scores.sum(axis=1) == 0).all()
    assert np.array_equal(fast.seeds, game_seeds(11, 3))


def test_simulator_is_seeded_and_thread_safe() -> None:
    if _kernels.sim is None:
        pytest.skip("the package runs on the twin")
    policies = ("greedy", "random", "random", "random")
    whole = simulate(40, seed=2, policies=policies)
    with ThreadPoolExecutor(2) as pool:
        parts = list(pool.map(lambda s: simulate(s, policies=policies), np.array_split(game_seeds(2, 40), 2)))
    assert np.array_equal(np.concatenate([p.scores for p in parts]), whole.scores)
    # the rule-based player beats three random ones by far
    assert simulate(300, seed=5, policies=policies).win_share()[0] > 0.5 * 300


def test_simulator_refuses_bad_arguments() -> None:
    with pytest.raises(FourCardsError, match="unknown policy 'clever' of seat 1"):
        simulate(1, policies=("random", "clever"), rules=Rules(players=2))
    with pytest.raises(FourCardsError, match=r"unknown policy \['greedy'\] of seat 0"):
        simulate(1, policies=(["greedy"], "random"), rules=Rules(players=2))  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="2 players need 2 policies"):
        simulate(1, policies=("random",), rules=Rules(players=2))
    with pytest.raises(FourCardsError, match="-1 games: a simulation plays 0 to 10,000,000"):
        simulate(-1)
    for games in (1.5, None, True):
        with pytest.raises(InvalidTypeError):
            simulate(games)  # type: ignore[arg-type]
    with pytest.raises(FourCardsError, match="0..2\\*\\*64-1"):
        simulate([2 ** 70])
    with pytest.raises(FourCardsError, match="0..2\\*\\*64-1"):
        simulate([-1])
    with pytest.raises(InvalidTypeError):
        simulate(np.array([1.5]))
    with pytest.raises(InvalidTypeError):
        simulate(1, rules={"players": 4})  # type: ignore[arg-type]
    with pytest.raises(InvalidRulesError, match="threshold=1180591620717411303424 must be from 0 to 1000"):
        simulate(1, rules=Rules(threshold=2 ** 70))
    if _kernels.sim is not None:
        with pytest.raises(ValueError):
            core.fc_simulate(np.zeros(1, np.uint64), [0, 3], 2, 10, 1, False)
    assert simulate(0).scores.shape == (0, 4)


def test_tournament_uses_the_compiled_games_with_the_same_records() -> None:
    from fourcards.fourcolor import simulate as module
    from fourcards.tournament import Entrant, MatchRecord, play_deals, run_tournament

    entrants = [Entrant("greedy"), Entrant("lookahead"), Entrant("random")]
    rows = module.tournament_rows(entrants, [0, 1], 9, {"players": 3})
    if _kernels.sim is None:
        assert rows is None
        return
    assert rows is not None
    fast = [MatchRecord(*row) for row in rows]
    assert fast == play_deals(entrants, [0, 1], 9, {"players": 3}, "four-color")
    # the Python engine, by hand, gives the same records
    game = FourColor(players=3)
    from fourcards.engine import derive_seed
    from fourcards.tournament import make_bot

    for record in fast[:3]:
        game_seed = derive_seed(9, record.deal)
        bots = [make_bot(entrants[e], derive_seed(game_seed, 1000 + e), "four-color") for e in record.entrants]
        state = game.new_match(game_seed)
        while not state.is_terminal:
            player = state.current_player
            state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
        assert tuple(state.scores) == record.penalties
    result = run_tournament(entrants, deals=20, seed=1, game="four-color")
    assert result.matches == 60 and result.stats["random"].win_rate.mean < 0.1
