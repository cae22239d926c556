"""A first user's trial of the tournament, its statistics and ``win_shares``: every bad
call is a :class:`FourCardsError` (an :class:`InvalidTypeError` for a wrong type) naming
the argument, never a bare TypeError, AttributeError, IndexError or numpy error."""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from fourcards import stats
from fourcards.engine import win_shares
from fourcards.errors import FourCardsError, InvalidTypeError
from fourcards.games import DEFAULT_GAME
from fourcards.tournament import (
    Entrant, check_entrant, make_bot, parse_entrant, play_deals, rule_values, run_tournament, t_interval,
    wilson_interval,
)

GREEDY = [Entrant("greedy")] * 4  # the default game seats four
NAN = math.nan

Call = Callable[[], Any]

WRONG_TYPES: list[tuple[str, Call, str]] = [
    ("run_tournament entrants=1.5", lambda: run_tournament(1.5, 1), "entrants"),  # type: ignore[arg-type]
    ("run_tournament entrants={}", lambda: run_tournament({}, 1), "entrants"),  # type: ignore[arg-type]
    ("run_tournament executor=1", lambda: run_tournament(GREEDY, 1, executor=1), "executor"),  # type: ignore[arg-type]
    ("run_tournament deals=1.5", lambda: run_tournament(GREEDY, 1.5), "deals"),  # type: ignore[arg-type]
    ("run_tournament deals='2'", lambda: run_tournament(GREEDY, "2"), "deals"),  # type: ignore[arg-type]
    ("run_tournament chunk=1.5", lambda: run_tournament(GREEDY, 1, chunk=1.5), "chunk"),  # type: ignore[arg-type]
    ("Entrant options=1.5", lambda: Entrant("search", 1.5), "options"),  # type: ignore[arg-type]
    ("Entrant options=dict", lambda: Entrant("search", {"iterations": 5}), "options"),  # type: ignore[arg-type]
    ("Entrant options pair", lambda: Entrant("search", (("iterations",),)), "options"),  # type: ignore[arg-type]
    ("Entrant option name", lambda: Entrant("search", ((1, 2),)), "options"),  # type: ignore[arg-type]
    ("Entrant option list", lambda: Entrant("search", (("iterations", [1]),)), "iterations"),
    ("Entrant kind=[1]", lambda: Entrant([1]), "kind"),  # type: ignore[arg-type]
    ("Entrant kind=None", lambda: Entrant(None), "kind"),  # type: ignore[arg-type]
    ("Entrant label=3", lambda: Entrant("greedy", label=3), "label"),  # type: ignore[arg-type]
    ("make_bot entrant='x'", lambda: make_bot("x", 1), "entrant"),  # type: ignore[arg-type]
    ("make_bot seed=1.5", lambda: make_bot(GREEDY[0], 1.5), "seed"),  # type: ignore[arg-type]
    ("make_bot engine=1", lambda: make_bot(GREEDY[0], 1, engine=1), "engine"),  # type: ignore[arg-type]
    ("check_entrant entrant='x'", lambda: check_entrant("x", DEFAULT_GAME), "entrant"),  # type: ignore[arg-type]
    ("wilson_interval mean='3'", lambda: wilson_interval("3", 10), "mean"),  # type: ignore[arg-type]
    ("wilson_interval count=10.0", lambda: wilson_interval(0.5, 10.0), "count"),  # type: ignore[arg-type]
    ("wilson_interval count=True", lambda: wilson_interval(0.5, True), "count"),
    ("t_interval 1.5", lambda: t_interval(1.5), "values"),  # type: ignore[arg-type]
    ("t_interval '12'", lambda: t_interval("12"), "values"),  # type: ignore[arg-type]
    ("t_interval [1, 'x']", lambda: t_interval([1.0, "x"]), "values[1]"),  # type: ignore[list-item]
    ("t_quantile 1.5", lambda: stats.t_quantile(1.5), "df"),  # type: ignore[arg-type]
    ("interval 1.5", lambda: stats.interval(1.5), "values"),  # type: ignore[arg-type]
    ("interval str array", lambda: stats.interval(np.array(["a"])), "values"),
    ("interval proportion='yes'", lambda: stats.interval(np.ones(2), "yes"), "proportion"),  # type: ignore[arg-type]
    ("Interval mean='a'", lambda: stats.Interval("a", 0.0, 1.0), "mean"),  # type: ignore[arg-type]
    ("Interval.format 1.5", lambda: stats.Interval(0.5, 0.0, 1.0).format(1.5), "digits"),  # type: ignore[arg-type]
    ("rule_values texts=1.5", lambda: rule_values(DEFAULT_GAME, 1.5), "texts"),  # type: ignore[arg-type]
    ("rule_values texts=str", lambda: rule_values(DEFAULT_GAME, "target_score=50"), "texts"),
    ("rule_values texts=[1]", lambda: rule_values(DEFAULT_GAME, [1]), "texts"),  # type: ignore[list-item]
    ("play_deals deal_numbers=b'3'", lambda: play_deals(GREEDY, b"3", 0, {}), "deal_numbers"),
    ("play_deals deal_numbers=3", lambda: play_deals(GREEDY, 3, 0, {}), "deal_numbers"),  # type: ignore[arg-type]
    ("play_deals deal 1.5", lambda: play_deals(GREEDY, [1.5], 0, {}), "deal_numbers[0]"),  # type: ignore[list-item]
    ("play_deals entrants", lambda: play_deals(["greedy"] * 4, [0], 0, {}), "entrant"),  # type: ignore[list-item]
    ("play_deals seed=1.5", lambda: play_deals(GREEDY, [0], 1.5, {}), "seed"),  # type: ignore[arg-type]
    ("play_deals rules=None", lambda: play_deals(GREEDY, [0], 0, None), "rules"),  # type: ignore[arg-type]
    ("play_deals rule name", lambda: play_deals(GREEDY, [0], 0, {1: 2}), "rule"),  # type: ignore[dict-item]
    ("win_shares 1.5", lambda: win_shares(1.5), "winners"),  # type: ignore[arg-type]
    ("win_shares list", lambda: win_shares([[True, False]]), "winners"),  # type: ignore[arg-type]
    ("win_shares floats", lambda: win_shares(np.zeros((2, 3))), "winners"),  # type: ignore[arg-type]
]

BAD_VALUES: list[tuple[str, Call, str]] = [
    ("run_tournament deals=-1", lambda: run_tournament(GREEDY, -1), "deals"),
    ("run_tournament chunk=0", lambda: run_tournament(GREEDY, 1, chunk=0), "chunk"),
    ("Entrant kind=''", lambda: Entrant(""), "kind"),
    ("Entrant option twice", lambda: Entrant("search", (("iterations", 1), ("iterations", 2))), "iterations"),
    ("wilson_interval mean=nan", lambda: wilson_interval(NAN, 10), "mean"),
    ("wilson_interval mean=1.5", lambda: wilson_interval(1.5, 10), "mean"),
    ("wilson_interval mean=-0.1", lambda: wilson_interval(-0.1, 10), "mean"),
    ("wilson_interval count=0", lambda: wilson_interval(0.5, 0), "count"),
    ("wilson_interval count=-3", lambda: wilson_interval(0.5, -3), "count"),
    ("t_interval []", lambda: t_interval([]), "values"),
    ("t_interval nan", lambda: t_interval([1.0, NAN]), "values[1]"),
    ("t_interval inf array", lambda: t_interval(np.array([math.inf])), "values[0]"),  # type: ignore[arg-type]
    ("t_quantile 0", lambda: stats.t_quantile(0), "df"),
    ("t_quantile -1", lambda: stats.t_quantile(-1), "df"),
    ("interval 2-D", lambda: stats.interval(np.zeros((2, 2))), "values"),
    ("interval nan", lambda: stats.interval(np.array([NAN])), "values[0]"),
    ("interval proportion 2", lambda: stats.interval(np.array([0.5, 2.0]), proportion=True), "values[1]"),
    ("play_deals deal -1", lambda: play_deals(GREEDY, [-1], 0, {}), "deal_numbers[0]"),
    ("play_deals two entrants", lambda: play_deals(GREEDY[:2], [3], 0, {}), "entrants"),
    ("play_deals seed=-1", lambda: play_deals(GREEDY, [0], -1, {}), "seed"),
    ("win_shares 1-D", lambda: win_shares(np.zeros(3, dtype=bool)), "winners"),
    ("win_shares 3-D", lambda: win_shares(np.zeros((1, 2, 3), dtype=bool)), "winners"),
    ("win_shares ints 2", lambda: win_shares(np.full((2, 2), 2)), "winners"),
]


@pytest.mark.parametrize(("call", "name"), [case[1:] for case in WRONG_TYPES], ids=[c[0] for c in WRONG_TYPES])
def test_a_wrong_type_is_an_invalid_type_error_naming_the_argument(call: Call, name: str) -> None:
    with pytest.raises(InvalidTypeError) as caught:
        call()
    assert name in str(caught.value)
    assert caught.value.code == "bad_type"


@pytest.mark.parametrize(("call", "name"), [case[1:] for case in BAD_VALUES], ids=[c[0] for c in BAD_VALUES])
def test_a_bad_value_is_a_four_cards_error_naming_the_argument(call: Call, name: str) -> None:
    with pytest.raises(FourCardsError) as caught:
        call()
    assert name in str(caught.value)


def test_good_inputs_keep_working() -> None:
    assert Entrant.of("search", label="s", iterations=5) == Entrant("search", (("iterations", 5),), "s")
    assert parse_entrant("search:iterations=400;margin=none") == Entrant.of("search", iterations=400, margin=None)
    assert hash(Entrant.of("search", iterations=5)) == hash(parse_entrant("search:iterations=5"))
    assert str(wilson_interval(np.float64(0.5), np.int64(100))) == "0.500 [0.404, 0.596]"  # type: ignore[arg-type]
    assert wilson_interval(1, 1).high == 1.0 and wilson_interval(0, 3).low == 0.0
    assert str(t_interval((1, 2, 3))) == str(t_interval(np.array([1.0, 2.0, 3.0]))) == "2.000 [-0.484, 4.484]"  # type: ignore[arg-type]
    assert math.isinf(t_interval([4.0]).high)
    assert stats.t_quantile(np.int64(1)) == 12.706  # type: ignore[arg-type]
    assert stats.interval(np.array([], dtype=float)) == {"mean": None, "low": None, "high": None}
    assert stats.interval(np.array([True, False]), proportion=True)["mean"] == 0.5
    assert stats.interval([1.0, 2.0, 3.0])["mean"] == 2.0  # type: ignore[arg-type]
    assert list(win_shares(np.array([[True, True], [False, True]]))) == [0.5, 1.5]
    assert list(win_shares(np.array([[1, 0], [0, 0]]))) == [1.0, 0.0]
    assert win_shares(np.zeros((0, 3), dtype=bool)).shape == (3,)
    assert rule_values(DEFAULT_GAME, ("target_score=50",)) == {"target_score": 50}
    records = play_deals(GREEDY, range(2), np.int64(3), {"target_score": 30})  # type: ignore[arg-type]
    assert len(records) == 8 and records == play_deals(GREEDY, [0, 1], 3, {"target_score": 30})
    with ThreadPoolExecutor(2) as pool:
        result = run_tournament(GREEDY, np.int64(2), seed=3, executor=pool, chunk=1,  # type: ignore[arg-type]
                                target_score=30)
    assert result.records == run_tournament(GREEDY, 2, seed=3, target_score=30).records


def test_a_refused_tournament_plays_nothing() -> None:
    played: list[tuple[int, int]] = []
    with pytest.raises(InvalidTypeError, match="executor"):
        run_tournament(GREEDY, 1, executor=object(), progress=lambda done, total: played.append((done, total)))  # type: ignore[arg-type]
    assert played == []
