"""``fourcards serve``: the reference game server (needs the ``server`` extra)."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from .args import int_in, quote

__all__ = ["add_commands", "run"]


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, 0 to 60."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 60 seconds")
    return value


def _positive(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{value} is not a number above 0")
    return value


def add_commands(sub: Any) -> None:
    parser = sub.add_parser("serve", help="run the game server (web page, HTTP API, WebSockets)",
                            description="Tables for every game over HTTP and WebSockets; see docs/server.md.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int_in(0, 65535), default=8000, help="port, 0 for any free one (default 8000)")
    parser.add_argument("--db", default="fourcards-server.db",
                        help="SQLite file of the tables (created when missing; default fourcards-server.db), or a "
                        "PostgreSQL URL postgresql://user@host:port/db that several server processes may share "
                        "(the postgres extra)")
    parser.add_argument("--lease-seconds", type=_positive, default=5.0,
                        help="with PostgreSQL: how long a process holds a table without renewing its lease; a "
                        "process that stops is replaced this much later (default 5)")
    parser.add_argument("--advertise", metavar="URL", default=None,
                        help="with PostgreSQL: this process's URL, told to clients that ask it for a table another "
                        "process holds (default http://HOST:PORT when --host is one address)")
    parser.add_argument("--bot-delay", type=_seconds, default=0.3,
                        help="seconds a bot waits before it acts (default 0.3)")
    parser.add_argument("--max-tables", type=int_in(1, 1_000_000), default=1000,
                        help="open tables at most (default 1000)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                        help="also accept requests and WebSockets from pages of this origin (https://host[:port]; "
                        "repeatable; the server's own host always)")
    parser.add_argument("--idle-minutes", type=_positive, default=60.0,
                        help="close an unfinished table after this many minutes without a move (default 60)")
    parser.add_argument("--tables-per-client", type=int_in(1, 1_000_000), default=20,
                        help="open tables one client address may create (default 20)")
    parser.add_argument("--create-rate", type=_positive, default=1.0,
                        help="tables a second one client address may create, bursts of 10 (default 1)")
    parser.add_argument("--claim-rate", type=_positive, default=2.0,
                        help="seat claims a second one client address may make, bursts of 20 (default 2)")
    parser.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"],
                        help="uvicorn's log level (default warning)")


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..server.app import create_app
    except ImportError as error:
        print(f"fourcards serve needs the server extra: pip install 'fourcards[server]' ({error})", file=sys.stderr)
        return 2
    from ..server.app import Limits

    limits = Limits(max_tables=args.max_tables, idle_seconds=args.idle_minutes * 60,
                    tables_per_client=args.tables_per_client, create_rate=args.create_rate,
                    claim_rate=args.claim_rate)
    try:
        advertise = args.advertise
        if advertise is None and args.host not in ("0.0.0.0", "::", "") and args.port:
            host = f"[{args.host}]" if ":" in args.host else args.host
            advertise = f"http://{host}:{args.port}"
        app = create_app(args.db, bot_delay=args.bot_delay, limits=limits, allow_origins=args.allow_origin,
                         lease_seconds=args.lease_seconds, advertise=advertise)
    except ValueError as error:
        print(f"fourcards serve: --allow-origin: {error}", file=sys.stderr)
        return 2
    where = args.db
    if "://" in where:  # a database URL: not its password
        scheme, _, rest = where.partition("://")
        where = f"{scheme}://{rest.rpartition('@')[2]}"
    print(f"fourcards server on http://{args.host}:{args.port}/ (tables in {where})", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=65536, ws_per_message_deflate=False,
                ws_ping_interval=20.0, ws_ping_timeout=20.0, timeout_graceful_shutdown=2)
    return 0
