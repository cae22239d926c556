"""``fourcards play four-pack``, ``duelo``, ``four-color`` and ``zangle``: a person against bots."""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..decks import load_deck
from ..engine import Bot, derive_seed
from ..errors import FourCardsError


def add_four_pack_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, choices=range(3, 9))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--opponents", choices=("memory", "random"), default="memory")
    parser.add_argument("--must-hold-family", action="store_true")
    parser.add_argument("--deck", metavar="FILE", help="a deck JSON file (default: chemical elements)")


def add_duelo_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=2, choices=range(2, 9))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--opponents", choices=("category", "random"), default="category")
    parser.add_argument("--deck", metavar="FILE", help="a deck JSON file (default: chemical elements)")


class _Session:
    """What every game's terminal play shares: seat 0 is the person, the other
    seats are bots; new history records are shown as they happen; on the
    person's turn ``prompt()`` shows the table, then each line goes to
    ``act(line)`` until one is accepted (a :class:`FourCardsError` is shown and
    the prompt repeats; ``help`` and ``quit`` are handled here)."""

    def __init__(self, state: Any, bots: dict[int, Bot], stdin: TextIO, stdout: TextIO) -> None:
        self.state, self.bots, self.stdin, self.stdout = state, bots, stdin, stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def run(self, show: Callable[[Any], None], prompt: Callable[[], None], act: Callable[[str], None],
            help_text: str) -> int:
        state, seen = self.state, 0
        while True:
            for record in state.history[seen:]:
                show(record)
            seen = len(state.history)
            if state.is_terminal:
                return 0
            player = state.current_player
            if player != 0:
                state.apply(self.bots[player].choose(state.observation(player), state.legal_actions()), player)
                continue
            prompt()
            while True:
                self.stdout.write("> ")
                self.stdout.flush()
                raw = self.stdin.readline()
                line = raw.strip()
                if not raw or line.lower() in ("quit", "exit", "q"):
                    self.say("bye")
                    return 0
                if line.lower() in ("help", "?"):
                    self.say(help_text)
                    continue
                try:
                    act(line)
                    break
                except FourCardsError as error:
                    self.say(f"! {error}")


def _who(player: int) -> str:
    return "You" if player == 0 else f"P{player}"


def run_four_pack(args: argparse.Namespace, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    from ..fourpack import Ask, Asked, FourPack, GameEnd, LaidDown, MemoryBot, RandomBot

    try:
        deck = load_deck(args.deck)
    except FourCardsError as error:
        print(f"fourcards: {error}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    game = FourPack(players=args.players, must_hold_family=args.must_hold_family, deck=deck)
    state = game.new_match(seed)
    bots: dict[int, Bot] = {p: MemoryBot() if args.opponents == "memory" else RandomBot(derive_seed(seed, p))
                            for p in range(1, args.players)}

    session = _Session(state, bots, stdin, stdout)
    say = session.say
    say(f"Four Pack, seed {seed}: you are P0 against {args.players - 1} bots. "
        "Ask with 'P2 C3' (player and card); 'help', 'quit'.")

    def show(record: Any) -> None:
        if isinstance(record, Asked):
            whom = "you" if record.target == 0 else f"P{record.target}"
            name = deck.card(record.card).name
            say(f"   {_who(record.asker)} ask{'' if record.asker == 0 else 's'} {whom} for {record.card} ({name}): "
                f"{'yes!' if record.success else 'no'}")
        elif isinstance(record, LaidDown):
            who = "You lay" if record.player == 0 else f"P{record.player} lays"
            say(f"   {who} down family {record.family} ({deck.families['ABCDEFGH'.index(record.family)]})")
        elif isinstance(record, GameEnd):
            names = " and ".join("you" if w == 0 else f"P{w}" for w in record.winners)
            verb = "win" if len(record.winners) > 1 or record.winners == (0,) else "wins"
            say(f"Game over: families {list(record.families)}; {names} {verb}.")

    def prompt() -> None:
        obs = state.observation(0)
        sizes = "  ".join(f"P{p}:{n}" for p, n in enumerate(obs.hand_sizes))
        downs = "  ".join(f"P{p}:{''.join(f) or '-'}" for p, f in enumerate(obs.families_down))
        say("")
        say(f"Cards: {sizes} | Families down: {downs}")
        say("Your hand: " + " ".join(f"{c}({deck.card(c).name})" for c in obs.hand))

    def act(line: str) -> None:
        words = line.replace(",", " ").split()
        if len(words) != 2:
            raise FourCardsError(f"{line!r}: ask as 'P2 C3' (a player and a card)")
        seat = words[0].upper().removeprefix("P")
        if not seat.isdigit():
            raise FourCardsError(f"{words[0]!r} is not a player (P1..P{args.players - 1})")
        state.apply(Ask(int(seat), words[1].upper()), 0)

    return session.run(show, prompt, act,
                       "Ask a player for a card: 'P2 C3' (or '2 C3'). A hit lets you ask again; a miss "
                       "passes the turn to the player you asked. Four cards of a family are laid down; "
                       "the most families wins.")


def run_duelo(args: argparse.Namespace, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    from ..duelo import CategoryBot, Choose, Duelo, Eliminated, GameEnd, HandPlayed, RandomBot

    try:
        deck = load_deck(args.deck)
    except FourCardsError as error:
        print(f"fourcards: {error}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbits(32)
    state = Duelo(players=args.players, deck=deck).new_match(seed)
    bots: dict[int, Any] = {p: CategoryBot(deck) if args.opponents == "category" else RandomBot(derive_seed(seed, p))
                            for p in range(1, args.players)}

    session = _Session(state, bots, stdin, stdout)
    say = session.say
    say(f"Duelo, seed {seed}: you are P0 against {args.players - 1} bot(s). Call a category when it is "
        "your turn (its name or number); 'help', 'quit'.")

    def show(record: Any) -> None:
        if isinstance(record, HandPlayed):
            shown = ", ".join(f"{'you' if p == 0 else f'P{p}'} {c} {deck.card(c).name} "
                              f"{deck.card(c).value(record.category):g}" for p, c in record.revealed)
            if record.winner < 0:
                result = "tie: " + " and ".join(f"P{p}" for p in record.tied) + " play on"
            else:
                won = "you win" if record.winner == 0 else f"P{record.winner} wins"
                result = f"{won} {len(record.taken)} cards"
            say(f"   hand {record.number}: {record.category} - {shown} -> {result}")
        elif isinstance(record, Eliminated):
            say(f"   {'you are' if record.player == 0 else f'P{record.player} is'} out of cards")
        elif isinstance(record, GameEnd):
            outcome = "a draw" if record.draw else (
                "you win!" if record.winners == (0,) else f"P{record.winners[0]} wins")
            say(f"Game over: {outcome} (cards {list(record.cards)})")

    def prompt() -> None:
        obs = state.observation(0)
        assert obs.top_card is not None
        card = deck.card(obs.top_card)
        say("")
        say(f"Piles: {'  '.join(f'P{p}:{n}' for p, n in enumerate(obs.pile_sizes))} | table: {obs.table}")
        say(f"Your top card: {card.id} {card.name}")
        for k, category in enumerate(deck.categories):
            say(f"  {k}. {category.name}: {card.values[k]:g} {category.unit}".rstrip()
                + ("" if category.higher_wins else "  (lower wins)"))

    def act(line: str) -> None:
        if line.isdigit():
            state.apply(int(line), 0)
        else:
            state.apply(Choose(line.strip().lower().replace(" ", "_")), 0)

    return session.run(show, prompt, act,
                       "Call the category where your card is strongest; every player shows that value "
                       "on their top card and the best takes the cards. Ties go on the table.")


def add_four_color_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--opponents", choices=("greedy", "random"), default="greedy")
    parser.add_argument("--rounds", type=int, default=3)


def run_four_color(args: argparse.Namespace, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    from ..fourcolor import _deck
    from ..fourcolor.bots import GreedyBot, RandomBot
    from ..fourcolor.game import (
        CLAIM_BASE, HU, MELDS, PASS, Claimed, Discarded, FourColor, GameEnd, RoundEnd, TurnedUp,
    )

    seed = args.seed if args.seed is not None else secrets.randbits(32)
    try:
        state = FourColor(players=args.players, rounds=args.rounds).new_match(seed)
    except FourCardsError as error:
        print(f"fourcards: {error}", file=sys.stderr)
        return 2
    bots: dict[int, Any] = {p: GreedyBot() if args.opponents == "greedy" else RandomBot(derive_seed(seed, p))
                            for p in range(1, args.players)}

    session = _Session(state, bots, stdin, stdout)
    say = session.say

    def cards(counts: Any) -> str:
        return " ".join(_deck.NAMES[k] for k in range(28) for _ in range(counts[k]))

    say(f"Four Color Cards, seed {seed}: you are P0 against {args.players - 1} bots. 'help' explains.")

    def show(record: Any) -> None:
        ending = "" if getattr(record, "player", -1) == 0 else "s"
        if isinstance(record, Discarded):
            say(f"   {_who(record.player)} discard{ending} {record.card}")
        elif isinstance(record, TurnedUp):
            say(f"   {_who(record.player)} turn{ending} up {record.card}")
        elif isinstance(record, Claimed):
            say(f"   {_who(record.player)} claim{ending} {record.card}: {record.meld}")
        elif isinstance(record, RoundEnd):
            outcome = "no winner" if record.winner < 0 else (
                f"{_who(record.winner)} won with {record.points} points + {record.lucky} lucky")
            say(f"== Round {record.round} over ({record.reason}): {outcome}; totals {list(record.totals)}")
        elif isinstance(record, GameEnd):
            say("Game over: " + " and ".join(_who(w) for w in record.winners) + f" (totals {list(record.totals)})")

    def prompt() -> None:
        obs = state.observation(0)
        legal = state.legal_actions()
        say("")
        for p, melds in enumerate(obs.exposed):
            if melds:
                say(f"{_who(p)} exposed: " + "  ".join(" ".join(_deck.NAMES[k] for k in m) for m in melds))
        say(f"Stock {obs.stock} | cards {list(obs.hand_sizes)} | totals {list(obs.totals)}")
        say(f"Your hand: {cards(obs.hand)}")
        if obs.phase == "discard":
            say("Discard a card (Generals are never discarded): type it, e.g. " + _deck.NAMES[legal[0]])
            return
        assert obs.offer is not None
        say(f"On offer: {_deck.NAMES[obs.offer.card]} ({obs.offer.source} by {_who(obs.offer.player)}). "
            "Your options:")
        for i, action in enumerate(legal):
            text = "pass" if action == PASS else "hu" if action == HU else \
                "claim " + " ".join(_deck.NAMES[k] for k in MELDS[action - CLAIM_BASE])
            say(f"  {i}. {text}")

    def act(line: str) -> None:
        legal = state.legal_actions()
        if state.phase == "discard":
            code = _deck.CODE_OF.get(line.upper().removeprefix("DISCARD ").strip())
            if code is None:
                raise FourCardsError(f"{line!r} is not a card (colour R G Y W + rank G A E C H N S)")
            state.apply(code, 0)
            return
        word = line.lower()
        if word in ("pass", "hu"):
            state.apply(PASS if word == "pass" else HU, 0)
        elif word.isdigit() and int(word) < len(legal):
            state.apply(legal[int(word)], 0)
        else:
            raise FourCardsError(f"{line!r}: answer with an option's number, 'pass' or 'hu'")

    return session.run(show, prompt, act,
                       "Make melds of every card: lone Generals, pairs, triples, quads, command sets "
                       "(G A E), field sets (C H N) of one colour, and soldiers of three or four colours. "
                       "When a card is on offer, answer with its number, 'pass' or 'hu'.")


def add_zangle_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=3, choices=range(2, 9))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--solitaire", action="store_true", help="one player, one 10-card pile")
    parser.add_argument("--opponents", choices=("greedy", "random"), default="greedy")


def run_zangle(args: argparse.Namespace, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    from ..zangle.bots import GreedyBot, RandomBot
    from ..zangle.cards import KINDS
    from ..zangle.game import GameEnd, Hit, Made, RoundEnd, ZangleGame
    from ..zangle.geometry import SHAPES, ascii_art

    seed = args.seed if args.seed is not None else secrets.randbits(32)
    game = ZangleGame(mode="solitaire") if args.solitaire else ZangleGame(players=args.players)
    state = game.new_match(seed)
    bots: dict[int, Any] = {p: GreedyBot() if args.opponents == "greedy" else RandomBot(derive_seed(seed, p))
                            for p in range(1, game.num_players)}

    session = _Session(state, bots, stdin, stdout)
    say = session.say

    def drawing(cards: tuple[str, ...]) -> list[str]:
        """The cards side by side, each shape drawn with triangles."""
        arts = [(ascii_art(SHAPES[c].cells) if c != "Z" else "Z").split("\n") for c in cards]
        height = max((len(a) for a in arts), default=0)
        width = [max(len(line) for line in a) for a in arts]
        rows = []
        for r in range(height):
            parts = []
            for a, w in zip(arts, width):
                line = a[r - (height - len(a))] if r >= height - len(a) else ""
                parts.append(line.ljust(w))
            rows.append("   ".join(parts).rstrip())
        rows.append("   ".join(c.ljust(w) for c, w in zip(cards, width)).rstrip())
        return rows

    say(f"Zangle, seed {seed}: {'solitaire' if args.solitaire else f'you are P0 against {game.num_players - 1} bots'}. "
        "Pick a Zangle by its number; 'help', 'quit'.")

    def show(record: Any) -> None:
        if isinstance(record, Made):
            say(f"   {_who(record.player)} made {record.zangle}")
        elif isinstance(record, Hit):
            say(f"   {_who(record.player)} took a hit: {record.card}")
        elif isinstance(record, RoundEnd):
            say(f"== Round {record.round} over: points {list(record.points)}, totals {list(record.totals)}")
        elif isinstance(record, GameEnd):
            say("Game over: " + " and ".join(_who(w) for w in record.winners) + f" (totals {list(record.totals)})")

    def prompt() -> None:
        obs = state.observation(0)
        say("")
        say("Centre:")
        for row in drawing(obs.centre):
            say("  " + row)
        say("Your cards:")
        for row in drawing(obs.cards[0]):
            say("  " + row)
        say(f"Your pile {obs.piles[0]} | centre pile {obs.centre_pile} | totals {list(obs.totals)}")
        for i, zangle in enumerate(obs.legal_zangles):
            say(f"  {i}. {zangle}")

    def act(line: str) -> None:
        legal = state.legal_actions()
        if not line.isdigit() or int(line) >= len(legal):
            raise FourCardsError(f"{line!r}: choose a Zangle by its number (0..{len(legal) - 1})")
        state.apply(legal[int(line)], 0)

    return session.run(show, prompt, act,
                       "A Zangle: a target card whose shape the pieces cover exactly (each piece may be "
                       "turned and flipped), at least 3 cards, from the centre and your own cards. Z cards "
                       "join any Zangle. Shapes: " + ", ".join(KINDS))
