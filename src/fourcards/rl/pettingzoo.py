"""PettingZoo AEC environments for every turn-based fourcards game.

>>> from fourcards.games import DEFAULT_GAME
>>> from fourcards.rl import env
>>> table = env(DEFAULT_GAME, players=2)
>>> table.reset(seed=7)
>>> observation, reward, termination, truncation, info = table.last()
>>> sorted(observation), observation["observation"].shape, table.agent_selection in table.agents
(['action_mask', 'observation'], (217,), True)

Agents are the seats, ``player_0`` .. ``player_{n-1}``; the one to act is
``agent_selection`` (the engine's ``current_player``; decisions taken
simultaneously at the table are asked one seat at a time). Each
observation is ``{"observation": float32 tensor, "action_mask": int8 mask}``
from the engine's ``observation_tensor`` and legal actions (the mask is all
zeros for a seat that is not to act). Rewards are 0 until the end, then the
engine's ``returns()``: the seat's share of the win minus 1/n.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import State
from ..errors import FourCardsError, IllegalMoveError, InvalidTypeError, MissingExtraError
from ..rng import Rng
from ._common import action_int, agent_name, check_seed, make_game, observation_with_mask, seat_of
from .render import show
from .render import render_text
from .spaces import observation_bounds

try:
    import gymnasium
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
except ModuleNotFoundError as missing:  # the extra is not installed: say which to install
    raise MissingExtraError.of(missing.name or str(missing), "rl", __name__) from missing

__all__ = ["FourCardsAEC", "env", "raw_env"]


class FourCardsAEC(AECEnv[str, dict[str, npt.NDArray[Any]], int]):  # type: ignore[misc,unused-ignore]
    """One fourcards game as a PettingZoo AEC environment.

    ``game_name``: a name of :mod:`fourcards.games` (any registered game);
    ``rules``: the
    game's rule options (``players=3``, ``target_score=20``, ``mode="solitaire"``,
    ...). ``max_cycles``: truncate every agent once ``max_cycles`` times the
    number of seats moves have been made (None: play to the end).
    ``render_mode``: None, ``"ansi"`` (``render()`` returns the text) or ``"human"``
    (``render()`` prints it).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1, "name": "fourcards_v0",
                "is_parallelizable": False}

    def __init__(self, game_name: str, *, render_mode: str | None = None, max_cycles: int | None = None,
                 **rules: Any) -> None:
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise FourCardsError(f"render_mode={render_mode!r:.40}: fourcards environments render as 'ansi', "
                                 "'human' or None")
        if max_cycles is not None and (not isinstance(max_cycles, (int, np.integer))
                                       or isinstance(max_cycles, (bool, np.bool_))):
            raise InvalidTypeError(f"max_cycles must be a positive int or None, not {type(max_cycles).__name__}")
        if max_cycles is not None and max_cycles < 1:
            raise FourCardsError(f"max_cycles={max_cycles!r} must be a positive int or None")
        self.entry, self.game = make_game(game_name, rules)
        self.render_mode = render_mode
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.metadata = {**self.metadata, "name": f"{self.entry.name.replace('-', '_')}_v0"}
        self.possible_agents = [agent_name(seat) for seat in range(self.game.num_players)]
        low, high = observation_bounds(self.game)
        size, actions = self.game.observation_size, self.game.num_distinct_actions
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Box(low, high, (size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (actions,), np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: gymnasium.spaces.Discrete(actions) for agent in self.possible_agents}
        self._seeds: Rng | None = None
        self._match: State[Any] | None = None
        self._shown = 0

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: Any) -> str:
        """``agent`` checked: one of ``possible_agents`` (a FourCardsError names it otherwise)."""
        seat_of(agent)  # a TypeError for what is no name
        if agent not in self.possible_agents:
            raise FourCardsError(f"{agent!r:.40} is not an agent of this table ({', '.join(self.possible_agents)})")
        return str(agent)

    def __str__(self) -> str:
        return str(self.metadata["name"])

    @property
    def match(self) -> State[Any]:
        """The engine state of the match being played (after ``reset``)."""
        if self._match is None:
            raise FourCardsError("call reset() before using the environment")
        return self._match

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new match: from ``seed`` when given (the same seed, the same
        match), else from a sequence seeded by the last seed given (or at random).
        ``options`` is accepted for the API and not used."""
        checked = check_seed(seed)
        if checked is not None:
            self._seeds = Rng(checked)
        elif self._seeds is None:
            self._seeds = Rng(secrets.randbits(64))
        self._match = self.game.new_match(self._seeds.next_u64())
        self._shown = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = agent_name(self._match.current_player)

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        return observation_with_mask(self.match, seat_of(self._known(agent)), self.game.observation_size,
                                     self.game.num_distinct_actions)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """What the agent to act sees (PettingZoo's ``last``); once every agent is done,
        a FourCardsError says to reset (not a KeyError)."""
        self.match  # noqa: B018  (refuses before reset)
        if not self.agents:
            raise FourCardsError("the episode is over and every agent is done; call reset()")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = super().last(observe)
        return result

    def step(self, action: Any) -> None:
        """Apply ``action`` (an int of the action space) for ``agent_selection``;
        None for an agent that is terminated or truncated. An illegal action
        raises :class:`~fourcards.errors.IllegalMoveError` and changes nothing."""
        state = self.match  # refuses before reset
        if not self.agents:
            raise FourCardsError("the episode is over and every agent is done; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:  # PettingZoo's own check says ValueError; ours names the agent
                raise IllegalMoveError(f"{agent} is done (terminated or truncated): its only action is None, "
                                       f"not {action!r:.40}")
            self._was_dead_step(action)
            return
        state.apply(action_int(action), seat_of(agent))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if state.is_terminal:
            for seat, value in enumerate(state.returns()):
                self.rewards[agent_name(seat)] = float(value)
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            if self.max_cycles is not None and state.step >= self.max_cycles * self.game.num_players:
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = agent_name(state.current_player)
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The new events and the table as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        text, self._shown = render_text(self.match, self._shown)
        return show(text, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


def raw_env(game_name: str, **options: Any) -> FourCardsAEC:
    """The environment without PettingZoo's checking wrappers."""
    return FourCardsAEC(game_name, **options)


def env(game_name: str, **options: Any) -> AECEnv[str, dict[str, npt.NDArray[Any]], int]:
    """A PettingZoo AEC environment of ``game_name`` (see :class:`FourCardsAEC`),
    wrapped in PettingZoo's order-enforcing wrapper (``.unwrapped`` is the
    :class:`FourCardsAEC`)."""
    wrapped: AECEnv[str, dict[str, npt.NDArray[Any]], int] = OrderEnforcingWrapper(raw_env(game_name, **options))
    return wrapped
