"""Fuzz the game server's protocol (issue 27): the real app and its real SQLite store,
in-process, fed arbitrary HTTP bodies, paths and queries and WebSocket frames (text
with lone surrogates and NUL, arbitrary bytes, near-valid messages after a real
join). After every input, a normal table creation, seat claim, join and action must
still succeed within a second; a ``5xx`` answer or a ``server_error`` message is a
finding too (``_server.py`` holds the driver and the property)."""

from __future__ import annotations

import sys

import atheris
import numpy  # noqa: F401  (imported before instrumenting: only fourcards is traced)
import starlette.applications  # noqa: F401
import uvicorn  # noqa: F401
import websockets  # noqa: F401

with atheris.instrument_imports(include=["fourcards.server", "_server"]):
    import _server

DRIVER = _server.Driver()


def test_one_input(data: bytes) -> None:
    _server.one_input(DRIVER, data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
