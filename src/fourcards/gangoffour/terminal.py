"""Gang of Four in the terminal: the table of ``fourcards play gang-of-four``
and ``fourcards demo`` (:class:`GangOfFourTable`, named by the game's registry
entry), which also adds the game's own commands ``fourcards hand`` and
``fourcards simulate`` (:mod:`fourcards.gangoffour.commands`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from ..engine import Bot, derive_seed
from ..terminal import Session as _Session
from ..terminal import Table, plural, quote
from ..errors import FourCardsError
from .cards import KINDS
from .cards import format_cards
from .combos import classify
from .match import PASS, CardGiven, MatchState, Played
from .render import describe, paint

__all__ = ["GangOfFourTable", "Session", "HELP", "COMMANDS", "SHORT_RULES", "RULES"]

COMMANDS = """\
Type the cards to play, e.g.  G3 Y4 R5 G6 Y7   (case does not matter)
  17             play choice 17 ('list' shows your choices, numbered)
  pass           pass (not when you lead)
  give CARD      during the exchange, give a card back to the loser (e.g. give G2)
  CARDS !        play and announce your last card (only with --manual-last-card)"""

SHORT_RULES = """\
Beat the table with the same number of cards, strictly higher; a gang (4+ of a
value) beats anything but a higher gang. Shed all your cards first: the others
score penalty points for the cards they hold. The lowest total wins when
someone reaches the target score."""

RULES = """\
Gang of Four (2-4 players), 64 cards: 1-10 in green, yellow and red (two of
each), the multicolour 1 (M1), the green and yellow phoenixes (GP, YP, above 10)
and the red dragon (RD, the highest single).
- 16 cards each. The player holding M1 leads the first round; that lead must
  contain M1.
- The leader plays a single, pair, three of a kind, or a five-card combination
  (straight < flush < full house < straight flush); a gang (4 or more of a
  value) beats anything but a higher gang (more cards, or the same count higher).
- Each player in turn plays the same kind and count, strictly higher, or passes.
  When everyone else passes, the last player to play leads anything.
- A player left with one card is announced (with --manual-last-card you announce
  it yourself: end the play with !). While the next player holds one card, you
  must play your highest single on a single, and lead a combination rather than
  a single if you can.
- The first player out wins the round and leads the next. The others score
  penalties for the cards they hold: 1-7 cards 1 each, 8-10 2 each, 11-13 3
  each, 14-15 4 each, 16 5 each.
- Next round: the loser (most cards) gives the winner their highest card, and
  the winner gives any card back. Play changes direction every round.
- When someone reaches the target score (100), the lowest total wins."""

HELP = COMMANDS  # the game's own commands (the session adds the shared ones)


class GangOfFourTable(Table):
    game = "gang-of-four"
    commands = COMMANDS
    short_rules = SHORT_RULES
    rules = RULES
    default_bot = "greedy"  # the search bot thinks for a while every move
    bot_options = {"search": {"time_per_move": 0.05}}
    hint_options = {"search": {"iterations": 400}}
    option_help = {
        "players": "players, 2 to 4 (default: 4)",
        "target_score": "the score that ends the match (default: 100)",
        "dealer": "round 1's dealer, a seat (default: the last seat, so seat 0 is dealt to first)",
        "pass_is_final": "a player who passed may not play again until the cycle ends (default: off)",
        "manual_last_card": "announce your last card yourself: end a play with ! (default: announced for you)",
        "last_card_may_pass": "before a one-card player, passing is allowed instead of the highest single "
                              "(default: off)",
        "chinese_dealing": "the dealer draws a card and counts that many seats to find who is dealt first "
                           "(default: off)",
    }

    def __init__(self, state: MatchState, colour: bool = False) -> None:
        super().__init__(state, colour)
        self.warned_one_card: set[tuple[int, int]] = set()

    @classmethod
    def extra_commands(cls) -> dict[str, tuple[Callable[[Any], None], Callable[[argparse.Namespace], int]]]:
        from . import commands

        return {"hand": (commands.add_hand, commands.run_hand),
                "simulate": (commands.add_simulate, commands.run_simulate)}

    def ending(self) -> list[str]:
        return []  # the match's last record says who won

    def demo_title(self, bot: str) -> str:
        players = self.state.game.num_players
        if bot == "greedy":
            return f"Gang of Four, {players} rule-based players, seed {self.state.seed}"
        return super().demo_title(bot)

    def choices(self) -> list[str]:
        return []  # the hand says it all: type the cards

    def automatic(self) -> int | None:
        return None

    def intro(self) -> list[str]:
        rules = self.state.game.rules
        return [f"Gang of Four, seed {self.state.seed}: you are P0 against {plural(rules.players - 1, 'bot')}; "
                f"first to {plural(rules.target_score, 'point')} ends the match, the lowest total wins. Type 'help'."]

    def show(self, record: Any) -> list[str]:
        lines = describe(record, self.colour, self.you)
        state = self.state
        if isinstance(record, Played) and record.cards_left == 1 and self.you >= 0 and record.player != self.you:
            key = (state.round, record.player)
            if key not in self.warned_one_card:
                self.warned_one_card.add(key)
                lines.append(f"   ! P{record.player} has one card left. When P{record.player} plays right "
                             "after you, you must play your highest single on a single (or a gang), "
                             "and lead a combination rather than a single if you can.")
        if isinstance(record, CardGiven) and record.automatic and record.receiver == self.you:
            lines.append("   Card exchange: you won the last round, so the loser (most cards) gave you "
                         "their highest card. Give one card back: type 'give CARD'.")
        elif isinstance(record, CardGiven) and record.automatic and record.giver == self.you:
            lines.append("   Card exchange: you ended the last round with the most cards, so your highest "
                         "card went to the winner, who now gives one card back to you.")
        return lines

    def status(self) -> list[str]:
        obs = self.state.observation(self.you)
        way = "counter-clockwise" if obs.direction == 1 else "clockwise"
        table = "empty - you lead" if obs.table is None else \
            f"{paint(str(obs.table), self.colour)} (P{obs.table_player})"
        sizes = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.hand_sizes))
        scores = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.scores))
        lines = [f"Round {obs.round}, {way} | table: {table}", f"Cards: {sizes} | Scores: {scores}"]
        if obs.must_lead_m1:
            lines.append("You hold M1: your lead must contain M1 (five cards at most).")
        lines.append(f"Your hand: {paint(format_cards(obs.hand), self.colour)}")
        count = len(self.state.legal_actions())
        lines.append(f"Type the cards, or a choice's number ('list' shows your {plural(count, 'choice')}).")
        return lines

    def act(self, line: str) -> None:
        text = line.strip()
        word = text.lower()
        code = self.choice(text)
        if code is not None:
            self.state.apply(code, self.you)
            return
        if word == "pass":
            self.state.apply(PASS, self.you)
            return
        if word.startswith("give"):
            cards = self.cards(text[4:])
            if len(cards) != 1:
                raise FourCardsError("give one card, e.g. give G2")
            self.state.give_back(cards[0])
            return
        announce = text.endswith("!")
        cards = self.cards(text.rstrip("!"))
        if not cards:
            raise FourCardsError("type the cards to play (e.g. G3 G3), 'pass', or 'help'")
        shown = " ".join(cards)
        combo = classify(shown)
        if combo is None:
            raise FourCardsError(f"{shown if len(shown) <= 40 else shown[:37] + '...'} is not a combination")
        self.state.play(combo, announce=announce)

    @staticmethod
    def cards(text: str) -> list[str]:
        """The card words of ``text``, each checked, in the person's words."""
        names = {str(card): card for card in KINDS}
        words = text.replace(",", " ").upper().split()
        for word in words:
            if word not in names:
                raise FourCardsError(f"{quote(word, 12)} is not a card: cards are G1..G10, Y1..Y10, R1..R10, "
                                     "M1, GP, YP and RD")
        for word in set(words):
            copies = 1 if word in ("M1", "GP", "YP", "RD") else 2
            if words.count(word) > copies:
                raise FourCardsError(f"there {'is only one' if copies == 1 else 'are only two'} {word} "
                                     f"in the deck, not {words.count(word)}")
        return words

    def action_text(self, action: int) -> str:
        """The cards of a play as typed (``G3 G3``), or ``pass``."""
        return str(self.state.action_to_string(action))


def _bot(kind: str, seed: int) -> Bot:
    """A Gang of Four bot of ``kind`` (random, greedy, learned or search)."""
    from . import bots

    if kind == "random":
        return bots.RandomBot(seed)
    if kind == "greedy":
        return bots.GreedyBot()
    if kind == "search":
        return bots.SearchBot(seed=seed, **GangOfFourTable.bot_options["search"])
    if kind == "learned":
        from .learned import LearnedBot

        return LearnedBot()
    raise FourCardsError(f"unknown bot {kind!r} for Gang of Four; choose from random, greedy, learned, search")


class Session(_Session):
    """One person (seat 0) against bots at Gang of Four (kept for callers of the old driver;
    ``fourcards play gang-of-four`` opens the generic session with this game's table)."""

    def __init__(self, state: MatchState, opponents: str, stdin: TextIO, stdout: TextIO,
                 colour: bool, save: str | None, pause: bool = False) -> None:
        bots = {p: _bot(opponents, derive_seed(state.seed, p)) for p in range(1, state.game.num_players)}
        adviser = _bot("greedy", derive_seed(state.seed, 99))
        super().__init__(GangOfFourTable(state, colour), bots, adviser, stdin=stdin, stdout=stdout,
                         save_path=save, pause=pause, adviser_name="greedy")
