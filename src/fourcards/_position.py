"""The checks every game's ``from_position`` shares.

A position arrives from a puzzle setter, an endgame study or a server
restoring a table: any value may be wrong.  Each helper checks one input and
raises a :class:`~fourcards.errors.FourCardsError` whose message names it
(``hands[2]``, ``current``) and the reason; a wrong type is an
:class:`~fourcards.errors.InvalidStateError` too, not a ``TypeError``, so a
caller catches every refusal of a position with one ``except``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from .errors import FourCardsError, ImpossibleCardsError, InvalidStateError, InvalidTypeError

__all__ = ["per_seat", "seat", "seat_set", "number", "parse", "required", "no_unknown", "shown", "deck_holds",
           "playable"]

T = TypeVar("T")


def shown(value: Any) -> str:
    """A short ``repr`` of an input for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def required(value: T | None, name: str, example: str) -> T:
    """``value``, or a refusal saying ``name`` must be given."""
    if value is None:
        raise InvalidStateError(f"{name} is required, e.g. {example}")
    return value


def no_unknown(game: str, unknown: Mapping[str, Any], known: Iterable[str]) -> None:
    """Refuse keywords a game's position does not have."""
    if unknown:
        raise InvalidStateError(f"{game} positions have no {', '.join(sorted(unknown))}: "
                                f"they take {', '.join(known)}")


def per_seat(value: Any, name: str, players: int) -> list[Any]:
    """A list or tuple with one entry a seat (text and mappings are refused)."""
    if not isinstance(value, (list, tuple)):
        raise InvalidStateError(f"{name} must be a list with one entry a seat ({players}), "
                                f"not {type(value).__name__} {shown(value)}")
    if len(value) != players:
        raise InvalidStateError(f"{name} lists {len(value)} seats, but the game has {players}")
    return list(value)


def seat(value: Any, name: str, players: int) -> int:
    """A seat number 0..players-1 (an int, not a bool)."""
    if type(value) is not int:
        raise InvalidStateError(f"{name} must be a seat (an int 0..{players - 1}), "
                                f"not {type(value).__name__} {shown(value)}")
    if not 0 <= value < players:
        raise InvalidStateError(f"{name}={value} is not a seat: seats are 0..{players - 1}")
    return value


def seat_set(value: Any, name: str, players: int) -> tuple[int, ...]:
    """Distinct seats, given as a list or tuple; returned sorted."""
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise InvalidStateError(f"{name} must be a list of seats, not {type(value).__name__} {shown(value)}")
    seats = [seat(item, f"{name} entry", players) for item in value]
    if len(set(seats)) != len(seats):
        raise InvalidStateError(f"{name} names a seat twice: {shown(value)}")
    return tuple(sorted(seats))


def number(value: Any, name: str, low: int = 0, high: int | None = None) -> int:
    """An int (not a bool) in ``low..high``."""
    if type(value) is not int:
        raise InvalidStateError(f"{name} must be an int, not {type(value).__name__} {shown(value)}")
    if value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise InvalidStateError(f"{name}={value} must be {bounds}")
    return value


def parse(parser: Callable[[Any], T], value: Any, name: str) -> T:
    """``parser(value)`` with its refusals renamed after the input: a
    ``FourCardsError`` keeps its class and gains ``name``; a ``TypeError``
    (cards of the wrong type, an :class:`InvalidTypeError` too) becomes an
    :class:`InvalidStateError`."""
    if isinstance(value, (bytes, bytearray)):
        raise InvalidStateError(f"{name} must be card text or a list of cards, not bytes")
    try:
        return parser(value)
    except InvalidTypeError as error:  # cards of the wrong type: a refused position, as below
        raise InvalidStateError(f"{name}: {error}") from None
    except FourCardsError as error:
        try:
            renamed: FourCardsError = type(error)(f"{name}: {error}")
        except TypeError:  # an error class with another constructor
            renamed = InvalidStateError(f"{name}: {error}")
        raise renamed from None
    except (TypeError, AttributeError) as error:
        raise InvalidStateError(f"{name}: {error}") from None


def deck_card_codes(deck: Any, value: Any, name: str) -> list[int]:
    """The codes of the cards ``value`` names in ``deck`` (text, comma or space
    separated, or a list of card ids), each a ``FourCardsError`` naming ``name`` if unknown."""
    def read(cards: Any) -> list[int]:
        items = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
        return [deck.card(item).code for item in items]
    return parse(read, value, name)


def deck_holds(places: Sequence[tuple[str, Iterable[int]]], copies: Callable[[int], int],
               names: Sequence[str]) -> None:
    """Refuse a card placed more often, over every place of the position,
    than the deck holds it; the message names the card and its places.

    ``places`` pairs an input's name with the card codes it holds."""
    where: dict[int, dict[str, int]] = {}
    for place, codes in places:
        for code in codes:
            counts = where.setdefault(code, {})
            counts[place] = counts.get(place, 0) + 1
    for code in sorted(where):
        total, cap = sum(where[code].values()), copies(code)
        if total > cap:
            listed = ", ".join(place if k == 1 else f"{place} x{k}" for place, k in where[code].items())
            held = "once" if cap == 1 else f"{cap} times"
            raise ImpossibleCardsError(f"{names[code]} is placed {total} times ({listed}): "
                                       f"the deck holds it {held}")


def playable(state: Any) -> None:
    """Refuse a position that leaves the player to act no legal action (rules
    that cannot all be kept, such as a first lead that must hold ``M1`` and
    be the highest single at once)."""
    if not state.is_terminal and not state.legal_actions():
        raise InvalidStateError(f"the position leaves seat {state.current_player} no legal action "
                                f"({state.describe()})")
