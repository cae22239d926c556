"""The public API of every game on both kernel sets, in one process.

:func:`fourcards._backend.using` switches every game's kernels (compiled or
the pure-Python twins) for a block; each test here runs the public API under
its parameter's kernels and under the other set, and asserts the same answers.
The ``compiled`` parameter is skipped when the extensions are not in use.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pytest

import fourcards.fourcolor as fc
import fourcards.gangoffour as gof
from fourcards._backend import using
from fourcards.duelo import CategoryBot, Duelo
from fourcards.engine import play_match
from fourcards.fourcolor import FourColor
from fourcards.fourcolor import GreedyBot as FourColorGreedy
from fourcards.fourcolor import simulate as fc_simulate
from fourcards.fourpack import FourPack, MemoryBot
from fourcards.gangoffour import GangOfFour
from fourcards.gangoffour import GreedyBot as GangOfFourGreedy
from fourcards.gangoffour import _kernels as gof_kernels
from fourcards.gangoffour.simulate import random_playouts, simulate
from fourcards.zangle import GreedyBot as ZangleGreedy
from fourcards.zangle import ZangleGame, best_zangle, find_zangles
from fourcards.zangle.cards import deck_cards, find_zangles_packed, pack_counts

T = TypeVar("T")
COMPILED_AVAILABLE = gof_kernels._COMPILED is not None
KINDS = [pytest.param("compiled", marks=pytest.mark.skipif(not COMPILED_AVAILABLE,
                                                           reason="the compiled kernels are not in use")),
         "reference"]


def plain(value: Any) -> Any:
    """Answers as comparable data (arrays as lists)."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.tolist())
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("kind", KINDS)
class TestPublicAPI:
    """Each answer under ``kind``'s kernels equals the other set's (or, without
    the compiled kernels, a second run on the twin)."""

    def same(self, kind: str, run: Callable[[], T]) -> T:
        other = ("reference" if kind == "compiled" else "compiled") if COMPILED_AVAILABLE else kind
        with using(kind):
            got = run()
        with using(other):
            want = run()
        assert plain(got) == plain(want), f"{kind} and {other} kernels disagree"
        return got

    def test_the_switch_is_in_force_and_undone(self, kind: str) -> None:
        before = (gof_kernels.sim, gof_kernels.COMPILED, gof.combos.legal_actions, fc.best_points_packed,
                  fc._kernels.melds)
        with using(kind):
            assert (gof_kernels.sim is not None) == gof_kernels.COMPILED == (kind == "compiled")
            assert (gof_kernels.search is not None) == (kind == "compiled")
            assert (fc._kernels.melds is not None) == fc._kernels.COMPILED == (kind == "compiled")
            assert (gof.combos.legal_actions is gof_kernels.legal_actions)
        assert (gof_kernels.sim, gof_kernels.COMPILED, gof.combos.legal_actions, fc.best_points_packed,
                fc._kernels.melds) == before

    # -- Gang of Four --------------------------------------------------------------------------

    def test_gang_of_four_classify_beats_legal_plays(self, kind: str) -> None:
        deck = [str(card) for card in gof.DECK]

        def run() -> list[Any]:
            rng = random.Random(1)
            out: list[Any] = []
            for _ in range(40):
                hand = rng.sample(deck, rng.randint(1, 16))
                combo = gof.classify(hand[:5])
                table = gof.classify(hand[-1:])
                out.append((str(combo), gof.beats(hand[-1:], table) if table else None,
                            [str(c) for c in gof.legal_plays(hand, table)], gof.legal_mask(hand, table)))
            codes = np.array([[gof.Card.parse(c).code for c in rng.sample(deck, 5)] for _ in range(30)], np.uint8)
            out.append(gof.classify_batch(codes))
            return out

        answers = self.same(kind, run)
        assert answers[0][0] == str(gof.classify(random.Random(1).sample(deck, 16)[:5]))

    def test_gang_of_four_matches(self, kind: str) -> None:
        def run() -> list[Any]:
            out: list[Any] = []
            # short matches: the twin's legal-play search walks every combination
            state = play_match(GangOfFour(players=2, target_score=6).new_match(1), [GangOfFourGreedy()] * 2)
            out.append((state.actions, state.scores, state.winners))
            sim = simulate(2, seed=4, policies=("greedy", "random"), rules=gof.Rules(players=2, target_score=6),
                           record=True)
            out.append((sim.scores, sim.winners, sim.rounds, sim.steps, sim.actions))
            position = GangOfFour(players=3, target_score=4).from_position(
                hands=["G2 Y3 R4 G5 Y6", "Y9 R9 G10", "RD G3"], current=1, round=2)
            out.append(random_playouts(position, playouts=3, seed=3, record=True).returns)
            return out

        self.same(kind, run)

    # -- Four Color ----------------------------------------------------------------------------------

    def test_four_color_best_split_and_waits(self, kind: str) -> None:
        deck = [str(card) for card in fc.DECK]

        def run() -> list[Any]:
            rng = random.Random(2)
            out: list[Any] = []
            for size in (5, 8, 11, 14, 3, 7):
                for _ in range(4):
                    hand = rng.sample(deck, size)
                    split = fc.best_split(hand)
                    out.append((str(split), split.points if split else None, fc.is_complete(hand),
                                {str(c): p for c, p in fc.waits(hand).items()}, fc.best_points(hand),
                                fc.best_points_packed(fc.pack(hand))))
            counts = np.array([fc.hand_counts(rng.sample(deck, 11)) for _ in range(8)], np.uint8)
            out += [fc.best_points_batch(counts), fc.best_split_batch(counts), fc.waits_batch(counts)]
            return out

        self.same(kind, run)
        assert str(fc.best_split("RG RA RE WC WH WN")) == "RG RA RE | WC WH WN"

    def test_four_color_games(self, kind: str) -> None:
        def run() -> list[Any]:
            state = play_match(FourColor(players=3, rounds=1).new_match(7), [FourColorGreedy()] * 3)
            result = fc_simulate.simulate(3, seed=5, policies=("greedy", "random", "greedy"),
                                          rules=fc.Rules(players=3, rounds=1), record=True)
            return [state.actions, state.scores, result.scores, result.winners, result.steps, result.actions]

        self.same(kind, run)

    # -- Zangle --------------------------------------------------------------------------------------

    def test_zangle_find_and_best(self, kind: str) -> None:
        deck = deck_cards()

        def run() -> list[Any]:
            rng = random.Random(3)
            out: list[Any] = []
            for _ in range(30):
                cards = rng.sample(deck, 4 + rng.randint(2, 8))
                centre, own = cards[:4], cards[4:]
                out.append(([str(z) for z in find_zangles(centre, own)], str(best_zangle(centre, own)),
                            find_zangles_packed(pack_counts(centre), pack_counts(own))))
            return out

        self.same(kind, run)

    def test_zangle_and_the_other_games_end_to_end(self, kind: str) -> None:
        def run() -> list[Any]:
            zangle = play_match(ZangleGame(players=3).new_match(11), [ZangleGreedy()] * 3)
            pack = play_match(FourPack().new_match(2), [MemoryBot() for _ in range(4)])
            duelo = play_match(Duelo(players=3, hand_limit=200).new_match(3), [CategoryBot()] * 3)
            return [(s.actions, s.scores, s.winners) for s in (zangle, pack, duelo)]

        self.same(kind, run)


def test_using_refuses_an_unknown_kind_and_changes_nothing() -> None:
    before = gof_kernels.legal_actions
    with pytest.raises(ValueError, match="'compiled' or 'reference'"), using("fast"):
        pass  # pragma: no cover
    assert gof_kernels.legal_actions is before
