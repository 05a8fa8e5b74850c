"""Sampled lane centres: the map's exact geometry tabulated once per lane, so moving traffic costs a lookup, not a solve."""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections import OrderedDict

import numpy as np

from roadtest.sim.api import ActorState, LanePos

__all__ = ["LaneTable", "STEP", "T_STEP", "make_actor", "actor_from_fields", "lane_pose", "make_lanepos"]

STEP = 0.5  # m between centre samples (chord error below 1 cm for radii above 3 m)
T_STEP = 10.0  # m between samples of the centre's lateral t (it changes slowly along a lane)


_new = object.__new__
_ACTOR_DEFAULTS = {f.name: f.default for f in dataclasses.fields(ActorState) if f.default is not dataclasses.MISSING}
_ACTOR_FIELDS = frozenset(f.name for f in dataclasses.fields(ActorState))


def make_actor(**values) -> ActorState:
    """An ActorState built without the frozen dataclass's per-field __setattr__ (a hot path: every actor, every tick)."""
    if not _ACTOR_FIELDS.issuperset(values):
        raise TypeError(f"unknown ActorState fields {sorted(set(values) - _ACTOR_FIELDS)}")
    a = object.__new__(ActorState)
    a.__dict__.update(_ACTOR_DEFAULTS)
    a.__dict__.update(values)
    return a


def actor_from_fields(fields: dict) -> ActorState:
    """An ActorState from a dict that names every field (unchecked: callers list them all)."""
    a = object.__new__(ActorState)
    object.__setattr__(a, "__dict__", fields)
    return a


def make_lanepos(road: str, lane: int, s: float, t: float) -> LanePos:
    """A LanePos built without the frozen dataclass's per-field __setattr__ (every traffic actor, every tick)."""
    p = _new(LanePos)
    d = p.__dict__  # filled in place: faster than a dict literal swapped in (Python 3.11)
    d["road"] = road
    d["lane"] = lane
    d["s"] = s
    d["t"] = t
    return p


class _Lane:
    __slots__ = ("s", "x", "y", "z", "h", "t", "ts", "tv", "wv", "dir")

    def __init__(self, s, x, y, z, h, ts, tv, wv, d):
        self.s, self.x, self.y, self.z, self.h, self.ts, self.tv, self.wv, self.dir = s, x, y, z, h, ts, tv, wv, d
        self.t = np.interp(s, ts, tv).tolist()  # the centre's lateral t at every pose sample


def lane_pose(ln: _Lane, s: float, offset: float = 0.0):
    """LaneTable.pose on an already fetched lane table (the per-vehicle, per-tick path)."""
    ss = ln.s
    i = bisect.bisect_right(ss, s) - 1
    i = 0 if i < 0 else len(ss) - 2 if i > len(ss) - 2 else i
    s0 = ss[i]
    u = (s - s0) / (ss[i + 1] - s0)
    u = 0.0 if u < 0.0 else 1.0 if u > 1.0 else u
    lx, ly, lh, lt = ln.x, ln.y, ln.h, ln.t
    x = lx[i] + u * (lx[i + 1] - lx[i])
    y = ly[i] + u * (ly[i + 1] - ly[i])
    z = ln.z[i] + u * (ln.z[i + 1] - ln.z[i])
    h = lh[i] + u * (lh[i + 1] - lh[i])
    t = lt[i] + u * (lt[i + 1] - lt[i])
    if offset:
        # The road frame's left normal is the lane's left normal for lanes along s, its right one against s.
        k = offset * ln.dir
        x -= k * math.sin(h)
        y += k * math.cos(h)
        t += offset
    return x, y, z, math.remainder(h, math.tau), t


SHARED_MAPS = 16  # maps whose sampled lanes a process keeps for later runs (least recently used dropped first)
_SHARED: "OrderedDict[str, tuple[dict, dict]]" = OrderedDict()


def _shared_tables(network) -> tuple[dict, dict]:
    """(lanes, extents) sampled so far on the map with this network's content digest, shared by every run in the
    process (the samples are a pure function of the map's bytes); fresh dicts for a network without a digest."""
    digest = getattr(network, "digest", None)
    if not isinstance(digest, str) or not digest:
        return {}, {}
    got = _SHARED.get(digest)
    if got is None:
        got = _SHARED[digest] = ({}, {})
        while len(_SHARED) > SHARED_MAPS:
            _SHARED.popitem(last=False)
    else:
        _SHARED.move_to_end(digest)
    return got


class LaneTable:
    """Lane centre poses by interpolation in a table sampled from the road network on first use; the samples of a
    map are kept by its content digest, so the runs that follow on the same map in this process reuse them."""

    def __init__(self, network):
        self.net = network
        self._lanes, self._extent = _shared_tables(network)
        self._along: dict[tuple[str, int], tuple[_Lane, float]] = {}  # lane -> its table and its road's length

    def extent(self, road: str, lane: int) -> tuple[float, float]:
        """[s_start, s_end] of the first stretch where this lane id exists on its road (5 m samples, bisection)."""
        key = (road, lane)
        if key not in self._extent:
            L = self.net.road_length(road)
            n = max(2, int(L / 5.0) + 1)
            ss = [L * i / (n - 1) for i in range(n)]
            has = [lane in self.net.lane_ids(road, s) for s in ss]
            idx = [i for i, h in enumerate(has) if h]
            # Keep the first contiguous stretch: a lane id that reappears later is another lane for routing.
            idx = [i for k, i in enumerate(idx) if i - idx[0] == k]
            if not idx:
                self._extent[key] = (0.0, 0.0)
            else:
                def refine(a: float, b: float) -> float:  # a has the lane, b has not
                    for _ in range(12):
                        m = 0.5 * (a + b)
                        if lane in self.net.lane_ids(road, m):
                            a = m
                        else:
                            b = m
                    return a
                lo = ss[idx[0]] if idx[0] == 0 else refine(ss[idx[0]], ss[idx[0] - 1])
                hi = ss[idx[-1]] if idx[-1] == n - 1 else refine(ss[idx[-1]], ss[idx[-1] + 1])
                self._extent[key] = (lo, hi)
        return self._extent[key]

    def _build(self, road: str, lane: int, lo: float, hi: float) -> _Lane:
        n = max(2, int(math.ceil((hi - lo) / STEP)) + 1)
        s = np.linspace(lo, hi, n)
        poses = getattr(self.net, "lane_poses", None)
        if poses is not None:
            arr = np.asarray(poses(road, lane, s))
        else:
            arr = np.array([[p.x, p.y, p.z, p.h] for p in (self.net.lane_to_world(road, lane, float(v)) for v in s)])
        h = np.unwrap(arr[:, 3])
        m = max(2, int(math.ceil((hi - lo) / T_STEP)) + 1)
        ts = np.linspace(lo, hi, m)
        tv, wv = [], []
        for v in ts:
            c = self.net.lane_to_world(road, lane, float(v))
            r = self.net.road_to_world(road, float(v))
            tv.append((c.x - r.x) * -math.sin(r.h) + (c.y - r.y) * math.cos(r.h))
            wv.append(self.net.lane_width(road, lane, float(v)))
        return _Lane(s.tolist(), arr[:, 0].tolist(), arr[:, 1].tolist(), arr[:, 2].tolist(), h.tolist(),
                     ts.tolist(), tv, wv, self.net.lane_direction(road, lane))

    def lane(self, road: str, lane: int, extent: tuple[float, float]) -> _Lane:
        key = (road, lane)
        ln = self._lanes.get(key)
        if ln is None:
            ln = self._lanes[key] = self._build(road, lane, *extent)
        return ln

    def pose(self, road: str, lane: int, extent: tuple[float, float], s: float, offset: float = 0.0):
        """(x, y, z, h, t) at s on the lane centre, shifted `offset` m left in the road frame."""
        return lane_pose(self.lane(road, lane, extent), s, offset)

    def along(self, road: str, lane: int, s: float, dx: float, h: float) -> float:
        """s moved dx m ahead along heading h, projected on the lane's direction at s, kept on the road (an
        entity's box centre from its reference point: every entity, every tick)."""
        key = (road, lane)
        c = self._along.get(key)
        if c is None:
            c = self._along[key] = (self.lane(road, lane, self.extent(road, lane)), self.net.road_length(road))
        ln, length = c
        ss, lh = ln.s, ln.h
        i = bisect.bisect_right(ss, s) - 1
        i = 0 if i < 0 else len(ss) - 2 if i > len(ss) - 2 else i
        s0 = ss[i]
        u = (s - s0) / (ss[i + 1] - s0)
        u = 0.0 if u < 0.0 else 1.0 if u > 1.0 else u
        h_lane = math.remainder(lh[i] + u * (lh[i + 1] - lh[i]), math.tau)  # lane_pose's heading
        return min(max(s + ln.dir * dx * math.cos(h - h_lane), 0.0), length)

    def curvature(self, road: str, lane: int, s: float, half: float = 2.5) -> float:
        """Mean curvature (1/m of the lane centre's own length, positive when the road turns towards +t) of the
        lane centre over [s - half, s + half], from the tabulated headings."""
        ln = self.lane(road, lane, self.extent(road, lane))
        ss, hh = ln.s, ln.h
        n = len(ss)
        i = max(0, bisect.bisect_left(ss, s - half) - 1)
        j = min(n - 1, bisect.bisect_right(ss, s + half))
        if j <= i:
            return 0.0
        k = (hh[j] - hh[i]) / (ss[j] - ss[i])  # per metre of s, i.e. of the reference line
        # the centre, t off the reference line, runs (1 - k t) m per metre of s
        stretch = 1.0 - k * ln.t[(i + j) // 2]
        return k / stretch if stretch > 0.05 else k

    def project(self, road: str, lane: int, extent: tuple[float, float], x: float, y: float, s_guess: float,
                reach: int = 8) -> tuple[float, float, float, float, float] | None:
        """(s, road-frame offset from the centre, lane heading, width, road-frame t) of a point near s_guess on
        this lane's centre; None when its foot falls outside the searched stretch or the lane's ends."""
        ln = self.lane(road, lane, extent)
        ss, lx, ly = ln.s, ln.x, ln.y
        i0 = bisect.bisect_right(ss, s_guess) - 1
        lo, hi = max(0, i0 - reach), min(len(ss) - 1, i0 + reach + 1)
        if lo >= hi:
            return None
        best = None
        i = u = uc = dx = dy = L2 = 0
        ax, ay = lx[lo], ly[lo]
        for k in range(lo, hi):
            bx, by = lx[k + 1], ly[k + 1]
            ex, ey = bx - ax, by - ay
            m2 = ex * ex + ey * ey
            v = ((x - ax) * ex + (y - ay) * ey) / m2 if m2 > 0 else 0.0
            vc = 0.0 if v < 0.0 else 1.0 if v > 1.0 else v
            d2 = (x - (ax + vc * ex)) ** 2 + (y - (ay + vc * ey)) ** 2
            if best is None or d2 < best:
                best, i, u, uc, dx, dy, L2 = d2, k, v, vc, ex, ey, m2
            ax, ay = bx, by
        if (u < 0.0 and i == 0) or (u > 1.0 and i == len(ss) - 2) or u != uc and (i in (i0 - reach, i0 + reach)):
            return None
        s = ss[i] + uc * (ss[i + 1] - ss[i])
        n = math.sqrt(L2) or 1.0
        # The table runs with increasing s, so its left is the road frame's left (t grows).
        cross = (dx * (y - ln.y[i]) - dy * (x - ln.x[i])) / n
        h = math.atan2(dy, dx) if ln.dir > 0 else math.atan2(-dy, -dx)
        j = max(0, min(len(ln.ts) - 2, bisect.bisect_right(ln.ts, s) - 1))
        w = min(1.0, max(0.0, (s - ln.ts[j]) / (ln.ts[j + 1] - ln.ts[j])))
        width = ln.wv[j] + w * (ln.wv[j + 1] - ln.wv[j])
        t = ln.tv[j] + w * (ln.tv[j + 1] - ln.tv[j]) + cross
        return s, cross, h, width, t
