"""Hostile input and rule fixes for Zangle and the deck loader (issue 12)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fourcards import FourCardsError
from fourcards.decks import DeckError, load_deck
from fourcards.errors import InvalidCardError, InvalidRulesError, InvalidTypeError, UnknownSeatError
from fourcards.zangle import _kernels as zangle_kernels
from fourcards.zangle.bots import GreedyBot
from fourcards.zangle.cards import (CENTRE, OWN, Zangle, _best_key, _find_packed_reference, best_zangle, deck_cards,
                                    MAX_PIECES, check_zangle_value, find_zangles, find_zangles_packed, has_zangle,
                                    kind_code, pack_counts, zangles_with_z_at_most)
from fourcards.zangle.game import ZangleGame, ZangleState
from fourcards.zangle.speedster import SpeedsterBot, SpeedsterTable, run_speedster

FIND_PACKED = [pytest.param(find_zangles_packed, id="fast path"), pytest.param(_find_packed_reference, id="twin")]


# -- codes, packed counts and decks ------------------------------------------------------------

@pytest.mark.parametrize("cards, error", [
    ([-1], InvalidCardError), ([11], InvalidCardError), ([1.5], InvalidTypeError), ([True], InvalidTypeError),
    (["Q"], InvalidCardError), ("1 2 13", InvalidCardError), (b"12", InvalidTypeError), ([None], InvalidTypeError),
])
def test_card_codes_are_checked(cards: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        pack_counts(cards)
    with pytest.raises(error):
        find_zangles(cards, ["1"])


def test_pack_counts_still_takes_codes_and_notation() -> None:
    assert pack_counts([0, "Z", 10]) == 2 + (1 << 40)


@pytest.mark.parametrize("find", FIND_PACKED)
@pytest.mark.parametrize("centre, own, error", [
    (1.5, 0, InvalidTypeError), (0, 2.0, InvalidTypeError), ("1", 0, InvalidTypeError), (True, 0, InvalidTypeError),
    (-1, 0, FourCardsError), (1 << 44, 0, FourCardsError), (0, 1 << 70, FourCardsError),
])
def test_packed_counts_are_checked_the_same_on_both_paths(find: Callable[[Any, Any], Any], centre: Any,
                                                          own: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        find(centre, own)


def test_the_compiled_kernel_checks_on_its_own() -> None:
    core = zangle_kernels.core
    if core is None:
        pytest.skip("the compiled Zangle kernel is not built")
    for bad in (1.5, -1, 1 << 44):
        with pytest.raises((InvalidTypeError, FourCardsError)):
            core.zangle_find_packed(bad, 0)


@pytest.mark.parametrize("composition, error", [
    (["1", "2"], InvalidTypeError), ([("1", 20)], InvalidTypeError), ({"1": True}, FourCardsError),
    ({"1": 10**9}, FourCardsError), ({"1": -1}, FourCardsError), ({1: 3}, InvalidTypeError),
    ({"Q": 3}, InvalidCardError),
    ({"1": 2.0}, FourCardsError),
])
def test_deck_compositions_are_checked(composition: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        deck_cards(composition)


def test_kind_code_names_a_wrong_type() -> None:
    with pytest.raises(InvalidTypeError, match="notation"):
        kind_code(3)  # type: ignore[arg-type]


# -- turn style: a round without Zangles ends only once the centre draw pile is empty ----------

def round_ends(state: ZangleState, monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool, bool]]:
    """(centre pile left, someone out, bonus) at every round end while the game plays out."""
    ends: list[tuple[int, bool, bool]] = []
    original = ZangleState._end_round

    def spy(self: ZangleState) -> None:
        out = any(not self._cards[s] and not self._piles[s] for s in self._seats)
        ends.append((len(self._centre_pile), out, self._bonus))
        original(self)

    monkeypatch.setattr(ZangleState, "_end_round", spy)
    bots = [GreedyBot() for _ in range(state.game.num_players)]
    while not state.is_terminal:
        seat = state.current_player
        state.apply(bots[seat].choose(state.observation(seat), state.legal_actions()))
    return ends


@pytest.mark.parametrize("seed", range(6))
def test_rounds_end_with_a_player_out_or_the_centre_pile_empty(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    state = ZangleGame(players=3).new_match(seed)
    ends = round_ends(state, monkeypatch)
    assert len(ends) >= 3
    for pile, out, _bonus in ends:
        assert out or pile == 0, ends
    assert state.card_count() == 120


def test_a_bonus_round_also_waits_for_the_empty_pile(monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in range(4):
        # seat 2, the last to play, makes a Zangle with its last cards: the round ends in a
        # three-way tie at 0 points, and a bonus round is dealt from the seed
        s = ZangleGame(players=3, rounds=1).from_position(centre="2", cards=["", "", "1 1"], current=2, seed=seed)
        s.apply("2(centre) = 1(own) + 1(own)")
        assert s._bonus and s._centre_pile
        ends = round_ends(s, monkeypatch)
        assert ends and all(out or pile == 0 for pile, out, _ in ends), ends
        monkeypatch.undo()


# -- Speedster -------------------------------------------------------------------------------------

def test_speedster_bots_make_no_false_calls() -> None:
    for seed in (1, 2, 3):
        table = run_speedster(SpeedsterTable(players=3, seed=seed),
                              [SpeedsterBot(0, 0.2), SpeedsterBot(1, 0.4), SpeedsterBot(2, 0.6)])
        kinds = [o.kind for o in table.outcomes]
        assert table.over and kinds.count("zangle") > 20
        assert kinds.count("false call") == 0, kinds.count("false call")
        assert table.card_count() == 120
        for outcome in table.outcomes:
            if outcome.kind == "round end":
                points = json.loads(outcome.detail.split("points ")[1].split(", totals")[0])
                assert sum(points) <= 120


def test_a_call_that_loses_a_race_is_not_a_false_call() -> None:
    table = SpeedsterTable(players=2, seed=4)
    one, z = kind_code("1"), kind_code("Z")
    table.centre = [one, z, z, z]
    table.centre_pile = [kind_code("5d")] * 10  # refills that cannot make the same Zangle again
    table.cards = [[one, kind_code("5a"), kind_code("5b")], [one, kind_code("5c"), kind_code("5d")]]
    table._new_version()  # the table shows the centre set above
    version = table.snapshot().version
    same = Zangle(one, CENTRE, ((z, CENTRE), (one, OWN)))
    table.submit_call(0, same, 1.0, version)
    table.submit_call(1, same, 1.5, version)
    pile = len(table.piles[1])
    kinds = [o.kind for o in table.resolve(2.0)]
    assert kinds[:2] == ["zangle", "late call"]
    assert len(table.piles[1]) == pile  # no penalty card
    assert table.snapshot().version > version
    # a Zangle that does not fit the centre it was made on is still a false call
    table.submit_call(1, same, 3.0)
    assert table.resolve(3.0)[-1].kind == "false call"
    with pytest.raises(FourCardsError, match="version"):
        table.submit_call(1, same, 4.0, table.snapshot().version + 1)
    for stale in (0, -1):  # version 0 was before the first deal: it named no centre
        with pytest.raises(FourCardsError, match="version"):
            table.submit_call(1, same, 4.0, stale)
    for wrong in (True, 1.0):
        with pytest.raises(InvalidTypeError, match="version must be an int"):
            table.submit_call(1, same, 4.0, wrong)  # type: ignore[arg-type]


def test_an_old_version_does_not_excuse_a_zangle_that_never_fitted() -> None:
    """A client naming an old version was never penalised: any Zangle that did not fit the
    current centre was a ``late call``. The rules: "only a Zangle that does not fit the centre
    it was made on is penalised"; the table judges a call by its version's centre."""
    table = SpeedsterTable(players=3, seed=1)
    first = table.snapshot().version
    bogus = Zangle(target=0, target_place=CENTRE, pieces=((1, OWN), (1, OWN)))  # a Z target: never a Zangle
    table._new_version()  # the centre moved on (as after another seat's Zangle)
    piles = [len(p) for p in table.piles]
    table.submit_call(0, bogus, 0.1, first)
    assert [o.kind for o in table.resolve(0.2)] == ["false call"]
    assert len(table.piles[0]) == piles[0] + 1


@pytest.mark.parametrize("zangle", [
    Zangle(kind_code("2"), CENTRE, ((kind_code("1"), -1), (kind_code("1"), OWN))),
    Zangle(kind_code("2"), CENTRE, ((kind_code("1"), 2), (kind_code("1"), OWN))),
    Zangle(11, CENTRE, ((1, OWN), (1, CENTRE))),
    Zangle(2, -1, ((1, OWN), (1, CENTRE))),
    Zangle(2, CENTRE, [(1, OWN), (1, CENTRE)]),  # type: ignore[arg-type]
    Zangle(2, CENTRE, ((1, OWN, 0), (1, CENTRE))),  # type: ignore[arg-type]
    Zangle(2, CENTRE, ((1.0, OWN), (1, CENTRE))),  # type: ignore[arg-type]
])
def test_speedster_checks_a_zangle_before_touching_the_table(zangle: Zangle) -> None:
    table = SpeedsterTable(players=2, seed=4)
    before = (table.snapshot(), table.card_count())
    with pytest.raises(FourCardsError):
        table.submit_call(0, zangle, 1.0)
    table.resolve(2.0)
    assert (table.snapshot(), table.card_count()) == before == (before[0], 120)


@pytest.mark.parametrize("timestamp, error", [
    (float("nan"), FourCardsError), (float("inf"), FourCardsError), ("1.0", InvalidTypeError), (None, InvalidTypeError),
    (10**400, FourCardsError), (-(10**400), FourCardsError),  # a bare OverflowError (an adversarial review)
])
def test_speedster_timestamps_are_finite_numbers(timestamp: Any, error: type[Exception]) -> None:
    table = SpeedsterTable(players=2, seed=4)
    with pytest.raises(error):
        table.submit_hit(0, timestamp)
    if timestamp is not None:  # resolve(None): everything queued
        with pytest.raises(error):
            table.resolve(timestamp)
    table.submit_hit(0, 1.0)  # later events still resolve
    assert [o.kind for o in table.resolve(1.0)] == ["hit"]
    with pytest.raises(InvalidTypeError, match="player must be an int"):
        table.submit_hit(True, 2.0)  # a wrong type is an InvalidTypeError, as in the engine
    with pytest.raises(UnknownSeatError, match="player 3 is not a seat"):
        table.submit_hit(3, 2.0)
    table.submit_hit(0, np.float32(2.5))  # type: ignore[arg-type]  # numpy's numbers are numbers, as in the engine
    table.submit_hit(np.int64(1), 2.5)  # type: ignore[arg-type]  # seats too
    assert table.pending(0) == 1 and table.pending(np.int64(1)) == 1  # type: ignore[arg-type]


@pytest.mark.parametrize("seat, error", [(2, UnknownSeatError), (-1, UnknownSeatError), ("0", InvalidTypeError),
                                         (True, InvalidTypeError)])
def test_speedster_pending_names_a_seat(seat: Any, error: type[Exception]) -> None:
    # pending(9), pending(-1) and pending("x") answered 0 (an adversarial review)
    table = SpeedsterTable(players=2, seed=4)
    with pytest.raises(error, match="player"):
        table.pending(seat)


def test_one_seats_events_at_one_time_resolve_in_a_fixed_order() -> None:
    results = []
    for calls_first in (True, False):
        table = SpeedsterTable(players=2, seed=4)
        seat = next(s for s in range(2) if find_zangles(table.centre, table.cards[s]))
        zangle = find_zangles(table.centre, table.cards[seat])[0]
        events: list[Callable[[], None]] = [lambda: table.submit_call(seat, zangle, 1.0),  # noqa: B023
                                            lambda: table.submit_hit(seat, 1.0)]  # noqa: B023
        for submit in events if calls_first else events[::-1]:
            submit()
        results.append([o.kind for o in table.resolve(1.0)])
    assert results[0] == results[1]
    assert results[0][:2] == ["zangle", "hit"]


def test_at_round_end_every_wrong_winner_scores_five() -> None:
    table = SpeedsterTable(players=3, seed=4, check="at_round_end")
    wrong = Zangle(kind_code("4b"), CENTRE, ((kind_code("2"), OWN), (kind_code("2"), OWN)))
    for seat in (0, 1):
        table.zangles[seat] = [(wrong, False)]
        table.cards[seat], table.piles[seat] = [], []
    table._check_round_end(1.0)
    assert table.totals == [5, 5, 0]
    assert table.levels == [0, 0, 0]  # caught with a wrong Zangle: no round won, no equalizer


def test_bonus_round_at_level_three_shows_three_cards_and_ends() -> None:
    table = SpeedsterTable(players=2, seed=4, rounds=1)
    table.levels = [3, 3]
    table.totals = [10, 10]
    table._start_round([0, 1], bonus=True)
    assert [len(c) for c in table.cards] == [3, 3] and [len(p) for p in table.piles] == [1, 1]
    # nobody can make a Zangle and nobody may hit (3 face-up cards at level 3): the round ends
    z, names = kind_code("Z"), ("5a", "5b", "5c", "5d")
    table.centre = [z, z, z, z]
    table.cards = [[kind_code(n) for n in names[:3]], [kind_code(n) for n in names[1:]]]
    assert not any(find_zangles(table.centre, table.cards[s]) for s in range(2))
    table.submit_hit(0, 1.0)
    kinds = [o.kind for o in table.resolve(1.0)]
    assert kinds == ["refused hit", "game end"] and table.over and table.winners == (0, 1)


def test_speedster_bots_finish_bonus_rounds_at_high_levels() -> None:
    for seed in range(3):
        table = SpeedsterTable(players=2, seed=seed, rounds=1)
        table.levels = [3, 4]
        table._start_round([0, 1], bonus=True)
        run_speedster(table, [SpeedsterBot(0, 0.3), SpeedsterBot(1, 0.5)], max_time=5000.0)
        assert table.over


# -- the deck loader ---------------------------------------------------------------------------------

def sample() -> dict[str, Any]:
    from importlib import resources

    data: dict[str, Any] = json.loads(resources.files("fourcards.decks").joinpath("elements.json").read_text())
    return data


def write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "deck.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


@pytest.mark.parametrize("change, problem", [
    (lambda d: d.update(version=True), "version"),
    (lambda d: d["families"].update(A=3), "families.A"),
    (lambda d: d["families"].update(B=""), "families.B"),
    (lambda d: d.update(cards=[]), "cards: empty"),
    (lambda d: d["cards"][0]["values"].update(density=10**400), "not a number"),
    (lambda d: d["cards"][0]["values"].update(density=-(10**309)), "not a number"),
])
def test_deck_values_misread_before_are_refused(tmp_path: Path, change: Callable[[dict[str, Any]], Any],
                                                problem: str) -> None:
    data = sample()
    change(data)
    with pytest.raises(DeckError, match=problem):
        load_deck(write(tmp_path, json.dumps(data)))


@pytest.mark.parametrize("content, problem", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"format": "fourcards-deck", "x": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deeply|not JSON"),
    (b"\xff\xfe{}", "not UTF-8"),
    ('{"version": ' + "9" * 5000 + "}", "not JSON"),
])
def test_deck_files_that_are_not_decks_get_a_deck_error(tmp_path: Path, content: str | bytes, problem: str) -> None:
    with pytest.raises(DeckError, match=problem):
        load_deck(write(tmp_path, content))


def test_the_deck_loader_refuses_a_path_of_the_wrong_type() -> None:
    with pytest.raises(InvalidTypeError):
        load_deck(3)  # type: ignore[arg-type]
    with pytest.raises(DeckError):
        load_deck("no\0such")


# -- the public helpers refuse bad input with a named FourCardsError (issue: first user's report) --

@pytest.mark.parametrize("call, error, name", [
    pytest.param(lambda z: z.free_shapes(2**70), FourCardsError, "size", id="free_shapes-huge"),
    pytest.param(lambda z: z.one_sided_shapes(2**70), FourCardsError, "size", id="one_sided_shapes-huge"),
    pytest.param(lambda z: z.free_shapes(9), FourCardsError, "size", id="free_shapes-past-bound"),
    pytest.param(lambda z: z.free_shapes(-1), FourCardsError, "size", id="free_shapes-negative"),
    pytest.param(lambda z: z.free_shapes(0), FourCardsError, "size", id="free_shapes-zero"),
    pytest.param(lambda z: z.one_sided_shapes(-1), FourCardsError, "size", id="one_sided_shapes-negative"),
    pytest.param(lambda z: z.free_shapes(1.5), InvalidTypeError, "size", id="free_shapes-float"),
    pytest.param(lambda z: z.free_shapes("3"), InvalidTypeError, "size", id="free_shapes-str"),
    pytest.param(lambda z: z.free_shapes(True), InvalidTypeError, "size", id="free_shapes-bool"),
    pytest.param(lambda z: z.one_sided_shapes(None), InvalidTypeError, "size", id="one_sided_shapes-none"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], float("nan")), FourCardsError, "size", id="svg-nan"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], float("inf")), FourCardsError, "size", id="svg-inf"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], -5), FourCardsError, "size", id="svg-negative"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], 0), FourCardsError, "size", id="svg-zero"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], "40"), InvalidTypeError, "size", id="svg-str-size"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], None), InvalidTypeError, "size", id="svg-none-size"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], 40.0, None), InvalidTypeError, "fill", id="svg-none-fill"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], 40.0, "red\n"), FourCardsError, "fill", id="svg-control-fill"),
    pytest.param(lambda z: z.svg([(0, 0, 0)], 40.0, "#" * 10_000), FourCardsError, "fill", id="svg-long-fill"),
    pytest.param(lambda z: z.svg([(10**400, 0, 0)]), FourCardsError, "cells", id="svg-far-cell"),
    pytest.param(lambda z: z.svg("3"), InvalidTypeError, "cells", id="svg-str-cells"),
    pytest.param(lambda z: z.ascii_art("3"), InvalidTypeError, "cells", id="ascii_art-str"),
    pytest.param(lambda z: z.ascii_art([]), FourCardsError, "cells", id="ascii_art-empty"),
    pytest.param(lambda z: z.ascii_art([(0, 0, 0), (0, 10**9, 0)]), FourCardsError, "cells", id="ascii_art-wide"),
    pytest.param(lambda z: z.canonical("3"), InvalidTypeError, "cells", id="canonical-str"),
    pytest.param(lambda z: z.canonical(5), InvalidTypeError, "cells", id="canonical-int"),
    pytest.param(lambda z: z.canonical([]), FourCardsError, "cells", id="canonical-empty"),
    pytest.param(lambda z: z.canonical([(0, 0)]), FourCardsError, "cells", id="canonical-pair"),
    pytest.param(lambda z: z.canonical([(0, 0, 2)]), FourCardsError, "cells", id="canonical-down-2"),
    pytest.param(lambda z: z.canonical([(0, 0, True)]), InvalidTypeError, "cells", id="canonical-down-bool"),
    pytest.param(lambda z: z.canonical([(0.5, 0, 0)]), InvalidTypeError, "cells", id="canonical-float-i"),
    pytest.param(lambda z: z.canonical(itertools.repeat((0, 0, 0))), FourCardsError, "cells", id="canonical-endless"),
    pytest.param(lambda z: z.best_zangle(1.5, "1"), InvalidTypeError, "centre", id="best_zangle-float"),
    pytest.param(lambda z: z.find_zangles("4b", None), InvalidTypeError, "own", id="find_zangles-none"),
    pytest.param(lambda z: z.find_zangles(["4b", 1.5], "1"), InvalidTypeError, "centre", id="find_zangles-float-card"),
    pytest.param(lambda z: z.find_zangles("4b", "1 Q"), InvalidCardError, "own", id="find_zangles-unknown-card"),
    pytest.param(lambda z: z.find_zangles(itertools.count(), "1"), FourCardsError, "centre",
                 id="find_zangles-endless"),
    pytest.param(lambda z: z.check_zangle("2", 1.5, "own own"), InvalidTypeError, "pieces", id="check_zangle-float"),
    pytest.param(lambda z: z.check_zangle("2", "1 1", ["own", None]), InvalidTypeError, "places",
                 id="check_zangle-none-place"),
    pytest.param(lambda z: z.check_zangle("2", "1 1", "own home"), FourCardsError, "places",
                 id="check_zangle-unknown-place"),
    pytest.param(lambda z: z.check_zangle(2.5, "1 1", "own own"), InvalidTypeError, "target",
                 id="check_zangle-float-target"),
    pytest.param(lambda z: z.check_zangle("2", "1 1", "own own", 3), InvalidTypeError, "target_place",
                 id="check_zangle-int-target-place"),
])
def test_zangle_helpers_refuse_bad_input_naming_the_argument(call: Callable[[Any], Any], error: type[Exception],
                                                             name: str) -> None:
    import fourcards.zangle as zangle
    with pytest.raises(error, match=re.escape(name)):  # raises (a huge size or endless input never runs)
        call(zangle)


def test_svg_escapes_the_fill_so_it_stays_one_attribute() -> None:
    from fourcards.zangle import svg
    drawn = svg([(0, 0, 0)], 40.0, '"><script>alert(1)</script>')
    assert "<script" not in drawn and 'fill="&quot;&gt;&lt;script&gt;' in drawn
    assert svg([(0, 0, 0)], 40.0, "rgb(1, 2, 3)").count('fill="rgb(1, 2, 3)"') == 1


def test_zangle_helpers_still_take_good_input() -> None:
    import numpy as np

    from fourcards.zangle import SHAPES, ascii_art, canonical, check_zangle, free_shapes, one_sided_shapes, svg
    assert [len(free_shapes(n)) for n in range(1, 9)] == [1, 1, 1, 3, 4, 12, 24, 66]
    assert len(one_sided_shapes(np.int64(5))) == 6  # type: ignore[arg-type]
    assert canonical([[np.int64(5), 2, 1]]) == ((0, 0, 0),)  # type: ignore[list-item]
    assert ascii_art(iter(SHAPES["4b"].cells)) == " /\\\n/\\/\\"
    assert svg(SHAPES["1"].cells, 1, "#4a90d9").startswith("<svg")
    assert check_zangle("4b", [3, 1], ["centre", "OWN "]).valid  # type: ignore[list-item]


# -- many Z cards: every number of them is another Zangle ------------------------------------------
# The rules: "A Z card adds no triangles and may be added to any Zangle as a piece, in any number."
# A deck of many Z cards (a custom deck, or Speedster hits piling them up face up) made find_zangles
# build every count of them from each place: 200 a place took 4 s, thousands ran out of memory, and
# Speedster listed them again after every event (a server table of such a deck stalled its loop).

MANY_Z = ("4a 1 " + "Z " * 200, "2 2 1 " + "Z " * 200)
SMALL_HANDS = st.lists(st.integers(0, 10), max_size=6)


class _Counted:
    """How many Zangles were made since the fixture began."""

    made = 0


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> type[_Counted]:
    """Counts the Zangles made (the class's ``__init__`` wrapped: a subclass put in
    ``fourcards.zangle.cards`` was bound for good by a module first imported meanwhile)."""
    made = Zangle.__init__

    def counting(self: Zangle, *args: Any, **kwargs: Any) -> None:
        _Counted.made += 1
        made(self, *args, **kwargs)

    _Counted.made = 0
    monkeypatch.setattr(Zangle, "__init__", counting)
    return _Counted


def test_a_listing_too_big_is_refused_and_its_first_zangles_are_listed_on_request(
        counted: type[_Counted]) -> None:
    with pytest.raises(FourCardsError, match=r"centre and own make Zangles of up to \d+ cards .* limit=") as info:
        find_zangles(*MANY_Z)
    assert not isinstance(info.value, InvalidTypeError) and counted.made == 0
    first = find_zangles(*MANY_Z, limit=50)
    assert len(first) == 50 and all(check_zangle_fits(z, *MANY_Z) for z in first)
    small = ("4a 1 Z Z", "2 2 1 Z")
    assert find_zangles(*small, limit=7) == find_zangles(*small)[:7]
    assert find_zangles(*small, limit=0) == [] and find_zangles(*small, limit=10**6) == find_zangles(*small)
    assert find_zangles(*small, limit=np.int64(7)) == find_zangles(*small)[:7]  # numpy ints, as elsewhere
    assert best_zangle(*small, most_pieces=np.int32(2)) == best_zangle(*small, most_pieces=2)


def check_zangle_fits(zangle: Zangle, centre: str, own: str) -> bool:
    """The Zangle is valid and its cards are among the centre's and own."""
    from fourcards.zangle.cards import check_zangle
    places = {CENTRE: "centre", OWN: "own"}
    return bool(check_zangle(kind_code_of(zangle.target), [kind_code_of(k) for k, _ in zangle.pieces],
                             [places[p] for _, p in zangle.pieces], target_place=places[zangle.target_place]).valid
                and all(zangle.uses(place).get(k, 0) <= cards.split().count(kind_code_of(k))
                        for place, cards in ((CENTRE, centre), (OWN, own)) for k in range(11)))


def kind_code_of(code: int) -> str:
    from fourcards.zangle.cards import KINDS
    return KINDS[code]


@pytest.mark.parametrize("limit, error", [
    (1.5, InvalidTypeError), (True, InvalidTypeError), ("5", InvalidTypeError), (-1, FourCardsError),
    (10**7, FourCardsError), (2**70, FourCardsError),
])
def test_the_limit_is_checked(limit: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="limit="):
        find_zangles("4a 1", "2 2", limit=limit)


def test_the_best_zangle_and_whether_there_is_one_do_not_list_every_number_of_z_cards(
        counted: type[_Counted]) -> None:
    centre, own = "4a 1 " + "Z " * 5000, "2 2 1 " + "Z " * 4000
    best = best_zangle(centre, own)
    # at most MAX_PIECES pieces (what check_zangle_value and a Speedster table take), own Z cards first
    assert best is not None and check_zangle_value(best) is best and len(best.pieces) == MAX_PIECES
    assert best.own_cards == MAX_PIECES and best.uses(CENTRE) == {1: 1}, best  # 1(centre) = 199 Z(own) + 1(own)
    assert has_zangle(centre, own) and not has_zangle("Z " * 5000, "Z " * 5000)
    assert counted.made < 200, counted.made  # one a way of tiling, not one a number of Z cards
    table = SpeedsterTable(players=2, seed=0)
    table.submit_call(0, best, timestamp=0.1)  # a value the table takes (it refuses more pieces)
    with pytest.raises(FourCardsError):
        table.submit_call(0, Zangle(best.target, best.target_place, best.pieces + ((0, OWN),)), timestamp=0.1)


@given(SMALL_HANDS, SMALL_HANDS)
@settings(max_examples=300, deadline=None)
def test_best_has_and_capped_agree_with_the_full_listing(centre: list[int], own: list[int]) -> None:
    listing = find_zangles(centre, own)
    assert has_zangle(centre, own) == bool(listing)
    assert best_zangle(centre, own) == (min(listing, key=_best_key) if listing else None)
    for most in (2, 3, 4):
        fewer = [z for z in listing if len(z.pieces) <= most]
        assert best_zangle(centre, own, most_pieces=most) == (min(fewer, key=_best_key) if fewer else None)
    for most in (0, 1, 2):
        assert zangles_with_z_at_most(centre, own, most) == [
            z for z in listing if z.uses(CENTRE).get(0, 0) <= most and z.uses(OWN).get(0, 0) <= most]


@pytest.mark.parametrize("most, error", [(1.5, InvalidTypeError), (16, FourCardsError), (-1, FourCardsError)])
def test_the_z_cap_is_checked(most: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="most_z="):
        zangles_with_z_at_most("4a 1", "2 2", most)


@pytest.mark.parametrize("most, error", [(1.5, InvalidTypeError), (True, InvalidTypeError), (1, FourCardsError),
                                         (MAX_PIECES + 1, FourCardsError), (2**70, FourCardsError)])
def test_the_piece_cap_is_checked(most: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="most_pieces="):
        best_zangle("4a 1", "2 2", most_pieces=most)


def test_a_listing_holds_only_zangles_of_at_most_max_pieces() -> None:
    centre, own = "1 " + "Z " * 190, "1 " + "Z " * 12
    listing = find_zangles(centre, own)
    assert listing and max(len(z.pieces) for z in listing) == MAX_PIECES
    assert all(check_zangle_value(z) is z for z in listing)


def test_a_speedster_table_of_z_cards_stays_quick_and_its_view_lists_at_most_its_share(
        counted: type[_Counted]) -> None:
    from fourcards.server.protocol import MAX_TEXT_LENGTH
    from fourcards.server.speedster import VIEW_ZANGLES, SpeedsterMaster
    table = SpeedsterTable(players=2, seed=1, deck={"Z": 1500, "1": 40, "2": 40, "3": 40})
    for step in range(1, 601):
        table.submit_hit(0, timestamp=step * 0.01)
    outcomes = table.resolve(10.0)
    assert [o.kind for o in outcomes].count("hit") == 600
    assert counted.made < 100 * 600, counted.made  # each event asks whether there is one, not for every one
    snapshot = table.snapshot()
    assert snapshot.cards[0].count(0) > 400
    view = SpeedsterMaster._view(snapshot, 0)
    assert len(view["zangles"]) == VIEW_ZANGLES and view["more_zangles"] is True
    assert all(len(z["text"]) <= MAX_TEXT_LENGTH for z in view["zangles"])  # each one a call can carry
    assert SpeedsterMaster._view(snapshot, None)["zangles"] == []
    few = SpeedsterTable(players=2, seed=1)
    view = SpeedsterMaster._view(few.snapshot(), 0)
    assert view["more_zangles"] is False and len(view["zangles"]) == len(find_zangles(
        few.snapshot().centre, few.snapshot().cards[0]))


@pytest.mark.parametrize("rounds, error", [(True, "rounds=True"), (1.5, "rounds=1.5"), (0, "rounds=0"),
                                           (1001, "rounds=1001"), (999, "at most 120000 cards")])
def test_speedster_rounds_are_an_int_and_a_match_deals_a_bounded_number_of_cards(rounds: Any, error: str) -> None:
    # True was taken as one round (the server stored "rounds": true); 100,000 rounds of a
    # deck of 1,000 cards let one table's bots play and be stored for months
    deck = {"Z": 60, "1": 60, "2": 60} if rounds == 999 else None  # 180 cards
    with pytest.raises(InvalidRulesError, match=re.escape(error)):
        SpeedsterTable(players=2, rounds=rounds, deck=deck)


def test_a_speedster_deck_that_makes_no_zangle_is_refused() -> None:
    with pytest.raises(InvalidRulesError, match="no Zangle can be made from this deck"):
        SpeedsterTable(players=2, deck={"Z": 1000})


def test_the_servers_speedster_bot_calls_a_zangle_a_call_can_carry() -> None:
    """Its best Zangle (hundreds of Z pieces) was refused and tried again every tick: a table of
    many Z cards stopped for good (no message for 60 s). It calls the best a call can carry."""
    from types import SimpleNamespace

    from fourcards.server.protocol import MAX_TEXT_LENGTH
    from fourcards.server.speedster import SpeedsterMaster

    table = SpeedsterTable(players=2, seed=1, deck={"Z": 1500, "1": 40, "2": 40, "3": 40})
    for step in range(1, 401):
        table.submit_hit(0, timestamp=step * 0.01)
    table.resolve(10.0)
    master = SimpleNamespace(table=table)
    for kind in ("greedy", "random"):
        text = SpeedsterMaster._bot_choice(master, 0, kind, table.version)  # type: ignore[arg-type]
        assert text is not None and text != "hit" and len(text) <= MAX_TEXT_LENGTH, text
        zangle = SpeedsterMaster._zangle(text, None)
        if kind == "greedy":
            assert text.count("Z(own)") > 10, text  # as many Z cards as the call carries
            assert zangle == best_zangle(list(table.snapshot().centre), list(table.snapshot().cards[0]),
                                         most_pieces=len(zangle.pieces))
    chosen = SpeedsterMaster._bot_choice(master, 0, "greedy", table.version)  # type: ignore[arg-type]
    assert chosen is not None
    table.submit_call(0, SpeedsterMaster._zangle(chosen, None), timestamp=20.0)
    assert [o.kind for o in table.resolve(21.0)][0] == "zangle"


def test_a_zangle_game_of_many_z_cards_offers_only_its_actions() -> None:
    game = ZangleGame(players=2, deck={"Z": 300, "5a": 20, "1": 10, "4a": 10})  # few ways: Z cards pile up
    state = game.new_match(3)
    bots = [GreedyBot(), GreedyBot()]
    seen_many = False
    while not state.is_terminal:
        seat = state.current_player
        legal = state.legal_actions()
        seen_many |= state.observation(seat).cards[seat].count("Z") > game.z_max
        assert all(game.actions[a].uses(p).get(0, 0) <= game.z_max for a in legal for p in (CENTRE, OWN))
        state.apply(bots[seat].choose(state.observation(seat), legal))
    assert game.z_max == 15 and seen_many
