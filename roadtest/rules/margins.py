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


def _corner_array(actors: list[ActorState]):
    """_corners of many actors as one (n, 4, 2) array, the same floats: the sines and cosines are math's, and
    numpy's sums and products are IEEE's in the order _corners takes them."""
    import numpy as np

    h = [a.h for a in actors]
    c = np.array([math.cos(v) for v in h])[:, None]
    s = np.array([math.sin(v) for v in h])[:, None]
    x = np.array([a.x for a in actors])[:, None]
    y = np.array([a.y for a in actors])[:, None]
    hl = np.array([a.length / 2 for a in actors])[:, None]
    hw = np.array([a.width / 2 for a in actors])[:, None]
    dx, dy = hl * np.array([1.0, -1.0, -1.0, 1.0]), hw * np.array([1.0, 1.0, -1.0, -1.0])
    return np.stack([x + c * dx - s * dy, y + s * dx + c * dy], axis=-1)


def box_clearance(a: ActorState, b: ActorState) -> float:
    """Distance between two actors' oriented bounding boxes (0 when they touch or overlap), m."""
    from shapely.geometry import Polygon

    return float(Polygon(_corners(a)).distance(Polygon(_corners(b))))


_LAST_SPLIT: list = []  # [weakref to the trace, its tick count, its split]: both collision margins read one run


def _split(trace: Trace):
    """(ego poses by tick, {actor id: (poses by tick, the (role, kind) pairs it had)}), ticks without an ego
    left out; made once per trace for the margins that read it."""
    import weakref

    if _LAST_SPLIT and _LAST_SPLIT[0]() is trace and _LAST_SPLIT[1] == len(trace.states):
        return _LAST_SPLIT[2]
    ego_track: list[tuple[float, ActorState]] = []
    others: dict[str, tuple[list[tuple[float, ActorState]], set[tuple[str, str]]]] = {}
    for st in trace.states:
        ego = next((a for a in st.actors if a.role == "ego"), None)
        if ego is None:
            continue
        t = st.time
        ego_track.append((t, ego))
        for o in st.actors:
            if o is not ego:
                got = others.get(o.id)
                if got is None:
                    got = others[o.id] = ([], set())
                got[0].append((t, o))
                got[1].add((o.role, o.kind))
    try:
        _LAST_SPLIT[:] = [weakref.ref(trace), len(trace.states), (ego_track, others)]
    except TypeError:  # a stand-in trace that takes no weak reference: not kept
        _LAST_SPLIT.clear()
    return ego_track, others


def _tracks(trace: Trace, wanted: Callable[[ActorState], bool]):
    """(ego poses by tick, {actor id: poses by tick}) with the tick's time; only ticks that have an ego.
    `wanted` reads an actor's role and kind alone."""
    ego_track, split = _split(trace)
    others: dict[str, list[tuple[float, ActorState]]] = {}
    verdict: dict[tuple[str, str], bool] = {}
    for oid, (track, keys) in split.items():
        ok = [verdict.setdefault(k, bool(wanted(_probe(*k)))) for k in keys]
        if all(ok):
            others[oid] = track
        elif any(ok):
            kept = [(t, o) for t, o in track if verdict[(o.role, o.kind)]]
            if kept:
                others[oid] = kept
    return ego_track, others


def _probe(role: str, kind: str) -> ActorState:
    """An actor with this role and kind, for a `wanted` test that reads nothing else."""
    return ActorState("", role, kind, 0.0, 0.0, 0.0, 0.0, 0.0)


def _stretches(track: list[tuple[float, ActorState]]):
    """(first times, last times, index of the first tick) of each run of ticks at one pose, poses rounded to cm
    and mrad: a standing walker is one stretch. A tick that moved further than rounding can hide starts one."""
    import numpy as np

    n = len(track)
    times = np.array([t for t, _ in track], dtype=float)
    new = np.ones(n, dtype=bool)
    if n > 1:
        poses = [o for _, o in track]
        step = np.abs(np.diff(np.array([[o.x for o in poses], [o.y for o in poses], [o.h for o in poses]]), axis=1)).T
        with np.errstate(invalid="ignore"):
            moved = (step[:, 0] > 0.011) | (step[:, 1] > 0.011) | (step[:, 2] > 0.0011)
        for k in (np.flatnonzero(~moved) + 1).tolist():
            a, b = track[k - 1][1], track[k][1]
            new[k] = (round(a.x, 2), round(a.y, 2), round(a.h, 3)) != (round(b.x, 2), round(b.y, 2), round(b.h, 3))
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, n - 1)
    return times[first], times[last], first


def post_encroachment_time(trace: Trace, wanted: Callable[[ActorState], bool]) -> float | None:
    """Least |t_ego - t_other| over pairs of ticks where the ego's box and another's cover common ground, s.

    None when no wanted actor is in the run; the run's duration when their paths never meet. Candidate pairs
    are those whose centres lie within the two boxes' half-diagonals; GEOS decides whether the boxes meet."""
    import numpy as np
    import shapely
    from scipy.spatial import cKDTree

    ego_track, others = _tracks(trace, wanted)
    if not ego_track or not others:
        return None
    times = np.array([t for t, _ in ego_track])
    centres = np.column_stack([[e.x for _, e in ego_track], [e.y for _, e in ego_track]])
    ego_reach = max(math.hypot(e.length, e.width) / 2 for _, e in ego_track)
    best = float(times[-1] - times[0])
    st: list[ActorState] = []  # each stretch's first pose
    t0s, t1s = [], []
    for track in others.values():
        a, b, first = _stretches(track)
        t0s.append(a)
        t1s.append(b)
        st.extend(track[k][1] for k in first.tolist())
    t0, t1 = np.concatenate(t0s), np.concatenate(t1s)
    pts = np.column_stack([[o.x for o in st], [o.y for o in st]]).reshape(-1, 2)
    reach = np.array([ego_reach + math.hypot(o.length, o.width) / 2 for o in st])
    finite = np.isfinite(pts).all(axis=1) & np.isfinite(reach)
    if not finite.any() or not np.isfinite(centres).all():
        return _pet_by_stretch(ego_track, st, t0, t1, times, best)
    idx = np.flatnonzero(finite)
    pairs = cKDTree(centres).sparse_distance_matrix(cKDTree(pts[idx]), float(reach[idx].max()) * (1 + 1e-9),
                                                    output_type="ndarray")
    i, j = pairs["i"].astype(np.intp), idx[pairs["j"].astype(np.intp)]
    keep = pairs["v"] <= reach[j] * (1 + 1e-9)
    i, j = i[keep], j[keep]
    gap = np.maximum(0.0, np.maximum(t0[j] - times[i], times[i] - t1[j]))
    keep = gap < best
    i, j, gap = i[keep], j[keep], gap[keep]
    if not len(i):
        return best
    ego = [e for _, e in ego_track]
    E = np.array([[a.x for a in ego], [a.y for a in ego], [a.h for a in ego], [a.length for a in ego], [a.width for a in ego]])
    O = np.array([[a.x for a in st], [a.y for a in st], [a.h for a in st], [a.length for a in st], [a.width for a in st]])
    ex, ey, eh, el, ew = E[:, i]
    ox, oy, oh, ol, ow = O[:, j]
    far = _separated(ex, ey, eh, el / 2, ew / 2, ox, oy, oh, ol / 2, ow / 2)
    i, j, gap = i[~far], j[~far], gap[~far]
    if not len(i):
        return best
    ui, ei = np.unique(i, return_inverse=True)
    uj, ej = np.unique(j, return_inverse=True)
    ego_shapes = shapely.polygons(_corner_array([ego_track[k][1] for k in ui.tolist()]))
    shapes = shapely.polygons(_corner_array([st[k] for k in uj.tolist()]))
    hit = shapely.intersects(ego_shapes[ei.ravel()], shapes[ej.ravel()])
    return float(gap[hit].min()) if hit.any() else best


def _separated(ax, ay, ah, al, aw, bx, by, bh, bl, bw, margin: float = 1e-6):
    """Pairs of boxes (centre, heading, half length, half width) that a separating axis keeps more than `margin`
    apart: certainly disjoint, whatever the last bits of the corners; the rest GEOS decides."""
    import numpy as np

    ca, sa, cb, sb = np.cos(ah), np.sin(ah), np.cos(bh), np.sin(bh)
    dx, dy = bx - ax, by - ay
    out = np.zeros(len(ax), dtype=bool)
    for ux, uy in ((ca, sa), (-sa, ca), (cb, sb), (-sb, cb)):
        ra = al * np.abs(ca * ux + sa * uy) + aw * np.abs(-sa * ux + ca * uy)
        rb = bl * np.abs(cb * ux + sb * uy) + bw * np.abs(-sb * ux + cb * uy)
        with np.errstate(invalid="ignore"):
            out |= np.abs(dx * ux + dy * uy) > ra + rb + margin
    return out


def _pet_by_stretch(ego_track, st, t0s, t1s, times, best: float) -> float:
    """post_encroachment_time's pairs tested one by one: for poses a k-d tree cannot hold (NaN, infinite)."""
    from shapely.geometry import Polygon

    ego = [Polygon(_corners(e)) for _, e in ego_track]
    for t0, t1, o in zip(t0s.tolist(), t1s.tolist(), st):
        shape = Polygon(_corners(o))
        for k in range(len(times)):
            gap = max(0.0, t0 - times[k], times[k] - t1)
            if gap < best and ego[k].intersects(shape):
                best = float(gap)
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
