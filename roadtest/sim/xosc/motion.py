"""Default controller: follow the lane at the commanded speed, lateral profiles, trajectories, road ends."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from roadtest.errors import MapError
from roadtest.sim.api import LanePos
from roadtest.sim.xosc.positions import Resolved, locate, wrap

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["shape_fn", "Motion", "LateralProfile", "Path", "LaneCache", "place", "advance"]


def shape_fn(shape: str) -> Callable[[float], float]:
    """Normalised transition shape f(p), p and f in [0, 1]."""
    if shape == "step":
        return lambda p: 1.0
    if shape == "linear":
        return lambda p: min(max(p, 0.0), 1.0)
    if shape == "cubic":
        return lambda p: (lambda q: 3 * q * q - 2 * q ** 3)(min(max(p, 0.0), 1.0))
    if shape == "sinusoidal":
        return lambda p: (1 - math.cos(math.pi * min(max(p, 0.0), 1.0))) / 2
    raise ValueError(shape)


@dataclass
class LateralProfile:
    """A lateral move from offset `start` to `target` (driving frame, relative to the lane the entity is kept in)."""

    start: float
    target: float
    shape: str
    dimension: str  # time | distance | rate
    value: float
    from_lane: int | None = None
    elapsed: float = 0.0
    travelled: float = 0.0
    done: bool = False
    continuous: bool = False
    # esmini's lane offset places the entity before stepping its clock (one tick behind a lane change) and leaves the
    # default controller its whole step along the road; a lane change takes its sideways metres out of that step
    lane_offset: bool = False

    def duration_like(self) -> tuple[float, float]:
        """(progress so far, total) in the profile's own dimension."""
        if self.dimension == "distance":
            return self.travelled, self.value
        if self.dimension == "rate":
            return self.elapsed, abs(self.target - self.start) / max(self.value, 1e-9)
        return self.elapsed, self.value

    def offset(self) -> float:
        done, total = self.duration_like()
        if total <= 1e-9 or self.shape == "step":
            self.done = True
            return self.target
        p = done / total
        if p >= 1.0 - 1e-9:
            self.done = True
        return self.start + (self.target - self.start) * shape_fn(self.shape)(p)


@dataclass
class Path:
    """A polyline to follow: cumulative length, optional vertex times, optional vertex headings."""

    xy: np.ndarray  # N x 2
    z: np.ndarray
    h: np.ndarray | None
    times: np.ndarray | None  # simulation times at the vertices when timed
    cum: np.ndarray = field(init=False)
    s: float = 0.0
    speeds: np.ndarray | None = None  # m/s at the vertices, with accel, in timed 'follow' mode (else linear in time)
    accel: np.ndarray | None = None  # m/s^2 on the segment from each vertex

    def __post_init__(self) -> None:
        d = np.hypot(*np.diff(self.xy, axis=0).T) if len(self.xy) > 1 else np.zeros(0)
        self.cum = np.concatenate([[0.0], np.cumsum(d)])

    @property
    def length(self) -> float:
        return float(self.cum[-1])

    def pose(self, s: float) -> tuple[float, float, float, float]:
        s = min(max(s, 0.0), self.length)
        i = int(np.searchsorted(self.cum, s, side="right") - 1)
        i = min(max(i, 0), len(self.xy) - 2) if len(self.xy) > 1 else 0
        if len(self.xy) < 2:
            x, y = self.xy[0]
            return float(x), float(y), float(self.z[0]), float(self.h[0]) if self.h is not None else 0.0
        seg = self.cum[i + 1] - self.cum[i]
        u = 0.0 if seg <= 1e-12 else (s - self.cum[i]) / seg
        x, y = self.xy[i] + u * (self.xy[i + 1] - self.xy[i])
        z = self.z[i] + u * (self.z[i + 1] - self.z[i])
        dx, dy = self.xy[i + 1] - self.xy[i]
        h = math.atan2(dy, dx) if seg > 1e-12 else (float(self.h[i]) if self.h is not None else 0.0)
        return float(x), float(y), float(z), h

    def s_at_time(self, t: float) -> float:
        if self.accel is None:
            return float(np.interp(t, self.times, self.cum))
        i = int(np.searchsorted(self.times, t, side="right") - 1)
        if i < 0:
            return 0.0
        if i >= len(self.times) - 1:
            return self.length
        dt, v, a = t - float(self.times[i]), float(self.speeds[i]), float(self.accel[i])
        if a < 0.0:
            dt = min(dt, -v / a)  # it arrives early and waits at the vertex
        return float(self.cum[i]) + v * dt + 0.5 * a * dt * dt

    def follow_speeds(self, v0: float) -> None:
        """Timed 'follow' mode: constant acceleration on each segment, speed continuous from the entity's v0.

        A segment that leaves too much time to arrive by braking is run at the deceleration that stops on its
        end vertex (as esmini's polyline trajectories).
        """
        assert self.times is not None
        n = len(self.cum)
        self.speeds, self.accel = np.zeros(n), np.zeros(n)
        v = self.speeds[0] = v0
        for i in range(1, n):
            ds, dt = float(self.cum[i] - self.cum[i - 1]), float(self.times[i] - self.times[i - 1])
            a = 0.0
            if abs(ds) <= 1e-9:
                v = 0.0
            elif dt <= 1e-9:
                pass  # no time on this segment: it is passed at once, the speed carries on
            else:
                a = 2 * (ds - v * dt) / (dt * dt)
                if (v + a * dt < 0) != (v < 0):
                    a, v = -v * v / (2 * ds), 0.0
                else:
                    v = v + a * dt
            self.accel[i - 1], self.speeds[i] = a, v


@dataclass
class Motion:
    """Where an entity is on the lane graph and which motions are active on it."""

    road: str | None = None
    lane: int = 0
    s: float = 0.0
    offset: float = 0.0  # m from the lane centre, left positive in the road frame
    sdir: int = 1  # +1 moving with increasing s, -1 against (from the heading, not the lane's direction)
    lat: LateralProfile | None = None
    path: Path | None = None
    path_done: Callable[[], None] | None = None
    route: list[tuple[str, int]] = field(default_factory=list)  # waypoints' (road, lane), in order
    random: Any = None  # a seeded random.Random while a RandomRouteAction picks the way at each fork
    odometer: float = 0.0
    standstill: float = 0.0
    end_of_road: float = 0.0
    offroad: float = 0.0
    side_step: float = 0.0  # m an action moves the entity sideways (road frame) on the next advance, out of its step
    side_linear: bool = False  # the sideways metres come off the step whole (a jump), not as a leg of a right triangle
    lat_speed: float | None = None  # speed a lane change moves the entity with this tick (None: its current speed)
    teleported_at: float | None = None  # tick start of a mid-run teleport: the entity stays put for that tick (as esmini)


def place(e: Any, m: Motion, r: Resolved, net: RoadNetworkAPI | None) -> None:
    """Put an entity at a resolved pose (teleport); it moves along s the way its heading points."""
    e.x, e.y, e.z, e.h = r.x, r.y, r.z, r.h
    if r.lane is not None and r.lane.lane != 0 and net is not None:
        m.road, m.lane, m.s, m.offset = r.lane.road, r.lane.lane, r.lane.s, r.lane_offset
        ref = net.road_to_world(r.lane.road, r.lane.s, 0.0)
        m.sdir = 1 if math.cos(wrap(r.h - ref.h)) >= 0 else -1
        e.lane = r.lane
        if r.route:
            rest = [w for w in r.route]
            while rest and rest[0][0] != m.road:
                rest.pop(0)
            m.route = [w for w in rest if w[0] != m.road]
    else:
        m.road = None
        e.lane = r.lane
    m.lat = None


def _entry_s(net: RoadNetworkAPI, road: str, lane: int) -> float:
    """The s at which traffic enters the lane: the road's start for a lane run with s, else its end."""
    return 0.0 if net.lane_direction(road, lane) > 0 else net.road_length(road)


def _choose_successor(net: RoadNetworkAPI, m: Motion, options: list[tuple[str, int]], heading: float) -> tuple[str, int]:
    """The successor on the route when there is one, else a random one under a RandomRouteAction, else the
    straightest."""
    while m.route and m.route[0][0] == m.road:  # waypoints on the road being left are behind
        m.route.pop(0)
    for w_road, _ in m.route:
        for o in options:
            if o[0] == w_road:
                return o
    if m.route and len(options) > 1:
        goal = m.route[0]
        best, cost = None, math.inf
        for o in options:
            try:  # from where the option's lane is entered to where the goal's lane is entered
                segs = net.route((o[0], o[1], _entry_s(net, *o)), (goal[0], goal[1], _entry_s(net, *goal)))
            except MapError:  # a lane the map does not hold there: not a path
                continue
            c = sum(abs(sg.s_end - sg.s_start) for sg in segs) if segs else math.inf
            if c < cost:
                best, cost = o, c
        if best is not None:
            return best
    if m.random is not None and not m.route and len(options) > 1:
        return options[m.random.randrange(len(options))]
    best, dev = options[0], math.inf
    for o in options:
        d = net.lane_direction(*o)
        s0 = 0.0 if d > 0 else net.road_length(o[0])
        s1 = min(5.0, net.road_length(o[0])) if d > 0 else max(net.road_length(o[0]) - 5.0, 0.0)
        p = net.lane_to_world(o[0], o[1], s1)
        dv = abs(wrap(p.h - heading)) + 0.0 * s0
        if dv < dev:
            best, dev = o, dv
    return best


DRIVING_TYPES = frozenset({"driving", "entry", "exit", "onramp", "offramp", "connectingramp", "bidirectional"})


def _leave_vanished_lane(net: RoadNetworkAPI, m: Motion, cache: "LaneCache") -> None:
    """A lane narrowed to nothing: go to the centre of the closest drivable lane on its side (as esmini's MoveAlongS)."""
    t = cache.pose(m.road, m.lane, m.s, m.offset)[4]
    best = None
    for lane in net.lane_ids(m.road, m.s):
        if lane * m.lane <= 0 or net.lane_width(m.road, lane, m.s) < 1e-6:
            continue
        if net.lane_type(m.road, lane, m.s).lower() not in DRIVING_TYPES:
            continue
        d = abs(cache.pose(m.road, lane, m.s, 0.0)[4] - t)
        if best is None or d < best[0]:
            best = (d, lane)
    if best is not None:
        m.lane, m.offset = best[1], 0.0


def _end_speed(p: Path) -> float:
    """Speed over the last timed path segment that takes time (length / time difference)."""
    assert p.times is not None
    if p.speeds is not None:
        return float(p.speeds[-1])
    for i in range(len(p.times) - 1, 0, -1):
        span = float(p.times[i] - p.times[i - 1])
        if span > 1e-9:
            return float(p.cum[i] - p.cum[i - 1]) / span
    return 0.0


def _follow_sections(net: RoadNetworkAPI, m: Motion, s_from: float, s_to: float, length: float) -> None:
    """Renumber the lane across the road's lane sections between s_from and s_to by its lane links."""
    road = net.road(m.road)
    if len(road.sections) < 2:
        return
    lane = road.lane_after(m.lane, s_from, min(max(s_to, 0.0), length))
    if lane is not None:
        m.lane = lane


def advance(net: RoadNetworkAPI | None, e: Any, m: Motion, dt: float, time: float, cache: "LaneCache | None" = None) -> None:
    """Move an entity under the default controller for dt seconds at e.speed."""
    if m.teleported_at is not None and abs(time - dt - m.teleported_at) < 1e-9:
        m.teleported_at, m.side_step, m.side_linear = None, 0.0, False
        return
    cache = cache or LaneCache(net)
    v, m.lat_speed = (m.lat_speed if m.lat_speed is not None and m.lat is not None else e.speed), None
    step = v * dt
    side, m.side_step = m.side_step, 0.0
    m.odometer += abs(step)
    m.standstill = m.standstill + dt if abs(e.speed) < 1e-4 else 0.0
    if m.path is not None:
        p = m.path
        # reversing runs along the path too, the vehicle facing back along it
        p.s = p.s_at_time(time) if p.times is not None else p.s + abs(step)
        x, y, z, h = p.pose(p.s)
        if e.speed < 0 and p.times is None:
            h = wrap(h + math.pi)
        if p.times is not None and dt > 0:
            e.speed = math.hypot(x - e.x, y - e.y) / dt
        e.x, e.y, e.z, e.h = x, y, z, h
        ended = time >= p.times[-1] - 1e-9 if p.times is not None else p.s >= p.length - 1e-6
        if ended:
            m.path = None
            if p.times is not None:
                e.speed = _end_speed(p)  # it goes on at the path's end speed, not at this tick's clamped step
                over = max(time - float(p.times[-1]), 0.0) * e.speed
            else:
                over = max(p.s - p.length, 0.0)
            # the rest of this tick's step goes on straight from the path's end (as esmini)
            hp = p.pose(p.length)[3]
            e.x, e.y = e.x + over * math.cos(hp), e.y + over * math.sin(hp)
            r = locate(net, e.x, e.y, e.z, e.h)
            if r.lane is not None and r.lane.lane:
                place(e, m, r, net)
            else:
                e.speed = 0.0  # the path ends off every road: nowhere to go on, it stops (as esmini)
            if m.path_done:
                m.path_done()
        else:
            r = locate(net, x, y, z, h) if net is not None else None
            e.lane = r.lane if r else None
        return
    if m.road is None or net is None:
        e.x += step * math.cos(e.h)
        e.y += step * math.sin(e.h)
        m.offroad += dt
        return
    old = m.offset
    if m.lat is not None and abs(step) > 1e-12:  # a standing entity does not move sideways (esmini waits too)
        if m.lat.lane_offset:
            m.offset = m.lat.offset()
        m.lat.elapsed += dt
        m.lat.travelled += abs(step)
        if not m.lat.lane_offset:
            m.offset = m.lat.offset()
        if m.lat.dimension != "distance" and m.lat.shape != "step" and not m.lat.lane_offset:
            # the lateral part of the step is taken out of the longitudinal progress, as esmini moves
            dlat = min(abs(m.offset - old), abs(step))
            step = math.copysign(math.sqrt(step * step - dlat * dlat), step)
    if side:
        # a lateral-distance move: the entity keeps its speed, so the sideways part leaves less to go along the lane
        m.offset += side
        dlat = min(abs(side), abs(step))
        step = math.copysign(abs(step) - dlat if m.side_linear else math.sqrt(step * step - dlat * dlat), step)
    m.side_linear = False
    # the entity covers `step` metres along its lane, not along the reference line
    s = m.s + step * m.sdir / cache.stretch(m.road, m.lane, m.s, m.offset)
    length = net.road_length(m.road)
    _follow_sections(net, m, m.s, s, length)
    hit_end = False
    while s > length + 1e-9 or s < -1e-9:
        over = s - length if s > length else -s
        forward = m.sdir == net.lane_direction(m.road, m.lane)
        opts = net.successors(m.road, m.lane) if forward else net.predecessors(m.road, m.lane)
        if not opts:
            s = min(max(s, 0.0), length)
            hit_end = True
            break
        nroad, nlane = _choose_successor(net, m, opts, e.h)
        if m.route and m.route[0][0] == nroad:
            m.route.pop(0)
        nd = net.lane_direction(nroad, nlane) * (1 if forward else -1)
        m.offset *= m.sdir * nd
        if m.lat is not None:
            m.lat.start *= m.sdir * nd
            m.lat.target *= m.sdir * nd
        m.road, m.lane, m.sdir = nroad, nlane, nd
        length = net.road_length(nroad)
        s = over if nd > 0 else length - over
        _follow_sections(net, m, 0.0 if nd > 0 else length, s, length)
    m.s = s
    if m.lat is None and m.lane and cache.may_vanish(m.road, m.lane) and net.lane_width(m.road, m.lane, s) < 1e-6:
        _leave_vanished_lane(net, m, cache)
    if not hit_end and ((m.sdir > 0 and s >= length - 1e-6) or (m.sdir < 0 and s <= 1e-6)):
        forward = m.sdir == net.lane_direction(m.road, m.lane)
        hit_end = not (net.successors(m.road, m.lane) if forward else net.predecessors(m.road, m.lane))
    if hit_end and m.end_of_road > 0:
        e.speed = 0.0  # stuck at a dead end: it stands still from the second tick there, as in esmini
    m.end_of_road = m.end_of_road + dt if hit_end else 0.0
    x, y, z, ph, t = cache.pose(m.road, m.lane, m.s, m.offset)
    e.x, e.y, e.z = x, y, z
    dh = math.atan2((m.offset - old) * m.sdir, abs(step)) if abs(step) > 1e-9 else 0.0
    h = ph if m.sdir == net.lane_direction(m.road, m.lane) else ph + math.pi
    if abs(step) > 1e-9:  # a standing entity keeps its heading (a walker teleported across the road) until it moves
        e.h = wrap(h + (dh if e.speed >= 0 else -dh))
    lane = m.lane
    if m.lat is not None and m.lat.from_lane is not None and not m.lat.done:
        w = net.lane_width(m.road, m.lane, m.s)
        if abs(m.offset) > w / 2:
            lane = m.lat.from_lane
    e.lane = LanePos(m.road, lane, m.s, t)
    if m.lat is not None and m.lat.done and not m.lat.continuous:
        m.lat = None


NARROW = 0.5  # m: a lane sampled narrower than this somewhere may narrow to nothing between samples


class LaneCache:
    """Lane centres sampled every 0.5 m, so following a lane costs an interpolation, not a map query."""

    STEP = 0.5

    def __init__(self, net: RoadNetworkAPI):
        self.net = net
        self.tab: dict[tuple[str, int], Any] = {}
        self.narrowing: dict[tuple[str, int], bool] = {}  # lanes narrower than NARROW somewhere (may vanish)

    def may_vanish(self, road: str, lane: int) -> bool:
        """False when the lane keeps a clear width all along its road (its exact width need not be asked)."""
        self._table(road, lane)
        return self.narrowing.get((road, lane), True)

    def _table(self, road: str, lane: int) -> Any:
        key = (road, lane)
        if key not in self.tab:
            net = self.net
            length = net.road_length(road)
            n = max(2, int(math.ceil(length / self.STEP)) + 1)
            s = np.linspace(0.0, length, n)
            try:
                p = net.lane_poses(road, lane, s)
                tc, w = net._road(road).lane_t(lane, s, 0.0)  # the road model's vectorised lane centre and width
                if np.isnan(p).any() or np.isnan(tc).any():
                    raise ValueError("lane absent somewhere on the road")
                sign = net.lane_direction(road, lane)
                h = np.unwrap(p[:, 3])
                # offsets are road-frame t (across the reference line), not across a widening lane's centre line
                href = np.unwrap(net._road(road).ref(s)[2])
                kappa = np.diff(href) / np.diff(s)  # reference-line curvature per segment
                # as lists: a tick reads a few samples, and Python floats are quicker to index and add than
                # numpy scalars (the arithmetic is IEEE double either way, so the poses are the same)
                cols = (s, p[:, 0], p[:, 1], p[:, 2], h, np.asarray(tc))
                self.tab[key] = (*(np.asarray(c, dtype=float).tolist() for c in cols), sign, kappa.tolist(), href.tolist())
                self.narrowing[key] = bool(np.nanmin(w) < NARROW)
            except Exception:  # lanes that exist only on part of the road: ask the map each time
                self.tab[key] = None
        return self.tab[key]

    def stretch(self, road: str, lane: int, s: float, offset: float) -> float:
        """Path metres per reference-line metre at s, at the entity's lateral place (1 - curvature * t)."""
        tb = self._table(road, lane)
        if tb is None:
            return 1.0
        k, tc = tb[7], tb[5]
        i = min(max(int(s / self.STEP), 0), len(k) - 1)
        st = 1.0 - float(k[i]) * (float(tc[i]) + offset)
        return st if st > 0.05 else 1.0

    def pose(self, road: str, lane: int, s: float, offset: float) -> tuple[float, float, float, float, float]:
        """(x, y, z, h along the lane's driving direction, t) at s with a road-frame offset from the centre."""
        tb = self._table(road, lane)
        if tb is None:
            p = self.net.lane_to_world(road, lane, s, offset)
            ref = self.net.road_to_world(road, s, 0.0)
            t = (p.x - ref.x) * -math.sin(ref.h) + (p.y - ref.y) * math.cos(ref.h)
            return p.x, p.y, p.z, p.h, t
        ss, xs, ys, zs, hs, tc, sign, _, hr = tb
        i = min(max(int(s / self.STEP), 0), len(ss) - 2)
        u = (s - ss[i]) / (ss[i + 1] - ss[i])
        x = xs[i] + u * (xs[i + 1] - xs[i])
        y = ys[i] + u * (ys[i + 1] - ys[i])
        z = zs[i] + u * (zs[i + 1] - zs[i])
        h = hs[i] + u * (hs[i + 1] - hs[i])
        href = hr[i] + u * (hr[i + 1] - hr[i])
        x -= math.sin(href) * offset
        y += math.cos(href) * offset
        return float(x), float(y), float(z), wrap(float(h)), float(tc[i] + u * (tc[i + 1] - tc[i]) + offset)
