"""A point past the end of a road is not on it, however well its lateral offset fits a lane."""

from __future__ import annotations

import numpy as np

from roadtest.sim.road import load_map


def test_past_the_end_of_a_road_is_off_road(conformance_dir):
    net = load_map(conformance_dir / "esmini/resources/xodr/straight_500m.xodr")
    road = net.road_ids()[0]
    length = net.road_length(road)
    lane = next(i for i in net.lane_ids(road, 0.0) if net.lane_type(road, i, 0.0) == "driving")
    inside = net.lane_to_world(road, lane, length - 2.0)
    assert net.locate(inside.x, inside.y).on_road
    end = net.lane_to_world(road, lane, length)
    dx, dy = np.cos(end.h) * net.lane_direction(road, lane), np.sin(end.h) * net.lane_direction(road, lane)
    near = net.locate(end.x + 3.0 * dx, end.y + 3.0 * dy)  # 3 m past the end: found, but off the road
    assert near is not None and not near.on_road
    assert net.locate(end.x + 300.0 * dx, end.y + 300.0 * dy) is None  # far past it: nowhere
    many = net.locate_many(np.array([[inside.x, inside.y], [end.x + 3.0 * dx, end.y + 3.0 * dy]]))
    assert [m.on_road for m in many] == [True, False]
