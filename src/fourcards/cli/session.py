"""What every ``fourcards play`` game shares on the command line, from the registry:
the session's options, a new or resumed match, the game's table, the bots.

The tables and the session themselves are the terminal toolkit the games build
on (:mod:`fourcards.terminal`); their names are re-exported here for callers of
this module.
"""

from __future__ import annotations

import argparse
import json
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from .._files import read_at_most
from ..engine import Bot, derive_seed
from ..errors import FourCardsError
from ..games import BEST, get_game
from ..terminal import (
    MAX_LINE, SEED, CommandLineError, Confirm, DeckTable, Session, Table, draw_view, file_name, in_player_words, int_in,
    plural,
    quote,
)
from ..terminal.args import output_problem, overwrite_problem

__all__ = ["Table", "DeckTable", "Session", "Confirm", "CommandLineError", "quote", "plural", "int_in",
           "add_session_arguments", "table_class", "open_match", "resume_conflicts", "in_player_words", "make_bots",
           "make_adviser", "draw_view", "MAX_LINE"]


def add_session_arguments(parser: argparse.ArgumentParser, game: str, default_opponents: str | None = None) -> None:
    """``--seed``, ``--opponents``, ``--resume``, ``--save``, ``--colour`` and ``--pause``."""
    entry = get_game(game)
    default = default_opponents or table_class(game).default_bot or entry.hint_bot
    parser.add_argument("--seed", type=SEED, default=None, help="the deal's seed (default: a random one)")
    plain = [kind for kind in entry.bot_kinds if kind not in entry.compiled_bots]
    fallback = entry.best_bot if entry.best_bot not in entry.compiled_bots or not plain else plain[-1]
    best = entry.best_bot if fallback == entry.best_bot else f"{entry.best_bot}, or {fallback} without the compiled core"
    parser.add_argument("--opponents", choices=(*entry.bot_kinds, BEST), default=default,
                        help=f"the bots you play against: {', '.join(entry.bot_kinds)}, or {BEST} "
                             f"({best}) (default: {default})")
    parser.add_argument("--resume", metavar="FILE", type=file_name, help="continue a match saved with --save or 'save FILE' (default: a new match)")
    parser.add_argument("--save", metavar="FILE", type=file_name,
                        help="save the match to FILE when you quit, press Ctrl-D or Ctrl-C (default: no save)")
    parser.add_argument("--colour", "--color", choices=("auto", "always", "never"), default="auto",
                        help="colours: auto (a terminal and NO_COLOR unset), always or never (default: auto)")
    parser.add_argument("--pause", action="store_true",
                        help="wait for Enter after each bot's move (default: the bots move at once)")


def check_files(args: argparse.Namespace) -> None:
    """``--save`` names a file that can be written: found before the match, not when the person
    quits and the match is lost (a blank name is refused by its type, :func:`file_name`)."""
    problem = None if args.save is None else output_problem(Path(args.save)) or overwrite_problem(Path(args.save))
    if problem is not None:
        raise CommandLineError(f"--save {args.save}: {problem}")


def resume_conflicts(args: argparse.Namespace, rule_flags: Sequence[str]) -> None:
    """``--resume`` takes the rules and the seed from the file: refuse flags it would ignore."""
    if args.resume is None:
        return
    values = {flag: getattr(args, flag.replace("-", "_"), None) for flag in ("seed", *rule_flags)}
    given = [("--no-" if value is False else "--") + flag for flag, value in values.items() if value is not None]
    if given:  # every rule flag's default is None: False is a typed --no-FLAG
        flags = ", ".join(given)
        raise CommandLineError(f"--resume takes the rules and seed from the saved match; drop {flags}")


#: The largest save ``--resume`` reads (a match of a million actions is a few megabytes).
MAX_SAVE_FILE_BYTES: Final = 64_000_000


def open_match(args: argparse.Namespace, game: str, build: Callable[[dict[str, Any]], Any],
               rules: dict[str, Any]) -> Any:
    """A new match (``rules``, ``--seed``) or the one saved in ``--resume FILE``; ``build(rules)``
    makes the game.  A file that is unreadable, broken or of another game is a
    :class:`CommandLineError`."""
    if not args.resume:
        seed = args.seed if args.seed is not None else secrets.randbits(32)
        try:
            return build(rules).new_match(seed)
        except (FourCardsError, TypeError) as error:
            raise CommandLineError(str(error)) from None
    path = args.resume
    try:
        raw = read_at_most(path, MAX_SAVE_FILE_BYTES)
        text = None if raw is None else raw.decode("utf-8")
    except (OSError, ValueError) as error:  # UnicodeDecodeError is a ValueError
        raise CommandLineError(f"cannot read {quote(str(path))}: {getattr(error, 'strerror', None) or error}") from None
    if text is None:
        raise CommandLineError(f"{quote(str(path))} holds more than {MAX_SAVE_FILE_BYTES:,} bytes: it is no saved "
                               "match")
    try:
        data = json.loads(text)
    except RecursionError:
        raise CommandLineError(f"{path} is not a saved match (JSON nested too deeply)") from None
    except ValueError:
        raise CommandLineError(f"{path} is not a saved match (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != "fourcards-match" or not isinstance(data.get("rules"), dict):
        raise CommandLineError(f"{path} is not a saved fourcards match")
    try:
        saved = get_game(str(data.get("game")))
    except FourCardsError:
        raise CommandLineError(f"{path} is a match of an unknown game {quote(str(data.get('game')))}") from None
    if saved.name != game:
        raise CommandLineError(f"{path} is a saved {saved.title} match, not {get_game(game).title}; "
                               f"continue it with: fourcards play {saved.name} --resume {path}")
    try:
        return build(dict(data["rules"])).from_json(text)
    except (FourCardsError, TypeError, ValueError, KeyError, RecursionError) as error:
        raise CommandLineError(f"{path} does not load as a saved {get_game(game).title} match: {error}") from None


def table_class(game: str) -> type[Table]:
    """The table that draws ``game`` in the terminal: its registry entry's
    ``terminal`` override, or the generic :class:`Table`."""
    from ..games import load_object

    entry = get_game(game)
    if entry.terminal is None:
        return Table
    cls = load_object(entry.terminal)
    if not (isinstance(cls, type) and issubclass(cls, Table)):
        raise FourCardsError(f"game {entry.name!r}: its terminal {entry.terminal!r} is not a "
                             "fourcards.terminal.Table subclass")
    return cls


def make_bots(game: str, state: Any, kind: str, seed: int) -> tuple[dict[int, Bot], Bot]:
    """The opponents (every seat but 0) and the adviser for ``hint`` (:func:`make_adviser`);
    the table's :attr:`Table.bot_options` go to the opponents."""
    entry = get_game(game)
    try:
        kind = entry.kind_of(kind)
    except FourCardsError as error:
        raise CommandLineError(f"--opponents {kind}: {error}") from None
    options = dict(table_class(game).bot_options.get(kind, {}))
    try:
        bots = {p: entry.new_bot(kind, state.game, derive_seed(seed, p), **options)
                for p in range(1, state.game.num_players)}
    except (RuntimeError, FourCardsError) as error:
        raise CommandLineError(f"--opponents {kind}: {error}") from None
    return bots, make_adviser(game, state, seed)[0]


def make_adviser(game: str, state: Any, seed: int) -> tuple[Bot, str]:
    """The bot behind ``hint`` and its kind: the game's best bot that can run here
    (:attr:`~fourcards.games.GameEntry.hint_bot`), with the table's :attr:`Table.hint_options`."""
    entry = get_game(game)
    kind = entry.hint_bot
    options = dict(table_class(game).hint_options.get(kind, {}))
    try:
        return entry.new_bot(kind, state.game, derive_seed(seed, 99), **options), kind
    except (RuntimeError, FourCardsError):
        fallback = next((k for k in entry.available_bots if k not in ("random", kind)), "random")
        return entry.new_bot(fallback, state.game, derive_seed(seed, 99)), fallback
