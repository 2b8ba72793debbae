"""E-divisive means with a Student t-test: where a series of latencies changed for good.

The method of Hunter (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
Performance Regressions", ICPE 2023) as Apache Otava implements it, on numpy alone:

1. **Split.** Windows of ``window`` points, each starting half a window after the last (or at
   the last change point found in it). In each window, E-divisive means (Matteson & James,
   2014) takes the split that maximises the energy statistic Q̂ over every (τ, κ), keeps it when
   a two-sided Student t-test between the two sides gives p ≤ ten times ``max_pvalue`` (weak
   change points), and splits the pieces again until one fails.
2. **Merge.** Over the whole series, the weakest point is dropped while one has p above
   ``max_pvalue`` or, when all pass, while the smallest relative change is at most
   ``min_magnitude``; the two neighbours of a dropped point are tested again against their
   new segments.

Like Otava: the t-test pools the two sides' variances, computed as population deviations
(ddof 0); a relative change is the larger of after/before − 1 and before/after − 1 of the
segment means. Unlike Otava: the t distribution's tail is computed here (the regularised
incomplete beta function) instead of by scipy, which a terminal dashboard need not install
for one function; ``tests/test_changes.py`` holds it against tabulated values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

WINDOW = 50
MAX_PVALUE = 0.001


@dataclass(frozen=True, slots=True)
class Split:
    """A change point: ``index`` is the first point after it. Means, p-value and the sides'
    lengths are those of the segments between its neighbouring change points."""

    index: int
    mean_before: float
    mean_after: float
    pvalue: float
    before: int
    after: int

    def magnitude(self) -> float:
        """The larger of the forward and backward relative change (Otava's)."""
        forward = self.mean_after / self.mean_before - 1.0 if self.mean_before else 0.0
        backward = self.mean_before / self.mean_after - 1.0 if self.mean_after else 0.0
        return max(abs(forward), abs(backward))


# -- Student's t ---------------------------------------------------------------------------


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def t_two_sided(t: float, df: int) -> float:
    """P(|T| ≥ |t|) for Student's t with ``df`` degrees of freedom."""
    if math.isnan(t):
        return 1.0
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def t_test(left: NDArray[np.float64], right: NDArray[np.float64]) -> tuple[float, float, float]:
    """(mean left, mean right, p) of a two-sided pooled-variance t-test (Otava's: population
    deviations passed as the samples'). Equal constant sides: p 1; different ones: p 0."""
    n1, n2 = len(left), len(right)
    m1, m2 = float(left.mean()), float(right.mean())
    df = n1 + n2 - 2
    if df <= 0:
        return m1, m2, 1.0
    v1 = float(left.var()) if n1 >= 2 else 0.0
    v2 = float(right.var()) if n2 >= 2 else 0.0
    pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
    spread = math.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
    if spread == 0.0:
        return m1, m2, 1.0 if m1 == m2 else 0.0
    return m1, m2, t_two_sided((m1 - m2) / spread, df)


# -- E-divisive in one window ---------------------------------------------------------------


class _Window:
    """One window's pairwise distances, as 2-D prefix sums: the sum of |x_i − x_j| over any
    rectangle of (i, j) in four look-ups, so each Q̂ search is a few array operations."""

    def __init__(self, values: NDArray[np.float64]) -> None:
        self.values = values
        distances = np.abs(values[:, None] - values[None, :])
        prefix = np.zeros((len(values) + 1, len(values) + 1))
        prefix[1:, 1:] = distances.cumsum(axis=0).cumsum(axis=1)
        self.prefix = prefix

    def best(self, start: int, stop: int) -> tuple[int, float] | None:
        """The τ in (start, stop) and κ in (τ, stop] that maximise Q̂(x[start:τ], x[τ:κ])."""
        if stop - start < 2:
            return None
        p = self.prefix
        taus = np.arange(start + 1, stop)[:, None]
        kappas = np.arange(start + 2, stop + 1)[None, :]
        n = (taus - start).astype(float)
        m = (kappas - taus).astype(float)
        valid = m >= 1
        diag = np.diagonal(p)
        within_x = (diag[taus] - 2.0 * p[start, taus] + p[start, start]) / 2.0
        within_y = (diag[kappas] - p[taus, kappas] - p[kappas, taus] + diag[taus]) / 2.0
        between = p[taus, kappas] - p[start, kappas] - p[taus, taus] + p[start, taus]
        with np.errstate(divide="ignore", invalid="ignore"):
            q = 2.0 / (m + n) * between
            q -= np.where(n > 1, 2.0 * m / ((m + n) * (n - 1.0)) * within_x, 0.0)
            q -= np.where(m > 1, 2.0 * n / ((m + n) * (m - 1.0)) * within_y, 0.0)
        q = np.where(valid, q, -np.inf)
        flat = int(np.argmax(q))
        row = flat // q.shape[1]
        return start + 1 + row, float(q.flat[flat])


def _bounds(cuts: Sequence[int], length: int) -> list[tuple[int, int]]:
    edges = [0, *cuts, length]
    return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if a != b]


def _divisive(values: NDArray[np.float64], max_pvalue: float) -> list[int]:
    """The change points E-divisive finds in one window, each passing the t-test."""
    window = _Window(values)
    cuts: list[int] = []
    while True:
        best: tuple[int, float, int, int] | None = None
        for start, stop in _bounds(cuts, len(values)):
            found = window.best(start, stop)
            if found is not None and (best is None or found[1] > best[1]):
                best = (found[0], found[1], start, stop)
        if best is None:
            return cuts
        index, _q, start, stop = best
        if t_test(values[start:index], values[index:stop])[2] > max_pvalue:
            return cuts
        cuts = sorted([*cuts, index])


# -- split and merge --------------------------------------------------------------------


def _stats(values: NDArray[np.float64], cuts: list[int], at: int) -> Split:
    index = cuts[at]
    start = cuts[at - 1] if at > 0 else 0
    stop = cuts[at + 1] if at + 1 < len(cuts) else len(values)
    left, right = values[start:index], values[index:stop]
    m1, m2, p = t_test(left, right)
    return Split(index, m1, m2, p, len(left), len(right))


def split(values: NDArray[np.float64], window: int, max_pvalue: float) -> list[int]:
    """The weak change points: E-divisive in sliding windows, their union."""
    if window < 2:
        raise ValueError("window must be at least 2")
    found: set[int] = set()
    start, step = 0, window // 2
    while start < len(values):
        stop = min(start + window, len(values))
        cuts = [start + cut for cut in _divisive(values[start:stop], max_pvalue)]
        found.update(cuts)
        start = max(cuts[-1] if cuts else 0, start + step)
    return sorted(found)


def merge(values: NDArray[np.float64], cuts: list[int], max_pvalue: float, min_magnitude: float) -> list[Split]:
    """Drop the weakest point until every one passes the test and changes by more than
    ``min_magnitude``; the neighbours of a dropped point are tested against their new segments."""
    cuts = list(cuts)
    points = [_stats(values, cuts, at) for at in range(len(cuts))]
    while points:
        weakest = max(range(len(points)), key=lambda at: points[at].pvalue)
        if points[weakest].pvalue < max_pvalue:
            weakest = min(range(len(points)), key=lambda at: points[at].magnitude())
            if points[weakest].magnitude() > min_magnitude:
                return points
        del cuts[weakest], points[weakest]
        for at in (weakest - 1, weakest):
            if 0 <= at < len(points):
                points[at] = _stats(values, cuts, at)
    return points


def change_points(
    series: Sequence[float] | NDArray[np.float64],
    window: int = WINDOW,
    max_pvalue: float = MAX_PVALUE,
    min_magnitude: float = 0.0,
) -> list[Split]:
    """The change points of ``series`` (oldest first), by index of the first point after each.

    ``min_magnitude``: the least relative change kept (0.03 for 3%). A series whose largest
    value is within ``min_magnitude`` of its smallest cannot hold one: it is not searched."""
    values = np.asarray(series, dtype=np.float64)
    if len(values) < 3 or not np.all(np.isfinite(values)):
        return []
    low, high = float(values.min()), float(values.max())
    if low > 0 and high / low - 1.0 <= min_magnitude:
        return []  # every segment's mean lies in [low, high]: no change beyond min_magnitude
    first_pass = max_pvalue * 10 if max_pvalue < 0.05 else (max_pvalue * 2 if max_pvalue < 0.5 else max_pvalue)
    return merge(values, split(values, window, first_pass), max_pvalue, min_magnitude)
