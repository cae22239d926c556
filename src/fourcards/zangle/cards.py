"""Zangle cards, the deck, and Zangles: checking one, finding all, the best.

A card is a shape (its notation, ``1``..``5d``) or ``Z`` (no triangles).
Kinds are coded ``0`` (``Z``) and ``1``..``10`` (the shapes in
``SHAPE_ORDER``).  A Zangle is a target card plus two or more piece cards whose
shapes tile the target (Z cards add nothing and may join any Zangle), at least
three cards, with cards from both the centre and the player's own cards.

>>> zangles = find_zangles(["4b", "2", "Z", "3"], ["1", "5a", "1"])
>>> best = best_zangle("4b 2 Z 3", "1 5a 1")  # text: cards split on blanks or commas
>>> len(zangles), str(best)
(13, '5a(own) = Z(centre) + 1(own) + 1(own) + 3(centre)')
>>> best
<Zangle 5a(own) = Z(centre) + 1(own) + 1(own) + 3(centre)>
>>> check_zangle("4b", ["3", "1"], ["centre", "own"], target_place="centre").valid
True
>>> check_zangle("Z", ["1", "1"], ["own", "centre"]).reason
'a Z card cannot be a target'
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice, product
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..errors import FourCardsError, InvalidCardError, InvalidTypeError
from . import _kernels, _reference
from .geometry import SHAPE_ORDER, SHAPES
from .tiling import TILINGS

__all__ = ["KINDS", "DEFAULT_DECK", "deck_cards", "Zangle", "Check", "check_zangle", "find_zangles",
           "best_zangle", "has_zangle", "zangles_with_z_at_most", "MAX_LISTED", "MAX_PIECES", "MAX_ROUND_CARDS",
           "kind_code", "CENTRE", "OWN", "pack_counts", "zangle_rows", "zangle_from_row",
           "find_zangles_packed", "split_cards", "card_code", "check_packed", "check_zangle_value"]

KINDS: Final[tuple[str, ...]] = ("Z",) + SHAPE_ORDER
"""Card kinds by code: ``Z`` then the 10 shapes."""
SIZE: Final[tuple[int, ...]] = (0,) + tuple(SHAPES[s].size for s in SHAPE_ORDER)
CENTRE, OWN = 0, 1
PLACES: Final = ("centre", "own")
DEFAULT_DECK: Final[dict[str, int]] = {
    "Z": 4, "1": 20, "2": 20, "3": 20, "4a": 8, "4b": 8, "4c": 8, "5a": 8, "5b": 8, "5c": 8, "5d": 8,
}
"""The default composition **[decision]**: 120 cards."""
COLOURS: Final = {0: "white", 1: "blue", 2: "red", 3: "purple", 4: "yellow", 5: "green"}

# Tilings by target code: the piece kinds' counts (codes 1..10) of each tiling.
TILING_COUNTS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {
    KINDS.index(target): tuple(
        tuple(pieces.count(kind) for kind in KINDS) for pieces in tilings
    )
    for target, tilings in TILINGS.items()
}


def kind_code(card: str) -> int:
    """The code of a card given by notation (case-insensitive)."""
    if not isinstance(card, str):
        raise InvalidTypeError(f"a Zangle card is given by its notation (a str), not {type(card).__name__} ({card!r})")
    text = card.strip().lower()
    for code, kind in enumerate(KINDS):
        if kind.lower() == text:
            return code
    raise InvalidCardError(f"{card!r} is not a Zangle card: Z, {', '.join(SHAPE_ORDER)}")


MAX_DECK: Final = 10_000
"""The most cards a deck composition may hold."""

MAX_ROUND_CARDS: Final = 120_000
"""The most cards a match deals (rounds x deck; 1,000 rounds of the default deck): a
player with no Zangle is dealt hits automatically (turn style), card after card."""

MAX_PIECES: Final = 200
"""The most pieces a :class:`Zangle` holds (:func:`check_zangle_value`; only Z cards,
which join in any number, take a Zangle past a handful)."""


def deck_cards(composition: Mapping[str, int] | None = None) -> list[int]:
    """The deck as card codes (default: :data:`DEFAULT_DECK`)."""
    composition = DEFAULT_DECK if composition is None else composition
    if not isinstance(composition, Mapping):
        raise InvalidTypeError(f"a deck composition maps card notation to a count (a dict), not "
                               f"{type(composition).__name__}")
    cards: list[int] = []
    for kind, count in composition.items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise FourCardsError(f"deck count for {kind!r} must be a non-negative int, got {count!r}")
        if len(cards) + count > MAX_DECK:
            raise FourCardsError(f"deck count for {kind!r} ({count}) takes the deck past {MAX_DECK} cards")
        cards += [kind_code(kind)] * count
    if not cards:
        raise FourCardsError("a deck needs at least one card")
    return cards


@dataclass(frozen=True)
class Zangle:
    """A target and its pieces, each card with its place (``CENTRE`` or ``OWN``)."""

    target: int
    target_place: int
    pieces: tuple[tuple[int, int], ...]  # (kind, place), sorted

    @property
    def cards(self) -> int:
        return 1 + len(self.pieces)

    @property
    def own_cards(self) -> int:
        return (self.target_place == OWN) + sum(1 for _, place in self.pieces if place == OWN)

    def uses(self, place: int) -> dict[int, int]:
        """Card counts by kind taken from ``place``."""
        counts: dict[int, int] = {}
        if self.target_place == place:
            counts[self.target] = 1
        for kind, where in self.pieces:
            if where == place:
                counts[kind] = counts.get(kind, 0) + 1
        return counts

    def __str__(self) -> str:
        try:
            check_zangle_value(self)
        except (FourCardsError, TypeError):  # fields out of range: shown as they are, never misread
            return f"Zangle(target={self.target!r:.20}, target_place={self.target_place!r:.20}, " \
                   f"pieces={self.pieces!r:.60})"
        pieces = " + ".join(f"{KINDS[k]}({PLACES[p]})" for k, p in self.pieces)
        return f"{KINDS[self.target]}({PLACES[self.target_place]}) = {pieces}"

    def __repr__(self) -> str:
        return f"<Zangle {self}>"


def check_zangle_value(zangle: object) -> Zangle:
    """A :class:`Zangle` whose fields are all in range (kinds 0..10, places
    ``CENTRE``/``OWN``, pieces a tuple of pairs), else ``FourCardsError``
    (``TypeError`` for another type).  It does not check the rules: see
    :func:`check_zangle`."""
    if not isinstance(zangle, Zangle):
        raise InvalidTypeError(f"expected a Zangle, not {type(zangle).__name__}")

    def in_range(value: object, high: int) -> bool:
        return type(value) is int and 0 <= value < high

    if not in_range(zangle.target, len(KINDS)) or not in_range(zangle.target_place, 2):
        raise FourCardsError(f"Zangle target {zangle.target!r} at place {zangle.target_place!r}: "
                             f"kinds are 0..{len(KINDS) - 1}, places 0 (centre) or 1 (own)")
    if not isinstance(zangle.pieces, tuple) or len(zangle.pieces) > MAX_PIECES:
        raise FourCardsError(f"Zangle pieces must be a tuple of (kind, place) pairs, got {zangle.pieces!r:.80}")
    for piece in zangle.pieces:
        if not (isinstance(piece, tuple) and len(piece) == 2 and in_range(piece[0], len(KINDS))
                and in_range(piece[1], 2)):
            raise FourCardsError(f"Zangle piece {piece!r:.40}: a (kind 0..{len(KINDS) - 1}, "
                                 f"place 0 or 1) pair")
    return zangle


@dataclass(frozen=True)
class Check:
    """The answer of :func:`check_zangle`: valid, or the rule that failed."""

    valid: bool
    reason: str = ""

    def __repr__(self) -> str:
        return "<Check: a valid Zangle>" if self.valid else f"<Check: not a Zangle, {self.reason}>"


def _place(place: object, name: str) -> str:
    """``"centre"`` or ``"own"`` (any case, blanks around), checked; errors name ``name``."""
    if not isinstance(place, str):
        raise InvalidTypeError(f"{name}: a place is 'centre' or 'own', not {type(place).__name__} {place!r:.40}")
    text = place.strip().lower()
    if text not in PLACES:
        raise FourCardsError(f"{name}: {place!r:.40} is not a place: centre or own")
    return text


def check_zangle(target: str, pieces: str | Sequence[str], places: str | Sequence[str],
                 target_place: str = "centre") -> Check:
    """Check a Zangle against every rule; a refusal says which rule failed.

    ``target`` and ``pieces`` are cards as in :func:`find_zangles` (notations, or kind
    codes 0..10; text is split on blanks and commas); ``places`` gives ``"centre"`` or
    ``"own"`` for each piece.  Input that is no Zangle at all (a float, an unknown card
    or place, more places than pieces) raises :class:`FourCardsError`
    (:class:`InvalidTypeError` for a wrong type) naming the argument."""
    codes = [_card(card, "pieces") for card in split_cards(pieces, "pieces")]
    where = [_place(place, "places") for place in split_cards(places, "places")]
    if len(where) != len(codes):
        raise FourCardsError(f"{len(codes)} pieces but {len(where)} places: give one place for each piece")
    target_place = _place(target_place, "target_place")
    target_code = _card(target, "target")
    if target_code == 0:
        return Check(False, "a Z card cannot be a target")
    if len(codes) < 2:
        return Check(False, "a Zangle needs at least two pieces")
    if 1 + len(codes) < 3:
        return Check(False, "a Zangle needs at least three cards")
    used = set(where) | {target_place}
    if used != set(PLACES):
        return Check(False, "a Zangle uses cards from both the centre and the player's own cards")
    shapes = sorted(KINDS[c] for c in codes if c != 0)
    if shapes not in TILINGS[KINDS[target_code]]:
        return Check(False, f"the pieces {' '.join(shapes) or '(none)'} do not cover {KINDS[target_code]} exactly")
    return Check(True)


def card_code(card: str | int) -> int:
    """The code of a card given by notation or by code (0..10), checked."""
    if isinstance(card, str):
        return kind_code(card)
    try:
        code = operator.index(card) if not isinstance(card, bool) else None
    except TypeError:
        code = None
    if code is None:
        raise InvalidTypeError(f"a Zangle card is a notation (str) or a code (int 0..10), not "
                               f"{type(card).__name__} ({card!r})")
    if not 0 <= code < len(KINDS):
        raise InvalidCardError(f"{code} is not a Zangle card code (0..{len(KINDS) - 1})")
    return code


def split_cards(cards: str | Iterable[str | int], name: str = "cards") -> list[str | int]:
    """Cards as a list: text is split on blanks and commas (``"4b 2 Z"``), like
    every game's text input; other iterables are taken item by item, at most
    :data:`MAX_DECK` of them (more, as from an endless iterator, is refused).
    Another type (a number, ``None``, bytes) raises :class:`InvalidTypeError`
    naming ``name``."""
    if isinstance(cards, str):
        found: list[str | int] = list(cards.replace(",", " ").split())
    else:
        try:
            if isinstance(cards, (bytes, bytearray)):
                raise TypeError
            items = iter(cards)
        except TypeError:
            raise InvalidTypeError(f"{name} must be text or a list of cards, not {type(cards).__name__} "
                                   f"{cards!r:.40}") from None
        found = list(islice(items, MAX_DECK + 1))
    if len(found) > MAX_DECK:
        raise FourCardsError(f"{name} holds more than {MAX_DECK} cards (the most a deck holds)")
    return found


def _card(card: object, name: str) -> int:
    """:func:`card_code`, its error naming the argument ``name``."""
    try:
        return card_code(card)  # type: ignore[arg-type]
    except FourCardsError as error:
        raise type(error)(f"{name}: {error}") from None


def _counts(cards: str | Iterable[str | int], name: str = "cards") -> list[int]:
    counts = [0] * len(KINDS)
    for card in split_cards(cards, name):
        counts[_card(card, name)] += 1
    return counts


MAX_LISTED: Final = 1_000_000
"""The most cards :func:`find_zangles` lists in all (its Zangles' cards summed)."""

Shape = tuple[int, int, list[tuple[int, int]], int, int]


def _shapes(centre: str | Iterable[str | int], own: str | Iterable[str | int]) -> Iterator[Shape]:
    """Each way of tiling a target from the cards before any Z card joins:
    ``(target, target_place, pieces, Z cards in the centre, Z cards in own)``.
    Their number does not grow with the Z cards (the Zangles do: each count
    of Z cards from each place is another one)."""
    avail = [_counts(centre, "centre"), _counts(own, "own")]
    for target in range(1, len(KINDS)):
        for target_place in (CENTRE, OWN):
            if not avail[target_place][target]:
                continue
            rest = [list(avail[0]), list(avail[1])]
            rest[target_place][target] -= 1
            for tiling in TILING_COUNTS[target]:
                choices = []
                for kind in range(1, len(KINDS)):
                    need = tiling[kind]
                    if need:
                        low = max(0, need - rest[OWN][kind])
                        high = min(need, rest[CENTRE][kind])
                        if low > high:
                            break
                        choices.append([(kind, c, need - c) for c in range(low, high + 1)])
                else:
                    for split in product(*choices):
                        pieces = []
                        for kind, from_centre, from_own in split:
                            pieces += [(kind, CENTRE)] * from_centre + [(kind, OWN)] * from_own
                        yield target, target_place, pieces, rest[CENTRE][0], rest[OWN][0]


def _with_z(shape: Shape, z_centre: int, z_own: int) -> Zangle | None:
    """The shape with that many Z cards from each place, or None when that is no Zangle."""
    target, target_place, pieces, _, _ = shape
    all_pieces = pieces + [(0, CENTRE)] * z_centre + [(0, OWN)] * z_own
    places = {target_place} | {p for _, p in all_pieces}
    if len(all_pieces) < 2 or len(places) < 2:
        return None
    return Zangle(target, target_place, tuple(sorted(all_pieces)))


def _z_counts(shape: Shape, most_z: int | None, most_pieces: int = MAX_PIECES) -> Iterator[tuple[int, int]]:
    """Each Z count from the centre with the most from own that goes with it (at
    most ``most_z`` a place, at most ``most_pieces`` pieces in all)."""
    _, _, pieces, z_centre, z_own = shape
    if most_z is not None:
        z_centre, z_own = min(z_centre, most_z), min(z_own, most_z)
    room = most_pieces - len(pieces)
    for from_centre in range(min(z_centre, room) + 1):
        yield from_centre, min(z_own, room - from_centre)


def _listed_cards(shape: Shape, most_pieces: int) -> int:
    """The cards of every Zangle of one shape summed, at most (each count of Z cards from each place)."""
    total = 0
    for from_centre, own_most in _z_counts(shape, None, most_pieces):
        n = own_most + 1
        total += n * (len(shape[2]) + 1 + from_centre) + n * (n - 1) // 2
    return total


def find_zangles(centre: str | Iterable[str | int], own: str | Iterable[str | int],
                 limit: int | np.integer[Any] | None = None,
                 most_pieces: int | np.integer[Any] = MAX_PIECES) -> list[Zangle]:
    """Every distinct Zangle from the centre cards and a player's own cards
    (distinct as multisets of cards by kind and place) of at most
    ``most_pieces`` pieces (2..:data:`MAX_PIECES`).  Cards are text (``"4b 2 Z 3"``), or an
    iterable of notations or kind codes; anything else raises
    :class:`FourCardsError` (:class:`InvalidTypeError` for a wrong type) naming
    ``centre`` or ``own``.

    Every number of Z cards from each place makes another Zangle, so many Z
    cards make very many: a list of more than :data:`MAX_LISTED` cards in all
    is refused (:func:`best_zangle` and :func:`has_zangle` take any number);
    ``limit=n`` lists the first ``n`` instead, whatever the cards.

    >>> len(find_zangles("4b 2 " + "Z " * 300, "1 1 " + "Z " * 300, limit=5))
    5
    """
    limit = None if limit is None else _int_in(limit, "limit", 0, MAX_LISTED, " (or None)")
    most_pieces = _int_in(most_pieces, "most_pieces", 2, MAX_PIECES)
    shapes = list(_shapes(centre, own))
    if limit is None:
        total = sum(_listed_cards(shape, most_pieces) for shape in shapes)
        if total > MAX_LISTED:
            raise FourCardsError(f"centre and own make Zangles of up to {total} cards in all (each number of "
                                 f"Z cards is another Zangle), more than the {MAX_LISTED} find_zangles lists: "
                                 "pass limit=, or use best_zangle or has_zangle")
    return _listed(shapes, limit, None, most_pieces)


def _int_in(value: object, name: str, low: int, high: int, more: str = "") -> int:
    """``value`` checked as an int ``low..high`` (numpy ints too; not a bool, a float or text):
    an :class:`InvalidTypeError` for another type, a :class:`FourCardsError` for another value."""
    if isinstance(value, np.integer) and not isinstance(value, np.bool_):
        value = int(value)
    if type(value) is not int or not low <= value <= high:
        raise (InvalidTypeError if type(value) is not int else FourCardsError)(
            f"{name}={value!r:.40} must be an int {low}..{high}{more}")
    return value


def _listed(shapes: Iterable[Shape], limit: int | None, most_z: int | None,
            most_pieces: int = MAX_PIECES) -> list[Zangle]:
    """The Zangles of the shapes, the first ``limit`` (None: all), with at most
    ``most_z`` Z cards from each place (None: any number) and ``most_pieces`` pieces."""
    found: list[Zangle] = []
    for shape in shapes:
        for z_centre, own_most in _z_counts(shape, most_z, most_pieces):
            for z_own in range(own_most + 1):
                if limit is not None and len(found) >= limit:
                    return found
                zangle = _with_z(shape, z_centre, z_own)
                if zangle is not None:
                    found.append(zangle)
    return found


def zangles_with_z_at_most(centre: str | Iterable[str | int], own: str | Iterable[str | int],
                           most_z: int) -> list[Zangle]:
    """:func:`find_zangles`, only the Zangles with at most ``most_z`` Z cards
    from each place (a game's actions: ``fourcards.zangle.game.zangle_actions``).

    >>> len(zangles_with_z_at_most("4b 2 Z 3", "1 5a 1", 0)), len(find_zangles("4b 2 Z 3", "1 5a 1"))
    (6, 13)
    """
    return _listed(_shapes(centre, own), None, _int_in(most_z, "most_z", 0, 15))


def has_zangle(centre: str | Iterable[str | int], own: str | Iterable[str | int]) -> bool:
    """Whether the cards make any Zangle (as fast with many Z cards as with none).

    >>> has_zangle("4b 3", "1"), has_zangle("2 Z", "1")
    (True, False)
    """
    return any(_best_of(shape, MAX_PIECES) is not None for shape in _shapes(centre, own))


def _best_key(zangle: Zangle) -> tuple[int, int, int, int, tuple[tuple[int, int], ...]]:
    """Most own cards, then most cards, then the lowest target code, centre first, then pieces."""
    return (-zangle.own_cards, -zangle.cards, zangle.target, zangle.target_place, zangle.pieces)


def _best_of(shape: Shape, most_pieces: int) -> Zangle | None:
    """The best Zangle of one shape of at most ``most_pieces`` pieces: the most
    own Z cards, then the most centre Z cards (one own Z card fewer when a centre
    one is needed to take cards from both places)."""
    _, _, pieces, z_centre, z_own = shape
    room = most_pieces - len(pieces)
    own_most = min(z_own, room)
    for from_own in (own_most, own_most - 1):
        if from_own >= 0:
            zangle = _with_z(shape, min(z_centre, room - from_own), from_own)
            if zangle is not None:
                return zangle
    return None


def best_zangle(centre: str | Iterable[str | int], own: str | Iterable[str | int],
                most_pieces: int | np.integer[Any] = MAX_PIECES) -> Zangle | None:
    """The Zangle that uses the most of the player's own cards (ties: the most
    cards, then the lowest target code, a centre target first, then the
    lowest pieces), of at most ``most_pieces`` pieces, or ``None``.  Many Z
    cards cost nothing here: of each way of tiling a target, only the Zangle
    with the most Z cards can be the best.

    >>> str(best_zangle("4b 2 Z 3", "1 5a 1", most_pieces=2))
    '1(own) = Z(centre) + 1(own)'
    """
    most_pieces = _int_in(most_pieces, "most_pieces", 2, MAX_PIECES)
    best: Zangle | None = None
    for shape in _shapes(centre, own):
        zangle = _best_of(shape, most_pieces)
        if zangle is not None and (best is None or _best_key(zangle) < _best_key(best)):
            best = zangle
    return best


def pack_counts(cards: str | Iterable[str | int]) -> int:
    """Card counts packed 4 bits a kind (kind ``k`` at bit ``4k``): the fast path's input."""
    counts = _counts(cards)
    if max(counts) > 15:
        raise FourCardsError("at most 15 cards of a kind in one place")
    return sum(n << (4 * k) for k, n in enumerate(counts))


def zangle_rows(zangles: Iterable[Zangle]) -> list[tuple[int, ...]]:
    """Zangles as the fast path's rows: target, target place, then the count of
    pieces of each (kind, place), kind 0..10, place centre/own."""
    rows = []
    for z in zangles:
        counts = [0] * (2 * len(KINDS))
        for kind, place in z.pieces:
            counts[2 * kind + place] += 1
        rows.append((z.target, z.target_place, *counts))
    return rows


def zangle_from_row(row: Sequence[int]) -> Zangle:
    pieces = []
    for kind in range(len(KINDS)):
        pieces += [(kind, CENTRE)] * int(row[2 + 2 * kind]) + [(kind, OWN)] * int(row[3 + 2 * kind])
    return Zangle(int(row[0]), int(row[1]), tuple(sorted(pieces)))


check_packed = _reference.check_packed
"""Packed card counts (:func:`pack_counts`), checked: an int of 44 bits."""


def _find_packed_reference(centre: int, own: int) -> list[tuple[int, ...]]:
    """The fast path's rows from packed counts by :func:`find_zangles`: a third
    search, to check both kernels against."""
    centre, own = check_packed(centre, "centre"), check_packed(own, "own")
    c = [k for k in range(len(KINDS)) for _ in range((centre >> (4 * k)) & 15)]
    o = [k for k in range(len(KINDS)) for _ in range((own >> (4 * k)) & 15)]
    return zangle_rows(find_zangles(c, o))


_kernels.prepare(TILING_COUNTS)


def find_zangles_packed(centre: int, own: int) -> npt.NDArray[np.uint8]:
    """Fast path: every Zangle as rows of a ``uint8`` array (rows x 24) from
    packed counts (:func:`pack_counts`), by the compiled kernel or its twin."""
    return _kernels.zangle_find_packed(centre, own)
