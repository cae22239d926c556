"""``python -m fourcards``: a seeded Gang of Four match between rule-based players.

    python -m fourcards                 # a 4-player match, rendered move by move
    python -m fourcards demo --seed 7 --players 3 --delay 0.05
    python -m fourcards hand --seed 7   # one seat's hand and every legal lead
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from . import COMPILED, __version__
from .engine import Bot
from .gangoffour import ComboKind, format_cards, legal_plays
from .gangoffour.bots import GreedyBot
from .gangoffour.deal import deal
from .gangoffour.match import CardGiven, GangOfFour, MatchEnd, Passed, Played, RoundEnd, RoundStart

_COLOURS = {"G": "32", "Y": "33", "R": "31", "M": "35"}


def _paint(text: str, enabled: bool) -> str:
    if not enabled:
        return text
    words = []
    for word in text.split():
        code = _COLOURS.get(word[0], "1") if word[0] in _COLOURS and word[1:2].isalnum() else "0"
        if word in ("GP", "YP", "RD"):
            code = "1;" + _COLOURS[word[0]]
        words.append(f"\033[{code}m{word}\033[0m")
    return " ".join(words)


def show_hand(seed: int, seat: int = 0, colour: bool = False) -> str:
    """One seat of a seeded deal and its legal leads, classified and ranked."""
    hand = deal(seed)[seat]
    plays = legal_plays(hand)
    lines = [
        f"fourcards {__version__} ({'compiled core' if COMPILED else 'pure Python'})",
        f"Gang of Four, seed {seed}: seat {seat} holds",
        "  " + _paint(format_cards(hand), colour),
        f"{len(plays)} legal leads, by kind, lowest to highest (action index in brackets):",
    ]
    for kind in ComboKind:
        of_kind = [c for c in plays if c.kind is kind]
        if not of_kind:
            continue
        lines.append(f"  {kind.name.lower().replace('_', ' ')} ({len(of_kind)}):")
        for combo in of_kind:
            lines.append(f"    [{combo.action:5d}] {_paint(str(combo), colour)}")
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
            lines.extend(_describe(record, state, colour))
        seen = len(history)
        if state.is_terminal:
            break
        player = state.current_player
        state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
    return lines


def _describe(record: object, state: object, colour: bool) -> list[str]:
    if isinstance(record, RoundStart):
        way = "counter-clockwise" if record.direction == 1 else "clockwise"
        return ["", f"== Round {record.round} (dealer P{record.dealer}, play goes {way}; P{record.leader} leads)"]
    if isinstance(record, CardGiven):
        how = "gives the winner their highest card" if record.automatic else "gives back"
        return [f"   exchange: P{record.giver} {how}: {_paint(str(record.card), colour)} -> P{record.receiver}"]
    if isinstance(record, Played):
        kind = record.combo.kind.name.lower().replace("_", " ")
        last = "  - last card!" if record.cards_left == 1 else ""
        out = "  - out!" if record.cards_left == 0 else ""
        return [f"   P{record.player} {_paint(str(record.combo), colour):<24} {kind:<14} "
                f"({record.cards_left:2d} left){last}{out}"]
    if isinstance(record, Passed):
        return [f"   P{record.player} passes"]
    if isinstance(record, RoundEnd):
        penalties = ", ".join(f"P{p} +{v}" for p, v in enumerate(record.penalties))
        totals = ", ".join(f"P{p} {v}" for p, v in enumerate(record.totals))
        return [f"   round {record.round} won by P{record.winner}: {penalties}", f"   totals: {totals}"]
    if isinstance(record, MatchEnd):
        names = " and ".join(f"P{w}" for w in record.winners)
        return ["", f"Match over: {names} win{'s' if len(record.winners) == 1 else ''} "
                    f"with {min(record.totals)} points."]
    return []


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fourcards", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"fourcards {__version__}")
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="a seeded match between rule-based players (the default)")
    hand = sub.add_parser("hand", help="a seeded hand and every legal lead")
    for p in (parser, demo, hand):
        p.add_argument("--seed", type=int, default=2026, help="seed (default 2026)")
        p.add_argument("--colour", choices=("auto", "always", "never"), default="auto")
    for p in (parser, demo):
        p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
        p.add_argument("--delay", type=float, default=None,
                       help="seconds between lines (default 0.01 in a terminal, else 0)")
    hand.add_argument("--seat", type=int, default=0, choices=range(4), help="seat to show")
    args = parser.parse_args(argv)
    colour = args.colour == "always" or (args.colour == "auto" and sys.stdout.isatty())
    if args.command == "hand":
        print(show_hand(args.seed, args.seat, colour))
        return 0
    delay = args.delay if args.delay is not None else (0.01 if sys.stdout.isatty() else 0.0)
    try:
        for line in demo_lines(args.seed, args.players, colour):
            print(line, flush=delay > 0)
            if delay > 0:
                time.sleep(delay)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
