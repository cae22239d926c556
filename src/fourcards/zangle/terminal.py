"""Zangle in the terminal: the table of ``fourcards play zangle`` (named by the game's registry entry)."""

from __future__ import annotations

import argparse
from typing import Any

from ..terminal import CommandLineError, Table, plural, quote
from ..errors import FourCardsError

__all__ = ["ZangleTable"]


_SIZE_COLOURS = {0: "1", 1: "34", 2: "31", 3: "35", 4: "33", 5: "32"}  # white, blue, red, purple, yellow, green


class ZangleTable(Table):
    game = "zangle"
    default_bot = "greedy"  # the search bot thinks for a while every move, on a clock
    action_verb = "make"
    commands = """\
  3              make Zangle number 3 of the list
  pass           (a hit comes by itself when you have no Zangle)"""
    short_rules = """\
A Zangle: a target card whose shape the other cards (the pieces) cover exactly,
each piece turned or flipped but not cut, at least 3 cards, with cards from both
the centre and your own cards. Z cards (no triangles) join any Zangle. Make one
a turn; with none, you take a hit (a centre card) and try again. Every card you
still hold at the end of a round is a point: the lowest total wins."""
    rules = """\
Zangle, turn style (2-8 players, 3 rounds) or solitaire.
Cards: 120 shapes of 1-5 triangles (1 blue, 2 red, 3 purple, 4 yellow,
5 green; shapes 1, 2, 3, 4a-4c, 5a-5d) and 4 Z cards with none.
- Everyone has a face-down pile of 10 and turns up 4 cards ("your cards"); 4
  centre cards are face up.
- On your turn, make one Zangle: a target card plus two or more pieces whose
  shapes (turned and flipped, not rearranged) cover the target exactly, at least
  3 cards in all, from both the centre and your own cards (never another
  player's). A Z card may join any Zangle; it cannot be a target.
- No Zangle: you take a hit (the centre draw pile's top card joins your cards)
  and try once more; a hit is only allowed when you have no Zangle.
- After a Zangle, refill the centre to 4, then your cards to 4 from your pile.
- When someone runs out of cards, everyone who has not played that turn plays
  once more, then the round ends. Every card you still hold is a point; the
  lowest total after the last round wins (a tie: a bonus round).
Solitaire: one player and one 10-card pile; the score is cards left plus hits."""
    option_help = {
        "players": "players, 2 to 8, or 1 with --mode solitaire (default: 3)",
        "rounds": "rounds (default: 3)",
        "mode": "turn (2 to 8 players) or solitaire (one player) (default: turn)",
        "dealer": "round 1's dealer, a seat (default: 0)",
        "solitaire": "one player, one 10-card pile (default: off)",
    }

    @classmethod
    def check_rules(cls, args: argparse.Namespace, rules: dict[str, Any]) -> dict[str, Any]:
        if rules.get("mode") == "solitaire" and "players" in rules:
            if rules["players"] == 1:  # what the help says: 1 with --mode solitaire
                return {name: value for name, value in rules.items() if name != "players"}
            flag = "--solitaire" if getattr(args, "solitaire", None) else "--mode solitaire"
            raise CommandLineError(f"{flag} is one player: drop --players {rules['players']}")
        return rules

    def __init__(self, state: Any, colour: bool = False) -> None:
        super().__init__(state, colour)
        self.next_header: str | None = self.round_title(1, False)

    def ending(self) -> list[str]:
        return []  # the game's last record says who won

    def automatic(self) -> int | None:
        return None

    def shape(self, card: str) -> str:
        from . import SHAPES

        size = 0 if card == "Z" else SHAPES[card].size
        return self.paint(card, _SIZE_COLOURS[size])

    def intro(self) -> list[str]:
        n = self.state.game.num_players
        who = "solitaire" if n == 1 else f"you are P0 against {plural(n - 1, 'bot')}"
        return [f"Zangle, seed {self.state.seed}: {who}. Pick a Zangle by its number; 'help' explains, "
                "'hint' suggests one, 'quit' stops."]

    def drawing(self, cards: tuple[str, ...]) -> list[str]:
        """The cards side by side, each shape drawn with triangles."""
        from . import SHAPES, ascii_art

        arts = [(ascii_art(SHAPES[c].cells) if c != "Z" else "Z").split("\n") for c in cards]
        height = max((len(a) for a in arts), default=0)
        width = [max(4, *(len(line) for line in a)) for a in arts]
        rows = []
        for r in range(height):
            parts = []
            for a, w, c in zip(arts, width, cards):
                line = a[r - (height - len(a))] if r >= height - len(a) else ""
                parts.append(self.paint(line.ljust(w), _SIZE_COLOURS[0 if c == "Z" else SHAPES[c].size]))
            rows.append("   ".join(parts).rstrip())
        rows.append("   ".join(self.shape(c) + " " * (w - len(c)) for c, w in zip(cards, width)).rstrip())
        return rows

    def round_title(self, number: int, bonus: bool) -> str:
        if bonus or number > self.state.game.rules.rounds:
            return "Bonus round"
        return f"Round {number} of {self.state.game.rules.rounds}" if self.state.game.num_players > 1 else \
            "Solitaire"

    def header(self) -> list[str]:
        """``== Round N of M`` before the first line of a round."""
        if self.next_header is None:
            return []
        title, self.next_header = self.next_header, None
        return ["", self.paint(f"== {title}", "1")]

    def show(self, record: Any) -> list[str]:
        from .game import GameEnd, Hit, Made, RoundEnd, TurnEnded

        if isinstance(record, GameEnd):
            self.next_header = None
        lines = self.header()
        if isinstance(record, Made):
            lines.append(f"   {self.verb(record.player, 'make')} {record.zangle}")
        elif isinstance(record, Hit):
            lines.append(f"   {self.verb(record.player, 'take')} a hit: {self.shape(record.card)}")
        elif isinstance(record, TurnEnded) and not record.zangle:
            lines.append(f"   {self.who(record.player)}: no Zangle, the turn passes")
        elif isinstance(record, RoundEnd):
            seats = record.seats or tuple(range(len(record.points)))
            totals = ", ".join(f"{self.who(p)} {n}" for p, n in enumerate(record.totals))
            if record.bonus:  # only the tied players played it: the first out of cards wins
                left = ", ".join(f"{self.who(p)} {record.points[p]}" for p in seats)
                lines += [self.paint(f"== Bonus round over: cards left {left}", "1")]
            else:
                points = ", ".join(f"{self.who(p)} {record.points[p]}" for p in seats)
                lines += [self.paint(f"== Round {record.round} over: points {points}", "1"), f"   totals: {totals}"]
            self.next_header = self.round_title(record.round + 1, record.bonus)
        elif isinstance(record, GameEnd):
            names = " and ".join(self.who(w) for w in record.winners)
            verb = "win" if len(record.winners) > 1 or record.winners == (self.you,) else "wins"
            totals = ", ".join(f"{self.who(p)} {n}" for p, n in enumerate(record.totals))
            lines += ["", self.paint(f"Game over: {names} {verb} (totals: {totals}; lowest wins)", "1")]
        return lines

    def status(self) -> list[str]:
        obs = self.state.observation(self.you)
        lines = self.header() + ["Centre:"]
        lines += ["  " + row for row in self.drawing(obs.centre)]
        lines.append("Your cards:")
        lines += ["  " + row for row in self.drawing(obs.cards[self.you])]
        for p in range(len(obs.cards)):  # everyone sees the others' face-up cards and pile sizes
            if p != self.you:
                shown = " ".join(self.shape(c) for c in obs.cards[p]) or "none"
                lines.append(f"{self.who(p)}: {shown} | pile {obs.piles[p]}")
        totals = "  ".join(f"{self.who(p)}:{n}" for p, n in enumerate(obs.totals))
        lines.append(f"Your pile {obs.piles[self.you]} | centre pile {obs.centre_pile} | hits {obs.hits[self.you]} "
                     f"| totals {totals}")
        return lines

    def choices(self) -> list[str]:
        obs = self.state.observation(self.you)
        lines = [f"Your Zangles ({len(obs.legal_zangles)}):"]
        lines += [f"  {i}. {zangle}" for i, zangle in enumerate(obs.legal_zangles, 1)]
        return lines

    def act(self, line: str) -> None:
        legal = self.state.legal_actions()
        word = line.strip().lower()
        if word == "pass":
            passes = [a for a in legal if self.state.action_to_string(a) == "pass"]
            if passes:
                self.state.apply(passes[0], self.you)
                return
            raise FourCardsError("you have a Zangle, so you make one: a turn without a Zangle (and its hit) "
                                 "only comes when you have none. Type 'hint' for a suggestion")
        try:
            super().act(line)  # a Zangle's number, or its text as the list writes it
        except FourCardsError as error:
            if word.isdecimal():
                raise
            raise FourCardsError(f"{quote(line)}: choose a Zangle by its number (1..{len(legal)})") from error
