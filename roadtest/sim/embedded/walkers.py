"""Background pedestrians: they walk along sidewalks, turning at their ends; some cross at crosswalks."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from roadtest.sim.api import ActorState, LanePos
from roadtest.sim.embedded.lanes import make_actor

__all__ = ["CROSSING_SHARE", "GAP_TIME", "Walker", "WalkerCrowd"]

CROSSING_SHARE = 0.3  # of walkers that cross the road at crosswalks they pass
GAP_TIME = 4.0  # s: a walker starts across when no vehicle would reach the crosswalk sooner
STOP_LOOKAHEAD = 60.0  # m before a crosswalk in use where background vehicles stop for it
CROSSWALK_MARGIN = 0.5  # m beyond a crosswalk's painted extent where a scenario pedestrian still counts as on it
REARM = 10.0  # m from a crosswalk just crossed before the walker may cross it again


@dataclass
class Walker:
    """A pedestrian walking along a sidewalk lane, turning at its ends."""

    id: str
    road: str
    lane: int
    s: float
    dir: int
    speed: float
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    h: float = 0.0
    crosses: bool = False  # one of the seeded share that crosses at crosswalks
    mode: str = "walk"  # walk (along the sidewalk), wait (at a crosswalk's kerb), cross (on the crosswalk)
    crosswalk: str | None = None  # the crosswalk waited at or crossed, or last crossed
    t: float = 0.0  # m, road-frame lateral position while crossing
    t_to: float = 0.0  # m, where the crossing ends
    to_lane: int = 0  # the sidewalk lane across the road
    waited: float = 0.0  # s at the kerb


class WalkerCrowd:
    """Every background pedestrian of a Traffic: spawn, decide, integrate, and the stops they impose on vehicles."""

    def __init__(self, traffic, crossing_share: float = CROSSING_SHARE, seed: int = 0):
        self.tr = traffic
        self.net = traffic.net
        self.crossing_share = crossing_share
        self.rng = random.Random(seed)  # its own generator: vehicles' draws do not shift with walkers
        self.walkers: list[Walker] = []
        self._crosswalks: dict[str, list] = {}  # road -> crosswalk objects on it (with sidewalks both sides)
        self._bands: dict[tuple[str, float], list[tuple[int, float, float, str]]] = {}

    # ---- map facts -------------------------------------------------------------------------------
    def bands(self, road: str, s: float) -> list[tuple[int, float, float, str]]:
        """(lane, t of its right edge, t of its left edge, type) across the road at s, in the road frame."""
        key = (road, round(s, 2))
        got = self._bands.get(key)
        if got is None:
            got = []
            r = self.net.road_to_world(road, s)
            for lane in self.net.lane_ids(road, s):
                if lane == 0:
                    continue
                c = self.net.lane_to_world(road, lane, s)
                t = (c.x - r.x) * -math.sin(r.h) + (c.y - r.y) * math.cos(r.h)
                w = self.net.lane_width(road, lane, s)
                got.append((lane, t - 0.5 * w, t + 0.5 * w, self.net.lane_type(road, lane, s)))
            got.sort(key=lambda b: b[1])
            self._bands[key] = got
        return got

    def _other_side(self, road: str, lane: int, s: float) -> tuple[int, float] | None:
        """(sidewalk lane, its centre t) across the road from this sidewalk at s."""
        sides = [b for b in self.bands(road, s) if b[3] == "sidewalk" and (b[0] > 0) != (lane > 0)]
        if not sides:
            return None
        b = min(sides, key=lambda b: abs(b[0]))
        return b[0], 0.5 * (b[1] + b[2])

    def crosswalks(self, road: str) -> list:
        if not self._crosswalks:
            for o in getattr(self.net, "objects", ()):
                if str(o.type).lower() == "crosswalk":
                    self._crosswalks.setdefault(o.road, []).append(o)
            self._crosswalks.setdefault("", [])
        return self._crosswalks.get(road, [])

    def _half_length(self, cw) -> float:
        """Half the crosswalk's extent along the road."""
        c = abs(math.cos(cw.heading))
        return 0.5 * (cw.length * c + cw.width * (1.0 - c)) if cw.length else 2.0

    # ---- spawn -----------------------------------------------------------------------------------
    def spawn(self, pedestrians: int) -> None:
        """Place walkers on random sidewalk lanes (seeded by the traffic's generator); a seeded share crosses."""
        tr, net = self.tr, self.net
        side = []
        if pedestrians > 0:
            for road in sorted(net.road_ids()):
                L = net.road_length(road)
                for lane in net.lane_ids(road, 0.5 * L):
                    if lane and net.lane_type(road, lane, 0.5 * L) == "sidewalk":
                        side.append((road, lane))
        for i in range(pedestrians if side else 0):
            road, lane = side[tr.rng.randrange(len(side))]
            lo, hi = tr.extent(road, lane)
            w = Walker(id=f"walker_{i}", road=road, lane=lane, s=tr.rng.uniform(lo, hi),
                       dir=tr.rng.choice((1, -1)), speed=tr.rng.uniform(1.0, 1.6),
                       crosses=self.rng.random() < self.crossing_share)
            self._pose(w)
            self.walkers.append(w)

    # ---- decide ----------------------------------------------------------------------------------
    def decide(self, idx, others, dt: float) -> None:
        """Walkers at a kerb start across when no vehicle would reach the crosswalk within GAP_TIME."""
        for w in self.walkers:
            if w.mode != "wait":
                continue
            w.waited += dt
            cw = next(c for c in self.crosswalks(w.road) if c.id == w.crosswalk)
            if self._gap(idx, cw):
                w.mode = "cross"

    def _gap(self, idx, cw) -> bool:
        """No vehicle (background or not) on the crosswalk's road within GAP_TIME s of it, or on it."""
        half = self._half_length(cw)
        for (road, lane), lst in idx.items():
            if road != cw.road or self.net.lane_type(road, lane, cw.s) != "driving":
                continue  # a scenario pedestrian on the sidewalk is no traffic to wait for
            d = self.net.lane_direction(road, lane)
            for e in lst:
                ahead = (cw.s - e.s) * d  # distance of the crosswalk's centre ahead of the vehicle
                if -half - 0.5 * e.length < ahead < half + 0.5 * e.length + 1.0:
                    return False  # on it
                if 0.0 < ahead < (half + 0.5 * e.length + e.speed * GAP_TIME) + 2.0:
                    return False
        return True

    def vehicle_stops(self, vehicles, stops: dict[str, float]) -> None:
        """Stop gaps (vehicle id -> m) before crosswalks: for walkers on them always, for walkers waiting at the
        kerb when the vehicle can still stop comfortably (the yield a zebra crossing asks for)."""
        busy: dict[tuple[str, str], bool] = {}
        for w in self.walkers:
            if w.mode != "walk":
                busy[(w.road, w.crosswalk)] = busy.get((w.road, w.crosswalk), False) or w.mode == "cross"
        if not busy:
            return
        b = self.tr.p.b
        for (road, cid), crossing in busy.items():
            cw = next(c for c in self.crosswalks(road) if c.id == cid)
            half = self._half_length(cw)
            for v in vehicles:
                if v.road != road:
                    continue
                ahead = (cw.s - v.s) * v.dir
                if 0.0 < ahead - 0.5 * v.length < STOP_LOOKAHEAD:
                    gap = max(0.1, ahead - half - 0.5 * v.length - 1.0)
                    if crossing or gap > v.speed ** 2 / (2.0 * b):
                        stops[v.id] = min(stops.get(v.id, math.inf), gap)

    def scenario_pedestrian_stops(self, vehicles, others, stops: dict[str, float]) -> None:
        """Stop gaps before crosswalks a scenario pedestrian is on (on a driving lane within the crosswalk's extent
        along the road, CROSSWALK_MARGIN either side): background vehicles yield to it as to a walker crossing.
        One waiting at the kerb holds no one: the storyboard, not traffic, knows whether it will cross."""
        for o in others:
            if o.kind != "pedestrian" or self.net.lane_type(o.road, o.lane, o.s) != "driving":
                continue
            for cw in self.crosswalks(o.road):
                half = self._half_length(cw)
                if abs(o.s - cw.s) > half + CROSSWALK_MARGIN:
                    continue
                for v in vehicles:
                    ahead = (cw.s - v.s) * v.dir
                    if v.road == o.road and 0.0 < ahead - 0.5 * v.length < STOP_LOOKAHEAD:
                        gap = max(0.1, ahead - half - 0.5 * v.length - 1.0)
                        stops[v.id] = min(stops.get(v.id, math.inf), gap)

    # ---- integrate -------------------------------------------------------------------------------
    def integrate(self, dt: float) -> None:
        """Move every walker one tick: along its sidewalk, or across the crosswalk it is on."""
        for w in self.walkers:
            if w.mode == "cross":
                step = w.speed * dt
                if abs(w.t_to - w.t) <= step:
                    w.mode, w.lane, w.t, w.waited = "walk", w.to_lane, w.t_to, 0.0
                else:
                    w.t += math.copysign(step, w.t_to - w.t)
                self._pose(w)
                continue
            if w.mode == "wait":
                continue
            s0 = w.s
            w.s += w.dir * w.speed * dt
            lo, hi = self.tr.extent(w.road, w.lane)
            if w.s > hi or w.s < lo:
                w.s = min(max(w.s, lo), hi)
                w.dir = -w.dir
            if w.crosses:
                self._maybe_wait(w, s0)
            self._pose(w)

    def _maybe_wait(self, w: Walker, s0: float) -> None:
        for cw in self.crosswalks(w.road):
            if cw.id == w.crosswalk:
                if abs(w.s - cw.s) > REARM:
                    w.crosswalk = None  # far enough from the last crossing to cross there again
                continue
            if (s0 - cw.s) * (w.s - cw.s) <= 0.0 and s0 != w.s:
                other = self._other_side(w.road, w.lane, cw.s)
                if other is None:
                    continue
                w.mode, w.crosswalk, w.s, w.waited = "wait", cw.id, cw.s, 0.0
                w.to_lane, w.t_to = other
                here = next(b for b in self.bands(w.road, cw.s) if b[0] == w.lane)
                w.t = 0.5 * (here[1] + here[2])
                return

    def _pose(self, w: Walker) -> None:
        if w.mode == "cross":
            p = self.net.road_to_world(w.road, w.s, w.t)
            w.x, w.y, w.z = p.x, p.y, p.z
            w.h = math.remainder(p.h + math.copysign(0.5 * math.pi, w.t_to - w.t), math.tau)
            return
        x, y, z, h, t = self.tr.table.pose(w.road, w.lane, self.tr.extent(w.road, w.lane), w.s)
        same = self.net.lane_direction(w.road, w.lane) == w.dir
        w.x, w.y, w.z, w.h, w.t = x, y, z, math.remainder(h if same else h + math.pi, math.tau), t
        if w.mode == "wait":  # facing across the road
            w.h = math.remainder(self.net.road_to_world(w.road, w.s).h + math.copysign(0.5 * math.pi, w.t_to - w.t),
                                 math.tau)

    def _lane_at(self, w: Walker) -> int:
        for lane, lo, hi, _ in self.bands(w.road, w.s):
            if lo <= w.t <= hi:
                return lane
        return w.lane

    def actor_states(self) -> list[ActorState]:
        """The WorldState view of every walker (its lane while crossing is the one it is over)."""
        out = []
        for w in self.walkers:
            speed = 0.0 if w.mode == "wait" else w.speed
            lane = self._lane_at(w) if w.mode == "cross" else w.lane
            out.append(make_actor(id=w.id, role="background", kind="pedestrian", x=w.x, y=w.y, z=w.z, h=w.h,
                                  speed=speed, vx=speed * math.cos(w.h), vy=speed * math.sin(w.h),
                                  length=0.5, width=0.6, height=1.8, lane=LanePos(w.road, lane, w.s, w.t)))
        return out
