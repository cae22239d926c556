"""Reading a file a person names, bounded: ``/dev/zero`` or a huge file is refused, not read for ever;
an ``.npz`` of arrays, its every failure a :class:`~fourcards.errors.FourCardsError` naming it."""

from __future__ import annotations

import os
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .errors import FourCardsError

__all__ = ["read_at_most", "npz_arrays"]


def read_at_most(path: str | os.PathLike[str], most: int) -> bytes | None:
    """The bytes of the file ``path``, or None when it holds more than ``most`` bytes (read no
    further than one byte past them: a device that never ends is refused at once).
    ``OSError`` (and ``ValueError`` for a NUL in the name) when it cannot be read."""
    with open(path, "rb") as file:
        data = file.read(most + 1)
    return data if len(data) <= most else None


@contextmanager
def npz_arrays(path: str | os.PathLike[str], where: str, made_by: str) -> Iterator[Any]:
    """``np.load(path)`` of an ``.npz`` (no pickles), as a ``with`` block. A missing file, one that is not
    a regular file (a FIFO could block, a device never end: neither is opened), one that is no zip (its
    first bytes are read first: else numpy reads an ``.npy`` or speaks of pickles) and any failure to read
    it, in the block too, are a :class:`FourCardsError` starting with ``where``; ``made_by`` says what
    writes such files ("as fourcards.rl.train writes")."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, a device never end
            raise FourCardsError(f"{where}: not a regular file")
        with open(path, "rb") as handle:
            magic = handle.read(4)
        if magic != b"PK\x03\x04":
            raise FourCardsError(f"{where}: not an .npz file (a zip of arrays, {made_by})")
        with np.load(path, allow_pickle=False) as data:
            yield data
    except FileNotFoundError:
        raise FourCardsError(f"{where}: no such file") from None
    except FourCardsError:
        raise
    except MemoryError:  # an array whose header claims more than this machine holds
        raise FourCardsError(f"{where}: an array too large to read here") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as error:
        raise FourCardsError(f"{where}: not a readable .npz file ({type(error).__name__}: {error})") from None
