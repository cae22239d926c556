"""Tournaments: seeded matches between bots, seats rotated over duplicate deals,
in parallel, with honest confidence intervals.

Every deal (a match seed) is played ``players`` times with the entrants'
seats rotated, so each entrant meets the same cards from every seat; this
cuts the variance that the deal itself brings.  The statistics treat a deal
as the independent unit: per entrant label, each deal gives one value (the
mean over its matches in that deal).  The win rate's 95% interval is the
Wilson score interval over deals (it stays inside [0, 1] and keeps its
meaning for a handful of deals); the score's is Student's t interval of the
mean over deals (unbounded, ``inf``, with a single deal).  Results depend only on the seed, not on
how many workers play them or in what order.

>>> from fourcards.tournament import Entrant, run_tournament
>>> result = run_tournament([Entrant("greedy"), Entrant("random"), Entrant("random"),
...                          Entrant("random")], deals=5, seed=1, target_score=30)
>>> result.matches, sorted(result.stats)
(20, ['greedy', 'random'])
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field, replace
from typing import Any

from .engine import Bot, Game, check_count, check_options, check_runner, derive_seed
from ._words import plural
from .errors import FourCardsError, InvalidTypeError
from .games import DEFAULT_GAME, GAMES, GameEntry, get_game, load_object
from .rng import seed_in_range
from .stats import Interval, t_interval, wilson_interval

__all__ = ["Entrant", "Interval", "EntrantStats", "TournamentResult", "MatchRecord",
           "run_tournament", "play_deals", "make_bot", "parse_entrant", "wilson_interval", "t_interval",
           "add_arguments", "run_command", "score_name", "rule_values"]

@dataclass(frozen=True)
class Entrant:
    """A bot to seat: its kind (``random``, ``greedy``, ``search``; ``best``: the game's best), options
    for its constructor, and a label to report it under (default: the kind)."""

    kind: str
    options: tuple[tuple[str, Any], ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str):
            raise InvalidTypeError(f"an entrant's kind must be a str (a bot kind such as 'greedy'), "
                                   f"not {type(self.kind).__name__}")
        if not self.kind:
            raise FourCardsError("an entrant's kind is empty: give a bot kind such as 'greedy'")
        if not isinstance(self.label, str):
            raise InvalidTypeError(f"an entrant's label must be a str, not {type(self.label).__name__}")
        if not isinstance(self.options, tuple):
            raise InvalidTypeError(f"an entrant's options must be a tuple of (name, value) pairs "
                                   f"(Entrant.of({self.kind!r:.40}, name=value)), not {type(self.options).__name__}")
        names = set()
        for pair in self.options:
            if not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str):
                raise InvalidTypeError(f"an entrant's options must be (name, value) pairs with a str name, "
                                       f"not {pair!r:.60}")
            name, value = pair
            if not name:
                raise FourCardsError(f"an entrant's option has an empty name: {pair!r:.60}")
            if name in names:
                raise FourCardsError(f"an entrant's option {name} is given twice")
            names.add(name)
            try:
                hash(value)
            except TypeError:
                raise InvalidTypeError(f"an entrant's option {name} must be a hashable value (a number, text, "
                                       f"a tuple, ...), not {type(value).__name__}") from None

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
class EntrantStats:
    """Per label: match win rate (a shared win counts 1/k) and mean score (the
    game's own tally, :attr:`~fourcards.engine.State.scores`) per round or per
    game as the game counts it (:attr:`~fourcards.engine.Game.score_unit`),
    each with its 95% interval over deals."""

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
    game: str = DEFAULT_GAME

    def table(self) -> str:
        """The statistics as a markdown table."""
        lines = [f"| bot | matches | win rate [95% CI] | {score_name(self.game)} [95% CI] |",
                 "|---|---|---|---|"]
        for s in self.stats.values():
            lines.append(f"| {s.label} | {s.matches} | {s.win_rate} | {s.penalty_per_round.format(2)} |")
        return "\n".join(lines)


def score_name(game: str) -> str:
    """What a tournament's score column counts: the game's score label per its
    score unit (``penalty points per round``, ``families per game``)."""
    cls = get_game(game).game_class
    return f"{cls.score_label} per {cls.score_unit}"


def make_bot(entrant: Entrant, seed: int, game: str = DEFAULT_GAME, engine: Game[Any] | None = None) -> Bot:
    """A seeded bot of the entrant's kind for ``game`` (a name of :mod:`fourcards.games`),
    playing ``engine`` (the game under the match's rules; default: its default rules)."""
    seed = seed_in_range(seed)
    entry, engine = _bot_inputs(entrant, game, engine)
    return entry.new_bot(entrant.kind, engine, seed, **dict(entrant.options))


def _bot_inputs(entrant: Any, game: Any, engine: Any) -> tuple[GameEntry, Game[Any]]:
    """:func:`make_bot`'s ``entrant``, ``game`` and ``engine`` checked: the game's registry
    entry and the engine to play (a new one under the default rules for None)."""
    if not isinstance(entrant, Entrant):
        raise InvalidTypeError(f"entrant must be an Entrant (parse_entrant({entrant!r:.40})), "
                               f"not {type(entrant).__name__}")
    entry = get_game(game)
    if engine is None:
        return entry, _new_game(entry.name, {})
    if not isinstance(engine, Game):
        raise InvalidTypeError(f"engine must be a Game (get_game(...).new_game()) or None, not {type(engine).__name__}")
    if not isinstance(engine, entry.game_class):
        raise FourCardsError(f"engine is a {type(engine).__name__}, not a game of {entry.name} "
                             f"({entry.game_class.__name__})")
    return entry, engine


def _entrant_tuple(entrants: Any) -> tuple[Entrant, ...]:
    """``entrants`` checked as a sequence of :class:`Entrant`."""
    if isinstance(entrants, (str, bytes)):
        raise InvalidTypeError("entrants are a sequence of Entrant (parse_entrant('greedy'), ...), not one text")
    if isinstance(entrants, Mapping) or not isinstance(entrants, Iterable):
        raise InvalidTypeError(f"entrants must be a sequence of Entrant (parse_entrant('greedy'), ...), "
                               f"not {type(entrants).__name__}")
    checked = tuple(entrants)
    for entrant in checked:
        if not isinstance(entrant, Entrant):
            raise InvalidTypeError(
                f"an entrant is an Entrant (parse_entrant({entrant!r:.40})), not {type(entrant).__name__}")
    return checked


def _new_game(game: str, rules: dict[str, Any]) -> Any:
    return get_game(game).new_game(**rules)


def play_deals(entrants: Sequence[Entrant], deal_numbers: Sequence[int], seed: int,
               rules: dict[str, Any], game_name: str = DEFAULT_GAME) -> list[MatchRecord]:
    """Play the given deals, every rotation of the seats (a unit of work for a worker).

    A game whose registry entry names ``tournament_rows`` (a function of the
    entrants, the deal numbers, the seed and the rules giving the records'
    rows, or None when it cannot play those entrants) plays them that way:
    the same records, faster.

    ``entrants``: one :class:`Entrant` a seat; ``deal_numbers``: a sequence of ints
    0..2**64-1; ``seed``: an int 0..2**64-1; ``rules``: a dict of the game's rule options."""
    entry = get_game(game_name)
    checked = _entrant_tuple(entrants)
    seed = seed_in_range(seed)
    if isinstance(deal_numbers, (str, bytes, bytearray, Mapping)) or not isinstance(deal_numbers, Iterable):
        raise InvalidTypeError(f"deal_numbers must be a sequence of ints, not {type(deal_numbers).__name__}")
    deals = [seed_in_range(deal, f"deal_numbers[{index}]") for index, deal in enumerate(deal_numbers)]
    rules = check_options(rules, "rules")
    game = _new_game(entry.name, rules)
    n = game.num_players
    if len(checked) != n:
        raise FourCardsError(f"entrants: {n} seats need {n} entrants, got {len(checked)}")
    # "best" plays as the kind it names, under its own label
    entrants = [replace(e, kind=entry.kind_of(e.kind), label=e.name) for e in checked]
    if entry.tournament_rows is not None:
        fast = load_object(entry.tournament_rows)(entrants, deals, seed, rules)
        if fast is not None:
            return [MatchRecord(*row) for row in fast]
    per_round = game.score_unit == "round"
    records = []
    for deal in deals:
        match_seed = derive_seed(seed, deal)
        for rotation in range(n):
            seating = tuple((seat + rotation) % n for seat in range(n))
            bots = [entry.new_bot(entrants[e].kind, game, derive_seed(match_seed, 1000 + e),
                                  **dict(entrants[e].options)) for e in seating]
            state = game.new_match(match_seed)
            while not state.is_terminal:
                player = state.current_player
                state.apply(bots[player].choose(state.observation(player), state.legal_actions()), player)
            winners = state.winners
            share = tuple(1 / len(winners) if p in winners else 0.0 for p in range(n))
            rounds = int(state.round) if per_round else 1
            records.append(MatchRecord(deal, rotation, seating, share, state.scores, rounds))
    return records


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
        stats[label] = EntrantStats(label, counts[label], wilson_interval(sum(wins) / len(wins), len(wins)),
                                    t_interval(penalties))
    return stats


#: The most deals one tournament plays (every match's record is kept in memory).
MAX_DEALS = 1_000_000


def run_tournament(entrants: Sequence[Entrant], deals: int, seed: int = 0,
                   executor: Executor | None = None, chunk: int = 4, game: str = DEFAULT_GAME,
                   progress: Callable[[int, int], None] | None = None, **rules: Any) -> TournamentResult:
    """Play ``deals`` deals, each with every rotation of the seats.

    ``executor`` (any :class:`concurrent.futures.Executor`, e.g. a process
    pool) plays chunks of ``chunk`` deals in parallel; without one, the
    matches are played here.  ``game`` is a name of :mod:`fourcards.games`
    (default: :data:`~fourcards.games.DEFAULT_GAME`); ``rules`` are that game's
    rule options.  ``progress(done, total)`` is
    called with the matches played as chunks finish.
    """
    entrants = _entrant_tuple(entrants)
    seed = seed_in_range(seed)
    check_runner(executor, progress)
    deals = check_count(deals, "deals")
    chunk = check_count(chunk, "chunk")
    for name in {entrant.name for entrant in entrants}:
        if len({(e.kind, e.options) for e in entrants if e.name == name}) > 1:
            raise FourCardsError(f"two different bots are both named {name!r}: their rows would merge "
                                 "(give each a label)")
    game = get_game(game).name
    if not 1 <= deals <= MAX_DEALS:
        raise FourCardsError(f"deals must be 1..{MAX_DEALS:,}, got {deals!r}")
    if chunk < 1:
        raise FourCardsError(f"chunk must be at least 1, got {chunk!r}")
    rules.setdefault("players", len(entrants))
    engine = _new_game(game, rules)  # fail early on rules the game refuses (players=1.5 too)
    if len(entrants) != engine.num_players:
        raise FourCardsError(f"{engine.num_players} seats need {engine.num_players} entrants, got {len(entrants)}")
    for entrant in entrants:
        check_entrant(entrant, game, engine)  # fail early on an unknown kind or a bad option
    batches = [list(range(start, min(start + chunk, deals))) for start in range(0, deals, chunk)]
    total, done = deals * len(entrants), 0
    parts: list[list[MatchRecord]] = []
    if executor is None:
        for batch in batches:
            parts.append(play_deals(entrants, batch, seed, rules, game))
            done += len(parts[-1])
            if progress:
                progress(done, total)
    else:
        futures = [executor.submit(play_deals, entrants, batch, seed, rules, game) for batch in batches]
        by_future = {future: index for index, future in enumerate(futures)}
        results: list[list[MatchRecord]] = [[] for _ in futures]
        for future in as_completed(futures):
            results[by_future[future]] = future.result()
            done += len(results[by_future[future]])
            if progress:
                progress(done, total)
        parts = results
    records = tuple(r for part in parts for r in part)
    return TournamentResult(entrants, deals, len(records), records, summarize(entrants, records), game)


def _option_value(text: str) -> Any:
    """An option's value: a number, a yes/no (``on``/``off``, ``yes``/``no``, ``true``/``false``,
    as ``--rule`` takes them), ``none``, or else the text itself (a file name,
    ``learned:policy=my_policy.npz``)."""
    for kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise FourCardsError(f"{text!r} is not a finite number")
        return value
    word = text.lower()
    if word in _YES or word in _NO:  # (1 and 0 are numbers: read above)
        return word in _YES
    if word == "none":
        return None
    if not text or not text.isprintable():
        raise FourCardsError(f"{text!r} is not a value (a number, on/off, yes/no, true/false, none or printable text)")
    return text


def parse_entrant(text: str) -> Entrant:
    """``kind`` or ``kind:option=value;...`` (``search:time_per_move=0.02``)."""
    if not isinstance(text, str):
        raise InvalidTypeError(f"an entrant is text like 'search:time_per_move=0.02', not {type(text).__name__}")
    kind, _, rest = text.strip().partition(":")
    if not kind:
        raise FourCardsError(f"{text!r}: a bot needs a kind, e.g. greedy or search:time_per_move=0.02")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(";")):
        key, equals, value = item.partition("=")
        if not key.strip() or not equals:
            raise FourCardsError(f"{item!r} in {text!r}: an option is name=value, e.g. time_per_move=0.02")
        if key.strip() in options:
            raise FourCardsError(f"{key.strip()} is given twice in {text!r}")
        if key.strip() == "seed":
            raise FourCardsError(f"{text!r}: seed is not a bot's option; the tournament seeds every bot "
                                 "from its own seed (--seed)")
        try:
            options[key.strip()] = _option_value(value.strip())
        except FourCardsError as error:
            raise FourCardsError(f"{key.strip()}={value.strip()} in {text!r}: {error}") from None
    return Entrant(kind, tuple(sorted(options.items())))  # not Entrant.of: an option may be named label


def distinct_labels(entrants: list[Entrant]) -> list[Entrant]:
    """Entrants of one kind with other options are reported apart: each is labelled
    with its options (``learned:policy=mine.npz`` beside ``learned``)."""
    options_of: dict[str, set[tuple[tuple[str, Any], ...]]] = {}
    for entrant in entrants:
        options_of.setdefault(entrant.kind, set()).add(entrant.options)
    return [replace(entrant, label=entrant.label or (
        entrant.kind + ":" + ";".join(f"{key}={value}" for key, value in entrant.options)))
            if len(options_of[entrant.kind]) > 1 and entrant.options else entrant for entrant in entrants]


def check_entrant(entrant: Entrant, game: str, engine: Game[Any] | None = None) -> None:
    """Make one bot of ``entrant`` for ``game`` (``engine``: under the match's rules); any refusal
    becomes a :class:`FourCardsError` naming it."""
    _bot_inputs(entrant, game, engine)  # refused as they are, not as the bot's refusal
    try:
        make_bot(entrant, 0, game, engine)
    except InvalidTypeError as error:  # the bot's own refusal of a type: name the options too
        options = ", ".join(f"{k}={v}" for k, v in entrant.options)
        raise InvalidTypeError(f"the {entrant.kind} bot refuses {options or 'its options'}: {error}") from None
    except FourCardsError:
        raise
    except TypeError as error:
        options = ", ".join(f"{k}={v}" for k, v in entrant.options)
        if "unexpected keyword argument" not in str(error):
            raise FourCardsError(f"the {entrant.kind} bot refuses {options or 'its options'}: {error}") from None
        detail = str(error).split("got an ")[-1]
        raise FourCardsError(f"the {entrant.kind} bot does not take {options or 'those options'} ({detail})") from None
    except ValueError as error:
        raise FourCardsError(f"the {entrant.kind} bot refuses its options: {error}") from None
    except RuntimeError as error:
        raise FourCardsError(f"the {entrant.kind} bot cannot run here: {error}") from None


DESCRIPTION = ("Seeded matches between bots, every deal played once a rotation of the seats, in parallel, "
               "with 95% intervals (Wilson for win rates) over deals.")


def _has_rule(game: str, name: str) -> bool:
    """Whether ``game``'s rules dataclass has a field ``name``."""
    from dataclasses import fields

    return any(f.name == name for f in fields(get_game(game).game_class.rules_type))


#: The words a ``--rule NAME=VALUE`` takes for a yes/no rule.
_YES, _NO = ("on", "yes", "true", "1"), ("off", "no", "false", "0")


def rule_values(game: str, texts: Sequence[str]) -> dict[str, Any]:
    """Rules from ``NAME=VALUE`` texts (``--rule must_hold_family=on``), each value read as
    its rule's type (a yes/no rule: on/off, yes/no, true/false, 1/0); a
    :class:`FourCardsError` naming the text for a rule the game does not have, a value
    of the wrong type, ``players`` (a tournament seats one player a bot) or a rule given
    twice. The game checks the values' ranges when it is made.

    >>> rule_values(DEFAULT_GAME, ["players=3"])
    Traceback (most recent call last):
    fourcards.errors.FourCardsError: --rule players: a tournament seats one player a bot of --bots
    """
    import typing
    from dataclasses import fields

    rules_type = get_game(game).game_class.rules_type
    if isinstance(texts, (str, bytes)):
        raise InvalidTypeError(f"texts must be a sequence of NAME=VALUE texts (['{texts!s:.40}']), not one text")
    if isinstance(texts, Mapping) or not isinstance(texts, Iterable):
        raise InvalidTypeError(f"texts must be a sequence of NAME=VALUE texts, not {type(texts).__name__}")
    texts = list(texts)
    for text in texts:
        if not isinstance(text, str):
            raise InvalidTypeError(f"texts: a rule is NAME=VALUE text, not {type(text).__name__} {text!r:.40}")
    hints = typing.get_type_hints(rules_type)
    names = {f.name: hints.get(f.name) for f in fields(rules_type) if not f.name.startswith("_")}
    found: dict[str, Any] = {}
    for text in texts:
        name, equals, value = text.partition("=")
        name = name.strip().replace("-", "_")
        if not equals or not name:
            raise FourCardsError(f"--rule {text!r:.60}: give NAME=VALUE (e.g. --rule target_score=50)")
        kind = names.get(name)
        if name == "players":
            raise FourCardsError("--rule players: a tournament seats one player a bot of --bots")
        if name in names and kind not in (bool, int, float, str):
            raise FourCardsError(f"--rule {name}: --rule sets a yes/no, number or word rule, and {name} is none")
        if name not in names:
            settable = ", ".join(n for n, k in names.items() if n != "players" and k in (bool, int, float, str))
            raise FourCardsError(f"--rule {text!r:.60}: {get_game(game).title} has no rule {name!r:.40}"
                                 f"{'; its rules: ' + settable if settable else ''}")
        if name in found:
            raise FourCardsError(f"--rule {name} is given twice")
        value = value.strip()
        if kind is bool:
            if value.lower() not in _YES + _NO:
                raise FourCardsError(f"--rule {text!r:.60}: {name} is on or off, not {value!r:.20}")
            found[name] = value.lower() in _YES
        elif kind in (int, float):
            try:
                if not value.isascii():
                    raise ValueError(value)
                found[name] = int(value) if kind is int else float(value)
            except ValueError:
                raise FourCardsError(f"--rule {text!r:.60}: {name} is a {'whole' if kind is int else 'real'} "
                                     f"number, not {value!r:.20}") from None
        else:
            found[name] = value
    return found


def add_arguments(parser: Any) -> None:
    """The tournament's command-line arguments (``fourcards tournament`` and ``python -m fourcards.tournament``)."""
    from .terminal.args import SEED, int_in

    def game_name(text: str) -> str:
        import argparse

        try:
            return get_game(text).name
        except FourCardsError:
            raise argparse.ArgumentTypeError(f"unknown game {text!r}; choose from {', '.join(GAMES)}") from None

    kinds = "; ".join(f"{name}: {', '.join(entry.bot_kinds)}" for name, entry in GAMES.items())
    parser.add_argument("--bots", required=True,
                        help="one entrant a seat, comma-separated, a bot kind with options after a colon, "
                             "separated by semicolons (e.g. search:time_per_move=0.02,greedy,greedy,greedy). "
                             f"Kinds by game: {kinds}; best in every game: its best bot (required)")
    parser.add_argument("--game", type=game_name, default=DEFAULT_GAME, metavar="GAME",
                        help=f"the game: {', '.join(GAMES)}; fourcards tournament also takes it by position "
                             f"(default: {DEFAULT_GAME})")
    parser.add_argument("--deals", type=int_in(1, MAX_DEALS), default=100,
                        help=f"deals, each played once a rotation of the seats (default: 100; at most {MAX_DEALS:,})")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the deals (default: 0)")
    parser.add_argument("--workers", type=int_in(1, 1024), default=os.cpu_count() or 1,
                        help="processes playing in parallel (default: one a CPU)")
    with_target = [name for name in GAMES if _has_rule(name, "target_score")]
    parser.add_argument("--target-score", type=int_in(1, 100000), default=None,
                        help=f"the score that ends a match, for games with that rule: {', '.join(with_target)} "
                             "(default: the game's own)")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule of the game, repeatable (e.g. --rule must_hold_family=on --rule max_asks=500; "
                             "a yes/no rule takes on or off); the players are the bots of --bots "
                             "(default: the game's own rules)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")


def run_command(args: Any) -> int:
    """Run a tournament from parsed arguments; print the table.  Bad values raise
    :class:`~fourcards.terminal.CommandLineError`."""
    import time
    from concurrent.futures import ProcessPoolExecutor

    from .terminal.args import CommandLineError, ProgressBar

    if args.target_score is not None and not _has_rule(args.game, "target_score"):
        raise CommandLineError(f"--target-score is no rule of {get_game(args.game).title}")
    try:
        specs = args.bots.split(",")
        if any(not spec.strip() for spec in specs):
            raise CommandLineError(f"--bots {args.bots!r}: an empty bot between commas (one bot kind a seat)")
        entrants = distinct_labels([parse_entrant(t) for t in specs])
        for entrant in entrants:
            check_entrant(entrant, args.game)
        rules: dict[str, Any] = {"players": len(entrants), **rule_values(args.game, getattr(args, "rule", []))}
        if args.target_score is not None:
            if "target_score" in rules:
                raise CommandLineError("the target score is given twice (--target-score and --rule target_score)")
            rules["target_score"] = args.target_score
        try:
            _new_game(args.game, rules)
        except FourCardsError as error:
            low, high = get_game(args.game).game_class.player_range()
            if "players" in str(error) and not low <= len(entrants) <= high:  # the count of --bots, not a rule
                raise CommandLineError(f"--bots names {plural(len(entrants), 'bot')}, one a seat: "
                                       f"{get_game(args.game).title} is for {low} to {high} players") from None
            raise
    except (FourCardsError, TypeError, ValueError) as error:
        raise CommandLineError(str(error)) from None
    progress = None if args.no_progress else ProgressBar()
    start = time.perf_counter()
    workers = min(args.workers, args.deals)
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            result = run_tournament(entrants, deals=args.deals, seed=args.seed, executor=pool, chunk=1,
                                    game=args.game, progress=progress, **rules)
    else:
        result = run_tournament(entrants, deals=args.deals, seed=args.seed, chunk=1, game=args.game,
                                progress=progress, **rules)
    played = f"{plural(args.deals, 'deal')} x {plural(len(entrants), 'rotation')}"
    print(f"{get_game(args.game).title}: {plural(result.matches, 'match')} ({played}), "
          f"seed {args.seed}, {args.workers} worker{'s' if args.workers != 1 else ''}, "
          f"{time.perf_counter() - start:.0f} s")
    print(result.table())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m fourcards.tournament --bots search:time_per_move=0.02,greedy,greedy,greedy``"""
    from .terminal.args import CommandLineError, Parser

    parser = Parser(prog="python -m fourcards.tournament", description=DESCRIPTION)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run_command(args)
    except CommandLineError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
