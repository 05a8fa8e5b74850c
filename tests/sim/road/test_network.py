"""Lane API on small hand-written roads: positions, neighbours and marks, routing, rules, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from roadtest.errors import MapError
from roadtest.sim.road import LaneSegment, RoadNetwork, load_map

from .samples import geometry_road, two_lane_junction


@pytest.fixture(scope="module")
def net() -> RoadNetwork:
    return RoadNetwork(two_lane_junction(), "junction.xodr")


def test_lane_to_world_places_lanes_by_width(net):
    p = net.lane_to_world("1", -2, 30.0)
    assert (p.x, p.y) == pytest.approx((30.0, -5.25)) and p.h == pytest.approx(0.0)
    q = net.lane_to_world("1", 1, 30.0, offset=0.5)
    assert (q.x, q.y) == pytest.approx((30.0, 2.25)) and abs(q.h) == pytest.approx(math.pi)
    assert net.lane_direction("1", 1) == -1 and net.lane_direction("1", -1) == 1
    assert net.lane_ids("1", 50.0) == [2, 1, -1, -2]
    assert net.lane_width("1", -1, 10.0) == pytest.approx(3.5)


def test_locate_on_off_and_near_road(net):
    m = net.locate(40.0, -4.0, h=0.1)
    assert (m.road, m.lane) == ("1", -2) and m.s == pytest.approx(40.0) and m.t == pytest.approx(-4.0)
    assert m.offset == pytest.approx(1.25) and m.heading_diff == pytest.approx(0.1) and m.on_road
    wrong_way = net.locate(40.0, 1.0, h=0.0)
    assert wrong_way.lane == 1 and abs(wrong_way.heading_diff) == pytest.approx(math.pi)
    near = net.locate(40.0, -9.0)
    assert near is not None and not near.on_road and near.lane == -2
    assert net.locate(40.0, -30.0) is None
    inside = net.locate(105.0, -1.0)
    assert inside.road == "5" and inside.junction == "9"


def test_locate_many_agrees_with_locate(net):
    rng = np.random.default_rng(0)
    xy = np.column_stack([rng.uniform(-5, 215, 300), rng.uniform(-12, 12, 300)])
    hh = rng.uniform(-math.pi, math.pi, 300)
    many = net.locate_many(xy, hh)
    for (x, y), h, m in zip(xy, hh, many):
        one = net.locate(x, y, h)  # the scalar path must agree with the vectorised one
        assert (one is None) == (m is None)
        if m is not None:
            assert (m.road, m.lane, m.on_road) == (one.road, one.lane, one.on_road)
            assert (m.s, m.t, m.heading_diff) == pytest.approx((one.s, one.t, one.heading_diff))
    hits = [m for m in many if m is not None and m.on_road]
    assert all(abs(m.t) <= 7.0 + 1e-6 for m in hits) and len(hits) > 100


def test_neighbours_and_mark_permissions(net):
    nb = net.neighbours("1", -1, 50.0)
    (left, lmark), (right, rmark) = nb["left"], nb["right"]
    assert left == 1 and lmark.type == "solid" and lmark.color == "yellow"
    assert right == -2 and rmark.type == "broken"
    assert net.lane_change_allowed("1", -1, 50.0, "right") and not net.lane_change_allowed("1", -1, 50.0, "left")
    # lane 1 runs against s: its right is the outer lane 2
    assert net.neighbours("1", 1, 50.0)["right"][0] == 2 and net.neighbours("1", 1, 50.0)["left"][0] == -1
    edge, emark = net.neighbours("1", -2, 50.0)["right"]
    assert edge is None and emark.type == "solid"
    assert rmark.crossing_allowed(True) and rmark.crossing_allowed(False)
    assert not lmark.crossing_allowed(True) and not lmark.crossing_allowed(False)


def test_double_line_permits_crossing_from_the_broken_side():
    data = two_lane_junction().replace(b'type="solid" color="yellow"', b'type="solid broken" color="yellow"', 1)
    n = RoadNetwork(data, "double.xodr")
    # first word = the +t side: lane -1 (right of the centre, sees the broken line) may cross, lane 1 may not
    assert n.lane_change_allowed("1", -1, 50.0, "left") and not n.lane_change_allowed("1", 1, 50.0, "left")


def test_successors_predecessors_through_the_junction(net):
    assert net.successors("1", -1) == [("5", -1)]
    assert net.successors("5", -2) == [("2", -2)]
    assert net.successors("2", 1) == [("5", 1)] and net.successors("5", 1) == [("1", 1)]
    assert net.predecessors("2", -1) == [("5", -1)]
    assert net.successors("2", -1) == []


def test_route_through_junction_with_lane_change(net):
    r = net.route(("1", -1, 10.0), ("2", -2, 50.0))
    assert [(g.road, g.lane) for g in r][-2:] == [("5", -2), ("2", -2)]
    assert r[0].s_start == pytest.approx(10.0) and r[-1].s_end == pytest.approx(50.0)
    total = sum(abs(g.s_end - g.s_start) for g in r)
    assert total == pytest.approx(150.0)
    back = net.route(("2", 1, 80.0), ("1", 1, 20.0))
    assert [(g.road, g.lane) for g in back] == [("2", 1), ("5", 1), ("1", 1)]
    assert back[0].s_end < back[0].s_start  # runs against s
    # crossing the solid centre line is not a route
    assert net.route(("1", -1, 10.0), ("1", 1, 5.0)) == []
    pts = net.path(r, step=1.0)
    assert pts.shape[1] == 4 and np.all(np.hypot(*np.diff(pts[:, :2], axis=0).T) < 1.01)
    assert pts[-1, 0] == pytest.approx(160.0) and pts[-1, 1] == pytest.approx(-5.25)


def test_speed_limits_signals_and_objects(net):
    assert net.speed_limit("1", -1, 50.0) == pytest.approx(30 / 3.6)  # lane record
    assert net.speed_limit("1", -2, 50.0) == pytest.approx(50 / 3.6)  # road type speed
    sig = net.signals_for("1", -1, 50.0)
    assert [(s.id, round(d, 3)) for s, d in sig] == [("s1", 40.0)]
    assert net.signals_for("1", -2, 50.0) == []  # validity -1 only
    assert net.signals_for("1", -1, 95.0) == []  # behind
    back = net.signals_for("2", 1, 80.0, ahead=200.0)
    assert [(s.id, round(d, 3)) for s, d in back] == [("s2", 170.0)]
    (cw,) = net.objects
    assert cw.type == "crosswalk" and len(cw.outline) == 4
    xs, ys = zip(*cw.outline)
    assert (min(xs), max(xs), min(ys), max(ys)) == pytest.approx((93.0, 97.0, -7.0, 0.0))


def test_lane_polylines_follow_driving_direction(net):
    c = net.lane_polyline("1", 1)
    assert c[0, 0] == pytest.approx(100.0) and c[-1, 0] == pytest.approx(0.0) and np.allclose(c[:, 1], 1.75)
    left = net.lane_polyline("1", -1, "left")
    right = net.lane_polyline("1", -1, "right")
    assert np.allclose(left[:, 1], 0.0) and np.allclose(right[:, 1], -3.5)


def test_load_map_is_cached_by_content(tmp_path):
    a, b = tmp_path / "a.xodr", tmp_path / "b.xodr"
    a.write_bytes(two_lane_junction())
    b.write_bytes(two_lane_junction())
    assert load_map(a) is load_map(a)
    assert load_map(a).roads is load_map(b).roads  # parsed once; each names its own file (test_network_cache.py)
    assert load_map(b).source == str(b)


@pytest.mark.parametrize("bad,where", [
    ('<arc/>', "curvature"),
    ('<clothoid curvStart="0"/>', "unsupported geometry"),
    ('<paramPoly3 pRange="bogus" aU="0" bU="1" cU="0" dU="0" aV="0" bV="0" cV="0" dV="0"/>', "pRange"),
])
def test_malformed_geometry_names_element_and_line(bad, where):
    with pytest.raises(MapError, match=rf"bad\.xodr:\d+: <\w+>: .*{where}"):
        RoadNetwork(geometry_road(bad, 10.0), "bad.xodr")


def test_malformed_documents():
    with pytest.raises(MapError, match="not well-formed"):
        RoadNetwork(b"<OpenDRIVE><header></OpenDRIVE>", "x.xodr")
    bad_link = two_lane_junction().replace(b'elementId="9"/>', b'elementId="77"/>', 1)
    assert any("link to unknown junction '77' ignored" in w for w in RoadNetwork(bad_link, "x.xodr").warnings)
    with pytest.raises(MapError, match="no lane 3"):
        RoadNetwork(two_lane_junction(), "x.xodr").lane_to_world("1", 3, 10.0)


def test_left_hand_traffic_flips_directions():
    data = two_lane_junction().replace(b'junction="-1">', b'junction="-1" rule="LHT">').replace(
        b'junction="9">', b'junction="9" rule="LHT">')
    lht = RoadNetwork(data, "lht.xodr")
    assert lht.driving_side == "left"
    assert lht.lane_direction("1", 1) == 1 and lht.lane_direction("1", -1) == -1
    assert lht.successors("1", 1) == [("5", 1)]


def test_road_length_follows_its_geometries_with_a_warning():
    """A road whose length attribute (12) differs from its planView's (10): the reference line decides."""
    data = geometry_road("<line/>", 10.0).replace(b'length="10.0" junction', b'length="12.0" junction')
    net = RoadNetwork(data, "g.xodr")
    assert net.road_length("g") == pytest.approx(10.0)
    assert len(net.warnings) == 1 and "g.xodr:2: <road>: length=12 but the planView's geometries end at s=10" in \
        net.warnings[0]


def test_planview_gap_between_geometries_is_an_error_with_its_line():
    two = (b'<geometry s="0" x="0" y="0" hdg="0" length="4"><line/></geometry>'
           b'<geometry s="5" x="5" y="0" hdg="0" length="5"><line/></geometry>')
    data = geometry_road("<line/>", 10.0).replace(b'<geometry s="0" x="0" y="0" hdg="0" length="10.0"><line/></geometry>',
                                                 two)
    with pytest.raises(MapError, match=r"g\.xodr:\d+: <geometry>: s=0 \+ length=4 = 4 but the next geometry starts at s=5"):
        RoadNetwork(data, "g.xodr")


def test_a_link_to_a_missing_road_is_ignored_with_a_warning():
    """Road g's successor names road 7, which the file lacks: g ends there, a dead end."""
    data = geometry_road("<line/>", 10.0).replace(
        b'junction="-1">', b'junction="-1"><link><successor elementType="road" elementId="7" contactPoint="start"/></link>')
    net = RoadNetwork(data, "x.xodr")
    assert net.successors("g", -1) == []
    assert any("link to unknown road '7' ignored" in w for w in net.warnings)


def test_object_repeats_expand_to_copies_and_strips():
    rep = (b'<object id="p" type="pole" name="pole" s="10" t="-8" zOffset="0" hdg="0" length="0.2" width="0.2">'
           b'<repeat s="10" length="50" distance="10" tStart="-8" tEnd="-9" heightStart="1" heightEnd="1" '
           b'zOffsetStart="0" zOffsetEnd="0"/></object>'
           b'<object id="b" type="barrier" name="rail" s="0" t="8" zOffset="0" hdg="0" width="0.4">'
           b'<repeat s="20" length="30" distance="0" tStart="8" tEnd="8" heightStart="1" heightEnd="1" '
           b'zOffsetStart="0" zOffsetEnd="0"/></object></objects>')
    n = RoadNetwork(two_lane_junction().replace(b"</objects>", rep, 1), "rep.xodr")
    poles = [o for o in n.objects if o.type == "pole"]
    assert [round(o.s) for o in poles] == [10, 10, 20, 30, 40, 50, 60]
    assert poles[-1].t == pytest.approx(-9.0) and poles[3].t == pytest.approx(-8.4)
    (strip,) = [o for o in n.objects if o.id == "b#strip"]
    xs, ys = np.array(strip.outline).T
    assert (xs.min(), xs.max()) == pytest.approx((20.0, 50.0)) and (ys.min(), ys.max()) == pytest.approx((7.8, 8.2))


def test_elevation_gives_z_and_superelevation_is_ignored():
    prof = (b'<elevationProfile><elevation s="0" a="1.0" b="0.05" c="0" d="0"/></elevationProfile>'
            b'<lateralProfile><superelevation s="0" a="0.1" b="0" c="0" d="0"/></lateralProfile><lanes>')
    n = RoadNetwork(geometry_road("<line/>", 40.0).replace(b"<lanes>", prof, 1), "z.xodr")
    assert n.road_to_world("g", 20.0, 0.0).z == pytest.approx(2.0)
    assert n.lane_to_world("g", -1, 30.0).z == pytest.approx(2.5)  # no tilt from the superelevation
    assert n.lane_to_world("g", -1, 30.0).y == pytest.approx(-1.75)


def test_network_implements_every_method_of_the_contract(net):
    import inspect

    from roadtest.sim.road.api import RoadNetworkAPI

    for name, fn in inspect.getmembers(RoadNetworkAPI, inspect.isfunction):
        if name.startswith("_"):
            continue
        mine = inspect.signature(getattr(RoadNetwork, name))
        for pname, p in inspect.signature(fn).parameters.items():
            assert pname in mine.parameters, f"{name} lacks parameter {pname}"
            assert mine.parameters[pname].default == p.default, f"{name}({pname}) default differs"
    for attr in ("driving_side", "signals", "objects"):
        assert hasattr(net, attr)


def test_hint_and_heading_pick_among_overlapping_junction_lanes(conformance_dir):
    f = conformance_dir / "esmini" / "resources" / "xodr" / "fabriksgatan.xodr"
    n = load_map(f)
    # 1 m into the junction from road 2 lane -1, three connecting roads overlap
    end = n.lane_to_world("2", -1, n.road_length("2") - 0.01)
    first = n.locate(end.x, end.y, end.h)
    assert first.road == "2" and first.lane == -1
    ahead = {r for r, _ in n.successors("2", -1)}
    p = n.lane_to_world(*n.successors("2", -1)[0], 1.0)
    m = n.locate(p.x, p.y, p.h, hint=first)
    assert m.road in ahead and m.junction is not None and abs(m.heading_diff) < 0.05
    for road, lane in n.successors("2", -1):  # mid-junction, no heading: the hint decides among crossings
        q = n.lane_to_world(road, lane, 0.5 * n.road_length(road))
        assert n.locate(q.x, q.y, hint=first).road in ahead
    wrong = n.locate(p.x, p.y, p.h + math.pi)  # facing back: a lane running the other way wins if one overlaps
    assert wrong is not None and (wrong.road not in ahead or abs(wrong.heading_diff) > 2.5)


def test_border_records_give_the_outer_edge():
    data = geometry_road("<line/>", 40.0).replace(
        b'<width sOffset="0" a="3.5" b="0" c="0" d="0"/>\n<roadMark sOffset="0" type="solid" color="white" '
        b'weight="standard"/></lane></right>',
        b'<border sOffset="0" a="-3.0" b="-0.05" c="0" d="0"/>\n<roadMark sOffset="0" type="solid" color="white" '
        b'weight="standard"/></lane></right>')
    assert b"<border" in data
    n = RoadNetwork(data, "border.xodr")
    assert n.lane_width("g", -1, 10.0) == pytest.approx(3.5) and n.lane_width("g", 1, 10.0) == pytest.approx(3.5)
    assert n.lane_to_world("g", -1, 20.0).y == pytest.approx(-2.0)
