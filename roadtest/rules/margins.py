"""Quantitative robustness for monitors whose STL signal is a ±1 flag, in the rule's own units.

A flag monitor says +1 or -1 however close the run came; a search needs to know how close. A margin keeps
the verdict's sign (negative exactly when the rule is violated) and measures the distance to breaking it:

  no_collision_vru      seconds. Kept: the post-encroachment time (PET, Allen et al. 1978), the least time
                        between the ego's box and a pedestrian's or cyclist's box covering the same ground,
                        whoever came first; the run's duration when their paths never met. Broken: minus the
                        time the two boxes overlapped while the ego was moving (at least one tick).
  no_collision_vehicle  the same against other vehicles (a lead in the ego's lane gives its time headway).

PET keeps a slope on both sides of a collision: a walker who starts too late crosses the ego's path that many
seconds after it, one who starts too early that many seconds before. The verdict is still the STL monitor's;
the margin is reported beside it as `margin`.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

from roadtest.rules.signals import NON_VEHICLES, VRUS, Signals
from roadtest.sim.api import ActorState, Trace

__all__ = ["MARGINS", "margin", "box_clearance", "post_encroachment_time"]

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


def _collision_margin(flag: str, wanted: Callable[[ActorState], bool]):
    def fn(trace: Trace, signals: Signals, violated: bool) -> float | None:
        if violated:
            hit = sum(1 for f in signals[flag] if f > 0)
            return -max(hit, 1) * signals.tick
        pet = post_encroachment_time(trace, wanted)
        return None if pet is None else max(0.0, pet)

    return fn


def _is_vru(a: ActorState) -> bool:
    return a.role != "ego" and a.kind.lower() in VRUS


def _is_vehicle(a: ActorState) -> bool:
    return a.role != "ego" and a.kind.lower() not in NON_VEHICLES


MARGINS: Mapping[str, tuple[str, Callable[[Trace, Signals, bool], float | None]]] = {
    "no_collision_vru": ("s: post-encroachment time when kept, minus the overlap time when broken",
                         _collision_margin("collision_vru", _is_vru)),
    "no_collision_vehicle": ("s: post-encroachment time when kept, minus the overlap time when broken",
                             _collision_margin("collision_vehicle", _is_vehicle)),
}


def margin(rule_id: str, trace: Trace, signals: Signals, violated: bool) -> float | None:
    """The rule's margin on this run (negative exactly when `violated`), or None when it has none."""
    entry = MARGINS.get(rule_id)
    if entry is None or not signals.time:
        return None
    return entry[1](trace, signals, violated)
