"""``fourcards play four-pack``, ``duelo``, ``four-color`` and ``zangle``: a person against bots.

Each game is a :class:`~fourcards.cli.session.Table`; the shared
:class:`~fourcards.cli.session.Session` runs them all the same way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..decks import Deck, DeckCard, load_deck
from ..errors import FourCardsError
from .render import colour_enabled
from .session import (
    CommandLineError, Confirm, Session, Table, add_session_arguments, int_in, make_bots, open_match, plural, quote,
    resume_conflicts,
)

__all__ = ["add_four_pack_arguments", "add_duelo_arguments", "add_four_color_arguments", "add_zangle_arguments",
           "run_four_pack", "run_duelo", "run_four_color", "run_zangle",
           "FourPackTable", "DueloTable", "FourColorTable", "ZangleTable"]

_DECK_HELP = "a deck JSON file (default: the chemical elements deck that ships with fourcards)"


def _play(args: argparse.Namespace, game: str, table_type: Callable[..., Table], build: Callable[[dict[str, Any]], Any],
          rules: dict[str, Any], rule_flags: tuple[str, ...], stdin: TextIO | None, stdout: TextIO | None,
          **table_options: Any) -> int:
    """What every game's ``run`` shares: open the match, seat the bots, run the session."""
    resume_conflicts(args, rule_flags)
    state = open_match(args, game, build, rules)
    out = stdout if stdout is not None else sys.stdout
    table = table_type(state, colour_enabled(args.colour, out), **table_options)
    bots, adviser = make_bots(game, state, args.opponents, state.seed)
    session = Session(table, bots, adviser, stdin=stdin, stdout=stdout, save_path=args.save, pause=args.pause)
    if args.resume:
        session.say(f"Resumed {args.resume}: {table.title}, seed {state.seed}, {plural(len(state.actions), 'move')} "
                    "so far.")
    return session.run()


def _load_deck(path: str | None) -> Deck:
    try:
        return load_deck(path)
    except FourCardsError as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        raise CommandLineError(" ".join(lines[:1]) + (" " + "; ".join(lines[1:]) if lines[1:] else "")) from None


# -- Four Pack ------------------------------------------------------------------------------------

def add_four_pack_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int_in(3, 8), default=None, help="players, 3 to 8 (default: 4)")
    parser.add_argument("--must-hold-family", action="store_true",
                        help="ask only for cards of a family you hold (default: any card)")
    parser.add_argument("--deck", metavar="FILE", help=_DECK_HELP)
    add_session_arguments(parser, "four-pack")


class FourPackTable(Table):
    game = "four-pack"
    commands = """\
Ask a player for a card by player and card:
  P2 C3          ask P2 for C3 (also: 2 C3, ask P2 for C3)"""
    short_rules = """\
Ask any other player for a card you lack. If they hold it, it is yours and you
ask again; if not, the turn passes to the player you asked. Four cards of a
family (A1..A4) are laid down at once. The most families down wins."""
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

    def __init__(self, state: Any, colour: bool = False) -> None:
        super().__init__(state, colour)
        self.deck: Deck = state.game.deck

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
        from ..fourpack import Asked, Dealt, GameEnd, LaidDown

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
                "Your hand: " + "  ".join(f"{c} {self.deck.card(c).name}" for c in obs.hand)]

    def act(self, line: str) -> None:
        from ..fourpack import Ask

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


def run_four_pack(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from ..fourpack import FourPack

    deck = _load_deck(args.deck)
    rules = {"players": args.players or 4, "must_hold_family": args.must_hold_family}

    def build(saved: dict[str, Any]) -> Any:
        saved.pop("deck", None)
        return FourPack(deck=deck, **saved)

    return _play(args, "four-pack", FourPackTable, build, rules, ("players", "must-hold-family"), stdin, stdout)


# -- Duelo ----------------------------------------------------------------------------------------

def add_duelo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int_in(2, 8), default=None, help="players, 2 to 8 (default: 2)")
    parser.add_argument("--deck", metavar="FILE", help=_DECK_HELP)
    add_session_arguments(parser, "duelo")


class DueloTable(Table):
    game = "duelo"
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

    def __init__(self, state: Any, colour: bool = False) -> None:
        super().__init__(state, colour)
        self.deck: Deck = state.game.deck

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
        from ..duelo import Dealt, Eliminated, GameEnd, HandPlayed
        from ..duelo.game import TableTaken

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
            lines.append(f"  {k}. {category.name}: {card.values[k]:g} {category.unit}".rstrip()
                         + ("" if category.higher_wins else "  (lower wins)"))
        return lines

    def act(self, line: str) -> None:
        from ..duelo import Choose

        text = line.strip().lower()
        categories = self.deck.categories
        if text.isdecimal():
            if int(text) >= len(categories):
                raise FourCardsError(f"{quote(line)} is not a category: 0..{len(categories) - 1} or a name")
            self.state.apply(int(text), self.you)
            return
        by_name = {c.name.lower(): c.id for c in categories} | {c.id: c.id for c in categories}
        key = text.replace("_", " ")
        chosen = by_name.get(key) or by_name.get(text.replace(" ", "_"))
        if chosen is None:
            names = ", ".join(c.name.lower() for c in categories)
            raise FourCardsError(f"{quote(line)} is not a category: {names} (or 0..{len(categories) - 1})")
        self.state.apply(Choose(chosen), self.you)

    def typed(self, action: int) -> str:
        category = self.deck.categories[action]
        return f"{action}  ({category.name})"


def run_duelo(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from ..duelo import Duelo

    deck = _load_deck(args.deck)

    def build(saved: dict[str, Any]) -> Any:
        saved.pop("deck", None)
        return Duelo(deck=deck, **saved)

    return _play(args, "duelo", DueloTable, build, {"players": args.players or 2}, ("players",), stdin, stdout)


# -- Four Color Cards -----------------------------------------------------------------------------

def add_four_color_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int_in(2, 4), default=None, help="players, 2 to 4 (default: 4)")
    parser.add_argument("--rounds", type=int_in(1, 1000), default=None, help="rounds a game (default: 3)")
    parser.add_argument("--threshold", type=int_in(0, 1000), default=None,
                        help="points a hu needs, or it is a false win (default: 10)")
    add_session_arguments(parser, "four-color")


_FOUR_COLOURS = {"R": "31", "G": "32", "Y": "33", "W": "1"}


class FourColorTable(Table):
    game = "four-color"
    commands = """\
When you discard:
  RC             discard that card (colour R G Y W + rank G A E C H N S)
When a card is on offer:
  2              take option 2 (a claim: pong, kong or chi)
  pass           let it go
  hu             win with it (asks first when it would be a false win)"""
    short_rules = """\
Cards: colour R red, G green, Y yellow, W white; rank G General, A Advisor,
E Elephant, C Chariot, H Horse, N Cannon, S Soldier. Make melds of every card:
lone Generals, pairs, triples, quads, command sets (G A E) and field sets
(C H N) of one colour, and soldiers of three or four colours. Claim a card on
offer to meld it (then discard), or call hu when it completes your hand with at
least the threshold's points; a hu under the threshold is a false win and costs
you. Generals are never discarded."""
    rules = """\
Four Color Cards (2-4 players), 112 cards: 4 colours (R red, G green, Y yellow,
W white) x 7 ranks (G General, A Advisor, E Elephant, C Chariot, H Horse,
N Cannon, S Soldier) x 4 copies.
Melds and points (exposed / concealed):
  lone General 1/1; pair 0/0 (no Generals or Soldiers); triple 1/3; quad 6/8;
  quad of Generals 8/6; command set G A E of one colour 2/2; field set C H N of
  one colour 1/1; three soldiers of 3 colours 3/3; four soldiers 5/5.
Play:
- 20 cards each, 21 for the first player, who discards first.
- A discarded or turned-up card is on offer: hu (it completes your hand), pong
  or kong (a triple or quad with your cards), chi (any other meld; only the next
  player may chi a discard, and only the revealer a card they turned up), or pass.
  Priority: hu, then pong/kong, then chi. A claimed meld is laid face up
  (exposed); then the claimer discards.
- Nobody claims a discard: the next player turns up the stock's top card.
  Nobody claims a turned-up card: it is laid down, and only the next player may
  still claim it.
- Generals are never discarded; a General you turn up is melded at once.
- The stock runs out: the round ends, nobody scores.
Winning: a hu splits every card into melds; its points (plus 1 for each card you
own of the lucky card turned up afterwards) reach the threshold (10): you receive
points - 10 + 1 from everyone. Under it, a false win: you pay 11 to everyone.
The highest total after the last round wins."""

    def __init__(self, state: Any, colour: bool = False) -> None:
        super().__init__(state, colour)
        from ..fourcolor import _deck

        self.names = _deck.NAMES
        self.code_of = _deck.CODE_OF

    def card(self, code: int) -> str:
        name = self.names[code]
        return self.paint(name, _FOUR_COLOURS[name[0]])

    def cards(self, codes: Any) -> str:
        return " ".join(self.card(k) for k in codes)

    def card_name(self, code: int) -> str:
        from ..fourcolor import Card

        return f"{self.card(code)} ({Card.from_code(code).name})"

    def intro(self) -> list[str]:
        n, rules = self.state.game.num_players, self.state.game.rules
        return [f"Four Color Cards, seed {self.state.seed}: you are P0 against {plural(n - 1, 'bot')}; "
                f"{plural(rules.rounds, 'round')}, a hu needs {rules.threshold} points. 'help' explains, "
                "'quit' stops.",
                "Cards: colour R red, G green, Y yellow, W white + rank G General, A Advisor, E Elephant,",
                "       C Chariot, H Horse, N Cannon, S Soldier (RC: red Chariot). A card you cannot claim",
                "       passes by itself."]

    def show(self, record: Any) -> list[str]:
        from ..fourcolor.game import Claimed, Dealt, Discarded, GameEnd, RoundEnd, TurnedUp

        code = self.code_of.get
        if isinstance(record, Dealt):
            rounds = self.state.game.rules.rounds
            return ["", self.paint(f"== Round {record.round} of {rounds}: {self.subject(record.first, 'start')}", "1")]
        if isinstance(record, Discarded):
            return [f"   {self.verb(record.player, 'discard')} {self.card_name(code(str(record.card), 0))}"]
        if isinstance(record, TurnedUp):
            return [f"   {self.verb(record.player, 'turn')} up {self.card_name(code(str(record.card), 0))}"]
        if isinstance(record, Claimed):
            return [f"   {self.verb(record.player, 'claim')} {self.card(code(str(record.card), 0))}: "
                    f"{self.cards(code(c, 0) for c in str(record.meld).split())}"]
        if isinstance(record, RoundEnd):
            totals = ", ".join(f"{self.who(p)} {t}" for p, t in enumerate(record.totals))
            if record.winner < 0:
                outcome = "no winner"
            else:
                points = record.points + record.lucky
                false = points < self.state.game.rules.threshold
                outcome = (f"{self.who(record.winner)} {'call' if record.winner == self.you else 'calls'} hu with "
                           f"{record.points} points + {record.lucky} lucky" + (" - a false win" if false else ""))
            return [self.paint(f"== Round {record.round} over ({record.reason}): {outcome}", "1"),
                    f"   totals: {totals}"]
        if isinstance(record, GameEnd):
            names = " and ".join(self.who(w) for w in record.winners)
            verb = "win" if len(record.winners) > 1 or record.winners == (self.you,) else "wins"
            totals = ", ".join(f"{self.who(p)} {t}" for p, t in enumerate(record.totals))
            return ["", self.paint(f"Game over: {names} {verb} (totals: {totals})", "1")]
        return []

    def hand_codes(self, counts: Any) -> list[int]:
        return [k for k in range(28) for _ in range(counts[k])]

    def hand_text(self, counts: Any) -> str:
        """The hand by colour: ``RE RC RC  GG GN  ...``."""
        groups = [self.cards(k for k in range(c * 7, c * 7 + 7) for _ in range(counts[k])) for c in range(4)]
        return "  ".join(g for g in groups if g)

    def points_line(self, obs: Any) -> str:
        """The hand's points now: exposed melds, and what completes the hand."""
        from ..fourcolor import Meld, best_split, waits

        exposed = [Meld.parse([self.names[k] for k in m], exposed=True) for m in obs.exposed[self.you]]
        on_table = sum(m.points for m in exposed)
        threshold = obs.rules.threshold
        hand = self.hand_codes(obs.hand)
        text = f"Points: {on_table} exposed | a hu needs {threshold}"
        split = best_split(list(obs.hand), exposed) if hand else None
        if split is not None and obs.phase == "claim":
            return text + f" | your hand is complete: {split.points} points"
        waiting = waits(list(obs.hand), exposed) if obs.phase == "claim" else {}
        if waiting:
            shown = ", ".join(f"{self.card(c.code)} {p}" for c, p in sorted(waiting.items())[:8])
            return text + f" | you wait for: {shown}"
        return text

    def status(self) -> list[str]:
        obs = self.state.observation(self.you)
        lines = []
        for p, melds in enumerate(obs.exposed):
            if melds:
                lines.append(f"{self.who(p)} exposed: " + "  ".join(self.cards(m) for m in melds))
        sizes = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.hand_sizes))
        totals = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.totals))
        lines.append(f"Round {obs.round} | stock {obs.stock} | cards {sizes} | totals {totals}")
        lines.append(f"Your hand: {self.hand_text(obs.hand)}")
        lines.append(self.points_line(obs))
        return lines

    def choices(self) -> list[str]:
        from ..fourcolor.game import CLAIM_BASE, HU, MELDS, PASS

        obs = self.state.observation(self.you)
        legal = self.state.legal_actions()
        if obs.phase == "discard":
            return ["Discard a card (Generals are never discarded), e.g. " + self.names[legal[0]]]
        assert obs.offer is not None
        source = {"discard": "discarded", "turned": "turned up", "laid": "laid down"}.get(obs.offer.source,
                                                                                       obs.offer.source)
        lines = [f"On offer: {self.card_name(obs.offer.card)}, {source} by {self.who(obs.offer.player).replace('You', 'you')}. "
                 "Your options:"]
        for i, action in enumerate(legal):
            text = "pass" if action == PASS else "hu" if action == HU else \
                "claim " + self.cards(MELDS[action - CLAIM_BASE])
            lines.append(f"  {i}. {text}")
        return lines

    def automatic(self) -> int | None:
        """A card on offer that the person can only pass on passes by itself."""
        from ..fourcolor.game import PASS

        legal = self.state.legal_actions()
        return PASS if legal == [PASS] else None

    def false_win(self) -> str | None:
        """Why a hu now would be a false win (None: it would not)."""
        from ..fourcolor import Meld, best_split

        obs = self.state.observation(self.you)
        assert obs.offer is not None
        exposed = [Meld.parse([self.names[k] for k in m], exposed=True) for m in obs.exposed[self.you]]
        split = best_split(list(obs.hand), exposed, incoming=self.names[obs.offer.card],
                           incoming_from_discard=obs.offer.player != self.you)
        threshold = obs.rules.threshold
        if split is None:
            return "your hand does not split into melds with that card"
        if split.points >= threshold:
            return None
        return (f"your melds make {split.points} points, under the threshold of {threshold}: unless the lucky "
                f"card adds {threshold - split.points}, it is a false win and you pay {threshold + 1} to everyone")

    def act(self, line: str) -> None:
        from ..fourcolor.game import HU, PASS

        legal = self.state.legal_actions()
        word = line.strip().lower()
        if self.state.phase == "discard":
            text = line.strip().upper().removeprefix("DISCARD").strip()
            code = self.code_of.get(text)
            if code is None:
                raise FourCardsError(f"{quote(line)} is not a card: a colour R G Y W and a rank G A E C H N S, "
                                     "e.g. RC")
            self.state.apply(code, self.you)
            return
        if word == "pass":
            self.state.apply(PASS, self.you)
        elif word == "hu" or (word.isdecimal() and int(word) < len(legal) and legal[int(word)] == HU):
            if HU not in legal:
                raise FourCardsError("you cannot call hu: that card does not complete your hand")
            why = self.false_win()
            if why is not None:
                raise Confirm(f"A hu now: {why}. Call hu anyway?", lambda: self.state.apply(HU, self.you))
            self.state.apply(HU, self.you)
        elif word.isdecimal() and int(word) < len(legal):
            self.state.apply(legal[int(word)], self.you)
        else:
            raise FourCardsError(f"{quote(line)}: answer with an option's number (0..{len(legal) - 1}), "
                                 "'pass' or 'hu'")

    def typed(self, action: int) -> str:
        from ..fourcolor.game import CLAIM_BASE, HU, PASS

        if action < PASS:
            return self.names[action]
        if action in (PASS, HU):
            return "pass" if action == PASS else "hu"
        index = self.state.legal_actions().index(action)
        return f"{index}  ({self.state.action_to_string(action)})" if action >= CLAIM_BASE else str(index)


def run_four_color(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from ..fourcolor import FourColor

    rules = {"players": args.players or 4, "rounds": args.rounds or 3}
    if args.threshold is not None:
        rules["threshold"] = args.threshold
    return _play(args, "four-color", FourColorTable, lambda saved: FourColor(**saved), rules,
                 ("players", "rounds", "threshold"), stdin, stdout)


# -- Zangle ---------------------------------------------------------------------------------------

def add_zangle_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int_in(2, 8), default=None, help="players, 2 to 8 (default: 3)")
    parser.add_argument("--rounds", type=int_in(1, 100), default=None, help="rounds (default: 3)")
    parser.add_argument("--solitaire", action="store_true", help="one player, one 10-card pile (default: off)")
    add_session_arguments(parser, "zangle")


_SIZE_COLOURS = {0: "1", 1: "34", 2: "31", 3: "35", 4: "33", 5: "32"}  # white, blue, red, purple, yellow, green


class ZangleTable(Table):
    game = "zangle"
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

    def __init__(self, state: Any, colour: bool = False) -> None:
        super().__init__(state, colour)
        self.next_header: str | None = self.round_title(1, False)

    def shape(self, card: str) -> str:
        from ..zangle import SHAPES

        size = 0 if card == "Z" else SHAPES[card].size
        return self.paint(card, _SIZE_COLOURS[size])

    def intro(self) -> list[str]:
        n = self.state.game.num_players
        who = "solitaire" if n == 1 else f"you are P0 against {plural(n - 1, 'bot')}"
        return [f"Zangle, seed {self.state.seed}: {who}. Pick a Zangle by its number; 'help' explains, "
                "'hint' suggests one, 'quit' stops."]

    def drawing(self, cards: tuple[str, ...]) -> list[str]:
        """The cards side by side, each shape drawn with triangles."""
        from ..zangle import SHAPES, ascii_art

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
        from ..zangle.game import GameEnd, Hit, Made, RoundEnd, TurnEnded

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
            points = ", ".join(f"{self.who(p)} {n}" for p, n in enumerate(record.points))
            totals = ", ".join(f"{self.who(p)} {n}" for p, n in enumerate(record.totals))
            lines += [self.paint(f"== {'Bonus round' if record.bonus else f'Round {record.round}'} over: "
                                 f"points {points}", "1"), f"   totals: {totals}"]
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
        totals = "  ".join(f"{self.who(p)}:{n}" for p, n in enumerate(obs.totals))
        lines.append(f"Your pile {obs.piles[self.you]} | centre pile {obs.centre_pile} | hits {obs.hits[self.you]} "
                     f"| totals {totals}")
        return lines

    def choices(self) -> list[str]:
        obs = self.state.observation(self.you)
        lines = [f"Your Zangles ({len(obs.legal_zangles)}):"]
        lines += [f"  {i}. {zangle}" for i, zangle in enumerate(obs.legal_zangles)]
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
        if not word.isdecimal() or int(word) >= len(legal):
            raise FourCardsError(f"{quote(line)}: choose a Zangle by its number (0..{len(legal) - 1})")
        self.state.apply(legal[int(word)], self.you)

    def typed(self, action: int) -> str:
        legal = self.state.legal_actions()
        return f"{legal.index(action)}  ({self.state.action_to_string(action)})"


def run_zangle(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from ..zangle import ZangleGame

    if args.solitaire and args.players is not None:
        raise CommandLineError("--solitaire is one player: drop --players")
    rules: dict[str, Any] = {"mode": "solitaire"} if args.solitaire else {"players": args.players or 3}
    if args.rounds is not None:
        rules["rounds"] = args.rounds

    def build(saved: dict[str, Any]) -> Any:
        saved["deck"] = tuple(tuple(item) for item in saved.get("deck", ()))
        return ZangleGame(**saved)

    return _play(args, "zangle", ZangleTable, build, rules, ("players", "rounds", "solitaire"), stdin, stdout)
