"""Every game by its one name: the registry the command line, tournaments,
the server and the RL adapters share.

A game declares itself once, in a :class:`GameEntry`; every consumer reads
that entry and the engine's facts (:meth:`fourcards.engine.Game.info`) and
views (``observation_view``, ``record_view``, ``action_view``). The five
games of fourcards are listed here; any other package adds a game with an
entry point in the group ``fourcards.games`` whose object is a
:class:`GameEntry` (``pyproject.toml``)::

    [project.entry-points."fourcards.games"]
    my-game = "my_package.game:ENTRY"

A plug-in that fails to load is skipped with a :class:`PluginWarning`; it
never breaks ``import fourcards``.

>>> from fourcards.games import GAMES, get_game
>>> sorted(GAMES)
['duelo', 'four-color', 'four-pack', 'gang-of-four', 'zangle']
>>> entry = get_game("gang-of-four")
>>> game = entry.new_game(players=3)
>>> game.num_players, entry.bot_kinds
(3, ('random', 'greedy', 'learned', 'search'))
>>> bot = entry.new_bot("greedy", game, seed=1)
>>> get_game("four-pack").kind_of("best"), get_game("duelo").kind_of("best")
('search', 'search')
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from ._backend import COMPILED
from .engine import Bot, Game
from .errors import FourCardsError, InvalidTypeError, UnknownGameError
from .rng import seed_in_range

__all__ = ["GameEntry", "GAMES", "ALIASES", "get_game", "game_names", "register", "load_object", "PluginWarning",
           "ENTRY_POINT_GROUP", "DEFAULT_GAME", "BUILTIN", "load_plugins", "unregister", "BEST"]

#: The entry-point group a package registers its games in.
ENTRY_POINT_GROUP = "fourcards.games"


class PluginWarning(UserWarning):
    """A game plug-in could not be registered (it is skipped)."""


def load_object(path: str) -> Any:
    """The object a ``module:attribute`` path names (the attribute may be dotted)."""
    module, _, name = path.partition(":")
    value: Any = import_module(module)
    for part in name.split("."):
        value = getattr(value, part)
    return value


#: The bot kind every game accepts: its best bot that can play here (:attr:`GameEntry.hint_bot`).
BEST = "best"

BotFactory = Callable[[Game[Any], int, dict[str, Any]], Bot]


def _no_options(kind: str, options: dict[str, Any]) -> None:
    if options:
        raise _NoOptions(f"the {kind} bot takes no options, got {sorted(options)}")


class _NoOptions(TypeError):
    """A rule bot given options (:meth:`GameEntry.new_bot` names its kind in a FourCardsError)."""


class _UnknownOption(TypeError):
    """A bot given an option its constructor lacks (:meth:`GameEntry.new_bot` names it)."""


def _with_options(cls: Callable[..., Bot], options: dict[str, Any], *args: Any, **known: Any) -> Bot:
    """``cls(*args, **known, **options)``, each option first checked against ``cls``'s
    parameters (no text of a TypeError to read: a TypeError from inside the bot stays one)."""
    signature = inspect.signature(cls)
    parameters = signature.parameters
    given = set(signature.bind_partial(*args).arguments) | set(known)  # the names the library passes itself
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    for name in options:
        if name in given or (not open_ended and (
                name not in parameters or parameters[name].kind is inspect.Parameter.POSITIONAL_ONLY)):
            raise _UnknownOption(name)
    return cls(*args, **known, **options)


def _random(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    from .bots import RandomBot

    _no_options("random", options)
    return RandomBot(seed, num_actions=game.num_distinct_actions)


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

    return _with_options(SearchBot, options, seed=seed)


def _game_search(path: str) -> BotFactory:
    """A search bot class (``module:Class``) made with the game, a seed and its options
    (``iterations=``, ``time_per_move=``, ...)."""

    def make(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
        return _with_options(load_object(path), options, game, seed=seed)

    return make


def _learned(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    from .gangoffour.learned import _registry_bot

    return _registry_bot(game, seed, options)


def _duelo_category(game: Game[Any], seed: int, options: dict[str, Any]) -> Bot:
    from .duelo.bots import CategoryBot

    _no_options("category", options)
    return CategoryBot(deck=getattr(game, "deck", None))


@dataclass(frozen=True)
class GameEntry:
    """One game: its name, title, engine class (``module:Class``, or the class
    itself), bots by kind (the best first after ``random``) and the kind of its
    best bot. The rest is optional:

    - ``compiled_bots``: bot kinds that need the compiled kernels;
    - ``aliases``: other names people use for the game;
    - ``variants``: named rule presets (``{"solitaire": {"mode": "solitaire"}}``),
      each also registered as a Gymnasium environment;
    - ``terminal``: a :class:`fourcards.terminal.Table` subclass
      (``module:Class``) drawing the game in the terminal better than the
      generic table does;
    - ``page_script``: a JavaScript module (``package:file.js``) drawing the
      game in the browser page better than the generic board does;
    - ``masters``: more server tables of the game (``module:object`` paths of
      :class:`fourcards.server.tables.MasterSpec`), such as a real-time mode;
    - ``tournament_rows``: a fast path for tournaments (``module:function``);
    - ``vector_env``: a Gymnasium vector environment (``module:Class``) that
      steps many matches in compiled code, registered as the game's
      ``make_vec`` entry point when the compiled kernels are in use;
    - ``rl_exports``: names :mod:`fourcards.rl` exposes for the game
      (``{"VectorGangOfFour": "fourcards.rl.vector:VectorGangOfFour"}``);
    - ``candidates``: the game's candidate-action featurizer for
      :mod:`fourcards.rl.candidates` (``module:object``);
    - ``openspiel``: a module whose import registers the game's own OpenSpiel
      game under :func:`fourcards.rl.openspiel_games.spiel_name` (otherwise
      :mod:`fourcards.rl.openspiel_games` registers a generic one).

    Facts about the game itself (players, observation shape and bounds, score
    label and direction, real time, deck upload) are read from the engine
    class (:meth:`fourcards.engine.Game.info`)."""

    name: str
    title: str
    engine: str | type[Game[Any]]
    bots: Mapping[str, BotFactory]
    best_bot: str
    #: Bot kinds that need the game's compiled kernels (not on the pure-Python twin).
    compiled_bots: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    variants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    terminal: str | None = None
    page_script: str | None = None
    masters: tuple[str, ...] = ()
    tournament_rows: str | None = None
    vector_env: str | None = None
    rl_exports: Mapping[str, str] = field(default_factory=dict)
    candidates: str | None = None
    openspiel: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise FourCardsError(f"game name {self.name!r} must be lowercase words joined by '-' (like 'gang-of-four')")
        if not isinstance(self.title, str) or not self.title:
            raise FourCardsError(f"game {self.name!r}: title must be a non-empty str")
        if not isinstance(self.bots, Mapping) or "random" not in self.bots:
            raise FourCardsError(f"game {self.name!r}: bots must map kinds to factories, 'random' among them")
        if self.best_bot not in self.bots:
            raise FourCardsError(f"game {self.name!r}: best_bot {self.best_bot!r} is not one of its bots "
                                 f"({', '.join(self.bots)})")
        if not (isinstance(self.engine, str) and ":" in self.engine) and not isinstance(self.engine, type):
            raise FourCardsError(f"game {self.name!r}: engine must be 'module:Class' or a Game class, "
                                 f"not {self.engine!r}")

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
        if isinstance(self.engine, type):
            return self.engine
        cls: type[Game[Any]] = load_object(self.engine)
        return cls

    def new_game(self, **rules: Any) -> Game[Any]:
        """The game under ``rules`` (the rules type's fields as keywords)."""
        return self.game_class(**rules)

    def info(self, **rules: Any) -> Any:
        """The game's facts under ``rules`` (:class:`fourcards.engine.GameInfo`)."""
        return self.new_game(**rules).info()

    def kind_of(self, kind: str) -> str:
        """The bot kind ``kind`` names: itself, or for ``"best"`` (:data:`BEST`) the
        :attr:`hint_bot` (the best bot that can play here); unknown kinds are refused."""
        if not isinstance(kind, str):  # (before any ==: a numpy array's == is no answer)
            raise InvalidTypeError(f"a bot kind is a name (a str such as {BEST!r}), not {type(kind).__name__}")
        if kind == BEST:
            return self.hint_bot
        if kind not in self.bots:
            raise FourCardsError(f"unknown bot {kind!r} for {self.name}; choose from "
                                 f"{', '.join(self.bots)} or {BEST}")
        return kind

    def new_bot(self, kind: str, game: Game[Any], /, seed: int = 0, **options: Any) -> Bot:
        """A seeded bot of ``kind`` (or ``"best"``: see :meth:`kind_of`) for ``game``;
        ``options`` go to its constructor (an option named ``kind`` or ``game`` is one
        the bot does not have)."""
        kind = self.kind_of(kind)
        seed = seed_in_range(seed, "a bot's seed")
        if not isinstance(game, self.game_class):
            raise InvalidTypeError(f"a {kind} bot of {self.name} plays a {self.game_class.__name__} game "
                                 f"(entry.new_game(...)), not {type(game).__name__}")
        if kind not in self.available_bots:
            raise FourCardsError(f"the {kind} bot needs the compiled kernels (FOURCARDS_NO_EXTENSIONS is set, "
                                 "or they did not build)")
        try:
            return self.bots[kind](game, seed, dict(options))
        except _NoOptions:
            raise FourCardsError(f"the {kind} bot of {self.name} takes no options (a budget such as "
                                 f"time_per_move is a search bot's), got {', '.join(sorted(options))}") from None
        except _UnknownOption as error:
            raise FourCardsError(f"the {kind} bot of {self.name} has no option {error.args[0]!r}") from None

    def __reduce__(self) -> str | tuple[Any, ...]:
        """A registered entry pickles as its name (its bot factories are closures)."""
        if GAMES.get(self.name) is self:
            return get_game, (self.name,)
        return super().__reduce__()


_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


BUILTIN: tuple[GameEntry, ...] = (
    GameEntry("gang-of-four", "Gang of Four", "fourcards.gangoffour.match:GangOfFour",
              {"random": _random, "greedy": _plain("fourcards.gangoffour.bots:GreedyBot"), "learned": _learned,
               "search": _search},
              best_bot="search", compiled_bots=("search",), aliases=("gangoffour",),
              terminal="fourcards.gangoffour.terminal:GangOfFourTable",
              page_script="fourcards.server:static/games/gang-of-four.js",
              vector_env="fourcards.rl.gymnasium_vector:GangOfFourVectorEnv",
              rl_exports={"VectorGangOfFour": "fourcards.rl.vector:VectorGangOfFour"},
              candidates="fourcards.gangoffour.features:CANDIDATES", openspiel="fourcards.rl.openspiel"),
    GameEntry("four-color", "Four Color Cards", "fourcards.fourcolor.game:FourColor",
              {"random": _random, "greedy": _plain("fourcards.fourcolor.bots:GreedyBot"),
               "lookahead": _plain("fourcards.fourcolor.bots:LookaheadBot"),
               "search": _game_search("fourcards.fourcolor.search:SearchBot")},
              best_bot="search", compiled_bots=("lookahead", "search"), aliases=("four-color-cards", "fourcolor"),
              terminal="fourcards.fourcolor.terminal:FourColorTable",
              page_script="fourcards.server:static/games/four-color.js",
              tournament_rows="fourcards.fourcolor.simulate:tournament_rows"),
    GameEntry("zangle", "Zangle", "fourcards.zangle.game:ZangleGame",
              {"random": _random, "greedy": _plain("fourcards.zangle.bots:GreedyBot"),
               "search": _game_search("fourcards.zangle.search:SearchBot")},
              best_bot="search", variants={"solitaire": {"mode": "solitaire"}},
              terminal="fourcards.zangle.terminal:ZangleTable",
              page_script="fourcards.server:static/games/zangle.js",
              masters=("fourcards.server.speedster:SPEEDSTER",)),
    GameEntry("four-pack", "Four Pack", "fourcards.fourpack.game:FourPack",
              {"random": _random, "memory": _plain("fourcards.fourpack.bots:MemoryBot"),
               "search": _game_search("fourcards.fourpack.search:SearchBot")},
              best_bot="search", aliases=("fourpack",),
              terminal="fourcards.fourpack.terminal:FourPackTable",
              page_script="fourcards.server:static/games/four-pack.js"),
    GameEntry("duelo", "Duelo", "fourcards.duelo.game:Duelo",
              {"random": _random, "category": _duelo_category,
               "search": _game_search("fourcards.duelo.search:SearchBot")}, best_bot="search",
              terminal="fourcards.duelo.terminal:DueloTable",
              page_script="fourcards.server:static/games/duelo.js"),
)

#: The game a command plays when none is named.
DEFAULT_GAME = "gang-of-four"

#: Every game by name: fourcards' own, then the plug-ins', in the order registered.
GAMES: dict[str, GameEntry] = {}
#: Other names people use for the games (each entry's ``aliases``).
ALIASES: dict[str, str] = {}


def register(entry: GameEntry, *, replace: bool = False) -> GameEntry:
    """Add ``entry`` to the registry (what an entry point does at import).

    A name or alias already taken is refused (:class:`FourCardsError`)
    unless ``replace``; the entry's engine is checked to be a game class."""
    if not isinstance(entry, GameEntry):
        raise FourCardsError(f"a game plug-in must be a fourcards.games.GameEntry, not {type(entry).__name__}")
    taken = {entry.name, *entry.aliases} & (set(GAMES) | set(ALIASES))
    if taken and not replace:
        raise FourCardsError(f"game {entry.name!r}: the name {sorted(taken)[0]!r} is taken")
    if not isinstance(entry.engine, str):
        _check_engine(entry)
    old = GAMES.pop(entry.name, None)
    if old is not None:
        for alias in old.aliases:
            ALIASES.pop(alias, None)
    GAMES[entry.name] = entry
    for alias in entry.aliases:
        ALIASES[alias] = entry.name
    return entry


def _check_engine(entry: GameEntry) -> None:
    cls = entry.game_class
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise FourCardsError(f"game {entry.name!r}: engine {entry.engine!r} is not a fourcards.engine.Game class")
    if getattr(cls, "name", None) not in (entry.name, *entry.aliases):
        raise FourCardsError(f"game {entry.name!r}: its engine's name is {getattr(cls, 'name', None)!r}")


def unregister(name: str) -> GameEntry:
    """Take the game ``name`` out of the registry (with its aliases); returns its entry."""
    entry = get_game(name)
    del GAMES[entry.name]
    for alias in entry.aliases:
        ALIASES.pop(alias, None)
    _LOADED.difference_update({key for key in _LOADED if key[1] == entry.name})
    return entry


_LOADED: set[tuple[str, str]] = set()
"""The entry points registered so far, as (value, game name)."""


def load_plugins() -> list[str]:
    """Register the games of the installed plug-ins (the entry points of the
    group :data:`ENTRY_POINT_GROUP`) not registered yet; done on import, and
    again by a program that installs one while running. A plug-in that fails
    is skipped with a :class:`PluginWarning` naming it and the reason.
    Returns the names registered."""
    from importlib.metadata import entry_points

    try:
        found = list(entry_points(group=ENTRY_POINT_GROUP))
    except Exception as error:  # a broken installation must not break import
        warnings.warn(f"fourcards: the game plug-ins could not be listed: {error}", PluginWarning, stacklevel=2)
        return []
    added = []
    for point in found:
        if any(value == point.value for value, _ in _LOADED):
            continue
        try:
            entry = point.load()
            if callable(entry) and not isinstance(entry, GameEntry):
                entry = entry()
            if not isinstance(entry, GameEntry):
                raise FourCardsError(f"it is a {type(entry).__name__}, not a fourcards.games.GameEntry")
            _check_engine(entry)
            register(entry)
        except Exception as error:
            warnings.warn(f"fourcards: the game plug-in {point.name!r} ({point.value}) was skipped: "
                          f"{type(error).__name__}: {error}", PluginWarning, stacklevel=2)
            continue
        _LOADED.add((point.value, entry.name))
        added.append(entry.name)
    return added


def game_names() -> tuple[str, ...]:
    """The games' names, in the registry's order."""
    return tuple(GAMES)


def get_game(name: str) -> GameEntry:
    """The registry entry of ``name`` (or one of its :data:`ALIASES`)."""
    if not isinstance(name, str):
        raise InvalidTypeError(f"a game name is a str, not {type(name).__name__}")
    key = ALIASES.get(name, name)
    if key not in GAMES:
        raise UnknownGameError(f"unknown game {name!r}; choose from {', '.join(GAMES)}")
    return GAMES[key]


for _entry in BUILTIN:
    register(_entry)
load_plugins()
