"""The ``fourcards`` command line (also ``python -m fourcards``).

    fourcards                        a seeded match between bots (= fourcards demo)
    fourcards demo [GAME] [--game GAME] [--seed S] [--players N] [--bots KIND] [--delay SECONDS]
    fourcards play GAME [the game's rule options] [--seed S] [--opponents KIND] [--save FILE] [--resume FILE]
                        [--pause]
    fourcards tournament [GAME] [--game GAME] --bots search:time_per_move=0.02,greedy,greedy,greedy --deals N
    fourcards bench [--quick]
    fourcards serve [--host 127.0.0.1] [--port 8000] [--db PATH]

Every game of :mod:`fourcards.games` gets its ``play`` subcommand, its demo
and its tournaments from its registry entry and its engine; a game's terminal
table may add commands of its own (:meth:`fourcards.terminal.Table.extra_commands`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .. import __version__
from .args import Parser, quote

__all__ = ["main", "Parser", "build_parser", "game_commands"]

#: Commands the games' tables add (by name: a function adding it, one running it).
Command = tuple[Callable[[argparse._SubParsersAction], None], Callable[[argparse.Namespace], int]]  # type: ignore[type-arg]


def game_commands() -> dict[str, Command]:
    """The commands every game's terminal table adds, by name (the first game to claim a name keeps it)."""
    from ..games import GAMES
    from .session import table_class

    found: dict[str, Command] = {}
    for name in GAMES:
        for command, pair in table_class(name).extra_commands().items():
            found.setdefault(command, pair)
    return found


def _description() -> str:
    from ..games import DEFAULT_GAME, GAMES

    names = ", ".join(GAMES)
    return f"""\
Play, check and score card games: {', '.join(entry.title for entry in GAMES.values())}.

  fourcards                        a seeded match between bots (the same as: fourcards demo --game {DEFAULT_GAME})
  fourcards demo --game GAME       a seeded match between bots of any game
  fourcards play GAME              play against bots: {names}
  fourcards tournament --game GAME --bots greedy,random,random --deals N
  fourcards bench --quick

Each command explains its options: fourcards COMMAND --help."""


def build_parser() -> argparse.ArgumentParser:
    from ..games import GAMES
    from . import demo, play, serve, simulate

    parser = Parser(prog="fourcards", description=_description(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.hint_for_choice = _game_not_command
    parser.add_argument("--version", action="version", version=f"fourcards {__version__}")
    demo.add_top_level_arguments(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo.add_commands(sub)
    for add, _run in game_commands().values():
        add(sub)
    games = sub.add_parser("play", help="play against bots in the terminal",
                           description="Play a game against bots in the terminal: fourcards play GAME "
                                       "(or: fourcards play --game GAME).")
    if isinstance(games, Parser):  # a word that is no game (often an option's value before the game)
        games.hint_for_choice = lambda word: (
            f"{quote(word)} is not a game (choose from {', '.join(GAMES)}); a game's options come after "
            f"its name: fourcards play GAME --opponents ...")
    choices = games.add_subparsers(dest="game", metavar="GAME", required=True)
    for name, entry in GAMES.items():
        aliases = [alias for alias in entry.aliases if alias not in GAMES]
        play.add_arguments(choices.add_parser(
            name, aliases=aliases, help=f"play {entry.title}",
            description=f"Play {entry.title} against bots: type 'help' at the prompt for the commands and the "
                        "rules in short."), entry)
    simulate.add_commands(sub)
    serve.add_commands(sub)
    return parser


def game_argument(argv: Sequence[str]) -> list[str]:
    """Every command takes its game both ways: ``play`` by position or ``--game``
    (``fourcards play --game GAME``), ``demo`` and ``tournament`` by ``--game`` or
    position (``fourcards demo GAME``); the arguments in the form the parser reads.

    >>> game_argument(["play", "--game", "GAME", "--seed", "3"])
    ['play', 'GAME', '--seed', '3']
    >>> from fourcards.games import DEFAULT_GAME
    >>> game_argument(["demo", DEFAULT_GAME]) == ["demo", "--game", DEFAULT_GAME]
    True
    """
    args = list(argv)
    if not args:
        return args
    if args[0].startswith("-"):  # top-level options first (refused after parsing, with advice)
        at = next((i for i, word in enumerate(args) if word in ("play", "demo", "tournament")), None)
        if at is not None and at > 0:
            return args[:at] + game_argument(args[at:])
        return args
    if args[0] == "play":
        for i, word in enumerate(args[1:], 1):
            if word == "--game" and i + 1 == len(args):
                from ..games import GAMES
                from .args import CommandLineError

                raise CommandLineError(f"play --game needs a game's name: {', '.join(GAMES)}")
            if word == "--game" and i + 1 < len(args):
                game, rest = args[i + 1], [*args[1:i], *args[i + 2:]]
            elif word.startswith("--game="):
                game, rest = word.partition("=")[2], [*args[1:i], *args[i + 1:]]
            else:
                continue
            if rest and not rest[0].startswith("-"):  # fourcards play GAME --game OTHER
                if rest[0] == game:  # the same game twice: as demo and tournament take it
                    rest = rest[1:]
                else:
                    from .args import CommandLineError

                    raise CommandLineError(f"the game is given twice ({rest[0]}, and --game {game}): give it once")
            return ["play", game, *rest]
        return args
    if args[0] in ("demo", "tournament") and len(args) > 1 and not args[1].startswith("-"):
        # their only word: a game, known or not (--game names an unknown one with the choices)
        given = [args[i + 1] for i, word in enumerate(args[2:-1], 2) if word == "--game"]
        given += [word.partition("=")[2] for word in args[2:] if word.startswith("--game=")]
        if any(word != args[1] for word in given):
            from .args import CommandLineError

            raise CommandLineError(f"the game is given twice ({args[1]}, and --game {given[0]}): give it once")
        return [args[0], "--game", args[1], *args[2:]]
    return args


def _game_after_options(parser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """``demo`` and ``tournament`` take their game by position after their options too
    (``fourcards tournament --bots ... GAME``): the one word the parser leaves over,
    where no ``--game`` is given, is the game."""
    if not words or words[0] not in ("demo", "tournament"):
        return words
    given = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--game"]
    given += [word.partition("=")[2] for word in words if word.startswith("--game=")]
    _, extra = parser.parse_known_args(words)
    if not extra or any(word.startswith("-") for word in extra):
        return words  # argparse says what it could not read
    from .args import CommandLineError

    if given and extra == given[:1]:  # the same game both ways, as before the options
        at = len(words) - 1 - words[::-1].index(extra[0])
        return [*words[:at], *words[at + 1:]]
    if given:
        # (a first word rewritten to --game above, or --game itself: name both as given)
        raise CommandLineError(f"the game is given twice ({given[0]} and {' '.join(extra)}): give it once")
    if len(extra) > 1:
        raise CommandLineError(f"{' '.join(extra)}: {words[0]} takes one game (by position or --game)")
    at = len(words) - 1 - words[::-1].index(extra[0])
    return [*words[:at], *words[at + 1:], "--game", extra[0]]


def _command_parser(parser: argparse.ArgumentParser, command: str | None,
                    game: str | None) -> argparse.ArgumentParser | None:
    """The parser of ``fourcards COMMAND [GAME]`` (``play``'s of that game), or None."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            sub: argparse.ArgumentParser = action.choices[command]
            if command == "play" and game is not None:
                for inner in sub._actions:
                    if isinstance(inner, argparse._SubParsersAction) and game in inner.choices:
                        sub = inner.choices[game]
            return sub
    return None


def _takes(parser: argparse.ArgumentParser, command: str, game: str | None, flag: str) -> bool:
    """Whether ``fourcards COMMAND [GAME]`` has the option ``flag``."""
    sub = _command_parser(parser, command, game)
    return sub is None or flag in sub._option_string_actions


def _game_not_command(word: str) -> str | None:
    """What to say when a game's name stands where the command goes (``fourcards --seed 3 GAME``)."""
    from ..errors import FourCardsError
    from ..games import get_game

    try:
        name = get_game(word).name
    except FourCardsError:
        return None
    return (f"{quote(word)} is a game, not a command: a match between bots is fourcards demo {name} "
            f"(or fourcards --game {name}); to play it, fourcards play {name}")


def main(argv: Sequence[str] | None = None) -> int:
    from . import demo, play, simulate
    from .args import CommandLineError

    parser = build_parser()
    try:
        words = game_argument(sys.argv[1:] if argv is None else argv)
    except CommandLineError as error:
        parser.error(str(error))
    try:
        words = _game_after_options(parser, words)
    except CommandLineError as error:
        parser.error(str(error))
    args, unknown = parser.parse_known_args(words)
    if unknown:  # said by the command's parser (argparse says "fourcards: error" for all)
        sub = _command_parser(parser, args.command, getattr(args, "game", None)) or parser
        sub.error(f"unrecognized arguments: {' '.join(unknown)}")
    typed = demo.top_level_options(args)
    if typed and args.command is not None:
        flag = "--" + next(iter(typed)).replace("_", "-")
        if _takes(parser, args.command, getattr(args, "game", None), flag):
            parser.error(f"{flag} is given before the command {args.command!r}, which has options of its own: "
                         f"put it after (fourcards {args.command} ... {flag} ...)")
        more = (" (its players are the bots of --bots; a rule is --rule NAME=VALUE)"
                if args.command == "tournament" else "")
        parser.error(f"{flag} is given before the command {args.command!r}, which has no such option{more}")
    vars(args).update(typed)
    try:
        if args.command == "play":
            return play.run(args)
        if args.command == "serve":
            from . import serve

            return serve.run(args)
        if args.command in ("tournament", "bench"):
            return simulate.run(args)
        extra = game_commands()
        if args.command in extra:
            return extra[args.command][1](args)
        return demo.run(args)
    except CommandLineError as error:
        prog = " ".join(["fourcards", *(w for w in (args.command, getattr(args, "game", None)) if w)])
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
