"""Quantitative robustness for monitors whose STL signal is a ±1 flag, in the rule's own units.

A flag monitor says +1 or -1 however close the run came; a search needs to know how close. A margin keeps
the verdict's sign (negative exactly when the rule is violated) and measures the distance to breaking it:

  no_collision_vru      kept: least clearance between the ego's box and a pedestrian's or cyclist's, m;
                        broken: minus the ego's speed at the first such collision, m/s
  no_collision_vehicle  kept: least clearance between the ego's box and another vehicle's, m;
                        broken: minus the ego's speed at the first such collision, m/s

The verdict is still the STL monitor's; the margin is reported beside it as `margin`.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

from roadtest.rules.signals import NON_VEHICLES, VRUS, Signals
from roadtest.sim.api import ActorState, Trace

__all__ = ["MARGINS", "margin", "box_clearance"]

_FLOOR = 0.01  # m/s: a violation's margin is at most -this, so its sign survives rounding


def _corners(a: ActorState) -> list[tuple[float, float]]:
    c, s = math.cos(a.h), math.sin(a.h)
    hl, hw = a.length / 2, a.width / 2
    return [(a.x + c * dx - s * dy, a.y + s * dx + c * dy) for dx, dy in ((hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw))]


def box_clearance(a: ActorState, b: ActorState) -> float:
    """Distance between two actors' oriented bounding boxes (0 when they touch or overlap), m."""
    from shapely.geometry import Polygon

    return float(Polygon(_corners(a)).distance(Polygon(_corners(b))))


def _least_clearance(trace: Trace, wanted: Callable[[ActorState], bool]) -> float | None:
    best: float | None = None
    for st in trace.states:
        ego = next((a for a in st.actors if a.role == "ego"), None)
        if ego is None:
            continue
        reach = math.hypot(ego.length, ego.width) / 2
        for o in st.actors:
            if o is ego or not wanted(o):
                continue
            rough = math.hypot(o.x - ego.x, o.y - ego.y) - reach - math.hypot(o.length, o.width) / 2
            if best is not None and rough >= best:
                continue
            d = box_clearance(ego, o)
            best = d if best is None else min(best, d)
    return best


def _collision_margin(flag: str, wanted: Callable[[ActorState], bool]):
    def fn(trace: Trace, signals: Signals, violated: bool) -> float | None:
        if violated:
            hit = [abs(v) for v, f in zip(signals["ego_speed"], signals[flag]) if f > 0]
            return -max(hit[0] if hit else _FLOOR, _FLOOR)
        least = _least_clearance(trace, wanted)
        return None if least is None else max(0.0, least)

    return fn


def _is_vru(a: ActorState) -> bool:
    return a.role != "ego" and a.kind.lower() in VRUS


def _is_vehicle(a: ActorState) -> bool:
    return a.role != "ego" and a.kind.lower() not in NON_VEHICLES


MARGINS: Mapping[str, tuple[str, Callable[[Trace, Signals, bool], float | None]]] = {
    "no_collision_vru": ("kept: m of clearance; broken: -m/s at impact", _collision_margin("collision_vru", _is_vru)),
    "no_collision_vehicle": ("kept: m of clearance; broken: -m/s at impact",
                             _collision_margin("collision_vehicle", _is_vehicle)),
}


def margin(rule_id: str, trace: Trace, signals: Signals, violated: bool) -> float | None:
    """The rule's margin on this run (negative exactly when `violated`), or None when it has none."""
    entry = MARGINS.get(rule_id)
    if entry is None or not signals.time:
        return None
    return entry[1](trace, signals, violated)
