"""Four Pack in the terminal: the table of ``fourcards play four-pack`` (named by the game's registry entry)."""

from __future__ import annotations

from typing import Any

from ..terminal import DeckTable, plural, quote
from ..decks import Deck
from ..errors import FourCardsError

__all__ = ["FourPackTable"]


class FourPackTable(DeckTable):
    game = "four-pack"
    default_bot = "memory"  # the search bot thinks for a while every move, on a clock
    commands = """\
Ask a player for a card by player and card:
  P2 C3          ask P2 for C3 (also: 2 C3, ask P2 for C3)
  23             ask choice 23 of the list ('list' shows them)"""
    short_rules = """\
Ask any other player for a card you lack. If they hold it, it is yours and you
ask again; if not, the turn passes to the player you asked. Four cards of a
family (A1..A4) are laid down at once. The most families down wins."""
    option_help = {
        "players": "players, 3 to 32: every player is dealt at least one of the 32 cards (default: 4)",
        "must_hold_family": "ask only for cards of a family you hold (default: any card)",
        "max_asks": "asks at most; then the families laid down decide (default: 10000)",
        "deck": "a deck JSON file (default: the chemical elements deck that ships with fourcards)",
    }
    rules = """\
Four Pack (3 or more players), with a deck of 8 families A..H of 4 cards (A1..A4, ...).
- The whole deck is dealt; the player who received the first card starts.
- On your turn, ask any other player who still holds cards for one card by its
  name (family and number). With --must-hold-family you may only ask for a card
  of a family you already hold.
- If they hold it, they hand it over; you lay down every family you complete
  (all 4 cards, face up) and ask again.
- If not, the turn passes to the player you asked (or, if they are out, to the
  next player who still holds cards).
- A player with no cards left is out until the end; asking them is not allowed.
- The game ends when all 8 families are down; the most families wins (ties share)."""

    deck: Deck

    def family_name(self, letter: str) -> str:
        return self.deck.families["ABCDEFGH".index(letter)]

    def intro(self) -> list[str]:
        n = self.state.game.num_players
        lines = [f"Four Pack, seed {self.state.seed}: you are P0 against {plural(n - 1, 'bot')}. "
                 "Ask with 'P2 C3' (player and card); 'help' explains, 'quit' stops.", "Families:"]
        for letter, name in zip("ABCDEFGH", self.deck.families):
            cards = ", ".join(f"{letter}{k} {self.deck.card(f'{letter}{k}').name}" for k in range(1, 5))
            lines.append(f"  {self.paint(letter, '1')} {name}: {cards}")
        return lines

    def show(self, record: Any) -> list[str]:
        from . import Asked, Dealt, GameEnd, LaidDown

        if isinstance(record, Dealt):
            return ["", self.paint(f"== The deal: P{record.dealer} deals, {self.subject(record.first, 'start')}",
                                   "1")]
        if isinstance(record, Asked):
            whom = "you" if record.target == self.you else f"P{record.target}"
            name = self.deck.card(record.card).name
            answer = self.paint("yes!", "32") if record.success else "no"
            return [f"   {self.verb(record.asker, 'ask')} {whom} for {record.card} ({name}): {answer}"]
        if isinstance(record, LaidDown):
            return [f"   {self.verb(record.player, 'lay')} down family {record.family} "
                    f"({self.family_name(record.family)})"]
        if isinstance(record, GameEnd):
            names = " and ".join("you" if w == self.you else f"P{w}" for w in record.winners)
            verb = "win" if len(record.winners) > 1 or record.winners == (self.you,) else "wins"
            families = ", ".join(f"{self.who(p)} {n}" for p, n in enumerate(record.families))
            return ["", self.paint(f"Game over: {names} {verb} (families: {families}).", "1")]
        return []

    def status(self) -> list[str]:
        obs = self.state.observation(self.you)
        sizes = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.hand_sizes))
        downs = "  ".join(f"P{p}:{''.join(f) or '-'}" for p, f in enumerate(obs.families_down))
        return [f"Cards: {sizes} | Families down: {downs}",
                "Your hand: " + "  ".join(f"{c} {self.deck.card(c).name}" for c in obs.hand),
                f"Ask as 'P2 C3', or by a choice's number ('list' shows your {len(self.state.legal_actions())} "
                "choices)."]

    def act(self, line: str) -> None:
        from . import Ask

        code = self.choice(line)
        if code is not None:
            self.state.apply(code, self.you)
            return
        words = line.replace(",", " ").split()
        if words and words[0].lower() == "ask":
            words = [w for w in words[1:] if w.lower() != "for"]
        last = self.state.game.num_players - 1
        if len(words) != 2:
            raise FourCardsError(f"{quote(line)}: ask as 'P2 C3' (a player and a card)")
        seat = words[0].upper().removeprefix("P")
        if not seat.isdecimal() or not 1 <= int(seat) <= last:
            raise FourCardsError(f"{quote(words[0])} is not another player: P1..P{last}")
        card = words[1].upper()
        try:
            self.deck.card(card)
        except (FourCardsError, KeyError):
            raise FourCardsError(f"{quote(words[1])} is not a card: A1..H4") from None
        self.state.apply(Ask(int(seat), card), self.you)

    def action_text(self, action: int) -> str:
        ask = self.state.int_to_action(action)
        return f"P{ask.target} {ask.card}"
