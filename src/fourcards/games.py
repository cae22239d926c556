"""Every game by its one name: the registry the command line, tournaments,
the server and the RL adapters share.

>>> from fourcards.games import GAMES, get_game
>>> sorted(GAMES)
['duelo', 'four-color', 'four-pack', 'gang-of-four', 'zangle']
>>> entry = get_game("gang-of-four")
>>> game = entry.new_game(players=3)
>>> game.num_players, entry.bot_kinds
(3, ('random', 'greedy', 'search'))
>>> bot = entry.new_bot("greedy", game, seed=1)
>>> get_game("four-pack").kind_of("best")
'memory'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ._backend import COMPILED
from .engine import Bot, Game
from .errors import FourCardsError

__all__ = ["GameEntry", "GAMES", "ALIASES", "BEST", "get_game", "game_names"]

#: The bot kind every game accepts: its best bot that can play here (:attr:`GameEntry.hint_bot`).
BEST = "best"

BotFactory = Callable[[Game[Any], int, dict[str, Any]], Bot]


def _no_options(kind: str, options: dict[str, Any]) -> None:
    if options:
        raise TypeError(f"the {kind} bot takes no options, got {sorted(options)}")


def _random(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    from .bots import RandomBot

    _no_options("random", options)
    return RandomBot(seed)


def _plain(path: str) -> BotFactory:
    """A bot class (``module:Class``) whose constructor takes nothing."""

    def make(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
        module, _, name = path.partition(":")
        _no_options(name, options)
        bot: Bot = getattr(import_module(module), name)()
        return bot

    return make


def _search(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    from .gangoffour.bots import SearchBot

    return SearchBot(seed=seed, **options)


def _duelo_category(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    from .duelo.bots import CategoryBot

    _no_options("category", options)
    return CategoryBot(deck=getattr(game, "deck", None))


@dataclass(frozen=True)
class GameEntry:
    """One game: its name, title, engine class (``module:Class``), bots by
    kind (the best first after ``random``), and whether it is turn-based (every
    game is, but for Zangle's real-time Speedster mode)."""

    name: str
    title: str
    engine: str
    bots: Mapping[str, BotFactory]
    best_bot: str
    #: Bot kinds that need the game's compiled kernels (not on the pure-Python twin).
    compiled_bots: tuple[str, ...] = ()

    @property
    def bot_kinds(self) -> tuple[str, ...]:
        return tuple(self.bots)

    @property
    def available_bots(self) -> tuple[str, ...]:
        """The bot kinds that can play here (all of them when the compiled kernels are in use)."""
        return tuple(kind for kind in self.bots if COMPILED or kind not in self.compiled_bots)

    @property
    def hint_bot(self) -> str:
        """The best bot that can play here: ``best_bot``, or the last available kind."""
        available = self.available_bots
        return self.best_bot if self.best_bot in available else available[-1]

    @property
    def game_class(self) -> type[Game[Any]]:
        module, _, name = self.engine.partition(":")
        cls: type[Game[Any]] = getattr(import_module(module), name)
        return cls

    def new_game(self, **rules: Any) -> Game[Any]:
        """The game under ``rules`` (the rules type's fields as keywords)."""
        return self.game_class(**rules)

    def kind_of(self, kind: str) -> str:
        """The bot kind ``kind`` names: itself, or for ``"best"`` (:data:`BEST`) the
        :attr:`hint_bot` (the best bot that can play here); unknown kinds are refused."""
        if kind == BEST:
            return self.hint_bot
        if not isinstance(kind, str) or kind not in self.bots:
            raise FourCardsError(f"unknown bot {kind!r} for {self.name}; choose from "
                                 f"{', '.join(self.bots)} or {BEST}")
        return kind

    def new_bot(self, kind: str, game: Game[Any], seed: int = 0, **options: Any) -> Bot:
        """A seeded bot of ``kind`` (or ``"best"``: see :meth:`kind_of`) for ``game``;
        ``options`` go to its constructor."""
        kind = self.kind_of(kind)
        if kind not in self.available_bots:
            raise FourCardsError(f"the {kind} bot needs the compiled kernels (FOURCARDS_NO_EXTENSIONS is set, "
                                 "or they did not build)")
        return self.bots[kind](game, seed, dict(options))

    def __reduce__(self) -> str | tuple[Any, ...]:
        """A registered entry pickles as its name (its bot factories are closures)."""
        if GAMES.get(self.name) is self:
            return get_game, (self.name,)
        return super().__reduce__()


GAMES: dict[str, GameEntry] = {
    entry.name: entry
    for entry in (
        GameEntry("gang-of-four", "Gang of Four", "fourcards.gangoffour.match:GangOfFour",
                  {"random": _random, "greedy": _plain("fourcards.gangoffour.bots:GreedyBot"),
                   "search": _search}, best_bot="search", compiled_bots=("search",)),
        GameEntry("four-color", "Four Color Cards", "fourcards.fourcolor.game:FourColor",
                  {"random": _random, "greedy": _plain("fourcards.fourcolor.bots:GreedyBot")},
                  best_bot="greedy"),
        GameEntry("zangle", "Zangle", "fourcards.zangle.game:ZangleGame",
                  {"random": _random, "greedy": _plain("fourcards.zangle.bots:GreedyBot")},
                  best_bot="greedy"),
        GameEntry("four-pack", "Four Pack", "fourcards.fourpack.game:FourPack",
                  {"random": _random, "memory": _plain("fourcards.fourpack.bots:MemoryBot")},
                  best_bot="memory"),
        GameEntry("duelo", "Duelo", "fourcards.duelo.game:Duelo",
                  {"random": _random, "category": _duelo_category}, best_bot="category"),
    )
}

#: Other names people use for the games.
ALIASES = {"four-color-cards": "four-color", "gangoffour": "gang-of-four", "fourcolor": "four-color",
           "fourpack": "four-pack"}


def game_names() -> tuple[str, ...]:
    """The games' names, in the registry's order."""
    return tuple(GAMES)


def get_game(name: str) -> GameEntry:
    """The registry entry of ``name`` (or one of its :data:`ALIASES`)."""
    if not isinstance(name, str):
        raise TypeError(f"a game name is a str, not {type(name).__name__}")
    key = ALIASES.get(name, name)
    if key not in GAMES:
        raise FourCardsError(f"unknown game {name!r}; choose from {', '.join(GAMES)}")
    return GAMES[key]
