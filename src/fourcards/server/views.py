"""JSON views of what one seat may see: observations, records, decks.

Every view is built from the engine's ``observation(seat)`` (and, for
Speedster, the public :class:`~fourcards.zangle.speedster.Snapshot`), field by
field: nothing else of the state is read, so a view never holds another
seat's hidden cards. Cards are strings in each game's notation (Gang of Four
``R5``, Four Color ``RG``, Zangle ``4b``, Four Pack and Duelo ``A1``..``H4``).
``docs/server.md`` documents each game's fields.

>>> from fourcards.games import get_game
>>> state = get_game("four-pack").new_game(players=3).new_match(seed=2)
>>> view = observation_view("four-pack", state.observation(0))
>>> sorted(view)
['asks', 'current_player', 'families_down', 'hand', 'hand_sizes', 'seat']
>>> len(view["hand"]) == view["hand_sizes"][0]
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["observation_view", "record_view", "record_text", "speedster_view", "deck_view", "plain"]


def plain(value: Any) -> Any:
    """``value`` as JSON data: dataclasses as objects (with their class under
    ``kind``), tuples as lists, cards, combos and Zangles as their notation."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and _is_record(value):
        data: dict[str, Any] = {"kind": _kind(value)}
        for f in dataclasses.fields(value):
            data[f.name] = plain(getattr(value, f.name))
        return data
    return str(value)  # Card, Combo, Zangle, Play actions: their notation


def _is_record(value: Any) -> bool:
    # A game's records and small public structures; cards and combos print as notation.
    return type(value).__module__.split(".")[-1] in ("match", "game", "speedster")


def _kind(record: Any) -> str:
    name = type(record).__name__
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


# -- records ------------------------------------------------------------------------------------

def record_view(record: Any) -> dict[str, Any]:
    """One history record as JSON data with a readable ``text``."""
    data = plain(record)
    if not isinstance(data, dict):
        data = {"kind": "note", "value": data}
    data["text"] = record_text(record)
    return data


def _seats(seats: Sequence[int]) -> str:
    return ", ".join(f"P{s}" for s in seats) or "nobody"


_TEXTS: dict[str, Callable[[Any], str]] = {
    # Gang of Four
    "RoundStart": lambda r: f"round {r.round}: P{r.dealer} deals, P{r.leader} leads",
    "CardGiven": lambda r: f"P{r.giver} gives {r.card} to P{r.receiver}"
    + (" (highest card)" if r.automatic else ""),
    "Played": lambda r: f"P{r.player} plays {r.combo}" + (" and announces the last card" if r.announced else ""),
    "Passed": lambda r: f"P{r.player} passes",
    "MatchEnd": lambda r: f"match over: {_seats(r.winners)} win{'s' if len(r.winners) == 1 else ''}",
    # Four Color
    "Discarded": lambda r: f"P{r.player} discards {r.card}",
    "TurnedUp": lambda r: f"P{r.player} turns up {r.card}",
    "Claimed": lambda r: f"P{r.player} claims {r.card} for {r.meld}",
    "Answered": lambda r: f"P{r.player} answers the claim",
    "ClaimsRevealed": lambda r: "answers: " + ", ".join(f"P{p} {a}" for p, a in r.answers),
    # Zangle
    "Made": lambda r: f"P{r.player} makes {r.zangle}",
    "Hit": lambda r: f"P{r.player} takes a hit: {r.card}",
    "TurnEnded": lambda r: f"P{r.player} ends the turn",
    # Four Pack
    "Asked": lambda r: f"P{r.asker} asks P{r.target} for {r.card}: {'yes' if r.success else 'no'}",
    "LaidDown": lambda r: f"P{r.player} lays down family {r.family}",
    # Duelo
    "HandPlayed": lambda r: f"hand {r.number}: P{r.chooser} calls {r.category}; "
    + ", ".join(f"P{p} {c}" for p, c in r.revealed)
    + (f"; P{r.winner} takes {len(r.taken)} cards" if r.winner >= 0 else f"; tie between {_seats(r.tied)}"),
    "TableTaken": lambda r: f"P{r.player} takes the table ({len(r.taken)} cards)",
    "Eliminated": lambda r: f"P{r.player} is out of cards",
}


def record_text(record: Any) -> str:
    """A readable line for one record."""
    name = type(record).__name__
    if name in _TEXTS:
        return _TEXTS[name](record)
    if name == "RoundEnd":
        if hasattr(record, "penalties"):
            return f"round {record.round} over: P{record.winner} goes out; totals {list(record.totals)}"
        if hasattr(record, "payments"):
            who = "nobody" if record.winner < 0 else f"P{record.winner}"
            return f"round {record.round} over: {who} wins ({record.reason}); totals {list(record.totals)}"
        return f"round {record.round} over; totals {list(record.totals)}"
    if name == "Dealt":
        if hasattr(record, "dealer"):
            return f"P{record.dealer} deals; P{record.first} starts"
        return f"round {record.round}: P{record.first} starts"
    if name == "GameEnd":
        return f"game over: {_seats(record.winners)} win{'s' if len(record.winners) == 1 else ''}"
    fields = ", ".join(f"{k}={v}" for k, v in plain(record).items() if k != "kind") \
        if dataclasses.is_dataclass(record) else str(record)
    return f"{name}: {fields}"


# -- observations -------------------------------------------------------------------------------

def _gang_of_four(obs: Any) -> dict[str, Any]:
    exchange = None
    if obs.exchange is not None:
        exchange = {"loser": obs.exchange.loser, "winner": obs.exchange.winner,
                    "given": str(obs.exchange.given),
                    "returned": None if obs.exchange.returned is None else str(obs.exchange.returned)}
    return {
        "seat": obs.player, "current_player": obs.current_player, "round": obs.round, "phase": obs.phase,
        "direction": obs.direction, "dealer": obs.dealer,
        "hand": [str(c) for c in obs.hand], "hand_sizes": list(obs.hand_sizes),
        "table": None if obs.table is None else [str(c) for c in obs.table.cards],
        "table_player": obs.table_player, "passed": list(obs.passed), "announced": list(obs.announced),
        "out": list(obs.out), "played": [str(c) for c in obs.played], "scores": list(obs.scores),
        "exchange": exchange, "must_lead_m1": obs.must_lead_m1,
    }


def _four_color_names() -> tuple[str, ...]:
    from ..fourcolor import _deck

    return _deck.NAMES


def _four_color(obs: Any) -> dict[str, Any]:
    names = _four_color_names()
    offer = None
    if obs.offer is not None:
        offer = {"card": names[obs.offer.card], "source": obs.offer.source, "player": obs.offer.player}
    return {
        "seat": obs.player, "current_player": obs.current_player, "round": obs.round, "phase": obs.phase,
        "hand": [names[code] for code, count in enumerate(obs.hand) for _ in range(count)],
        "exposed": [[[names[c] for c in meld] for meld in melds] for melds in obs.exposed],
        "discards": [names[c] for c in obs.discards], "hand_sizes": list(obs.hand_sizes),
        "stock": obs.stock, "offer": offer, "answered": obs.answered, "totals": list(obs.totals),
    }


def _zangle(obs: Any) -> dict[str, Any]:
    return {
        "seat": obs.player, "current_player": obs.current_player, "round": obs.round,
        "centre": list(obs.centre), "cards": [list(c) for c in obs.cards], "piles": list(obs.piles),
        "centre_pile": obs.centre_pile, "hits": list(obs.hits), "totals": list(obs.totals), "bonus": obs.bonus,
    }


def _four_pack(obs: Any) -> dict[str, Any]:
    return {
        "seat": obs.player, "current_player": obs.current_player, "hand": [str(c) for c in obs.hand],
        "hand_sizes": list(obs.hand_sizes), "families_down": [list(f) for f in obs.families_down],
        "asks": [{"asker": a.asker, "target": a.target, "card": str(a.card), "success": a.success} for a in obs.asks],
    }


def _duelo(obs: Any) -> dict[str, Any]:
    return {
        "seat": obs.player, "current_player": obs.current_player, "top_card": None if obs.top_card is None else str(obs.top_card),
        "pile_sizes": list(obs.pile_sizes), "table": obs.table, "contenders": list(obs.contenders),
        "hands": [record_view(h) for h in obs.hands], "categories": [str(c) for c in obs.categories],
    }


_VIEWS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "gang-of-four": _gang_of_four, "four-color": _four_color, "zangle": _zangle,
    "four-pack": _four_pack, "duelo": _duelo,
}


def observation_view(game: str, observation: Any) -> dict[str, Any]:
    """The JSON view of one seat's ``observation`` in ``game`` (a registry name)."""
    if game not in _VIEWS:
        raise KeyError(f"no view for game {game!r}")
    return _VIEWS[game](observation)


def speedster_view(snapshot: Any, seat: int, zangles: Sequence[Any]) -> dict[str, Any]:
    """A Speedster seat's view: the public table (everything is face up but the
    piles) and the Zangles this seat could call now."""
    from ..zangle.cards import KINDS

    return {
        "seat": seat, "round": snapshot.round, "centre": [KINDS[k] for k in snapshot.centre],
        "cards": [[KINDS[k] for k in c] for c in snapshot.cards], "piles": list(snapshot.piles),
        "centre_pile": snapshot.centre_pile, "levels": list(snapshot.levels), "totals": list(snapshot.totals),
        "over": snapshot.over, "playing": list(snapshot.playing), "zangles": [str(z) for z in zangles],
    }


def deck_view(deck: Any) -> dict[str, Any]:
    """A Four Pack / Duelo deck (public: every value is printed on the cards)."""
    return {
        "name": deck.name, "source": deck.source, "digest": deck.digest,
        "families": dict(zip("ABCDEFGH", deck.families)),
        "categories": [{"id": c.id, "name": c.name, "unit": c.unit, "higher_wins": c.higher_wins}
                       for c in deck.categories],
        "cards": [{"id": c.id, "name": c.name, "values": dict(zip(c.categories, c.values))} for c in deck.cards],
    }
