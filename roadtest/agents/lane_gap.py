"""The expert's look behind before it moves into another lane (merging, passing, making way): no vehicle in that
lane behind it closer than merge_give_way's time gap by the time it gets there (and, when it pulls out to pass
or make way, none within the REAR_RANGE behind that it has always kept clear).

This rear check is the constraint `expert-ignore:merge_give_way` drops; a vehicle alongside (moving into it would
be a collision, not a short gap) and the lane ahead are checked by the callers whatever is ignored.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from roadtest.agents.constraints import keeps
from roadtest.agents.rules import rule_param
from roadtest.kinds import RULE_NON_VEHICLES as NON_VEHICLES  # what the monitor's rear gap does not count

__all__ = ["RULE", "DEFAULT_GAP", "MARGIN", "REAR_RANGE", "LANE_END_MARGIN", "needed_gap", "rear_blocker", "alongside",
           "lane_taken", "gap_gate"]

RULE = "merge_give_way"
keeps(__name__, RULE)
DEFAULT_GAP = 1.0  # s: the catalogue's min_rear_gap, kept where the rule is not listed
MARGIN = 0.3  # s the expert keeps above the rule's gap
REAR_RANGE = 30.0  # m behind in the target lane that counts as taken when pulling out
HALF_CHANGE = 1.5  # s from the start of a lane change until the ego's centre is over the line
LANE_HALF = 2.0  # m: an actor within this of the target lane's centre (route frame) is in that lane
LANE_END_MARGIN = 20.0  # m short of a lane's end (an acceleration lane's taper) the expert waits to merge
WAIT_DECEL = 3.0  # m/s^2: while waiting it keeps a speed it can stop from at this rate within the lane in sight


def needed_gap(view: Mapping[str, Any]) -> float:
    """Time gap (s) the expert wants behind it in the lane it moves into."""
    return (rule_param(view, RULE, "min_rear_gap") or DEFAULT_GAP) + MARGIN


def _vehicles_in(view: Mapping[str, Any], d: float) -> list[Mapping[str, Any]]:
    return [a for a in view.get("actors") or [] if a.get("route_s") is not None and not a.get("siren")
            and a.get("kind") not in NON_VEHICLES and abs(a["route_d"] - d) < LANE_HALF]


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
        if a["route_s"] >= 0.0 or math.cos(float(a.get("route_heading", 0.0))) < 0.0:
            continue  # ahead, or oncoming: moving away once behind
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


def gap_gate(view: Mapping[str, Any], ego: Mapping[str, Any], speed: float, want: float, offset: float,
             ignore: frozenset[str]) -> tuple[float, float | None, float | None]:
    """(lateral offset to steer for, speed cap m/s or None, m to the end of the lane in sight or None).

    Holds the offset short of another lane while a vehicle is alongside there or (unless merge_give_way is ignored)
    the gap behind there is too short; meanwhile the speed stays one it can stop from within the lane in sight and
    below a faster vehicle's, to let it by."""
    lane = view.get("lane") or {}
    width = float(lane.get("width") or 3.5)
    if abs(want - offset) <= width / 2.0:
        return want, None, None  # already over the line (or staying within the lane)
    beside = alongside(view, ego, want)
    if beside is None and (RULE in ignore or rear_blocker(view, ego, want, speed) is None):
        return want, None, None
    rear = rear_blocker(view, ego, want, speed, within=REAR_RANGE) or {}
    v_other = max(float((beside or {}).get("speed", 0.0)), float(rear.get("speed", 0.0)))
    centre = lane.get("centerline") or []
    sight = float(centre[-1][0]) if len(centre) >= 2 else 50.0  # the lane ahead in view (about 50 m when it goes on)
    room = max(sight - float(ego.get("length", 4.5)) / 2.0 - LANE_END_MARGIN, 0.0)
    cap = math.sqrt(2.0 * WAIT_DECEL * room)
    if v_other > speed + 0.5:
        cap = min(cap, 0.7 * v_other)
    return offset, cap, (sight if sight < 45.0 else None)
