"""What the framework adapters share: games by name, seats as agents, spaces' bounds."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..engine import Game, State
from ..errors import FourCardsError, InvalidActionError, InvalidTypeError, UnknownSeatError
from ..games import GameEntry, get_game
from ..rng import seed_in_range

__all__ = ["make_game", "agent_name", "seat_of", "observation_with_mask", "check_seed", "spiel_seat", "action_int",
           "DEALS", "deal_outcome"]


def make_game(game_name: str, rules: dict[str, Any]) -> tuple[GameEntry, Game[Any]]:
    """The registry entry of ``game_name`` and its game under ``rules``
    (the rules' fields as keywords; ``deck=`` for a game with ``deck_upload``)."""
    entry = get_game(game_name)
    return entry, entry.new_game(**rules)


def agent_name(seat: int) -> str:
    """The agent name of a seat: ``player_0``, ``player_1``, ..."""
    return f"player_{seat}"


def seat_of(agent: str) -> int:
    """The seat of an agent name made by :func:`agent_name`."""
    if not isinstance(agent, str):
        raise InvalidTypeError(f"an agent is a name such as 'player_0', not {type(agent).__name__} {agent!r:.40}")
    prefix, _, number = agent.partition("_")
    if prefix != "player" or not number.isdigit():
        raise FourCardsError(f"{agent!r} is not an agent name (player_0, player_1, ...)")
    return int(number)


def observation_with_mask(state: State[Any], seat: int, size: int,
                          actions: int) -> dict[str, npt.NDArray[Any]]:
    """``{"observation": float32 tensor, "action_mask": int8 mask}`` of ``seat``;
    the mask is all zeros when ``seat`` is not to act."""
    mask = np.zeros(actions, dtype=np.int8)
    if not state.is_terminal and state.current_player == seat:
        mask[state.legal_actions()] = 1
    tensor = state.observation_tensor(seat, out=np.empty(size, dtype=np.float32))
    return {"observation": tensor, "action_mask": mask}


def spiel_seat(player: Any, players: int) -> int:
    """``player`` as a seat of ``players`` for OpenSpiel's observation and information-state
    calls: an int (numpy ints too) 0..players-1. A negative id (the chance player -1 or the
    terminal -4, what ``current_player()`` gives there) is an :class:`UnknownSeatError`:
    read as a Python index it would show another seat's cards."""
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
        raise InvalidTypeError(f"player must be an int, not {type(player).__name__}")
    if not 0 <= player < players:
        raise UnknownSeatError(f"player {int(player)} is not a seat (0..{players - 1}): the chance player and "
                               "a terminal state have no observation")
    return int(player)


def check_seed(seed: object) -> int | None:
    """``seed`` as given to ``reset``: None or an int 0..2**64-1 (:func:`fourcards.rng.seed_in_range`)."""
    return None if seed is None else seed_in_range(seed)


def action_int(action: Any) -> int:
    """An agent's action as an int: an int, a numpy int, or a 0-d integer array (what a
    policy's ``predict`` gives for one observation); TypeError for anything else
    (a bool, a float, a longer array)."""
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action)
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise InvalidTypeError(f"an action is an int of the action space, not {type(action).__name__} {action!r:.60}")
    return int(action)


#: Outcomes of OpenSpiel's chance node that deals a match (the seeds of the engine's shuffles).
DEALS = 1 << 16


def deal_outcome(action: Any) -> int:
    """An outcome of OpenSpiel's deal (its chance node) checked: an int 0..DEALS-1; a larger one
    dealt another seed's match, and one of 2**63 and more a state OpenSpiel could not read back."""
    outcome = action_int(action)
    if not 0 <= outcome < DEALS:
        raise InvalidActionError(f"the deal's outcome is 0..{DEALS - 1} (chance_outcomes()), not {outcome}")
    return outcome


def sampler_seed(sampler: Any) -> int:
    """A 63-bit seed from what OpenSpiel hands ``resample_from_infostate``: a sampler (a
    callable giving a float in [0, 1), as ``pyspiel.UniformProbabilitySampler``), a numpy
    ``Generator``, or None (fresh entropy); anything else, or a draw outside [0, 1), is refused."""
    if sampler is None:
        return int(np.random.default_rng().integers(0, 1 << 63))
    if isinstance(sampler, np.random.Generator):
        return int(sampler.integers(0, 1 << 63))
    if not callable(sampler):
        raise InvalidTypeError(f"a sampler is a callable giving a float in [0, 1) (pyspiel.UniformProbabilitySampler), "
                        f"a numpy Generator or None, not {type(sampler).__name__}")
    draw = sampler()
    if isinstance(draw, bool) or not isinstance(draw, (int, float, np.floating, np.integer)):
        raise FourCardsError(f"the sampler gave {draw!r:.60}, not a float in [0, 1)")
    if not 0.0 <= float(draw) < 1.0:  # NaN fails too
        raise FourCardsError(f"the sampler gave {float(draw)!r}, not a float in [0, 1)")
    return int(float(draw) * 2.0**53)
