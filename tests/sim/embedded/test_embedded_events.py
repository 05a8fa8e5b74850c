"""Collision, off-road and lane-invasion events."""

import math

import pytest

from roadtest.sim.events import Box, EventDetector, boxes_overlap, overlapping_pairs

from embedded_fakes import FakeStraightRoads


def test_oriented_boxes_whose_bounding_circles_overlap_can_still_be_apart():
    a = Box("a", 0.0, 0.0, 0.0, 4.0, 2.0)
    # A box rotated 45 degrees placed diagonally off a's corner: circles overlap, rectangles do not.
    b = Box("b", 3.6, 2.6, math.pi / 4, 4.0, 2.0)
    assert math.hypot(3.6, 2.6) < math.hypot(4, 2)
    assert not boxes_overlap(a, b)
    assert boxes_overlap(a, Box("c", 3.0, 1.5, math.pi / 4, 4.0, 2.0))
    assert boxes_overlap(a, Box("d", 0.0, 0.0, 1.0, 0.5, 0.5))  # fully inside


def test_overlapping_pairs_lists_each_pair_once():
    boxes = [Box(str(i), 3.0 * i, 0.0, 0.0, 4.0, 2.0) for i in range(4)]
    assert overlapping_pairs(boxes) == [(0, 1), (1, 2), (2, 3)]
    assert overlapping_pairs(boxes[:1]) == []


def test_a_collision_is_reported_when_contact_starts_with_both_actors_and_relative_speed():
    det = EventDetector()
    a = Box("zed", 0.0, 0.0, 0.0, 4.0, 2.0, vx=10.0, kind="car")
    b = Box("hero", 3.9, 0.0, 0.0, 4.0, 2.0, vx=4.0, kind="car")
    new, cur = det.collisions([a, b], first="hero")
    assert len(new) == 1 and new[0].actor == "hero" and new[0].other == "zed"
    assert new[0].data["relative_speed"] == 6.0
    new, cur = det.collisions([a, b], first="hero")
    assert new == [] and len(cur) == 1  # still touching: not a new collision
    det.collisions([a, Box("hero", 10.0, 0.0, 0.0, 4.0, 2.0)], first="hero")
    new, _ = det.collisions([a, b], first="hero")
    assert len(new) == 1  # a second contact after separating


def test_lane_change_across_a_broken_line_is_allowed_and_across_the_solid_centre_line_is_not():
    net = FakeStraightRoads(nr=2, nl=1, center="solid")
    det = EventDetector(net, watch=["ego"])
    assert det.road_events("ego", net.locate(10.0, -5.0)) == []
    ev = det.road_events("ego", net.locate(11.0, -2.0))
    assert [e.kind for e in ev] == ["lane_invasion"]
    assert ev[0].data["allowed"] is True and ev[0].data["type"] == "broken" and ev[0].data["to_lane"] == -1
    ev = det.road_events("ego", net.locate(12.0, 1.0))
    assert ev[0].data["allowed"] is False and ev[0].data["type"] == "solid" and ev[0].data["color"] == "yellow"
    assert det.road_events("ego", net.locate(13.0, 1.2)) == []


def test_off_road_is_reported_once_on_leaving_the_road():
    net = FakeStraightRoads(nr=1)
    det = EventDetector(net)
    assert det.road_events("ego", net.locate(5.0, -1.0)) == []
    ev = det.road_events("ego", net.locate(6.0, -9.0))
    assert [e.kind for e in ev] == ["off_road"]
    assert det.road_events("ego", net.locate(7.0, -9.0)) == []
    assert det.road_events("ego", net.locate(8.0, -1.0)) == []


def _invasions(det, net, poses, length=4.5, width=1.8):
    """Lane-invasion events per pose (x, y[, h]) of a box driven through the detector, one call per tick."""
    out = []
    for p in poses:
        x, y, h = (*p, 0.0)[:3]
        m = net.locate(x, y, h)
        out.append([e for e in det.road_events("ego", m, length, width) if e.kind == "lane_invasion"])
    return out


def test_a_corner_over_the_line_is_an_invasion_even_when_the_centre_stays_in_its_lane():
    net = FakeStraightRoads(nr=2, nl=1, center="solid")
    det = EventDetector(net, watch=["ego"])
    # lane -1 spans y in [-3.5, 0]; the box is 1.8 m wide, so its right side reaches -3.5 with the centre at -2.6
    ys = [-1.75, -2.5, -2.7, -2.9, -2.8, -2.2, -1.75, -2.75, -1.75]
    per_tick = _invasions(det, net, [(10.0 + i, y) for i, y in enumerate(ys)])
    assert [len(e) for e in per_tick] == [0, 0, 1, 0, 0, 0, 0, 1, 0]
    ev = per_tick[2][0]
    assert ev.data["lane"] == -1 and ev.data["to_lane"] == -2 and ev.data["side"] == "right"
    assert ev.data["type"] == "broken" and ev.data["allowed"] is True and ev.data["centre_across"] is False
    assert all(net.locate(10.0, y).lane == -1 for y in ys)  # a straddle: the centre never left lane -1


def test_a_whole_lane_change_is_one_invasion_and_a_straddle_of_the_solid_centre_line_is_not_allowed():
    net = FakeStraightRoads(nr=2, nl=1, center="solid")
    det = EventDetector(net, watch=["ego"])
    ys = [-5.25 + 0.25 * i for i in range(15)]  # lane -2 centre to lane -1 centre, across the broken line
    per_tick = _invasions(det, net, [(10.0 + i, y) for i, y in enumerate(ys)])
    assert sum(map(len, per_tick)) == 1
    (ev,) = next(e for e in per_tick if e)
    assert (ev.data["lane"], ev.data["to_lane"], ev.data["type"]) == (-2, -1, "broken")
    per_tick = _invasions(det, net, [(30.0, -1.0), (31.0, -0.7), (32.0, -0.8), (33.0, -1.75)])
    assert [len(e) for e in per_tick] == [0, 1, 0, 0]
    ev = per_tick[1][0]
    assert (ev.data["lane"], ev.data["to_lane"], ev.data["type"], ev.data["color"]) == (-1, 1, "solid", "yellow")
    assert ev.data["allowed"] is False and ev.data["side"] == "left"


def test_a_box_turned_across_the_road_reaches_both_lines_of_its_lane():
    net = FakeStraightRoads(nr=3, nl=0)
    det = EventDetector(net, watch=["ego"])
    # at -5.25 (lane -2) a 4.5 m box turned 22.5 degrees spans y in [-6.94, -3.56], turned 90 [-7.5, -3.0]
    per_tick = _invasions(det, net, [(10.0, -5.25, 0.0), (10.0, -5.25, math.pi / 8), (10.0, -5.25, math.pi / 2)])
    assert [len(e) for e in per_tick] == [0, 0, 2]
    assert sorted(e.data["to_lane"] for e in per_tick[2]) == [-3, -1]


def test_a_line_jumped_over_in_one_tick_still_counts_and_first_sight_is_not_a_crossing():
    net = FakeStraightRoads(nr=3, nl=0)
    det = EventDetector(net, watch=["ego"])
    # starting over a line is no crossing; a box teleported two lanes crosses both lines between
    per_tick = _invasions(det, net, [(10.0, -3.5), (11.0, -3.5), (12.0, -1.75), (13.0, -8.75)])
    assert [len(e) for e in per_tick] == [0, 0, 0, 2]
    assert [(e.data["lane"], e.data["to_lane"]) for e in per_tick[3]] == [(-1, -2), (-2, -3)]


def test_straddling_a_line_across_the_end_of_a_road_stays_one_invasion():
    net = FakeStraightRoads(n_roads=2, length=100.0, nr=2, nl=0)
    det = EventDetector(net, watch=["ego"])
    per_tick = _invasions(det, net, [(97.0, -1.75), (98.0, -2.8), (99.5, -2.8), (100.5, -2.8), (102.0, -2.8),
                                     (103.0, -1.75), (104.0, -2.8)])
    assert [len(e) for e in per_tick] == [0, 1, 0, 0, 0, 0, 1]
    assert per_tick[-1][0].data["road"] == "2"


@pytest.mark.conformance
def test_the_exact_road_bounds_and_the_lane_width_walk_agree_on_a_real_map(conformance_dir):
    from roadtest.sim.events import _lanes_across, _lanes_across_fast
    from roadtest.sim.road import load_map

    net = load_map(conformance_dir / "esmini" / "resources" / "xodr" / "straight_500m.xodr")
    compared = 0
    for x, y in ((50.0, -1.5), (120.0, 2.0), (300.0, -4.0)):
        m = net.locate(x, y, 0.0)
        fast, walk = _lanes_across_fast(net, m.road, m.s), _lanes_across(net, m)
        assert [f[0] for f in fast] == [w[0] for w in walk] and len(fast) >= 4
        for f, w in zip(fast, walk):
            assert abs(f[1] - w[1]) < 1e-6 and abs(f[2] - w[2]) < 1e-6
            compared += 1
    assert compared >= 12


@pytest.mark.conformance
def test_a_swerve_whose_wheels_touch_the_solid_edge_line_is_a_solid_crossing_for_the_rule_signals(conformance_dir):
    from roadtest.bundle import load_bundle
    from roadtest.rules.signals import extract_signals
    from roadtest.sim.api import Control, SimSettings
    from roadtest.sim.embedded import EmbeddedSimulator

    xosc = conformance_dir / "esmini" / "resources" / "xosc" / "straight_500m.xosc"
    counts = {}
    for n in (8, 14):  # steer right for n ticks, back left for 2n, straighten for n
        sim = EmbeddedSimulator().load(load_bundle(xosc), 0, SimSettings(max_time=5.0))
        inv, lanes, i = [], set(), 0
        while not sim.done:
            steer = 0.02 if i < n else -0.02 if i < 3 * n else 0.02 if i < 4 * n else 0.0
            st = sim.step(Control(throttle=0.2, steer=steer))
            inv += [e for e in st.events if e.kind == "lane_invasion"]
            lanes.add(st.ego.lane.lane)
            i += 1
        assert lanes == {-1}  # the centre never leaves lane -1
        sig = extract_signals(sim.trace, sim.meta)
        counts[n] = (len(inv), sum(v > 0 for v in sig["solid_crossing"]), sum(v > 0 for v in sig["lane_change"]))
        if inv:
            assert inv[0].data["type"] == "solid" and inv[0].data["to_lane"] == -2 and inv[0].data["allowed"] is False
    assert counts == {8: (0, 0, 0), 14: (1, 1, 0)}


def test_on_a_bend_the_ends_of_a_long_box_reach_the_outer_line_before_its_side_does():
    net = FakeStraightRoads(nr=2, nl=0)
    m = net.locate(10.0, -2.5, 0.0)  # 4.5 x 1.8 box: its right side at -3.4, 0.1 m inside the line at -3.5
    assert [e.data["to_lane"] for e in EventDetector(net).road_events("ego", m, 4.5, 1.8, 0.05)] == []  # first sight
    for k, expect in ((0.0, 0), (-0.05, 0), (0.05, 1)):  # the ends sag 0.127 m towards -t on a left bend
        det = EventDetector(net)
        det.road_events("ego", net.locate(9.0, -1.75, 0.0), 4.5, 1.8, k)
        assert len(det.road_events("ego", m, 4.5, 1.8, k)) == expect


@pytest.mark.conformance
def test_lane_curvature_and_box_corners_on_a_real_arc(conformance_dir):
    from roadtest.sim.embedded.lanes import LaneTable
    from roadtest.sim.road import load_map

    net = load_map(conformance_dir / "esmini" / "resources" / "xodr" / "curve_r100.xodr")
    table = LaneTable(net)
    road = net.road_ids()[0]
    # the reference line is an arc of radius 100 m from s = 500 to 657; lane centres lie 1.535 m either side
    assert abs(table.curvature(road, -1, 580.0) - 1 / 101.535) < 1e-4
    assert abs(table.curvature(road, 1, 580.0) - 1 / 98.465) < 1e-4
    assert abs(table.curvature(road, -1, 250.0)) < 1e-9
    line_t = -3.07  # lane -1's outer line
    for inside, expect in ((0.1, 1), (0.3, 0)):
        # a 12 x 2.5 bus along lane -1 whose right side's middle stays `inside` m from the line
        p = net.road_to_world(road, 580.0, line_t + inside + 1.25)
        corners = [(p.x + c * math.cos(p.h) - w * math.sin(p.h), p.y + c * math.sin(p.h) + w * math.cos(p.h))
                   for c in (6.0, -6.0) for w in (-1.25, 1.25)]
        crossed = any(net.locate(x, y).t < line_t for x, y in corners)
        assert crossed == bool(expect)  # the map itself says whether the rear/front corners stand over the line
        det = EventDetector(net)
        k = table.curvature(road, -1, 580.0)
        q = net.road_to_world(road, 579.0, -1.535)
        det.road_events("ego", net.locate(q.x, q.y, q.h), 12.0, 2.5, k)
        evs = det.road_events("ego", net.locate(p.x, p.y, p.h), 12.0, 2.5, k)
        assert len(evs) == expect
        if evs:
            assert evs[0].data["lane"] == -1 and evs[0].data["to_lane"] == -2


def test_a_centre_that_gets_over_the_line_and_back_while_the_box_still_touches_it_crosses_twice():
    net = FakeStraightRoads(nr=2, nl=0)
    det = EventDetector(net, watch=["ego"])
    # the line lies at -3.5; the centre wobbles within HYST of it (no crossing), then pulls over and comes back
    ys = [-1.75, -2.7, -3.52, -3.48, -3.53, -4.0, -3.4, -3.0, -1.75]
    per_tick = _invasions(det, net, [(10.0 + i, y) for i, y in enumerate(ys)])
    assert [len(e) for e in per_tick] == [0, 1, 0, 0, 0, 0, 1, 0, 0]
    back = per_tick[6][0].data
    assert (back["lane"], back["to_lane"], back["side"], back["centre_across"]) == (-2, -1, "left", True)
