"""The exceptions fourcards raises.

Every error about bad input is a :class:`FourCardsError`, which is also a
:class:`ValueError`, so ``except ValueError`` keeps working.  Messages name
the input and the reason.  A call that raises one of these changes nothing.
"""

from __future__ import annotations

__all__ = [
    "FourCardsError",
    "InvalidCardError",
    "ImpossibleCardsError",
    "InvalidComboError",
    "IllegalMoveError",
    "NotYourTurnError",
    "StaleActionError",
    "InvalidStateError",
    "InvalidRulesError",
    "MissingExtraError",
]


class FourCardsError(ValueError):
    """Base class of every fourcards input error."""


class InvalidCardError(FourCardsError):
    """Card text (or a card code) that names no card."""


class ImpossibleCardsError(FourCardsError):
    """A set of cards the deck cannot hold (three ``R7``, two ``M1``, ...)."""


class InvalidComboError(FourCardsError):
    """Cards that exist, but do not form a combination where one is required."""


class IllegalMoveError(FourCardsError):
    """An action the rules do not allow in the current state."""


class NotYourTurnError(IllegalMoveError):
    """An action made by a player who is not the one to act."""


class StaleActionError(IllegalMoveError):
    """An action chosen on an older version of the state (``expected_step`` is behind)."""


class InvalidStateError(FourCardsError):
    """Saved state that is corrupt, tampered with, or for another game."""


class InvalidRulesError(FourCardsError):
    """A rules object with an impossible setting (5 players, a negative target, ...)."""


class MissingExtraError(ModuleNotFoundError, FourCardsError):
    """A part of fourcards used without the optional dependencies it needs: names
    the extra to install (``pip install "fourcards[rl]"``).  Also an
    :class:`ImportError` (``except ImportError`` keeps working) and a
    :class:`FourCardsError`.

    >>> error = MissingExtraError.of("gymnasium", "rl", "fourcards.rl.gymnasium")
    >>> print(error)
    fourcards.rl.gymnasium needs gymnasium, which is not installed: pip install "fourcards[rl]"
    >>> isinstance(error, ImportError), error.extra, error.name
    (True, 'rl', 'gymnasium')
    """

    extra: str

    @classmethod
    def of(cls, module: str, extra: str, needed_by: str) -> MissingExtraError:
        """The error for ``needed_by`` missing ``module``, which the extra ``extra`` installs."""
        error = cls(f'{needed_by} needs {module}, which is not installed: pip install "fourcards[{extra}]"',
                    name=module)
        error.extra = extra
        return error
