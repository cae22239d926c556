"""Duelo in the terminal: the table of ``fourcards play duelo`` (named by the game's registry entry)."""

from __future__ import annotations

from typing import Any

from ..terminal import DeckTable, plural, quote
from ..decks import Deck, DeckCard
from ..errors import FourCardsError

__all__ = ["DueloTable"]


class DueloTable(DeckTable):
    game = "duelo"
    default_bot = "category"  # the search bot thinks for a while every move, on a clock
    commands = """\
Call a category when it is your turn, by its number or its name:
  2              call category 2
  density        call it by name"""
    short_rules = """\
Everybody sees only their top card. Call the category where yours is strongest;
every player shows that value on their top card and the best takes all the
top cards. A tie puts the cards on the table and the tied players play on.
Hold every card to win."""
    rules = """\
Duelo (2 or more players), with a deck of 32 cards, each with figures in several categories.
- The whole deck is dealt; everybody keeps a face-down pile and sees only their top card.
- The player who received the first card calls a category of their top card.
  Every player reveals that value; the highest (or lowest, where the category
  says lower wins) takes all the top cards to the bottom of their pile.
- The winner of a hand calls the next category.
- Tie: every top card goes on the table and only the tied players play on; the
  first of them in the deal calls. The winner takes the table too.
- A player with no cards is out. The game ends when one player holds every card;
  a game that reaches the hand limit is a draw, ranked by cards held."""
    option_help = {
        "players": "players, 2 to 32: every player is dealt at least one of the 32 cards (default: 2)",
        "hand_limit": "hands at most; then a draw, ranked by cards held (default: 10000)",
        "deck": "a deck JSON file (default: the chemical elements deck that ships with fourcards)",
    }

    deck: Deck

    def intro(self) -> list[str]:
        n = self.state.game.num_players
        lines = [f"Duelo, seed {self.state.seed}: you are P0 against {plural(n - 1, 'bot')}. Call a category "
                 "when it is your turn (its number or name); 'help' explains, 'quit' stops.",
                 "Families: " + ", ".join(f"{letter} {name}" for letter, name in zip("ABCDEFGH", self.deck.families))]
        return lines

    def card_text(self, card_id: str | DeckCard) -> str:
        card = self.deck.card(card_id)
        family = self.deck.families["ABCDEFGH".index(card.id[0])]
        return f"{card.id} {card.name} ({family})"

    def show(self, record: Any) -> list[str]:
        from . import Dealt, Eliminated, GameEnd, HandPlayed
        from .game import TableTaken

        if isinstance(record, Dealt):
            return ["", self.paint(f"== The deal: P{record.dealer} deals, {self.subject(record.first, 'call')} first",
                                   "1")]
        if isinstance(record, HandPlayed):
            category = record.category
            name = category.name
            k = self.deck.categories.index(category)
            shown = ", ".join(f"{'you' if p == self.you else f'P{p}'} {c} {self.deck.card(c).name} "
                              f"{self.deck.card(c).values[k]:g}" for p, c in record.revealed)
            if record.winner < 0:
                result = "a tie: " + " and ".join(self.who(p) for p in record.tied) + " play on"
            else:
                won = "you win" if record.winner == self.you else f"P{record.winner} wins"
                result = f"{won} {plural(len(record.taken), 'card')}"
            return [f"   hand {record.number}: {self.who(record.chooser)} called {name} - {shown} -> {result}"]
        if isinstance(record, TableTaken):
            return [f"   {self.verb(record.player, 'take')} the {plural(len(record.taken), 'card')} on the table"]
        if isinstance(record, Eliminated):
            return [f"   {'you are' if record.player == self.you else f'P{record.player} is'} out of cards"]
        if isinstance(record, GameEnd):
            outcome = "a draw" if record.draw else (
                "you win!" if record.winners == (self.you,) else f"P{record.winners[0]} wins")
            cards = ", ".join(f"{self.who(p)} {n}" for p, n in enumerate(record.cards))
            return ["", self.paint(f"Game over: {outcome} (cards: {cards})", "1")]
        return []

    def status(self) -> list[str]:
        obs = self.state.observation(self.you)
        piles = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.pile_sizes))
        lines = [f"Piles: {piles} | on the table: {plural(obs.table, 'card')}"]
        if obs.top_card is None:
            return lines + ["You have no cards left."]
        card = self.deck.card(obs.top_card)
        lines.append(f"Your top card: {self.card_text(obs.top_card)}")
        for k, category in enumerate(self.deck.categories):
            lines.append(f"  {k + 1}. {category.name}: {card.values[k]:g} {category.unit}".rstrip()
                         + ("" if category.higher_wins else "  (lower wins)"))
        return lines

    def act(self, line: str) -> None:
        from . import Choose

        categories = self.deck.categories
        code = self.choice(line)
        if code is not None:
            self.state.apply(code, self.you)
            return
        text = line.strip().lower().removeprefix("call ").strip()
        by_name = {c.name.lower(): c.id for c in categories} | {c.id: c.id for c in categories}
        key = text.replace("_", " ")
        chosen = by_name.get(key) or by_name.get(text.replace(" ", "_"))
        if chosen is None:
            names = ", ".join(c.name.lower() for c in categories)
            raise FourCardsError(f"{quote(line)} is not a category: {names} (or 1..{len(categories)})")
        self.state.apply(Choose(chosen), self.you)

    def action_text(self, action: int) -> str:
        return self.deck.categories[action].name.lower()
