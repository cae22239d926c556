"""The game contract every fourcards game implements, and what it shares.

A :class:`Game` holds the static facts of a game under a set of rules
(player count, size of the integer action space, a bound on the length) and
starts matches; a :class:`State` is one match in progress:

- whose turn: ``current_player`` (-1 once ``is_terminal``);
- what may be done: ``legal_actions()`` (sorted ints), ``legal_actions_mask()``
  (0/1 over ``num_distinct_actions``), ``can_apply(action)``;
- doing it: ``apply(action)`` takes an int or the game's readable action type,
  returns the immutable record it appended to ``history``, and raises
  :class:`~fourcards.errors.IllegalMoveError` or
  :class:`~fourcards.errors.NotYourTurnError` leaving the state exactly as it was;
- results: ``scores``, ``winners``;
- copies and saves: ``clone()``, ``to_json()`` / ``Game.from_json()``
  (a versioned envelope naming game and rules, checked on load),
  ``Game.replay(seed, actions)``;
- what a player may know: ``observation(player)`` and
  ``observation_tensor(player, out=buffer)`` with a layout each game documents;
- the two action layers: ``action_to_int`` / ``int_to_action`` /
  ``action_to_string``.

Randomness: every match owns a :class:`~fourcards.rng.Rng` seeded from its
seed; nothing is module-global, and the same seed and actions give the same
match on every platform.

Simultaneous decisions (Four Color claims) are asked one player at a time
through ``current_player``; :class:`SimultaneousDecision` keeps every answer
hidden until all eligible players have answered.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from .errors import FourCardsError, IllegalMoveError, InvalidStateError, NotYourTurnError, StaleActionError
from .rng import MASK64, Rng

__all__ = [
    "Bot", "Game", "State", "SimultaneousDecision", "play_match", "derive_seed", "unroll", "tensor_buffer",
    "ENVELOPE_FORMAT", "ENVELOPE_VERSION",
]

ENVELOPE_FORMAT = "fourcards-match"
ENVELOPE_VERSION = 1

A = TypeVar("A")  # a game's readable action type
S = TypeVar("S", bound="State[Any]")


def unroll(node: Any) -> tuple[Any, ...]:
    """The items of a linked log ``(newest, (older, (..., None)))``, oldest first.

    States keep their history as such links so that ``clone()`` shares it."""
    items = []
    while node is not None:
        items.append(node[0])
        node = node[1]
    items.reverse()
    return tuple(items)


def tensor_buffer(out: npt.NDArray[np.float32] | None, size: int) -> npt.NDArray[np.float32]:
    """A zeroed float32 buffer of ``size`` for an observation tensor: ``out``
    itself (checked, then cleared) or a new array."""
    if out is None:
        return np.zeros(size, dtype=np.float32)
    if out.shape != (size,) or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape ({size},), not {out.dtype} {out.shape}")
    out[:] = 0.0
    return out


def derive_seed(seed: int, stream: int) -> int:
    """An independent 64-bit seed for ``stream`` (a player, a bot, a batch).

    The first output of :class:`~fourcards.rng.Rng` seeded with
    ``seed + stream * 0xD1B54A32D192ED03`` (mod 2**64); the compiled simulator
    derives its per-player streams the same way.

    >>> derive_seed(1, 0) == Rng(1).next_u64()
    True
    """
    return Rng((seed + stream * 0xD1B54A32D192ED03) & MASK64).next_u64()


class Game(ABC, Generic[S]):
    """Static facts of a game under one set of rules, and a factory of matches.

    A game is made from a frozen rules object (``rules_type``, with a
    ``players`` field) or from the rules' options as keywords."""

    name: ClassVar[str]
    rules_type: ClassVar[type]
    rules: Any

    def __init__(self, rules: Any = None, **options: Any) -> None:
        if rules is not None and options:
            raise TypeError("give either a rules object or options, not both")
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
        """The rules as plain JSON data (what ``to_json`` records)."""

    @staticmethod
    def _no_setup(setup: dict[str, Any]) -> None:
        if setup:
            raise TypeError(f"unknown match setup {sorted(setup)}")

    def replay(self, seed: int, actions: Iterable[int], **setup: Any) -> S:
        """The match reached from ``seed`` (and ``setup``) by applying ``actions`` in order."""
        state = self.new_match(seed, **setup)
        for index, action in enumerate(actions):
            try:
                state.apply(action)
            except IllegalMoveError as error:
                raise IllegalMoveError(f"replay step {index}: {error}") from None
        return state

    def from_json(self, text: str | bytes) -> S:
        """Load a match saved by :meth:`State.to_json` under these rules."""
        data = _load_envelope(text, self.name)
        if data["rules"] != self.rules_dict():
            raise InvalidStateError(
                f"saved match has rules {data['rules']}, not this game's {self.rules_dict()}"
            )
        try:
            state = self.replay(data["seed"], data["actions"], **data["setup"])
        except (FourCardsError, TypeError) as error:
            raise InvalidStateError(f"saved match does not replay: {error}") from None
        if state.summary() != data["summary"]:
            raise InvalidStateError("saved match summary does not match its replay")
        return state


@runtime_checkable
class Bot(Protocol):
    """A player: picks one of the legal integer actions from an observation.

    A bot may keep memory across calls; it must decide from what the
    observation shows, never from hidden state.
    """

    def choose(self, observation: Any, legal_actions: Sequence[int]) -> int: ...


class State(ABC, Generic[A]):
    """One match in progress (see the module docstring for the contract)."""

    __slots__ = ()

    game: Game[Any]
    seed: int
    setup: dict[str, Any]

    # -- turn and actions ----------------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, or -1 when the match is over."""

    @property
    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal integer actions of ``current_player``, sorted."""

    def legal_actions_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array of ``num_distinct_actions``: True where legal."""
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.bool_)
        mask[self.legal_actions()] = True
        return mask

    @abstractmethod
    def action_to_int(self, action: A | int) -> int: ...

    @abstractmethod
    def int_to_action(self, action: int) -> A: ...

    def action_to_string(self, action: A | int) -> str:
        """The readable form of an action (its ``repr`` if it is not one of this game's)."""
        try:
            return str(self.int_to_action(self.action_to_int(action)))
        except (FourCardsError, TypeError):
            return repr(action)

    @abstractmethod
    def _why_illegal(self, action: int) -> str | None:
        """Why ``action`` may not be applied now (None: it may)."""

    @abstractmethod
    def _apply(self, action: int) -> Any:
        """Apply a legal action; return its record."""

    def can_apply(self, action: A | int, player: int | None = None) -> bool:
        """Whether ``apply(action, player)`` would succeed."""
        try:
            code = self.action_to_int(action)
        except (ValueError, TypeError):
            return False
        if player is not None and player != self.current_player:
            return False
        return self._why_illegal(code) is None

    @property
    def step(self) -> int:
        """How many actions have been applied: the state's version number."""
        return len(self.actions)

    def apply(self, action: A | int, player: int | None = None, expected_step: int | None = None) -> Any:
        """Apply ``action`` for ``current_player`` (checked against ``player``
        when given); returns the record appended to ``history``.

        ``expected_step`` is the :attr:`step` the caller chose the action on:
        when the state has moved on since, :class:`StaleActionError` is raised.
        Raises :class:`NotYourTurnError` / :class:`IllegalMoveError` and then
        changes nothing.
        """
        if expected_step is not None:
            if not isinstance(expected_step, int) or isinstance(expected_step, bool):
                raise TypeError(f"expected_step must be an int, not {type(expected_step).__name__}")
            if expected_step != self.step:
                raise StaleActionError(
                    f"action {action!r} was chosen at step {expected_step}, but the match is at step "
                    f"{self.step} ({self.describe()})"
                )
        code = self.action_to_int(action)
        if player is not None and player != self.current_player:
            raise NotYourTurnError(
                f"player {player} tried {self.action_to_string(code)!r} but it is "
                f"{'nobody' if self.is_terminal else f'player {self.current_player}'}'s turn"
                f" ({self.describe()})"
            )
        reason = self._why_illegal(code)
        if reason is not None:
            raise IllegalMoveError(
                f"player {self.current_player} may not {self.action_to_string(code)!r}: "
                f"{reason} ({self.describe()})"
            )
        return self._apply(code)

    # -- results ---------------------------------------------------------------------
    @property
    @abstractmethod
    def scores(self) -> tuple[int, ...]: ...

    @property
    @abstractmethod
    def winners(self) -> tuple[int, ...]:
        """The winning seats once terminal (several for a shared win), else ()."""

    def returns(self) -> tuple[float, ...]:
        """One number per seat with the same meaning in every game: at the end,
        the seat's share of the win (1/k to each of k winners, 0 otherwise)
        minus 1/n, so they sum to 0; all zeros before the end and for a draw."""
        n = self.game.num_players
        winners = self.winners if self.is_terminal else ()
        if not winners:
            return (0.0,) * n
        share = 1.0 / len(winners)
        return tuple((share if seat in winners else 0.0) - 1.0 / n for seat in range(n))

    # Subclasses keep ``_log`` (records) and ``_acts`` (integer actions) as
    # linked logs (see :func:`unroll`), shared by clones.
    _log: Any
    _acts: Any

    @property
    def history(self) -> tuple[Any, ...]:
        """Immutable records of everything that happened, oldest first."""
        return unroll(self._log)

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
    @abstractmethod
    def clone(self: S) -> S: ...

    def to_json(self) -> str:
        """The match as a versioned JSON envelope (game, rules, seed, actions)."""
        body = {
            "format": ENVELOPE_FORMAT,
            "version": ENVELOPE_VERSION,
            "game": self.game.name,
            "rules": self.game.rules_dict(),
            "seed": self.seed,
            "setup": self.setup,
            "actions": list(self.actions),
            "summary": self.summary(),
        }
        body["digest"] = _digest(body)
        return json.dumps(body, separators=(",", ":"))

    # -- what players may know -----------------------------------------------------
    @abstractmethod
    def observation(self, player: int) -> Any: ...

    @abstractmethod
    def observation_tensor(
        self, player: int, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]: ...

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return (
            type(self) is type(other)
            and self.game.rules_dict() == other.game.rules_dict()
            and self.seed == other.seed
            and self.setup == other.setup
            and self.actions == other.actions
        )

    __hash__ = None  # type: ignore[assignment]


def _digest(body: Mapping[str, Any]) -> str:
    content = {k: v for k, v in body.items() if k != "digest"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _load_envelope(text: str | bytes, game: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as error:
        raise InvalidStateError(f"saved match is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise InvalidStateError(f"saved match must be a JSON object, not {type(data).__name__}")
    if data.get("format") != ENVELOPE_FORMAT:
        raise InvalidStateError(f"not a fourcards match (format {data.get('format')!r})")
    if data.get("version") != ENVELOPE_VERSION:
        raise InvalidStateError(
            f"saved match has version {data.get('version')!r}; this fourcards reads {ENVELOPE_VERSION}"
        )
    if data.get("game") != game:
        raise InvalidStateError(f"saved match is of {data.get('game')!r}, not {game!r}")
    expected: dict[str, Callable[[Any], bool]] = {
        "rules": lambda v: isinstance(v, dict),
        "seed": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "actions": lambda v: isinstance(v, list)
        and all(isinstance(a, int) and not isinstance(a, bool) for a in v),
        "summary": lambda v: isinstance(v, dict),
        "setup": lambda v: isinstance(v, dict),
        "digest": lambda v: isinstance(v, str),
    }
    for key, check in expected.items():
        if key not in data or not check(data[key]):
            raise InvalidStateError(f"saved match has a missing or malformed {key!r}")
    if _digest(data) != data["digest"]:
        raise InvalidStateError("saved match digest does not match its content: it was altered")
    return data


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
            raise ValueError(f"players must be distinct, got {tuple(players)}")
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

    def copy(self) -> SimultaneousDecision[A]:
        other: SimultaneousDecision[A] = SimultaneousDecision(self.players)
        other._answers = dict(self._answers)
        return other


def play_match(state: S, bots: Sequence[Bot], max_steps: int | None = None) -> S:
    """Play ``state`` to the end with one bot a seat; returns the state.

    Each bot sees only ``state.observation(seat)`` and the legal actions.
    """
    if len(bots) != state.game.num_players:
        raise ValueError(f"{state.game.name} needs {state.game.num_players} bots, got {len(bots)}")
    limit = state.game.max_game_length if max_steps is None else max_steps
    steps = 0
    while not state.is_terminal:
        if steps >= limit:
            raise RuntimeError(f"match exceeded {limit} steps")
        player = state.current_player
        legal = state.legal_actions()
        choice = bots[player].choose(state.observation(player), legal)
        state.apply(choice, player)
        steps += 1
    return state
