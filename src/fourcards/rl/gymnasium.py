"""A single-agent Gymnasium environment: one seat of a game, the other seats bots.

>>> import gymnasium, fourcards.rl
>>> table = gymnasium.make(next(iter(fourcards.rl.GYMNASIUM_IDS)), players=2, opponents="greedy")
>>> observation, info = table.reset(seed=3)
>>> observation["observation"].shape, int(observation["action_mask"].sum()) > 0
((217,), True)

The agent plays ``seat`` (default 0); ``opponents`` names the bots of the
other seats (a kind of :mod:`fourcards.games` such as ``"random"``,
``"greedy"``, ``"search"``, or ``"best"``: the game's best bot that can play
here; with options as ``fourcards tournament`` takes them,
``"search:iterations=200"``; one for all or one per other seat), seeded
from the reset's seed. A search on its clock (``time_per_move``, the default)
does not repeat itself: give it ``iterations`` for episodes a seed repeats.
``action_masks()`` returns the legal actions as bools
(the convention of maskable policy libraries; ``.astype(np.int8)`` for
Gymnasium's ``action_space.sample(mask=...)``). The reward is 0 until the match
ends, then the seat's ``returns()``.

A match that ends before the agent's first turn (a table of many seats
can) is not an episode: ``reset`` deals the next one of the seed's sequence,
and its ``info["skipped_returns"]`` lists the agent's returns of the matches it
passed over. A policy's mean return counts them too (nothing it does changes
them; leaving them out scores it too high).

``observation`` chooses what the agent sees:

- ``"dict"`` (the default): ``{"observation", "action_mask"}`` as in
  :mod:`fourcards.rl.pettingzoo`;
- ``"compact"``: the observation tensor alone, a flat ``Box`` of the game's
  ``observation_size`` floats, the mask from ``action_masks()`` only, so a policy's
  input layer is not as wide as the action space;
- ``"candidates"``: ``{"observation", "candidates", "actions", "count"}``:
  the legal actions as rows of features (:mod:`fourcards.rl.candidates`),
  at most ``max_candidates`` (default 128) rows padded with zeros,
  ``actions`` their action ids (-1 past ``count``); the action space is
  then ``Discrete(max_candidates)``, the index of a row, and
  ``action_masks()`` is True on the first ``count`` rows.  With more legal
  actions than rows, ``max_candidates`` of them spread evenly from the
  first to the last are offered (:func:`~fourcards.rl.candidates.pick_rows`).

An action outside the action space raises
:class:`~fourcards.errors.InvalidActionError` (a bug of the agent, not a move
to score). An illegal action (one the mask rules out) ends the episode with reward
``illegal_reward`` (default -1, below any return) and ``info["illegal_action"]``,
leaving the match as it was; with ``illegal_action="raise"`` it raises
:class:`~fourcards.errors.IllegalMoveError` instead.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, SupportsFloat

import numpy as np
import numpy.typing as npt

from ..engine import Bot, State, derive_seed
from ..errors import FourCardsError, IllegalMoveError, InvalidActionError, InvalidTypeError, MissingExtraError
from ..rng import Rng
from ..tournament import Entrant, parse_entrant
from .._position import shown
from ._common import action_int, check_seed, make_game, observation_with_mask
from .candidates import MAX_CANDIDATES, candidates, feature_bounds, feature_size
from .render import render_text, show
from .spaces import observation_bounds

try:
    import gymnasium
except ModuleNotFoundError as missing:  # the extra is not installed: say which to install
    raise MissingExtraError.of(missing.name or str(missing), "rl", __name__) from missing

__all__ = ["SeatEnv"]

Observation = Any  # a dict of arrays, or one array (observation="compact")
_DEALS_TRIED = 1000
#: The observation kinds of ``SeatEnv(observation=...)``.
OBSERVATIONS = ("dict", "compact", "candidates")


class SeatEnv(gymnasium.Env[Observation, np.int64]):  # type: ignore[misc,unused-ignore]
    """One seat of ``game_name`` (rules as keywords) against bots."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, game_name: str, *, seat: int = 0, opponents: str | Sequence[str] = "random",
                 render_mode: str | None = None, illegal_action: str = "end", illegal_reward: float = -1.0,
                 observation: str = "dict", max_candidates: int = 128, **rules: Any) -> None:
        if observation not in OBSERVATIONS:
            raise FourCardsError(f"observation={observation!r}: one of {', '.join(map(repr, OBSERVATIONS))}")
        if isinstance(max_candidates, bool) or not isinstance(max_candidates, int) or not (
                2 <= max_candidates <= MAX_CANDIDATES):
            raise FourCardsError(f"max_candidates={max_candidates!r:.40} must be an int from 2 to {MAX_CANDIDATES}")
        if illegal_action not in ("end", "raise"):
            raise FourCardsError(f"illegal_action={illegal_action!r:.40}: 'end' (the episode, with illegal_reward) "
                                 "or 'raise'")
        if isinstance(illegal_reward, (bool, np.bool_)) or not isinstance(illegal_reward, (int, float, np.number)):
            raise InvalidTypeError(f"illegal_reward must be a number, not {type(illegal_reward).__name__}")
        if not math.isfinite(illegal_reward):
            raise FourCardsError(f"illegal_reward={illegal_reward!r} must be a finite number")
        if render_mode not in (None, "ansi", "human"):
            raise FourCardsError(f"render_mode={render_mode!r:.40}: fourcards environments render as 'ansi', "
                                 "'human' or None")
        self.entry, self.game = make_game(game_name, rules)
        n = self.game.num_players
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)):
            raise InvalidTypeError(f"seat must be an int, not {type(seat).__name__}")
        if not 0 <= seat < n:
            raise FourCardsError(f"seat={seat!r} is not a seat of {n} players")
        if isinstance(opponents, str):
            specs = [opponents] * (n - 1)
        elif isinstance(opponents, Sequence) and all(isinstance(k, str) for k in opponents):
            specs = list(opponents)
        else:
            raise InvalidTypeError(f"opponents is a bot kind (such as 'greedy' or 'search:iterations=200') or a list "
                                   f"of them, not {type(opponents).__name__} {shown(opponents)}")
        if len(specs) != n - 1:
            wanted = f"one bot, or {n - 1} (one per other seat)" if n > 1 else "one bot kind (no other seat to fill)"
            raise FourCardsError(f"opponents={shown(opponents)}: {wanted}")
        self.seat = int(seat)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._ended = False
        others = [p for p in range(n) if p != self.seat]
        self.opponents: dict[int, Entrant] = {}
        alone = [(None, opponents)] if n == 1 and isinstance(opponents, str) else []  # solitaire: checked too
        for other, spec in [*zip(others, specs), *alone]:
            entrant = parse_entrant(spec)
            kind = self.entry.kind_of(entrant.kind)  # "best": the game's best bot that can play here
            self.entry.new_bot(kind, self.game, 0, **dict(entrant.options))  # refuses a bad option now, not at reset
            if other is not None:
                self.opponents[other] = replace(entrant, kind=kind)
        #: Each other seat's bot kind.
        self.opponent_kinds = {other: entrant.kind for other, entrant in self.opponents.items()}
        self.render_mode = render_mode
        low, high = observation_bounds(self.game)
        size, actions = self.game.observation_size, self.game.num_distinct_actions
        self.observation_kind = observation
        self.max_candidates = max_candidates
        tensor = gymnasium.spaces.Box(low, high, (size,), np.float32)
        self.observation_space: gymnasium.spaces.Space[Any]
        if observation == "compact":
            self.observation_space = tensor
        elif observation == "candidates":
            width = feature_size(self.game)
            row_low, row_high = feature_bounds(self.game)
            self.observation_space = gymnasium.spaces.Dict({
                "observation": tensor,
                "candidates": gymnasium.spaces.Box(row_low, row_high, (max_candidates, width), np.float32),
                "actions": gymnasium.spaces.Box(-1, actions - 1, (max_candidates,), np.int64),
                "count": gymnasium.spaces.Discrete(max_candidates + 1),
            })
        else:
            self.observation_space = gymnasium.spaces.Dict({
                "observation": tensor,
                "action_mask": gymnasium.spaces.Box(0, 1, (actions,), np.int8),
            })
        self.action_space = gymnasium.spaces.Discrete(max_candidates if observation == "candidates" else actions)
        self._actions = np.full(max_candidates, -1, dtype=np.int64)  # the rows' actions (candidates)
        self._seeds: Rng | None = None
        self._bots: dict[int, Bot] = {}
        self._state: State[Any] | None = None
        self._shown = 0
        self._count = 0

    @property
    def match(self) -> State[Any]:
        """The engine state of the match being played (after ``reset``)."""
        if self._state is None:
            raise FourCardsError("call reset() before using the environment")
        return self._state

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """Deal a new match (from ``seed`` when given) and let the bots play up
        to the agent's first turn; a match that ends before it (the bots
        playing it to the end) is skipped for the next one of the seed's
        sequence, and ``info["skipped_returns"]`` lists the agent's returns of the
        matches passed over (see the module docstring). ``options`` is not used."""
        checked = check_seed(seed)  # before Gymnasium's own seeding, which raises its own error
        super().reset(seed=checked)
        if checked is not None:
            self._seeds = Rng(checked)
        elif self._seeds is None:
            self._seeds = Rng(secrets.randbits(64))
        skipped: list[float] = []
        for _ in range(_DEALS_TRIED):
            match_seed = self._seeds.next_u64()
            self._state = self.game.new_match(match_seed)
            self._bots = {seat: self.entry.new_bot(entrant.kind, self.game, derive_seed(match_seed, seat + 1),
                                                   **dict(entrant.options))
                          for seat, entrant in self.opponents.items()}
            self._shown = 0
            self._ended = False
            self._play_bots()
            if not self._state.is_terminal:
                break
            skipped.append(float(self._state.returns()[self.seat]))
        else:
            raise FourCardsError(f"{_DEALS_TRIED} matches in a row ended before seat {self.seat} had a turn")
        return self._observe(), {**self._info(), "skipped_returns": skipped}

    def step(self, action: Any) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play ``action`` for the agent, then the bots until the agent's next
        turn or the end (an illegal action: see the module docstring)."""
        state = self.match
        if state.is_terminal or self._ended:
            raise FourCardsError("the episode is over; call reset()")
        chosen = action_int(action)
        space = self.max_candidates if self.observation_kind == "candidates" else self.game.num_distinct_actions
        if not 0 <= chosen < space:  # an agent's indexing bug, not a move to score
            raise InvalidActionError(f"{chosen} is not in the action space (0..{space - 1})")
        if self.observation_kind == "candidates":  # a row index: its action, or an illegal one
            chosen = int(self._actions[chosen])
            if chosen < 0:
                if self.illegal_action == "raise":
                    raise IllegalMoveError(f"row {action_int(action)} is not one of the {self._count} candidates")
                chosen = self.game.num_distinct_actions  # out of range: refused below
        if self.illegal_action == "end" and not state.can_apply(chosen, self.seat):
            self._ended = True
            info = {**self._info(), "illegal_action": action_int(action)}
            return self._observe(), self.illegal_reward, True, False, info
        state.apply(chosen, self.seat)
        self._play_bots()
        reward = float(state.returns()[self.seat]) if state.is_terminal else 0.0
        return self._observe(), reward, state.is_terminal, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the agent as a bool mask (with
        ``observation="candidates"``: True on the rows that hold one)."""
        if self.observation_kind == "candidates":
            return self._actions >= 0
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.bool_)
        state = self.match
        if not state.is_terminal and state.current_player == self.seat:
            mask[state.legal_actions()] = True
        return mask

    def render(self) -> str | None:  # type: ignore[override,unused-ignore]
        """The new events and the table as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text, self._shown = render_text(self.match, self._shown)
        return show(text, self.render_mode)

    def _play_bots(self) -> None:
        state = self.match
        while not state.is_terminal and state.current_player != self.seat:
            player = state.current_player
            state.apply(self._bots[player].choose(state.observation(player), state.legal_actions()), player)

    def _observe(self) -> Observation:
        state = self.match
        if self.observation_kind == "compact":
            return state.observation_tensor(self.seat, out=np.empty(self.game.observation_size, dtype=np.float32))
        if self.observation_kind == "candidates":
            rows, actions = candidates(state, self.seat, self.max_candidates)
            self._count = count = len(actions)
            padded = np.zeros((self.max_candidates, rows.shape[1]), dtype=np.float32)
            padded[:count] = rows
            self._actions = np.full(self.max_candidates, -1, dtype=np.int64)
            self._actions[:count] = actions
            tensor = state.observation_tensor(self.seat, out=np.empty(self.game.observation_size, dtype=np.float32))
            return {"observation": tensor, "candidates": padded, "actions": self._actions.copy(), "count": count}
        return observation_with_mask(state, self.seat, self.game.observation_size,
                                     self.game.num_distinct_actions)

    def _info(self) -> dict[str, Any]:
        state = self.match
        return {"step": state.step, "scores": tuple(state.scores)} if state.is_terminal else {"step": state.step}
