"""The expert's look behind before it moves into another lane (merging, passing, making way): no vehicle in that
lane behind it closer than merge_give_way's time gap by the time it gets there (and, when it pulls out to pass
or make way, none within the REAR_RANGE behind that it has always kept clear).

This rear check is the constraint `expert-ignore:merge_give_way` drops; a vehicle alongside (moving into it would
be a collision, not a short gap) and the lane ahead are checked by the callers whatever is ignored.
"""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.agents.rules import rule_param

__all__ = ["RULE", "DEFAULT_GAP", "MARGIN", "REAR_RANGE", "needed_gap", "rear_blocker", "alongside", "lane_taken"]

RULE = "merge_give_way"
DEFAULT_GAP = 1.0  # s: the catalogue's min_rear_gap, kept where the rule is not listed
MARGIN = 0.3  # s the expert keeps above the rule's gap
REAR_RANGE = 30.0  # m behind in the target lane that counts as taken when pulling out
HALF_CHANGE = 1.5  # s from the start of a lane change until the ego's centre is over the line
LANE_HALF = 2.0  # m: an actor within this of the target lane's centre (route frame) is in that lane
# road users the look behind does not count, as the monitor's rear gap does not: walkers, cyclists, objects
NOT_VEHICLES = ("pedestrian", "officer", "police_officer", "bicycle", "static", "cone", "barrier")


def needed_gap(view: Mapping[str, Any]) -> float:
    """Time gap (s) the expert wants behind it in the lane it moves into."""
    return (rule_param(view, RULE, "min_rear_gap") or DEFAULT_GAP) + MARGIN


def _vehicles_in(view: Mapping[str, Any], d: float) -> list[Mapping[str, Any]]:
    return [a for a in view.get("actors") or [] if a.get("route_s") is not None and not a.get("siren")
            and a.get("kind") not in NOT_VEHICLES and abs(a["route_d"] - d) < LANE_HALF]


def alongside(view: Mapping[str, Any], ego: Mapping[str, Any], d: float) -> Mapping[str, Any] | None:
    """A vehicle in the lane at lateral offset d (route frame) that overlaps the ego lengthwise, with 1 m to spare."""
    half = float(ego.get("length", 4.5)) / 2.0
    return next((a for a in _vehicles_in(view, d) if abs(a["route_s"]) < half + float(a.get("length", 4.5)) / 2.0 + 1.0),
                None)


def rear_blocker(view: Mapping[str, Any], ego: Mapping[str, Any], d: float, speed: float,
                 within: float = 0.0) -> Mapping[str, Any] | None:
    """The vehicle behind in the lane at lateral offset d that makes a lane change there too close now, or None.

    Too close: within `within` m behind, or a time gap (bumper gap over its speed, as the monitor measures it)
    below needed_gap once it has closed in for the HALF_CHANGE seconds the ego takes to get over the line.
    """
    half = float(ego.get("length", 4.5)) / 2.0
    need = needed_gap(view)
    worst, worst_gap = None, float("inf")
    for a in _vehicles_in(view, d):
        if a["route_s"] >= 0.0:
            continue
        v = max(float(a.get("speed", 0.0)), 0.1)
        gap = -a["route_s"] - half - float(a.get("length", 4.5)) / 2.0
        later = gap - max(v - speed, 0.0) * HALF_CHANGE
        if (-a["route_s"] <= within or later < need * v) and later / v < worst_gap:
            worst, worst_gap = a, later / v
    return worst


def lane_taken(view: Mapping[str, Any], ego: Mapping[str, Any], speed: float, d: float, ignore: frozenset[str]) -> bool:
    """Whether the lane at lateral offset d beside the ego is taken: an actor alongside or up to 20 m ahead, or
    (unless merge_give_way is ignored) one behind within REAR_RANGE or too short a time gap."""
    for a in view.get("actors") or []:
        if a.get("route_s") is None or a.get("siren"):
            continue
        if 0.0 <= a["route_s"] <= 20.0 and abs(a["route_d"] - d) < 2.0:
            return True
    if alongside(view, ego, d):
        return True
    return RULE not in ignore and rear_blocker(view, ego, d, speed, within=REAR_RANGE) is not None
