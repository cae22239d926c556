"""fourcards: play, check and score the "four" family of card games.

Games live in subpackages (:mod:`fourcards.gangoffour`, ...); each game's
compiled core (extensions in its folder, see :mod:`fourcards._backend`) has a
pure-Python twin selected with
``FOURCARDS_NO_EXTENSIONS=1``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._backend import COMPILED
from .errors import (
    BadTokenError,
    FourCardsError,
    GameOverError,
    IllegalMoveError,
    ImpossibleCardsError,
    InvalidActionError,
    InvalidCardError,
    InvalidComboError,
    InvalidRulesError,
    InvalidSeatsError,
    InvalidStateError,
    InvalidTypeError,
    NotYourTurnError,
    SamplingCostError,
    StaleActionError,
    TooCostlyError,
    UnknownGameError,
    UnknownMatchError,
    UnknownSeatError,
)

if TYPE_CHECKING:
    from .engine import State

__version__ = "0.1.0"

__all__ = [
    "COMPILED", "FourCardsError", "IllegalMoveError", "ImpossibleCardsError", "InvalidCardError",
    "InvalidComboError", "InvalidRulesError", "InvalidStateError", "NotYourTurnError", "StaleActionError",
    "InvalidActionError", "GameOverError", "UnknownSeatError", "UnknownGameError", "InvalidSeatsError",
    "UnknownMatchError", "BadTokenError", "TooCostlyError", "SamplingCostError", "InvalidTypeError", "load",
    "__version__",
]


def load(text: str | bytes, key: str | bytes | None = None, *, verify: bool = True) -> State[Any]:
    """The match a save holds (:meth:`fourcards.engine.State.to_json`), of any
    registered game: the game and its full rules are read from the save itself.

    A save carrying a signature is refused without its ``key`` unless
    ``verify=False``; with ``key``, the save must be signed with it. Every bad
    save raises :class:`InvalidStateError` (see :func:`fourcards.saves.load`)."""
    from .saves import load as load_save

    return load_save(text, key, verify=verify)
