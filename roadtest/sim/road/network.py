"""RoadNetwork: the lane API (api.RoadNetworkAPI) over a parsed OpenDRIVE map; load_map caches by digest."""

from __future__ import annotations

import copy
import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import numpy as np

from roadtest.errors import MapError
from roadtest.sim.road.api import LaneMatch, LaneSegment, Pose, RoadMark, RoadObject, Signal
from roadtest.sim.road.graph import LaneGraph, Node, driving
from roadtest.sim.road.index import LaneIndex
from roadtest.sim.road.model import Road, wrap
from roadtest.sim.road.reader import parse_xodr

__all__ = ["RoadNetwork", "load_map", "MAX_OFF_ROAD"]

MAX_OFF_ROAD = 5.0  # m beyond a lane's edge where locate still answers (on_road False); farther: None

CACHED_MAPS = 16  # parsed maps a process keeps (a long-lived worker runs many suites' maps; least recent go first)
_CACHE: "OrderedDict[str, dict[str, RoadNetwork]]" = OrderedDict()  # digest -> source -> network
_LOCK = threading.Lock()


def load_map(path: str | Path) -> "RoadNetwork":
    """Parse an .xodr file once per content digest (a second load of the same bytes is free)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise MapError(f"{p}: cannot read OpenDRIVE file: {e.strerror}") from None
    return RoadNetwork.from_bytes(data, str(p))


def _check_finite(r: Road, source: str) -> None:
    """Refuse a road whose reference line, elevation or lane edges evaluate to inf/NaN (overflowing cubics)."""
    with np.errstate(all="ignore"):
        for si, sec in enumerate(r.sections):
            s = np.linspace(sec.s, sec.s_end, 9)
            vals = [*r.ref(s), r.elevation(s), *(v for edges in r.bounds(si, s).values() for v in edges)]
            if not all(np.isfinite(v).all() for v in vals):
                raise MapError(f"{source}:{r.line}: <road id={r.id!r}>: its geometry or lane widths evaluate to "
                               f"non-finite values in the laneSection at s={sec.s:g} (coefficients too large?)")


class RoadNetwork:
    """A parsed OpenDRIVE map answering the lane API (see api.RoadNetworkAPI for each query)."""

    def __init__(self, data: bytes, source: str = "<string>"):
        pm = parse_xodr(data, source)
        for r in pm.roads.values():
            _check_finite(r, source)
        self.source = source
        self.warnings: list[str] = list(pm.warnings)  # inconsistencies read past, with the rule applied
        self.digest = hashlib.sha256(data).hexdigest()
        self.roads: dict[str, Road] = pm.roads
        self.junctions = pm.junctions
        self.driving_side = "left" if pm.rule == "LHT" else "right"
        self.signals: dict[str, Signal] = {}  # by id: the first of the signals that share one
        self.placed_signals: list[Signal] = []  # every <signal> where it stands (signal references left out)
        for r in self.roads.values():
            for sg in r.signals:
                self.signals.setdefault(sg.id, sg)
                if not sg.reference:
                    self.placed_signals.append(sg)
        self._order = list(self.roads)
        self._ri = {rid: i for i, rid in enumerate(self._order)}
        self.graph = LaneGraph(pm)
        self._roads_list = [self.roads[r] for r in self._order]
        self.index = LaneIndex(self._roads_list)
        self.objects: list[RoadObject] = [ro for r in self.roads.values() for o in r.objects
                                          for ro in self._objects(r, o)]

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<string>") -> "RoadNetwork":
        """Cached constructor: the same bytes read from the same source give the same (immutable) network object.

        The parse is kept by content digest; the same bytes from another file are a view of it that names that
        file in its messages and warnings, so what a run records never depends on which run parsed the map first."""
        key = hashlib.sha256(data).hexdigest()
        with _LOCK:
            views = _CACHE.get(key)
            if views is not None:
                _CACHE.move_to_end(key)
                net = views.get(source)
                if net is None:
                    net = views[source] = next(iter(views.values()))._named(source)
                return net
        net = cls(data, source)
        with _LOCK:
            net = _CACHE.setdefault(key, {}).setdefault(source, net)
            while len(_CACHE) > CACHED_MAPS:
                _CACHE.popitem(last=False)
        return net

    def _named(self, source: str) -> "RoadNetwork":
        """This parse as if read from `source`: the same roads, tables and index, the messages naming `source`."""
        view = copy.copy(self)
        view.source = source
        old = f"{self.source}:"
        view.warnings = [source + ":" + w[len(old):] if w.startswith(old) else w for w in self.warnings]
        return view

    # ---- lookups --------------------------------------------------------------------------
    def _road(self, road: str) -> Road:
        try:
            return self.roads[str(road)]
        except KeyError:
            raise MapError(f"{self.source}: unknown road id {road!r}") from None

    def _lane(self, road: str, lane: int, s: float):
        r = self._road(road)
        si = r.section_index(s, int(lane))
        ln = r.sections[si].lanes.get(int(lane))
        if ln is None:
            raise MapError(f"{self.source}: road {road!r} has no lane {lane} at s={s:.2f} "
                           f"(lanes there: {self.lane_ids(road, s)})")
        return r, si, ln

    def road(self, road: str) -> Road:
        """The parsed road (reference line, sections, profiles) for vectorised evaluation."""
        return self._road(road)

    def road_ids(self) -> list[str]:
        return list(self._order)

    def road_length(self, road: str) -> float:
        return self._road(road).length

    def junction_of(self, road: str) -> str | None:
        return self._road(road).junction

    # ---- positions --------------------------------------------------------------------------
    def road_to_world(self, road: str, s: float, t: float = 0.0) -> Pose:
        r = self._road(road)
        x, y, h = r.world(s, t)
        return Pose(float(x[0]), float(y[0]), float(r.elevation(np.clip(s, 0, r.length))), float(h[0]))

    def lane_poses(self, road: str, lane: int, s, offset=0.0) -> np.ndarray:
        """N x 4 (x, y, z, h) on the lane centre (+ offset) at s, h along the driving direction."""
        r = self._road(road)
        s = np.clip(np.atleast_1d(np.asarray(s, dtype=float)), 0.0, r.length)
        t, _ = r.lane_t(lane, s, offset)
        if np.isnan(t).any():
            bad = float(s[np.isnan(t)][0])
            raise MapError(f"{self.source}: road {road!r} has no lane {lane} at s={bad:.2f}")
        x, y, h = r.world(s, t)
        eps = 0.05
        t1, _ = r.lane_t(lane, np.clip(s + eps, 0, r.length), offset)
        t0, _ = r.lane_t(lane, np.clip(s - eps, 0, r.length), offset)
        dtds = np.nan_to_num((t1 - t0) / (2 * eps))
        h = h + np.arctan2(dtds, np.maximum(1.0 - r.curvature(s) * t, 0.1))
        if r.lane_sign(int(lane), r.section_index(float(s[0]), int(lane))) < 0:
            h = h + math.pi
        return np.column_stack([x, y, r.elevation(s), wrap(h)])

    def lane_to_world(self, road: str, lane: int, s: float, offset: float = 0.0) -> Pose:
        x, y, z, h = self.lane_poses(road, lane, s, offset)[0]
        return Pose(float(x), float(y), float(z), float(h))

    def lane_width(self, road: str, lane: int, s: float) -> float:
        r, si, _ = self._lane(road, lane, s)
        inner, outer = r.bounds_at(si, float(s))[int(lane)]
        return float(abs(outer - inner))

    def lane_type(self, road: str, lane: int, s: float) -> str:
        return self._lane(road, lane, s)[2].type

    def lane_ids(self, road: str, s: float) -> list[int]:
        """Lane ids at s (centre lane excluded), left to right in the road frame."""
        r = self._road(road)
        return sorted((i for i in r.sections[r.section_index(s)].lanes if i != 0), reverse=True)

    def lane_direction(self, road: str, lane: int) -> int:
        return self._road(road).lane_sign(int(lane))

    # ---- locate -------------------------------------------------------------------------------
    def _matches(self, xy, h=None, driving_only=False, hint_roads=None) -> list[LaneMatch | None]:
        c = self.index.query(xy, h, driving_only, hint_roads)
        P, R = self.index.pts, self.index.ref
        kd = c.kd.tolist()
        ref = P["ref"][np.maximum(c.kd, 0)]
        cols = (R["road"][ref].tolist(), R["sec"][ref].tolist(), c.lane.tolist(), c.s.tolist(), c.t.tolist(),
                c.center.tolist(), c.dist_out.tolist(), c.on_road.tolist(), c.hdiff.tolist())
        out: list[LaneMatch | None] = []
        for i, (ri, si, lane, s, t, center, dist_out, on_road, hd) in enumerate(zip(*cols)):
            if kd[i] < 0:
                out.append(None)
                continue
            road = self._roads_list[ri]
            if dist_out > 0 and on_road and not driving_only:
                lane, center, dist_out = self._exact_lane(road, s, t, lane, center, dist_out)
                si = road.section_index(s)
            if dist_out > MAX_OFF_ROAD:
                out.append(None)
                continue
            ln = road.sections[si].lanes.get(lane)
            out.append(LaneMatch(road=road.id, lane=lane, s=s, t=t, offset=t - center, heading_diff=hd,
                                 lane_type=ln.type if ln else "none", on_road=on_road, junction=road.junction))
        return out

    def _exact_lane(self, road: Road, s, t, lane, center, dist_out):
        """The lane whose exact bounds at s contain t (the index's nearest samples were a neighbour's)."""
        for lid, (a, b) in road.bounds_at(road.section_index(s), s).items():
            lo, hi = (a, b) if a <= b else (b, a)
            if lid != 0 and lo <= t <= hi and hi - lo > 1e-3:
                return lid, 0.5 * (lo + hi), 0.0
        return lane, center, dist_out

    def locate(self, x: float, y: float, h: float | None = None, hint: LaneMatch | None = None,
               driving_only: bool = False) -> LaneMatch | None:
        """Nearest lane position; None farther than MAX_OFF_ROAD from every lane.

        Where lanes overlap (junctions) the one matching h, then the hint's road or its successors, wins.
        """
        hr = None
        if hint is not None and hint.road in self.roads:
            # the hint's road and the roads its lane continues into (or comes from) are preferred
            hr = np.zeros(len(self._order), dtype=bool)
            near = [(hint.road, hint.lane)] + self.successors(hint.road, hint.lane) + self.predecessors(
                hint.road, hint.lane)
            hr[[self._ri[r] for r, _ in near]] = True
        c = self.index.query_one(float(x), float(y), None if h is None else float(h), driving_only, hr)
        if c is None:
            return None
        kd, s, t, lane, center, _, dist_out, hd, on_road = c
        ri, si = self.index.road_of(kd)
        road = self._roads_list[ri]
        if dist_out > 0 and on_road and not driving_only:
            lane, center, dist_out = self._exact_lane(road, s, t, lane, center, dist_out)
            si = road.section_index(s)
        if dist_out > MAX_OFF_ROAD:
            return None
        ln = road.sections[si].lanes.get(lane)
        return LaneMatch(road=road.id, lane=lane, s=s, t=t, offset=t - center, heading_diff=hd,
                         lane_type=ln.type if ln else "none", on_road=on_road, junction=road.junction)

    def locate_many(self, xy: np.ndarray, h: np.ndarray | None = None,
                    driving_only: bool = False) -> list[LaneMatch | None]:
        """locate for N points at once (one vectorised index query)."""
        return self._matches(np.asarray(xy, dtype=float).reshape(-1, 2), h, driving_only)

    # ---- graph -------------------------------------------------------------------------------
    def successors(self, road: str, lane: int, s: float | None = None) -> list[tuple[str, int]]:
        """Lanes continuing this one past the road's end in its driving direction (s: start section)."""
        self._road(road)
        return self.graph.road_neighbours(str(road), int(lane), True, s)

    def predecessors(self, road: str, lane: int, s: float | None = None) -> list[tuple[str, int]]:
        self._road(road)
        return self.graph.road_neighbours(str(road), int(lane), False, s)

    def _mark_between(self, r: Road, si: int, lane: int, towards_plus_t: bool, s: float) -> RoadMark | None:
        sec = r.sections[si]
        ds = s - sec.s
        if lane > 0:
            owner = lane if towards_plus_t else lane - 1
        else:
            owner = lane + 1 if towards_plus_t else lane
            owner = 0 if owner == 0 else owner
        ln = sec.lanes.get(owner)
        return ln.mark_at(ds) if ln is not None else None

    def neighbours(self, road: str, lane: int, s: float) -> dict[str, tuple[int | None, RoadMark | None]]:
        r, si, _ = self._lane(road, lane, s)
        lane = int(lane)
        sec = r.sections[si]
        up = lane + 1 if lane != -1 else 1
        down = lane - 1 if lane != 1 else -1
        plus = (up if up in sec.lanes else None, self._mark_between(r, si, lane, True, s))
        minus = (down if down in sec.lanes else None, self._mark_between(r, si, lane, False, s))
        if r.lane_sign(lane, si) > 0:
            return {"left": plus, "right": minus}
        return {"left": minus, "right": plus}

    def lane_change_allowed(self, road: str, lane: int, s: float, side: str) -> bool:
        """Whether a vehicle in the lane may move to its left/right neighbour at s (mark permits)."""
        nb, mark = self.neighbours(road, lane, s)[side]
        if nb is None:
            return False
        if mark is None:
            return True
        return mark.allows(towards_higher_id=nb > lane)

    def _lane_change_nodes(self, node: Node, entry: float) -> list[Node]:
        road, si, lane = node
        r = self.roads[road]
        if not driving(r, si, lane):
            return []
        out = []
        for side in ("left", "right"):
            nb, _ = self.neighbours(road, lane, entry)[side]
            if (nb is not None and driving(r, si, nb) and r.lane_sign(nb, si) == r.lane_sign(lane, si)
                    and self.lane_change_allowed(road, lane, entry, side)):
                out.append((road, si, nb))
        return out

    def route(self, start: LaneSegment | tuple[str, int, float], goal: tuple[str, int, float]) -> list[LaneSegment]:
        """Shortest lane route (lane changes where marks permit, each costing graph.LANE_CHANGE_COST m);
        a lane change is taken where the lane is entered. [] when the goal is unreachable."""
        if isinstance(start, LaneSegment):
            start = (start.road, start.lane, start.s_start)
        for rd, ln, s in (start, goal):
            self._lane(rd, ln, s)
        return self.graph.route((str(start[0]), int(start[1]), float(start[2])),
                                (str(goal[0]), int(goal[1]), float(goal[2])), self._lane_change_nodes)

    # ---- rules ---------------------------------------------------------------------------------
    def speed_limit(self, road: str, lane: int, s: float) -> float | None:
        r, si, ln = self._lane(road, lane, s)
        found, v = ln.speed_at(s - r.sections[si].s)
        if found:
            return v
        return r.type_speed(s)[1]

    def _governs(self, sg: Signal, r: Road, lane: int) -> bool:
        sign = r.lane_sign(lane)
        if sg.orientation == "+" and sign < 0 or sg.orientation == "-" and sign > 0:
            return False
        if not sg.validity:
            return True
        return any(min(a, b) <= lane <= max(a, b) for a, b in sg.validity)

    def signals_for(self, road: str, lane: int, s: float, ahead: float = 100.0) -> list[tuple[Signal, float]]:
        """Signals valid for the lane within `ahead` m in its driving direction (following successors)."""
        self._lane(road, lane, s)
        found: dict[str, tuple[Signal, float]] = {}
        todo = [(str(road), int(lane), float(s), 0.0)]
        seen = set()
        while todo:
            rid, ln, s0, base = todo.pop()
            if (rid, ln) in seen:
                continue
            seen.add((rid, ln))
            r = self.roads[rid]
            sign = r.lane_sign(ln)
            for sg in r.signals:
                d = base + (sg.s - s0) * sign
                if -1e-6 <= d <= ahead and self._governs(sg, r, ln) and (sg.id not in found or d < found[sg.id][1]):
                    found[sg.id] = (sg, max(d, 0.0))
            rest = base + ((r.length - s0) if sign > 0 else s0)
            if rest < ahead:
                for nr, nl in self.graph.road_neighbours(rid, ln, True, s0):
                    nroad = self.roads[nr]
                    todo.append((nr, nl, 0.0 if nroad.lane_sign(nl) > 0 else nroad.length, rest))
        return sorted(found.values(), key=lambda p: (p[1], p[0].id))

    # ---- polylines ------------------------------------------------------------------------------
    def lane_polyline(self, road: str, lane: int, which: str = "center", step: float = 1.0) -> np.ndarray:
        """N x 2 points of the lane centre or its left/right boundary (driving direction), along the road."""
        if which not in ("center", "left", "right"):
            raise ValueError(f"which={which!r}: expected center, left or right")
        r = self._road(road)
        lane = int(lane)
        sign = r.lane_sign(lane)
        pts = []
        for si, sec in enumerate(r.sections):
            if lane not in sec.lanes:
                continue
            s = np.linspace(sec.s, sec.s_end, max(2, int(math.ceil((sec.s_end - sec.s) / step)) + 1))
            inner, outer = r.bounds(si, s)[lane]
            if which == "center":
                t = 0.5 * (inner + outer)
            else:
                plus_t = (which == "left") == (sign > 0)
                t = np.maximum(inner, outer) if plus_t else np.minimum(inner, outer)
            x, y, _ = r.world(s, t)
            pts.append(np.column_stack([x, y]))
        if not pts:
            raise MapError(f"{self.source}: road {road!r} has no lane {lane}")
        out = np.concatenate(pts)
        return out if sign > 0 else out[::-1]

    def path(self, segments: Sequence[LaneSegment], step: float = 1.0) -> np.ndarray:
        parts = []
        for g in segments:
            n = max(2, int(math.ceil(abs(g.s_end - g.s_start) / step)) + 1)
            s = np.linspace(g.s_start, g.s_end, n)
            r = self._road(g.road)
            # sample each section separately so the lane's id is looked up where it exists
            parts.append(self.lane_poses(g.road, g.lane, np.clip(s, 0, r.length)))
        if not parts:
            return np.zeros((0, 4))
        out = [parts[0]]
        for p in parts[1:]:
            out.append(p[1:] if np.hypot(*(p[0, :2] - out[-1][-1, :2])) < 1e-3 else p)
        return np.concatenate(out)

    # ---- objects -------------------------------------------------------------------------------
    def _objects(self, r: Road, o) -> list[RoadObject]:
        """The object, plus its <repeat>s: copies every `distance` m, or one strip when distance is 0."""
        out = [self._object(r, o)]
        for s0, length, dist, t0, t1, w0, w1 in o.repeats:
            if dist > 0:
                n = min(int(length / dist + 1e-9) + 1, 1000)
                for k in range(n):
                    f = k * dist / length if length > 0 else 0.0
                    s = min(s0 + k * dist, r.length)
                    copy = replace(o, s=s, t=t0 + f * (t1 - t0), width=w0 + f * (w1 - w0), repeats=[])
                    out.append(replace(self._object(r, copy), id=f"{o.id}#{k}"))
            else:
                s = np.linspace(s0, min(s0 + length, r.length), max(2, int(length) + 1))
                f = (s - s0) / length if length > 0 else np.zeros_like(s)
                tc, half = t0 + f * (t1 - t0), np.maximum(0.5 * (w0 + f * (w1 - w0)), 0.1)
                xl, yl, _ = r.world(s, tc + half)
                xr, yr, _ = r.world(s, tc - half)
                ring = np.concatenate([np.column_stack([xl, yl]), np.column_stack([xr, yr])[::-1]])
                x, y, h = r.world(s0, t0)
                out.append(RoadObject(id=f"{o.id}#strip", road=r.id, s=s0, t=t0, type=o.type, name=o.name,
                                      length=length, width=float(2 * half.mean()), heading=float(h[0]) + o.hdg,
                                      outline=tuple(map(tuple, ring.tolist()))))
        return out

    def _object(self, r: Road, o) -> RoadObject:
        x, y, h = r.world(o.s, o.t)
        heading = float(h[0]) + o.hdg
        if o.corners_road:
            cs, ct = np.array(o.corners_road).T
            px, py, _ = r.world(cs, ct)
            outline = tuple(zip(px.tolist(), py.tolist()))
        elif o.corners_local:
            u, v = np.array(o.corners_local).T
            c, sn = math.cos(heading), math.sin(heading)
            outline = tuple(zip((x[0] + c * u - sn * v).tolist(), (y[0] + sn * u + c * v).tolist()))
        else:
            outline = ()
        return RoadObject(id=o.id, road=r.id, s=o.s, t=o.t, type=o.type, name=o.name, length=o.length,
                          width=o.width if o.width else 2 * o.radius, heading=heading, outline=outline)
