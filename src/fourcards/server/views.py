"""JSON views the server adds to the games' own.

What a seat sees, each history record and each legal action come from the
game itself (:meth:`fourcards.engine.Game.observation_view`, ``record_view``,
``action_view``; generic defaults in :mod:`fourcards.views`), so a view never
holds another seat's hidden cards and a new game needs nothing here. Decks
uploaded with a table (games whose engine says ``deck_upload``) are public:
every value is printed on the cards.
"""

from __future__ import annotations

from typing import Any

__all__ = ["deck_view"]


def deck_view(deck: Any) -> dict[str, Any]:
    """An uploaded deck (public: every value is printed on the cards)."""
    return {
        "name": deck.name, "source": deck.source, "digest": deck.digest,
        "families": dict(zip("ABCDEFGH", deck.families)),
        "categories": [{"id": c.id, "name": c.name, "unit": c.unit, "higher_wins": c.higher_wins}
                       for c in deck.categories],
        "cards": [{"id": c.id, "name": c.name, "values": dict(zip(c.categories, c.values))} for c in deck.cards],
    }
