"""The server's JSON message protocol: what clients may send, what they get back.

One JSON object per WebSocket text message, with a ``type`` field. A client
first sends ``join`` (table id and seat token), or ``watch`` (a table id, and
its invitation when the table is private) to follow it as a spectator, each
naming the protocol version it speaks (``"protocol": 2``; 1 when it names none);
then ``act`` (turn games), ``hint`` and ``ping``, and the events a real-time
table takes (each :class:`~fourcards.server.tables.MasterSpec` names its own,
parsed here as an :class:`Event` and checked by its master). The server
answers with ``welcome``, ``state`` (the whole view: after a join, and after
every change in version 1), ``update`` (version 2: what changed since the
connection's last version), ``ack``, ``error``, ``end``, ``hint`` and
``pong``; ``docs/server.md`` lists every field.

Parsing is strict and never raises anything but :class:`ProtocolError`, which
carries one of the fixed :data:`ERROR_CODES` and a readable reason:

>>> parse_client_message(b'{"type": "act", "id": "m1", "version": 3, "action": 12352}')
Act(id='m1', version=3, action=12352)
>>> parse_client_message(b'{"type": "act", "id": "m1", "version": true, "action": 1}')
Traceback (most recent call last):
...
fourcards.server.protocol.ProtocolError: bad_message: 'version' must be an integer, not bool
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from collections.abc import Collection
from typing import Any, Final, Union

from ..errors import FourCardsError

__all__ = [
    "ERROR_CODES", "ProtocolError", "Join", "Watch", "Act", "Event", "Hint", "Ping", "ClientMessage",
    "parse_client_message", "error_message", "MAX_MESSAGE_BYTES", "MAX_ID_LENGTH", "MAX_INT",
    "CLIENT_TYPES", "SERVER_TYPES", "MAX_TEXT_LENGTH", "text_problem", "unstorable_text", "PROTOCOLS", "LATEST",
]

MAX_MESSAGE_BYTES: Final = 4096
"""Client messages longer than this (in UTF-8 bytes) are refused with ``too_large``."""
MAX_ID_LENGTH: Final = 64
"""Longest client message id."""
MAX_TOKEN_LENGTH: Final = 128
MAX_TABLE_ID_LENGTH: Final = 64
MAX_INT: Final = 2**31 - 1
"""Largest integer accepted in a message (versions, actions): bigger ones are ``bad_message``."""

#: The protocol versions the server speaks: 1 sends the whole ``state`` after every change, 2 an
#: ``update`` with what changed since the connection's last version (the whole ``state`` once,
#: after the join). A ``join`` or ``watch`` names its version (1 when it names none).
PROTOCOLS: Final = (1, 2)
LATEST: Final = 2

CLIENT_TYPES: Final = ("join", "watch", "act", "hint", "ping")
"""The client messages of every table; a real-time table adds its events."""
MAX_TEXT_LENGTH: Final = 200
"""Longest text field of an event."""
_EVENT_TYPE = re.compile(r"[a-z][a-z_]{0,23}")
_FIELD_NAME = re.compile(r"[a-z][a-z0-9_]{0,23}")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def text_problem(value: str) -> str | None:
    """Why no store can hold ``value`` (None when every store can): a lone surrogate (not
    encodable as UTF-8: SQLite and PostgreSQL both refuse it) or a NUL character
    (PostgreSQL's text refuses it). Every string from the network is checked with this
    where it enters.

    >>> text_problem("Ana"), text_problem(chr(0xD800))
    (None, 'a lone surrogate (U+D800)')
    """
    found = _UNSTORABLE.search(value)
    if found is None:
        return None
    char = found.group()
    return "a NUL character" if char == "\x00" else f"a lone surrogate (U+{ord(char):04X})"


def unstorable_text(data: Any, path: str = "") -> str | None:
    """The first string (a value or a key) anywhere in ``data`` (parsed JSON) that no store can
    hold, named with its path (``seats[0].name``) and the reason; None when there is none."""
    stack: list[tuple[str, Any]] = [(path, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            problem = text_problem(value)
            if problem is not None:
                return f"{where or 'the text'} holds {problem}"
        elif isinstance(value, dict):
            for key, item in value.items():
                name = f"{where}.{key}" if where else str(key)
                problem = text_problem(key) if isinstance(key, str) else None
                if problem is not None:
                    return f"a key of {where or 'the object'} holds {problem}"
                stack.append((name, item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{index}]", item) for index, item in enumerate(value))
    return None
SERVER_TYPES: Final = ("welcome", "state", "update", "ack", "error", "end", "hint", "pong")

#: Every error code the server sends, with its meaning (``docs/server.md`` has the same table).
ERROR_CODES: Final[dict[str, str]] = {
    "bad_json": "the message is not a JSON object",
    "too_large": f"the message is longer than {MAX_MESSAGE_BYTES} bytes",
    "rate_limited": "too many messages: slow down and send it again",
    "bad_message": "an unknown type, or a missing, mistyped or out-of-range field",
    "not_joined": "send join first",
    "already_joined": "this connection has joined a seat (or watches a table) already",
    "unknown_table": "no table has this id",
    "bad_token": "the token is not the token of a seat at this table",
    "replaced": "another connection joined with this seat's token; this one is closed",
    "stale": "the action was chosen on an older version of the state",
    "not_your_turn": "it is another seat's turn",
    "illegal_action": "the rules do not allow this action now",
    "bad_action": "the integer names no action of this game",
    "unknown_seat": "the seat number is not a seat of the table",
    "game_over": "the match is over",
    "not_supported": "this table's game does not take this message",
    "spectator": "a spectator cannot act, send events or ask for hints",
    "too_many_spectators": "the table has as many spectators as it takes",
    "table_expired": "the table was closed: nothing happened at it for too long (this connection is closed)",
    "server_error": "the server failed to handle the message; nothing was changed",
    "table_elsewhere": "another server process holds this table now: connect again (to 'owner' when given); "
                       "this connection is closed",
    "id_reused": "this message id was used for another message of the seat: send it with a new id",
    "busy": "the server's hint budget is spent for the moment: ask again after 'retry_after' seconds",
}


class ProtocolError(FourCardsError):
    """A message the server refuses: ``code`` (one of :data:`ERROR_CODES`) and a reason."""

    def __init__(self, code: str, reason: str, message_id: str | None = None,
                 details: dict[str, Any] | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}")
        self.code, self.reason, self.message_id = code, reason, message_id
        #: More fields of the ``error`` message (``table_elsewhere``: ``owner``, ``retry_after``).
        self.details = details or {}
        super().__init__(f"{code}: {reason}")

    @classmethod
    def of(cls, error: FourCardsError, message_id: str | None = None) -> ProtocolError:
        """The protocol's error for a library error, by its ``code`` (the one place the server
        maps them): the error's own code when the protocol has it (``bad_action``,
        ``illegal_action``, ``not_your_turn``, ``stale``, ``game_over``, ``unknown_seat``...),
        else the nearest one of the classes it derives from (a plug-in's own subclass of
        :class:`~fourcards.errors.IllegalMoveError` is ``illegal_action``), else ``bad_message``.

        >>> from fourcards.errors import NotYourTurnError
        >>> ProtocolError.of(NotYourTurnError("it is seat 2's turn"), "m1").code
        'not_your_turn'
        """
        if isinstance(error, ProtocolError):
            return error
        code = "bad_message"
        for candidate in (getattr(error, "code", None), *(getattr(k, "code", None) for k in type(error).__mro__)):
            if isinstance(candidate, str) and candidate in ERROR_CODES and candidate not in _SERVER_ONLY:
                code = candidate
                break
        return cls(code, str(error), message_id)

#: Codes that only the server itself gives (never a library error's, whatever it says).
_SERVER_ONLY = frozenset({"bad_json", "too_large", "rate_limited", "not_joined", "already_joined", "replaced",
                          "not_supported", "spectator", "too_many_spectators", "table_expired", "server_error",
                          "table_elsewhere", "id_reused", "busy"})


@dataclass(frozen=True)
class Join:
    """Take the seat of ``token`` at ``table`` on this connection, speaking ``protocol``."""

    table: str
    token: str
    protocol: int = 1


@dataclass(frozen=True)
class Watch:
    """Follow ``table`` as a spectator (``invite``: its invitation, for a private table),
    speaking ``protocol``."""

    table: str
    invite: str | None = None
    protocol: int = 1


@dataclass(frozen=True)
class Act:
    """Apply integer ``action``, chosen on state ``version``; ``id`` de-duplicates retries."""

    id: str
    version: int
    action: int


@dataclass(frozen=True)
class Event:
    """An event of a real-time table: its ``type``, ``id``, the state ``version``
    it was chosen on, and its other fields (strings and integers, checked by the
    table's master with :meth:`text` and :meth:`no_fields`)."""

    type: str
    id: str
    version: int
    fields: tuple[tuple[str, Any], ...] = ()

    def text(self, name: str, limit: int = MAX_TEXT_LENGTH) -> str:
        """The text field ``name`` (1 to ``limit`` characters), the only field."""
        data = dict(self.fields)
        if set(data) - {name}:
            raise ProtocolError("bad_message", f"{self.type!r} takes only {name!r}, not {sorted(set(data) - {name})}",
                                self.id)
        return _text({"type": self.type, **data}, name, limit, self.id)

    def no_fields(self) -> None:
        """Refuse any field (an event that is its type alone)."""
        if self.fields:
            raise ProtocolError("bad_message", f"{self.type!r} takes no fields, not {[k for k, _ in self.fields]}",
                                self.id)


@dataclass(frozen=True)
class Hint:
    """Ask the game's best bot what it would do now."""

    id: str | None


@dataclass(frozen=True)
class Ping:
    pass


ClientMessage = Union[Join, Watch, Act, Event, Hint, Ping]


def _field(data: dict[str, Any], name: str, kind: type, message_id: str | None) -> Any:
    if name not in data:
        raise ProtocolError("bad_message", f"{data.get('type')!r} needs the field {name!r}", message_id)
    value = data[name]
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ProtocolError("bad_message", f"{name!r} must be an integer, not {type(value).__name__}",
                                message_id)
        if not 0 <= value <= MAX_INT:
            raise ProtocolError("bad_message", f"{name!r} must be between 0 and {MAX_INT}", message_id)
        return value
    if not isinstance(value, str):
        raise ProtocolError("bad_message", f"{name!r} must be a string, not {type(value).__name__}",
                            message_id)
    problem = text_problem(value)
    if problem is not None:
        raise ProtocolError("bad_message", f"{name!r} holds {problem}", message_id)
    return value


def _text(data: dict[str, Any], name: str, limit: int, message_id: str | None) -> str:
    value: str = _field(data, name, str, message_id)
    if not 1 <= len(value) <= limit:
        raise ProtocolError("bad_message", f"{name!r} must be 1 to {limit} characters long", message_id)
    return value


def _protocol(data: dict[str, Any]) -> int:
    """The protocol version a ``join`` or ``watch`` names (1 when it names none)."""
    if "protocol" not in data:
        return 1
    version = _field(data, "protocol", int, None)
    if version not in PROTOCOLS:
        raise ProtocolError("bad_message", f"'protocol' must be one of {', '.join(map(str, PROTOCOLS))}, "
                            f"not {version}")
    return int(version)


def parse_client_message(raw: str | bytes, events: Collection[str] = ()) -> ClientMessage:
    """One client message, checked; raises :class:`ProtocolError` for anything else.

    ``events``: the event types real-time tables take (see :class:`Event`)."""
    size = len(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else len(raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"the message has {size} bytes; at most {MAX_MESSAGE_BYTES}")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as error:
        raise ProtocolError("bad_json", f"the message is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", f"the message must be a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or (kind not in CLIENT_TYPES and kind not in events):
        raise ProtocolError("bad_message", f"'type' must be one of {', '.join((*CLIENT_TYPES, *events))}, "
                            f"not {kind!r}")
    raw_id = data.get("id")
    message_id = (raw_id if isinstance(raw_id, str) and len(raw_id) <= MAX_ID_LENGTH and text_problem(raw_id) is None
                  else None)
    if kind == "join":
        return Join(_text(data, "table", MAX_TABLE_ID_LENGTH, None), _text(data, "token", MAX_TOKEN_LENGTH, None),
                    _protocol(data))
    if kind == "watch":
        invite = None
        if data.get("invite") is not None:
            invite = _text(data, "invite", MAX_TOKEN_LENGTH, None)
        return Watch(_text(data, "table", MAX_TABLE_ID_LENGTH, None), invite, _protocol(data))
    if kind == "ping":
        return Ping()
    if kind == "hint":
        if raw_id is not None and message_id is None:
            raise ProtocolError("bad_message", f"'id' must be a string of at most {MAX_ID_LENGTH} characters")
        return Hint(message_id)
    ident = _text(data, "id", MAX_ID_LENGTH, None)
    version = _field(data, "version", int, ident)
    if kind == "act":
        return Act(ident, version, _field(data, "action", int, ident))
    if not _EVENT_TYPE.fullmatch(kind):
        raise ProtocolError("bad_message", f"{kind!r} is not an event type", ident)
    fields = []
    for name, value in data.items():
        if name in ("type", "id", "version"):
            continue
        if not _FIELD_NAME.fullmatch(name):
            raise ProtocolError("bad_message", f"{name[:40]!r} is not a field name (lowercase letters, digits, _)",
                                ident)
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ProtocolError("bad_message", f"{name!r} must be a string or an integer, not {type(value).__name__}",
                                ident)
        if isinstance(value, str) and text_problem(value) is not None:
            raise ProtocolError("bad_message", f"{name!r} holds {text_problem(value)}", ident)
        if isinstance(value, int) and not 0 <= value <= MAX_INT:
            raise ProtocolError("bad_message", f"{name!r} must be between 0 and {MAX_INT}", ident)
        if isinstance(value, str) and len(value) > MAX_TEXT_LENGTH:
            raise ProtocolError("bad_message", f"{name!r} must be at most {MAX_TEXT_LENGTH} characters long", ident)
        fields.append((name, value))
    return Event(kind, ident, version, tuple(fields))


def error_message(error: ProtocolError) -> dict[str, Any]:
    """The ``error`` message a client gets for ``error``."""
    message: dict[str, Any] = {"type": "error", "code": error.code, "reason": error.reason, **error.details}
    if error.message_id is not None:
        message["id"] = error.message_id
    return message
