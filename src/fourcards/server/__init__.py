"""The reference game server: tables for every game over a JSON WebSocket protocol
(``docs/server.md``). Needs the ``server`` extra (Starlette, uvicorn, websockets)
for :func:`create_app`; :mod:`.protocol` and :mod:`.views` need nothing more."""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """The server as an ASGI (Starlette) application; see :func:`fourcards.server.app.create_app`."""
    from .app import create_app as make

    return make(*args, **kwargs)
