"""Honest intervals for per-match results: a proportion's Wilson score
interval, a mean's Student's t interval (tournaments, ``fourcards simulate``).

>>> str(wilson_interval(0.5, 100)), str(t_interval([1.0, 2.0, 3.0]))
('0.500 [0.404, 0.596]', '2.000 [-0.484, 4.484]')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .engine import check_count, check_flag, check_real
from .errors import FourCardsError, InvalidTypeError

__all__ = ["Interval", "wilson_interval", "t_interval", "t_quantile", "interval", "Z95"]

Z95 = 1.959963984540054
# Student's t, 97.5% quantile, by degrees of freedom 1..30 (beyond: a series around the normal).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)


@dataclass(frozen=True)
class Interval:
    """A mean and its 95% interval (``-inf``/``inf`` ends when a sample is too small to say)."""

    mean: float
    low: float
    high: float

    def __post_init__(self) -> None:
        for name in ("mean", "low", "high"):
            check_real(getattr(self, name), f"Interval {name}")

    def __str__(self) -> str:
        return self.format(3)

    def format(self, digits: int) -> str:
        """The mean and its interval with ``digits`` (an int >= 0) digits after the point."""
        digits = check_count(digits, "digits")
        if math.isinf(self.low) or math.isinf(self.high):
            return f"{self.mean:.{digits}f} [n/a]"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def wilson_interval(mean: float, count: int) -> Interval:
    """The Wilson score 95% interval of a proportion ``mean`` over ``count``
    samples: inside [0, 1], and honest for small samples and for 0 or 1.

    ``mean`` is a real number in 0..1 and ``count`` an int >= 1
    (:class:`~fourcards.errors.InvalidTypeError` for another type,
    :class:`FourCardsError` for another value)."""
    mean = _proportion(mean, "mean")
    count = _at_least_one(count, "count", "a proportion needs at least one sample")
    z2 = Z95 * Z95 / count
    centre = (mean + z2 / 2) / (1 + z2)
    half = Z95 / (1 + z2) * math.sqrt(max(mean * (1 - mean), 0.0) / count + z2 / (4 * count))
    # it always holds the mean (rounding aside) and stays inside [0, 1]
    return Interval(mean, max(0.0, min(centre - half, mean)), min(1.0, max(centre + half, mean)))


def t_quantile(df: int) -> float:
    """Student's t 97.5% quantile for ``df`` (an int >= 1) degrees of freedom."""
    df = _at_least_one(df, "df", "Student's t needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


def t_interval(values: Sequence[float]) -> Interval:
    """Student's t 95% interval of the mean of ``values`` (``-inf``/``inf`` ends for one value):
    a sequence (or a 1-D numpy array) of finite real numbers, at least one."""
    values = _reals(values, "values")
    count = len(values)
    if count < 1:
        raise FourCardsError("values is empty: a mean needs at least one value")
    mean = sum(values) / count
    if count < 2:
        return Interval(mean, -math.inf, math.inf)
    variance = sum((v - mean) ** 2 for v in values) / (count - 1)
    half = t_quantile(count - 1) * math.sqrt(variance / count)
    return Interval(mean, mean - half, mean + half)


def interval(values: np.ndarray[Any, Any], proportion: bool = False) -> dict[str, float | None]:
    """Mean and 95% interval of per-match values: Wilson's for a proportion (inside [0, 1]),
    Student's t otherwise; ``None`` where there is nothing to say (no matches; one match's spread).
    ``values``: a 1-D numpy array (or a sequence) of finite real numbers, each in 0..1 for a
    ``proportion`` (a bool)."""
    proportion = check_flag(proportion, "proportion")
    floats = _reals(values, "values")
    count = len(floats)
    if count == 0:
        return {"mean": None, "low": None, "high": None}
    array = np.array(floats, dtype=np.float64)
    if proportion:
        outside = np.flatnonzero((array < 0) | (array > 1))
        if outside.size:
            _proportion(floats[outside[0]], f"values[{outside[0]}]")
    result = wilson_interval(min(float(array.mean()), 1.0), count) if proportion else t_interval(floats)
    finite = np.isfinite([result.low, result.high]).all()
    return {"mean": result.mean, "low": result.low if finite else None, "high": result.high if finite else None}


def _at_least_one(value: Any, name: str, reason: str) -> int:
    """``value`` checked as an int >= 1 (numpy ints too; not a bool nor a float)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value < 1:
        raise FourCardsError(f"{name}={value} must be at least 1: {reason}")
    return check_count(value, name)


def _proportion(value: Any, name: str) -> float:
    """``value`` checked as a proportion: a real number in 0..1."""
    number = check_real(value, name)
    if not 0.0 <= number <= 1.0:  # nan fails this too
        raise FourCardsError(f"{name}={number!r} is no proportion: it must be in 0..1")
    return number


def _reals(values: Any, name: str) -> list[float]:
    """``values`` as a list of finite floats: a 1-D numpy array of numbers or an iterable
    (not a text, a mapping or a set) of real numbers."""
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise FourCardsError(f"{name} must be a 1-D array, not {values.ndim}-D of shape {values.shape}")
        if values.dtype.kind not in "biuf":
            raise InvalidTypeError(f"{name} must be an array of numbers, not of {values.dtype}")
        array = values.astype(np.float64)
        bad = np.flatnonzero(~np.isfinite(array))
        if bad.size:
            raise FourCardsError(f"{name}[{bad[0]}]={float(array[bad[0]])!r} is not a finite number")
        listed: list[float] = array.tolist()
        return listed
    if isinstance(values, (str, bytes, bytearray, Mapping, set, frozenset)) or not isinstance(values, Iterable):
        raise InvalidTypeError(f"{name} must be a sequence of numbers, not {type(values).__name__}")
    floats = []
    for index, value in enumerate(values):
        number = check_real(value, f"{name}[{index}]")
        if not math.isfinite(number):
            raise FourCardsError(f"{name}[{index}]={number!r} is not a finite number")
        floats.append(number)
    return floats
