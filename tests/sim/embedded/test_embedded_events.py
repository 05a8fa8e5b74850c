"""Collision, off-road and lane-invasion events."""

import math

from roadtest.sim.embedded.events import Box, EventDetector, boxes_overlap, overlapping_pairs

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
