"""What ``python -m fourcards.rl.train`` and ``python -m fourcards.rl.distil`` check on their
command lines before torch is imported (so that ``--help`` and a bad value are answered without
the train extra): the files they write, and their number types."""

from __future__ import annotations

import argparse
import os
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..gangoffour.learned import FORMAT
from ..terminal.args import positive

__all__ = ["file_to_write", "above_0_at_most", "kept_file_problem", "unmade_output_problem", "check_outputs"]


def file_to_write(text: str) -> Path:
    """An argparse type: the name of a file to write (not '', nor a folder's, like '..' or 'dir/')."""
    path = Path(text)
    if not text.strip() or text.endswith(("/", os.sep)) or path.name in ("", ".", ".."):
        raise argparse.ArgumentTypeError(f"needs a file name, not {text!r}")
    return path


def above_0_at_most(high: float) -> Callable[[str], float]:
    """An argparse type: a number above 0 and at most ``high``."""

    def parse(text: str) -> float:
        value = positive(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"{value:g} is too large (at most {high:.10g})")
        return value

    parse.__name__ = "number"
    return parse


def kept_file_problem(path: Path, format_name: str = FORMAT) -> str | None:
    """Why the existing file ``path`` must not be overwritten by a file of ``format_name`` (None: it is one,
    or empty): an ``.npz`` whose ``format`` header is that one (default: a policy file's)."""
    noun = "a policy file" if format_name == FORMAT else f"a {format_name} file"
    try:
        if path.stat().st_size == 0:
            return None
        with path.open("rb") as handle:
            if handle.read(4) == b"PK\x03\x04":  # a zip: an .npz, whose format header says whose
                with np.load(path, allow_pickle=False) as data:
                    if "format" in data.files and str(data["format"]) == format_name:
                        return None
    except OSError as error:
        return f"cannot read it to check that it is {noun} ({error.strerror or error})"
    except (ValueError, EOFError, KeyError, zipfile.BadZipFile):
        pass
    return f"a file that is not {noun} is there: remove it or name another file"


def unmade_output_problem(path: Path, keeps: str | None = None) -> str | None:
    """Why a file cannot be written at ``path`` (None: it can), found without making anything: a directory,
    (``keeps``, a format header) an existing file that is not of that format, or a place where no file can
    be made (the nearest existing folder is tried with an empty folder, removed at once: its missing
    folders are made only once every argument is checked)."""
    try:
        if path.is_dir():
            return "that is a directory; name a file in it"
        if keeps is not None and path.is_file():
            problem = kept_file_problem(path, keeps)
            if problem is not None:
                return problem
        base = path.parent
        while not base.exists() and base != base.parent:
            base = base.parent
        if not base.is_dir():
            return f"cannot make its folder {str(path.parent)!r}: {str(base)!r} is not a directory"
        try:
            os.rmdir(tempfile.mkdtemp(prefix=".fourcards-", dir=base))
        except OSError as error:
            return f"nothing can be made in {str(base)!r} ({error.strerror or error})"
        if path.exists() and not os.access(path, os.W_OK):
            return "this user may not write there"
    except (OSError, ValueError) as error:  # a name too long, a NUL in it
        return f"cannot be written ({getattr(error, 'strerror', None) or error})"
    return None


def check_outputs(parser: argparse.ArgumentParser, outputs: Sequence[tuple[str, Path, str | None]]) -> None:
    """Refuse (``parser.error``) the first of ``outputs`` (flag, path, the format an existing file there must
    have, or None) that cannot be written, making nothing: :func:`unmade_output_problem`; two outputs at one
    file are refused too."""
    written: dict[str, str] = {}
    for flag, path, keeps in outputs:
        problem = unmade_output_problem(path, keeps)
        same = written.get(os.path.abspath(path))
        if problem is None and same is not None and same != flag:
            problem = f"{same} writes that file"
        if problem is not None:
            parser.error(f"argument {flag}: {path}: {problem}")
        written[os.path.abspath(path)] = flag
