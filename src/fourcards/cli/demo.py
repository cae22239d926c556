"""``fourcards demo`` (the default) and ``fourcards hand``."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from .. import COMPILED, __version__
from ..engine import Bot
from ..gangoffour import ComboKind, format_cards, legal_plays
from ..gangoffour.bots import GreedyBot
from ..gangoffour.deal import deal
from ..gangoffour.match import GangOfFour
from .render import colour_enabled, describe, paint
from .args import SEED, int_in, quote


def show_hand(seed: int, seat: int = 0, colour: bool = False) -> str:
    """One seat of a seeded deal and its legal leads, classified and ranked: the
    first lead of the match (it must hold M1) for the seat holding M1, any
    lead for the other seats."""
    hand = deal(seed)[seat]
    state = GangOfFour().new_match(seed)
    if state.current_player == seat:
        allowed = set(state.legal_actions())
        plays = [c for c in legal_plays(hand) if c.action in allowed]
        title = f"{len(plays)} legal first leads (the first lead of the match must hold M1)"
    else:
        plays = legal_plays(hand)
        title = f"{len(plays)} legal leads (P{state.current_player} holds M1 and leads first)"
    lines = [
        f"fourcards {__version__} ({'compiled core' if COMPILED else 'pure Python'})",
        f"Gang of Four, seed {seed}: seat {seat} holds",
        "  " + paint(format_cards(hand), colour),
        f"{title}, by kind, lowest to highest (action index in brackets):",
    ]
    for kind in ComboKind:
        of_kind = [c for c in plays if c.kind is kind]
        if not of_kind:
            continue
        lines.append(f"  {kind.name.lower().replace('_', ' ')} ({len(of_kind)}):")
        for combo in of_kind:
            lines.append(f"    [{combo.action:5d}] {paint(str(combo), colour)}")
    return "\n".join(lines)


def demo_lines(seed: int, players: int = 4, colour: bool = False) -> list[str]:
    """The text of a seeded match between GreedyBots, one line an event."""
    game = GangOfFour(players=players)
    state = game.new_match(seed)
    bots: list[Bot] = [GreedyBot() for _ in range(players)]
    lines = [f"fourcards {__version__}: Gang of Four, {players} rule-based players, seed {seed} "
             f"({'compiled core' if COMPILED else 'pure Python'})"]
    seen = 0
    while True:
        history = state.history
        for record in history[seen:]:
            lines.extend(describe(record, colour))
        seen = len(history)
        if state.is_terminal:
            break
        player = state.current_player
        state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
    return lines


def _common(parser: argparse.ArgumentParser, default: Any = 2026) -> None:
    parser.add_argument("--seed", type=SEED, default=default, help=f"the deal's seed (default: {default})")
    parser.add_argument("--colour", "--color", choices=("auto", "always", "never"), default="auto",
                        help="colours: auto (a terminal and NO_COLOR unset), always or never (default: auto)")


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a number of seconds") from None
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"{text}: seconds between 0 and 10")
    return value


def _demo_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int_in(2, 4), default=4, help="players, 2 to 4 (default: 4)")
    parser.add_argument("--delay", type=_delay, default=None,
                        help="seconds between lines (default: 0.01 in a terminal, else 0)")


def add_top_level_arguments(parser: argparse.ArgumentParser) -> None:
    """``fourcards`` with no command runs the demo, so it takes the demo's options."""
    _common(parser)
    _demo_options(parser)


def add_commands(sub: Any) -> None:
    demo = sub.add_parser("demo", help="a seeded match between rule-based players (the default)")
    _common(demo)
    _demo_options(demo)
    hand = sub.add_parser("hand", help="a seeded hand and every legal lead")
    _common(hand)
    hand.add_argument("--seat", type=int_in(0, 3), default=0, help="the seat to show, 0 to 3 (default: 0)")


def run(args: argparse.Namespace) -> int:
    colour = colour_enabled(args.colour)
    if args.command == "hand":
        print(show_hand(args.seed, args.seat, colour))
        return 0
    delay = args.delay if args.delay is not None else (0.01 if sys.stdout.isatty() else 0.0)
    for line in demo_lines(args.seed, args.players, colour):
        print(line, flush=delay > 0)
        if delay > 0:
            time.sleep(delay)
    return 0
