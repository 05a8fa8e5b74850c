"""Entity conditions of OpenSCENARIO 1.2/1.3: AngleCondition, RelativeAngleCondition, RelativeClearanceCondition.

Rules followed (the standard's, and esmini's where the standard is silent):
- An angle condition holds when the entity's angle, wrapped to [-pi, pi], is within `angleTolerance` of `angle`
  (a closed interval). The angle is absolute in `world` (AngleCondition's default), relative to the road's
  reference line in `road`, to the lane's driving direction in `lane`, to the trajectory being followed in
  `trajectory` (heading only; false while no trajectory is followed) and 0 in `entity`.
  RelativeAngleCondition compares the triggering entity's angle minus the reference entity's, each taken in
  the coordinate system (default `entity`, where that is simply the difference of the world angles).
- roadtest's kinematics keep entities level: pitch and roll are 0, of entities and of roads alike.
- RelativeClearanceCondition holds when no entity (only the listed ones, when EntityRefs are given) is within
  `distanceBackward` behind to `distanceForward` ahead of the triggering entity (along its road, between
  bounding boxes with `freeSpace`, else between reference points) in a lane whose offset from the triggering
  entity's, counted in its driving direction with left positive, lies in a RelativeLaneRange (unbounded when
  absent); lanes of the opposite direction count only with `oppositeLanes`; and at least one driving lane of
  that range exists where the triggering entity is (esmini's rule). Missing distances are 0 (esmini's default).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["ANGLE_CONDITIONS", "angle_condition", "lane_offset"]

ANGLE_CONDITIONS = ("AngleCondition", "RelativeAngleCondition", "RelativeClearanceCondition")
EPS = 1e-6
_BIG = 10**9


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def _f(el: Any, name: str, default: float) -> float:
    v = el.get(name)
    return default if v in (None, "") else float(v)


def _angle(c: Any, e: Any, kind: str, cs: str) -> float | None:
    """e's heading/pitch/roll in a coordinate system (None when it is undefined there)."""
    if kind != "heading":
        return 0.0  # level kinematics: pitch and roll are 0 in every system
    if cs == "entity":
        return 0.0
    if cs in ("road", "lane"):
        if e.lane is None or c.network is None:
            return None
        ref = c.network.road_to_world(e.lane.road, e.lane.s, 0.0).h
        if cs == "lane" and e.lane.lane and c.network.lane_direction(e.lane.road, e.lane.lane) < 0:
            ref += math.pi
        return _wrap(e.h - ref)
    if cs == "trajectory":
        path = c.motions[e.name].path if e.name in c.motions else None
        if path is None:
            return None
        return _wrap(e.h - path.pose(path.s)[3])
    return _wrap(e.h)


def _within(a: float | None, value: float, tol: float) -> bool:
    return a is not None and abs(_wrap(a - value)) <= tol + EPS


def lane_offset(net: RoadNetworkAPI, road: str, own: int, other: int) -> int:
    """Lanes from `own` to `other` on one road, counted in own's driving direction, left positive (no lane 0)."""
    def idx(lane: int) -> int:
        return lane if lane > 0 else lane + 1
    return (idx(other) - idx(own)) * net.lane_direction(road, own)


def _clearance(el: Any, eb: Any) -> Callable[[Any, Any], bool]:
    fwd, back = abs(_f(el, "distanceForward", 0.0)), abs(_f(el, "distanceBackward", 0.0))
    free = (el.get("freeSpace") or el.get("freespace") or "false").lower() in ("true", "1")
    opposite = (el.get("oppositeLanes") or "false").lower() in ("true", "1")
    ranges = [(int(_f(r, "from", -_BIG)), int(_f(r, "to", _BIG))) for r in el.findall("RelativeLaneRange")]
    ranges = ranges or [(-_BIG, _BIG)]
    refs = [r.get("entityRef") for r in el.findall("EntityRef")]
    for n in refs:
        if n not in eb.entity_names:
            raise eb.error(el, "RelativeClearanceCondition.EntityRef", f"unknown entity {n!r}")

    def in_range(d: int) -> bool:
        return any(lo <= d <= hi for lo, hi in ranges)

    def clear(c: Any, e: Any) -> bool:
        if e.lane is None or not e.lane.lane or c.network is None:
            return False
        net, road, own = c.network, e.lane.road, e.lane.lane
        sdir = net.lane_direction(road, own)
        for o in c.snap.values():
            if o.name == e.name or not o.active or (refs and o.name not in refs):
                continue
            if o.lane is None or not o.lane.lane:
                continue
            if o.lane.road == road:
                ds = (o.lane.s - e.lane.s) * sdir
                d_lane = lane_offset(net, road, own, o.lane.lane)
                opp = net.lane_direction(road, o.lane.lane) != sdir
            else:  # another road: in e's own frame, lanes counted by e's lane width
                dx, dy = o.x - e.x, o.y - e.y
                ds = dx * math.cos(e.h) + dy * math.sin(e.h)
                lat = -dx * math.sin(e.h) + dy * math.cos(e.h)
                d_lane = round(lat / max(net.lane_width(road, own, e.lane.s), 0.5))
                opp = abs(_wrap(o.h - e.h)) > math.pi / 2
            if free:
                if ds > 0:
                    ds = max(ds - (e.length / 2 + e.bbox_cx) - (o.length / 2 - o.bbox_cx), 0.0)
                elif ds < 0:
                    ds = min(ds + (e.length / 2 - e.bbox_cx) + (o.length / 2 + o.bbox_cx), 0.0)
            if -back - EPS <= ds <= fwd + EPS and in_range(d_lane) and (opposite or not opp):
                return False
        for lane in net.lane_ids(road, e.lane.s):
            if lane and net.lane_type(road, lane, e.lane.s) == "driving" and in_range(lane_offset(net, road, own, lane)):
                if opposite or net.lane_direction(road, lane) == sdir:
                    return True
        return False
    return clear


def angle_condition(kind: str, el: Any, eb: Any) -> Callable[[Any, Any], bool]:
    """fn(ctx, triggering entity) -> bool for one of ANGLE_CONDITIONS."""
    if kind == "RelativeClearanceCondition":
        return _clearance(el, eb)
    atype, value, tol = el.get("angleType", "heading"), float(el.get("angle")), abs(float(el.get("angleTolerance")))
    if kind == "AngleCondition":
        cs = el.get("coordinateSystem") or "world"
        return lambda c, e: _within(_angle(c, e, atype, cs), value, tol)
    ref, cs = el.get("entityRef"), el.get("coordinateSystem") or "entity"

    def relative(c: Any, e: Any) -> bool:
        o = c.snap[ref]
        if cs == "entity":
            return _within(_angle(c, e, atype, "world") - _angle(c, o, atype, "world"), value, tol)
        a, b = _angle(c, e, atype, cs), _angle(c, o, atype, cs)
        return a is not None and b is not None and _within(a - b, value, tol)
    return relative
