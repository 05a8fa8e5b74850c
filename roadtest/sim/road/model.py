"""Parsed OpenDRIVE data (roads, lane sections, lanes, junctions) and per-road evaluation along s."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np

from roadtest.sim.road.api import RoadMark, Signal
from roadtest.sim.road.geometry import Geometry, Piecewise

__all__ = ["Link", "Lane", "LaneSection", "RawObject", "Road", "Connection", "Junction", "DRIVING_TYPES", "wrap"]

BOUNDARY_EPS = 1e-6  # m: an s this close to a section end lies on the boundary
DRIVING_TYPES = frozenset({"driving", "entry", "exit", "onRamp", "offRamp", "connectingRamp", "bidirectional",
                           "onramp", "offramp", "connectingramp", "slipLane", "mwyEntry", "mwyExit"})


@dataclass(frozen=True)
class Link:
    """A road's predecessor/successor: element type ("road" | "junction"), its id, contact point."""

    element_type: str
    element_id: str
    contact: str | None  # "start" | "end" | None (junctions)


@dataclass
class Lane:
    """One lane of a lane section; width/border records are relative to the section start."""

    id: int
    type: str
    width: Piecewise | None
    border: Piecewise | None
    marks: list[tuple[float, RoadMark]]  # (sOffset, mark), sorted
    speeds: list[tuple[float, float | None]]  # (sOffset, m/s or None = no limit), sorted
    pred: list[int]
    succ: list[int]
    direction: str = "standard"  # OpenDRIVE 1.7 lane @direction: standard | reversed | both

    def mark_at(self, ds: float) -> RoadMark | None:
        cur = None
        for off, m in self.marks:
            if off <= ds + 1e-9:
                cur = m
        return cur

    def speed_at(self, ds: float) -> tuple[bool, float | None]:
        """(has a record, value) at ds from the section start."""
        found, cur = False, None
        for off, v in self.speeds:
            if off <= ds + 1e-9:
                found, cur = True, v
        return found, cur


@dataclass
class LaneSection:
    s: float
    s_end: float
    lanes: dict[int, Lane]  # includes the centre lane 0
    left: list[int] = field(default_factory=list)  # 1, 2, ... (inner to outer)
    right: list[int] = field(default_factory=list)  # -1, -2, ... (inner to outer)


@dataclass
class RawObject:
    """An <object> as read, resolved to a RoadObject by the network (needs the road geometry)."""

    id: str
    type: str
    name: str
    s: float
    t: float
    z: float
    hdg: float
    length: float
    width: float
    radius: float
    corners_road: list[tuple[float, float]]  # (s, t)
    corners_local: list[tuple[float, float]]  # (u, v)
    line: int
    # <repeat>: (s, length, distance, tStart, tEnd, widthStart, widthEnd); distance 0 = continuous
    repeats: list[tuple[float, float, float, float, float, float, float]] = field(default_factory=list)


@dataclass
class Connection:
    id: str
    incoming: str
    connecting: str
    contact: str  # contact point on the connecting road: start | end
    lane_links: list[tuple[int, int]]  # (from lane of incoming, to lane of connecting)


@dataclass
class Junction:
    id: str
    name: str
    connections: list[Connection]


@dataclass
class Road:
    """One <road>: reference line, profiles, lane sections, links, signals and objects."""

    id: str
    name: str
    length: float
    junction: str | None
    rule: str  # "RHT" | "LHT"
    geoms: list[Geometry]
    elevation: Piecewise
    lane_offset: Piecewise
    sections: list[LaneSection]
    types: list[tuple[float, str, float | None]]  # (s, type, speed m/s or None)
    pred: Link | None
    succ: Link | None
    signals: list[Signal] = field(default_factory=list)
    objects: list[RawObject] = field(default_factory=list)
    line: int = 0
    tunnels: list[tuple[float, float]] = field(default_factory=list)  # <objects><tunnel>: (s, length) m
    bridges: list[tuple[float, float]] = field(default_factory=list)  # <objects><bridge>: (s, length) m

    def __post_init__(self) -> None:
        self.geom_starts = np.array([g.s for g in self.geoms], dtype=float)
        self.section_starts = np.array([sec.s for sec in self.sections], dtype=float)
        self._sec_list = self.section_starts.tolist()

    # ---- reference line -------------------------------------------------------------------
    def _gi(self, s: np.ndarray) -> np.ndarray:
        return np.clip(np.searchsorted(self.geom_starts, s, side="right") - 1, 0, len(self.geoms) - 1)

    def ref(self, s) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, y, heading) of the reference line at s (vectorised)."""
        s = np.clip(np.atleast_1d(np.asarray(s, dtype=float)), 0.0, self.length)
        if len(self.geoms) == 1:
            return self.geoms[0].eval(s - self.geoms[0].s)
        gi = self._gi(s)
        x, y, h = np.empty_like(s), np.empty_like(s), np.empty_like(s)
        for k in np.unique(gi):
            m = gi == k
            g = self.geoms[k]
            x[m], y[m], h[m] = g.eval(s[m] - g.s)
        return x, y, h

    def curvature(self, s) -> np.ndarray:
        s = np.clip(np.atleast_1d(np.asarray(s, dtype=float)), 0.0, self.length)
        gi = self._gi(s)
        out = np.empty_like(s)
        for k in np.unique(gi):
            m = gi == k
            out[m] = self.geoms[k].curvature(s[m] - self.geoms[k].s)
        return out

    # ---- lanes --------------------------------------------------------------------------------
    def section_index(self, s: float, lane: int | None = None) -> int:
        """Index of the section at s: on a boundary the later section. Given a lane the later section lacks, an
        earlier section that ends at s (a zero-length one included) and holds the lane is meant instead: a lane
        position on a section boundary names the lane it is on (a section is closed at both ends for its lanes)."""
        si = min(max(bisect.bisect_right(self._sec_list, float(s)) - 1, 0), len(self.sections) - 1)
        if lane is None or lane in self.sections[si].lanes:
            return si
        k = si - 1
        while k >= 0 and self.sections[k].s_end >= s - BOUNDARY_EPS:
            if lane in self.sections[k].lanes:
                return k
            k -= 1
        return si

    def bounds_at(self, si: int, s: float) -> dict[int, tuple[float, float]]:
        """bounds() at one s, in plain floats (the fast path for single queries)."""
        sec = self.sections[si]
        ds = s - sec.s
        t0 = self.lane_offset.scalar(s)
        out = {0: (t0, t0)}
        for side, ids in ((1, sec.left), (-1, sec.right)):
            inner = t0
            for lid in ids:
                lane = sec.lanes[lid]
                if lane.width is not None:
                    outer = inner + side * lane.width.scalar(ds)
                elif lane.border is not None:
                    outer = lane.border.scalar(ds)
                else:
                    outer = inner
                out[lid] = (inner, outer)
                inner = outer
        return out

    def bounds(self, si: int, s) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """{lane id: (inner t, outer t)} of every lane of section si at s (vectorised; t in road frame)."""
        sec = self.sections[si]
        s = np.atleast_1d(np.asarray(s, dtype=float))
        ds = s - sec.s
        t0 = self.lane_offset(s)
        out: dict[int, tuple[np.ndarray, np.ndarray]] = {0: (t0, t0)}
        for side, ids in ((1, sec.left), (-1, sec.right)):
            inner = t0
            for lid in ids:
                lane = sec.lanes[lid]
                if lane.width is not None:
                    outer = inner + side * lane.width(ds)
                elif lane.border is not None:
                    outer = lane.border(ds)  # an absolute t from the reference line
                else:
                    outer = inner
                out[lid] = (inner, outer)
                inner = outer
        return out

    def lane_after(self, lane: int, s_from: float, s_to: float) -> int | None:
        """The id the lane at s_from has at s_to on this road, following its lane links across the sections in
        between (OpenDRIVE: a lane's predecessor/successor name lanes of the previous/next section in s; a section
        whose lanes state no links continues each lane into the next under its own id, as the lane graph reads it).
        None when the lane ends on the way."""
        k = self.section_index(s_from, lane)
        end = self.section_index(s_to, lane)
        step = 1 if end > k else -1
        while k != end and lane is not None:
            here, there = self.sections[k], self.sections[k + step]
            ln = here.lanes.get(lane)
            own = (ln.succ if step > 0 else ln.pred) if ln is not None else []
            back = [m.id for m in there.lanes.values() if m.id and lane in (m.pred if step > 0 else m.succ)]
            found = [i for i in own + back if i in there.lanes]
            if not found and not states_links(here if step > 0 else there) and lane in there.lanes:
                found = [lane]
            lane = found[0] if found else None
            k += step
        return lane

    def lane_t(self, lane: int, s, offset=0.0) -> tuple[np.ndarray, np.ndarray]:
        """(t of the lane centre + offset, lane width) at s, for s inside sections that hold the lane."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        t = np.full_like(s, np.nan)
        w = np.full_like(s, np.nan)
        si = np.clip(np.searchsorted(self.section_starts, s, side="right") - 1, 0, len(self.sections) - 1)
        for k in np.unique(si):
            m = si == k
            b = self.bounds(int(k), s[m])
            if lane in b:
                inner, outer = b[lane]
                t[m] = 0.5 * (inner + outer) + offset
                w[m] = np.abs(outer - inner)
        missing = np.flatnonzero(np.isnan(t))
        for i in missing:  # on a boundary, the earlier section that holds the lane (see section_index)
            k = self.section_index(float(s[i]), lane)
            if k != si[i] and lane in self.sections[k].lanes:
                inner, outer = self.bounds(k, s[i:i + 1])[lane]
                t[i] = 0.5 * (inner[0] + outer[0]) + np.broadcast_to(offset, s.shape)[i]
                w[i] = abs(outer[0] - inner[0])
        return t, w

    def world(self, s, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Inertial (x, y, reference heading) of road-frame (s, t)."""
        x, y, h = self.ref(s)
        t = np.asarray(t, dtype=float)
        return x - np.sin(h) * t, y + np.cos(h) * t, h

    def type_speed(self, s: float) -> tuple[bool, float | None]:
        found, cur = False, None
        for s0, _, v in self.types:
            if s0 <= s + 1e-9:
                found, cur = True, v
        return found, cur

    def lane_sign(self, lane: int, si: int | None = None) -> int:
        """+1 when traffic in the lane runs with increasing s (hand rule, lane @direction)."""
        base = (-1 if lane > 0 else 1) if self.rule != "LHT" else (1 if lane > 0 else -1)
        secs = self.sections if si is None else [self.sections[si]]
        for sec in secs:
            ln = sec.lanes.get(lane)
            if ln is not None:
                return -base if ln.direction == "reversed" else base
        return base


def wrap(a):
    """Angle wrapped to [-pi, pi)."""
    return (np.asarray(a) + math.pi) % (2 * math.pi) - math.pi


def states_links(sec) -> bool:
    """Whether any lane of the section states a predecessor or successor (then a missing link means the lane
    does not continue under its own id)."""
    return any(ln.succ or ln.pred for ln in sec.lanes.values() if ln.id != 0)
