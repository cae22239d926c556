"""What every command's arguments share: checked number types, one-line errors,
a progress bar, the executor a ``--backend`` names.

It imports nothing of the command line, so that the games (their own commands)
and library modules with a command of their own (``python -m
fourcards.tournament``) may use it.
"""

from __future__ import annotations

import argparse
import math
import re
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from ..errors import FourCardsError
from .._words import escaped

__all__ = ["CommandLineError", "Parser", "ProgressBar", "SEED", "int_in", "positive", "quote", "file_name",
           "output_problem", "overwrite_problem", "check_output", "executor_for", "program_name"]


class CommandLineError(FourCardsError):
    """A bad value on the command line (or in a file it names): exit code 2, one line on stderr."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``fourcards play GAME: error: argument --players: ...``.

    ``hint_for_choice`` (optional) says more about a word given where a subcommand was
    expected (``fourcards GAME``: a game, not a command), or None."""

    hint_for_choice: Callable[[str], str | None] | None = None

    def error(self, message: str) -> NoReturn:
        refused = re.match(r"argument \w+: invalid choice: '(.*)' \(choose from", message)
        hint = self.hint_for_choice(refused.group(1)) if refused and self.hint_for_choice else None
        if hint is not None:
            message = hint
        message = "\n".join(escaped(line) for line in message.split("\n"))  # argparse echoes what was typed
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def quote(text: str, limit: int = 40) -> str:
    """A person's input as shown back to them: quoted, cut when long, and every character a
    terminal would act on (an escape sequence, a control character) or cannot print (a lone
    surrogate) written as its escape, so that input never reaches the terminal raw.

    >>> print(quote("red" + chr(27) + "[31m  card"), quote("x" * 50, limit=10))
    'red\\x1b[31m card' 'xxxxxxx...'
    """
    text = escaped(" ".join(text.split()))
    return f"'{text}'" if len(text) <= limit else f"'{text[:limit - 3]}...'"


def file_name(text: str) -> str:
    """An argparse type: a file's name, not an empty or blank one (which would name the folder
    the command runs in, or nothing)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"needs a file name, not {text!r}")
    return text


def overwrite_problem(path: Path, format_name: str = "fourcards-match") -> str | None:
    """Why a save should not be written over the file at ``path`` (None: nothing is there, or an
    empty file, or a saved match of ``format_name`` that this one replaces): another file a person
    keeps is never overwritten by a save."""
    try:
        if not path.is_file() or path.stat().st_size == 0:
            return None
        with open(path, "rb") as file:
            head = file.read(4096)
    except OSError:
        return None  # writing says why it cannot
    if head.lstrip().startswith(b"{") and f'"{format_name}"'.encode() in head:
        return None
    return "a file that is not a saved match is there: remove it or name another file"


def output_problem(path: Path, make_folder: bool = False) -> str | None:
    """Why a file cannot be written at ``path`` (None: it can): a directory, a missing folder
    (``make_folder``: made now, or why it cannot be), or one this user may not write in."""
    if path.is_dir():
        return "that is a directory; name a file in it"
    folder = path.parent
    if make_folder:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            return f"cannot make its folder {str(folder)!r} ({error.strerror or error})"
    elif not folder.is_dir():
        return f"the directory {str(folder)!r} does not exist"
    if path.exists() and not path.is_file():  # /dev/null, a pipe: no file to resume or read back
        return "that is not a regular file"
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "this user may not write there"
    try:  # what the permissions do not say (root, /proc, a read-only mount): an empty folder made and removed
        os.rmdir(tempfile.mkdtemp(prefix=".fourcards-", dir=folder))
    except OSError as error:
        return f"nothing can be written in {str(folder)!r} ({error.strerror or error})"
    return None


def program_name(module: str, path: str) -> str | None:
    """The usage line's program: ``python -m module`` when the running program is the
    module's file ``path`` (run with ``python -m``; argparse would say ``strength.py``),
    else None (argparse's own: the script's name)."""
    try:
        if sys.argv and sys.argv[0] and os.path.samefile(sys.argv[0], path):
            return f"python -m {module}"
    except (OSError, ValueError):  # no such file (python -c), or a name the system refuses
        pass
    return None


def check_output(parser: argparse.ArgumentParser, flag: str, path: Path) -> None:
    """Refuse (``parser.error``, naming ``flag``) a file the command will write at its end, before
    the work that fills it (its folder is made now): :func:`output_problem`."""
    problem = output_problem(path, make_folder=True)
    if problem is not None:
        parser.error(f"argument {flag}: {path}: {problem}")


def int_in(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in ``low..high`` (either end open)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quote(text)} is not a whole number") from None
        if low is not None and high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        if low is not None and value < low:
            raise argparse.ArgumentTypeError(f"{value} is too small (at least {low})")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is too large (at most {high})")
        return value

    parse.__name__ = "number"
    return parse


def positive(text: str) -> float:
    """An argparse type: a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quote(text)} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{value} is not a number above 0")
    return value


SEED = int_in(0, 2**64 - 1)
"""A seed: a whole number from 0 to 2**64 - 1."""


class ProgressBar:
    """Progress on a stream (stderr). In a terminal, one line redrawn in place:
    ``[####....] 40/100 matches (12/s)``; anywhere else (a log, a pipe) no
    carriage returns: one plain line at each tenth of the way and at the end."""

    def __init__(self, stream: Any = None, width: int = 30, unit: str = "matches") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width, self.unit, self.start = width, unit, time.perf_counter()
        try:
            self.live = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.live = False
        self.shown = -1  # the last tenth written (not live)

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        shown = f"{rate:,.1f}" if rate < 10 else f"{rate:,.0f}"
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {self.unit} ({shown}/s)"
        if self.live:
            self.stream.write("\r" + line + ("\n" if done >= total else ""))
        else:
            tenth = 10 * done // max(total, 1)
            if tenth == self.shown and done < total:
                return
            self.shown = 10 if done >= total else tenth
            self.stream.write(line + "\n")
        self.stream.flush()


#: Seconds ``--backend dask`` waits for its scheduler to answer.
CONNECT_SECONDS = 10


@contextmanager
def executor_for(backend: str, workers: int, scheduler: str | None) -> Iterator[Executor | None]:
    """A process pool (``local``) or a Dask cluster's executor (``dask``)."""
    if backend == "dask":
        if not scheduler:
            raise CommandLineError("--backend dask needs --scheduler ADDRESS")
        try:
            from dask.distributed import Client
        except ImportError:
            raise CommandLineError('the dask backend needs: pip install "fourcards[distributed]"') from None
        try:
            client = Client(scheduler, timeout=CONNECT_SECONDS)  # type: ignore[no-untyped-call, unused-ignore]
        except (OSError, ValueError, TypeError) as error:  # a timeout is an OSError
            reason = " ".join(str(error).split())[:200] or type(error).__name__
            raise CommandLineError(f"--scheduler {quote(scheduler)}: no Dask scheduler there ({reason})") from None
        with client:
            yield client.get_executor()  # type: ignore[no-untyped-call, unused-ignore]
        return
    if workers <= 1:
        yield None
        return
    with ProcessPoolExecutor(workers) as pool:
        yield pool
