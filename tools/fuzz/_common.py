"""Shared by the atheris harnesses: what counts as a clean refusal.

A harness feeds an input to one public API; the API may answer or refuse
with the library's own errors (``FourCardsError``, also a ``ValueError``, or
``TypeError`` for a wrong type).  Anything else escaping (``IndexError``,
``OverflowError``, ``RecursionError``, ``KeyError``, ...) or a wrong answer
is a finding: the harness raises, atheris stops and writes the input.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("FOURCARDS_REQUIRE_EXTENSIONS", "1")
sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))


class Finding(AssertionError):
    """A wrong answer: the compiled path and the twin disagree, or an invariant broke."""


def clean_error(error: BaseException) -> bool:
    """Whether ``error`` is one of the library's refusals."""
    from fourcards.errors import FourCardsError

    return isinstance(error, (FourCardsError, TypeError))
