"""Decks of 32 cards for Four Pack and Duelo, as JSON data.

A deck has 8 families ``A``..``H`` x numbers ``1``..``4`` (``A1``..``H4``);
each card has a name and a numeric value in every category; each category
says whether higher or lower wins.  :func:`load_deck` validates a file and
reports every problem with its place in the file:

>>> deck = load_deck()           # the sample deck: chemical elements
>>> deck.name, len(deck.cards), deck.card("A1").name
('Chemical elements', 32, 'Lithium')
>>> [c.id for c in deck.categories]
['atomic_number', 'atomic_mass', 'density', 'covalent_radius', 'isotopes']
>>> deck.card("H4").value("atomic_number")
54.0

The format (``"format": "fourcards-deck"``, ``"version": 1``)::

    {"format": "fourcards-deck", "version": 1, "name": "...", "source": "...",
     "families": {"A": "Alkali metals", ...},           # exactly A..H
     "categories": [{"id": "density", "name": "Density", "unit": "g/cm3",
                     "higher_wins": true}, ...],         # at least one
     "cards": [{"id": "A1", "name": "Lithium",
                "values": {"density": 0.534, ...}}, ...]}  # A1..H4, every category
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from .._files import read_at_most
from .._words import escaped
from ..errors import FourCardsError, InvalidTypeError

#: The largest deck file read (the shipped one is a few kilobytes).
MAX_DECK_FILE_BYTES: Final = 1_000_000

__all__ = ["Deck", "DeckCard", "Category", "DeckError", "load_deck", "load_deck_bytes", "FAMILIES", "CARD_IDS",
           "shipped_deck", "deck_option", "deck_rule"]

FAMILIES: Final = "ABCDEFGH"
CARD_IDS: Final[tuple[str, ...]] = tuple(f"{f}{n}" for f in FAMILIES for n in range(1, 5))
"""The 32 card ids in deck order; a card's index in this tuple is its code."""


class DeckError(FourCardsError):
    """A deck file with problems; ``problems`` lists each with its place."""

    code = "bad_deck"

    def __init__(self, source: str, problems: list[str]) -> None:
        self.problems = problems
        source = escaped(source)  # a name never reaches a terminal raw
        shown = "\n  ".join(problems[:50]) + (f"\n  ... {len(problems) - 50} more" if len(problems) > 50 else "")
        super().__init__(f"{source}: {len(problems)} problem{'s' if len(problems) != 1 else ''}:\n  {shown}")


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    unit: str
    higher_wins: bool

    def beats(self, a: float, b: float) -> bool:
        """Whether value ``a`` beats value ``b`` in this category."""
        return a > b if self.higher_wins else a < b

    def __str__(self) -> str:
        return self.id

    def __repr__(self) -> str:
        return f"Category({self.id!r}: {self.name})"


@dataclass(frozen=True)
class DeckCard:
    id: str
    code: int
    name: str
    values: tuple[float, ...]
    categories: tuple[str, ...]

    @property
    def family(self) -> str:
        return self.id[0]

    @property
    def number(self) -> int:
        return int(self.id[1])

    def value(self, category: str | Category) -> float:
        """The card's value in ``category`` (a :class:`Category` or its id)."""
        return self.values[self.categories.index(category.id if isinstance(category, Category) else category)]

    def __str__(self) -> str:
        return self.id

    def __repr__(self) -> str:
        return f"DeckCard({self.id!r}: {self.name})"


@dataclass(frozen=True)
class Deck:
    """A validated deck: 32 cards in ``CARD_IDS`` order."""

    name: str
    source: str
    families: tuple[str, ...]
    categories: tuple[Category, ...]
    cards: tuple[DeckCard, ...]
    digest: str

    def card(self, card_id: str | DeckCard) -> DeckCard:
        """The card with this id (case-insensitive), or this deck's card of a :class:`DeckCard`'s id."""
        if isinstance(card_id, DeckCard):
            card_id = card_id.id
        text = card_id.strip().upper() if isinstance(card_id, str) else card_id
        if text not in CARD_IDS:
            raise FourCardsError(f"{card_id!r} is not a card: cards are A1..H4")
        return self.cards[CARD_IDS.index(text)]

    def as_data(self) -> dict[str, Any]:
        """The deck as the JSON data of its file format (what :func:`parse_deck` reads back
        to an equal deck: same name, families, categories and cards)."""
        return {
            "format": "fourcards-deck", "version": 1, "name": self.name, "source": self.source,
            "families": dict(zip(FAMILIES, self.families)),
            "categories": [{"id": c.id, "name": c.name, "unit": c.unit, "higher_wins": c.higher_wins}
                           for c in self.categories],
            "cards": [{"id": card.id, "name": card.name, "values": dict(zip(card.categories, card.values))}
                      for card in self.cards],
        }

    def category_index(self, category: str) -> int:
        """The index of the category ``category`` names: its id, in any case (the id itself
        first, should a deck have ids that differ only in case)."""
        for i, c in enumerate(self.categories):
            if c.id == category:
                return i
        folded = category.strip().casefold()
        matches = [i for i, c in enumerate(self.categories) if c.id.casefold() == folded]
        if len(matches) == 1:
            return matches[0]
        raise FourCardsError(f"{category!r} is not a category of {self.name}: "
                             f"{', '.join(c.id for c in self.categories)}")


def _number(value: Any) -> bool:
    """A finite number a float holds (an int like ``10**400`` is not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def parse_deck(data: Any, source: str = "deck") -> Deck:
    """Validate deck data (already parsed JSON); raise :class:`DeckError` listing every problem."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise DeckError(source, [f"the top level must be an object, not {type(data).__name__}"])
    if data.get("format") != "fourcards-deck":
        problems.append(f"format: expected \"fourcards-deck\", got {data.get('format')!r}")
    if type(data.get("version")) is not int or data.get("version") != 1:
        problems.append(f"version: expected 1, got {data.get('version')!r}")
    for key in ("name", "source"):
        if not isinstance(data.get(key), str) or not data.get(key):
            problems.append(f"{key}: missing or not a non-empty string")
    families = data.get("families")
    if not isinstance(families, dict) or sorted(families) != list(FAMILIES):
        problems.append(f"families: must name exactly the families A..H, got {families!r:.200}")
        families = {f: f for f in FAMILIES}
    for family in FAMILIES:
        if not isinstance(families[family], str) or not families[family]:
            problems.append(f"families.{family}: {families[family]!r:.80} is not a non-empty string")
    categories_data = data.get("categories")
    categories: list[Category] = []
    if not isinstance(categories_data, list) or not categories_data:
        problems.append("categories: missing or empty (a list of objects)")
        categories_data = []
    seen_categories: set[str] = set()
    for i, item in enumerate(categories_data):
        where = f"categories[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: not an object")
            continue
        cid = item.get("id")
        if not isinstance(cid, str) or not cid:
            problems.append(f"{where}.id: missing or not a string")
            continue
        if cid in seen_categories:
            problems.append(f"{where}.id: duplicate category {cid!r}")
        seen_categories.add(cid)
        higher = item.get("higher_wins", True)
        if not isinstance(higher, bool):
            problems.append(f"{where}.higher_wins: {higher!r} is not true or false")
            higher = True
        name = item.get("name", cid)
        unit = item.get("unit", "")
        if not isinstance(name, str) or not isinstance(unit, str):
            problems.append(f"{where}: name and unit must be strings")
        categories.append(Category(cid, str(name), str(unit), higher))
    ids = tuple(c.id for c in categories)
    cards_data = data.get("cards")
    if not isinstance(cards_data, list):
        problems.append("cards: missing (a list of 32 objects)")
        cards_data = []
    by_id: dict[str, tuple[str, tuple[float, ...]]] = {}
    for i, item in enumerate(cards_data):
        where = f"cards[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: not an object")
            continue
        cid = item.get("id")
        if not isinstance(cid, str) or cid.upper() not in CARD_IDS:
            problems.append(f"{where}.id: {cid!r} is not a card id (A1..H4)")
            continue
        cid = cid.upper()
        if cid in by_id:
            problems.append(f"{where}.id: duplicate id {cid!r}")
            continue
        name = item.get("name")
        if not isinstance(name, str) or not name:
            problems.append(f"{where}.name: missing or not a string (card {cid})")
            name = cid
        values = item.get("values")
        if not isinstance(values, dict):
            problems.append(f"{where}.values: missing or not an object (card {cid})")
            values = {}
        for key in values:
            if key not in seen_categories:
                problems.append(f"{where}.values.{key}: unknown category {key!r} (card {cid})")
        row = []
        for category in ids:
            if category not in values:
                problems.append(f"{where}.values.{category}: missing (card {cid})")
                row.append(0.0)
            elif not _number(values[category]):
                problems.append(f"{where}.values.{category}: {values[category]!r} is not a number (card {cid})")
                row.append(0.0)
            else:
                row.append(float(values[category]))
        by_id[cid] = (name, tuple(row))
    if not cards_data:
        problems.append("cards: empty (a deck lists the 32 cards A1..H4)")
    else:
        for cid in CARD_IDS:
            if cid not in by_id:
                problems.append(f"cards: missing card {cid}")
    if problems:
        raise DeckError(source, problems)
    cards = tuple(DeckCard(cid, code, by_id[cid][0], by_id[cid][1], ids) for code, cid in enumerate(CARD_IDS))
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return Deck(str(data["name"]), str(data["source"]), tuple(families[f] for f in FAMILIES),
                tuple(categories), cards, hashlib.sha256(canonical.encode()).hexdigest()[:16])


def load_deck(path: str | Path | None = None) -> Deck:
    """Load and validate a deck file (default: the shipped chemical-elements deck,
    read once a process and shared: a :class:`Deck` is immutable)."""
    if path is None:
        return _shipped_deck()
    if not isinstance(path, (str, Path)):
        raise InvalidTypeError(f"path must be a str or a Path, not {type(path).__name__}")
    try:
        raw = read_at_most(path, MAX_DECK_FILE_BYTES)
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise DeckError(str(path), [f"cannot read the file ({reason})"]) from None
    if raw is None:
        raise DeckError(str(path), [f"the file holds more than {MAX_DECK_FILE_BYTES:,} bytes: no deck is that "
                                    "large"])
    return load_deck_bytes(raw, str(path))


@functools.lru_cache(maxsize=1)
def _shipped_deck() -> Deck:
    raw = resources.files(__package__).joinpath("elements.json").read_bytes()
    return load_deck_bytes(raw, "elements.json")


#: How deep a deck file's JSON may nest (a deck needs 4 levels): deeper is refused before
#: parsing, the same on every Python (3.13 parses what 3.12 found too deep).
MAX_DEPTH = 32
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')


def _nesting(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text, strings skipped (stops past MAX_DEPTH)."""
    depth = deepest = 0
    for token in _BRACKETS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        elif mark in "]}":
            depth -= 1
    return deepest


def load_deck_bytes(raw: bytes, source: str = "deck") -> Deck:
    """Validate a deck file's content (UTF-8 JSON); :class:`DeckError` for anything else."""
    if not isinstance(raw, (bytes, bytearray)):
        raise InvalidTypeError(f"raw must be bytes, not {type(raw).__name__}")
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError as error:
        raise DeckError(source, [f"not UTF-8 text: {error}"]) from None
    if _nesting(text) > MAX_DEPTH:
        raise DeckError(source, [f"not a deck: JSON nested too deeply (more than {MAX_DEPTH} levels)"])
    try:
        data = json.loads(text)
    except RecursionError:
        raise DeckError(source, ["not a deck: JSON nested too deeply"]) from None
    except ValueError as error:  # also an int of more than 4300 digits
        raise DeckError(source, [f"not JSON: {error}"]) from None
    try:
        return parse_deck(data, source)
    except RecursionError:
        raise DeckError(source, ["not a deck: JSON nested too deeply"]) from None


@functools.lru_cache(maxsize=1)
def shipped_deck() -> Deck:
    """The shipped deck (chemical elements), read once (a deck is immutable)."""
    return load_deck()


def deck_option(value: Deck | str | Mapping[str, Any] | None) -> Deck:
    """A game's ``deck`` option as a :class:`Deck`: a deck itself; None (the shipped
    deck); the shipped deck's ``digest`` (what a save of a game on it records); or a
    deck's JSON data (what a save records of any other deck). :class:`DeckError`
    for data with problems or a digest of another deck."""
    if value is None or isinstance(value, Deck):
        return shipped_deck() if value is None else value
    if isinstance(value, str):
        if value == shipped_deck().digest:
            return shipped_deck()
        raise DeckError("deck", [f"{value[:40]!r} is not the digest of the shipped deck: give the deck itself "
                                 "(its JSON data or a Deck)"])
    if isinstance(value, Mapping):
        return parse_deck(dict(value), "deck")
    raise InvalidTypeError(
        f"deck must be a Deck, its JSON data or the shipped deck's digest, not {type(value).__name__}")


def deck_rule(deck: Deck) -> str | dict[str, Any]:
    """What a game's ``rules_dict()`` records of its deck: the shipped deck by its
    digest, any other as its data (:meth:`Deck.as_data`), so the rules rebuild the game."""
    return deck.digest if deck.digest == shipped_deck().digest else deck.as_data()
