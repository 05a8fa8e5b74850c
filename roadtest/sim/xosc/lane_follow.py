"""The default controller's plain lane-following step for every such entity at once, vectorised with numpy.

An entity qualifies for a tick when `advance` would do nothing but move it along its tabulated lane: no
trajectory, lateral profile, sideways step or teleport pending, a one-section road, a lane that keeps its width,
and a step that stays inside the road, while at least MIN_BATCH entities are candidates. Its new pose is the same
arithmetic as `advance` on the same lane table (motion.LaneCache), so the trace is the one `advance` gives; every
other entity still goes through `advance`.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import numpy as np

from roadtest.sim.api import LanePos
from roadtest.sim.xosc.motion import LaneCache, Motion
from roadtest.sim.xosc.positions import wrap

__all__ = ["FlatLanes", "plan", "apply", "MIN_BATCH"]

_new = object.__new__
_PI = math.pi
MIN_BATCH = 10  # fewer qualifying entities than this: advance one by one costs less than numpy's per-call overhead


class FlatLanes:
    """LaneCache's tables laid end to end in flat arrays, so entities on different lanes index one array."""

    def __init__(self, cache: LaneCache):
        self.cache = cache
        self.rows: dict[tuple[str, int], tuple[int, int, int, float] | None] = {}
        self.S = self.X = self.Y = self.Z = self.H = self.TC = self.K = self.HR = np.zeros(0)

    def row(self, road: str, lane: int) -> tuple[int, int, int, float] | None:
        """(first index, samples, lane direction, road length) of a lane that qualifies; None when it does not
        (no table, a lane that may narrow to nothing, a road of several lane sections)."""
        key = (road, lane)
        if key in self.rows:
            return self.rows[key]
        net, out = self.cache.net, None
        tb = self.cache._table(road, lane)
        if tb is not None and lane and not self.cache.may_vanish(road, lane) and len(net.road(road).sections) < 2:
            s, x, y, z, h, tc, sign, kappa, href = tb
            base, n = len(self.S), len(s)
            self.S, self.X, self.Y, self.Z = (np.concatenate([a, b]) for a, b in
                                              ((self.S, s), (self.X, x), (self.Y, y), (self.Z, z)))
            self.H, self.TC, self.HR = (np.concatenate([a, b]) for a, b in ((self.H, h), (self.TC, tc), (self.HR, href)))
            self.K = np.concatenate([self.K, kappa, [0.0]])  # one per segment: padded to the sample count
            out = (base, n, int(sign), float(net.road_length(road)))
        self.rows[key] = out
        return out


def plan(flat: FlatLanes, items: Iterable[tuple[str, Any, Motion]], dt: float) -> dict[str, tuple]:
    """Name -> (s, x, y, z, h along the lane, t, lane direction) after dt for each entity that qualifies (see the
    module); reads the entities and their motions, changes nothing."""
    names, s0, v, sd, off, base, top, lengths, dirs = [], [], [], [], [], [], [], [], []
    rows, row = flat.rows, flat.row
    for name, e, m in items:
        if m.path is not None or m.road is None or m.lat is not None or m.side_step or m.teleported_at is not None:
            continue
        key = (m.road, m.lane)
        r = rows[key] if key in rows else row(*key)
        if r is None:
            continue
        names.append(name)
        s0.append(m.s)
        v.append(e.speed)
        sd.append(m.sdir)
        off.append(m.offset)
        base.append(r[0])
        top.append(r[1] - 2)
        lengths.append(r[3])
        dirs.append(r[2])
    if len(names) < MIN_BATCH:
        return {}
    step = LaneCache.STEP
    S0, OFF, B, TOP = np.array(s0), np.array(off), np.array(base), np.array(top)
    # LaneCache.stretch at the old s, then advance's step along the lane
    g = B + np.clip(np.trunc(S0 / step).astype(np.int64), 0, TOP)
    st = 1.0 - flat.K[g] * (flat.TC[g] + OFF)
    st = np.where(st > 0.05, st, 1.0)
    s = S0 + np.array(v) * dt * np.array(sd, dtype=float) / st
    L = np.array(lengths)
    ok = ((s > 1e-6) & (s < L - 1e-6)).tolist()  # nowhere near a road end: no successor to choose, no dead end
    # LaneCache.pose at the new s
    g = B + np.clip(np.trunc(s / step).astype(np.int64), 0, TOP)
    S, X, Y, Z, H, TC, HR = flat.S, flat.X, flat.Y, flat.Z, flat.H, flat.TC, flat.HR
    s_lo = S[g]
    u = (s - s_lo) / (S[g + 1] - s_lo)
    x, y, z, h, hr = (A[g] + u * (A[g + 1] - A[g]) for A in (X, Y, Z, H, HR))
    x = x - np.sin(hr) * OFF
    y = y + np.cos(hr) * OFF
    t = TC[g] + u * (TC[g + 1] - TC[g]) + OFF
    rows = zip(ok, s.tolist(), x.tolist(), y.tolist(), z.tolist(), h.tolist(), t.tolist(), dirs)
    return {n: r[1:] for n, r in zip(names, rows) if r[0]}


def apply(e: Any, m: Motion, r: tuple, dt: float) -> None:
    """Write one planned step into the entity and its motion, as `advance` would have."""
    s, x, y, z, h, t, lane_dir = r
    m.lat_speed = None
    step = e.speed * dt
    m.side_step = 0.0
    m.odometer += abs(step)
    m.standstill = m.standstill + dt if abs(e.speed) < 1e-4 else 0.0
    m.s = s
    m.end_of_road = 0.0
    e.x, e.y, e.z = x, y, z
    if abs(step) > 1e-9:  # a standing entity keeps its heading
        ph = wrap(h)
        h = ph if m.sdir == lane_dir else ph + _PI
        dh = math.atan2(0.0 * m.sdir, abs(step))  # no sideways motion: +-0, the sign as advance gives it
        e.h = wrap(h + (dh if e.speed >= 0 else -dh))
    p = _new(LanePos)
    d = p.__dict__
    d["road"], d["lane"], d["s"], d["t"] = m.road, m.lane, s, t
    e.lane = p
