"""Many Gang of Four matches at once, stepped in C: one learning seat against built-in bots.

>>> env = VectorGangOfFour(4, seed=1, opponents="greedy")
>>> observations, masks = env.reset()
>>> observations.shape, masks.shape
((4, 217), (4, 12387))
>>> actions = [int(np.flatnonzero(row)[0]) for row in masks]
>>> observations, masks, rewards, dones = env.step(actions)
>>> int(env.steps.sum()) > 4
True

Each call rewrites the instance's buffers (``observations``, ``masks``,
``rewards``, ``dones``) and returns them (read-only views): copy what you keep.

Seeds: env ``i``'s match number ``k`` (``k = 0, 1, ...``: its first match,
then one more at each end of a match and at each ``reset()``) has seed
``derive_seed(derive_seed(seed, i), k)`` (:func:`fourcards.engine.derive_seed`),
so ``GangOfFour(rules).new_match(env.match_seed(i, k))`` is the same match.
In a match with seed ``s`` a ``"random"`` opponent in seat ``p`` plays
``RandomBot(derive_seed(s, p + 1))`` and a ``"greedy"`` one ``GreedyBot()``,
exactly as :func:`fourcards.gangoffour.simulate.simulate` seats them.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._backend import load
from ..engine import check_flag, derive_seed
from ..errors import FourCardsError, IllegalMoveError, InvalidActionError, InvalidRulesError, InvalidTypeError
from ..gangoffour import _kernels
from ..gangoffour.match import OBSERVATION_SIZE, GangOfFour, Rules
from ..gangoffour.simulate import POLICIES
from ..games import BEST
from ..rng import seed_in_range
from .candidates import MAX_CANDIDATES

#: The compiled environment (``fourcards.gangoffour._vector``), or None with the twins.
_vector = load("fourcards.gangoffour._vector")
#: What the compiled environment raises for an illegal step (no step is ever run without it).
_IllegalAction: Any = _vector.IllegalAction if _vector is not None else None

__all__ = ["VectorGangOfFour", "MAX_ENVS", "MAX_THREADS", "MAX_CANDIDATES"]

#: The most matches one instance steps (about 13 KB each with bool masks).
MAX_ENVS = 1 << 16
#: The most threads one step may use.
MAX_THREADS = 64
#: The most envs a thread takes at a time when threads share a step.
STEP_CHUNK = 4

# The jobs of ``GofVector.run``.
_STEP, _RESET, _RESET_NEXT = 0, 1, 2


def _whole(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidTypeError(f"{name} must be an int, not {type(value).__name__}")
    return int(value)


def int_actions(actions: object) -> npt.NDArray[Any]:
    """``actions`` as an integer array: TypeError for floats, and for a bool anywhere
    (``[True, 5]`` would otherwise be taken as ``[1, 5]``)."""
    if isinstance(actions, (list, tuple)) and any(isinstance(a, (bool, np.bool_)) for a in actions):
        raise InvalidTypeError("actions must be integers, not bools")
    if isinstance(actions, np.ma.MaskedArray):  # np.asarray would drop the mask and play what it hides
        raise InvalidTypeError("actions must be a plain array of integers, not a masked array (its mask "
                               "would be ignored): actions.filled(...) or np.asarray(...) says what to play")
    try:
        array = np.asarray(actions)
    except (ValueError, TypeError, OverflowError) as error:  # ragged lists, ...
        raise InvalidTypeError(f"actions must be an array of integers, one an env: {error}") from None
    if array.dtype.kind not in "iu":
        raise InvalidTypeError(f"actions must be integers, not {array.dtype}")
    return array


class VectorGangOfFour:
    """``n`` Gang of Four matches stepped together in C, one or more learning seats in each.

    ``opponents`` names the bots of the other seats (``"random"`` or
    ``"greedy"``; ``"best"`` is ``"greedy"``, the best that moves in C): one
    name for all, or one per seat in seat order, either
    ``players - 1`` names (the learning seat skipped) or ``players`` entries
    with ``None`` at each learning seat; ``opponents=None`` makes every seat
    a learning seat (self-play).  ``rules`` is a
    :class:`~fourcards.gangoffour.match.Rules` (default: 4 players);
    ``seat`` the learning seat whose ``rewards`` and ``final_observations``
    are kept (default: 0, or the first learning seat).

    ``observations`` (``float32 (n, 217)``) hold ``MatchState.observation_tensor(s)``
    at the turn of a learning seat ``s`` (``acting_seats[i]``: always ``seat``
    with one learning seat); ``masks`` its legal actions over
    ``num_actions`` (``bool (n, num_actions)``, or with ``packed_masks=True``
    ``uint8 (n, ceil(num_actions / 8))`` bits in :func:`numpy.packbits` order:
    action ``a`` is bit ``7 - a % 8`` of byte ``a // 8``, so
    ``np.unpackbits(masks, axis=1)[:, :num_actions]`` gives the bools).

    ``candidates=K`` (``K >= 2``) also writes each env's legal actions as
    candidate rows, in the same step: ``candidates`` (``float32 (n, K, 50)``,
    the rows of :func:`fourcards.rl.candidates.candidates` for the acting
    seat, bit for bit: ``K`` of them spread evenly when there are more),
    ``candidate_actions`` (``int32 (n, K)``, their action ids, -1 past the
    count) and ``candidate_counts`` (``int32 (n,)``); rows past the count
    are zeros.  ``candidates=0`` (the default) leaves them empty.

    ``step(actions)`` plays each env's action for its acting seat, then the
    bots until a learning seat is to act again.  When a match ends, ``rewards[i]`` is
    ``MatchState.returns()[seat]`` (the seat's share of the win minus
    ``1 / players``; 0 on other steps), ``final_returns[i]`` every seat's
    ``returns()``, ``dones[i]`` is True, and env ``i``
    has already started its next match: ``observations[i]`` and ``masks[i]``
    are that match's first turn (auto-reset).  Per env counters: ``steps``
    (engine steps, every seat's actions), ``episodes`` (matches finished),
    ``match_steps``, ``final_scores`` and ``final_observations`` (the
    learning seat's observation at its end) of the last finished match,
    ``seeds`` (of the current match).

    The C loops run without the GIL.  One call at a time per instance (a
    second thread entering raises :class:`RuntimeError`); separate instances
    run in parallel in separate threads, and ``threads=k`` splits one
    instance's batch over ``k`` threads.
    """

    def __init__(
        self,
        n: int,
        seed: int = 0,
        opponents: str | Sequence[str | None] | None = "random",
        *,
        rules: Rules | None = None,
        seat: int | None = None,
        packed_masks: bool = False,
        threads: int = 1,
        candidates: int = 0,
    ) -> None:
        if _vector is None:
            raise RuntimeError("VectorGangOfFour needs the compiled kernels (fourcards.gangoffour._vector)")
        n = _whole(n, "n")
        if not 1 <= n <= MAX_ENVS:
            raise FourCardsError(f"n={n}: the number of matches must be 1..{MAX_ENVS}")
        seed = seed_in_range(seed)
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise InvalidTypeError(f"rules must be a gangoffour Rules, not {type(rules).__name__}")
        if seat is not None:
            seat = _whole(seat, "seat")
            if not 0 <= seat < rules.players:
                raise FourCardsError(f"seat={seat} is not a seat of {rules.players} players")
        packed_masks = check_flag(packed_masks, "packed_masks")
        self._threads = self._check_threads(threads)
        candidates = _whole(candidates, "candidates")
        if candidates != 0 and not 2 <= candidates <= MAX_CANDIDATES:
            raise FourCardsError(f"candidates={candidates}: 0 (none) or 2..{MAX_CANDIDATES} rows an env")
        #: Candidate rows an env (0: none).
        self.max_candidates = candidates
        self.rules = rules
        self.game = GangOfFour(rules)
        self.seed = seed
        self.num_envs = n
        self.opponents = self._policy_names(opponents, rules.players, seat)
        #: The learning seats (the seats without a bot).
        self.agent_seats: tuple[int, ...] = tuple(p for p, name in enumerate(self.opponents) if name is None)
        if not self.agent_seats:
            raise FourCardsError(f"opponents={opponents!r} leaves no learning seat: put None at one or more")
        self.seat: int = self.agent_seats[0] if seat is None else seat
        policies = [-1 if name is None else POLICIES[name] for name in self.opponents]
        self.observation_size: int = OBSERVATION_SIZE
        self.packed_masks = packed_masks
        self._started = False
        self._bind(_vector.GofVector(n, seed, _kernels.pack_rules(rules), policies, self.seat, packed_masks,
                                     candidates))

    def _bind(self, core: Any) -> None:
        """Use ``core`` (a ``GofVector``): its buffers, and a finalizer that stops its threads."""
        self._core: Any = core
        self.num_actions: int = self._core.num_actions
        self.observations: npt.NDArray[np.float32] = _read_only(self._core.observations)
        self.final_observations: npt.NDArray[np.float32] = _read_only(self._core.final_observations)
        self.final_returns: npt.NDArray[np.float32] = _read_only(self._core.final_returns)
        self.acting_seats: npt.NDArray[np.int32] = _read_only(self._core.acting_seats)
        self.masks: npt.NDArray[Any] = _read_only(self._core.masks)
        self.rewards: npt.NDArray[np.float32] = _read_only(self._core.rewards)
        self.dones: npt.NDArray[np.bool_] = _read_only(self._core.dones)
        self.steps: npt.NDArray[np.int64] = _read_only(self._core.steps)
        self.episodes: npt.NDArray[np.int64] = _read_only(self._core.episodes)
        self.match_steps: npt.NDArray[np.int64] = _read_only(self._core.match_steps)
        self.final_scores: npt.NDArray[np.int32] = _read_only(self._core.final_scores)
        self.seeds: npt.NDArray[np.uint64] = _read_only(self._core.seeds)
        self.match_numbers: npt.NDArray[np.int64] = _read_only(self._core.match_numbers)
        self.candidates: npt.NDArray[np.float32] = _read_only(self._core.candidates)
        self.candidate_actions: npt.NDArray[np.int32] = _read_only(self._core.candidate_actions)
        self.candidate_counts: npt.NDArray[np.int32] = _read_only(self._core.candidate_counts)
        self._lock = threading.Lock()
        # The helper threads (started by the first call with threads > 1) stop with
        # close(), or when this object is collected, or at exit.
        self._finalizer = weakref.finalize(self, self._core.stop_workers)

    # -- pickling ------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The settings and the compiled matches, pickled whole (the same positions,
        generators, counters and buffers: a loaded copy plays on identically); the
        helper threads are not kept (the next call with ``threads > 1`` starts them)."""
        self._enter()
        try:
            return {name: value for name, value in self.__dict__.items() if name not in _UNPICKLED}
        finally:
            self._lock.release()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind(state["_core"])

    # -- checks ------------------------------------------------------------------------
    @staticmethod
    def _check_threads(threads: object) -> int:
        count = _whole(threads, "threads")
        if not 1 <= count <= MAX_THREADS:
            raise FourCardsError(f"threads={count} must be 1..{MAX_THREADS}")
        return count

    @staticmethod
    def _policy_names(opponents: object, players: int, seat: int | None) -> tuple[str | None, ...]:
        """One entry a seat: a bot's name, or None at a learning seat."""
        if opponents is None:
            names: list[object] = [None] * players
        elif isinstance(opponents, str):
            names = [opponents] * players
            names[0 if seat is None else seat] = None
        elif isinstance(opponents, Sequence):
            names = list(opponents)
            if len(names) == players - 1:
                names.insert(0 if seat is None else seat, None)
            elif len(names) != players:
                raise FourCardsError(
                    f"opponents={opponents!r}: give {players - 1} names (the other seats in order) "
                    f"or {players} with None at each learning seat"
                )
        else:
            raise InvalidTypeError(
                f"opponents must be a name, a sequence of names or None, not {type(opponents).__name__}")
        names = ["greedy" if name == BEST else name for name in names]  # the best policy in C
        for p, name in enumerate(names):
            if name is not None and (not isinstance(name, str) or name not in POLICIES):
                raise InvalidRulesError(f"opponent {name!r} for seat {p}: choose from {sorted(POLICIES)} "
                                        "(None: a learning seat)")
        if seat is not None and names[seat] is not None:
            raise FourCardsError(f"opponents={opponents!r} puts a bot at the learning seat {seat}: "
                                 f"give None there")
        return tuple(None if name is None else str(name) for name in names)

    def _checked_actions(self, actions: object) -> npt.NDArray[np.int64]:
        array = int_actions(actions)
        if array.shape != (self.num_envs,):
            raise FourCardsError(f"actions must have shape ({self.num_envs},), not {array.shape}")
        if array.dtype != np.int64:  # check the range before a cast could wrap a value into it
            out_of_range = np.flatnonzero((array < 0) | (array >= self.num_actions))
            if out_of_range.size:
                raise self._not_an_action(int(out_of_range[0]), int(array[out_of_range[0]]))
        # int64 values out of range are caught with the illegal ones, in C
        return np.ascontiguousarray(array, dtype=np.int64)

    def _illegal(self, env: int, action: int) -> IllegalMoveError:
        """The error for env ``env``'s refused ``action``, with its legal actions."""
        if not 0 <= action < self.num_actions:
            return self._not_an_action(env, action)
        legal = self._core.legal_actions(env)
        shown = ", ".join(str(a) for a in legal[:8].tolist()) + (", ..." if len(legal) > 8 else "")
        return IllegalMoveError(
            f"env {env}: action {action} is not legal for seat {int(self.acting_seats[env])} "
            f"in match seed {int(self.seeds[env])} (legal: {shown})"
        )

    def _not_an_action(self, env: int, action: int) -> IllegalMoveError:
        """An action outside the game (an agent's indexing bug): an :class:`InvalidActionError`,
        as the one-seat environments raise (an :class:`IllegalMoveError` too)."""
        return InvalidActionError(
            f"env {env}: action {action} is not an action of this game (0..{self.num_actions - 1})"
        )

    # -- running ---------------------------------------------------------------------------
    def _run(self, job: int, actions: npt.NDArray[np.int64] | None, threads: int) -> None:
        """Every env's share of a batch.  With several threads, each takes chunks
        of envs from a shared counter until none is left (so a thread that starts
        late costs nothing but its share, which the others do); the helper
        threads live in C between calls, waiting without the GIL."""
        threads = min(threads, self.num_envs)
        chunk = max(1, min(STEP_CHUNK, self.num_envs // (8 * threads)))
        self._core.run(job, actions, threads, chunk)

    def _enter(self) -> None:
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("this VectorGangOfFour is being stepped by another thread; "
                               "use one instance per thread (or threads=k to split a batch)")

    def reset(self, threads: int | None = None) -> tuple[npt.NDArray[np.float32], npt.NDArray[Any]]:
        """Start a new match in every env (the next match number after the first
        call) and play to the learning seat's first turn."""
        count = self._threads if threads is None else self._check_threads(threads)
        self._enter()
        try:
            self._run(_RESET_NEXT if self._started else _RESET, None, count)
            self._started = True
        finally:
            self._lock.release()
        return self.observations, self.masks

    def step(
        self, actions: npt.ArrayLike, threads: int | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[Any], npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Play one action per env (an integer array of shape ``(n,)``) and the bots
        after it; ``(observations, masks, rewards, dones)``.

        Every action is checked before any is played: an illegal one raises
        :class:`~fourcards.errors.IllegalMoveError` naming the env and the action,
        and changes nothing."""
        count = self._threads if threads is None else self._check_threads(threads)
        if not self._started:
            raise FourCardsError("call reset() before step()")  # as the Gymnasium vector env says it
        checked = self._checked_actions(actions)
        self._enter()
        try:
            try:
                self._run(_STEP, checked, count)  # checks every action (a bit test an env) first
            except _IllegalAction as refused:
                raise self._illegal(refused.env, int(checked[refused.env])) from None
        finally:
            self._lock.release()
        return self.observations, self.masks, self.rewards, self.dones

    def legal_actions(self, env: int) -> list[int]:
        """The learning seat's legal actions in env ``env``, sorted."""
        env = _whole(env, "env")
        if not 0 <= env < self.num_envs:
            raise FourCardsError(f"env {env} is not one of 0..{self.num_envs - 1}")
        if not self._started:
            raise FourCardsError("call reset() before legal_actions(): no match has started")
        result: list[int] = self._core.legal_actions(env).tolist()
        return result

    def match_seed(self, env: int, number: int) -> int:
        """The seed of env ``env``'s match number ``number``:
        ``derive_seed(derive_seed(seed, env), number)``."""
        env, number = _whole(env, "env"), seed_in_range(number, "match number")
        if not 0 <= env < self.num_envs:
            raise FourCardsError(f"env {env} is not one of 0..{self.num_envs - 1}")
        return derive_seed(derive_seed(self.seed, env), number)

    def close(self) -> None:
        """Stop the helper threads (if ``threads > 1`` was used); the next call with
        ``threads > 1`` starts them again."""
        self._enter()
        try:
            self._core.stop_workers()
        finally:
            self._lock.release()

    def __enter__(self) -> VectorGangOfFour:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"VectorGangOfFour({self.num_envs}, seed={self.seed}, opponents={self.opponents!r}, "
                f"rules={self.rules!r}, seat={self.seat})")


#: What ``__getstate__`` leaves out: the views of the buffers, the lock and the finalizer.
_UNPICKLED = frozenset({
    "observations", "final_observations", "final_returns", "acting_seats", "masks", "rewards", "dones",
    "steps", "episodes", "match_steps", "final_scores", "seeds", "match_numbers", "_lock", "_finalizer",
})


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    view: npt.NDArray[Any] = array.view()
    view.flags.writeable = False
    return view
