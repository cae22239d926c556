"""Gymnasium's vector API over :class:`~fourcards.rl.vector.VectorGangOfFour`.

``gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=n)`` gives this
environment: ``n`` matches stepped in C (not ``n`` copies of
:class:`~fourcards.rl.gymnasium.SeatEnv` in a Python loop), with the spaces of
``SeatEnv`` so that a policy trained on one runs on the other.

>>> import gymnasium, fourcards.rl
>>> envs = gymnasium.make_vec("fourcards/GangOfFour-v0", num_envs=4, opponents="greedy", players=2)
>>> observations, infos = envs.reset(seed=7)
>>> observations["observation"].shape, observations["action_mask"].shape
((4, 217), (4, 12387))
>>> actions = [int(row.nonzero()[0][0]) for row in observations["action_mask"]]
>>> observations, rewards, terminations, truncations, infos = envs.step(actions)
>>> envs.close()

- Observations are ``{"observation": float32 (n, 217), "action_mask": int8 (n,
  num_actions)}``; ``action_masks()`` gives the masks as bools (maskable
  policy libraries ask for that).
- ``reset(seed=s)`` restarts every env: env ``i``'s matches are those of
  ``VectorGangOfFour(n, seed=s)`` (``env.vector.match_seed(i, k)`` rebuilds
  any of them); ``reset()`` without a seed moves every env to its next match.
- Autoreset in the same step (``AutoresetMode.SAME_STEP``, as
  ``SyncVectorEnv(autoreset_mode=SAME_STEP)``): when an env's match ends, its
  reward and termination report it, its observation is already the next
  match's first turn, and ``infos["final_obs"][i]`` holds the learning seat's
  observation at the end (its mask all zeros), ``infos["final_info"]`` the
  final ``scores`` and ``match_steps``.  Matches always end: truncations are
  all False.
- ``observation="compact"`` or ``"candidates"`` (``max_candidates=K``,
  default 128) give the observations of ``SeatEnv`` with that option: the
  tensors alone (``(n, 217)``, masks from ``action_masks()``), or the
  candidate rows written in C (``candidates (n, K, 50)``, ``actions (n, K)``,
  ``count (n,)``) with a row index as each env's action.
- An action the mask rules out raises
  :class:`~fourcards.errors.IllegalMoveError` naming the env, and no env moves;
  one outside the action space, :class:`~fourcards.errors.InvalidActionError`
  (an :class:`~fourcards.errors.IllegalMoveError` too), as ``SeatEnv`` does.
- ``copy=True`` (the default, as Gymnasium's vector environments) returns
  fresh arrays; ``copy=False`` returns read-only views of the C buffers,
  rewritten by the next call.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import check_flag
from ..errors import FourCardsError, MissingExtraError, IllegalMoveError, InvalidActionError, InvalidRulesError
from ..gangoffour.match import Rules
from ._common import check_seed
from .spaces import observation_bounds
from .vector import VectorGangOfFour, int_actions

try:
    import gymnasium
    from gymnasium.vector import AutoresetMode
    from gymnasium.vector.utils import batch_space
except ModuleNotFoundError as missing:  # the extra is not installed: say which to install
    raise MissingExtraError.of(missing.name or str(missing), "rl", __name__) from missing

__all__ = ["GangOfFourVectorEnv"]

Observations = dict[str, npt.NDArray[Any]]


class GangOfFourVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[misc,unused-ignore]
    """``num_envs`` Gang of Four matches for one learning seat against bots, stepped in C.

    It takes ``SeatEnv``'s keywords but ``illegal_reward``: ``render_mode`` only None,
    ``illegal_action`` only ``"raise"`` (an illegal action raises and no env moves).

    ``opponents`` is ``"random"``, ``"greedy"`` or ``"best"`` (``"greedy"`` here:
    the best bot that moves in C; one name, or one per other seat); ``seat``
    the learning seat; ``threads`` splits each step over that many threads;
    the other keywords are :class:`~fourcards.gangoffour.match.Rules` fields
    (``players``, ``target_score``, ...)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, *, game_name: str = "gang-of-four", seat: int = 0,
                 opponents: str | Sequence[str | None] = "random", threads: int = 1, copy: bool = True,
                 observation: str = "dict", max_candidates: int = 128, render_mode: str | None = None,
                 illegal_action: str = "raise", **rules: Any) -> None:
        if render_mode is not None:
            raise FourCardsError(f"render_mode={render_mode!r:.40}: the vector environment renders nothing "
                                 "(render one SeatEnv to watch a match)")
        if illegal_action != "raise":
            raise FourCardsError(f"illegal_action={illegal_action!r:.40}: in the vector environment an illegal "
                                 "action always raises IllegalMoveError naming the env, and no env moves")
        if "illegal_reward" in rules:
            raise FourCardsError("illegal_reward: in the vector environment an illegal action raises (no reward)")
        if game_name != "gang-of-four":
            raise FourCardsError(f"game_name={game_name!r}: the vectorized environment plays gang-of-four only")
        if observation not in ("dict", "compact", "candidates"):
            raise FourCardsError(f"observation={observation!r}: 'dict', 'compact' or 'candidates'")
        if isinstance(max_candidates, bool) or not isinstance(max_candidates, int) or max_candidates < 2:
            raise FourCardsError(f"max_candidates={max_candidates!r} must be an int of at least 2")
        self.observation_kind = observation
        self.max_candidates = max_candidates if observation == "candidates" else 0
        copy = check_flag(copy, "copy")
        unknown = sorted(set(rules) - {field.name for field in dataclasses.fields(Rules)})
        if unknown:
            raise InvalidRulesError(f"unknown rule {unknown[0]!r} of gang-of-four; the rules: "
                                    f"{', '.join(field.name for field in dataclasses.fields(Rules))}")
        self.rules = Rules(**rules)
        self.opponents, self.seat, self.threads = opponents, seat, threads
        self.vector = self._new_vector(num_envs, secrets.randbits(64))
        if len(self.vector.agent_seats) != 1:
            raise InvalidRulesError(f"opponents={opponents!r}: Gymnasium's vector API is one learning seat "
                                    "against bots; for self-play use fourcards.rl.VectorGangOfFour directly")
        self.num_envs = self.vector.num_envs
        self.copy = copy
        game = self.vector.game
        low, high = observation_bounds(game)
        tensor = gymnasium.spaces.Box(low, high, (game.observation_size,), np.float32)
        self.single_observation_space: gymnasium.spaces.Space[Any]
        if observation == "compact":
            self.single_observation_space = tensor
        elif observation == "candidates":
            k = self.max_candidates
            self.single_observation_space = gymnasium.spaces.Dict({
                "observation": tensor,
                "candidates": gymnasium.spaces.Box(0.0, 2.0, (k, self.vector.candidates.shape[2]), np.float32),
                "actions": gymnasium.spaces.Box(-1, self.vector.num_actions - 1, (k,), np.int64),
                "count": gymnasium.spaces.Discrete(k + 1),
            })
        else:
            self.single_observation_space = gymnasium.spaces.Dict({
                "observation": tensor,
                "action_mask": gymnasium.spaces.Box(0, 1, (self.vector.num_actions,), np.int8),
            })
        self.single_action_space = gymnasium.spaces.Discrete(self.max_candidates or self.vector.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._started = False
        self._no_truncations = np.zeros(self.num_envs, dtype=np.bool_)

    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observations, dict[str, Any]]:
        """Start a match in every env (from ``seed``: see the module docstring).
        ``options`` is not used."""
        if isinstance(seed, list):
            raise FourCardsError("seed must be one int for all the envs (env i's matches derive from it), "
                                 "not a list")
        checked = check_seed(seed)
        if checked is not None:  # a bad seed is refused here, before anything changes
            old, self.vector = self.vector, self._new_vector(self.num_envs, checked)
            old.close()
        super().reset(seed=checked)
        self.vector.reset()
        self._started = True
        return self._observations(), {}

    def step(self, actions: npt.ArrayLike) -> tuple[Observations, npt.NDArray[np.float64],
                                                    npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        """One action per env (the learning seat's), then the bots to its next turn."""
        if not self._started:
            raise FourCardsError("call reset() before step()")
        vector = self.vector
        if self.max_candidates:
            rows = int_actions(actions)
            if rows.shape != (self.num_envs,):
                raise FourCardsError(f"actions must be {self.num_envs} row indices (ints)")
            outside = np.flatnonzero((rows < 0) | (rows >= self.max_candidates))
            if outside.size:  # an agent's indexing bug, as the one-seat environment says
                raise InvalidActionError(f"env {int(outside[0])}: row {int(rows[outside[0]])} is not in the action "
                                         f"space (0..{self.max_candidates - 1})")
            bad = np.flatnonzero(rows >= vector.candidate_counts)
            if bad.size:
                raise IllegalMoveError(f"env {int(bad[0])}: row {int(rows[bad[0]])} is not one of its "
                                       f"{int(vector.candidate_counts[bad[0]])} candidates")
            actions = vector.candidate_actions[np.arange(self.num_envs), rows].astype(np.int64)
        vector.step(actions)
        infos: dict[str, Any] = {}
        for i in np.flatnonzero(vector.dones).tolist():
            final: Any = vector.final_observations[i].copy()
            if self.observation_kind == "dict":
                final = {"observation": final, "action_mask": np.zeros(vector.num_actions, dtype=np.int8)}
            elif self.observation_kind == "candidates":  # the match is over: no candidates
                k = self.max_candidates
                final = {"observation": final, "candidates": np.zeros_like(vector.candidates[i]),
                         "actions": np.full(k, -1, dtype=np.int64), "count": 0}
            details = {"scores": tuple(int(s) for s in vector.final_scores[i]),
                       "match_steps": int(vector.match_steps[i])}
            infos = self._add_info(infos, {"final_obs": final, "final_info": details}, i)
        return (self._observations(), vector.rewards.astype(np.float64), vector.dones.copy(),
                self._no_truncations.copy(), infos)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The learning seat's legal actions in each env, as bools ``(num_envs, num_actions)``
        (``observation="candidates"``: ``(num_envs, K)``, True on the rows that hold one)."""
        if self.max_candidates:
            counts = self.vector.candidate_counts
            rows: npt.NDArray[np.bool_] = np.arange(self.max_candidates)[None, :] < counts[:, None]
            return rows
        masks: npt.NDArray[np.bool_] = self.vector.masks.copy()
        return masks

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the C environment's helper threads."""
        self.vector.close()

    def _new_vector(self, num_envs: int, seed: int) -> VectorGangOfFour:
        return VectorGangOfFour(num_envs, seed, self.opponents, rules=self.rules, seat=self.seat,
                                threads=self.threads, candidates=self.max_candidates)

    def _observations(self) -> Any:
        vector = self.vector
        if self.observation_kind == "compact":
            return vector.observations.copy() if self.copy else vector.observations
        if self.observation_kind == "candidates":
            views: dict[str, npt.NDArray[Any]] = {"observation": vector.observations, "candidates": vector.candidates,
                                                  "actions": vector.candidate_actions.astype(np.int64),
                                                  "count": vector.candidate_counts.astype(np.int64)}
            return {key: value.copy() for key, value in views.items()} if self.copy else views
        observations, masks = self.vector.observations, self.vector.masks.view(np.int8)
        if self.copy:
            return {"observation": observations.copy(), "action_mask": masks.copy()}
        return {"observation": observations, "action_mask": masks}

    def __repr__(self) -> str:
        return (f"GangOfFourVectorEnv({self.num_envs}, opponents={self.opponents!r}, seat={self.seat}, "
                f"rules={self.rules!r})")
