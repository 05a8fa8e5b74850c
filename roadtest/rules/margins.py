"""Quantitative robustness for monitors whose STL signal is a ±1 flag, in the rule's own units.

A flag monitor says +1 or -1 however close the run came; a search needs to know how close. A margin keeps
the verdict's sign (negative exactly when the rule is violated) and measures the distance to breaking it.
What each rule's margin measures is said once, in its catalogue entry (`monitor.margin`); the functions here
compute it, one per rule, from the trace, the signals, the rule's per-tick STL robustness and meta.json.

PET (the collision rules) keeps a slope on both sides of a collision: a walker who starts too late crosses the
ego's path that many seconds after it, one who starts too early that many seconds before. The verdict is still
the STL monitor's; the margin is reported beside it as `margin`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from roadtest.rules.signals import NONE, NON_VEHICLES, VRUS, Signals, _Scene, _road_ok, _travel_dir
from roadtest.sim.api import ActorState, Trace

__all__ = ["MARGINS", "Run", "margin", "box_clearance", "post_encroachment_time"]

def _corners(a: ActorState) -> list[tuple[float, float]]:
    c, s = math.cos(a.h), math.sin(a.h)
    hl, hw = a.length / 2, a.width / 2
    return [(a.x + c * dx - s * dy, a.y + s * dx + c * dy) for dx, dy in ((hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw))]


def box_clearance(a: ActorState, b: ActorState) -> float:
    """Distance between two actors' oriented bounding boxes (0 when they touch or overlap), m."""
    from shapely.geometry import Polygon

    return float(Polygon(_corners(a)).distance(Polygon(_corners(b))))


def _tracks(trace: Trace, wanted: Callable[[ActorState], bool]):
    """(ego poses by tick, {actor id: poses by tick}) with the tick's time; only ticks that have an ego."""
    ego_track: list[tuple[float, ActorState]] = []
    others: dict[str, list[tuple[float, ActorState]]] = {}
    for st in trace.states:
        ego = next((a for a in st.actors if a.role == "ego"), None)
        if ego is None:
            continue
        ego_track.append((st.time, ego))
        for o in st.actors:
            if o is not ego and wanted(o):
                others.setdefault(o.id, []).append((st.time, o))
    return ego_track, others


def _stretches(track: list[tuple[float, ActorState]]):
    """(first time, last time, pose) of each run of ticks at one pose: a standing walker is one stretch."""
    out: list[list] = []
    for t, o in track:
        pose = (round(o.x, 2), round(o.y, 2), round(o.h, 3))
        if out and out[-1][3] == pose:
            out[-1][1] = t
        else:
            out.append([t, t, o, pose])
    return [(a, b, o) for a, b, o, _ in out]


def post_encroachment_time(trace: Trace, wanted: Callable[[ActorState], bool]) -> float | None:
    """Least |t_ego - t_other| over pairs of ticks where the ego's box and another's cover common ground, s.

    None when no wanted actor is in the run; the run's duration when their paths never meet."""
    import numpy as np
    from scipy.spatial import cKDTree
    from shapely.geometry import Polygon

    ego_track, others = _tracks(trace, wanted)
    if not ego_track or not others:
        return None
    times = np.array([t for t, _ in ego_track])
    centres = np.array([(e.x, e.y) for _, e in ego_track])
    tree = cKDTree(centres)
    ego_reach = max(math.hypot(e.length, e.width) / 2 for _, e in ego_track)
    polys: dict[int, Polygon] = {}
    best = float(times[-1] - times[0])
    for track in others.values():
        for t0, t1, o in _stretches(track):
            reach = ego_reach + math.hypot(o.length, o.width) / 2
            gap = lambda i: max(0.0, t0 - times[i], times[i] - t1)  # noqa: E731 - time from the stretch
            near = [i for i in tree.query_ball_point((o.x, o.y), reach) if gap(i) < best]
            if not near:
                continue
            shape = Polygon(_corners(o))
            for i in sorted(near, key=gap):
                if gap(i) >= best:
                    break
                if i not in polys:
                    polys[i] = Polygon(_corners(ego_track[i][1]))
                if polys[i].intersects(shape):
                    best = float(gap(i))
                    break
    return best


EPS = 1e-6  # as roadtest.rules.evaluate: robustness above -EPS is kept


@dataclass(frozen=True)
class Run:
    """What a margin reads of one run: the ego by tick (aligned with the signals), the rule's per-tick STL
    robustness, whether the verdict is violated, and meta.json."""

    trace: Trace
    signals: Signals
    series: Sequence[float]
    violated: bool
    meta: Mapping[str, Any]
    params: Mapping[str, float]  # the rule's SI parameters in force

    @property
    def egos(self) -> list[ActorState]:
        return [st.ego for st in self.trace.states if st.ego is not None]

    def odometer(self) -> list[float]:
        """Path length of the ego's centre up to each tick, m."""
        out, total, prev = [], 0.0, None
        for e in self.egos:
            if prev is not None:
                total += math.hypot(e.x - prev.x, e.y - prev.y)
            out.append(total)
            prev = e
        return out

    def driven(self, ticks: Sequence[int]) -> float:
        """Path length driven during these ticks (each tick's step into it), at least one tick's travel at its
        speed: a tick that breaks a rule always counts for something."""
        odo, egos, tick = self.odometer(), self.egos, self.signals.tick
        steps = [odo[i] - odo[i - 1] if i else 0.0 for i in ticks]
        return max(sum(steps), max((abs(egos[i].speed) * tick for i in ticks), default=0.0), 1e-3)

    def broken_ticks(self) -> list[int]:
        return [i for i, r in enumerate(self.series) if r < -EPS]


def _along(run: Run) -> list[tuple[str, float, int]]:
    """(road, front s, direction of travel along s: +1 or -1) per tick, as the signals measure the front."""
    side = str(run.meta.get("driving_side") or "right")
    out, d, prev = [], 0, None
    for e in run.egos:
        ln = e.lane
        if ln is None:
            out.append(("", 0.0, d or 1))
            prev = None
            continue
        if prev is not None and str(prev.road) == str(ln.road) and abs(ln.s - prev.s) > 1e-4:
            d = 1 if ln.s > prev.s else -1
        dd = d or _travel_dir(ln.lane, side)
        out.append((str(ln.road), ln.s + dd * e.length / 2, dd))
        prev = ln
    return out


def _collision(flag: str, wanted: Callable[[ActorState], bool]):
    def fn(run: Run) -> float | None:
        if run.violated:
            hit = sum(1 for f in run.signals[flag] if f > 0)
            return -max(hit, 1) * run.signals.tick
        pet = post_encroachment_time(run.trace, wanted)
        return None if pet is None else max(0.0, pet)

    return fn


def _is_vru(a: ActorState) -> bool:
    return a.role != "ego" and a.kind.lower() in VRUS


def _is_vehicle(a: ActorState) -> bool:
    return a.role != "ego" and a.kind.lower() not in NON_VEHICLES


def _speed_limit(run: Run) -> float | None:
    """m. Kept: over each drop of the limit in force, how far before it the ego was down to the new limit (plus
    tolerance) for good. Broken: minus the distance driven above the limit."""
    if run.violated:
        return -run.driven(run.broken_ticks())
    lim, v, tol = run.signals["speed_limit"], run.signals["ego_speed"], float(run.params.get("tolerance", 0.0))
    odo = run.odometer()
    best = None
    for k in range(1, len(lim)):
        if lim[k] < lim[k - 1] - EPS:
            j = k
            while j > 0 and v[j - 1] <= lim[k] + tol:
                j -= 1
            best = odo[k] - odo[j] if best is None else min(best, odo[k] - odo[j])
    return best


def _red_light(run: Run) -> float | None:
    """m. Kept: the least distance from the ego's front to the stop line of a red light ahead (NONE when it never
    faced one). Broken: minus the distance driven past the line while that light stayed red."""
    sig = run.signals
    if not run.violated:
        gaps = [dist for dist, red, crossed in zip(sig["light_dist"], sig["light_red"], sig["light_crossed"])
                if red > 0 and crossed < 0 and dist < NONE]
        return max(0.0, min(gaps)) if gaps else NONE
    sc = _Scene(run.meta)
    states = [st for st in run.trace.states if st.ego is not None]
    where = _along(run)
    ticks: set[int] = set()
    for c, (red, crossed) in enumerate(zip(sig["light_red"], sig["light_crossed"])):
        if red > 0 and crossed > 0:
            road, front, _ = where[c]
            lid = min((light for light in sc.lights if _road_ok({"road": light[1]}, road)),
                      key=lambda light: abs(light[2] - front))[0]
            i = c
            while i < len(states) and sc.light_state(states[i].signals, lid).startswith("red") and i not in ticks:
                ticks.add(i)
                i += 1
    return -run.driven(sorted(ticks))


def _no_entry(run: Run) -> float | None:
    """m. Kept: the least distance from the ego's front to a no-entry sign ahead on its road (NONE when no sign
    was ever on its road). Broken: minus the distance driven on that road past the sign."""
    signs = _Scene(run.meta).no_entry
    where = _along(run)
    if not run.violated:
        gaps = [d * (s - front) for road, front, d in where for r, s in signs
                if _road_ok({"road": r}, road) and road and d * (s - front) > 0]
        return min(gaps) if gaps else NONE
    entered = [i for i, f in enumerate(run.signals["entered_no_entry"]) if f > 0]
    ticks: set[int] = set()
    for k in entered:
        i = k
        while i < len(where) and where[i][0] == where[k][0]:
            ticks.add(i)
            i += 1
    return -run.driven(sorted(ticks))


def _driving_side(run: Run) -> float | None:
    """m. Kept: the least clearance between the ego's box and the road's reference line (the line between the two
    directions of a two-way road) while it moved in a lane of its own direction. Broken: minus the distance
    driven on the wrong side."""
    if run.violated:
        return -run.driven([i for i, f in enumerate(run.signals["opposite_side"]) if f > 0])
    side = str(run.meta.get("driving_side") or "right")
    gaps = [abs(e.lane.t) - e.width / 2 for e, (_, _, d) in zip(run.egos, _along(run))
            if e.lane is not None and abs(e.speed) > 0.5 and _travel_dir(e.lane.lane, side) == d]
    return max(0.0, min(gaps)) if gaps else NONE


def _no_u_turn(run: Run) -> float | None:
    """m/s. The least speed along its starting road in its first direction of travel while moving there (kept:
    at least 0); broken: minus the fastest it drove back."""
    egos, tick = run.egos, run.signals.tick
    start = next((str(e.lane.road) for e in egos if e.lane is not None), None)
    first, vs = 0, []
    for a, b in zip(egos, egos[1:]):
        if a.lane is None or b.lane is None or str(a.lane.road) != start or str(b.lane.road) != start:
            continue
        ds = (b.lane.s - a.lane.s) / tick
        if not first and abs(ds) * tick > 1e-4:
            first = 1 if ds > 0 else -1
        if first and abs(b.speed) > 0.5:
            vs.append(first * ds)
    if run.violated:
        return -max(max((-v for v in vs), default=0.0), EPS * 10)
    return max(0.0, min(vs)) if vs else NONE


def _no_lane_change_tunnel(run: Run) -> float | None:
    """m. Over each lane change, the distance along the road from the ego's centre to the nearest tunnel (kept:
    outside it, NONE without a change), broken: minus how deep inside the tunnel the change was."""
    zones = [z for z in _Scene(run.meta).zones if z.get("kind") == "tunnel"]
    out = []
    for i, (e, f) in enumerate(zip(run.egos, run.signals["lane_change"])):
        if f <= 0 or e.lane is None:
            continue
        for z in zones:
            if not _road_ok(z, str(e.lane.road)):
                continue
            a, b = float(z.get("s_start", 0)), float(z.get("s_end", 0))
            s = e.lane.s
            out.append(-max(min(s - a, b - s), abs(e.speed) * run.signals.tick, 1e-3) if a <= s <= b
                       else min(abs(s - a), abs(s - b)))
    return min(out) if out else NONE


MARGINS: Mapping[str, Callable[[Run], float | None]] = {
    "no_collision_vru": _collision("collision_vru", _is_vru),
    "no_collision_vehicle": _collision("collision_vehicle", _is_vehicle),
    "speed_limit": _speed_limit,
    "red_light": _red_light,
    "no_entry": _no_entry,
    "driving_side": _driving_side,
    "no_u_turn": _no_u_turn,
    "no_lane_change_tunnel": _no_lane_change_tunnel,
}


def margin(rule_id: str, trace: Trace, signals: Signals, series: Sequence[float], violated: bool,
           params: Mapping[str, float], meta: Mapping[str, Any]) -> float | None:
    """The rule's margin on this run (negative exactly when `violated`), or None when it has none."""
    fn = MARGINS.get(rule_id)
    if fn is None or not signals.time:
        return None
    value = fn(Run(trace, signals, series, violated, meta, params))
    if value is not None and (value < 0) != violated:
        raise AssertionError(f"{rule_id}: margin {value} disagrees with the verdict (violated={violated})")
    return value
