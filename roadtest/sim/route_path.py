"""RoutePath: a route polyline with arc length, for projecting world points onto it; and the ego frame."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = ["RoutePath", "to_ego_frame", "wrap_angle"]


def to_ego_frame(ego_x: float, ego_y: float, ego_h: float, x: float, y: float) -> tuple[float, float]:
    """World point to the ego frame (x forward, y left)."""
    dx, dy = x - ego_x, y - ego_y
    c, s = math.cos(ego_h), math.sin(ego_h)
    return c * dx + s * dy, -s * dx + c * dy


def wrap_angle(a: float) -> float:
    """An angle in [-pi, pi)."""
    return (a + math.pi) % (2 * math.pi) - math.pi


class RoutePath:
    """A polyline with arc length, for projecting world points onto a route (the route's own frame)."""

    def __init__(self, waypoints: Sequence[Sequence[float]]):
        pts = np.asarray([[float(p[0]), float(p[1])] for p in waypoints], dtype=float)
        if len(pts) == 1:
            pts = np.vstack([pts, pts + [1e-3, 0.0]])
        keep = np.r_[True, np.linalg.norm(np.diff(pts, axis=0), axis=1) > 1e-6] if len(pts) else np.zeros(0, bool)
        self.pts = pts[keep]
        seg = np.diff(self.pts, axis=0)
        self.seg_len = np.linalg.norm(seg, axis=1)
        self.seg_dir = seg / np.maximum(self.seg_len, 1e-9)[:, None]
        self.cum = np.r_[0.0, np.cumsum(self.seg_len)]
        self.length = float(self.cum[-1]) if len(self.cum) else 0.0
        # per-segment columns, split once so a projection is a few flat array operations
        self._ax, self._ay = self.pts[:-1, 0].copy(), self.pts[:-1, 1].copy()
        self._dx, self._dy = self.seg_dir[:, 0].copy(), self.seg_dir[:, 1].copy()
        self._seg_heading = [math.atan2(ty, tx) for tx, ty in self.seg_dir.tolist()]

    def __len__(self) -> int:
        return len(self.pts)

    def project(self, x: float, y: float, s_min: float | None = None, s_max: float | None = None) -> tuple[float, float, float]:
        """(s along, d lateral left positive, route heading) of the nearest point, optionally within [s_min, s_max]."""
        return self.project_many([x], [y], s_min, s_max)[0] if len(self.pts) >= 2 else (0.0, 0.0, 0.0)

    def project_many(self, xs: Sequence[float], ys: Sequence[float], s_min: float | None = None,
                     s_max: float | None = None) -> list[tuple[float, float, float]]:
        """project for many points at once (one broadcast over points x segments, same arithmetic)."""
        if len(self.pts) < 2 or not len(xs):
            return [(0.0, 0.0, 0.0)] * len(xs) if len(self.pts) < 2 else []
        x, y = np.asarray(xs, dtype=float)[:, None], np.asarray(ys, dtype=float)[:, None]
        dx, dy = self._dx, self._dy
        u_raw = (x - self._ax) * dx + (y - self._ay) * dy
        u = np.minimum(np.maximum(u_raw, 0.0), self.seg_len)
        ex, ey = x - (self._ax + dx * u), y - (self._ay + dy * u)
        dist = np.sqrt(ex * ex + ey * ey)
        if s_min is not None or s_max is not None:
            lo = -np.inf if s_min is None else s_min
            hi = np.inf if s_max is None else s_max
            mask = (self.cum[1:] >= lo) & (self.cum[:-1] <= hi)
            if mask.any():
                dist = np.where(mask, dist, np.inf)
        out, last = [], len(self.seg_len) - 1
        for k, i in enumerate(np.argmin(dist, axis=1).tolist()):
            ui, raw = float(u[k, i]), float(u_raw[k, i])
            if (i == 0 and raw < 0.0) or (i == last and raw > self.seg_len[i]):
                ui = raw  # past an end: extend the end segment so distances stay signed
            px, py = float(xs[k]), float(ys[k])
            tx, ty = float(dx[i]), float(dy[i])
            fx, fy = float(self._ax[i]) + tx * ui, float(self._ay[i]) + ty * ui
            out.append((float(self.cum[i]) + ui, tx * (py - fy) - ty * (px - fx), self._seg_heading[i]))
        return out

    def point_at(self, s: float) -> tuple[float, float, float]:
        """World (x, y, heading) at arc length s, extrapolating past either end."""
        if len(self.pts) < 2:
            p = self.pts[0] if len(self.pts) else np.zeros(2)
            return float(p[0]), float(p[1]), 0.0
        i = min(max(int(np.searchsorted(self.cum, s, side="right")) - 1, 0), len(self.seg_len) - 1)
        u = s - float(self.cum[i])
        tx, ty = float(self._dx[i]), float(self._dy[i])
        return float(self._ax[i]) + tx * u, float(self._ay[i]) + ty * u, self._seg_heading[i]

    def points_at(self, s: np.ndarray) -> np.ndarray:
        """N x 2 world points at the arc lengths `s` (point_at for many at once)."""
        s = np.asarray(s, dtype=float)
        if len(self.pts) < 2:
            p = self.pts[0] if len(self.pts) else np.zeros(2)
            return np.tile(p, (len(s), 1))
        i = np.clip(np.searchsorted(self.cum, s, side="right") - 1, 0, len(self.seg_len) - 1)
        u = s - self.cum[i]
        return np.column_stack([self._ax[i] + self._dx[i] * u, self._ay[i] + self._dy[i] * u])
