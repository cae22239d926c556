"""``fourcards play GAME``: a person against bots, for every game of the registry.

The options come from the game itself: one a field of its rules dataclass
(``--name-with-dashes``, typed from the annotation, bounds and choices from
:func:`fourcards.engine.option`), one flag a variant of its registry entry
(``--solitaire``), ``--deck FILE`` when the game takes a deck of its own,
whatever its terminal override adds, and the session's options.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from dataclasses import dataclass
from typing import Any, TextIO

from ..errors import FourCardsError
from ..games import GameEntry, get_game
from ..terminal import CommandLineError, Session, Table, colour_enabled, file_name, int_in, plural, quote
from .session import (
    add_session_arguments, check_files, make_adviser, make_bots, open_match, resume_conflicts, table_class,
)

__all__ = ["RuleOption", "rule_options", "add_arguments", "rules_from", "build_game", "run", "new_table",
           "colour_enabled"]


@dataclass(frozen=True)
class RuleOption:
    """One rules field as a command-line option."""

    field: str
    flag: str
    kind: type
    default: Any
    low: int | None = None
    high: int | None = None
    choices: tuple[Any, ...] | None = None


_SCALARS = (bool, int, float, str)


def rule_options(entry: GameEntry) -> list[RuleOption]:
    """The fields of the game's rules dataclass a command line can set: those
    of type bool, int, float or str (the ``players`` bounds from
    :meth:`~fourcards.engine.Game.player_range`)."""
    cls = entry.game_class
    rules_type = cls.rules_type
    hints = typing.get_type_hints(rules_type)
    found = []
    for f in dataclasses.fields(rules_type):
        kind = hints.get(f.name)
        if kind not in _SCALARS or f.name.startswith("_"):
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        meta = f.metadata
        low, high, choices = meta.get("low"), meta.get("high"), meta.get("choices")
        if f.name == "players":
            low, high = cls.player_range()
            choices = None
        if kind is int and choices and list(choices) == list(range(min(choices), max(choices) + 1)):
            low, high, choices = min(choices), max(choices), None  # contiguous: a range reads better
        found.append(RuleOption(f.name, "--" + f.name.replace("_", "-"), typing.cast(type, kind), default,
                                low, high, tuple(choices) if choices else None))
    return found


def _words(name: str) -> str:
    return name.replace("_", " ")


def _help(option: RuleOption, table: type[Table]) -> str:
    if option.field in table.option_help:
        return table.option_help[option.field]
    if option.kind is bool:
        return f"rule: {_words(option.field)} (default: {'on' if option.default else 'off'})"
    if option.choices:
        listed = ", ".join(str(c) for c in option.choices)
        return f"rule: {_words(option.field)}, one of {listed} (default: {option.default})"
    bounds = (f", {option.low} to {option.high}" if option.low is not None and option.high is not None
              else f", at least {option.low}" if option.low is not None
              else f", at most {option.high}" if option.high is not None else "")
    return f"rule: {_words(option.field)}{bounds} (default: {option.default})"


def _number(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quote(text)} is not a number") from None

    parse.__name__ = "number"
    return parse


def _variant_flags(entry: GameEntry, taken: set[str]) -> dict[str, str]:
    """Variant name -> its flag (skipping a variant whose flag a rule already has)."""
    return {name: "--" + name for name in entry.variants if "--" + name not in taken}


def add_arguments(parser: argparse.ArgumentParser, entry: GameEntry) -> None:
    """Every option of ``fourcards play GAME`` (see the module's docstring)."""
    table = table_class(entry.name)
    options = rule_options(entry)
    for option in options:
        text = _help(option, table)
        if option.kind is bool:
            action: Any = argparse.BooleanOptionalAction if option.default else "store_true"
            parser.add_argument(option.flag, action=action, default=None, help=text)
        elif option.kind is int and not option.choices:
            parser.add_argument(option.flag, type=int_in(option.low, option.high), default=None,
                                metavar="N", help=text)
        elif option.kind in (int, float):
            parser.add_argument(option.flag, type=_number(option.kind), choices=option.choices, default=None,
                                metavar="N" if not option.choices else None, help=text)
        else:
            parser.add_argument(option.flag, choices=option.choices, default=None, help=text)
    for name, flag in _variant_flags(entry, {o.flag for o in options}).items():
        preset = ", ".join(f"{_words(k)} {v}" for k, v in entry.variants[name].items())
        parser.add_argument(flag, action="store_true", default=None,
                            help=table.option_help.get(name, f"the {name} variant: {preset} (default: off)"))
    if entry.game_class.deck_upload:
        parser.add_argument("--deck", metavar="FILE", type=file_name, help=table.option_help.get(
            "deck", "a deck JSON file (default: the deck that ships with fourcards)"))
    table.add_arguments(parser)
    add_session_arguments(parser, entry.name)
    parser.set_defaults(play_game=entry.name)


def rules_from(args: argparse.Namespace, entry: GameEntry) -> dict[str, Any]:
    """The rules of a new match from the options: the variants' presets, then
    the rule options given (a variant and a rule it sets may not both be given)."""
    options = rule_options(entry)
    rules: dict[str, Any] = {}
    for name, flag in _variant_flags(entry, {o.flag for o in options}).items():
        if getattr(args, name.replace("-", "_"), None):
            rules.update(entry.variants[name])
            for field in entry.variants[name]:
                if getattr(args, field, None) is not None:
                    raise CommandLineError(f"{flag} sets {'--' + field.replace('_', '-')}: drop one of them")
    for option in options:
        value = getattr(args, option.field, None)
        if value is not None:
            rules[option.field] = value
    return table_class(entry.name).check_rules(args, rules)


def _tuples(value: Any) -> Any:
    """JSON lists back to the tuples a rules dataclass holds."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def build_game(entry: GameEntry, rules: dict[str, Any], deck: Any = None) -> Any:
    """The game under ``rules`` (a new match's, or a save's ``rules``: the keys
    that are no field of the rules type, such as a deck's digest, are left out)."""
    names = {f.name for f in dataclasses.fields(entry.game_class.rules_type)}
    kept = {key: _tuples(value) for key, value in rules.items() if key in names}
    if deck is not None:
        return entry.game_class(deck=deck, **kept)
    return entry.game_class(**kept)


def _load_deck(path: str | None) -> Any:
    from ..decks import load_deck

    try:
        return load_deck(path)
    except FourCardsError as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        raise CommandLineError(" ".join(lines[:1]) + (" " + "; ".join(lines[1:]) if lines[1:] else "")) from None


def new_table(entry: GameEntry, state: Any, colour: bool = False, you: int = 0) -> Table:
    """The game's table (its override, or the generic one) for ``state``, the person at ``you``."""
    table = table_class(entry.name)(state, colour)
    table.you, table.game, table.title = you, entry.name, entry.title
    return table


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """``fourcards play GAME``: open the match, seat the bots, run the session."""
    entry = get_game(args.play_game)
    options = rule_options(entry)
    flags = [o.flag[2:] for o in options] + [f[2:] for f in _variant_flags(entry, {o.flag for o in options}).values()]
    check_files(args)
    resume_conflicts(args, flags)
    rules = rules_from(args, entry) if not args.resume else {}
    deck = _load_deck(args.deck) if getattr(args, "deck", None) is not None else None
    state = open_match(args, entry.name, lambda saved: build_game(entry, saved, deck), rules)
    out = stdout if stdout is not None else sys.stdout
    table = new_table(entry, state, colour_enabled(args.colour, out))
    bots, _ = make_bots(entry.name, state, args.opponents, state.seed)
    adviser, adviser_name = make_adviser(entry.name, state, state.seed)
    session = Session(table, bots, adviser, stdin=stdin, stdout=stdout, save_path=args.save, pause=args.pause,
                      adviser_name=adviser_name)
    if args.resume:
        session.say(f"Resumed {args.resume}: {table.title}, seed {state.seed}, {plural(len(state.actions), 'move')} "
                    "so far.")
    return session.run()
