"""The Python API as a new user meets it: every game package exports its game and
bots at the top (``dir()`` and completion list them), a game's signature shows its
rule fields, and the batch kernels get random hands from a documented helper."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import pydoc
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from fourcards import FourCardsError
from fourcards.games import GAMES
from fourcards.errors import InvalidTypeError

#: What each game package exports at its top: the game, its rules, its bots.
EXPORTS = {
    "gang-of-four": ("gangoffour", "GangOfFour", ("RandomBot", "GreedyBot", "SearchBot", "LearnedBot")),
    "four-color": ("fourcolor", "FourColor", ("RandomBot", "GreedyBot")),
    "zangle": ("zangle", "ZangleGame", ("RandomBot", "GreedyBot", "SpeedsterBot")),
    "four-pack": ("fourpack", "FourPack", ("RandomBot", "MemoryBot")),
    "duelo": ("duelo", "Duelo", ("RandomBot", "CategoryBot")),
}


def test_every_builtin_game_is_listed() -> None:
    builtin = {name for name, entry in GAMES.items() if entry.game_class.__module__.startswith("fourcards.")}
    assert set(EXPORTS) == builtin


@pytest.mark.parametrize("name", list(EXPORTS))
def test_each_game_package_exports_its_game_and_bots_at_the_top(name: str) -> None:
    """``from fourcards.fourcolor import FourColor, GreedyBot``; the registry's engine is that class."""
    package, game, bots = EXPORTS[name]
    module = importlib.import_module(f"fourcards.{package}")
    for attribute in (game, "Rules", *bots):
        assert attribute in module.__all__, attribute
        assert getattr(module, attribute) is not None
    assert getattr(module, game) is GAMES[name].game_class
    assert module.Rules is GAMES[name].game_class.rules_type
    assert module.RandomBot.__name__ == "RandomBot"


def test_dir_lists_the_exports_before_their_first_use() -> None:
    """A fresh interpreter: ``dir()`` (what completion reads) lists the game and bots of
    packages that load them on first use, before anything touched them."""
    code = ("import json, importlib; print(json.dumps({p: dir(importlib.import_module('fourcards.' + p)) "
            f"for p in {[p for p, _, _ in EXPORTS.values()]!r}}}))")
    listed = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout)
    for package, game, bots in EXPORTS.values():
        assert {game, "Rules", *bots} <= set(listed[package]), package


@pytest.mark.parametrize("name", list(EXPORTS))
def test_the_signature_shows_every_rule_field(name: str) -> None:
    """``help(FourColor)`` shows ``players``, ``threshold``, ``rounds``, ... with their defaults."""
    cls = GAMES[name].game_class
    signature = inspect.signature(cls)
    fields = [f for f in dataclasses.fields(cls.rules_type) if not f.name.startswith("_")]
    assert fields and "rules" in signature.parameters
    for f in fields:
        parameter = signature.parameters[f.name]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default == f.default
    text = pydoc.render_doc(cls, renderer=pydoc.TextDoc())
    assert all(f"{f.name}: " in text for f in fields)
    game = cls(**{fields[0].name: fields[0].default})  # the signature is what the class takes
    assert getattr(game.rules, fields[0].name) == fields[0].default


def test_gang_of_four_deals_code_arrays_for_classify_batch() -> None:
    from fourcards.gangoffour import DECK, PAD, classify_batch, deal_codes

    codes = deal_codes(2000, seed=3, cards=(1, 5))
    assert codes.shape == (2000, 5) and codes.dtype == np.uint8 and codes.flags.c_contiguous
    assert np.array_equal(codes, deal_codes(2000, seed=3, cards=(1, 5)))
    assert not np.array_equal(codes, deal_codes(2000, seed=4, cards=(1, 5)))
    deck = Counter(card.code for card in DECK)
    sizes = (codes != PAD).sum(axis=1)
    assert sizes.min() == 1 and sizes.max() == 5
    for row in codes[:300]:
        real = [int(c) for c in row if c != PAD]
        assert real == sorted(real) and all(c == PAD for c in row[len(real):])
        assert all(n <= deck[c] for c, n in Counter(real).items())
    kinds, actions = classify_batch(codes)
    assert (kinds >= 0).sum() > 100 and ((kinds >= 0) == (actions >= 0)).all()
    assert deal_codes(4, seed=1).shape == (4, 16) and deal_codes(0).shape == (0, 16)
    for bad in ({"hands": -1}, {"hands": 2.0}, {"hands": 2, "cards": 65}, {"hands": 2, "cards": (3, 2)},
                {"hands": 2, "seed": -1}, {"hands": True}):
        with pytest.raises(FourCardsError):
            deal_codes(**bad)


def test_four_color_deals_count_rows_for_the_batch_kernels() -> None:
    from fourcards.fourcolor import best_points, best_points_batch, deal_counts, waits_batch

    rows = deal_counts(3000, seed=5)
    assert rows.shape == (3000, 28) and rows.dtype == np.uint8
    assert (rows.sum(axis=1) == 21).all() and rows.max() <= 4
    assert np.array_equal(rows, deal_counts(3000, seed=5))
    points = best_points_batch(rows)
    assert [int(p) for p in points[:50]] == [best_points([int(c) for c in row]) for row in rows[:50]]
    assert waits_batch(deal_counts(10, seed=1, cards=20)).shape == (10, 28)
    assert (deal_counts(3, cards=112) == 4).all() and (deal_counts(3, cards=0) == 0).all()
    for bad in ({"hands": -1}, {"hands": 2, "cards": 113}, {"hands": 2, "cards": 1.5}, {"hands": 2, "seed": 2**64}):
        with pytest.raises(FourCardsError):
            deal_counts(**bad)
    with pytest.raises(InvalidTypeError, match="seed must be an int, not str"):  # as every seed the library takes
        deal_counts(2, seed="1")  # type: ignore[arg-type]
