"""Where a parameter turns kept into broken: a logistic fit with a profile-likelihood interval, and binned compliance.

The model is P(kept | x) = 1 / (1 + exp(-k (x - x0))): x0 is the value where compliance is 50 %. For each x0 on
a fine grid the slope k is fitted by maximum likelihood; the 95 % interval is every x0 whose profile
log-likelihood is within chi2(1, 0.95) / 2 = 1.92 of the best (Wilks). The slope is capped so a clean
separation (every broken run below every kept one) gives the gap between them, not an infinite slope.
Compliance per bin comes with a Wilson score interval.

Two parameters are also fitted jointly, P(kept | x, y) = 1 / (1 + exp(-(w0 + w1 u + w2 v))) on the parameters
scaled to [0, 1] (u, v), so a boundary that depends on both (a diagonal in the plane) is found as a line rather
than as two wide one-parameter intervals; a small ridge keeps the weights finite when the runs separate cleanly.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence

__all__ = ["Boundary", "JointBoundary", "estimate_boundary", "estimate_joint_boundary", "wilson", "binned_compliance",
           "CHI2_95"]

CHI2_95 = 3.841458820694124  # chi-squared, one degree of freedom, 95 %
_GRID = 400


@dataclass(frozen=True)
class Boundary:
    """The 50 % compliance value of one parameter, its 95 % interval, and which side is broken."""

    param: str
    n: int
    kept: int
    x50: float | None  # None: no boundary inside the searched range (all kept or all broken)
    low: float | None  # 95 % interval
    high: float | None
    broken_side: str | None  # "below" (compliance rises with x) or "above"
    open_low: bool = False  # the interval reaches the searched range's end
    open_high: bool = False
    note: str = ""

    def to_json(self) -> dict:
        return asdict(self)

    def sentence(self, unit: str = "") -> str:
        u = f" {unit}" if unit else ""
        if self.x50 is None:
            return f"{self.param}: no boundary in the searched range ({self.note})"
        lo = f"<= {self.low:.4g}" if self.open_low else f"{self.low:.4g}"
        hi = f">= {self.high:.4g}" if self.open_high else f"{self.high:.4g}"
        return (f"{self.param}: compliance crosses 50 % at {self.x50:.4g}{u} (95 % interval {lo} .. {hi}{u}; "
                f"broken {self.broken_side}; logistic fit, profile likelihood, {self.n} runs, {self.kept} kept)")


def _profile(xs: Sequence[float], ys: Sequence[int], grid: Sequence[float], kmax: float) -> list[tuple[float, float, float]]:
    """(x0, best slope, log-likelihood) for each x0 of the grid; slopes on a signed log-spaced grid up to kmax."""
    import numpy as np

    x, y = np.asarray(xs, float), np.asarray(ys, float)
    mags = kmax * np.logspace(-4, 0, 81)
    ks = np.concatenate([-mags[::-1], mags])
    out = []
    for x0 in grid:
        z = ks[:, None] * (x[None, :] - x0)
        s = np.where(y[None, :] > 0, z, -z)
        ll = -np.logaddexp(0.0, -s).sum(axis=1)  # log sigmoid(s), summed over runs
        i = int(np.argmax(ll))
        out.append((float(x0), float(ks[i]), float(ll[i])))
    return out


def estimate_boundary(param: str, xs: Sequence[float], kept: Sequence[bool], low: float | None = None,
                      high: float | None = None) -> Boundary:
    """The 50 % boundary of compliance over x (the searched range [low, high], else the data's)."""
    pts = [(float(x), 1 if k else 0) for x, k in zip(xs, kept) if x is not None and math.isfinite(float(x))]
    n, nk = len(pts), sum(y for _, y in pts)
    if n == 0:
        return Boundary(param, 0, 0, None, None, None, None, note="no runs")
    if nk in (0, n):
        return Boundary(param, n, nk, None, None, None, None, note=f"all {n} runs {'kept' if nk else 'broken'}")
    x_lo = min(x for x, _ in pts) if low is None else float(low)
    x_hi = max(x for x, _ in pts) if high is None else float(high)
    span = (x_hi - x_lo) or 1.0
    kmax = 400.0 / span  # the transition is at least about 1 % of the range wide
    xs_, ys_ = [x for x, _ in pts], [y for _, y in pts]
    grid = [x_lo + span * i / _GRID for i in range(_GRID + 1)]
    prof = _profile(xs_, ys_, grid, kmax)
    x50, k50, ll_best = max(prof, key=lambda t: t[2])
    inside = [x0 for x0, _, ll in prof if 2.0 * (ll_best - ll) <= CHI2_95]
    return Boundary(param, n, nk, x50, min(inside), max(inside), "below" if k50 > 0 else "above",
                    open_low=min(inside) <= grid[0], open_high=max(inside) >= grid[-1])


@dataclass(frozen=True)
class JointBoundary:
    """The 50 % compliance line of two parameters, w0 + wx x + wy y = 0 in their own units, and how well it splits."""

    params: tuple[str, str]
    n: int
    kept: int
    w: tuple[float, float, float] | None  # (w0, wx, wy); None when every run is kept or every one broken
    misclassified: int = 0  # runs on the wrong side of the line
    note: str = ""

    def to_json(self) -> dict:
        return asdict(self)

    def y_at(self, x: float) -> float | None:
        """The second parameter's value on the 50 % line at the first's value x (None for a line parallel to it)."""
        if self.w is None or abs(self.w[2]) < 1e-12:
            return None
        return -(self.w[0] + self.w[1] * x) / self.w[2]

    def sentence(self) -> str:
        a, b = self.params
        if self.w is None:
            return f"{a} x {b}: no boundary in the searched range ({self.note})"
        w0, wx, wy = self.w
        kept_side = "above" if wy > 0 else "below"
        if abs(wy) > 1e-12:
            line = f"{b} = {-wx / wy:.4g} * {a} {'+' if -w0 / wy >= 0 else '-'} {abs(w0 / wy):.4g}"
            where = f"kept {kept_side} the line"
        else:
            line = f"{a} = {-w0 / wx:.4g}"
            where = f"kept {'above' if wx > 0 else 'below'} it"
        return (f"{a} x {b}: compliance crosses 50 % on {line} ({where}; joint logistic fit, {self.n} runs, {self.kept} "
                f"kept, {self.misclassified} on the wrong side)")


def estimate_joint_boundary(params: tuple[str, str], xs: Sequence[float], ys: Sequence[float], kept: Sequence[bool],
                            ranges: tuple[tuple[float, float], tuple[float, float]]) -> JointBoundary:
    """The 50 % line of compliance over two parameters searched over `ranges` (a logistic fit, ridge 1e-3)."""
    import numpy as np
    from scipy.optimize import minimize

    pts = [(float(x), float(y), 1.0 if k else 0.0) for x, y, k in zip(xs, ys, kept)
           if x is not None and y is not None and math.isfinite(float(x)) and math.isfinite(float(y))]
    n, nk = len(pts), int(sum(k for *_, k in pts))
    if n == 0 or nk in (0, n):
        return JointBoundary(tuple(params), n, nk, None, note="no runs" if n == 0 else f"all {n} runs {'kept' if nk else 'broken'}")
    (x0, x1), (y0, y1) = ranges
    sx, sy = (x1 - x0) or 1.0, (y1 - y0) or 1.0
    a = np.array([[1.0, (x - x0) / sx, (y - y0) / sy] for x, y, _ in pts])
    k = np.array([c for *_, c in pts])
    sign = 2 * k - 1

    def loss(w):
        z = sign * (a @ w)
        g = -sign * (1 / (1 + np.exp(z)))
        return float(np.logaddexp(0.0, -z).sum() + 1e-3 * (w[1:] @ w[1:])), a.T @ g + np.r_[0.0, 2e-3 * w[1:]]

    w = minimize(loss, np.zeros(3), jac=True, method="L-BFGS-B").x
    wrong = int(((a @ w > 0) != (k > 0)).sum())
    # back to the parameters' units: w0 + w1 (x - x0) / sx + w2 (y - y0) / sy
    wx, wy = w[1] / sx, w[2] / sy
    return JointBoundary(tuple(params), n, nk, (float(w[0] - wx * x0 - wy * y0), float(wx), float(wy)), wrong)


def wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float, float]:
    """(share, low, high): the Wilson score interval of k successes in n at 95 %."""
    if n == 0:
        return math.nan, 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return p, max(0.0, c - h), min(1.0, c + h)


def binned_compliance(xs: Sequence[float], kept: Sequence[bool], low: float, high: float,
                      bins: int = 8) -> list[tuple[float, int, int, float, float, float]]:
    """(bin centre, runs, kept, share, Wilson low, Wilson high) per non-empty bin of [low, high]."""
    width = (high - low) / bins or 1.0
    counts = [[0, 0] for _ in range(bins)]
    for x, k in zip(xs, kept):
        if x is None:
            continue
        i = min(bins - 1, max(0, int((x - low) / width)))
        counts[i][0] += 1
        counts[i][1] += bool(k)
    out = []
    for i, (n, k) in enumerate(counts):
        if n:
            out.append((low + (i + 0.5) * width, n, k, *wilson(k, n)))
    return out
