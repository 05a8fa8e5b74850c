"""esmini's ACCController as a roadtest driver model: cruise at a set speed, keep a time gap to the lead in the lane.

Behaviour learnt from esmini v3.6 (ControllerACC): the lead is the nearest entity ahead in the same lane (or any
entity very close in front of the bumper); the speed command blends a distance term and a speed-difference term.
Properties: timeGap (s, default 1.5), setSpeed (m/s), lateralDist (m, default 5), mode (override|additive,
default additive), virtual (true: compute only, the default controller keeps driving).
roadtest's own property crossingPath (true|false, default false; esmini ignores it): an entity whose box lies,
or moving on at its speed will lie within CROSSING_HORIZON s, in the corridor ahead along the heading
(CROSSING_MARGIN either side of the own width) counts as a lead too, at its speed along that heading, so a
car with priority brakes for a car that crosses in front of it in a junction, where no lane joins the two.
roadtest's own property obeySignals (true|false, default false; esmini ignores it): a red light ahead on its lane
(a dynamic OpenDRIVE signal valid for the lane) counts as a standing lead 1 m past its stop line, unless it is too
close to stop within STOP_HARD; a yellow one likewise when it can stop within STOP_COMFORT.
roadtest's own property obeyLimits (true|false, default false; esmini ignores it): the set speed is at most the
speed limit in force where the entity is, as the backend gives it (engine.limit_in_force: roadtest.limits on the
built-in simulator), read again every tick, so the entity slows for a lower limit sign it passes or fog.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roadtest.sim.xosc.drivers.base import DriverModel

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["ACC", "Delta", "road_delta", "freespace_lat_long", "gap_between", "Seen", "predicted", "mode_of"]

LARGE = 1e10
STOP_HARD = 6.0  # m/s^2: a red light closer than this deceleration allows is driven through (obeySignals)
STOP_COMFORT = 3.0  # m/s^2: a yellow light is stopped for when this deceleration suffices (obeySignals)


@dataclass(frozen=True)
class _StopLine:
    """A light's stop line standing in for a lead (obeySignals)."""

    name: str
    speed: float = 0.0


@dataclass
class Delta:
    """Relative position of b seen from a along the road: ds ahead (m), dt left (m), lane difference, same heading."""

    ds: float
    dt: float
    dlane: int
    same_dir: bool


def mode_of(props: dict[str, str], default: str) -> str:
    """esmini's operation mode from a controller's `mode` property ("override" or "additive")."""
    m = props.get("mode")
    if m is None:
        return default
    return m if m in ("override", "additive") else "override"  # esmini falls back to override on other values


def _f(props: dict[str, str], key: str, default: float) -> float:
    v = props.get(key)
    return default if v in (None, "") else float(v)


@dataclass
class Seen:
    """Where a controller sees an entity this tick: world pose and its road, s, t and lane."""

    x: float
    y: float
    h: float
    s: float
    t: float
    lane: int
    road: str | None


def _seen(o: Any) -> Seen:
    lp = o.lane
    return Seen(o.x, o.y, o.h, lp.s if lp else 0.0, lp.t if lp else 0.0, lp.lane if lp else 0, lp.road if lp else None)


def predicted(engine: ScenarioEngine, me: str, other: str) -> Seen:
    """An entity as esmini's controllers see it: after this tick's move for everyone but `me`.

    esmini moves every default-driven entity before its controllers step. Entities after `me` in the engine's
    order have not moved yet this tick: a default-driven one is moved on a copy by the engine's own motion
    rule, one under another driver model is extrapolated one step along its heading.
    """
    o = engine.entities[other]
    names = list(engine.entities)
    if other == me or names.index(other) < names.index(me) or o.tow is not None or not o.active:
        return _seen(o)
    m = engine.motions.get(other)
    step = o.speed * engine.tick
    if m is not None and m.road is not None and m.lat is None and m.path is None and engine.lanes is not None:
        seen = _seen(o)  # plain lane following: a step along the heading and the lane
        seen.x += step * math.cos(o.h)
        seen.y += step * math.sin(o.h)
        seen.s += step * m.sdir / engine.lanes.stretch(m.road, m.lane, m.s, m.offset)
        return seen
    if other not in engine.drivers and m is not None and engine.network is not None:
        from roadtest.sim.xosc.motion import advance

        mc = copy.copy(m)
        mc.lat, mc.path, mc.route, mc.path_done = copy.copy(m.lat), copy.copy(m.path), list(m.route), None
        oc = copy.copy(o)
        advance(engine.network, oc, mc, engine.tick, engine.time + engine.tick, engine.lanes)
        return _seen(oc)
    seen = _seen(o)
    seen.x += step * math.cos(o.h)
    seen.y += step * math.sin(o.h)
    if o.lane is not None and engine.network is not None:
        seen.s += step * math.cos(o.h - engine.network.road_to_world(o.lane.road, o.lane.s, 0.0).h)
    return seen


def _lane_diff(la: int, lb: int) -> int:
    """Lane-id difference from la to lb, the centre lane between opposite sides not counted (as esmini)."""
    d = lb - la
    if (la > 0) != (lb > 0):
        d = (abs(d) - 1) * (1 if d > 0 else -1)
    return d


def _along_lanes(net: RoadNetworkAPI, road: str, lane: int, s: float, sdir: int, target: str, t_s: float, max_dist: float,
                 ahead: bool) -> tuple[float, int] | None:
    """Distance along the lane graph from (road, lane, s) to s=t_s on road `target`, with the lane reached there.

    Walks successors (ahead) or predecessors (behind) of the lane in its travel direction, roads in turn, up to
    max_dist; None when `target` is not reached. The distance is along the roads' reference lines, as esmini's.
    """
    frontier = [(road, lane, sdir, (net.road_length(road) - s) if (sdir > 0) == ahead else s)]
    seen = {(road, lane)}
    while frontier:
        r, ln, d, dist = frontier.pop(0)
        if dist > max_dist:
            continue
        forward = (d == net.lane_direction(r, ln)) == ahead
        for nr, nl in (net.successors(r, ln) if forward else net.predecessors(r, ln)):
            if (nr, nl) in seen:
                continue
            seen.add((nr, nl))
            nd = net.lane_direction(nr, nl) * (1 if forward else -1) * (1 if ahead else -1)
            length = net.road_length(nr)
            if nr == target:
                return dist + (t_s if (nd > 0) == ahead else length - t_s), nl
            frontier.append((nr, nl, nd, dist + length))
    return None


def road_delta(engine: ScenarioEngine, a: Any, sa: Seen, b: Any, sb: Seen, both: bool, max_dist: float) -> Delta | None:
    """b relative to a along a's driving direction, None when b is out of reach (esmini's Position::Delta).

    On the same road ds is the difference in s; on a road ahead (or behind, with `both`) it is the distance along
    the lane graph (None when no lane path reaches b); dlane is the lane-id difference (the centre lane not counted)
    from the lane a's lane leads into. Off the lane graph the difference is measured in a's frame, the lane taken
    as the same within half a lane width.
    """
    la, lb = sa.lane, sb.lane
    net = engine.network
    same_dir = math.cos(sa.h - sb.h) >= 0
    m = engine.motions.get(a.name)
    if sa.road is not None and sb.road is not None and la and lb and net is not None:
        sdir = m.sdir if m is not None and m.road is not None else net.lane_direction(sa.road, la)
        if sa.road == sb.road:
            ds = (sb.s - sa.s) * sdir
            if (ds < 0 and not both) or abs(ds) >= max_dist:
                return None
            return Delta(ds, sb.t - sa.t, _lane_diff(la, lb), same_dir)
        if math.hypot(sb.x - sa.x, sb.y - sa.y) > max_dist + 20.0:
            return None  # farther than any lane path within reach (lanes' offsets allowed for)
        for ahead in (True, False) if both else (True,):
            hit = _along_lanes(net, sa.road, la, sa.s, sdir, sb.road, sb.s, max_dist, ahead)
            if hit is not None and hit[0] < max_dist:
                ds = hit[0] if ahead else -hit[0]
                return Delta(ds, sb.t - sa.t, _lane_diff(hit[1], lb), same_dir)
        return None  # no lane path between them within reach
    dx, dy = sb.x - sa.x, sb.y - sa.y
    ds = dx * math.cos(sa.h) + dy * math.sin(sa.h)
    dt = -dx * math.sin(sa.h) + dy * math.cos(sa.h)
    if (ds < 0 and not both) or abs(ds) >= max_dist:
        return None
    return Delta(ds, dt, 0 if abs(dt) < 1.75 else (1 if dt > 0 else -1), same_dir)


def _corners(e: Any, x: float, y: float, h: float) -> list[tuple[float, float]]:
    c, s = math.cos(h), math.sin(h)
    out = []
    for lx, ly in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
        px, py = e.bbox_cx + lx * e.length / 2, e.bbox_cy + ly * e.width / 2
        out.append((x + px * c - py * s, y + px * s + py * c))
    return out


def freespace_lat_long(a: Any, b: Any, sb: Seen) -> tuple[float, float]:
    """(lateral, longitudinal) free space from a's bounding box to b's (seen at sb) in a's frame, 0 where they overlap.

    Positive lateral: b is to the left; positive longitudinal: b is ahead (esmini's FreeSpaceDistance outputs).
    """
    ca = _corners(a, a.x, a.y, a.h)
    cb = _corners(b, sb.x, sb.y, sb.h)
    out = []
    for nx, ny in ((-math.sin(a.h), math.cos(a.h)), (math.cos(a.h), math.sin(a.h))):
        pa = [px * nx + py * ny for px, py in ca]
        pb = [px * nx + py * ny for px, py in cb]
        if max(pa) < min(pb) - 1e-9:
            out.append(min(pb) - max(pa))
        elif max(pb) < min(pa) - 1e-9:
            out.append(-(min(pa) - max(pb)))
        else:
            out.append(0.0)
    return out[0], out[1]


def gap_between(a: Any, b: Any, ds: float, same_dir: bool) -> float:
    """Bumper-to-bumper gap from ds between reference points (esmini's bounding-box adjustment)."""
    rear_b = b.length / 2 - b.bbox_cx if same_dir else b.length / 2 + b.bbox_cx
    return ds - (a.length / 2 + a.bbox_cx) - rear_b


class ACC(DriverModel):
    """Adaptive cruise control on the longitudinal domain (esmini's ACCController); lateral stays default."""

    kind = "ACCController"
    MIN_DIST = 3.0  # m kept to the lead at standstill
    ACCEL_FACTOR = 0.7
    CROSSING_MARGIN = 0.5  # m beside the own box that counts as "in the path" (crossingPath)
    CROSSING_HORIZON = 1.5  # s ahead that an entity about to cross the path is braked for (crossingPath)

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)
        p = self.props
        self.time_gap = _f(p, "timeGap", 1.5)
        self.lateral_dist = _f(p, "lateralDist", 5.0)
        self.mode = mode_of(p, "additive")
        self.virtual = p.get("virtual", "false") == "true"
        self.crossing = p.get("crossingPath", "false") == "true"
        self.obey_signals = p.get("obeySignals", "false") == "true"
        self.obey_limits = p.get("obeyLimits", "false") == "true"
        speed = engine.entities[name].speed
        self.current = speed
        given = p.get("setSpeed") not in (None, "")
        self.set_speed = _f(p, "setSpeed", speed) if given and self.mode == "override" else speed
        self.lead: str | None = None

    def overrides(self, domain: str) -> bool:
        """True when scenario actions on this domain ("long"/"lat") are not applied (esmini's override mode)."""
        return domain == "long" and self.longitudinal and self.mode == "override" and not self.virtual

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        e = engine.entities[self.name]
        if not self.longitudinal:
            self.default(engine, t_next)
            return
        if self.mode == "additive" and not self.virtual:
            # another action set a new speed: that becomes the set speed (esmini's additive mode)
            if abs(e.speed - self.current) > 1e-3:
                self.set_speed = e.speed
            self.default(engine, t_next)  # the default controller moves first, at the commanded speed
        elif self.virtual:
            self.current = e.speed
            self.default(engine, t_next)
        speed = self._command(engine, e)
        if self.virtual:
            return
        if self.mode == "override":
            e.speed = speed
            self.default(engine, t_next)
        e.speed = speed

    def _crossing_gap(self, e: Any, o: Any, seen: Seen, cur: float) -> float | None:
        """Free space ahead to where `o`, moving on at its speed and heading, stands in this entity's path within
        CROSSING_HORIZON s while still ahead of its front (which moves on at `cur`); None when it never does."""
        for k in range(int(self.CROSSING_HORIZON / 0.25) + 1):
            tau = 0.25 * k
            at = copy.copy(seen)
            at.x += o.speed * math.cos(seen.h) * tau
            at.y += o.speed * math.sin(seen.h) * tau
            y_loc, x_loc = freespace_lat_long(e, o, at)
            if abs(y_loc) < self.CROSSING_MARGIN and x_loc - cur * tau > 0.0:
                return x_loc
        return None

    def _lawful_set_speed(self, engine: ScenarioEngine, e: Any) -> float:
        """The set speed, lowered to the limit in force at the entity when it obeys limits (obeyLimits)."""
        if self.obey_limits and engine.limit_in_force is not None:
            limit = engine.limit_in_force(e)
            if limit is not None and limit < self.set_speed:
                return limit
        return self.set_speed

    def _command(self, engine: ScenarioEngine, e: Any) -> float:
        """The speed for the next tick from the lead (if any) and the set speed."""
        dt, cur = engine.tick, self.current
        set_speed = self._lawful_set_speed(engine, e)
        lookahead = max(50.0, 2 * self.MIN_DIST + cur * cur / max(e.max_decel, 1e-9))
        min_gap, lead = LARGE, None
        here = predicted(engine, self.name, self.name)
        seen_of: dict[str, Seen] = {}
        for n, o in engine.entities.items():
            if n == self.name or not o.active:
                continue
            seen = seen_of[n] = predicted(engine, self.name, n)
            d = road_delta(engine, e, here, o, seen, False, lookahead)
            if d is not None:
                gap = gap_between(e, o, d.ds, d.same_dir)
                if d.dlane == 0 and 0 < gap < min_gap and abs(d.dt) < self.lateral_dist:
                    min_gap, lead = gap, o
            if lead is not o:  # anything right in front of the bumper counts too (a cut-in)
                y_loc, x_loc = freespace_lat_long(e, o, seen)
                if 0 < x_loc < 1.0 + o.length + 0.5 * max(0.0, cur - o.speed) and -0.5 < y_loc < 0.2:
                    min_gap, lead = x_loc, o
        lead_speed = lead.speed if lead is not None else 0.0
        if self.crossing:
            for n, seen in seen_of.items():
                o = engine.entities[n]
                if o is lead:
                    continue
                # free space is at least the centres' distance less both half-diagonals, and it shrinks by at most
                # o's travel within the horizon: farther than that, o cannot become a closer lead
                reach = min(min_gap, lookahead) + o.speed * self.CROSSING_HORIZON + e.length + e.width + o.length + o.width
                if math.hypot(seen.x - here.x, seen.y - here.y) > reach:
                    continue
                gap = self._crossing_gap(e, o, seen, cur)
                if gap is not None and gap < min(min_gap, lookahead):
                    min_gap, lead, lead_speed = gap, o, max(0.0, o.speed * math.cos(seen.h - e.h))
        if self.obey_signals:
            stop = self._signal_stop(engine, e, cur)
            if stop is not None and stop[0] < min_gap:
                min_gap, lead, lead_speed = stop[0], stop[1], 0.0
        self.lead = lead.name if lead is not None else None
        if lead is not None:
            if min_gap < 1.0:
                cur = 0.0
            else:
                follow = self.MIN_DIST + self.time_gap * abs(max(cur, lead_speed))
                factor = min(1.0, (min_gap - follow) / follow)
                dv_min = cur - min(set_speed, lead_speed)
                dv_set = cur - set_speed
                acc = 2.5 * factor - factor * dv_set - (1 - factor) * dv_min
                acc = min(max(acc, -e.max_decel), e.max_accel)
                cur = min(max(0.0, cur + acc * dt), set_speed)
        else:
            acc = (set_speed - cur) * self.ACCEL_FACTOR * e.max_accel
            acc = min(max(acc, -e.max_decel), self.ACCEL_FACTOR * e.max_accel)
            nxt = cur + acc * dt
            cur = set_speed if abs(nxt - set_speed) > abs(cur - set_speed) else nxt
        self.current = cur
        return cur

    def _signal_stop(self, engine: ScenarioEngine, e: Any, cur: float) -> tuple[float, _StopLine] | None:
        """(gap to stand at, the stop line) for the first red (or stoppable yellow) light ahead on the lane, else None."""
        lp, net = e.lane, engine.network
        if lp is None or net is None:
            return None
        try:
            found = net.signals_for(lp.road, lp.lane, lp.s, ahead=max(50.0, cur * cur / (2.0 * STOP_COMFORT) + 20.0))
        except (KeyError, ValueError, IndexError):
            return None
        from roadtest.sim.signals import signal_colour

        front = e.length / 2 + e.bbox_cx
        for sig, d in found:
            if not getattr(sig, "dynamic", False):
                continue
            state, gap = signal_colour(engine.signals.get(sig.id, "")), d - front
            if gap < 0.0:
                continue
            need = cur * cur / (2.0 * max(gap - 1.0, 0.1))
            if state.startswith("red") and need <= STOP_HARD or state == "yellow" and need <= STOP_COMFORT:
                return gap - 1.0 + self.MIN_DIST, _StopLine(f"signal:{sig.id}")  # it keeps MIN_DIST to a lead
        return None
