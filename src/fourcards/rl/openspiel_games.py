"""Every game of the registry as an OpenSpiel Python game (extra ``fourcards[rl]``).

>>> import pyspiel
>>> from fourcards.games import GAMES
>>> from fourcards.rl import openspiel_games
>>> names = openspiel_games.register_all()
>>> name = list(GAMES)[-1]
>>> game = pyspiel.load_game(openspiel_games.spiel_name(name), {"players": 3})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), game.num_players()
(True, 3)
>>> state.apply_action(7)
>>> state.current_player() in (0, 1, 2)
True

Each game of :mod:`fourcards.games` (plug-ins too) is registered on import
as ``python_fourcards_<name>`` (dashes as underscores: :func:`spiel_name`),
with its rule options of type int, bool or str as the game's parameters (its
defaults as theirs). A game whose entry names ``openspiel`` (a module) has
that module register its own game under that name; the others get the
generic one here. A match starts with one chance node, the
deal: one of :data:`DEALS` seeds from which the engine shuffles (hidden from
the players); then the players act with the engine's integer actions, and the
returns are the engine's ``returns()`` (the share of the win minus 1/n).

What a player knows: the observation string is the seat's view as JSON
(:meth:`fourcards.engine.State.view`) and the tensor the engine's
``observation_tensor``; the information-state string adds, for perfect
recall, the player's own actions and every public record of the match (the
records the engine writes are public: a hidden answer is recorded as
answered, never what). ``resample_from_infostate`` is the engine's
:meth:`~fourcards.engine.State.resample`: the cards the player cannot see
dealt again uniformly among the deals consistent with what it saw, later
chance drawn afresh; a sample keeps the real state's ``history()`` (replaying
it deals the real cards). States serialize as OpenSpiel serializes a Python
game's (the history and a pickle of the Python side, which
``deserialize_state`` loads: give it only text the program wrote) and pickle.
"""

from __future__ import annotations

import json
from importlib import import_module
from typing import Any

import numpy as np
import pyspiel

from ..errors import FourCardsError, InvalidTypeError
from ..engine import Game, State
from ..games import GAMES, GameEntry, get_game
from ..rng import Rng
from ._common import DEALS, deal_outcome, sampler_seed, spiel_seat

__all__ = ["PREFIX", "DEALS", "spiel_name", "register", "register_all", "load_game", "FourcardsSpielGame",
           "FourcardsSpielState", "FourcardsObserver", "parameters_of"]

#: The prefix of the OpenSpiel short names of fourcards' games.
PREFIX = "python_fourcards_"


def spiel_name(game: str) -> str:
    """The OpenSpiel short name of a registered game: ``python_fourcards_four_pack``."""
    return PREFIX + get_game(game).name.replace("-", "_")


def parameters_of(entry: GameEntry) -> dict[str, Any]:
    """The game's rule options OpenSpiel can carry (int, bool, str), with their defaults."""
    from dataclasses import MISSING, fields

    params: dict[str, Any] = {}
    for f in fields(entry.game_class.rules_type):
        if f.name.startswith("_") or f.default is MISSING:
            continue
        if type(f.default) in (int, bool, str):
            params[f.name] = f.default
    return params


class FourcardsSpielGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game over one registered game's engine (a subclass a game,
    made by :func:`register`, names it in ``GAME``)."""

    GAME: str = ""
    TYPE: Any = None

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        entry = get_game(self.GAME)
        defaults = parameters_of(entry)
        # OpenSpiel fills in every default: only the others are the user's (a default may depend on
        # another rule, as the seat count of a one-seat variant does)
        options = {key: value for key, value in (params or {}).items() if key not in defaults or defaults[key] != value}
        self.entry = entry
        self.engine: Game[Any] = entry.new_game(**options)
        n = self.engine.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_distinct_actions,
            max_chance_outcomes=DEALS,
            num_players=n,
            min_utility=-1.0 / n if n > 1 else -1.0,
            max_utility=1.0 - 1.0 / n if n > 1 else 1.0,
            utility_sum=0.0,
            max_game_length=self.engine.max_game_length,
        )
        super().__init__(self.TYPE, info, options)

    def new_initial_state(self) -> FourcardsSpielState:
        return FourcardsSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> FourcardsObserver:
        if params:
            raise FourCardsError(f"observation parameters are not supported, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return FourcardsObserver(self.engine, perfect_recall)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its name and parameters; loading registers the game first."""
        return _load_game, (self.GAME, dict(self.get_parameters()))


class _Payload:
    """The Python side of a state, in one object OpenSpiel's ``Clone`` (a deep copy
    of each attribute) copies with one cheap call: the engine's match, and the
    parts of every seat's information-state string (the public records' texts and
    each seat's own actions), kept up to date instead of rebuilt per call."""

    __slots__ = ("engine", "match", "records", "own")

    def __init__(self, engine: Game[Any]) -> None:
        self.engine = engine
        self.match: State[Any] | None = None
        self.records: tuple[str, ...] = ()
        self.own: tuple[tuple[int, ...], ...] = ((),) * engine.num_players

    def __deepcopy__(self, memo: dict[int, Any]) -> _Payload:
        other = _Payload.__new__(_Payload)
        other.engine = self.engine
        other.match = None if self.match is None else self.match.clone()
        other.records = self.records  # tuples: shared, never changed in place
        other.own = self.own
        return other


class FourcardsSpielState(pyspiel.State):  # type: ignore[misc]
    """A match: a chance node (the deal), then the engine's state."""

    def __init__(self, game: FourcardsSpielGame) -> None:
        super().__init__(game)
        self._p = _Payload(game.engine)

    @property
    def match(self) -> State[Any] | None:
        """The engine's match (None before the deal)."""
        return self._p.match

    def current_player(self) -> int:
        match = self._p.match
        if match is None:
            return int(pyspiel.PlayerId.CHANCE)
        if match.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(match.current_player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / DEALS
        return [(seed, p) for seed in range(DEALS)]

    def _legal_actions(self, player: int) -> list[int]:
        match = self._p.match
        if match is None or player != match.current_player:
            return []
        return match.legal_actions()

    def _apply_action(self, action: int) -> None:
        payload = self._p
        if payload.match is None:
            payload.match = payload.engine.new_match(deal_outcome(action))
            payload.records = tuple(payload.engine.record_text(r) for r in payload.match.history)
            return
        match = payload.match
        player = match.current_player
        node = match._log
        match.apply(int(action))
        payload.records = payload.records + tuple(payload.engine.record_text(r) for r in _records_since(match, node))
        own = list(payload.own)
        own[player] = own[player] + (int(action),)
        payload.own = tuple(own)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        match = self._p.match
        return str(action) if match is None else match.action_to_string(int(action))

    def is_terminal(self) -> bool:
        match = self._p.match
        return match is not None and match.is_terminal

    def returns(self) -> list[float]:
        match = self._p.match
        if match is None:
            return [0.0] * self._p.engine.num_players
        return list(match.returns())

    def information_state_string(self, player: int | None = None) -> str:
        seat = spiel_seat(self.current_player() if player is None else player, self._p.engine.num_players)
        return _information_state_string(self, seat)

    def observation_string(self, player: int | None = None) -> str:
        seat = spiel_seat(self.current_player() if player is None else player, self._p.engine.num_players)
        return _observation_string(self, seat)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        seat = spiel_seat(self.current_player() if player is None else player, self._p.engine.num_players)
        out = np.zeros(self._p.engine.observation_size, np.float32)
        if self._p.match is not None:
            self._p.match.observation_tensor(seat, out=out)
        return [float(x) for x in out]

    def resample_from_infostate(self, player: int, sampler: Any = None) -> FourcardsSpielState:
        """A state ``player`` cannot tell from this one: the engine's
        :meth:`~fourcards.engine.State.resample`, seeded from ``sampler`` (a
        callable giving a float in [0, 1), as ``pyspiel.UniformProbabilitySampler``)
        or a numpy ``Generator``, or, without one, from fresh entropy; the same
        sampler, the same state."""
        other: FourcardsSpielState = self.clone()
        match = self._p.match
        if match is None:
            return other
        # (the engine checks the seat: it refuses True, 1.0, "0")
        other._p.match = match.resample(player, Rng(sampler_seed(sampler)))
        return other

    def __str__(self) -> str:
        return "deal pending" if self._p.match is None else self._p.match.describe()

    def __deepcopy__(self, memo: dict[int, Any]) -> FourcardsSpielState:
        other: FourcardsSpielState = self.clone()
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as OpenSpiel serializes it (the history and the Python side pickled);
        loading registers the game first."""
        return _load_state, (pyspiel.serialize_game_and_state(self.get_game(), self),)


def _records_since(match: State[Any], node: Any) -> list[Any]:
    """The records appended to ``match`` since its log was ``node``, oldest first."""
    items = []
    current = match._log
    while current is not None and current is not node:
        items.append(current[0])
        current = current[1]
    items.reverse()
    return items


def _observation_string(state: FourcardsSpielState, seat: int) -> str:
    match = state._p.match
    if match is None:
        return f"p{seat}"
    return json.dumps(match.view(seat), sort_keys=True, separators=(",", ":"), default=str)


def _information_state_string(state: FourcardsSpielState, seat: int) -> str:
    payload = state._p
    if payload.match is None:
        return f"p{seat}"
    own = " ".join(map(str, payload.own[seat]))
    return f"{_observation_string(state, seat)} | own: {own} | records: {' / '.join(payload.records)}"


class FourcardsObserver:
    """OpenSpiel's Python observer: the observation tensor (the engine's), and its
    strings (with ``perfect_recall``, the information-state string)."""

    def __init__(self, engine: Game[Any], perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(engine.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: FourcardsSpielState, player: int) -> None:
        player = spiel_seat(player, state._p.engine.num_players)
        self.tensor.fill(0.0)
        if state.match is not None:
            state.match.observation_tensor(player, out=self.tensor)

    def string_from(self, state: FourcardsSpielState, player: int) -> str:
        player = spiel_seat(player, state._p.engine.num_players)
        if self.perfect_recall:
            return _information_state_string(state, player)
        return _observation_string(state, player)


def _game_type(entry: GameEntry) -> Any:
    low, high = entry.game_class.player_range()
    return pyspiel.GameType(
        short_name=PREFIX + entry.name.replace("-", "_"),
        long_name=f"{entry.title} (fourcards)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters_of(entry),
    )


def register(game: str) -> str:
    """Register one game of the registry with OpenSpiel (its own adapter when its
    entry names one); returns its OpenSpiel short name. Safe to repeat."""
    entry = get_game(game)
    name = PREFIX + entry.name.replace("-", "_")
    if name in pyspiel.registered_names():
        return name
    if entry.openspiel is not None:
        import_module(entry.openspiel)
        if name not in pyspiel.registered_names():
            raise RuntimeError(f"{entry.openspiel} did not register {name}")
        return name
    game_type = _game_type(entry)
    cls = type(f"{entry.name.title().replace('-', '')}SpielGame", (FourcardsSpielGame,),
               {"GAME": entry.name, "TYPE": game_type, "__module__": __name__})
    pyspiel.register_game(game_type, cls)
    return name


def register_all() -> list[str]:
    """Register every game of the registry (plug-ins included); their short names."""
    return [register(name) for name in GAMES]


def load_game(game: str, **params: Any) -> Any:
    """``pyspiel.load_game`` of a registered game by its fourcards name, with its rule options
    (checked by the engine first: OpenSpiel's own conversion of a bad value says little)."""
    name = register(game)
    get_game(game).new_game(**params)  # InvalidRulesError naming the rule, before pyspiel sees it
    # numpy scalars the engine takes as ints and floats: as Python's, which OpenSpiel takes
    spiel_params = {key: value.item() if isinstance(value, np.generic) else value for key, value in params.items()}
    try:
        return pyspiel.load_game(name, spiel_params)
    except (TypeError, ValueError) as error:  # a value OpenSpiel's parameters cannot hold (a dict: a deck)
        raise InvalidTypeError(f"OpenSpiel takes rule values of int, float, str or bool, not "
                               f"{ {k: type(v).__name__ for k, v in spiel_params.items()} }: {error}") from None


def _load_game(game: str, params: dict[str, Any]) -> Any:
    return load_game(game, **params)


def _load_state(text: str) -> Any:
    register_all()
    return pyspiel.deserialize_game_and_state(text)[1]


register_all()
