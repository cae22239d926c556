"""``fourcards play gang-of-four``: a person against bots, in the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from ..engine import Bot, derive_seed
from ..errors import FourCardsError
from ..gangoffour import Combo, format_cards
from ..gangoffour.bots import GreedyBot, SearchBot
from ..gangoffour.match import PASS, GangOfFour, MatchState, Played, Rules
from .render import colour_enabled, describe, paint

HELP = """\
Type the cards to play, e.g.  G3 Y4 R5 G6 Y7   (case does not matter)
  pass           pass (not when you lead)
  give CARD      during the exchange, give a card back to the loser (e.g. give G2)
  CARDS !        play and announce your last card (only with --manual-last-card)
  hint           what the search bot would play
  hand           show your hand again
  save FILE      save the match (continue later with --resume FILE)
  help           this text
  quit           stop (saved first when --save FILE was given)
Beat the table with the same number of cards, strictly higher; a gang (4+ of a
value) beats anything but a higher gang. The lowest total wins when someone
reaches the target score."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    parser.add_argument("--opponents", choices=("greedy", "search"), default="greedy")
    parser.add_argument("--target-score", type=int, default=100)
    parser.add_argument("--manual-last-card", action="store_true",
                        help="announce your last card yourself (end a play with !)")
    parser.add_argument("--resume", metavar="FILE", help="continue a saved match")
    parser.add_argument("--save", metavar="FILE", help="save the match here when you quit")
    parser.add_argument("--colour", "--color", choices=("auto", "always", "never"), default="auto")


class Session:
    """One person (seat 0) against bots, reading commands from ``stdin``."""

    def __init__(self, state: MatchState, opponents: str, stdin: TextIO, stdout: TextIO,
                 colour: bool, save: str | None) -> None:
        self.state = state
        self.you = 0
        self.stdin, self.stdout, self.colour, self.save_path = stdin, stdout, colour, save
        seed = state.seed
        self.bots: dict[int, Bot] = {
            p: SearchBot(seed=derive_seed(seed, p), time_per_move=0.05) if opponents == "search" else GreedyBot()
            for p in range(1, state.game.num_players)
        }
        self.adviser = SearchBot(seed=derive_seed(seed, 99), iterations=400)
        self.seen = 0
        self.warned_one_card: set[tuple[int, int]] = set()

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def run(self) -> int:
        rules = self.state.game.rules
        self.say(f"Gang of Four: you are P0 against {rules.players - 1} bots; "
                 f"first to {rules.target_score} points loses, the lowest total wins. Type 'help'.")
        while True:
            self.show_events()
            if self.state.is_terminal:
                return 0
            player = self.state.current_player
            if player != self.you:
                bot = self.bots[player]
                self.state.apply(bot.choose(self.state.observation(player), self.state.legal_actions()), player)
                continue
            self.show_status()
            if not self.turn():
                return 0

    def show_events(self) -> None:
        history = self.state.history
        for record in history[self.seen:]:
            for line in describe(record, self.colour, self.you):
                self.say(line)
            if isinstance(record, Played) and record.cards_left == 1 and record.player != self.you:
                key = (self.state.round, record.player)
                if key not in self.warned_one_card:
                    self.warned_one_card.add(key)
                    self.say(f"   ! P{record.player} has one card left. When P{record.player} plays right "
                             "after you, you must play your highest single on a single (or a gang), "
                             "and lead a combination rather than a single if you can.")
        if len(history) > self.seen:
            from ..gangoffour.match import CardGiven

            last = history[-1]
            if isinstance(last, CardGiven) and last.automatic and last.receiver == self.you:
                self.say("   Card exchange: you won the last round, so the loser (most cards) gave you "
                         "their highest card. Give one card back: type 'give CARD'.")
            elif isinstance(last, CardGiven) and last.automatic and last.giver == self.you:
                self.say("   Card exchange: you ended the last round with the most cards, so your highest "
                         "card went to the winner, who now gives one card back to you.")
        self.seen = len(history)

    def show_status(self) -> None:
        obs = self.state.observation(self.you)
        way = "counter-clockwise" if obs.direction == 1 else "clockwise"
        table = "empty - you lead" if obs.table is None else f"{paint(str(obs.table), self.colour)} (P{obs.table_player})"
        sizes = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.hand_sizes))
        scores = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.scores))
        self.say("")
        self.say(f"Round {obs.round}, {way} | table: {table}")
        self.say(f"Cards: {sizes} | Scores: {scores}")
        if obs.must_lead_m1:
            self.say("You hold M1: your lead must contain M1 (five cards at most).")
        self.say(f"Your hand: {paint(format_cards(obs.hand), self.colour)}")

    def turn(self) -> bool:
        """Read commands until one acts; False when the person quits."""
        while True:
            self.stdout.write("> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.finish()
                return False
            text = line.strip()
            word = text.lower()
            if not text:
                continue
            if word in ("quit", "exit", "q"):
                self.finish()
                return False
            if word in ("help", "?"):
                self.say(HELP)
                continue
            if word == "hand":
                self.show_status()
                continue
            if word == "hint":
                obs = self.state.observation(self.you)
                action = self.adviser.choose(obs, self.state.legal_actions())
                self.say(f"hint: {self.state.action_to_string(action)}")
                continue
            if word.startswith("save "):
                self.write(text[5:].strip())
                continue
            try:
                if word == "pass":
                    self.state.apply(PASS, self.you)
                elif word.startswith("give "):
                    self.state.give_back(text[5:].strip())
                else:
                    announce = text.endswith("!")
                    combo = Combo.parse(text.rstrip("!").strip())
                    self.state.play(combo, announce=announce)
                return True
            except FourCardsError as error:
                self.say(f"! {error}")

    def write(self, path: str) -> None:
        try:
            Path(path).write_text(self.state.to_json())
            self.say(f"saved to {path} (continue with --resume {path})")
        except OSError as error:
            self.say(f"! could not save to {path}: {error}")

    def finish(self) -> None:
        if self.save_path and not self.state.is_terminal:
            self.write(self.save_path)
        self.say("bye")


def run(args: argparse.Namespace, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    if args.resume:
        try:
            text = Path(args.resume).read_text()
        except OSError as error:
            print(f"fourcards: cannot read {args.resume}: {error}", file=sys.stderr)
            return 2
        import json

        try:
            rules = Rules(**json.loads(text)["rules"])
            state = GangOfFour(rules).from_json(text)
        except (FourCardsError, KeyError, TypeError, ValueError) as error:
            print(f"fourcards: {args.resume} is not a saved Gang of Four match: {error}", file=sys.stderr)
            return 2
    else:
        import secrets

        seed = args.seed if args.seed is not None else secrets.randbits(32)
        game = GangOfFour(players=args.players, target_score=args.target_score,
                          manual_last_card=args.manual_last_card)
        state = game.new_match(seed)
        print(f"seed {seed}", file=stdout)
    session = Session(state, args.opponents, stdin, stdout, colour_enabled(args.colour, stdout), args.save)
    return session.run()
