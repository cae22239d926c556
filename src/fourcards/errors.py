"""The exceptions fourcards raises.

Every error about bad input is a :class:`FourCardsError`, which is also a
:class:`ValueError`, so ``except ValueError`` keeps working.  Messages name
the input and the reason.  A call that raises one of these changes nothing.

Every :class:`FourCardsError` carries a stable machine-readable ``code``
(:data:`ERROR_CODES` lists them all, with their meaning; the bundled server
sends the same strings), so a service maps errors to answers without reading
messages:

>>> from fourcards.games import get_game
>>> state = get_game("gang-of-four").new_game().new_match(seed=1)
>>> try:
...     state.apply("no such cards")
... except FourCardsError as error:
...     print(type(error).__name__, error.code)
InvalidActionError bad_action
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "FourCardsError",
    "InvalidCardError",
    "ImpossibleCardsError",
    "InvalidComboError",
    "IllegalMoveError",
    "InvalidActionError",
    "NotYourTurnError",
    "StaleActionError",
    "GameOverError",
    "UnknownSeatError",
    "InvalidStateError",
    "InvalidRulesError",
    "MissingExtraError",
    "UnknownGameError",
    "InvalidSeatsError",
    "UnknownMatchError",
    "BadTokenError",
    "TooCostlyError",
    "SamplingCostError",
    "InvalidTypeError",
    "ERROR_CODES",
]


class FourCardsError(ValueError):
    """Base class of every fourcards input error; ``code`` says which kind (:data:`ERROR_CODES`).

    A message longer than 1,000 characters (one that quotes a huge input) keeps its
    start and its end, and a lone surrogate it quotes (from a path or text that is not
    valid Unicode) is escaped, so that the message prints and encodes anywhere:

    >>> len(str(FourCardsError("x" * 10**6))) < 1000
    True
    >>> str(FourCardsError("bad " + chr(0xD800) + " name")) == "bad " + chr(92) + "ud800 name"
    True
    """

    code: str = "bad_request"

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            text = args[0]
            if len(text) > _LONGEST_MESSAGE:
                text = f"{text[:600]} ...({len(text) - 800:,} characters left out)... {text[-200:]}"
            if not text.isascii():
                text = text.encode("utf-8", "backslashreplace").decode("utf-8")
            args = (text,)
        super().__init__(*args)


_LONGEST_MESSAGE: Final = 1000


class InvalidCardError(FourCardsError):
    """Card text (or a card code) that names no card."""

    code = "bad_card"


class ImpossibleCardsError(FourCardsError):
    """A set of cards the deck cannot hold (three ``R7``, two ``M1``, ...)."""

    code = "impossible_cards"


class InvalidComboError(FourCardsError):
    """Cards that exist, but do not form a combination where one is required."""

    code = "bad_combo"


class IllegalMoveError(FourCardsError):
    """An action the rules do not allow in the current state."""

    code = "illegal_action"


class InvalidActionError(IllegalMoveError, InvalidCardError, ImpossibleCardsError, InvalidComboError):
    """An action that names no action of the game: text that does not parse (in
    every game), or an integer outside ``0..num_distinct_actions-1``.

    It is also each class the games raised for such input before (an
    :class:`IllegalMoveError`; in Gang of Four an :class:`InvalidCardError`,
    :class:`ImpossibleCardsError` or :class:`InvalidComboError`), so ``except``
    clauses written for those keep catching it."""

    code = "bad_action"


class NotYourTurnError(IllegalMoveError):
    """An action made by a player who is not the one to act."""

    code = "not_your_turn"


class StaleActionError(IllegalMoveError):
    """An action chosen on an older version of the state (``expected_step`` is behind)."""

    code = "stale"


class GameOverError(IllegalMoveError):
    """An action after the match ended."""

    code = "game_over"


class UnknownSeatError(IllegalMoveError):
    """A seat number that is not a seat of the table (``player=7`` at a table of four)."""

    code = "unknown_seat"


class InvalidStateError(FourCardsError):
    """Saved state that is corrupt, tampered with, unsigned where a signature is required, or unreadable."""

    code = "bad_save"


class InvalidRulesError(FourCardsError):
    """A rules object with an impossible setting (5 players, a negative target, ...)."""

    code = "bad_rules"


class UnknownGameError(FourCardsError):
    """A game name the registry does not know."""

    code = "unknown_game"


class InvalidSeatsError(FourCardsError):
    """Seats a hosted match cannot have: the wrong number, an unknown bot kind, a bot a host cannot keep."""

    code = "bad_seats"


class UnknownMatchError(FourCardsError):
    """A hosted match id that names no stored match."""

    code = "unknown_table"


class BadTokenError(FourCardsError):
    """A seat token that is not the token of that seat of that match."""

    code = "bad_token"


class TooCostlyError(FourCardsError):
    """A valid request that cannot be answered within its bound (of time or of work):
    trying again gives the same answer; a larger bound, or a smaller request, does not."""

    code = "too_costly"


class SamplingCostError(TooCostlyError):
    """A deal of hidden cards that cannot be drawn within its budget: past a deadline,
    or too many ways to deal to count (a table of very many seats). The input is
    valid; the position is too costly to sample exactly. A search falls back to its
    rule bot."""


class InvalidTypeError(FourCardsError, TypeError):
    """A value of the wrong type: a float where an int is needed, ``True`` as an
    action, a str where a sequence of cards is.  Also a :class:`TypeError`
    (``except TypeError`` keeps working) and so, as every :class:`FourCardsError`,
    a :class:`ValueError`.

    >>> from fourcards.games import get_game
    >>> state = get_game("gang-of-four").new_game().new_match(seed=1)
    >>> try:
    ...     state.observation(1.5)
    ... except FourCardsError as error:
    ...     print(error.code, isinstance(error, TypeError), isinstance(error, ValueError))
    bad_type True True
    """

    code = "bad_type"


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

    code = "missing_extra"
    extra: str

    @classmethod
    def of(cls, module: str, extra: str, needed_by: str) -> MissingExtraError:
        """The error for ``needed_by`` missing ``module``, which the extra ``extra`` installs."""
        error = cls(f'{needed_by} needs {module}, which is not installed: pip install "fourcards[{extra}]"',
                    name=module)
        error.extra = extra
        return error


#: Every ``code`` a :class:`FourCardsError` carries, with its meaning (``docs/engine.md``
#: has the same table, with the classes). The strings are the bundled server's
#: (``fourcards.server.protocol.ERROR_CODES``) where it has one for the same case.
ERROR_CODES: Final[dict[str, str]] = {
    "bad_request": "input a function refuses (the base code: a FourCardsError with no more specific one)",
    "bad_card": "text or a code that names no card",
    "impossible_cards": "cards the deck cannot hold together",
    "bad_combo": "cards that do not form a combination where one is required",
    "illegal_action": "the rules do not allow this action now",
    "bad_action": "text or an integer that names no action of the game",
    "not_your_turn": "it is another seat's turn",
    "stale": "the action was chosen on an older version of the state",
    "game_over": "the match is over",
    "unknown_seat": "the seat number is not a seat of the table",
    "bad_save": "a saved match that is corrupt, altered, unsigned where a signature is required, or unreadable",
    "bad_rules": "rules with an impossible setting",
    "bad_deck": "a deck file with problems",
    "unknown_game": "no game has this name",
    "bad_seats": "seats a hosted match cannot have (count, bot kind, a bot that keeps undeclared memory)",
    "unknown_table": "no match (table) has this id",
    "bad_token": "the token is not the token of this seat",
    "missing_extra": "an optional part used without the extra that installs what it needs",
    "bad_type": "a value of the wrong type (an InvalidTypeError, also a TypeError)",
    "too_costly": "a valid request past its bound: hidden cards that cannot be dealt again within the deadline "
                  "or the work bound; a hosted match's bots playing longer than the service allows a request",
}
