"""Sampled lane centres: the map's exact geometry tabulated once per lane, so moving traffic costs a lookup, not a solve."""

from __future__ import annotations

import bisect
import math

import dataclasses

import numpy as np

from roadtest.sim.api import ActorState

__all__ = ["LaneTable", "STEP", "T_STEP", "make_actor"]

STEP = 0.5  # m between centre samples (chord error below 1 cm for radii above 3 m)
T_STEP = 10.0  # m between samples of the centre's lateral t (it changes slowly along a lane)


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


class _Lane:
    __slots__ = ("s", "x", "y", "z", "h", "ts", "tv", "dir")

    def __init__(self, s, x, y, z, h, ts, tv, d):
        self.s, self.x, self.y, self.z, self.h, self.ts, self.tv, self.dir = s, x, y, z, h, ts, tv, d


class LaneTable:
    """Lane centre poses by interpolation in a table sampled from the road network on first use."""

    def __init__(self, network):
        self.net = network
        self._lanes: dict[tuple[str, int], _Lane] = {}

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
        tv = []
        for v in ts:
            c = self.net.lane_to_world(road, lane, float(v))
            r = self.net.road_to_world(road, float(v))
            tv.append((c.x - r.x) * -math.sin(r.h) + (c.y - r.y) * math.cos(r.h))
        return _Lane(s.tolist(), arr[:, 0].tolist(), arr[:, 1].tolist(), arr[:, 2].tolist(), h.tolist(),
                     ts.tolist(), tv, self.net.lane_direction(road, lane))

    def lane(self, road: str, lane: int, extent: tuple[float, float]) -> _Lane:
        key = (road, lane)
        ln = self._lanes.get(key)
        if ln is None:
            ln = self._lanes[key] = self._build(road, lane, *extent)
        return ln

    def pose(self, road: str, lane: int, extent: tuple[float, float], s: float, offset: float = 0.0):
        """(x, y, z, h, t) at s on the lane centre, shifted `offset` m left in the road frame."""
        ln = self.lane(road, lane, extent)
        ss = ln.s
        i = bisect.bisect_right(ss, s) - 1
        i = 0 if i < 0 else len(ss) - 2 if i > len(ss) - 2 else i
        u = (s - ss[i]) / (ss[i + 1] - ss[i])
        u = 0.0 if u < 0.0 else 1.0 if u > 1.0 else u
        x = ln.x[i] + u * (ln.x[i + 1] - ln.x[i])
        y = ln.y[i] + u * (ln.y[i + 1] - ln.y[i])
        z = ln.z[i] + u * (ln.z[i + 1] - ln.z[i])
        h = ln.h[i] + u * (ln.h[i + 1] - ln.h[i])
        j = bisect.bisect_right(ln.ts, s) - 1
        j = 0 if j < 0 else len(ln.ts) - 2 if j > len(ln.ts) - 2 else j
        w = min(1.0, max(0.0, (s - ln.ts[j]) / (ln.ts[j + 1] - ln.ts[j])))
        t = ln.tv[j] + w * (ln.tv[j + 1] - ln.tv[j])
        if offset:
            # The road frame's left normal is the lane's left normal for lanes along s, its right one against s.
            k = offset * ln.dir
            x -= k * math.sin(h)
            y += k * math.cos(h)
            t += offset
        return x, y, z, math.remainder(h, math.tau), t
