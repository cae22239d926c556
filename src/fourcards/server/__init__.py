"""The reference game server: tables for every game over a JSON WebSocket protocol
(``docs/server.md``). Needs the ``server`` extra (Starlette, uvicorn, websockets)
for :func:`create_app`; :mod:`.protocol` and :mod:`.views` need nothing more."""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The server as an ASGI (Starlette) application; see :func:`fourcards.server.app.create_app`.
    Without the server extra, a :class:`~fourcards.errors.MissingExtraError` naming it."""
    try:
        from .app import create_app as make
    except ModuleNotFoundError as missing:
        if missing.name is None or missing.name.partition(".")[0] == "fourcards":
            raise
        from ..errors import MissingExtraError

        raise MissingExtraError.of(missing.name, "server", "fourcards.server") from missing
    return make(*args, **kwargs)
