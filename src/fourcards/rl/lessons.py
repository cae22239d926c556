"""Lesson files of ``python -m fourcards.rl.distil`` (``--save-lessons``, ``--lessons``), in numpy alone.

A distillation's cost is its matches (a search a move); its fit takes minutes.
Saving the lessons lets one collection, or several made apart (each with its
own ``--seed``), be fitted again and again. A lessons file is an ``.npz``
(:func:`save_lessons` writes it uncompressed; a compressed copy reads too)
of six arrays: ``states`` (``N x 217`` float32, the observation tensors),
``rows`` (``M x 50`` float32, the candidate rows of every lesson's legal
actions), ``targets`` (``M`` float32, a distribution over each lesson's
rows), ``counts`` (``N`` int64, each lesson's rows, two or more),
``matches`` (``N`` int64, the number of the match each lesson came from, 0
or more) and ``learner`` (``N`` bool, whether the policy, not the search,
was playing there); and three header strings: ``format``
(:data:`LESSONS_FORMAT`), ``version`` (:data:`LESSONS_VERSION`) and
``layout_hash`` (the feature layout of the rows,
:data:`~fourcards.gangoffour.features.LAYOUT_HASH`). Anything else is refused
with a :class:`~fourcards.errors.FourCardsError` naming the file and the problem.

>>> import tempfile, pathlib
>>> lessons = empty_lessons()
>>> path = pathlib.Path(tempfile.mkdtemp()) / "lessons.npz"
>>> save_lessons(lessons, path)
>>> len(load_lessons(path)["counts"])
0
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from .._files import npz_arrays
from ..errors import FourCardsError, InvalidTypeError
from ..gangoffour.features import FEATURE_SIZE, LAYOUT_HASH
from ..gangoffour.match import OBSERVATION_SIZE

__all__ = ["Lessons", "LESSONS_FORMAT", "LESSONS_VERSION", "save_lessons", "load_lessons", "merge_lessons",
           "empty_lessons", "header_problem"]

#: The ``format`` header of a lessons file.
LESSONS_FORMAT: Final = "fourcards-distil-lessons"
#: The ``version`` header of a lessons file.
LESSONS_VERSION: Final = "1"

#: A distillation's lessons: the arrays named in this module's docstring.
Lessons = dict[str, np.ndarray]

_HEADERS = ("format", "version", "layout_hash")
#: Each array's dtype, and its shape as (lessons, rows or a width): "N" a lesson's, "M" a row's.
_ARRAYS: Final[dict[str, tuple[np.dtype[Any], tuple[str | int, ...]]]] = {
    "states": (np.dtype(np.float32), ("N", OBSERVATION_SIZE)),
    "rows": (np.dtype(np.float32), ("M", FEATURE_SIZE)),
    "targets": (np.dtype(np.float32), ("M",)),
    "counts": (np.dtype(np.int64), ("N",)),
    "matches": (np.dtype(np.int64), ("N",)),
    "learner": (np.dtype(np.bool_), ("N",)),
}


def empty_lessons() -> Lessons:
    """No lessons (the arrays of a lessons file, each of length 0)."""
    return {name: np.zeros(tuple(size if isinstance(size, int) else 0 for size in shape), dtype)
            for name, (dtype, shape) in _ARRAYS.items()}


def merge_lessons(parts: Sequence[Lessons]) -> Lessons:
    """The lessons of ``parts``, one after another (each checked as :func:`save_lessons` checks them)."""
    if isinstance(parts, (str, bytes, Mapping)) or not isinstance(parts, Sequence):
        raise InvalidTypeError(f"parts must be a sequence of lessons (dicts of arrays), not {type(parts).__name__}")
    for number, part in enumerate(parts):
        _check(_arrays_of(part, f"parts[{number}]"), f"parts[{number}]")
    return _joined(parts)


def _joined(parts: Sequence[Lessons]) -> Lessons:
    """Lessons checked already (read by :func:`load_lessons`, made by the distiller), one after another."""
    if not parts:
        return empty_lessons()
    return {name: np.concatenate([part[name] for part in parts]) for name in _ARRAYS}


def _arrays_of(lessons: object, what: str) -> dict[str, np.ndarray]:
    if not isinstance(lessons, Mapping):
        raise InvalidTypeError(f"{what} must be lessons (a dict of arrays), not {type(lessons).__name__}")
    return dict(lessons)


def save_lessons(lessons: Lessons, path: str | Path) -> None:
    """Write ``lessons`` to ``path`` (its folder made; a file there is replaced, as ``np.savez`` does),
    whole or not at all: a file beside it is written and then renamed over it, so a reader never sees
    half a file."""
    _path_of(path, "path")
    where = _where(path)
    _check(_arrays_of(lessons, "lessons"), f"lessons to write to {os.fspath(path)!r}")
    target = Path(path)
    if not os.fspath(path).strip() or target.name in ("", ".", ".."):
        raise FourCardsError(f"{where}: needs a file name")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_dir():
            raise FourCardsError(f"{where}: that is a directory; name a file in it")
        _write(lessons, target)
    except FourCardsError:
        raise
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        raise FourCardsError(f"{where}: cannot write it ({getattr(error, 'strerror', None) or error})") from None


def _path_of(path: object, what: str) -> str:
    """``path`` as a str, or an :class:`InvalidTypeError` (bytes, numbers: an int would be a file descriptor)."""
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise InvalidTypeError(f"{what} must be a file path (str or Path), not {type(path).__name__}"
                               + (f" naming {type(text).__name__}" if text is not None else ""))
    return text


def _where(path: str | os.PathLike[str]) -> str:
    shown = os.fspath(path)
    return f"lessons file {shown if shown.strip() else repr(shown)}"


def _write(lessons: Lessons, target: Path) -> None:
    # a name of its own ("x": made here, or an error): two threads saving to one target never share it
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.part")
    try:
        arrays: dict[str, Any] = {"format": np.array(LESSONS_FORMAT), "version": np.array(LESSONS_VERSION),
                                  "layout_hash": np.array(LAYOUT_HASH), **{name: lessons[name] for name in _ARRAYS}}
        with open(temporary, "xb") as handle:  # a handle: np.savez adds no ".npz" to the name
            np.savez(handle, **arrays)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def load_lessons(path: str | Path) -> Lessons:
    """The lessons saved in ``path``, checked (every array's dtype and shape, the rows' feature layout,
    each lesson's targets a distribution over its rows)."""
    _path_of(path, "lessons")
    where = _where(path)
    with npz_arrays(path, where, "as --save-lessons writes") as data:
        names = set(data.files)
        headers = {name: data[name] for name in _HEADERS if name in names}
        if len(headers) == len(_HEADERS):  # the headers first: a policy file is not read whole
            _check_headers(headers, where)
        arrays = {name: data[name] for name in _ARRAYS if name in names}
    missing = [name for name in (*_HEADERS, *_ARRAYS) if name not in names]
    if missing:
        raise FourCardsError(f"{where}: missing {', '.join(missing)} (a lessons file holds "
                             f"{', '.join((*_HEADERS, *_ARRAYS))})")
    unread = sorted(names - {*_HEADERS, *_ARRAYS})
    if unread:
        raise FourCardsError(f"{where}: holds arrays no lessons file has: {', '.join(unread)}")
    _check(arrays, where)
    return arrays


def header_problem(path: str | Path) -> str | None:
    """Why ``path`` is not a lessons file of this fourcards by its headers alone (None: it may be; the
    arrays are checked when :func:`load_lessons` reads them): quick, whatever the file's size."""
    _path_of(path, "path")
    try:
        with npz_arrays(path, "", "as --save-lessons writes") as data:
            missing = [name for name in _HEADERS if name not in data.files]
            if missing:
                return f"missing {', '.join(missing)} (not a lessons file)"
            _check_headers({name: data[name] for name in _HEADERS}, "")
    except FourCardsError as error:
        return str(error).removeprefix(": ")
    return None


def _check_headers(headers: dict[str, np.ndarray], where: str) -> None:
    for name, value in headers.items():
        if value.shape != () or value.dtype.kind != "U":
            raise FourCardsError(f"{where}: header {name!r} must be a string")
    if str(headers["format"]) != LESSONS_FORMAT:
        raise FourCardsError(f"{where}: format {str(headers['format'])!r} is not {LESSONS_FORMAT!r}")
    if str(headers["version"]) != LESSONS_VERSION:
        raise FourCardsError(f"{where}: version {str(headers['version'])!r}: this fourcards reads version "
                             f"{LESSONS_VERSION}")
    if str(headers["layout_hash"]) != LAYOUT_HASH:
        raise FourCardsError(f"{where}: its rows are candidate features {str(headers['layout_hash'])!r}, but "
                             f"this fourcards writes {LAYOUT_HASH!r} (fourcards.gangoffour.features): collect "
                             "them again or use a matching version")


def _check(arrays: dict[str, np.ndarray], where: str) -> None:
    """Refuse (naming ``where``) arrays that are not lessons."""
    missing = [name for name in _ARRAYS if name not in arrays]
    if missing:
        raise FourCardsError(f"{where}: missing {', '.join(missing)}")
    for name in ("counts", "targets"):  # the sizes the other shapes are checked against
        if not isinstance(arrays[name], np.ndarray) or arrays[name].ndim != 1:
            shape = arrays[name].shape if isinstance(arrays[name], np.ndarray) else type(arrays[name]).__name__
            raise FourCardsError(f"{where}: {name} is {shape}, not a 1-D array (counts gives the lessons, "
                                 "targets the rows)")
    sizes = {"N": len(arrays["counts"]), "M": len(arrays["targets"])}
    for name, (dtype, shape) in _ARRAYS.items():
        value = arrays[name]
        if not isinstance(value, np.ndarray) or value.dtype != dtype:
            shown = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
            raise FourCardsError(f"{where}: {name} is {shown}, not {dtype}")
        expected = tuple(sizes[size] if isinstance(size, str) else size for size in shape)
        if value.shape != expected:
            raise FourCardsError(f"{where}: {name} has shape {value.shape}, expected {expected} "
                                 "(counts gives the lessons, targets the rows)")
    counts = arrays["counts"]
    if len(counts) and arrays["matches"].min() < 0:
        raise FourCardsError(f"{where}: a match number below 0 ({int(arrays['matches'].min())}; matches are "
                             "numbered from 0)")
    if len(counts) and counts.max() > sizes["M"]:  # and so their sum cannot overflow
        raise FourCardsError(f"{where}: a lesson of {int(counts.max())} rows, but there are {sizes['M']}")
    if len(counts) and counts.min() < 2:
        raise FourCardsError(f"{where}: a lesson of {int(counts.min())} row(s) (every lesson has two or more)")
    if int(counts.sum()) != sizes["M"]:
        raise FourCardsError(f"{where}: the counts add up to {int(counts.sum())} rows, but there are "
                             f"{sizes['M']}")
    for name in ("states", "rows", "targets"):
        if not np.isfinite(arrays[name]).all():
            raise FourCardsError(f"{where}: {name} holds NaN or infinite values")
    targets = arrays["targets"]
    if len(targets):
        if targets.min() < 0:
            raise FourCardsError(f"{where}: targets holds a negative value (a distribution over each "
                                 "lesson's rows)")
        sums = np.add.reduceat(targets.astype(np.float64), np.concatenate([[0], np.cumsum(counts)[:-1]]))
        worst = int(np.argmax(np.abs(sums - 1.0)))
        if abs(sums[worst] - 1.0) > 1e-3:
            raise FourCardsError(f"{where}: lesson {worst}'s targets add up to {sums[worst]:.6g}, not 1 "
                                 "(a distribution over its rows)")
