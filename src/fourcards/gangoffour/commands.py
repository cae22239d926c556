"""Gang of Four's own commands: ``fourcards hand`` (a seeded hand and its legal
leads) and ``fourcards simulate`` (many matches in the compiled simulator).

:class:`fourcards.gangoffour.terminal.GangOfFourTable` adds them to the
command line (:meth:`fourcards.terminal.Table.extra_commands`)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

import numpy as np

from .. import COMPILED, __version__
from ..stats import interval
from ..terminal import SEED, CommandLineError, ProgressBar, colour_enabled, executor_for, int_in, plural, quote

__all__ = ["show_hand", "add_hand", "run_hand", "add_simulate", "run_simulate", "summary", "format_summary"]


def show_hand(seed: int, seat: int = 0, colour: bool = False) -> str:
    """One seat of a seeded deal and its legal leads, classified and ranked: the
    first lead of the match (it must hold M1) for the seat holding M1, any
    lead for the other seats."""
    from .combos import ComboKind, legal_plays
    from .cards import format_cards
    from .deal import deal
    from .match import GangOfFour
    from .render import paint

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


def add_hand(sub: Any) -> None:
    hand = sub.add_parser("hand", help="a seeded Gang of Four hand and every legal lead",
                          description="A seeded Gang of Four hand and every legal lead.")
    hand.add_argument("--seed", type=SEED, default=2026, help="the deal's seed (default: 2026)")
    hand.add_argument("--colour", "--color", choices=("auto", "always", "never"), default="auto",
                      help="colours: auto (a terminal and NO_COLOR unset), always or never (default: auto)")
    hand.add_argument("--seat", type=int_in(0, 3), default=0, help="the seat to show, 0 to 3 (default: 0)")


def run_hand(args: argparse.Namespace) -> int:
    print(show_hand(args.seed, args.seat, colour_enabled(args.colour)))
    return 0


def add_simulate(sub: Any) -> None:
    from .simulate import MAX_MATCHES, POLICIES

    sim = sub.add_parser("simulate", help="many seeded Gang of Four matches between random and rule-based bots",
                         description="Many seeded Gang of Four matches between random and rule-based bots, "
                                     "played by the compiled core, with 95% intervals.")
    sim.add_argument("--bots", default="greedy,random,random,random",
                     help=f"one bot a seat, comma-separated: {', '.join(POLICIES)} "
                          "(default: greedy,random,random,random)")
    sim.add_argument("--matches", type=int_in(0, MAX_MATCHES), default=1000,
                     help=f"matches to play, at most {MAX_MATCHES:,} (default: 1000)")
    sim.add_argument("--seed", type=SEED, default=0, help="seed of the matches (default: 0)")
    sim.add_argument("--target-score", type=int_in(1, 100000), default=100,
                     help="the score that ends a match (default: 100)")
    sim.add_argument("--workers", type=int_in(1, 1024), default=os.cpu_count() or 1,
                     help="local processes (default: one a CPU)")
    sim.add_argument("--batch-size", type=int_in(1), default=500, help="matches a unit of work (default: 500)")
    sim.add_argument("--backend", choices=("local", "dask"), default="local",
                     help="where the batches run: local processes or a Dask cluster (default: local)")
    sim.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler, with --backend dask (default: none)")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON (default: a table)")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")


def summary(result: Any, bots: list[str]) -> dict[str, Any]:
    """Per seat: match win share (a shared win counts 1/k) and penalty per round, with 95% intervals."""
    if len(result.seeds):
        shares = result.winners / result.winners.sum(axis=1, keepdims=True)
        per_round = result.scores / np.maximum(result.rounds, 1)[:, None]
    else:
        shares = per_round = np.zeros((0, len(bots)))
    seats = [
        {"seat": seat, "bot": bot, "win_rate": interval(shares[:, seat], proportion=True),
         "penalty_per_round": interval(per_round[:, seat])}
        for seat, bot in enumerate(bots)
    ]
    return {"matches": int(len(result.seeds)), "steps": int(result.steps.sum()),
            "rounds": int(result.rounds.sum()), "seats": seats}


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _cell(data: dict[str, float | None], digits: int) -> str:
    if data["mean"] is None:
        return "-"
    if data["low"] is None or data["high"] is None:
        return f"{_number(data['mean'], digits)} [n/a]"
    return f"{_number(data['mean'], digits)} [{_number(data['low'], digits)}, {_number(data['high'], digits)}]"


def format_summary(data: dict[str, Any]) -> str:
    lines = [f"{plural(data['matches'], 'match')}, {plural(data['rounds'], 'round')}, "
             f"{plural(data['steps'], 'action')}", "",
             "| seat | bot | win rate [95% CI] | penalty per round [95% CI] |", "|---|---|---|---|"]
    for seat in data["seats"]:
        lines.append(f"| {seat['seat']} | {seat['bot']} | {_cell(seat['win_rate'], 3)} | "
                     f"{_cell(seat['penalty_per_round'], 2)} |")
    return "\n".join(lines)


def run_simulate(args: argparse.Namespace) -> int:
    from .match import Rules
    from .simulate import POLICIES, simulate_many

    bots = [b.strip() for b in args.bots.split(",")]
    if "" in bots:
        raise CommandLineError(f"--bots {quote(args.bots, 60)} has an empty bot between commas: name one a seat")
    unknown = [b for b in bots if b not in POLICIES]
    if unknown:
        raise CommandLineError(f"unknown bot {quote(unknown[0], 20)} for simulate; choose from "
                               f"{', '.join(POLICIES)} (search bots: fourcards tournament)")
    if args.scheduler and args.backend != "dask":
        raise CommandLineError("--scheduler is for --backend dask")
    try:
        rules = Rules(players=len(bots), target_score=args.target_score)
    except ValueError as error:
        seats = "seat" if len(bots) == 1 else "seats"
        raise CommandLineError(f"argument --bots: {len(bots)} {seats} named: name one bot a seat, 2 to 4 "
                               f"({error})") from None
    progress = None if args.no_progress or args.json or args.matches == 0 else ProgressBar()
    with executor_for(args.backend, min(args.workers, max(1, -(-args.matches // args.batch_size))),
                      args.scheduler) as executor:
        result = simulate_many(args.matches, args.seed, bots, rules, executor=executor,
                               batch_size=args.batch_size, progress=progress)
    data = summary(result, bots)
    data.update(seed=args.seed, bots=bots, rules=rules.to_dict())
    print(json.dumps(data, indent=2, allow_nan=False) if args.json else format_summary(data))
    return 0
