"""OpenSCENARIO Position elements resolved against the road network and the current entity states."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roadtest.errors import UnsupportedError
from roadtest.sim.api import LanePos
from roadtest.sim.route_path import wrap_angle as wrap
from roadtest.sim.xosc.parser import attr_float as _num

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["Resolved", "PositionSpec", "parse_position", "resolve", "wrap"]


@dataclass
class Resolved:
    """A world pose, and the lane position when it is on a lane."""

    x: float
    y: float
    z: float
    h: float
    lane: LanePos | None = None
    lane_offset: float = 0.0  # m from the lane centre, left positive in the road frame
    route: list | None = None  # (road, lane) of the route a RoutePosition lies on, in order


@dataclass
class PositionSpec:
    """A parsed <Position>: its kind and attributes, resolved each time it is needed."""

    kind: str
    a: dict
    orient: dict | None
    xml: Any


_KINDS = ("WorldPosition", "LanePosition", "RoadPosition", "RelativeLanePosition", "RelativeRoadPosition",
          "RelativeWorldPosition", "RelativeObjectPosition", "RoutePosition")


def parse_position(el: Any, file: str) -> PositionSpec:
    """Check a <Position> element at load; unsupported kinds are refused by name."""
    if el is None or not len(el):
        raise UnsupportedError("Position", file, el.sourceline if el is not None else 0, "empty position")
    p = el[0]
    if p.tag not in _KINDS:
        from roadtest.sim.xosc.parser import where
        raise UnsupportedError(p.tag, *where(p, file))
    o = p.find("Orientation")
    return PositionSpec(p.tag, dict(p.attrib), dict(o.attrib) if o is not None else None, p)


def _orient(spec: PositionSpec, base_h: float) -> float:
    o = spec.orient
    if o is None:
        return base_h
    h = float(o.get("h", 0) or 0)
    return wrap(h + base_h) if o.get("type", "absolute") == "relative" else h


def _lane_pose(net: RoadNetworkAPI, road: str, lane: int, s: float, offset_road: float) -> Resolved:
    """Pose on a lane; `offset_road` is left-positive in the road frame."""
    s = min(max(s, 0.0), net.road_length(road))
    p = net.lane_to_world(road, lane, s, offset_road)
    ref = net.road_to_world(road, s, 0.0)
    t = (p.x - ref.x) * -math.sin(ref.h) + (p.y - ref.y) * math.cos(ref.h)
    return Resolved(p.x, p.y, p.z, p.h, LanePos(road, lane, s, t), offset_road)


def locate(net: RoadNetworkAPI | None, x: float, y: float, z: float, h: float) -> Resolved:
    """A world pose with its lane position (None off the roads)."""
    r = Resolved(x, y, z, h)
    if net is not None:
        m = net.locate(x, y, h)
        if m is not None:
            r.lane = LanePos(m.road, m.lane, m.s, m.t)
            r.lane_offset = m.offset
            if not z:
                r.z = net.road_to_world(m.road, m.s, m.t).z
    return r


def resolve(spec: PositionSpec, net: RoadNetworkAPI | None, entities: dict[str, Any]) -> Resolved:
    """World pose (and lane position) of a position now."""
    a, k = spec.a, spec.kind
    if k == "WorldPosition":
        r = locate(net, _num(a, "x"), _num(a, "y"), _num(a, "z"), _num(a, "h"))
        r.h = _num(a, "h")
        return r
    if k == "RoutePosition":
        return _route_position(spec, net, entities)
    if net is None and k in ("LanePosition", "RoadPosition", "RelativeLanePosition", "RelativeRoadPosition"):
        raise UnsupportedError(k, "", spec.xml.sourceline or 0, "needs a road network (no LogicFile loaded)")
    if k == "LanePosition":
        road, lane = a["roadId"], int(float(a["laneId"]))
        r = _lane_pose(net, road, lane, _num(a, "s"), _num(a, "offset"))
        # the base heading is the lane's driving direction: reversed for left lanes on a
        # right-hand-traffic road (esmini's reading) and for right lanes on a rule="LHT" road
        base = net.road_to_world(road, r.lane.s, 0.0).h + (math.pi if net.lane_direction(road, lane) < 0 else 0.0)
        r.h = _orient(spec, wrap(base))
        return r
    if k == "RoadPosition":
        road, s, t = a["roadId"], _num(a, "s"), _num(a, "t")
        p = net.road_to_world(road, s, t)
        r = locate(net, p.x, p.y, p.z, p.h)
        r.h = _orient(spec, p.h)
        if r.lane is not None:
            r.lane = LanePos(road, r.lane.lane, s, t) if r.lane.road == road else r.lane
        return r
    ref = entities[a["entityRef"]]
    if k == "RelativeWorldPosition":
        r = locate(net, ref.x + _num(a, "dx"), ref.y + _num(a, "dy"), ref.z + _num(a, "dz"), ref.h)
        r.h = _orient(spec, ref.h)
        return r
    if k == "RelativeObjectPosition":
        c, s = math.cos(ref.h), math.sin(ref.h)
        dx, dy = _num(a, "dx"), _num(a, "dy")
        r = locate(net, ref.x + dx * c - dy * s, ref.y + dx * s + dy * c, ref.z + _num(a, "dz"), ref.h)
        r.h = _orient(spec, ref.h)
        return r
    if ref.lane is None:
        raise UnsupportedError(k, "", spec.xml.sourceline or 0, f"entity {ref.name!r} is not on a road")
    lp = ref.lane
    if k == "RelativeRoadPosition":
        s, t = lp.s + _num(a, "ds"), lp.t + _num(a, "dt")
        p = net.road_to_world(lp.road, s, t)
        r = locate(net, p.x, p.y, p.z, p.h)
        if r.lane is not None and r.lane.road == lp.road:
            r.lane = LanePos(lp.road, r.lane.lane, s, t)
        r.h = _orient(spec, p.h if net.lane_direction(lp.road, lp.lane) > 0 else wrap(p.h + math.pi))
        return r
    # RelativeLanePosition: dLane counts lanes to the left in the road frame, skipping lane 0
    dl = int(float(a.get("dLane", 0) or 0))
    lane = lp.lane + dl
    if lp.lane * lane <= 0 and dl:
        lane += 1 if dl > 0 else -1
    direction = net.lane_direction(lp.road, lp.lane)
    ds = _num(a, "ds", _num(a, "dsLane"))
    s = lp.s + ds * direction if "dsLane" in a else lp.s + ds
    r = _lane_pose(net, lp.road, lane, s, _num(a, "offset"))
    # heading: the road's direction the reference entity travels in
    ref_road_h = net.road_to_world(lp.road, lp.s, 0.0).h
    along = math.cos(wrap(ref.h - ref_road_h)) >= 0
    r.h = _orient(spec, wrap(net.road_to_world(lp.road, r.lane.s, 0.0).h + (0.0 if along else math.pi)))
    return r


def route_segments(route: Any, net: RoadNetworkAPI, entities: dict[str, Any]) -> list:
    """The lane segments a <Route> runs along, waypoint to waypoint, by the road graph's shortest paths."""
    wps = []
    for w in route.findall("Waypoint"):
        r = resolve(parse_position(w.find("Position"), ""), net, entities)
        if r.lane is not None:
            wps.append((r.lane.road, r.lane.lane, r.lane.s))
    segs: list = []
    for a, b in zip(wps, wps[1:]):
        part = net.route(a, b)
        if segs and part and (part[0].road, part[0].lane) == (segs[-1].road, segs[-1].lane):
            last = segs.pop()
            part[0] = type(last)(last.road, last.lane, last.s_start, part[0].s_end)
        segs += part
    return segs


def _route_position(spec: PositionSpec, net: RoadNetworkAPI | None, entities: dict[str, Any]) -> Resolved:
    x = spec.xml
    if net is None:
        raise UnsupportedError("RoutePosition", "", x.sourceline or 0, "needs a road network (no LogicFile loaded)")
    route = x.find("RouteRef/Route")
    irp = x.find("InRoutePosition")
    if route is None or irp is None or not len(irp):
        raise UnsupportedError("RoutePosition", "", x.sourceline or 0, "expected RouteRef/Route and InRoutePosition")
    segs = spec.a.get("_segs")
    if segs is None:
        segs = spec.a["_segs"] = route_segments(route, net, entities)
    order = [(sg.road, sg.lane) for sg in segs]
    how = irp[0]
    if how.tag == "FromCurrentEntity":
        ref = entities[how.get("entityRef")]
        r = locate(net, ref.x, ref.y, ref.z, ref.h)
        r.route = order
        return r
    path_s = _num(how.attrib, "pathS")
    seg = segs[-1] if segs else None
    for sg in segs:
        length = abs(sg.s_end - sg.s_start)
        if path_s <= length + 1e-9:
            seg = sg
            break
        path_s -= length
    if seg is None:
        raise UnsupportedError("RoutePosition", "", x.sourceline or 0, "the route has no lane path on this map")
    d = 1.0 if seg.s_end >= seg.s_start else -1.0
    s = seg.s_start + d * min(path_s, abs(seg.s_end - seg.s_start))
    if how.tag == "FromLaneCoordinates":
        lane = int(float(how.get("laneId", seg.lane)))
        r = _lane_pose(net, seg.road, lane, s, _num(how.attrib, "laneOffset"))
    else:
        p = net.road_to_world(seg.road, s, _num(how.attrib, "t"))
        r = locate(net, p.x, p.y, p.z, p.h)
    r.h = _orient(spec, wrap(net.road_to_world(seg.road, s, 0.0).h + (0.0 if d > 0 else math.pi)))
    r.route = order
    return r
