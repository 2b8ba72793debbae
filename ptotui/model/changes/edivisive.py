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
for one function; ``tests/model/test_changes.py`` holds it against tabulated values.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

WINDOW = 50
MAX_PVALUE = 0.001
SHARED_WINDOWS = 4  # a series up to this many windows long has one set of within-sums


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


def _pooled(n1: int, m1: float, v1: float, n2: int, m2: float, v2: float) -> float:
    """The p of a two-sided pooled-variance t-test from each side's length, mean and variance."""
    df = n1 + n2 - 2
    if df <= 0:
        return 1.0
    pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
    spread = math.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
    if spread == 0.0:
        return 1.0 if m1 == m2 else 0.0
    return t_two_sided((m1 - m2) / spread, df)


@functools.lru_cache(maxsize=4096)
def _critical_t(df: int, pvalue: float) -> float:
    """The |t| at which a two-sided test with ``df`` degrees of freedom gives ``pvalue``
    (bisection on :func:`t_two_sided`, which falls as |t| grows): a search's many tests ask
    only whether p passes, and |t| against this answers it without the continued fraction.
    Serves the time of the change points (``ptotui changes``, the changes pane; 0.33 ms a
    50-run series instead of 1.0-1.3 with e834570's tables, benchmarks/bench_changepoints.py)."""
    low, high = 0.0, 1.0
    while t_two_sided(high, df) > pvalue:
        low, high = high, high * 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if t_two_sided(middle, df) > pvalue:
            low = middle
        else:
            high = middle
    return high


def _passes(n1: int, m1: float, v1: float, n2: int, m2: float, v2: float, max_pvalue: float) -> bool:
    """Whether the pooled t-test gives p ≤ ``max_pvalue`` (as ``_pooled(...) <= max_pvalue``)."""
    df = n1 + n2 - 2
    if df <= 0:
        return max_pvalue >= 1.0
    pooled = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
    spread = math.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
    if spread == 0.0:
        return (1.0 if m1 == m2 else 0.0) <= max_pvalue
    t, critical = abs((m1 - m2) / spread), _critical_t(df, max_pvalue)
    if abs(t - critical) <= 1e-9 * critical:  # at the edge: the p itself decides
        return t_two_sided(t, df) <= max_pvalue
    return t > critical


class _Moments:
    """Running sums of a series (less its first value, against cancellation): any segment's
    mean and population variance in O(1), so the many t-tests of a search cost no arrays.
    (numpy's cumsum adds in order, as a running sum in Python does: the same sums, faster.)"""

    def __init__(self, values: NDArray[np.float64]) -> None:
        self.offset = float(values[0]) if len(values) else 0.0
        shifted = values - self.offset
        self.sums: list[float] = [0.0, *np.cumsum(shifted).tolist()]
        self.squares: list[float] = [0.0, *np.cumsum(shifted * shifted).tolist()]

    def mean_var(self, start: int, stop: int) -> tuple[float, float]:
        n = stop - start
        mean = (self.sums[stop] - self.sums[start]) / n
        if n < 2:
            return mean + self.offset, 0.0
        return mean + self.offset, max(0.0, (self.squares[stop] - self.squares[start]) / n - mean * mean)

    def test(self, start: int, index: int, stop: int) -> tuple[float, float, float]:
        """(mean left, mean right, p) of the pooled t-test of ``values[start:index]`` against ``values[index:stop]``."""
        m1, v1 = self.mean_var(start, index)
        m2, v2 = self.mean_var(index, stop)
        return m1, m2, _pooled(index - start, m1, v1, stop - index, m2, v2)

    def passes(self, start: int, index: int, stop: int, max_pvalue: float) -> bool:
        """Whether ``test(start, index, stop)`` gives p ≤ ``max_pvalue``."""
        m1, v1 = self.mean_var(start, index)
        m2, v2 = self.mean_var(index, stop)
        return _passes(index - start, m1, v1, stop - index, m2, v2, max_pvalue)


# -- E-divisive in one window ---------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _coefficients(size: int) -> tuple[NDArray[np.float64], ...]:
    """Q̂'s weights by (n, L): the first side's length and both sides' together (m = L − n).

    With W(a, b) the sum of |x_i − x_j| over i < j in [a, b) and s the start,
    Q̂ = 2/L · between − 2m/(L(n−1)) · W(s, s+n) − 2n/(L(m−1)) · W(s+n, s+L), and
    between = W(s, s+L) − W(s, s+n) − W(s+n, s+L); so
    Q̂ = a·W(s, s+L) − b·W(s, s+n) − c·W(s+n, s+L) + none for the a, b, c returned (none:
    −inf where no split is, n < 1 or m < 1). Depending only on (n, L), made once per size."""
    n = np.arange(size + 1, dtype=np.float64)[:, None]
    total = np.arange(size + 1, dtype=np.float64)[None, :]
    m = total - n
    valid = (n >= 1) & (m >= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(valid, 2.0 / total, 0.0)
        second = np.where(valid & (n > 1), 2.0 * m / (total * (n - 1.0)), 0.0)
        third = np.where(valid & (m > 1), 2.0 * n / (total * (m - 1.0)), 0.0)
    return first, first + second, first + third, np.where(valid, 0.0, -np.inf)


class _Window:
    """One window's within-sums W(a, b) (of |x_i − x_j| over i < j in [a, b)) for every a ≤ b,
    from 2-D prefix sums of the distances: each Q̂ search is then a few array operations."""

    def __init__(self, values: NDArray[np.float64], first: int = 0) -> None:
        self.values = values
        self.first = first  # a series point p is this one's point p + first (0: the whole series)
        size = len(values)
        prefix = np.zeros((size + 1, size + 1))
        prefix[1:, 1:] = np.abs(values[:, None] - values[None, :]).cumsum(axis=0).cumsum(axis=1)
        diag = np.diagonal(prefix)
        self.within = (diag[None, :] + diag[:, None] - prefix - prefix.T) / 2.0
        self.weights = _coefficients(size)

    def best(self, start: int, stop: int) -> tuple[int, float] | None:
        """The τ in (start, stop) and κ in (τ, stop] that maximise Q̂(x[start:τ], x[τ:κ])."""
        k = stop - start
        if k < 2:
            return None
        sub = self.within[start : stop + 1, start : stop + 1]  # sub[n, L] = W(start+n, start+L)
        row = sub[0]
        a, b, c, none = (w[: k + 1, : k + 1] for w in self.weights)
        q = a * row[None, :] - b * row[:, None] - c * sub + none
        flat = int(np.argmax(q))
        n = flat // (k + 1)
        return start + n, float(q.flat[flat])


def _bounds(cuts: Sequence[int], length: int) -> list[tuple[int, int]]:
    edges = [0, *cuts, length]
    return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if a != b]


def _divisive(window: _Window, at: int, stop_at: int, max_pvalue: float, moments: _Moments) -> list[int]:
    """The change points E-divisive finds in the window of the series' points [at, stop_at),
    each passing the t-test, by index within the window. ``window`` holds the within-sums of
    those points (a series point p is its point p + ``window.first``)."""
    length = stop_at - at
    cuts: list[int] = []
    while True:
        best: tuple[int, float, int, int] | None = None
        for start, stop in _bounds(cuts, length):
            found = window.best(window.first + at + start, window.first + at + stop)
            if found is not None and (best is None or found[1] > best[1]):
                best = (found[0] - window.first - at, found[1], start, stop)
        if best is None:
            return cuts
        index, _q, start, stop = best
        if not moments.passes(at + start, at + index, at + stop, max_pvalue):
            return cuts
        cuts = sorted([*cuts, index])


# -- split and merge --------------------------------------------------------------------


def _stats(moments: _Moments, length: int, cuts: list[int], at: int) -> Split:
    index = cuts[at]
    start = cuts[at - 1] if at > 0 else 0
    stop = cuts[at + 1] if at + 1 < len(cuts) else length
    m1, m2, p = moments.test(start, index, stop)
    return Split(index, m1, m2, p, index - start, stop - index)


def split(values: NDArray[np.float64], window: int, max_pvalue: float, moments: _Moments | None = None) -> list[int]:
    """The weak change points: E-divisive in sliding windows, their union."""
    if window < 2:
        raise ValueError("window must be at least 2")
    moments = moments if moments is not None else _Moments(values)
    # The windows overlap: for a series of a few windows, one set of within-sums serves them all
    # (W(a, b) does not depend on where a window starts); a longer one gets one per window.
    whole = _Window(values) if len(values) <= SHARED_WINDOWS * window else None
    found: set[int] = set()
    start, step = 0, window // 2
    while start < len(values):
        stop = min(start + window, len(values))
        sums = whole if whole is not None else _Window(values[start:stop], -start)
        cuts = [start + cut for cut in _divisive(sums, start, stop, max_pvalue, moments)]
        found.update(cuts)
        start = max(cuts[-1] if cuts else 0, start + step)
    return sorted(found)


def merge(
    values: NDArray[np.float64],
    cuts: list[int],
    max_pvalue: float,
    min_magnitude: float,
    moments: _Moments | None = None,
) -> list[Split]:
    """Drop the weakest point until every one passes the test and changes by more than
    ``min_magnitude``; the neighbours of a dropped point are tested against their new segments."""
    cuts, moments = list(cuts), moments if moments is not None else _Moments(values)
    points = [_stats(moments, len(values), cuts, at) for at in range(len(cuts))]
    while points:
        weakest = max(range(len(points)), key=lambda at: points[at].pvalue)
        if points[weakest].pvalue < max_pvalue:
            weakest = min(range(len(points)), key=lambda at: points[at].magnitude())
            if points[weakest].magnitude() > min_magnitude:
                return points
        del cuts[weakest], points[weakest]
        for at in (weakest - 1, weakest):
            if 0 <= at < len(points):
                points[at] = _stats(moments, len(values), cuts, at)
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
    moments = _Moments(values)
    return merge(values, split(values, window, first_pass, moments), max_pvalue, min_magnitude, moments)
