"""OpenDRIVE emitter: every road kind is XSD-valid, connected end to end, and parses back to the scenario."""

from __future__ import annotations

import math

import pytest
from lxml import etree

from roadtest.dsl.emit_xodr import xodr_element
from roadtest.dsl.model import Scenario
from roadtest.dsl.roads_build import build_layout
from roadtest.dsl.roads_scene import place_scene
from roadtest.dsl.validate import check_xsd

ROADS = {
    "straight": dict(kind="straight", length=300, speed_limit=60,
                     sections=[{"kind": "tunnel", "s_start": 50, "s_end": 100},
                               {"kind": "bridge", "s_start": 150, "s_end": 200},
                               {"kind": "school_zone", "s_start": 220, "s_end": 260, "speed_limit": 30}]),
    "curve": dict(kind="curve", length=300, radius=80, angle=120, direction="right", curve_start=40),
    "intersection": dict(kind="intersection", length=100, lanes={"forward": 2, "backward": 1}),
    "t_junction": dict(kind="t_junction", length=80),
    "roundabout": dict(kind="roundabout", length=80, radius=20),
    "highway_merge": dict(kind="highway_merge", length=500, ramp={"merge_s": 150, "length": 100},
                          lanes={"forward": 2, "backward": 1}),
}


def scenario(road: dict, country: str = "CN", **extra) -> Scenario:
    data = dict(name="t", country=country, road=road, ego={"lane": 1, "s": 20, "speed": 40, "route": {"distance": 60}})
    data.update(extra)
    return Scenario.model_validate(data)


def odr_tree(sc: Scenario):
    layout = build_layout(sc)
    place_scene(sc, layout)
    return layout, etree.fromstring(etree.tostring(_to_lxml(xodr_element(layout, sc.name, sc.country)))).getroottree()


def _to_lxml(el):
    import xml.etree.ElementTree as ET

    return etree.fromstring(ET.tostring(el))


@pytest.mark.parametrize("country", ["CN", "JP"])
@pytest.mark.parametrize("kind", sorted(ROADS))
def test_every_kind_is_xsd_valid_and_connected(kind, country, tmp_path):
    sc = scenario(ROADS[kind], country)
    layout, tree = odr_tree(sc)
    path = tmp_path / "road.xodr"
    tree.write(str(path))
    assert check_xsd(path) == []
    # every road-to-road link meets its partner: same point, same (or opposite) heading
    for piece in layout.pieces.values():
        for which, link in (("predecessor", piece.predecessor), ("successor", piece.successor)):
            if link is None or link.element != "road":
                continue
            other = layout.pieces[link.id]
            mine = piece.ref.pose(0.0) if which == "predecessor" else piece.ref.end()
            theirs = other.ref.pose(0.0) if link.contact == "start" else other.ref.end()
            gap = math.hypot(mine[0] - theirs[0], mine[1] - theirs[1])
            if piece.name == "ramp_in_merge" and which == "successor":
                gap = abs(gap - sc.road.lanes.forward * sc.road.lanes.width)  # joins beside the main lanes
            assert gap < 1e-6, (piece.name, which, gap)
            assert abs(math.remainder(mine[2] - theirs[2], math.pi)) < 1e-6
    rule = {r.get("rule") for r in tree.getroot().iter("road")}
    assert rule == {"LHT" if country == "JP" else "RHT"}


def test_junction_has_every_movement_with_lane_links():
    sc = scenario(ROADS["intersection"])
    layout, tree = odr_tree(sc)
    junction = tree.getroot().find("junction")
    conns = junction.findall("connection")
    assert len(conns) == 12  # 4 arms x 3 exits
    for c in conns:
        road = tree.getroot().find(f"road[@id='{c.get('connectingRoad')}']")
        assert road.get("junction") == junction.get("id")
        links = c.findall("laneLink")
        assert links and all(int(l.get("to")) < 0 for l in links)  # right-hand traffic: lanes right of the line
    t = scenario(ROADS["t_junction"])
    _, ttree = odr_tree(t)
    assert len(ttree.getroot().find("junction").findall("connection")) == 6


def test_lanes_marks_speed_round_trip():
    road = dict(kind="straight", length=200, speed_limit=80, lanes={"forward": 3, "backward": 2, "width": 3.25},
                markings={"center": "solid_solid_yellow", "lanes": "broken_white", "edge": "solid_white"})
    _, tree = odr_tree(scenario(road))
    sec = tree.getroot().find("road/lanes/laneSection")
    right = sec.findall("right/lane")
    left = sec.findall("left/lane")
    driving_r = [l for l in right if l.get("type") == "driving"]
    driving_l = [l for l in left if l.get("type") == "driving"]
    assert len(driving_r) == 3 and len(driving_l) == 2
    assert {float(l.find("width").get("a")) for l in driving_r + driving_l} == {3.25}
    assert [l for l in right if l.get("type") == "sidewalk"], "pedestrians need a sidewalk"
    center = sec.find("center/lane/roadMark")
    assert (center.get("type"), center.get("color")) == ("solid solid", "yellow")
    marks = {int(l.get("id")): l.find("roadMark").get("type") for l in driving_r}
    assert marks == {-1: "broken", -2: "broken", -3: "solid"}
    assert [float(l.find("speed").get("max")) for l in driving_r] == pytest.approx([80 / 3.6] * 3)
    assert float(tree.getroot().find("road/type/speed").get("max")) == pytest.approx(80 / 3.6)


def test_zone_speed_and_tunnel_bridge_objects():
    _, tree = odr_tree(scenario(ROADS["straight"]))
    road = tree.getroot().find("road")
    secs = road.findall("lanes/laneSection")
    speeds = [(float(s.get("s")), float(s.find("right/lane/speed").get("max"))) for s in secs]
    assert dict(speeds)[220.0] == pytest.approx(30 / 3.6) and speeds[0][1] == pytest.approx(60 / 3.6)
    tunnel = road.find("objects/tunnel")
    bridge = road.find("objects/bridge")
    assert (float(tunnel.get("s")), float(tunnel.get("length"))) == (50.0, 50.0)
    assert (float(bridge.get("s")), float(bridge.get("length"))) == (150.0, 50.0)


def test_signals_objects_and_left_hand_signs():
    road = dict(kind="straight", length=300, speed_limit=40,
                signs=[{"id": "speed_limit", "s": 30, "value": 40}, {"id": "stop", "s": 120, "side": "left"}],
                crosswalks=[{"s": 100, "width": 5}], stop_lines=[{"s": 95}],
                traffic_lights=[{"id": "tl", "s": 200, "phases": [{"state": "green", "duration": 8},
                                                                    {"state": "red", "duration": 8}]}])
    for country, side_sign in (("DE", -1), ("JP", 1)):
        _, tree = odr_tree(scenario(road, country))
        sigs = tree.getroot().findall("road/signals/signal")
        by_name = {s.get("name"): s for s in sigs}
        limit = by_name["speed_limit"]
        assert limit.get("country") == country and float(limit.get("value")) == 40.0
        assert limit.get("type") == {"DE": "274", "JP": "323"}[country]
        # the default side is the kerb of forward traffic: t < 0 in right-hand traffic, t > 0 in JP, where
        # the forward lanes sit left of the reference line
        lane_side = 1 if country == "JP" else -1
        validity = limit.find("validity")
        assert int(validity.get("fromLane")) * lane_side > 0
        assert float(limit.get("t")) * lane_side > 0
        light = by_name["tl"]
        assert light.get("dynamic") == "yes" and light.get("type") == "1000001"
        objs = {o.get("type"): o for o in tree.getroot().findall("road/objects/object")}
        assert float(objs["crosswalk"].get("length")) == 5.0
        assert objs["roadMark"].get("subtype") == "stopLine"
        assert len([o for o in tree.getroot().findall("road/objects/object") if o.get("subtype") == "stopLine"]) == 2


def test_output_is_deterministic():
    sc = scenario(ROADS["roundabout"])
    a = etree.tostring(odr_tree(sc)[1])
    b = etree.tostring(odr_tree(sc)[1])
    assert a == b


def test_clothoid_and_curve_geometry():
    from scipy.integrate import quad

    from roadtest.dsl.roads_geom import Segment

    seg = Segment(1.0, 2.0, 0.3, 40.0, 0.002, 0.02)
    x, y, h = seg.at(40.0)
    ex = 1.0 + quad(lambda s: math.cos(seg.heading(s)), 0, 40, epsabs=1e-12)[0]
    ey = 2.0 + quad(lambda s: math.sin(seg.heading(s)), 0, 40, epsabs=1e-12)[0]
    assert (x, y) == (pytest.approx(ex, abs=1e-9), pytest.approx(ey, abs=1e-9))
    assert h == pytest.approx(0.3 + 0.002 * 40 + 0.5 * 0.018 * 40)
    # a curve turns by exactly its angle, keeps its length, and enters and leaves on clothoids
    sc = scenario(ROADS["curve"])
    layout, tree = odr_tree(sc)
    ref = layout.pieces[1].ref
    assert ref.length == pytest.approx(sc.road.length)
    assert ref.end()[2] == pytest.approx(-math.radians(120))
    kinds = [g[0].tag for g in tree.getroot().findall("road/planView/geometry")]
    assert kinds == ["line", "spiral", "arc", "spiral", "line"]
