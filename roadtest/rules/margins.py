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
