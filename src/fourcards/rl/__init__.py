"""Reinforcement-learning adapters over the fourcards engines (extra ``fourcards[rl]``).

- :func:`env`: a PettingZoo AEC environment of any turn-based game by its name
  in :mod:`fourcards.games` (every registered game, plug-ins too) with its
  rule options;
- :class:`~fourcards.rl.gymnasium.SeatEnv`: one seat of a game against bots,
  registered with Gymnasium on import as ``fourcards/<Name>-v0`` for every
  game (its name in CamelCase: ``fourcards/MyGame-v0`` for ``my-game``) and
  each of its ``variants`` (``fourcards/MyGameSolitaire-v0``), with the game's
  ``vector_env`` as its ``make_vec`` entry point when it has one;
- names a game exports here (its entry's ``rl_exports``), such as a
  vectorized environment stepping many matches in C, loaded on first use;
- :mod:`fourcards.rl.openspiel_games`: every game of the registry as an
  OpenSpiel Python game (``python_fourcards_<name>``), with
  ``resample_from_infostate``; :mod:`fourcards.rl.openspiel` is Gang of
  Four's own (its chance node, information-state tensor and C rollouts).

Each framework is imported only when its adapter is used, so ``import
fourcards.rl`` works with any of them installed (Gymnasium's ids are registered
when Gymnasium is present).
"""

from __future__ import annotations

from typing import Any

from ..games import GAMES, load_object

__all__ = ["env", "raw_env", "GYMNASIUM_IDS", "gymnasium_ids", "register_gymnasium"]

def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def gymnasium_ids() -> dict[str, tuple[str, dict[str, Any]]]:
    """Every game's Gymnasium id, and the game and rules behind it: one for
    each game and one for each of its ``variants``."""
    ids: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, entry in GAMES.items():
        ids[f"fourcards/{_camel(name)}-v0"] = (name, {})
        for variant, rules in entry.variants.items():
            ids[f"fourcards/{_camel(name)}{_camel(variant)}-v0"] = (name, dict(rules))
    return ids


#: Gymnasium ids registered on import, and the game and rules behind each.
GYMNASIUM_IDS: dict[str, tuple[str, dict[str, Any]]] = gymnasium_ids()


def env(game_name: str, **options: Any) -> Any:
    """A PettingZoo AEC environment of ``game_name`` with ``options``
    (rules, ``render_mode``, ``max_cycles``); see :mod:`fourcards.rl.pettingzoo`."""
    from .pettingzoo import env as make

    return make(game_name, **options)


def raw_env(game_name: str, **options: Any) -> Any:
    """:func:`env` without PettingZoo's order-enforcing wrapper."""
    from .pettingzoo import raw_env as make

    return make(game_name, **options)


def register_gymnasium() -> bool:
    """Register :data:`GYMNASIUM_IDS` with Gymnasium (done on import);
    False when Gymnasium is not installed."""
    try:
        import gymnasium
    except ImportError:
        return False
    from .._backend import COMPILED

    GYMNASIUM_IDS.update(gymnasium_ids())  # plug-ins registered since import
    for env_id, (game_name, rules) in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            # A game's own vector environment steps the matches in compiled code; without it
            # (or without the compiled kernels), make_vec is Gymnasium's SyncVectorEnv over SeatEnv.
            vector = GAMES[game_name].vector_env if COMPILED else None
            gymnasium.register(id=env_id, entry_point="fourcards.rl.gymnasium:SeatEnv",
                               vector_entry_point=vector, kwargs={"game_name": game_name, **rules})
    return True


def __getattr__(name: str) -> Any:
    # The names games export here (their entries' ``rl_exports``), loaded on first use.
    for entry in GAMES.values():
        path = entry.rl_exports.get(name)
        if path is not None:
            try:
                return load_object(path)
            except ImportError as error:
                raise AttributeError(f"fourcards.rl.{name} is not available: {error}") from None
    raise AttributeError(f"module 'fourcards.rl' has no attribute {name!r}")


register_gymnasium()
