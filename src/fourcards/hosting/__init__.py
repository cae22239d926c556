"""Hosting matches in your own service: load, act, run the bots, save, answer the seat.

A web service that keeps no match in memory between requests does, for each
request (``docs/embedding.md`` shows a whole Starlette service):

1. **load** the match from its store: a signed snapshot (``State.to_json(key,
   snapshot=True)``), restored without replaying, in time independent of the
   match's length;
2. **check** the seat and the step the client chose on (``expected_step``);
3. **apply** the action, then let the match's **bots** act until a person is
   to act (a bot is made again for each request: it must declare itself
   ``stateless``, or hand its memory over to be stored with the match; see
   :class:`fourcards.engine.Bot`);
4. **save** with a compare-and-swap on the step (:class:`MatchStore`): of two
   requests that loaded the same version, one stores and the other is refused
   (``stale``), so no action is lost or applied twice;
5. **answer** the seat an :class:`Update`: only what changed in its view since
   the step it knows, and the records it may see, so an answer does not grow
   with the match.

:class:`MatchService` does all five; :class:`MemoryMatchStore` and
:class:`SQLiteMatchStore` are two stores; :data:`HTTP_STATUS` maps every
error code (``FourCardsError.code``) to an HTTP status.
"""

from __future__ import annotations

from typing import Any, Final

from ..errors import FourCardsError
from .bots import bot_for_turn, bot_kind, checked_bot
from .service import DATA_FORMAT, Hosted, MatchService, Update
from .store import LoggedAction, MatchStore, MemoryMatchStore, SQLiteMatchStore, StoredMatch
from .updates import REMOVED, REPLACED, SPECTATOR, changes, merge

__all__ = ["MatchService", "Update", "Hosted", "MatchStore", "StoredMatch", "LoggedAction", "MemoryMatchStore",
           "SQLiteMatchStore", "HTTP_STATUS", "http_status", "error_body", "DATA_FORMAT", "changes", "merge",
           "REPLACED", "REMOVED", "SPECTATOR", "bot_kind", "checked_bot", "bot_for_turn"]

#: The HTTP status of each error code of :data:`fourcards.errors.ERROR_CODES` (a test checks
#: that none is missing; :func:`http_status` answers 400 for a code not listed): the
#: client's input is wrong (400), not allowed (403), names nothing (404), comes too
#: late or out of turn (409), or is refused by the rules (422); a save the server
#: cannot read is the server's fault (500), a part it was installed without too (501).
HTTP_STATUS: Final[dict[str, int]] = {
    "bad_request": 400, "bad_card": 400, "impossible_cards": 400, "bad_combo": 400, "bad_action": 400,
    "bad_rules": 400, "bad_deck": 400, "bad_seats": 400, "bad_type": 400,
    "bad_token": 403,
    "unknown_seat": 404, "unknown_game": 404, "unknown_table": 404,
    "stale": 409, "not_your_turn": 409, "game_over": 409,
    "illegal_action": 422,
    "bad_save": 500,
    "missing_extra": 501,
    "too_costly": 503,
}


def http_status(error: FourCardsError) -> int:
    """The HTTP status for ``error`` (its ``code`` in :data:`HTTP_STATUS`; 400 for a code of its own)."""
    return HTTP_STATUS.get(getattr(error, "code", "bad_request"), 400)


def error_body(error: FourCardsError) -> dict[str, Any]:
    """``{"error": {"code": ..., "reason": ...}}``: the JSON body of an error answer (the bundled server's shape)."""
    return {"error": {"code": getattr(error, "code", "bad_request"), "reason": str(error)}}
