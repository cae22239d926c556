"""``fourcards serve``: the reference game server (needs the ``server`` extra)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import os
import pathlib
import re
import sqlite3
import sys
import urllib.parse
from collections.abc import Callable
from typing import Any

from .._words import escaped
from ..errors import FourCardsError, MissingExtraError
from ..server.admission import LIMIT_FLAGS, Admission, Limits
from ..terminal.args import file_name, positive
from .args import int_in, quote

__all__ = ["add_commands", "run"]


def _sqlite_problem(db: str) -> str | None:
    """Why the SQLite file ``db`` cannot hold the tables (not a database, unreadable), or None
    (a database URL, a file still to be made, or one that opens)."""
    if "://" in db or db == ":memory:":
        return None
    path = pathlib.Path(db).resolve()
    if path.exists() and not path.is_file():  # /dev/zero: a device SQLite would try as a database
        return "that is not a regular file (a SQLite database is one)"
    if not path.exists():
        missing = _folder_to_make(db)
        folder = path.parent if missing is None else missing.parent  # the nearest folder that exists
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            return f"cannot be made: {folder} is not a folder this process may write in"
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{urllib.parse.quote(path.as_posix())}?mode=rw",
                                                uri=True)) as connection:
            connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as error:
        return f"{error} (not a SQLite file this server can write)"
    return None


def _folder_to_make(db: str) -> pathlib.Path | None:
    """The first missing folder on the way to the SQLite file ``db`` (made with it), or None."""
    if "://" in db or db == ":memory:":
        return None
    folder = pathlib.Path(db).resolve().parent
    if folder.exists():
        return None
    while not folder.parent.exists():
        folder = folder.parent
    return folder


def _make_sqlite_file(db: str) -> str | None:
    """Make the SQLite file ``db`` and its missing folders now (opened once and closed), so a
    place this process cannot write in is one line here, not a failed start later; why not, or
    None (a database URL or ``:memory:``: nothing to make)."""
    if "://" in db or db == ":memory:":
        return None
    path = pathlib.Path(db).resolve()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.closing(sqlite3.connect(path)) as connection:
            connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except (OSError, sqlite3.Error) as error:
        return f"cannot be made: {error}"
    return None


def where_shown(db: str) -> str:
    """``--db`` as it may be printed: a database URL without its user and password, and what a
    terminal would act on escaped."""
    if "://" not in db:
        return escaped(db)
    scheme, _, rest = db.partition("://")
    return escaped(f"{scheme}://{rest.rpartition('@')[2]}")


def _seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, 0 to 60."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 60 seconds")
    return value


_positive = positive


def _limit_number(zero: bool, high: float | None) -> Callable[[str], float]:
    """An argparse type for a :class:`Limits` number: finite, above 0 (``zero``: from 0), at
    most ``high`` (the checks ``Limits`` makes, said at the flag)."""
    def parse(text: str) -> float:
        if not zero:
            value = positive(text)
        else:
            try:
                value = float(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{quote(text)} is not a number") from None
            if not math.isfinite(value) or value < 0:
                raise argparse.ArgumentTypeError(f"{value} is not a number from 0")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is above {high:g}")
        return value
    return parse


def _host(text: str) -> str:
    """An argparse type: the address to listen on: not empty (which listens on every interface)."""
    if not text.strip() or not text.isprintable() or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"needs an address to listen on (127.0.0.1: this machine only; 0.0.0.0: "
                                         f"every interface), not {quote(text)}")
    return text


def _refuse(message: str) -> int:
    """A refusal after the arguments were read, in the form of every other one: one line, exit 2."""
    print(f"fourcards serve: error: {message} (see fourcards serve --help)", file=sys.stderr)
    return 2


def add_commands(sub: Any) -> None:
    parser = sub.add_parser("serve", help="run the game server (web page, HTTP API, WebSockets)",
                            description="Tables for every game over HTTP and WebSockets; see docs/server.md.")
    parser.add_argument("--host", type=_host, default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    parser.add_argument("--port", type=int_in(0, 65535), default=8000, help="port, 0 for any free one (default 8000)")
    parser.add_argument("--db", type=file_name, default="fourcards-server.db",
                        help="SQLite file of the tables (created when missing; default fourcards-server.db), or a "
                        "PostgreSQL URL postgresql://user@host:port/db that several server processes may share "
                        "(the postgres extra)")
    parser.add_argument("--lease-seconds", type=_positive, default=5.0,
                        help="with PostgreSQL: how long a process holds a table without renewing its lease; a "
                        "process that stops is replaced this much later (default 5)")
    parser.add_argument("--advertise", metavar="URL", default=None,
                        help="with PostgreSQL: this process's URL, told to clients that ask it for a table another "
                        "process holds (default http://HOST:PORT when --host is one address)")
    parser.add_argument("--key-file", metavar="PATH", type=file_name, default=None,
                        help="a file holding the server's secret key (its text, at least 16 bytes), which signs the "
                        "tables' snapshots; default: the key kept beside the SQLite file (DB.key) or in the "
                        "PostgreSQL database, made on first use. Several processes on one database need the same key")
    parser.add_argument("--bot-delay", type=_seconds, default=0.3,
                        help="seconds a bot waits before it acts (default 0.3)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="URL",
                        help="also accept requests and WebSockets from pages of this origin (https://host[:port]; "
                        "repeatable; the server's own host always)")
    parser.add_argument("--forwarded-allow-ips", action="append", default=[], metavar="IPS",
                        help="trust X-Forwarded-For from these reverse proxies: addresses or networks, comma "
                        "separated or repeated (127.0.0.1, 10.0.0.0/8, ::1), or * for any; default none: the client "
                        "is the connection's peer")
    parser.add_argument("--idle-minutes", type=_positive, default=None,
                        help="close an unfinished table after this many minutes without a move (default 60; "
                        "--idle-seconds the same in seconds)")
    limits = parser.add_argument_group("limits", "every limit of the server (docs/server.md: Security and limits)")
    defaults = Limits()
    for spec in dataclasses.fields(Limits):
        default = getattr(defaults, spec.name)
        if spec.type == "int":
            high = spec.metadata["high"]
            kind: Callable[[str], Any] = int_in(spec.metadata["low"], high if high is not None else 10**12)
        else:
            kind = _limit_number(spec.metadata["low"] == 0, spec.metadata["high"])
        shown = default if isinstance(default, int) else format(default, "g")
        limits.add_argument(LIMIT_FLAGS[spec.name], dest=f"limit_{spec.name}", type=kind, default=None,
                            metavar="N", help=f"{Limits.help(spec.name)} (default {shown})")
    parser.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"],
                        help="the log level, uvicorn's and the server's own (refusals, deadlines; default warning)")


def run(args: argparse.Namespace) -> int:
    try:
        from ..server.app import create_app
        from ..server.http_server import address_of, listen, serve
        from ..server.store import read_key_file
    except ImportError as error:
        return _refuse(f"it needs the server extra: pip install 'fourcards[server]' ({error})")

    values = {spec.name: getattr(args, f"limit_{spec.name}") for spec in dataclasses.fields(Limits)}
    if args.idle_minutes is not None:
        if values["idle_seconds"] is not None:
            return _refuse("--idle-minutes and --idle-seconds set the same limit: give one of them")
        values["idle_seconds"] = args.idle_minutes * 60
    if args.advertise is not None:
        if not args.db.startswith(("postgresql://", "postgres://")):
            return _refuse("--advertise is for several processes on one PostgreSQL database (--db postgresql://...); "
                           "with SQLite one process holds every table")
        parts = urllib.parse.urlsplit(args.advertise)
        if parts.scheme not in ("http", "https") or not parts.netloc or not args.advertise.isprintable():
            return _refuse(f"--advertise {quote(args.advertise)} is not this process's URL (http[s]://host:port)")
    try:
        limits = Limits(**{name: value for name, value in values.items() if value is not None})
        admission = Admission(limits, args.allow_origin, args.forwarded_allow_ips)
    except (FourCardsError, ValueError) as error:
        message = str(error)
        names = sorted((spec.name for spec in dataclasses.fields(Limits)), key=len, reverse=True)
        for name in names:  # the flags, not the class's fields (the longest first: list_page_max, list_page)
            message = message.replace(f"Limits.{name}", name)
        for name in names:
            message = re.sub(rf"\b{name}\b", LIMIT_FLAGS[name], message)
        return _refuse(message)
    key = None
    if args.key_file is not None:
        try:
            key = read_key_file(args.key_file)
        except (OSError, ValueError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            return _refuse(f"--key-file {escaped(args.key_file)}: {reason}")
    problem = _sqlite_problem(args.db)
    if problem is not None:
        return _refuse(f"--db {where_shown(args.db)}: {problem}")
    try:
        sockets = listen(args.host, args.port)
    except OSError as error:
        return _refuse(f"--host {quote(args.host)} --port {args.port}: cannot listen there: {error.strerror or error}")
    new_folder = _folder_to_make(args.db)
    problem = _make_sqlite_file(args.db)
    if problem is not None:
        for sock in sockets:
            sock.close()
        return _refuse(f"--db {where_shown(args.db)}: {problem}")
    try:
        advertise = args.advertise
        if advertise is None and args.host not in ("0.0.0.0", "::", ""):
            advertise = address_of(sockets, args.host).rstrip("/")
        app = create_app(args.db, bot_delay=args.bot_delay, admission=admission, lease_seconds=args.lease_seconds,
                         advertise=advertise, key=key)
    except (FourCardsError, ValueError) as error:
        for sock in sockets:
            sock.close()
        if isinstance(error, MissingExtraError):
            return _refuse(f"--db: {error}")
        if isinstance(error, FourCardsError):
            return _refuse(f"--db {where_shown(args.db)}: {error}")
        return _refuse(f"--allow-origin: {error}")
    made = f"; made the folder {new_folder}" if new_folder is not None else ""
    print(f"fourcards server on {address_of(sockets, args.host)} (tables in {where_shown(args.db)}{made})", flush=True)
    serve(app, admission, sockets, args.log_level)
    return 0
