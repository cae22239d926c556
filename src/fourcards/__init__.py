"""fourcards: play, check and score the "four" family of card games.

Games live in subpackages (:mod:`fourcards.gangoffour`, ...); each game's
compiled core (extensions in its folder, see :mod:`fourcards._backend`) has a
pure-Python twin selected with
``FOURCARDS_NO_EXTENSIONS=1``.
"""

from ._backend import COMPILED
from .errors import (
    FourCardsError,
    IllegalMoveError,
    ImpossibleCardsError,
    InvalidCardError,
    InvalidComboError,
    InvalidRulesError,
    InvalidStateError,
    NotYourTurnError,
    StaleActionError,
)

__version__ = "0.1.0"

__all__ = [
    "COMPILED", "FourCardsError", "IllegalMoveError", "ImpossibleCardsError", "InvalidCardError",
    "InvalidComboError", "InvalidRulesError", "InvalidStateError", "NotYourTurnError", "StaleActionError",
    "__version__",
]
