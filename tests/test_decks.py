"""Deck data: the sample deck, its generator, and validation with places."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from fourcards import FourCardsError
from fourcards.decks import CARD_IDS, DeckError, load_deck, parse_deck

ROOT = Path(__file__).resolve().parent.parent


def sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(resources.files("fourcards.decks").joinpath("elements.json").read_text())
    return data


def test_the_sample_deck_is_real_chemistry() -> None:
    deck = load_deck()
    assert len(deck.cards) == 32 and [c.id for c in deck.cards] == list(CARD_IDS)
    assert deck.card("a1").name == "Lithium" and deck.card("H4").name == "Xenon"
    assert deck.card("A1").value("atomic_number") == 3 and deck.card("F1").value("atomic_number") == 8
    assert deck.card("G4").value("atomic_mass") == pytest.approx(126.904, abs=0.01)  # iodine
    assert deck.card("D4").value("density") == pytest.approx(7.31, abs=0.05)  # tin
    assert "periodictable" in deck.source and all(c.higher_wins for c in deck.categories)
    for family in "ABCDEFGH":  # numbered by period: atomic numbers increase
        numbers = [deck.card(f"{family}{n}").value("atomic_number") for n in range(1, 5)]
        assert numbers == sorted(numbers)


@pytest.mark.skipif(not (ROOT / "tools" / "generate_elements_deck.py").exists(), reason="source tree only")
def test_generator_reproduces_the_shipped_deck() -> None:
    pytest.importorskip("periodictable")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "generate_elements_deck.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["cards"].pop(5), "missing card B2"),
        (lambda d: d["cards"][7].__setitem__("id", "A2"), "cards[7].id: duplicate id 'A2'"),
        (lambda d: d["cards"][3]["values"].__setitem__("density", "heavy"),
         "cards[3].values.density: 'heavy' is not a number (card A4)"),
        (lambda d: d["cards"][2]["values"].__setitem__("weight", 3),
         "cards[2].values.weight: unknown category 'weight'"),
        (lambda d: d["cards"][9]["values"].pop("isotopes"), "cards[9].values.isotopes: missing (card C2)"),
        (lambda d: d["cards"][0].__setitem__("id", "Z9"), "cards[0].id: 'Z9' is not a card id"),
        (lambda d: d["categories"][1].__setitem__("higher_wins", "yes"), "categories[1].higher_wins"),
        (lambda d: d["families"].pop("H"), "families: must name exactly the families A..H"),
        (lambda d: d.__setitem__("version", 7), "version: expected 1"),
        (lambda d: d["cards"][4]["values"].__setitem__("density", float("nan")), "is not a number"),
    ],
)
def test_every_problem_is_reported_with_its_place(change: Any, message: str) -> None:
    data = sample()
    change(data)
    with pytest.raises(DeckError) as info:
        parse_deck(data, "test.json")
    assert message in str(info.value) and str(info.value).startswith("test.json:")
    assert isinstance(info.value, FourCardsError) and isinstance(info.value, ValueError)


def test_several_problems_at_once() -> None:
    data = sample()
    data["cards"][1]["values"]["density"] = None
    data["cards"][2]["values"]["mass"] = 1
    with pytest.raises(DeckError) as info:
        parse_deck(data)
    assert len(info.value.problems) == 2


def test_files_and_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    data = sample()
    data["categories"][2]["higher_wins"] = False
    path.write_text(json.dumps(data))
    deck = load_deck(path)
    assert not deck.categories[2].higher_wins and deck.categories[2].beats(1.0, 2.0)
    assert deck.digest != load_deck().digest
    path.write_text("{nope")
    with pytest.raises(DeckError, match="not JSON"):
        load_deck(path)
    with pytest.raises(DeckError, match="cannot read"):
        load_deck(tmp_path / "missing.json")
    with pytest.raises(DeckError, match="top level"):
        parse_deck([1, 2])
    with pytest.raises(FourCardsError, match="'Q1' is not a card"):
        load_deck().card("Q1")
    copy.deepcopy(load_deck())
