"""Layout -> OpenDRIVE 1.7 element tree, built from scenariogeneration.xodr classes (no XML strings)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
from scenariogeneration import xodr

from roadtest.dsl.roads_build import Layout
from roadtest.dsl.roads_geom import LaneSpec, LinkSpec, RoadPiece

__all__ = ["ODR_REV_MINOR", "FIXED_DATE", "GEO_REFERENCE", "build_opendrive", "xodr_element", "write_xodr"]

ODR_REV_MINOR = 7  # scenariogeneration ships the OpenDRIVE 1.7 XSD, so we emit and validate 1.7
FIXED_DATE = "2024-01-01T00:00:00"  # header date: fixed so that a bundle is byte-identical across runs
# local transverse Mercator at lat 0 / lon 0, as CARLA's towns use (scenario_runner warns without one)
GEO_REFERENCE = "+proj=tmerc +lat_0=0 +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs"

_MARK = {"none": xodr.RoadMarkType.none, "solid": xodr.RoadMarkType.solid, "broken": xodr.RoadMarkType.broken,
         "solid solid": xodr.RoadMarkType.solid_solid, "solid broken": xodr.RoadMarkType.solid_broken,
         "broken solid": xodr.RoadMarkType.broken_solid, "broken broken": xodr.RoadMarkType.broken_broken}
_COLOR = {"white": xodr.RoadMarkColor.white, "yellow": xodr.RoadMarkColor.yellow,
          "standard": xodr.RoadMarkColor.standard}
_LANE_TYPE = {"driving": xodr.LaneType.driving, "sidewalk": xodr.LaneType.sidewalk,
              "shoulder": xodr.LaneType.shoulder, "border": xodr.LaneType.border}
_OBJ_TYPE = {"crosswalk": xodr.ObjectType.crosswalk, "roadMark": xodr.ObjectType.roadMark}


class _SpeedLane(xodr.Lane):
    """A scenariogeneration Lane that also writes OpenDRIVE's lane <speed> record (m/s)."""

    speed: float | None = None

    def get_element(self) -> ET.Element:
        el = super().get_element()
        if self.speed is not None:
            sp = ET.Element("speed", {"sOffset": "0.0", "max": f"{self.speed:.9g}", "unit": "m/s"})
            # XSD order: link, width, roadMark, material, speed, access, height, rule
            after = [i for i, c in enumerate(el) if c.tag in ("link", "width", "border", "roadMark", "material")]
            el.insert(after[-1] + 1 if after else 0, sp)
        return el


def _roadmark(style: str, color: str) -> xodr.RoadMark:
    t = _MARK.get(style, xodr.RoadMarkType.solid)
    if t == xodr.RoadMarkType.broken:
        return xodr.RoadMark(t, 0.15, length=3.0, space=9.0, color=_COLOR.get(color, xodr.RoadMarkColor.standard))
    return xodr.RoadMark(t, 0.15 if t != xodr.RoadMarkType.none else None, color=_COLOR.get(color, xodr.RoadMarkColor.standard))


def _lane(spec: LaneSpec, length: float) -> _SpeedLane:
    if spec.width_end is None:
        lane = _SpeedLane(_LANE_TYPE[spec.type], a=spec.width)
    else:
        dw = spec.width_end - spec.width
        lane = _SpeedLane(_LANE_TYPE[spec.type], a=spec.width, b=0.0, c=3 * dw / length ** 2, d=-2 * dw / length ** 3)
    lane.speed = spec.speed if spec.type == "driving" else None
    lane.add_roadmark(_roadmark(spec.mark, spec.color))
    return lane


def _lanes(piece: RoadPiece) -> xodr.Lanes:
    lanes = xodr.Lanes()
    bounds = [s for s, _ in piece.sections[1:]] + [piece.length]
    for i, (s0, specs) in enumerate(piece.sections):
        center = xodr.Lane(a=0)
        center.add_roadmark(_roadmark(piece.center_mark, piece.center_color))
        sec = xodr.LaneSection(s0, center)
        prev_ids = {ln.id for ln in piece.sections[i - 1][1]} if i else set()
        next_ids = {ln.id for ln in piece.sections[i + 1][1]} if i + 1 < len(piece.sections) else set()
        for side in (1, -1):
            for spec in sorted((ln for ln in specs if ln.id * side > 0), key=lambda ln: abs(ln.id)):
                lane = _lane(spec, bounds[i] - s0)
                pred = spec.predecessor if spec.predecessor is not None else (spec.id if spec.id in prev_ids else None)
                succ = spec.successor if spec.successor is not None else (spec.id if spec.id in next_ids else None)
                if pred is not None:
                    lane.add_link("predecessor", pred)
                if succ is not None:
                    lane.add_link("successor", succ)
                (sec.add_left_lane if side > 0 else sec.add_right_lane)(lane)
        lanes.add_lanesection(sec)
    return lanes


def _planview(piece: RoadPiece) -> xodr.PlanView:
    pv = xodr.PlanView()
    for g, s in zip(piece.ref.segments, piece.ref.s_starts()):
        if g.is_spiral:
            geom = xodr.Spiral(g.curvature, g.curvature_end, length=g.length)
        elif abs(g.curvature) < 1e-12:
            geom = xodr.Line(g.length)
        else:
            geom = xodr.Arc(g.curvature, length=g.length)
        pv.add_fixed_geometry(geom, g.x, g.y, g.h, s)
    return pv


def _link(road: xodr.Road, which: str, link: LinkSpec | None) -> None:
    if link is None:
        return
    et = xodr.ElementType.road if link.element == "road" else xodr.ElementType.junction
    cp = {"start": xodr.ContactPoint.start, "end": xodr.ContactPoint.end}.get(link.contact or "")
    (road.add_predecessor if which == "predecessor" else road.add_successor)(et, link.id, cp)


def _signal(d: dict) -> xodr.Signal:
    sig = xodr.Signal(s=d["s"], t=d["t"], country=d["country"], Type=d["type"], subtype=d.get("subtype", "-1"),
                      id=str(d["id"]), name=d.get("name"), dynamic=xodr.Dynamic.yes if d.get("dynamic") else xodr.Dynamic.no,
                      value=d.get("value"), unit=d.get("unit"), zOffset=d.get("z", 2.0),
                      orientation=xodr.Orientation.positive if d.get("orientation", "+") == "+" else xodr.Orientation.negative,
                      height=d.get("height", 0.8), width=d.get("width", 0.8))
    for a, b in d.get("validity", []):
        sig.add_validity(a, b)
    return sig


def _object(d: dict) -> xodr.Object:
    return xodr.Object(s=d["s"], t=d["t"], Type=_OBJ_TYPE[d["type"]], subtype=d.get("subtype"), id=str(d["id"]),
                       name=d.get("name"), hdg=d.get("hdg", 0.0), length=d["length"], width=d["width"], height=0.0)


def build_opendrive(layout: Layout, name: str, country: str) -> xodr.OpenDrive:
    """The scenariogeneration OpenDrive of a layout (roads, links, lanes, signals, objects, junctions)."""
    # scenariogeneration keeps a process-wide registry of signal/object ids and renames repeats;
    # each file is its own id space, so start every map with an empty registry
    from scenariogeneration.xodr.signals_objects import _SignalObjectBase

    _SignalObjectBase._usedIDs.clear()
    _SignalObjectBase._IDCounter.clear()
    odr = xodr.OpenDrive(name, revMajor="1", revMinor=str(ODR_REV_MINOR), geo_reference=GEO_REFERENCE)
    rule = xodr.TrafficRule.LHT if layout.fwd_sign > 0 else xodr.TrafficRule.RHT
    for rid in sorted(layout.pieces):
        piece = layout.pieces[rid]
        road = xodr.Road(piece.id, _planview(piece), _lanes(piece), road_type=piece.junction, name=piece.name, rule=rule)
        _link(road, "predecessor", piece.predecessor)
        _link(road, "successor", piece.successor)
        speed = piece.speed if piece.speed is not None else "no limit"
        road.add_type(xodr.RoadType.town, 0, country, speed, "m/s")
        for d in piece.objects:
            road.add_object(_object(d))
        for i, (s, length) in enumerate(piece.tunnels):
            road.add_tunnel(xodr.Tunnel(s, length, id=f"tunnel{rid}_{i}", name="tunnel"))
        for d in piece.signals:
            road.add_signal(_signal(d))
        odr.add_road(road)
    for j in layout.junctions:
        junction = xodr.Junction(j.name, j.id)
        for c in j.connections:
            con = xodr.Connection(c.incoming, c.connecting, xodr.ContactPoint.start if c.contact == "start" else xodr.ContactPoint.end)
            for a, b in c.lane_links:
                con.add_lanelink(a, b)
            junction.add_connection(con)
        odr.add_junction(junction)
    return odr


def past_float32(v: float) -> float:
    """`v`, or just past it (under a float32 step), so that float32 rounding of a hair less lands below it.

    CARLA's map reaches a lane's far end at float32(end - epsilon) (GenerateTopology's dead-end segment); an end
    that float32 holds exactly rounds onto the end itself, where the lane has no waypoint, and the lane drops
    out of carla.Map.get_topology() and so out of CARLA's GlobalRoutePlanner."""
    f = float(np.float32(v))
    if f < v:
        return float(v)
    step = float(np.spacing(np.float32(f)))
    return f + step / 4.0


def _driving(section: ET.Element) -> set[str]:
    return {ln.get("id") for ln in section.iter("lane") if ln.get("type") == "driving"}


def _reachable_ends(road_el: ET.Element) -> None:
    """The start of a lane section where a driving lane ends or begins and, for a road that nothing succeeds,
    its length moved past_float32 (the last geometry grows by the same hair), so that every lane's end is a
    waypoint in CARLA's float32 reading."""
    secs = road_el.findall("lanes/laneSection")
    for before, sec in zip(secs, secs[1:]):
        if _driving(before) != _driving(sec):
            sec.set("s", repr(past_float32(float(sec.get("s")))))
    if road_el.find("link/successor") is not None:
        return
    length = float(road_el.get("length"))
    new = past_float32(length)
    if new != length:
        road_el.set("length", repr(new))
        last = road_el.findall("planView/geometry")[-1]
        last.set("length", repr(float(last.get("length")) + (new - length)))


def xodr_element(layout: Layout, name: str, country: str) -> ET.Element:
    """The <OpenDRIVE> element, with a fixed header date, bridges added as <objects><bridge> and every lane end
    reachable as CARLA reads the map (_reachable_ends)."""
    el = build_opendrive(layout, name, country).get_element()
    header = el.find("header")
    if header is not None:
        header.set("date", FIXED_DATE)
    for road_el in el.findall("road"):
        piece = layout.pieces[int(road_el.get("id"))]
        _reachable_ends(road_el)
        # scenariogeneration renumbers ids it has seen before in this process; restore ours
        for obj_el, d in zip(road_el.findall("objects/object"), piece.objects):
            obj_el.set("id", str(d["id"]))
            if obj_el.get("subtype") == "None":
                del obj_el.attrib["subtype"]
        for sig_el, d in zip(road_el.findall("signals/signal"), piece.signals):
            sig_el.set("id", str(d["id"]))
            sig_el.set("country", d["country"])  # scenariogeneration upper-cases it; the XSD wants "OpenDRIVE"
        if not piece.bridges:
            continue
        objs = road_el.find("objects")
        if objs is None:
            objs = ET.Element("objects")
            # XSD order: ... lanes, objects, signals, surface
            lanes_idx = list(road_el).index(road_el.find("lanes"))
            road_el.insert(lanes_idx + 1, objs)
        for i, (s, length) in enumerate(piece.bridges):
            ET.SubElement(objs, "bridge", {"s": f"{s:.6g}", "length": f"{length:.6g}", "id": f"bridge{piece.id}_{i}",
                                           "name": "bridge", "type": "concrete"})
    return el


def write_xodr(layout: Layout, name: str, country: str, path) -> None:
    """Write road.xodr (pretty-printed UTF-8)."""
    el = xodr_element(layout, name, country)
    ET.indent(el)
    ET.ElementTree(el).write(path, encoding="utf-8", xml_declaration=True)
