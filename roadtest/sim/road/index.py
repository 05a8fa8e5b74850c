"""Spatial index for locating world points on lanes: a cKDTree over densely sampled lane centres.

Each sample remembers its reference-line point (s, x, y, heading, curvature) and its lane's bounds,
so a query projects the point onto the osculating circle of the nearest samples' reference line
(vectorised, no per-road Python work), picks the lane that contains it, and falls back to exact lane
bounds only in the rare case the nearest samples belong to a neighbouring lane.
"""

from __future__ import annotations

import math

import numpy as np

from roadtest.sim.road.model import DRIVING_TYPES, Road

__all__ = ["LaneIndex", "Candidates"]

STEP = 0.5  # m between samples along s
K = 8  # nearest samples examined per query
END_TOL = 0.05  # m: how far past a road end a point still counts as on it


class Candidates:
    """Best candidate per query point (arrays of length N); kd = -1 where nothing was found."""

    def __init__(self, n: int):
        self.kd = np.full(n, -1)
        self.s = np.zeros(n)
        self.t = np.zeros(n)
        self.lane = np.zeros(n, dtype=int)
        self.center = np.zeros(n)
        self.width = np.zeros(n)
        self.dist_out = np.full(n, np.inf)
        self.hdiff = np.zeros(n)
        self.on_road = np.zeros(n, dtype=bool)


class LaneIndex:
    """Lane-centre samples of every road; `query` returns the best lane candidate per point."""

    def __init__(self, roads: list[Road]):
        from scipy.spatial import cKDTree

        self.roads = roads
        ref = {k: [] for k in ("road", "sec", "s", "x", "y", "h", "k", "tmin", "tmax", "len")}
        pts = {k: [] for k in ("ref", "lane", "tin", "tout", "sign", "drive", "group")}
        cx, cy = [], []
        n_ref = 0
        group = 0
        for ri, road in enumerate(roads):
            for si, sec in enumerate(road.sections):
                n = max(2, int(math.ceil((sec.s_end - sec.s) / STEP)) + 1)
                s = np.linspace(sec.s, sec.s_end, n)
                x, y, h = road.ref(s)
                b = road.bounds(si, s)
                ts = np.array([v for lo_hi in b.values() for v in lo_hi])
                for key, val in (("road", np.full(n, ri)), ("sec", np.full(n, si)), ("s", s), ("x", x), ("y", y),
                                 ("h", h), ("k", road.curvature(s)), ("tmin", ts.min(0)), ("tmax", ts.max(0)),
                                 ("len", np.full(n, road.length))):
                    ref[key].append(val)
                for lid, (tin, tout) in b.items():
                    if lid == 0 or np.max(np.abs(tout - tin)) < 1e-3:
                        continue
                    tc = 0.5 * (tin + tout)
                    cx.append(x - np.sin(h) * tc)
                    cy.append(y + np.cos(h) * tc)
                    lane = sec.lanes[lid]
                    for key, val in (("ref", n_ref + np.arange(n)), ("lane", np.full(n, lid)), ("tin", tin),
                                     ("tout", tout), ("sign", np.full(n, road.lane_sign(lid, si))),
                                     ("drive", np.full(n, lane.type in DRIVING_TYPES)), ("group", np.full(n, group))):
                        pts[key].append(val)
                    group += 1
                n_ref += n
        self.ref = {k: np.concatenate(v) for k, v in ref.items()}
        self.pts = {k: np.concatenate(v) if v else np.zeros(0) for k, v in pts.items()}
        xy = np.column_stack([np.concatenate(cx), np.concatenate(cy)]) if cx else np.zeros((0, 2))
        self.tree = cKDTree(xy) if len(xy) else None
        drive = np.flatnonzero(self.pts["drive"]) if len(xy) else np.zeros(0, dtype=int)
        self.drive_ids = drive
        self.drive_tree = cKDTree(xy[drive]) if len(drive) else None
        self._lists: tuple[dict, dict] | None = None
        self.max_halfwidth = float(np.max(np.abs(self.pts["tout"] - self.pts["tin"]))) / 2 if len(xy) else 0.0

    def query(self, xy: np.ndarray, h: np.ndarray | None = None, driving_only: bool = False,
              hint_roads: np.ndarray | None = None) -> Candidates:
        """Best lane candidate for each of N points (vectorised)."""
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        n = len(xy)
        out = Candidates(n)
        tree = self.drive_tree if driving_only else self.tree
        if tree is None or n == 0:
            return out
        k = min(K, tree.n)
        _, idx = tree.query(xy, k=k)
        idx = idx.reshape(n, k)
        if driving_only:
            idx = self.drive_ids[idx]
        P, R = self.pts, self.ref
        ri = P["ref"][idx]
        s0, h0, kap = R["s"][ri], R["h"][ri], R["k"][ri]
        dx, dy = xy[:, 0:1] - R["x"][ri], xy[:, 1:2] - R["y"][ri]
        c, sn = np.cos(h0), np.sin(h0)
        u, v = c * dx + sn * dy, -sn * dx + c * dy
        # projection on the osculating circle of the reference line at the sample
        small = np.abs(kap) < 1e-9
        ks = np.where(small, 1.0, kap)
        phi = np.arctan2(ks * u, 1.0 - ks * v)
        s = s0 + np.where(small, u, phi / ks)
        t = np.where(small, v, (1.0 - np.hypot(ks * u, 1.0 - ks * v)) / ks)
        # lane bounds interpolated towards the neighbouring sample of the same lane
        step = np.where(s >= s0, 1, -1)
        nb = np.clip(idx + step, 0, len(P["group"]) - 1)
        same = P["group"][nb] == P["group"][idx]
        nb = np.where(same, nb, idx)
        s1 = R["s"][P["ref"][nb]]
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(same & (s1 != s0), np.clip((s - s0) / (s1 - s0), 0.0, 1.0), 0.0)
        tin = P["tin"][idx] + f * (P["tin"][nb] - P["tin"][idx])
        tout = P["tout"][idx] + f * (P["tout"][nb] - P["tout"][idx])
        center = 0.5 * (tin + tout)
        half = 0.5 * np.abs(tout - tin)
        # beyond the road's ends (a loop's start seen from its end): farther by the overshoot
        over = np.maximum(np.maximum(s - R["len"][ri], -s), 0.0)
        s = np.clip(s, 0.0, R["len"][ri])
        dist_out = np.maximum(np.abs(t - center) - half, 0.0) + over
        # a sample farther along s than half a step is not the one whose bounds describe the point
        far = np.maximum(np.abs(s - s0) - 0.5 * STEP - 1e-3, 0.0)
        cost = 1000.0 * (dist_out + far) + 0.2 * np.minimum(np.abs(t - center) / np.maximum(half, 0.05), 1.0)
        hd = np.zeros_like(s)
        if h is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                dcds = np.where(same & (s1 != s0), (0.5 * (P["tin"][nb] + P["tout"][nb]) - 0.5 * (
                    P["tin"][idx] + P["tout"][idx])) / (s1 - s0), 0.0)
            lane_h = (h0 + kap * (s - s0) + np.arctan2(dcds, np.maximum(1.0 - kap * t, 0.1))
                      + np.where(P["sign"][idx] < 0, math.pi, 0.0))
            hd = (np.asarray(h, dtype=float).reshape(-1, 1) - lane_h + math.pi) % (2 * math.pi) - math.pi
            cost = cost + np.abs(hd)
        if hint_roads is not None:  # boolean per road index: roads the hint makes likely
            cost = cost - 0.3 * hint_roads[R["road"][ri]]
        best = np.argmin(cost, axis=1)
        rows = np.arange(n)
        bk = idx[rows, best]
        out.kd = bk
        out.s = s[rows, best]
        out.t = t[rows, best]
        out.lane = P["lane"][bk]
        out.center = center[rows, best]
        out.width = 2 * half[rows, best]
        out.dist_out = dist_out[rows, best]
        out.hdiff = hd[rows, best]
        br = P["ref"][bk]
        # past a road's end is off that road however well t fits (END_TOL absorbs sampling error)
        out.on_road = ((out.t >= R["tmin"][br] - 1e-6) & (out.t <= R["tmax"][br] + 1e-6)
                       & (over[rows, best] <= END_TOL))
        return out

    def query_one(self, x: float, y: float, h: float | None = None, driving_only: bool = False,
                  hint_roads: np.ndarray | None = None) -> tuple | None:
        """query() for one point in plain Python floats (a vectorised call costs more for one point).

        Returns (kd, s, t, lane, center, width, dist_out, hdiff, on_road) of the best candidate, or None.
        """
        tree = self.drive_tree if driving_only else self.tree
        if tree is None:
            return None
        if self._lists is None:
            self._lists = ({k: v.tolist() for k, v in self.pts.items()}, {k: v.tolist() for k, v in self.ref.items()})
        P, R = self._lists
        _, idx = tree.query((x, y), k=min(K, tree.n))
        idx = np.atleast_1d(idx)
        if driving_only:
            idx = self.drive_ids[idx]
        best, best_cost = None, math.inf
        n_pts = len(P["group"])
        for k in idx.tolist():
            ri = P["ref"][k]
            s0, h0, kap = R["s"][ri], R["h"][ri], R["k"][ri]
            dx, dy = x - R["x"][ri], y - R["y"][ri]
            c, sn = math.cos(h0), math.sin(h0)
            u, v = c * dx + sn * dy, -sn * dx + c * dy
            if abs(kap) < 1e-9:
                s, t = s0 + u, v
            else:
                s = s0 + math.atan2(kap * u, 1.0 - kap * v) / kap
                t = (1.0 - math.hypot(kap * u, 1.0 - kap * v)) / kap
            nb = min(max(k + (1 if s >= s0 else -1), 0), n_pts - 1)
            same = P["group"][nb] == P["group"][k]
            s1 = R["s"][P["ref"][nb]] if same else s0
            f = min(max((s - s0) / (s1 - s0), 0.0), 1.0) if same and s1 != s0 else 0.0
            tin = P["tin"][k] + f * (P["tin"][nb] - P["tin"][k])
            tout = P["tout"][k] + f * (P["tout"][nb] - P["tout"][k])
            center, half = 0.5 * (tin + tout), 0.5 * abs(tout - tin)
            length = R["len"][ri]
            over = max(s - length, -s, 0.0)
            s = min(max(s, 0.0), length)
            dist_out = max(abs(t - center) - half, 0.0) + over
            far = max(abs(s - s0) - 0.5 * STEP - 1e-3, 0.0)
            cost = 1000.0 * (dist_out + far) + 0.2 * min(abs(t - center) / max(half, 0.05), 1.0)
            hd = 0.0
            if h is not None:
                dcds = 0.0
                if same and s1 != s0:
                    dcds = (0.5 * (P["tin"][nb] + P["tout"][nb]) - 0.5 * (P["tin"][k] + P["tout"][k])) / (s1 - s0)
                lane_h = h0 + kap * (s - s0) + math.atan2(dcds, max(1.0 - kap * t, 0.1))
                if P["sign"][k] < 0:
                    lane_h += math.pi
                hd = (h - lane_h + math.pi) % (2 * math.pi) - math.pi
                cost += abs(hd)
            if hint_roads is not None and hint_roads[R["road"][ri]]:
                cost -= 0.3
            if cost < best_cost:
                on_road = R["tmin"][ri] - 1e-6 <= t <= R["tmax"][ri] + 1e-6 and over <= END_TOL
                best_cost, best = cost, (k, s, t, P["lane"][k], center, 2 * half, dist_out, hd, on_road)
        return best

    def road_of(self, kd: int) -> tuple[int, int]:
        """(road index, section index) of a sample."""
        r = self.pts["ref"][kd]
        return int(self.ref["road"][r]), int(self.ref["sec"][r])
