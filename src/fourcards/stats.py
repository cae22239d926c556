"""Honest intervals for per-match results: a proportion's Wilson score
interval, a mean's Student's t interval (tournaments, ``fourcards simulate``).

>>> str(wilson_interval(0.5, 100)), str(t_interval([1.0, 2.0, 3.0]))
('0.500 [0.404, 0.596]', '2.000 [-0.484, 4.484]')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import FourCardsError

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

    def __str__(self) -> str:
        return self.format(3)

    def format(self, digits: int) -> str:
        if math.isinf(self.low) or math.isinf(self.high):
            return f"{self.mean:.{digits}f} [n/a]"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def wilson_interval(mean: float, count: int) -> Interval:
    """The Wilson score 95% interval of a proportion ``mean`` over ``count``
    samples: inside [0, 1], and honest for small samples and for 0 or 1."""
    if count < 1:
        raise FourCardsError("a proportion needs at least one sample")
    z2 = Z95 * Z95 / count
    centre = (mean + z2 / 2) / (1 + z2)
    half = Z95 / (1 + z2) * math.sqrt(max(mean * (1 - mean), 0.0) / count + z2 / (4 * count))
    # it always holds the mean (rounding aside) and stays inside [0, 1]
    return Interval(mean, max(0.0, min(centre - half, mean)), min(1.0, max(centre + half, mean)))


def t_quantile(df: int) -> float:
    """Student's t 97.5% quantile for ``df`` degrees of freedom."""
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


def t_interval(values: Sequence[float]) -> Interval:
    """Student's t 95% interval of the mean of ``values`` (``-inf``/``inf`` ends for one value)."""
    count = len(values)
    if count < 1:
        raise FourCardsError("a mean needs at least one value")
    mean = sum(values) / count
    if count < 2:
        return Interval(mean, -math.inf, math.inf)
    variance = sum((v - mean) ** 2 for v in values) / (count - 1)
    half = t_quantile(count - 1) * math.sqrt(variance / count)
    return Interval(mean, mean - half, mean + half)


def interval(values: np.ndarray[Any, Any], proportion: bool = False) -> dict[str, float | None]:
    """Mean and 95% interval of per-match values: Wilson's for a proportion (inside [0, 1]),
    Student's t otherwise; ``None`` where there is nothing to say (no matches; one match's spread)."""
    count = len(values)
    if count == 0:
        return {"mean": None, "low": None, "high": None}
    result = wilson_interval(float(values.mean()), count) if proportion else t_interval([float(v) for v in values])
    finite = np.isfinite([result.low, result.high]).all()
    return {"mean": result.mean, "low": result.low if finite else None, "high": result.high if finite else None}
