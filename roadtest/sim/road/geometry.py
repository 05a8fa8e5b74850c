"""OpenDRIVE planView geometries (one class per type), evaluated vectorised along s.

Each geometry maps a local arc length ds in [0, length] to inertial (x, y, heading) and curvature.
poly3 and paramPoly3 are re-parameterised by arc length (a dense table), so ds is a true distance
and the end of the curve is reached exactly at ds = length.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Geometry", "Line", "Arc", "Spiral", "Poly3", "ParamPoly3", "Poly", "Piecewise"]


@dataclass
class Geometry:
    """Common fields of a planView <geometry>: start s, start pose and length."""

    s: float
    x: float
    y: float
    hdg: float
    length: float

    def local(self, ds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(u, v, local heading) in the frame of the geometry start."""
        raise NotImplementedError

    def curvature(self, ds: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def eval(self, ds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Inertial (x, y, heading) at local arc lengths ds."""
        ds = np.asarray(ds, dtype=float)
        u, v, hl = self.local(ds)
        c, s = math.cos(self.hdg), math.sin(self.hdg)
        return self.x + c * u - s * v, self.y + s * u + c * v, self.hdg + hl


@dataclass
class Line(Geometry):
    """A straight line."""

    def local(self, ds):
        return ds, np.zeros_like(ds), np.zeros_like(ds)

    def curvature(self, ds):
        return np.zeros_like(np.asarray(ds, dtype=float))


@dataclass
class Arc(Geometry):
    """A circular arc of constant curvature (1/m, positive turns left)."""

    k: float = 0.0

    def local(self, ds):
        k = self.k
        if abs(k) < 1e-12:
            return ds, np.zeros_like(ds), np.zeros_like(ds)
        a = k * ds
        return np.sin(a) / k, (1.0 - np.cos(a)) / k, a

    def curvature(self, ds):
        return np.full_like(np.asarray(ds, dtype=float), self.k)


def _clothoid(u: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray]:
    """Point of the canonical clothoid (curvature c*u, through the origin heading 0) at arc length u."""
    from scipy.special import fresnel

    a = math.sqrt(math.pi / abs(c))
    sf, cf = fresnel(u / a)
    return a * cf, math.copysign(a, c) * sf


@dataclass
class Spiral(Geometry):
    """A clothoid: curvature changes linearly from curv_start to curv_end (Fresnel integrals)."""

    curv_start: float = 0.0
    curv_end: float = 0.0

    def _rate(self) -> float:
        return (self.curv_end - self.curv_start) / self.length if self.length > 0 else 0.0

    def local(self, ds):
        c = self._rate()
        k0 = self.curv_start
        if abs(c) < 1e-12:
            return Arc(self.s, 0, 0, 0, self.length, k0).local(ds)
        u0 = k0 / c
        x0, y0 = _clothoid(np.array([u0]), c)
        x1, y1 = _clothoid(u0 + ds, c)
        th0 = 0.5 * c * u0 * u0
        dx, dy = x1 - x0[0], y1 - y0[0]
        ct, st = math.cos(th0), math.sin(th0)
        return ct * dx + st * dy, -st * dx + ct * dy, k0 * ds + 0.5 * c * ds * ds

    def curvature(self, ds):
        return self.curv_start + self._rate() * np.asarray(ds, dtype=float)


@dataclass
class _Tabulated(Geometry):
    """A curve given by a parameter p, re-parameterised by arc length through a dense table."""

    _p: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]
    _sl: np.ndarray = field(default=None, repr=False)  # type: ignore[assignment]

    def _uv(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """u, v and their first and second derivatives at parameter p."""
        raise NotImplementedError

    def _p_max(self) -> float:
        raise NotImplementedError

    def _table(self) -> None:
        n = min(max(64, int(self.length * 4) + 1), 200_000)
        p = np.linspace(0.0, self._p_max(), n)
        _, _, du, dv, _, _ = self._uv(p)
        speed = np.hypot(du, dv)
        arc = np.concatenate([[0.0], np.cumsum(0.5 * (speed[1:] + speed[:-1]) * np.diff(p))])
        # map [0, true length] onto [0, @length] so the curve ends exactly at ds = length
        self._p, self._sl = p, arc * (self.length / arc[-1] if arc[-1] > 0 else 1.0)

    def _param(self, ds: np.ndarray) -> np.ndarray:
        if self._p is None:
            self._table()
        return np.interp(ds, self._sl, self._p)

    def local(self, ds):
        p = self._param(ds)
        u, v, du, dv, _, _ = self._uv(p)
        return u, v, np.arctan2(dv, du)

    def curvature(self, ds):
        p = self._param(np.asarray(ds, dtype=float))
        _, _, du, dv, ddu, ddv = self._uv(p)
        return (du * ddv - dv * ddu) / np.maximum(np.hypot(du, dv) ** 3, 1e-12)


@dataclass
class Poly3(_Tabulated):
    """Deprecated cubic v(u) = a + b u + c u^2 + d u^3 in the local frame; u runs to the chord end."""

    a: float = 0.0
    b: float = 0.0
    c: float = 0.0
    d: float = 0.0
    _umax: float | None = field(default=None, repr=False)

    def _uv(self, p):
        v = self.a + p * (self.b + p * (self.c + p * self.d))
        dv = self.b + p * (2 * self.c + 3 * self.d * p)
        ddv = 2 * self.c + 6 * self.d * p
        one = np.ones_like(p)
        return p, v, one, dv, np.zeros_like(p), ddv

    def _p_max(self) -> float:
        if self._umax is None:
            # find u whose arc length equals @length (monotone in u)
            lo, hi = 0.0, self.length
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                p = np.linspace(0.0, mid, 257)
                dv = self.b + p * (2 * self.c + 3 * self.d * p)
                sp = np.hypot(1.0, dv)
                arc = float(np.sum(0.5 * (sp[1:] + sp[:-1])) * (mid / 256))
                lo, hi = (mid, hi) if arc < self.length else (lo, mid)
            self._umax = 0.5 * (lo + hi)
        return self._umax


@dataclass
class ParamPoly3(_Tabulated):
    """Parametric cubic u(p), v(p); pRange "arcLength" (p in [0, length]) or "normalized" ([0, 1])."""

    aU: float = 0.0
    bU: float = 1.0
    cU: float = 0.0
    dU: float = 0.0
    aV: float = 0.0
    bV: float = 0.0
    cV: float = 0.0
    dV: float = 0.0
    normalized: bool = False

    def _uv(self, p):
        u = self.aU + p * (self.bU + p * (self.cU + p * self.dU))
        v = self.aV + p * (self.bV + p * (self.cV + p * self.dV))
        du = self.bU + p * (2 * self.cU + 3 * self.dU * p)
        dv = self.bV + p * (2 * self.cV + 3 * self.dV * p)
        return u, v, du, dv, 2 * self.cU + 6 * self.dU * p, 2 * self.cV + 6 * self.dV * p

    def _p_max(self) -> float:
        return 1.0 if self.normalized else self.length


@dataclass(frozen=True)
class Poly:
    """A cubic record a + b ds + c ds^2 + d ds^3 starting at s (width, laneOffset, elevation...)."""

    s: float
    a: float
    b: float = 0.0
    c: float = 0.0
    d: float = 0.0


class Piecewise:
    """A piecewise cubic from sorted Poly records; evaluates vectorised; 0 when there are none."""

    __slots__ = ("records", "starts", "coef", "_starts_list", "_coef_list")

    def __init__(self, records: list[Poly]):
        self.records = sorted(records, key=lambda r: r.s)
        self.starts = np.array([r.s for r in self.records], dtype=float)
        self.coef = np.array([[r.s, r.a, r.b, r.c, r.d] for r in self.records], dtype=float).reshape(-1, 5)
        self._starts_list = self.starts.tolist()
        self._coef_list = self.coef.tolist()

    def __call__(self, s):
        s = np.asarray(s, dtype=float)
        if not self.records:
            return np.zeros_like(s)
        i = np.clip(np.searchsorted(self.starts, s, side="right") - 1, 0, len(self.records) - 1)
        c = self.coef[i]
        ds = s - c[..., 0]
        return c[..., 1] + ds * (c[..., 2] + ds * (c[..., 3] + ds * c[..., 4]))

    def scalar(self, s: float) -> float:
        """Value at one s, without numpy overhead."""
        if not self.records:
            return 0.0
        i = max(bisect.bisect_right(self._starts_list, s) - 1, 0)
        _, a, b, c, d = self._coef_list[i]
        ds = s - self.records[i].s
        return a + ds * (b + ds * (c + ds * d))

    def derivative(self, s):
        s = np.asarray(s, dtype=float)
        if not self.records:
            return np.zeros_like(s)
        i = np.clip(np.searchsorted(self.starts, s, side="right") - 1, 0, len(self.records) - 1)
        c = self.coef[i]
        ds = s - c[..., 0]
        return c[..., 2] + ds * (2 * c[..., 3] + 3 * ds * c[..., 4])
