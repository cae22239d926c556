"""Reinforcement-learning adapters over the fourcards engines (extra ``fourcards[rl]``).

- :func:`env`: a PettingZoo AEC environment of any turn-based game by its name
  in :mod:`fourcards.games` (``gang-of-four``, ``four-color``, ``zangle``,
  ``four-pack``, ``duelo``) with its rule options;
- :class:`~fourcards.rl.gymnasium.SeatEnv`: one seat of a game against bots,
  registered with Gymnasium on import as ``fourcards/GangOfFour-v0`` etc.;
- :mod:`fourcards.rl.openspiel`: Gang of Four as an OpenSpiel Python game
  (``pyspiel.load_game("python_fourcards_gang_of_four")`` after
  :func:`fourcards.rl.openspiel.register`);
- :class:`~fourcards.rl.vector.VectorGangOfFour`: many Gang of Four matches
  stepped together in C for one learning seat against built-in bots (needs
  the compiled kernels, no framework).

Each framework is imported only when its adapter is used, so ``import
fourcards.rl`` works with any of them installed (Gymnasium's ids are registered
when Gymnasium is present).
"""

from __future__ import annotations

from typing import Any

__all__ = ["env", "raw_env", "GYMNASIUM_IDS", "register_gymnasium"]

#: Gymnasium ids registered on import, and the game and rules behind each.
GYMNASIUM_IDS: dict[str, tuple[str, dict[str, Any]]] = {
    "fourcards/GangOfFour-v0": ("gang-of-four", {}),
    "fourcards/FourColor-v0": ("four-color", {}),
    "fourcards/Zangle-v0": ("zangle", {}),
    "fourcards/ZangleSolitaire-v0": ("zangle", {"mode": "solitaire"}),
    "fourcards/FourPack-v0": ("four-pack", {}),
    "fourcards/Duelo-v0": ("duelo", {}),
}


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

    for env_id, (game_name, rules) in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            # Gang of Four's make_vec steps the matches in C (fourcards.rl.gymnasium_vector);
            # without the compiled kernels it is Gymnasium's SyncVectorEnv over SeatEnv.
            vector = ("fourcards.rl.gymnasium_vector:GangOfFourVectorEnv"
                      if game_name == "gang-of-four" and COMPILED else None)
            gymnasium.register(id=env_id, entry_point="fourcards.rl.gymnasium:SeatEnv",
                               vector_entry_point=vector, kwargs={"game_name": game_name, **rules})
    return True


def __getattr__(name: str) -> Any:
    # Room for the vectorized environment (``fourcards.rl.vector``), loaded on first use.
    if name == "VectorGangOfFour":
        try:
            from .vector import VectorGangOfFour  # type: ignore[import-not-found,unused-ignore]
        except ImportError as error:
            raise AttributeError(f"fourcards.rl.VectorGangOfFour is not available: {error}") from None
        return VectorGangOfFour
    raise AttributeError(f"module 'fourcards.rl' has no attribute {name!r}")


register_gymnasium()
