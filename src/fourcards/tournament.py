"""Tournaments: seeded matches between bots, seats rotated over duplicate deals,
in parallel, with honest confidence intervals.

Every deal (a match seed) is played ``players`` times with the entrants'
seats rotated, so each entrant meets the same cards from every seat; this
cuts the variance that the deal itself brings.  The statistics treat a deal
as the independent unit: per entrant label, each deal gives one value (the
mean over its matches in that deal), and the 95% interval is the normal
interval of the mean over deals.  Results depend only on the seed, not on
how many workers play them or in what order.

>>> from fourcards.tournament import Entrant, run_tournament
>>> result = run_tournament([Entrant("greedy"), Entrant("random"), Entrant("random"),
...                          Entrant("random")], deals=5, seed=1, target_score=30)
>>> result.matches, sorted(result.stats)
(20, ['greedy', 'random'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from .engine import Bot, derive_seed
from .games import GAMES as REGISTRY
from .games import game_names, get_game

__all__ = ["Entrant", "Interval", "EntrantStats", "TournamentResult", "MatchRecord",
           "run_tournament", "play_deals", "make_bot"]


@dataclass(frozen=True)
class Entrant:
    """A bot to seat: its kind (``random``, ``greedy``, ``search``), options
    for its constructor, and a label to report it under (default: the kind)."""

    kind: str
    options: tuple[tuple[str, Any], ...] = ()
    label: str = ""

    @staticmethod
    def of(kind: str, label: str = "", **options: Any) -> Entrant:
        return Entrant(kind, tuple(sorted(options.items())), label)

    @property
    def name(self) -> str:
        return self.label or self.kind


@dataclass(frozen=True)
class MatchRecord:
    """One match: the deal, the rotation, and per seat the entrant index,
    win share, total penalty and rounds."""

    deal: int
    rotation: int
    entrants: tuple[int, ...]
    win_share: tuple[float, ...]
    penalties: tuple[int, ...]
    rounds: int


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.mean:.3f} [{self.low:.3f}, {self.high:.3f}]"


@dataclass(frozen=True)
class EntrantStats:
    """Per label: match win rate (a shared win counts 1/k) and mean score per
    round (Gang of Four: penalty points; Four Pack: families; Duelo: cards
    held), each with its 95% interval over deals."""

    label: str
    matches: int
    win_rate: Interval
    penalty_per_round: Interval


@dataclass(frozen=True)
class TournamentResult:
    entrants: tuple[Entrant, ...]
    deals: int
    matches: int
    records: tuple[MatchRecord, ...] = field(repr=False)
    stats: dict[str, EntrantStats] = field(default_factory=dict)
    game: str = "gang-of-four"

    def table(self) -> str:
        """The statistics as a markdown table."""
        lines = [f"| bot | matches | win rate [95% CI] | {SCORE_NAMES[self.game]} [95% CI] |",
                 "|---|---|---|---|"]
        for s in self.stats.values():
            lines.append(f"| {s.label} | {s.matches} | {s.win_rate} | "
                         f"{s.penalty_per_round.mean:.2f} [{s.penalty_per_round.low:.2f}, "
                         f"{s.penalty_per_round.high:.2f}] |")
        return "\n".join(lines)


GAMES = game_names()
BOT_KINDS = {name: entry.bot_kinds for name, entry in REGISTRY.items()}
SCORE_NAMES = {"gang-of-four": "penalty per round", "four-pack": "families per game",
               "duelo": "cards held at the end", "four-color": "points per game", "zangle": "points per game"}


def make_bot(entrant: Entrant, seed: int, game: str = "gang-of-four") -> Bot:
    """A seeded bot of the entrant's kind for ``game`` (a name of :mod:`fourcards.games`)."""
    entry = get_game(game)
    return entry.new_bot(entrant.kind, _new_game(entry.name, {}), seed, **dict(entrant.options))


def _new_game(game: str, rules: dict[str, Any]) -> Any:
    return get_game(game).new_game(**rules)


def play_deals(entrants: Sequence[Entrant], deal_numbers: Sequence[int], seed: int,
               rules: dict[str, Any], game_name: str = "gang-of-four") -> list[MatchRecord]:
    """Play the given deals, every rotation of the seats (a unit of work for a worker)."""
    if game_name == "four-color":  # random and greedy players: whole games in C, the same records
        from .fourcolor.simulate import tournament_rows
        fast = tournament_rows(entrants, deal_numbers, seed, rules)
        if fast is not None:
            return [MatchRecord(*row) for row in fast]
    game = _new_game(game_name, rules)
    n = game.num_players
    records = []
    for deal in deal_numbers:
        match_seed = derive_seed(seed, deal)
        for rotation in range(n):
            seating = tuple((seat + rotation) % n for seat in range(n))
            bots = [make_bot(entrants[e], derive_seed(match_seed, 1000 + e), game_name) for e in seating]
            state = game.new_match(match_seed)
            while not state.is_terminal:
                player = state.current_player
                state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
            winners = state.winners
            share = tuple(1 / len(winners) if p in winners else 0.0 for p in range(n))
            rounds = getattr(state, "round", 1) if game_name == "gang-of-four" else 1
            records.append(MatchRecord(deal, rotation, seating, share, state.scores, rounds))
    return records


def _interval(values: Sequence[float]) -> Interval:
    count = len(values)
    mean = sum(values) / count
    if count < 2:
        return Interval(mean, -math.inf, math.inf)
    variance = sum((v - mean) ** 2 for v in values) / (count - 1)
    half = 1.959964 * math.sqrt(variance / count)
    return Interval(mean, mean - half, mean + half)


def summarize(entrants: Sequence[Entrant], records: Sequence[MatchRecord]) -> dict[str, EntrantStats]:
    """Per-label statistics with deals as the independent unit."""
    labels = sorted({e.name for e in entrants}, key=[e.name for e in entrants].index)
    per_deal: dict[str, dict[int, list[tuple[float, int, int]]]] = {label: {} for label in labels}
    counts = {label: 0 for label in labels}
    for record in records:
        for seat, entrant in enumerate(record.entrants):
            label = entrants[entrant].name
            per_deal[label].setdefault(record.deal, []).append(
                (record.win_share[seat], record.penalties[seat], record.rounds))
            counts[label] += 1
    stats = {}
    for label in labels:
        wins, penalties = [], []
        for games in per_deal[label].values():
            wins.append(sum(g[0] for g in games) / len(games))
            penalties.append(sum(g[1] for g in games) / sum(g[2] for g in games))
        stats[label] = EntrantStats(label, counts[label], _interval(wins), _interval(penalties))
    return stats


def run_tournament(entrants: Sequence[Entrant], deals: int, seed: int = 0,
                   executor: Executor | None = None, chunk: int = 4, game: str = "gang-of-four",
                   **rules: Any) -> TournamentResult:
    """Play ``deals`` deals, each with every rotation of the seats.

    ``executor`` (any :class:`concurrent.futures.Executor`, e.g. a process
    pool) plays chunks of ``chunk`` deals in parallel; without one, the
    matches are played here.  ``game`` is ``gang-of-four``, ``four-pack`` or
    ``duelo``; ``rules`` are that game's rule options.
    """
    entrants = tuple(entrants)
    game = get_game(game).name
    rules.setdefault("players", len(entrants))
    if len(entrants) != rules["players"]:
        raise ValueError(f"{rules['players']} seats need {rules['players']} entrants, got {len(entrants)}")
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    for entrant in entrants:
        make_bot(entrant, 0, game)  # fail early on an unknown kind or a bad option
    batches = [list(range(start, min(start + chunk, deals))) for start in range(0, deals, chunk)]
    if executor is None:
        parts = [play_deals(entrants, batch, seed, rules, game) for batch in batches]
    else:
        futures = [executor.submit(play_deals, entrants, batch, seed, rules, game) for batch in batches]
        parts = [f.result() for f in futures]
    records = tuple(r for part in parts for r in part)
    return TournamentResult(entrants, deals, len(records), records, summarize(entrants, records), game)


def parse_entrant(text: str) -> Entrant:
    """``kind`` or ``kind:option=value,...`` (``search:time_per_move=0.02``)."""
    kind, _, rest = text.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(";")):
        key, _, value = item.partition("=")
        try:
            options[key] = int(value)
        except ValueError:
            options[key] = float(value)
    return Entrant.of(kind, **options)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fourcards.tournament --bots search:time_per_move=0.02,greedy,greedy,greedy``"""
    import argparse
    import os
    import time
    from concurrent.futures import ProcessPoolExecutor

    parser = argparse.ArgumentParser(prog="python -m fourcards.tournament", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", required=True,
                        help="one entrant a seat, comma-separated: random, greedy, search:time_per_move=0.02")
    parser.add_argument("--deals", type=int, default=100, help="deals (each played once a rotation)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--game", choices=GAMES, default="gang-of-four")
    parser.add_argument("--target-score", type=int, default=100, help="Gang of Four only")
    args = parser.parse_args(argv)
    entrants = [parse_entrant(t) for t in args.bots.split(",")]
    rules = {"target_score": args.target_score} if args.game == "gang-of-four" else {}
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        result = run_tournament(entrants, deals=args.deals, seed=args.seed, executor=pool, chunk=1,
                                game=args.game, **rules)
    print(f"{result.matches} matches ({args.deals} deals x {len(entrants)} rotations), seed {args.seed}, "
          f"{args.workers} workers, {time.perf_counter() - start:.0f} s")
    print(result.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
