"""Pearson's chi-square test, written out (no SciPy in the test extra): the
statistic of observed against expected counts and its p-value, the
regularized upper incomplete gamma function Q(k/2, x/2)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) (series below a + 1,
    Lentz's continued fraction above; Numerical Recipes 6.2)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi_square(observed: Mapping[Any, int], expected: Mapping[Any, float]) -> tuple[float, int, float]:
    """``(statistic, degrees of freedom, p-value)`` of ``observed`` counts against
    ``expected`` counts (same total; cells observed outside ``expected`` count as
    impossible: p-value 0)."""
    if any(key not in expected for key in observed):
        return math.inf, len(expected) - 1, 0.0
    statistic = sum((observed.get(key, 0) - e) ** 2 / e for key, e in expected.items())
    df = len(expected) - 1
    return statistic, df, (1.0 if df == 0 else gamma_q(df / 2, statistic / 2))


def expected_counts(weights: Mapping[Any, int], samples: int) -> dict[Any, float]:
    total = sum(weights.values())
    return {key: samples * w / total for key, w in weights.items()}


def smallest(values: Sequence[float]) -> float:
    return min(values) if values else math.inf
