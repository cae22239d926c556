"""``fourcards demo`` (the default command): a seeded match between bots, for any game.

Every seat is the game's demo bot (its terminal table's ``default_bot``, else
its best bot that can run here), or ``--bots KIND``; the match is drawn by
the game's table (its override, or the generic one) with nobody sitting at it.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from .. import COMPILED, __version__
from ..engine import Bot, derive_seed
from ..errors import FourCardsError
from ..games import BEST, DEFAULT_GAME, GAMES, get_game
from ..terminal import SEED, CommandLineError, colour_enabled, int_in, quote
from .play import new_table
from .session import table_class

__all__ = ["demo_lines", "next_steps", "add_top_level_arguments", "add_commands", "run"]


def demo_lines(seed: int, players: int | None = None, colour: bool = False, game: str = DEFAULT_GAME,
               bots: str | None = None) -> list[str]:
    """The text of a seeded match between bots of kind ``bots`` (default: the
    game's demo bot), one line an event; ``players`` seats (default: the rules')."""
    entry = get_game(game)
    table_type = table_class(entry.name)
    kind = bots or table_type.default_bot or entry.hint_bot
    kind = entry.hint_bot if kind == BEST else kind
    rules = {} if players is None else {"players": players}
    state = entry.new_game(**rules).new_match(seed)
    table = new_table(entry, state, colour, you=-1)
    n = state.game.num_players
    options = table_type.bot_options.get(kind, {})
    seated: list[Bot] = [entry.new_bot(kind, state.game, derive_seed(seed, seat), **options) for seat in range(n)]
    lines = [f"fourcards {__version__}: {table.demo_title(kind)} ({'compiled core' if COMPILED else 'pure Python'})"]
    seen = 0
    for _ in range(state.game.max_game_length + 1):
        history = state.history
        for record in history[seen:]:
            lines.extend(table.show(record))
        seen = len(history)
        if state.is_terminal:
            return lines + table.ending()
        player = state.current_player
        state.apply(seated[player].choose(state.observation(player), state.legal_actions()), player)
    raise RuntimeError(f"the demo match did not end within {state.game.max_game_length} actions")


def next_steps(game: str) -> list[str]:
    """What to try after a demo of ``game``: play it, watch another game, every command."""
    others = [name for name in GAMES if name != game]
    return ["", "Next:",
            f"  play it yourself:   fourcards play {game}      (type 'help' at the prompt)",
            f"  watch another game: fourcards demo --game {others[0] if others else game}"
            + (f"   (or {', '.join(others[1:])})" if len(others) > 1 else ""),
            "  every command:      fourcards --help"]


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


def _game(text: str) -> str:
    try:
        return get_game(text).name
    except FourCardsError:
        raise argparse.ArgumentTypeError(f"unknown game {quote(text)}; choose from {', '.join(GAMES)}") from None


def _bot_kind(text: str) -> str:
    """An argparse type: a bot kind's name (the game checks it is one of its kinds): not empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"needs a bot kind (random, greedy, best, ...), not {quote(text)}")
    return text


def _demo_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", type=_game, default=DEFAULT_GAME, metavar="GAME",
                        help=f"the game: {', '.join(GAMES)}; also by position, as in: fourcards demo "
                             f"{next(iter(GAMES))} (default: {DEFAULT_GAME})")
    parser.add_argument("--players", type=int_in(1), default=None,
                        help="players, within the game's range (default: the game's own)")
    parser.add_argument("--bots", metavar="KIND", type=_bot_kind, default=None,
                        help="the bot kind at every seat (default: the game's demo bot)")
    parser.add_argument("--delay", type=_delay, default=None,
                        help="seconds between lines (default: 0.01 in a terminal, else 0)")


class _BeforeTheCommand:
    """Adds a top-level option under ``before_<dest>``, given only when typed: argparse lets
    a command's own defaults overwrite what was typed before it (``fourcards --seed 5 demo``
    played seed 2026), so :func:`fourcards.cli.main` takes these without a command and
    refuses them before one."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser

    def add_argument(self, *flags: str, **options: Any) -> argparse.Action:
        dest = options.pop("dest", None) or flags[0].lstrip("-").replace("-", "_")
        self.parser.set_defaults(**{dest: options.get("default")})
        options["default"] = argparse.SUPPRESS
        if options.get("choices") is None:
            options.setdefault("metavar", dest.upper())
        return self.parser.add_argument(*flags, dest=BEFORE + dest, **options)


#: The prefix of a top-level option's name in the parsed arguments (:class:`_BeforeTheCommand`).
BEFORE = "before_"


def add_top_level_arguments(parser: argparse.ArgumentParser) -> None:
    """``fourcards`` with no command runs the demo, so it takes the demo's options."""
    before: Any = _BeforeTheCommand(parser)
    _common(before)
    _demo_options(before)


def top_level_options(args: argparse.Namespace) -> dict[str, Any]:
    """The top-level options typed (``fourcards --seed 5``), by name, taken out of ``args``."""
    typed = {name[len(BEFORE):]: value for name, value in vars(args).items() if name.startswith(BEFORE)}
    for name in typed:
        delattr(args, BEFORE + name)
    return typed


def add_commands(sub: Any) -> None:
    demo = sub.add_parser("demo", help="a seeded match between bots (the default)",
                          description="A seeded match between bots, any game.")
    _common(demo)
    _demo_options(demo)


def _checked(args: argparse.Namespace) -> tuple[str, int | None, str]:
    entry = get_game(args.game)
    low, high = entry.game_class.player_range()
    if args.players is not None and not low <= args.players <= high:
        raise CommandLineError(f"argument --players: {entry.title} is for {low} to {high} players, "
                               f"not {args.players}")
    kind = args.bots or table_class(entry.name).default_bot or entry.hint_bot
    if kind == BEST:  # the game's best bot that can run here, as a tournament's entrant may say
        kind = entry.hint_bot
    if kind not in entry.bot_kinds:
        more = (" (demo seats one kind at every seat, without options: fourcards tournament takes a bot a "
                "seat with options)" if any(c in kind for c in ",:;=") else "")
        raise CommandLineError(f"argument --bots: {entry.title} has no {quote(kind, 20)} bot; choose from "
                               f"{', '.join(entry.bot_kinds)} or {BEST}{more}")
    if kind not in entry.available_bots:
        raise CommandLineError(f"argument --bots: the {kind} bot needs the compiled kernels")
    return entry.name, args.players, kind


def run(args: argparse.Namespace) -> int:
    game, players, kind = _checked(args)
    colour = colour_enabled(args.colour)
    delay = args.delay if args.delay is not None else (0.01 if sys.stdout.isatty() else 0.0)
    try:
        lines = demo_lines(args.seed, players, colour, game, kind)
    except (FourCardsError, TypeError) as error:
        raise CommandLineError(str(error)) from None
    for line in lines:
        print(line, flush=delay > 0)
        if delay > 0:
            time.sleep(delay)
    print("\n".join(next_steps(game)))
    return 0
