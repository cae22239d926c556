"""The game contract every fourcards game implements, and what it shares.

A :class:`Game` holds the static facts of a game under a set of rules
(player count, size of the integer action space, a bound on the length) and
starts matches; a :class:`State` is one match in progress:

- whose turn: ``current_player`` (-1 once ``is_terminal``);
- what may be done: ``legal_actions()`` (sorted ints), ``legal_actions_mask()``
  (0/1 over ``num_distinct_actions``), ``can_apply(action)`` and
  ``why_illegal(action)`` (the reason, or None);
- doing it: ``apply(action, player=None, expected_step=None)`` takes an int, the
  game's readable action type, or the text ``action_to_string`` printed;
  returns the first immutable record it appended to ``history``; raises
  :class:`~fourcards.errors.InvalidActionError` (text or an integer that names
  no action), :class:`~fourcards.errors.UnknownSeatError`,
  :class:`~fourcards.errors.GameOverError`,
  :class:`~fourcards.errors.NotYourTurnError`,
  :class:`~fourcards.errors.StaleActionError` or
  :class:`~fourcards.errors.IllegalMoveError` leaving the state exactly as it
  was (``verify`` raises the same without acting); ``step`` counts the actions;
- results: ``returns()``, one number per seat with one meaning in every game
  (the share of the win minus 1/n: they sum to 0, and are all 0 for a draw),
  consistent with ``winners`` (the winning seats: several for a shared win,
  none for a draw); ``scores`` is each game's own tally (documented per game);
- copies and saves: ``clone()``, ``to_json(key=None, snapshot=False)`` /
  ``Game.from_json(text, key=None)`` / :func:`fourcards.load` (a versioned
  envelope naming game and rules, with a SHA-256 digest for integrity and,
  with a key, an HMAC-SHA256 signature against forgery; a signed snapshot
  holds the state itself and loads in time independent of the match's
  length), ``Game.replay(seed, actions)``;
- what a player may know: ``observation(player)`` and
  ``observation_tensor(player, out=buffer)`` with a layout each game documents;
  every method that takes a seat refuses ``bool``, non-ints and seats off the table;
- the two action layers: ``action_to_int`` / ``int_to_action`` /
  ``action_to_string`` / ``parse_action``.

Rules are frozen dataclasses on :class:`GameRules`: each field is checked
from its type and :func:`option` bounds.

Randomness: every match owns a :class:`~fourcards.rng.Rng` seeded from its
seed; nothing is module-global, and the same seed and actions give the same
match on every platform.

Simultaneous decisions (Four Color claims) are asked one player at a time
through ``current_player``; :class:`SimultaneousDecision` keeps every answer
hidden until all eligible players have answered.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import hmac
import inspect
import json
import math
import numbers
import threading
import time
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from ._links import slot_names as _slot_names
from ._links import unroll
from .errors import (
    FourCardsError, GameOverError, IllegalMoveError, InvalidActionError, InvalidRulesError, InvalidSeatsError,
    InvalidStateError, InvalidTypeError,
    NotYourTurnError, SamplingCostError, StaleActionError, UnknownSeatError,
)
from .rng import MASK64, Rng, as_rng, seed_in_range

__all__ = [
    "Bot", "Game", "GameRules", "State", "SimultaneousDecision", "play_match", "derive_seed", "derive_seeds",
    "simulation_seeds", "MAX_GAMES",
    "win_shares", "policy_codes", "unroll", "tensor_buffer", "spread_pick", "check_count", "check_flag", "check_real",
    "check_deadline", "option",
    "ENVELOPE_FORMAT", "ENVELOPE_VERSION", "GameInfo", "InformationSet", "read_envelope", "check_signature",
    "checked_legal", "check_to_act",
]

ENVELOPE_FORMAT = "fourcards-match"
ENVELOPE_VERSION = 1

A = TypeVar("A")  # a game's readable action type
S = TypeVar("S", bound="State[Any]")
R = TypeVar("R")  # a game's record type


def tensor_buffer(out: npt.NDArray[np.float32] | None, size: int) -> npt.NDArray[np.float32]:
    """A zeroed float32 buffer of ``size`` for an observation tensor: ``out``
    itself (checked, then cleared) or a new array."""
    if out is None:
        return np.zeros(size, dtype=np.float32)
    if not isinstance(out, np.ndarray):
        raise InvalidTypeError(f"out must be a numpy float32 array of shape ({size},), not {type(out).__name__}")
    if out.shape != (size,) or out.dtype != np.float32:
        raise FourCardsError(f"out must be a float32 array of shape ({size},), not {out.dtype} {out.shape}")
    if not out.flags.writeable:
        raise FourCardsError("out is read-only: the tensor is written into it")
    out[:] = 0.0
    return out


def check_count(value: Any, name: str) -> int:
    """``value`` checked as a count: an int (numpy ints too) >= 0; TypeError for
    another type (``bool`` and floats included), :class:`FourCardsError` below 0."""
    if type(value) is not int:
        if not isinstance(value, np.integer) or isinstance(value, np.bool_):
            raise InvalidTypeError(f"{name} must be an int >= 0, not {type(value).__name__} {value!r}")
        value = int(value)
    if value < 0:
        raise FourCardsError(f"{name}={value} must be at least 0")
    count: int = value
    return count


def check_options(value: Any, name: str) -> dict[str, Any]:
    """``value`` checked as options by name (rules, a match's setup): a mapping of str names to
    values, returned as a new dict; :class:`~fourcards.errors.InvalidTypeError` naming ``name``
    otherwise."""
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"{name} must be a mapping of option names to values, "
                               f"not {type(value).__name__} {value!r:.80}")
    for option in value:
        if not isinstance(option, str):
            raise InvalidTypeError(f"{name}: an option's name must be a str, not {type(option).__name__} "
                                   f"{option!r:.40}")
    return dict(value)


def check_runner(executor: Any, progress: Any) -> None:
    """Refuse (:class:`~fourcards.errors.InvalidTypeError`) an ``executor`` without ``submit`` or a
    ``progress`` that is no function; None is either's default."""
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise InvalidTypeError(f"executor must be a concurrent.futures.Executor (with submit) or None, "
                               f"not {type(executor).__name__}")
    if progress is not None and not callable(progress):
        raise InvalidTypeError(f"progress must be a function of (done, total) or None, not {type(progress).__name__}")


def check_real(value: Any, name: str) -> float:
    """``value`` as a float: any real number (numpy's, a ``Fraction``), not a bool
    (TypeError otherwise); an int past a float's range is an infinity, which any
    range checked after refuses or, for a deadline, never reaches.

    >>> check_real(np.float32(0.5), "time_per_move"), check_real(10**400, "deadline")
    (0.5, inf)
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(f"{name} must be a number, not {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


#: How far past ``time.perf_counter()`` a finite deadline may be (ten years): a ``time.time()``
#: value (another clock, about 1.8e9 today) is far past it and would never be reached.
DEADLINE_HORIZON = 10 * 365.25 * 86_400


def check_deadline(value: Any) -> float | None:
    """A sample's ``deadline``: None, or a ``time.perf_counter()`` value as a float
    (:func:`check_real`; an infinity, like None, is no deadline). NaN, which would never
    pass nor be passed, is refused, and so is a finite time more than
    :data:`DEADLINE_HORIZON` away (a ``time.time()`` value, which would never be reached).

    >>> check_deadline(None), check_deadline(np.int64(3))
    (None, 3.0)
    >>> import time
    >>> check_deadline(time.time() + 1)
    Traceback (most recent call last):
    fourcards.errors.FourCardsError: deadline=... is ... years away on time.perf_counter()'s clock: ...
    """
    if value is None:
        return None
    deadline = check_real(value, "deadline")
    if math.isnan(deadline):
        raise FourCardsError("deadline=nan is no time: give a time.perf_counter() value or None")
    if deadline != math.inf and deadline - time.perf_counter() > DEADLINE_HORIZON:
        years = (deadline - time.perf_counter()) / (365.25 * 86_400)
        raise FourCardsError(f"deadline={deadline:.6g} is {years:,.0f} years away on time.perf_counter()'s "
                             "clock: give time.perf_counter() + seconds (time.time() is another clock), "
                             "or None for no deadline")
    return deadline


def check_flag(value: Any, name: str) -> bool:
    """``value`` checked as a yes/no option: a bool (numpy's too); TypeError naming ``name``
    for anything else (``"no"`` or ``0`` is not False).

    >>> check_flag(np.bool_(True), "paired")
    True
    >>> check_flag("no", "paired")
    Traceback (most recent call last):
    fourcards.errors.InvalidTypeError: paired must be a bool, not str
    """
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidTypeError(f"{name} must be a bool, not {type(value).__name__}")
    return bool(value)


def checked_legal(legal_actions: Any, num_actions: int | None = None, observation: Any = None) -> list[int]:
    """The legal actions handed to a bot, as a list of ints: a sequence of ints
    (numpy ints too) or a 1-D integer numpy array (``np.flatnonzero(mask)``);
    :class:`FourCardsError` for none, a bool, a float, a negative one (no game's), or
    (with ``num_actions``) an action outside ``0..num_actions-1``; with an
    ``observation`` that lists its seat's legal actions (``legal_actions``),
    :class:`IllegalMoveError` for an action it does not list.

    >>> checked_legal(np.array([3, 5])), checked_legal((7,), 10)
    ([3, 5], [7])
    """
    if isinstance(legal_actions, np.ndarray):
        if legal_actions.ndim != 1 or legal_actions.dtype.kind not in "iu":
            raise InvalidTypeError(f"the legal actions must be a 1-D array of ints, not a {legal_actions.ndim}-D "
                                 f"array of {legal_actions.dtype}")
        legal: list[int] = legal_actions.tolist()
    elif isinstance(legal_actions, (str, bytes)) or not isinstance(legal_actions, Iterable):
        raise InvalidTypeError(f"the legal actions must be a sequence of ints, not {type(legal_actions).__name__}")
    else:
        legal = []
        for action in legal_actions:
            if type(action) is not int:
                if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
                    raise InvalidTypeError(f"legal action {_short(action)} is not an int")
                action = int(action)
            legal.append(action)
    if not legal:
        raise FourCardsError("no legal action to choose from")
    if num_actions is not None:
        for action in legal:
            if not 0 <= action < num_actions:
                raise InvalidActionError(f"legal action {action} is not an action of this game "
                                         f"(0..{num_actions - 1})")
    elif min(legal) < 0:
        raise InvalidActionError(f"legal action {min(legal)} is not an action of any game (actions are 0 and up)")
    listed = getattr(observation, "legal_actions", None)
    if isinstance(listed, tuple) and listed and type(listed[0]) is int:  # the engine's observations' tuple
        allowed = set(listed)
        for action in legal:
            if action not in allowed:
                raise IllegalMoveError(f"the legal actions do not fit the observation: action {action} is not "
                                       f"legal for seat {getattr(observation, 'player', '?')}")
    return legal


def check_to_act(observation: Any) -> None:
    """Refuse (:class:`NotYourTurnError`) the observation of a seat that is not the one to act:
    a bot asked to choose for it would answer for another seat's turn; :class:`GameOverError`
    for the observation of a match that is over (no seat is to act)."""
    if observation.current_player < 0 and observation.player != observation.current_player:
        raise GameOverError(f"the match is over: no seat is to act (the observation is seat {observation.player}'s)")
    if observation.player != observation.current_player:
        raise NotYourTurnError(f"the observation is seat {observation.player}'s, but it is seat "
                               f"{observation.current_player}'s turn: a bot chooses for the seat to act")


def spread_pick(count: int, limit: int) -> npt.NDArray[np.intp]:
    """Which of ``count`` sorted items fit in ``limit`` places: all of them when
    they fit, else ``limit`` spread evenly from the first to the last
    (``j * (count - 1) // (limit - 1)``); what candidate rows keep of many
    legal actions (the compiled vector environment picks the same).

    >>> spread_pick(3, 5).tolist(), spread_pick(10, 4).tolist()
    ([0, 1, 2], [0, 3, 6, 9])
    """
    count, limit = check_count(count, "count"), check_count(limit, "limit")
    if count <= limit:
        return np.arange(count, dtype=np.intp)
    if limit < 2:
        return np.zeros(limit, dtype=np.intp)
    return (np.arange(limit, dtype=np.int64) * (count - 1) // (limit - 1)).astype(np.intp)


def derive_seed(seed: int, stream: int) -> int:
    """An independent 64-bit seed for ``stream`` (a player, a bot, a batch).

    The first output of :class:`~fourcards.rng.Rng` seeded with
    ``seed + stream * 0xD1B54A32D192ED03`` (mod 2**64); the compiled simulator
    derives its per-player streams the same way. Both are ints 0..2**64-1 (a
    larger or negative one would alias another: :class:`FourCardsError`).

    >>> derive_seed(1, 0) == Rng(1).next_u64()
    True
    """
    seed, stream = seed_in_range(seed), seed_in_range(stream, "stream")
    return _derive_seed(seed, stream)


def _derive_seed(seed: int, stream: int) -> int:
    return Rng((seed + stream * 0xD1B54A32D192ED03) & MASK64).next_u64()


#: The most games one simulation plays, or derives seeds for (each keeps a row of results).
MAX_GAMES = 10_000_000


def derive_seeds(seed: int, count: int, start: int = 0) -> npt.NDArray[np.uint64]:
    """The seeds of matches ``start .. start + count - 1`` of a simulation:
    ``derive_seed(seed, i)`` each, as a ``uint64`` array (``count`` at most
    :data:`MAX_GAMES`)."""
    seed, count, start = seed_in_range(seed), check_count(count, "count"), check_count(start, "start")
    if count > MAX_GAMES:
        raise FourCardsError(f"count={count} seeds: at most {MAX_GAMES:,} at a time")
    if count and start + count - 1 > MASK64:  # a stream past 64 bits would alias another
        raise FourCardsError(f"start={start}: the streams {start}..{start + count - 1} must be in 0..2**64-1")
    return np.array([_derive_seed(seed, i) for i in range(start, start + count)], dtype=np.uint64)


def simulation_seeds(games: Any, seed: Any = 0) -> npt.NDArray[np.uint64]:
    """The seeds a simulator plays: ``games`` a count (an int 0..:data:`MAX_GAMES`, numpy
    ints too) of games seeded from ``seed`` (:func:`derive_seeds`), or the seeds themselves
    (a 1-D sequence or integer array, each 0..2**64-1). TypeError for another type (a bool,
    a float, a string, a masked array), :class:`FourCardsError` out of range.

    >>> simulation_seeds(2, 7).tolist() == derive_seeds(7, 2).tolist()
    True
    >>> simulation_seeds([2**64 - 1, 5]).tolist()
    [18446744073709551615, 5]
    """
    seed = seed_in_range(seed)
    if isinstance(games, (bool, np.bool_)):
        raise InvalidTypeError("games is a count or a sequence of seeds, not a bool")
    if isinstance(games, (int, np.integer)):
        count = int(games)
        if not 0 <= count <= MAX_GAMES:
            raise FourCardsError(f"{count} games: a simulation plays 0 to {MAX_GAMES:,}")
        return derive_seeds(seed, count)
    if isinstance(games, np.ma.MaskedArray):
        raise InvalidTypeError("game seeds must be a plain array: a masked array's mask would be ignored")
    if isinstance(games, np.ndarray):
        if games.ndim != 1 or (games.size and games.dtype.kind not in "iu"):
            raise InvalidTypeError(
                f"game seeds must be a 1-D array of ints, not a {games.ndim}-D array of {games.dtype}")
        if games.size > MAX_GAMES:
            raise FourCardsError(f"{games.size} game seeds: a simulation plays at most {MAX_GAMES:,}")
        if games.size and games.dtype.kind == "i" and int(games.min()) < 0:
            raise FourCardsError(f"game seed {int(games.min())} must be in 0..2**64-1")
        return np.array(games, dtype=np.uint64)
    if isinstance(games, (str, bytes)) or not isinstance(games, Iterable):
        raise InvalidTypeError(f"games is a count or a sequence of seeds, not {type(games).__name__}")
    values: list[int] = []
    for value in games:
        if len(values) >= MAX_GAMES:
            raise FourCardsError(f"more than {MAX_GAMES:,} game seeds: a simulation plays at most that many")
        values.append(seed_in_range(value, "a game seed"))
    return np.array(values, dtype=np.uint64)


def policy_codes(policies: Sequence[Any], known: Mapping[str, int]) -> list[int]:
    """The simulator's code of each seat's policy name, :class:`FourCardsError`
    naming the first unknown one (anything but a known string) and its seat.

    >>> policy_codes(["random", "greedy"], {"random": 0, "greedy": 1})
    [0, 1]
    """
    if isinstance(policies, str):  # one name, not a sequence of seats: never seat one bot a letter
        raise InvalidTypeError(f"policies are one name a seat, e.g. {policies.split(',')!r:.80}; "
                               f"got the string {policies[:60]!r}")
    if not isinstance(policies, Iterable):
        raise InvalidTypeError(f"policies must be a sequence of names, one a seat, not {type(policies).__name__}")
    codes = []
    for seat, policy in enumerate(policies):
        code = known.get(policy) if isinstance(policy, str) else None
        if code is None:
            raise FourCardsError(f"unknown policy {policy!r} of seat {seat}; choose from {sorted(known)}")
        codes.append(code)
    return codes


def win_shares(winners: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """Each seat's wins over the rows of a ``(matches, seats)`` winners array,
    a shared win counting 1/k (rows without a winner count for nobody).

    ``winners`` is a 2-D numpy array of bools (or of ints 0 and 1);
    :class:`~fourcards.errors.InvalidTypeError` for another type or dtype,
    :class:`FourCardsError` for another shape or an int other than 0 or 1.

    >>> win_shares(np.array([[True, True], [False, True]]))
    array([0.5, 1.5])
    """
    if not isinstance(winners, np.ndarray):
        raise InvalidTypeError(f"winners must be a (matches, seats) numpy array of bools, "
                               f"not {type(winners).__name__}")
    if winners.dtype.kind not in "biu":
        raise InvalidTypeError(f"winners must be an array of bools, not of {winners.dtype}")
    if winners.ndim != 2:
        raise FourCardsError(f"winners must be a 2-D (matches, seats) array, not {winners.ndim}-D "
                             f"of shape {winners.shape}")
    if winners.dtype.kind != "b" and winners.size and not ((winners == 0) | (winners == 1)).all():
        raise FourCardsError("winners must hold only 0 and 1 (False and True): a seat won a match or not")
    counts = winners.sum(axis=1, keepdims=True)
    share = np.divide(winners, counts, out=np.zeros(winners.shape, dtype=np.float64), where=counts > 0)
    result: npt.NDArray[np.float64] = share.sum(axis=0)
    return result


def option(default: Any, *, low: int | None = None, high: int | None = None,
           choices: Sequence[Any] | None = None) -> Any:
    """A rules field: its default and, checked by :class:`GameRules`, its bounds
    (``low``/``high``, inclusive) or its ``choices``."""
    metadata: dict[str, Any] = {}
    if low is not None:
        metadata["low"] = low
    if high is not None:
        metadata["high"] = high
    if choices is not None:
        metadata["choices"] = tuple(choices)
    return field(default=default, metadata=metadata)


def _conforms(value: Any, hint: Any) -> bool:
    """Whether ``value`` has the type ``hint`` (int, bool, str, float, tuples of those)."""
    if hint is int:
        return type(value) is int
    if hint is bool or hint is str:
        return type(value) is hint
    if hint is float:
        return type(value) in (int, float)
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, tuple):
            return False
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(item, args[0]) for item in value)
        return len(args) == len(value) and all(_conforms(v, a) for v, a in zip(value, args))
    return isinstance(value, hint) if isinstance(hint, type) else True


def _tuples(value: Any, hint: Any) -> Any:
    """``value`` with its lists made tuples wherever ``hint`` (a tuple type) has one:
    what JSON data of a rules field (``rules_dict()`` saved and read back) becomes."""
    if not isinstance(value, list) or typing.get_origin(hint) is not tuple:
        return value
    args = typing.get_args(hint)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_tuples(item, args[0]) for item in value)
    if len(args) == len(value):
        return tuple(_tuples(item, arg) for item, arg in zip(value, args))
    return value


def _type_name(hint: Any) -> str:
    return hint.__name__ if isinstance(hint, type) else str(hint)


def _no_unknown_rules(game: str, rules_type: Any, options: Mapping[str, Any]) -> None:
    """Refuse an option the rules do not have, by name (not the dataclass's TypeError)."""
    if not is_dataclass(rules_type):
        return
    known = [f.name for f in fields(rules_type) if f.init and not f.name.startswith("_")]
    unknown = sorted(str(name) for name in options if name not in known)
    if unknown:
        raise InvalidRulesError(f"unknown rule {', '.join(map(repr, unknown))} for {game}; "
                                f"its rules are {', '.join(known)}")


@dataclass(frozen=True)
class GameRules:
    """Base of every game's frozen rules dataclass: each field is checked
    against its annotated type (``bool`` is not an ``int``) and the bounds or
    choices given with :func:`option`; a game adds cross-field checks in
    :meth:`_check`.  Every failure is an :class:`InvalidRulesError` naming the
    field and the value."""

    _hints: ClassVar[dict[type, dict[str, Any]]] = {}

    def __post_init__(self) -> None:
        cls = type(self)
        hints = GameRules._hints.get(cls)
        if hints is None:
            hints = GameRules._hints[cls] = typing.get_type_hints(cls)
        for f in fields(self):
            value = getattr(self, f.name)
            hint = hints[f.name]
            if isinstance(value, list):  # JSON data (a saved rules_dict): lists where the type has tuples
                value = _tuples(value, hint)
                object.__setattr__(self, f.name, value)
            elif hint is int and isinstance(value, np.integer):  # numpy ints are ints (not np.bool_)
                value = int(value)
                object.__setattr__(self, f.name, value)
            if not _conforms(value, hint):
                raise InvalidRulesError(f"rule {f.name}={value!r} must be {_type_name(hint)}")
            meta = f.metadata
            low, high = meta.get("low"), meta.get("high")
            if (low is not None and value < low) or (high is not None and value > high):
                bounds = (f"from {low} to {high}" if low is not None and high is not None
                          else f"at least {low}" if low is not None else f"at most {high}")
                raise InvalidRulesError(f"rule {f.name}={value!r} must be {bounds}")
            if "choices" in meta and value not in meta["choices"]:
                shown = [repr(c) for c in meta["choices"]]
                listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
                raise InvalidRulesError(f"rule {f.name}={value!r} must be {listed}")
        self._check()

    def _check(self) -> None:
        """Cross-field checks of a game (raise :class:`InvalidRulesError`)."""


@dataclass(frozen=True)
class GameInfo:
    """The facts of a game under one set of rules (see :meth:`Game.info`)."""

    name: str
    title: str
    min_players: int
    max_players: int
    num_players: int
    num_distinct_actions: int
    max_game_length: int
    observation_shape: tuple[int, ...]
    observation_low: float
    observation_high: float
    score_label: str
    score_higher_is_better: bool
    real_time: bool
    deck_upload: bool

    def as_dict(self) -> dict[str, Any]:
        """JSON data (an open bound is None)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["observation_shape"] = list(self.observation_shape)
        for name in ("observation_low", "observation_high"):
            if not math.isfinite(data[name]):
                data[name] = None
        return data


def _signature_with_rules(cls: type) -> inspect.Signature:
    """A game class's signature as ``help()`` and completion show it: its own
    parameters (``rules``, a deck...) and, keyword-only, every field of its
    ``rules_type`` with its type and default (``players: int = 4, ...``)."""
    rules_type: Any = cls.rules_type  # type: ignore[attr-defined]
    own = [p for p in inspect.signature(cls.__init__).parameters.values()  # type: ignore[misc]
           if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"]
    try:
        hints = typing.get_type_hints(rules_type)
    except Exception:  # an annotation that does not resolve: shown as written
        hints = {}
    own = [p.replace(annotation=rules_type | None) if p.name == "rules" else p for p in own]
    taken = {p.name for p in own}
    rules = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(f.name, f.type),
                               default=f.default if f.default is not MISSING else inspect.Parameter.empty)
             for f in fields(rules_type) if f.name not in taken and not f.name.startswith("_")]
    return inspect.Signature(own + rules)


class Game(ABC, Generic[S]):
    """Static facts of a game under one set of rules, and a factory of matches.

    A game is made from a frozen rules object (``rules_type``, with a
    ``players`` field) or from the rules' options as keywords."""

    name: ClassVar[str]
    #: Other names this game's saves may carry (saves of an older fourcards): read, never written.
    former_names: ClassVar[tuple[str, ...]] = ()
    rules_type: ClassVar[type]
    rules: Any

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        former = cls.__dict__.get("former_names", ())
        if not isinstance(former, tuple) or not all(isinstance(name, str) for name in former):
            raise InvalidTypeError(f"{cls.__name__}.former_names must be a tuple of names, not {former!r}")
        if "rules_type" in cls.__dict__:
            # only what help() shows: a game whose rules it cannot read keeps its own signature
            with contextlib.suppress(TypeError, ValueError):
                cls.__signature__ = _signature_with_rules(cls)  # type: ignore[attr-defined]

    def __init__(self, rules: Any = None, **options: Any) -> None:
        if rules is not None and options:
            raise InvalidTypeError("give either a rules object or options, not both")
        if rules is not None and not isinstance(rules, self.rules_type):
            raise InvalidTypeError(f"rules must be a {self.rules_type.__qualname__}, not {type(rules).__name__}")
        if rules is None:
            _no_unknown_rules(getattr(self, "name", type(self).__name__), self.rules_type, options)
        self.rules = rules if rules is not None else self.rules_type(**options)

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return int(self.rules.players)

    @property
    @abstractmethod
    def num_distinct_actions(self) -> int:
        """Size of the integer action space (length of the legal-action mask)."""

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in a match."""

    @property
    @abstractmethod
    def observation_size(self) -> int:
        """Length of ``observation_tensor``."""

    @abstractmethod
    def new_match(self, seed: int, **setup: Any) -> S:
        """A new match, dealt from ``seed``; ``setup`` holds game-specific
        JSON-able choices such as stacked deals (recorded by ``to_json``)."""

    @abstractmethod
    def rules_dict(self) -> dict[str, Any]:
        """The rules as plain JSON data (what ``to_json`` records): every option the
        game was made with, so that ``type(game)(**game.rules_dict())`` (the registry's
        ``new_game``) makes the same game again (a contract test checks it)."""

    # -- facts every consumer reads (OpenSpiel's game type and info) ------------------------
    #: The game's title for people ("Gang of Four"); default: the name in title case.
    title: ClassVar[str] = ""
    #: What :attr:`State.scores` counts, for tables of results ("penalty points").
    score_label: ClassVar[str] = "score"
    #: Whether a higher score is better (False for penalties).
    score_higher_is_better: ClassVar[bool] = True
    #: What a score is counted over in tables of results: ``game``, or ``round``
    #: (then the state has a ``round`` attribute: the rounds played).
    score_unit: ClassVar[str] = "game"
    #: Whether the players act in real time rather than in turns.
    real_time: ClassVar[bool] = False
    #: Whether a table of this game may bring its own deck (a ``deck`` rules field or option).
    deck_upload: ClassVar[bool] = False
    #: Whether ``action_to_string`` depends on the action's integer alone (so its texts may be cached).
    fixed_action_texts: ClassVar[bool] = False
    #: The fields of :meth:`observation_view` that hold what only the observing seat
    #: may know (its hidden cards, or anything derived from them): a spectator's view
    #: (:meth:`spectator_view`) leaves them out. ``("hand",)`` unless the game says more
    #: (or ``()`` when its view holds nothing hidden).
    private_view_fields: ClassVar[tuple[str, ...]] = ("hand",)

    @classmethod
    def player_range(cls) -> tuple[int, int]:
        """The fewest and most seats the rules allow: the ``players`` field's
        bounds (or choices) in :attr:`rules_type`, else its default alone."""
        for f in fields(cls.rules_type):
            if f.name == "players":
                meta = f.metadata
                if "choices" in meta:
                    return min(meta["choices"]), max(meta["choices"])
                default = f.default if isinstance(f.default, int) else 1
                return int(meta.get("low", default)), int(meta.get("high", default))
        return 1, 1

    @property
    def observation_shape(self) -> tuple[int, ...]:
        """The shape of ``observation_tensor`` (flat by default)."""
        return (self.observation_size,)

    def observation_bounds(self) -> tuple[float, float]:
        """``(low, high)`` holding every value of the observation tensor under
        these rules (open, ``(-inf, inf)``, unless the game says more)."""
        return -math.inf, math.inf

    def info(self) -> GameInfo:
        """Every fact of the game under these rules, as one value."""
        low, high = self.player_range()
        bounds = self.observation_bounds()
        return GameInfo(
            name=self.name, title=self.title or self.name.replace("-", " ").title(),
            min_players=low, max_players=high, num_players=self.num_players,
            num_distinct_actions=self.num_distinct_actions, max_game_length=self.max_game_length,
            observation_shape=tuple(self.observation_shape), observation_low=bounds[0], observation_high=bounds[1],
            score_label=self.score_label, score_higher_is_better=self.score_higher_is_better,
            real_time=self.real_time, deck_upload=self.deck_upload,
        )

    # -- views: JSON data of what a seat sees (boardgame.io's player view) --------------------
    def rules_view(self) -> dict[str, Any]:
        """Every rule as JSON data, for people and clients (the rules' fields)."""
        from .views import plain

        data: dict[str, Any] = plain(self.rules)
        return data

    def observation_view(self, observation: Any) -> dict[str, Any]:
        """One seat's observation as JSON data: by default its fields (cards by
        their text; see :mod:`fourcards.views`). Holds only what the
        observation holds, so never another seat's hidden cards."""
        from .views import plain

        data = plain(observation)
        return data if isinstance(data, dict) else {"value": data}

    def spectator_view(self, state: Any) -> dict[str, Any]:
        """What someone who holds no seat may see of ``state``, as JSON data: seat
        0's :meth:`observation_view` without the :attr:`private_view_fields`, without
        any ``legal_*`` field (a seat's options follow from its hand), and with the
        observer (``seat``; ``player`` in a default view without ``seat``) null.

        A game whose view holds a seat's hidden information under another field
        name must list that field in :attr:`private_view_fields` (or override this)."""
        view = dict(self.observation_view(state.observation(0)))
        for name in self.private_view_fields:
            view.pop(name, None)
        for name in [key for key in view if key.startswith("legal_")]:
            del view[name]
        if "seat" not in view and "player" in view:
            view["player"] = None
        view["seat"] = None
        return view

    def record_text(self, record: Any) -> str:
        """A readable line for one history record."""
        from .views import record_text

        return record_text(record)

    def record_view(self, record: Any) -> dict[str, Any]:
        """One history record as JSON data: ``kind``, its fields and ``text``."""
        from .views import fields_view

        data = fields_view(record)
        data["text"] = self.record_text(record)
        return data

    def seat_record_view(self, record: Any, seat: int | None) -> dict[str, Any] | None:
        """What ``seat`` (None: a spectator) may see of one history record, as JSON
        data, or None when it may see none of it. By default every record is
        public (:meth:`record_view` for everyone); a game whose records hold a
        seat's secret overrides this (a per-seat update of
        :mod:`fourcards.hosting` sends each seat only this)."""
        return self.record_view(record)

    def action_view(self, action: Any) -> dict[str, Any]:
        """One readable action (``State.int_to_action``) as JSON data: ``kind``
        and its fields, so a client draws it without parsing its text."""
        from .views import fields_view

        return fields_view(action)

    @staticmethod
    def _no_setup(setup: dict[str, Any]) -> None:
        if setup:
            raise InvalidTypeError(f"unknown match setup {sorted(setup)}")

    def replay(self, seed: int, actions: Iterable[int], **setup: Any) -> S:
        """The match reached from ``seed`` (and ``setup``) by applying ``actions`` in order
        (each refusal names its step and keeps its class: ``InvalidActionError``,
        ``IllegalMoveError``, ...)."""
        if isinstance(actions, (str, bytes)):
            raise InvalidTypeError("actions must be a sequence of actions, not one text (split it into actions)")
        state = self.new_match(seed, **setup)
        for index, action in enumerate(actions):
            try:
                state.apply(action)
            except FourCardsError as error:
                raise type(error)(f"replay step {index}: {error}") from None
        return state

    def from_json(self, text: str | bytes, key: str | bytes | None = None, *, verify: bool = True) -> S:
        """Load a match saved by :meth:`State.to_json` under these rules
        (:func:`fourcards.load` reads the game and its rules from the save itself).

        The digest is always checked (it catches damage, not forgery: anyone
        can recompute it).  With ``key``, the save must also carry the
        HMAC-SHA256 signature ``to_json(key=...)`` made with the same key, so a
        server can hand saves to clients and refuse edited ones.  A signed save
        is refused without its key unless ``verify=False`` (then it is checked
        by replaying its actions, a snapshot too).  A snapshot loads without
        replaying (its signature vouches for it), in time independent of the
        match's length."""
        secret = _key_bytes(key)
        data = read_envelope(text, self.name, self.former_names)
        check_signature(data, secret, verify)
        if not self._same_rules(data["rules"]):
            raise InvalidStateError(
                f"saved match has rules {_short(data['rules'])}, not this game's {_short(self.rules_dict())}"
            )
        return self._from_envelope(data, trusted=secret is not None)

    def _snapshot_constants(self) -> Sequence[Any]:
        """Objects of the game that states share (a deck's cards): a snapshot names
        them by their place here rather than copying them (none by default)."""
        return ()

    def _same_rules(self, rules: Any) -> bool:
        """Whether a save's ``rules`` are this game's (a game may accept an older form too)."""
        return same_json(rules, self.rules_dict())

    def _from_envelope(self, data: dict[str, Any], trusted: bool) -> S:
        """The state of a checked envelope of this game: a snapshot restored as it
        is when ``trusted`` (its signature was checked), else every save replayed."""
        from ._snapshot import restore, snapshot_actions

        try:
            if "snapshot" in data:
                if trusted:
                    state: S = restore(self, data, State)
                    return state
                actions = snapshot_actions(data["snapshot"], self.num_distinct_actions)
            else:
                actions = data["actions"]
            try:
                state = self.replay(data["seed"], actions, **data["setup"])
            except (FourCardsError, TypeError, OverflowError, KeyError, IndexError) as error:
                raise InvalidStateError(f"saved match does not replay: {error}") from None
            if state.summary() != data["summary"]:
                raise InvalidStateError("saved match summary does not match its replay")
        except RecursionError:
            raise InvalidStateError("saved match is nested too deeply") from None
        return state

    # -- positions -------------------------------------------------------------------
    def from_position(self, *, seed: int = 0, **position: Any) -> S:
        """A match set up at a given position, ready to play on: a puzzle, an
        endgame to study, a table a server restores.

        Each game names its keywords after its rules (hands, whose turn, the
        table, the scores, ...; see its ``from_position``).  The position is
        checked in full: impossible cards, a card in two places, a seat off
        the table, a table the rules do not allow, wrong types all raise a
        :class:`~fourcards.errors.FourCardsError` naming the input and the
        reason, and nothing is built.  It is recorded in ``setup`` (as
        ``new_match(seed, position=...)`` takes it), so ``to_json`` and
        ``from_json`` round-trip it; ``seed`` drives what comes later (the
        next rounds' deals).  A game without positions refuses."""
        raise FourCardsError(f"{self.name} cannot be set up from a position")


@runtime_checkable
class Bot(Protocol):
    """A player: picks one of the legal integer actions from an observation.

    It must decide from what the observation shows, never from hidden state.
    A host that keeps no bot between requests (:mod:`fourcards.hosting`) needs
    to know whether it may make the bot again for each decision, so a bot says
    which it is:

    - ``stateless = True`` (a class attribute): its choice depends only on the
      observation, the legal actions and the seed it was made with (and, for a
      search on a clock, on how far it searched in its time); a host makes it
      again (with a seed of its own for each decision) whenever it is to act;
    - or it keeps memory across calls and hands it over as JSON data:
      ``save_memory() -> data`` after a decision and ``load_memory(data)``
      before the next one (a host stores the data with the match and never
      shows it to a client).

    A bot that declares neither is refused by a host (it works everywhere else).
    """

    def choose(self, observation: Any, legal_actions: Sequence[int]) -> int: ...


class State(ABC, Generic[A]):
    """One match in progress (see the module docstring for the contract).

    The bookkeeping lives here, once: the checked :meth:`apply` (with
    :meth:`can_apply` and :meth:`why_illegal` giving the reason), the seat
    check of every method that takes a seat, the action range, the action
    text both ways, the log of records and actions, the step counter,
    :meth:`clone`, and the end-of-game checks.  A game writes its rules in a
    handful of hooks: ``_legal_actions``, ``_why_illegal`` (asked only for an
    in-range action while the game runs), ``_apply`` (only for a legal one;
    it appends records with :meth:`_record` and returns the first),
    ``_action_code`` / ``_int_to_action`` / ``parse_action`` (its readable
    action type), ``_observation`` and ``_observation_tensor``.

    :meth:`clone` is generated once per game class: every slot is shared
    except those named in ``_copied`` (``"list"``: a list of immutable values,
    copied; ``"lists"``: a list of such lists; ``"copy"``: an object with a
    ``copy()`` method, or None; ``"rng"``: the :class:`~fourcards.rng.Rng`).
    """

    __slots__ = ("game", "seed", "setup", "_n", "_n_actions", "_log", "_acts", "_step")

    game: Game[Any]
    seed: int
    setup: dict[str, Any]
    _n: int
    _n_actions: int
    _log: Any  # the records, newest first, as links (see :func:`unroll`): shared by clones
    _acts: Any  # the integer actions, the same way
    _step: int

    _copied: ClassVar[Mapping[str, str]] = {}

    def __init__(self, game: Game[Any], seed: int, setup: dict[str, Any] | None = None) -> None:
        seed = seed_in_range(seed)  # 2**64 would deal seed 0's match, -1 that of 2**64-1
        self.game, self.seed, self.setup = game, seed, {} if setup is None else setup
        self._n = game.num_players
        self._n_actions = game.num_distinct_actions
        self._log = None
        self._acts = None
        self._step = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "clone" not in cls.__dict__:
            cls.clone = _make_clone(cls)  # type: ignore[method-assign,assignment]
        parse = cls.__dict__.get("parse_action")
        if callable(parse) and not getattr(parse, "_names_actions", False):
            cls.parse_action = _parse_checked(parse)  # type: ignore[method-assign,assignment]

    # -- turn and actions ----------------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, or -1 when the match is over."""

    @property
    @abstractmethod
    def is_terminal(self) -> bool: ...

    def legal_actions(self) -> list[int]:
        """The legal integer actions of ``current_player``, sorted ([] once terminal)."""
        return [] if self.is_terminal else self._legal_actions()

    @abstractmethod
    def _legal_actions(self) -> list[int]:
        """The legal actions while the game runs."""

    def legal_actions_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array of ``num_distinct_actions``: True where legal."""
        mask = np.zeros(self._n_actions, dtype=np.bool_)
        mask[self.legal_actions()] = True
        return mask

    # -- the two action layers -------------------------------------------------------
    def action_to_int(self, action: A | int | str) -> int:
        """The integer of ``action``: an int (numpy ints too, ``bool`` refused), the
        game's readable action, or its text as :meth:`action_to_string` prints it;
        :class:`~fourcards.errors.InvalidActionError` for an int outside
        ``0..num_distinct_actions-1``."""
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            if not 0 <= action < self._n_actions:
                raise InvalidActionError(f"{action} is not an action of this game (0..{self._n_actions - 1})")
            return int(action)
        if isinstance(action, (bool, np.bool_)):
            raise InvalidTypeError(f"an action is an int or a {self.game.name} action, not bool")
        try:
            return self._action_code(self.parse_action(action) if isinstance(action, str) else action)
        except (InvalidActionError, InvalidTypeError):  # a wrong type stays one
            raise
        except FourCardsError as error:  # a readable action this game has no integer for
            raise InvalidActionError(str(error)) from None

    def int_to_action(self, action: int) -> A:
        """The readable action of an integer in ``0..num_distinct_actions-1``."""
        if type(action) is not int:
            if not isinstance(action, np.integer) or isinstance(action, np.bool_):
                raise InvalidTypeError(f"an integer action must be an int, not {type(action).__name__}")
            action = int(action)
        if not 0 <= action < self._n_actions:
            raise InvalidActionError(f"{action} is not an action of this game (0..{self._n_actions - 1})")
        return self._int_to_action(action)

    def action_to_string(self, action: A | int | str) -> str:
        """The readable form of an action (its ``repr`` if it is not one of this game's);
        :meth:`apply` and :meth:`action_to_int` accept it back."""
        try:
            return str(self.int_to_action(self.action_to_int(action)))
        except (FourCardsError, TypeError):
            return repr(action)

    @abstractmethod
    def parse_action(self, text: str) -> A:
        """The readable action ``text`` names (what ``str`` of the action prints);
        :class:`~fourcards.errors.InvalidActionError` for text that names none
        (the engine turns a game's own :class:`FourCardsError` into it)."""

    @abstractmethod
    def _action_code(self, action: Any) -> int:
        """The integer of a readable action (TypeError for anything else)."""

    @abstractmethod
    def _int_to_action(self, action: int) -> A:
        """The readable action of an in-range integer."""

    # -- checks --------------------------------------------------------------------
    def check_seat(self, player: Any, name: str = "player") -> int:
        """``player`` checked as a seat of this table: TypeError for a non-int (``bool``
        and floats included), :class:`~fourcards.errors.UnknownSeatError` (an
        :class:`IllegalMoveError`) off the table."""
        return self._seat(player, name)

    def _seat(self, player: Any, name: str = "player") -> int:
        """``player`` checked as a seat of this table (``bool`` refused)."""
        if type(player) is not int:
            if not isinstance(player, np.integer) or isinstance(player, np.bool_):
                raise InvalidTypeError(f"{name} must be an int seat, not {type(player).__name__} {player!r}")
            player = int(player)
        seat: int = player
        if not 0 <= seat < self._n:
            raise UnknownSeatError(f"{name} {seat} is not a seat (0..{self._n - 1})")
        return seat

    def _reason(self, code: int) -> str | None:
        if self.is_terminal:
            return "the game is over"
        if not 0 <= code < self._n_actions:
            return f"{code} is not an action of this game (0..{self._n_actions - 1})"
        return self._why_illegal(code)

    @abstractmethod
    def _why_illegal(self, action: int) -> str | None:
        """Why an in-range ``action`` may not be applied now (None: it may);
        only asked while the game runs."""

    def why_illegal(self, action: A | int | str, player: int | None = None) -> str | None:
        """Why ``apply(action, player)`` would fail (None: it would succeed)."""
        try:
            code = self.action_to_int(action)
            if player is not None and self._seat(player) != self.current_player:
                return f"it is not player {player}'s turn"
        except (FourCardsError, TypeError) as error:
            return str(error)
        return self._reason(code)

    def can_apply(self, action: A | int | str, player: int | None = None) -> bool:
        """Whether ``apply(action, player)`` would succeed."""
        return self.why_illegal(action, player) is None

    def verify(self, action: A | int | str, player: int | None = None, expected_step: int | None = None) -> int:
        """The integer of ``action`` if ``apply`` would take it; else the error ``apply`` raises."""
        if expected_step is not None:
            if type(expected_step) is not int:
                if isinstance(expected_step, (bool, np.bool_)) or not isinstance(expected_step, (int, np.integer)):
                    raise InvalidTypeError(f"expected_step must be an int, not {type(expected_step).__name__}")
                expected_step = int(expected_step)
            if expected_step > self._step:
                raise StaleActionError(f"expected_step {expected_step} is ahead of the match, at step {self._step}: "
                                       "no action was chosen there yet")
            if expected_step != self._step:
                raise StaleActionError(
                    f"action {_short(action)} was chosen at step {expected_step}, but the match is at step "
                    f"{self._step} ({self.describe()})"
                )
        code = action if type(action) is int else self.action_to_int(action)
        if not 0 <= code < self._n_actions:
            raise InvalidActionError(f"{code} is not an action of this game (0..{self._n_actions - 1})")
        seat = None if player is None else self._seat(player)
        if self.is_terminal:
            by = "" if seat is None else f" by player {seat}"
            raise GameOverError(f"{self.action_to_string(code)!r}{by} is refused: the game is over "
                                f"({self.describe()})")
        if seat is not None and seat != self.current_player:
            raise NotYourTurnError(
                f"player {player} tried {self.action_to_string(code)!r} but it is "
                f"player {self.current_player}'s turn ({self.describe()})"
            )
        reason = self._reason(code)
        if reason is not None:
            raise IllegalMoveError(
                f"player {self.current_player} may not {self.action_to_string(code)!r}: "
                f"{reason} ({self.describe()})"
            )
        return code

    @property
    def step(self) -> int:
        """How many actions have been applied: the state's version number."""
        return self._step

    def apply(self, action: A | int | str, player: int | None = None, expected_step: int | None = None) -> Any:
        """Apply ``action`` for ``current_player`` (checked against ``player``
        when given); returns the first record it appended to ``history``.

        ``expected_step`` is the :attr:`step` the caller chose the action on:
        when the state has moved on since, :class:`StaleActionError` is raised.
        Raises (checked in this order) :class:`StaleActionError`,
        :class:`~fourcards.errors.InvalidActionError`,
        :class:`~fourcards.errors.UnknownSeatError`,
        :class:`~fourcards.errors.GameOverError`, :class:`NotYourTurnError` or
        :class:`IllegalMoveError`, and then changes nothing.
        """
        if (type(action) is int and expected_step is None and 0 <= action < self._n_actions
                and (player is None or (type(player) is int and player == self.current_player))
                and not self.is_terminal and self._why_illegal(action) is None):
            # the common case, checked without a detour (the same checks as verify)
            code = action
        else:
            code = self.verify(action, player, expected_step)
        self._acts = (code, self._acts)
        self._step += 1
        return self._apply(code)

    @abstractmethod
    def _apply(self, action: int) -> Any:
        """Apply a legal action (already logged in ``actions``); return its first record."""

    def _record(self, record: R) -> R:
        """Append ``record`` to the history; returns it."""
        self._log = (record, self._log)
        return record

    # -- results ---------------------------------------------------------------------
    @property
    @abstractmethod
    def scores(self) -> tuple[int, ...]:
        """The game's own tally per seat (penalties, points, families or cards:
        each game documents it); :meth:`returns` has one meaning everywhere."""

    @property
    @abstractmethod
    def winners(self) -> tuple[int, ...]:
        """The winning seats once terminal (several for a shared win, none for
        a draw), else ()."""

    def returns(self) -> tuple[float, ...]:
        """One number per seat with the same meaning in every game: at the end,
        the seat's share of the win (1/k to each of k winners, 0 otherwise)
        minus 1/n, so they sum to 0; all zeros before the end and for a draw."""
        n = self._n
        winners = self.winners if self.is_terminal else ()
        if not winners:
            return (0.0,) * n
        share = 1.0 / len(winners)
        return tuple((share if seat in winners else 0.0) - 1.0 / n for seat in range(n))

    @property
    def history(self) -> tuple[Any, ...]:
        """Immutable records of everything that happened, oldest first."""
        return unroll(self._log)

    def recent_history(self, limit: int) -> tuple[Any, ...]:
        """The newest ``limit`` records, oldest first, read without walking the
        whole history (what a server sends after each action)."""
        limit = check_count(limit, "limit")
        items: list[Any] = []
        node = self._log
        while node is not None and len(items) < limit:
            items.append(node[0])
            node = node[1]
        items.reverse()
        return tuple(items)

    def view(self, player: int) -> dict[str, Any]:
        """``player``'s observation as JSON data (:meth:`Game.observation_view`)."""
        return self.game.observation_view(self.observation(player))

    def spectator_view(self) -> dict[str, Any]:
        """The public view of the match, with no seat's hidden cards (:meth:`Game.spectator_view`)."""
        return self.game.spectator_view(self)

    def legal_action_views(self) -> list[dict[str, Any]]:
        """The legal actions as JSON data: ``action`` (the integer), ``text``
        (what :meth:`apply` accepts back) and the action's fields."""
        views = []
        for code in self.legal_actions():
            view = self.game.action_view(self._int_to_action(code))
            view["action"] = code
            view["text"] = self.action_to_string(code)
            views.append(view)
        return views

    @property
    def actions(self) -> tuple[int, ...]:
        """The integer actions applied so far (what ``replay`` needs)."""
        return unroll(self._acts)

    @abstractmethod
    def describe(self) -> str:
        """A one-line public description of the table, for error messages."""

    @abstractmethod
    def summary(self) -> dict[str, Any]:
        """Public facts of the state as JSON data (checked on load)."""

    # -- copies and saves ----------------------------------------------------------
    def clone(self: S) -> S:
        """An independent copy (replaced per game class by a generated one)."""
        raise NotImplementedError  # pragma: no cover - every subclass gets a generated clone

    def __copy__(self: S) -> S:
        return self.clone()

    def __deepcopy__(self: S, memo: object) -> S:
        return self.clone()

    #: The slots that hold links (see :func:`unroll`); a game adds its own.
    _links: ClassVar[tuple[str, ...]] = ("_log", "_acts")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles at any length, with every protocol: the links go flat (no recursion,
        linear time) and are linked again on load, where clones share them as before."""
        values = {name: getattr(self, name) for name in _slot_names(type(self)) if hasattr(self, name)}
        values.update(getattr(self, "__dict__", {}))
        flat = {name: unroll(values.pop(name)) for name in self._links if name in values}
        return _unpickle_state, (type(self), values, flat)

    def to_json(self, key: str | bytes | None = None, *, snapshot: bool = False) -> str:
        """The match as a versioned JSON envelope (game, rules, seed, actions),
        with a SHA-256 digest of its content; with ``key``, also an HMAC-SHA256
        ``signature`` that ``Game.from_json(..., key=key)`` checks.

        ``snapshot=True`` (a ``key`` is then required) saves the state itself
        beside the actions, packed: it loads without replaying, in time
        independent of the match's length (what a service that loads a match
        for every request wants). Every save reveals every hand: it is for the
        server, never for a client."""
        return self._save(_key_bytes(key), check_flag(snapshot, "snapshot"))

    def _save(self, secret: bytes | None, snapshot: bool, cache: Any = None) -> str:
        """:meth:`to_json` with the key's bytes; ``cache`` (a snapshot's
        :class:`~fourcards._snapshot.SnapshotCache`) lets a snapshot encode only what
        was added since the latest one (:class:`fourcards.saves.SnapshotWriter`)."""
        if RESAMPLED in self.setup:
            raise InvalidStateError("a resampled state is a guess at the hidden cards, not a match: "
                                    "it cannot be saved (save the state it was sampled from)")
        body: dict[str, Any] = {
            "format": ENVELOPE_FORMAT,
            "version": ENVELOPE_VERSION,
            "game": self.game.name,
            "rules": self.game.rules_dict(),
            "seed": self.seed,
            "setup": self.setup,
        }
        if snapshot:
            if secret is None:
                raise FourCardsError("a snapshot is accepted only signed: give to_json a key")
            from ._snapshot import snapshot_of

            body["snapshot"] = snapshot_of(self, cache)
        else:
            body["actions"] = list(self.actions)
        body["summary"] = self.summary()
        if cache is not None and snapshot:
            return self._save_spliced(body, secret, cache)
        content = _canonical(body)
        body["digest"] = hashlib.sha256(content).hexdigest()
        if secret is not None:
            body["signature"] = _signature(body, secret, content)
        return json.dumps(body, separators=(",", ":"))

    # -- what a player cannot see ----------------------------------------------------
    def information_set(self: S, player: int) -> InformationSet[S]:
        """The states seat ``player`` cannot tell from this one (see :class:`InformationSet`):
        built once for a position, then :meth:`InformationSet.sample` as often as wanted."""
        seat = self._seat(player)
        deal, write = self._information_set(seat)
        return InformationSet(self, seat, deal, write)

    def resample(self: S, player: int, rng: Rng | int, deadline: float | None = None) -> S:
        """A state seat ``player`` cannot tell from this one, the cards it cannot
        see dealt again uniformly among the deals consistent with everything it
        has seen, and later chance (the next rounds' deals) drawn afresh from
        ``rng`` (a :class:`~fourcards.rng.Rng`, or a seed).  What the seat
        observes (``observation``, ``view``, ``observation_tensor``) is unchanged.
        ``information_set(player).sample(rng)`` draws many from one position at
        the cost of one.  With ``deadline`` (a ``time.perf_counter()`` value), a
        :class:`~fourcards.errors.SamplingCostError` once it passes (a table of
        very many seats can take seconds to count its deals).

        A sample keeps this state's ``seed`` and ``actions`` (``Game.replay`` of
        them is this match, not the sample): hand a player its observation, never
        a sample."""
        return self.information_set(player).sample(rng, deadline)

    def _information_set(self, player: int) -> tuple[Any, Callable[[Any, list[list[int]], Rng], None]]:
        """A game's sampler of what ``player`` cannot see: a
        :class:`~fourcards.sampling.DealSampler` of the hidden cards (or None when
        nothing is hidden from them) and a function writing one of its deals, and
        a generator for later chance, into a copy of the state."""
        raise FourCardsError(f"{self.game.name} does not sample what a seat cannot see")
    @staticmethod
    def _save_spliced(body: dict[str, Any], secret: bytes | None, cache: Any) -> str:
        """The snapshot envelope ``body`` written as :meth:`_save` writes it, but with its links'
        JSON spliced in from ``cache`` (each item encoded once, when it first appeared)."""
        snapshot = body["snapshot"]
        links = snapshot["links"]
        marker = json.dumps(cache.SENTINEL)
        snapshot["links"] = cache.SENTINEL
        try:
            content = _canonical(body)
            if content.count(marker.encode()) != 1:  # cannot happen (no state holds the marker): written whole
                snapshot["links"] = links
                content = _canonical(body)
            else:
                content = content.replace(marker.encode(), cache.links_json(links, True).encode(), 1)
            body["digest"] = hashlib.sha256(content).hexdigest()
            if secret is not None:
                body["signature"] = _signature(body, secret, content)
            text = json.dumps(body, separators=(",", ":"))
        finally:
            snapshot["links"] = links
        if text.count(marker) != 1:
            return json.dumps(body, separators=(",", ":"))
        return text.replace(marker, cache.links_json(links, False), 1)

    # -- what players may know -----------------------------------------------------
    def observation(self, player: int) -> Any:
        """What seat ``player`` knows (the game's observation type)."""
        return self._observation(self._seat(player))

    @abstractmethod
    def _observation(self, player: int) -> Any:
        """The observation of a checked seat."""

    def observation_tensor(
        self, player: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """The observation of ``player`` as ``observation_size`` float32 values,
        written into ``out`` when given (a float32 array of that shape)."""
        seat = self._seat(player)
        buffer = tensor_buffer(out, self.game.observation_size)
        self._observation_tensor(seat, buffer)
        return buffer

    @abstractmethod
    def _observation_tensor(self, player: int, out: npt.NDArray[np.float32]) -> None:
        """Write the observation of a checked seat into a zeroed buffer."""

    def __eq__(self, other: object) -> bool:
        """The same match: game, rules, seed, setup and actions, which make every card
        of a match. A :meth:`resample`'s cards are not its seed's: two samples are equal
        when their contents are (the same seat's samples drawn from equal generators)."""
        if not isinstance(other, State):
            return NotImplemented
        same = (
            type(self) is type(other)
            and self.game.rules_dict() == other.game.rules_dict()
            and self.seed == other.seed
            and self.setup == other.setup
            and self.actions == other.actions
        )
        if not same or RESAMPLED not in self.setup:
            return same
        from ._snapshot import snapshot_of

        try:
            return bool(snapshot_of(self) == snapshot_of(other))
        except FourCardsError:  # a plug-in's state no snapshot names: what every seat and a spectator see
            seats = range(self.game.num_players)
            return (all(self.view(seat) == other.view(seat) for seat in seats)
                    and self.spectator_view() == other.spectator_view())

    __hash__ = None  # type: ignore[assignment]


def _unpickle_state(cls: type[S], values: dict[str, Any], flat: dict[str, tuple[Any, ...]]) -> S:
    """A state from :meth:`State.__reduce__`: its values, and its flattened links linked again."""
    state: S = object.__new__(cls)
    for name, value in values.items():
        setattr(state, name, value)
    for name, items in flat.items():
        node: Any = None
        for item in items:
            node = (item, node)
        setattr(state, name, node)
    return state


def _parse_checked(parse: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    """A game's ``parse_action`` raising :class:`InvalidActionError` for text that
    names no action (whatever :class:`FourCardsError` the game raised, its message kept)."""

    def parse_action(self: Any, text: str) -> Any:
        try:
            return parse(self, text)
        except (InvalidActionError, InvalidTypeError):
            raise
        except FourCardsError as error:
            raise InvalidActionError(str(error)) from None

    parse_action.__name__ = getattr(parse, "__name__", "parse_action")
    parse_action.__qualname__ = getattr(parse, "__qualname__", "parse_action")
    parse_action.__doc__ = parse.__doc__
    parse_action.__wrapped__ = parse  # type: ignore[attr-defined]
    parse_action._names_actions = True  # type: ignore[attr-defined]
    return parse_action


def _make_clone(cls: type[State[Any]]) -> Callable[[Any], Any]:
    """A ``clone`` for ``cls``: straight-line assignments of every slot (as fast
    as a hand-written one), copying the mutable ones ``_copied`` names."""
    slots = _slot_names(cls)
    copied = dict(cls._copied)
    unknown = set(copied) - set(slots)
    if unknown:
        raise InvalidTypeError(f"{cls.__name__}._copied names no slot {sorted(unknown)}")
    lines = ["def clone(self):", "    other = _new(cls)"]
    for name in slots:
        kind = copied.get(name)
        if kind is None:
            lines.append(f"    other.{name} = self.{name}")
        elif kind == "list":
            lines.append(f"    other.{name} = self.{name}[:]")
        elif kind == "lists":
            lines.append(f"    other.{name} = [item[:] for item in self.{name}]")
        elif kind == "copy":
            lines.append(f"    value = self.{name}")
            lines.append(f"    other.{name} = None if value is None else value.copy()")
        elif kind == "rng":
            lines.append("    rng = _new(_Rng)")
            lines.append(f"    rng.state = self.{name}.state")
            lines.append(f"    other.{name} = rng")
        else:
            raise InvalidTypeError(f"{cls.__name__}._copied[{name!r}] = {kind!r}: list, lists, copy or rng")
    lines.append("    return other")
    namespace: dict[str, Any] = {"_new": object.__new__, "cls": cls, "_Rng": Rng}
    exec("\n".join(lines), namespace)  # noqa: S102 - generated from slot names, as dataclasses does
    clone: Callable[[Any], Any] = namespace["clone"]
    clone.__qualname__ = f"{cls.__qualname__}.clone"
    clone.__doc__ = "An independent copy: shares the immutable values and the history links."
    return clone


def _key_bytes(key: str | bytes | None) -> bytes | None:
    if key is None:
        return None
    if isinstance(key, str):
        try:
            key = key.encode()
        except UnicodeEncodeError:  # a lone surrogate (a key read from a broken file name or variable)
            raise FourCardsError("a signing key given as text must be valid Unicode (it holds a lone "
                                 "surrogate): give it as bytes, or fix the text") from None
    if not isinstance(key, bytes):
        raise InvalidTypeError(f"a signing key is str or bytes, not {type(key).__name__}")
    if not key:
        raise FourCardsError("a signing key must not be empty")
    return key


def same_json(saved: Any, expected: Any) -> bool:
    """Whether ``saved`` (read from JSON) is ``expected`` as JSON writes it: ``0`` is not
    ``false`` and ``1.0`` is not ``1`` here, as they are to ``==``.

    >>> same_json({"pass_is_final": 0}, {"pass_is_final": False}), same_json([1], [1])
    (False, True)
    """
    try:
        return json.dumps(saved, sort_keys=True) == json.dumps(expected, sort_keys=True)
    except (TypeError, ValueError):  # not JSON at all
        return False


def _canonical(body: Mapping[str, Any]) -> bytes:
    """What the digest and the signature cover: the body but them, as sorted compact
    JSON; a snapshot's packed ``log`` follows it raw, after a newline (the JSON
    holds none), rather than inside it (a long text is slow to write as JSON)."""
    content = {k: v for k, v in body.items() if k not in ("digest", "signature")}
    snapshot = content.get("snapshot")
    log = snapshot.get("log") if isinstance(snapshot, dict) else None
    if not isinstance(log, str):
        return json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
    content["snapshot"] = {k: v for k, v in snapshot.items() if k != "log"}  # type: ignore[union-attr]
    return (json.dumps(content, sort_keys=True, separators=(",", ":")).encode() + b"\n"
            + log.encode("utf-8", "surrogatepass"))


def _digest(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(_canonical(body)).hexdigest()


def _signature(body: Mapping[str, Any], key: bytes, content: bytes | None = None) -> str:
    """The HMAC-SHA256 of a save: of its content and digest; of a snapshot, of its
    digest alone (the SHA-256 of all its content: the long packed log is hashed once)."""
    digest = str(body["digest"]).encode("utf-8", "surrogatepass")
    if "snapshot" in body:
        return hmac.new(key, b"fourcards-snapshot\0" + digest, hashlib.sha256).hexdigest()
    if content is None:
        content = _canonical(body)
    return hmac.new(key, content + b"\0" + digest, hashlib.sha256).hexdigest()


class _Envelope(dict):  # type: ignore[type-arg]
    """A read envelope, with the bytes its digest covers (checked once, signed over)."""

    content: bytes


def _same(expected: str, given: str) -> bool:
    """A constant-time comparison of two texts (any characters)."""
    return hmac.compare_digest(expected.encode(), given.encode("utf-8", "surrogatepass"))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def read_envelope(text: str | bytes, game: str | None = None, former: tuple[str, ...] = ()) -> dict[str, Any]:
    """A saved match's envelope, checked: JSON, format, version, ``game`` (when
    given: that name, or one of its ``former`` names), the fields' types and the
    digest; the signature is :func:`check_signature`'s. Every refusal is an
    :class:`InvalidStateError`."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise InvalidTypeError(f"a saved match is str or bytes, not {type(text).__name__}")
    try:
        data = json.loads(text)
    except RecursionError:
        raise InvalidStateError("saved match is nested too deeply") from None
    except (TypeError, ValueError) as error:
        raise InvalidStateError(f"saved match is not JSON: {error}") from None
    try:
        return _checked_envelope(data, game, former)
    except RecursionError:
        raise InvalidStateError("saved match is nested too deeply") from None


def _checked_envelope(data: Any, game: str | None, former: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InvalidStateError(f"saved match must be a JSON object, not {type(data).__name__}")
    if data.get("format") != ENVELOPE_FORMAT:
        raise InvalidStateError(f"not a fourcards match (format {_short(data.get('format'))})")
    if type(data.get("version")) is not int or data.get("version") != ENVELOPE_VERSION:  # not true, not 1.0
        raise InvalidStateError(
            f"saved match has version {_short(data.get('version'))}; this fourcards reads {ENVELOPE_VERSION}"
        )
    if game is not None and data.get("game") != game and not (data.get("game") in former
                                                              and isinstance(data.get("game"), str)):
        raise InvalidStateError(f"saved match is of {_short(data.get('game'))}, not {game!r}")
    if not isinstance(data.get("game"), str):
        raise InvalidStateError(f"saved match names no game ({_short(data.get('game'))})")
    expected: dict[str, Callable[[Any], bool]] = {
        "rules": lambda v: isinstance(v, dict),
        "seed": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MASK64,
        "summary": lambda v: isinstance(v, dict),
        "setup": lambda v: isinstance(v, dict),
        "digest": lambda v: isinstance(v, str),
    }
    if "snapshot" in data:
        expected["snapshot"] = lambda v: isinstance(v, dict)
    else:
        expected["actions"] = lambda v: isinstance(v, list) and all(
            isinstance(a, int) and not isinstance(a, bool) for a in v)
    for name, check in expected.items():
        if name not in data or not check(data[name]):
            raise InvalidStateError(f"saved match has a missing or malformed {name!r}")
    if "signature" in data and not isinstance(data["signature"], str):
        raise InvalidStateError("saved match has a malformed 'signature'")
    content = _canonical(data)
    if not _same(hashlib.sha256(content).hexdigest(), data["digest"]):
        raise InvalidStateError("saved match digest does not match its content: it was altered")
    envelope = _Envelope(data)
    envelope.content = content
    return envelope


def check_signature(data: Mapping[str, Any], key: bytes | None, verify: bool = True) -> None:
    """Check a read envelope's signature: with ``key``, it must be there and match;
    without, a signed save is refused unless ``verify`` is False, and a snapshot
    needs a signature whatever ``verify`` says (without the key it is replayed)."""
    signature = data.get("signature")
    if key is not None:
        if not isinstance(signature, str):
            raise InvalidStateError("saved match is not signed, and a signature is required")
        if not _same(_signature(data, key, getattr(data, "content", None)), signature):
            raise InvalidStateError("saved match signature does not match: it was altered or signed with another key")
        return
    if signature is not None and verify:
        raise InvalidStateError("saved match is signed: load it with its key (key=...), or with verify=False "
                                "to load it without checking the signature")
    if signature is None and "snapshot" in data:
        raise InvalidStateError("saved match is an unsigned snapshot: a snapshot is accepted only signed")


class SimultaneousDecision(Generic[A]):
    """Answers collected one player at a time, hidden until all are in.

    >>> d = SimultaneousDecision((2, 0, 1))
    >>> d.current
    2
    >>> d.answer(2, "pass"); d.answered, d.complete
    (1, False)
    >>> d.answer(0, "pong"); d.answer(1, "pass")
    >>> d.complete, d.answers
    (True, {2: 'pass', 0: 'pong', 1: 'pass'})
    """

    __slots__ = ("players", "_answers")

    def __init__(self, players: Sequence[int]) -> None:
        if len(set(players)) != len(players):
            raise FourCardsError(f"players must be distinct, got {tuple(players)}")
        self.players = tuple(players)
        self._answers: dict[int, A] = {}

    @property
    def current(self) -> int:
        """The next player to answer (-1 when complete)."""
        for player in self.players:
            if player not in self._answers:
                return player
        return -1

    @property
    def answered(self) -> int:
        """How many have answered (public: says nothing of what)."""
        return len(self._answers)

    @property
    def complete(self) -> bool:
        return len(self._answers) == len(self.players)

    def answer(self, player: int, choice: A) -> None:
        if player != self.current:
            raise NotYourTurnError(f"player {player} answered, but player {self.current} is asked")
        self._answers[player] = choice

    @property
    def answers(self) -> dict[int, A]:
        """Every answer, in asking order; only once all have answered."""
        if not self.complete:
            raise IllegalMoveError("answers stay hidden until every eligible player has answered")
        return dict(self._answers)

    def answer_of(self, player: int, viewer: int) -> A | None:
        """What ``viewer`` may see of ``player``'s answer: their own, or any once complete."""
        if viewer == player or self.complete:
            return self._answers.get(player)
        return None

    def __getstate__(self) -> tuple[tuple[int, ...], dict[int, A]]:
        return self.players, self._answers

    def __setstate__(self, state: tuple[tuple[int, ...], dict[int, A]]) -> None:
        self.players, self._answers = state[0], dict(state[1])

    def copy(self) -> SimultaneousDecision[A]:
        other: SimultaneousDecision[A] = SimultaneousDecision(self.players)
        other._answers = dict(self._answers)
        return other


#: The ``setup`` key marking a state made by :meth:`State.resample` (the seat it was sampled for).
RESAMPLED = "resampled"


class InformationSet(Generic[S]):
    """The states one seat cannot tell from a given state: the same public
    history and the same cards of its own, the hidden cards anywhere the rules
    and that history allow.  :meth:`sample` draws one uniformly (every
    consistent deal of the hidden cards equally likely), with later chance
    drawn afresh; what the seat observes is unchanged in every sample.

    A sample is a state to play on, search and evaluate, not a match: its
    ``setup`` names the seat it was sampled for, and ``to_json`` refuses it.

    The set is of the position it was made at: it keeps a copy of the state, so
    that moves played on the state afterwards do not reach its samples. Threads
    may share one set (its samples are drawn one at a time): a sample depends
    only on the generator it is drawn with."""

    __slots__ = ("state", "player", "deal", "_write", "_lock")

    def __init__(self, state: S, player: int, deal: Any,
                 write: Callable[[S, list[list[int]], Rng], None]) -> None:
        self.state, self.player, self.deal, self._write = state.clone(), player, deal, write
        self._lock = threading.Lock()

    def __copy__(self) -> InformationSet[S]:
        return InformationSet(self.state, self.player, self.deal, self._write)

    def __deepcopy__(self, memo: dict[int, Any]) -> InformationSet[S]:
        """A copy with its own sampler (and its own lock: a lock is never copied)."""
        return InformationSet(self.state, self.player, copy.deepcopy(self.deal, memo), self._write)

    def sample(self, rng: Rng | int, deadline: float | None = None) -> S:
        """One state of the set (``rng``: a :class:`~fourcards.rng.Rng`, advanced, or a seed);
        with ``deadline`` (a ``time.perf_counter()`` value), a
        :class:`~fourcards.sampling.SamplingCostError` once it passes."""
        deadline = check_deadline(deadline)
        rng = as_rng(rng)
        other = self.state.clone()
        if self.deal is None:
            cards: list[list[int]] = []
        else:
            # the sampler counts its deals once, on its first sample: one thread at a time, and a
            # thread with a deadline waits for another's sample no longer than its deadline
            wait = -1.0 if deadline is None else max(0.0, min(deadline - time.perf_counter(), threading.TIMEOUT_MAX))
            if not self._lock.acquire(timeout=wait):
                raise SamplingCostError("no deal drawn before the deadline (another thread was drawing from this "
                                        "information set)")
            try:
                cards = self.deal.sample(rng, deadline)
            finally:
                self._lock.release()
        self._write(other, cards, rng)
        other.setup = {**self.state.setup, RESAMPLED: self.player}
        return other


def play_match(state: S, bots: Sequence[Bot], max_steps: int | None = None) -> S:
    """Play ``state`` to the end with one bot a seat; returns the state.

    Each bot sees only ``state.observation(seat)`` and the legal actions.
    ``max_steps`` (an int >= 1; default: the game's ``max_game_length``): a
    RuntimeError once that many actions are played and the match is not over.
    """
    if not isinstance(state, State):
        raise InvalidTypeError(f"state must be a fourcards State (game.new_match(seed)), not {type(state).__name__}")
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence):
        raise InvalidTypeError(f"bots must be a sequence of bots, one a seat, not {type(bots).__name__}")
    if len(bots) != state.game.num_players:
        raise InvalidSeatsError(f"{state.game.name} needs {state.game.num_players} bots, got {len(bots)}")
    for seat, bot in enumerate(bots):
        if not callable(getattr(bot, "choose", None)):
            raise InvalidTypeError(f"the bot of seat {seat} has no choose(observation, legal_actions): "
                                   f"{type(bot).__name__}")
    if max_steps is None:
        limit = state.game.max_game_length
    else:
        limit = check_count(max_steps, "max_steps")
        if limit < 1:
            raise FourCardsError(f"max_steps={limit} must be at least 1")
    steps = 0
    while not state.is_terminal:
        if steps >= limit:
            raise RuntimeError(f"the match is not over after {limit} steps (max_steps)")
        player = state.current_player
        legal = state.legal_actions()
        choice = bots[player].choose(state.observation(player), legal)
        state.apply(choice, player)
        steps += 1
    return state
