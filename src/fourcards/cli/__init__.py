"""The ``fourcards`` command line (also ``python -m fourcards``).

    fourcards                        a seeded match between rule-based players (= fourcards demo)
    fourcards demo [--seed S] [--players N] [--delay SECONDS]
    fourcards hand [--seed S] [--seat K]
    fourcards play gang-of-four | four-color | zangle | four-pack | duelo
                   [--players N] [--seed S] [--opponents KIND] [--save FILE] [--resume FILE] [--pause]
    fourcards simulate --bots greedy,random,random,random --matches N [--seed S] [--workers W] [--json]
                       [--backend local|dask --scheduler ADDRESS]
    fourcards tournament [--game GAME] --bots search:time_per_move=0.02,greedy,greedy,greedy --deals N
    fourcards bench [--quick]
    fourcards serve [--host 127.0.0.1] [--port 8000] [--db PATH]

Each game adds its own ``play`` subcommand through :data:`PLAY_COMMANDS`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .. import __version__
from .args import Parser

__all__ = ["main", "PLAY_COMMANDS", "Parser", "build_parser"]

DESCRIPTION = """\
Play, check and score five card games.

  fourcards                        a seeded match between rule-based players (the same as: fourcards demo)
  fourcards hand --seed S          a seeded hand and its legal leads
  fourcards play GAME              play against bots: gang-of-four, four-color, zangle, four-pack, duelo
  fourcards simulate --bots greedy,random,random,random --matches N
  fourcards tournament --game GAME --bots greedy,random,random --deals N
  fourcards bench --quick

Each command explains its options: fourcards COMMAND --help."""

#: ``play`` subcommands by game name: a function adding its arguments and one running it.
PLAY_COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None],
                               Callable[[argparse.Namespace], int]]] = {}


def _register_games() -> None:
    from . import play_cards, play_gangoffour

    PLAY_COMMANDS.setdefault("gang-of-four", (play_gangoffour.add_arguments, play_gangoffour.run))
    PLAY_COMMANDS.setdefault("four-pack", (play_cards.add_four_pack_arguments, play_cards.run_four_pack))
    PLAY_COMMANDS.setdefault("duelo", (play_cards.add_duelo_arguments, play_cards.run_duelo))
    PLAY_COMMANDS.setdefault("four-color", (play_cards.add_four_color_arguments, play_cards.run_four_color))
    PLAY_COMMANDS.setdefault("zangle", (play_cards.add_zangle_arguments, play_cards.run_zangle))


def build_parser() -> argparse.ArgumentParser:
    from . import demo, serve, simulate

    _register_games()
    parser = Parser(prog="fourcards", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"fourcards {__version__}")
    demo.add_top_level_arguments(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo.add_commands(sub)
    play = sub.add_parser("play", help="play against bots in the terminal",
                          description="Play a game against bots in the terminal.")
    games = play.add_subparsers(dest="game", metavar="GAME", required=True)
    from ..games import GAMES

    for name, (add_arguments, _run) in PLAY_COMMANDS.items():
        title = GAMES[name].title if name in GAMES else name
        add_arguments(games.add_parser(name, help=f"play {title}", description=f"Play {title} against bots: "
                                       "type 'help' at the prompt for the commands and the rules in short."))
    simulate.add_commands(sub)
    serve.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from . import demo, simulate

    from .args import CommandLineError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "play":
            return PLAY_COMMANDS[args.game][1](args)
        if args.command == "serve":
            from . import serve

            return serve.run(args)
        if args.command in ("simulate", "tournament", "bench"):
            return simulate.run(args)
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
