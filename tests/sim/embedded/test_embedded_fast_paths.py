"""The tick's fast paths give what the plain versions give: broad-phase collisions, lane poses, LanePos/Box builders."""

import math
import random

import pytest

from roadtest.sim.api import ActorState, LanePos
from roadtest.sim.embedded.events import Box, EventDetector, boxes_overlap, make_box, overlapping_pairs
from roadtest.sim.embedded.lanes import LaneTable, lane_pose, make_lanepos

from embedded_fakes import FakeStraightRoads


def _brute_pairs(boxes):
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes_overlap(boxes[i], boxes[j])]


@pytest.mark.parametrize("seed", range(6))
def test_the_broad_phase_finds_exactly_the_pairs_the_exact_test_finds(seed):
    rng = random.Random(seed)
    # A crowded 40 m square of mixed sizes and headings: many near misses, some overlaps, a few duplicates.
    boxes = [Box(str(k), rng.uniform(0, 40), rng.uniform(0, 40), rng.uniform(-math.pi, math.pi),
                 rng.choice((0.5, 4.5, 8.0, 12.0)), rng.choice((0.6, 1.8, 2.5))) for k in range(120)]
    boxes.append(Box("copy", boxes[0].x, boxes[0].y, boxes[0].h, boxes[0].length, boxes[0].width))
    found = overlapping_pairs(boxes)
    assert found == _brute_pairs(boxes)
    assert 0 < len(found) < len(boxes) * (len(boxes) - 1) // 2


def test_boxes_touching_edge_to_edge_on_axis_and_rotated_still_count():
    a = Box("a", 0.0, 0.0, 0.0, 4.0, 2.0)
    assert overlapping_pairs([a, Box("b", 4.0, 0.0, 0.0, 4.0, 2.0)]) == [(0, 1)]  # rear touches front
    assert overlapping_pairs([a, Box("c", 0.0, 2.0, math.pi, 4.0, 2.0)]) == [(0, 1)]  # side by side, touching
    assert overlapping_pairs([a, Box("d", 0.0, 2.01, 0.0, 4.0, 2.0)]) == []


def test_actor_states_serve_as_boxes_for_the_detector():
    det = EventDetector()
    hero = ActorState("hero", "ego", "car", 0.0, 0.0, 0.0, 0.0, 5.0, vx=5.0, length=4.0, width=2.0)
    other = ActorState("x", "background", "truck", 5.0, 0.5, 0.0, 0.2, 0.0, length=8.0, width=2.5)
    new, current = det.collisions([other, hero], first="hero")
    assert [(e.actor, e.other, e.data["other_kind"]) for e in new] == [("hero", "x", "truck")]
    assert new[0].data["relative_speed"] == pytest.approx(5.0)


def test_builders_make_values_equal_to_the_dataclasses():
    assert make_lanepos("7", -2, 12.5, -5.25) == LanePos("7", -2, 12.5, -5.25)
    assert hash(make_lanepos("7", -2, 12.5, -5.25)) == hash(LanePos("7", -2, 12.5, -5.25))
    assert make_box("a", 1.0, 2.0, 0.3, 4.0, 2.0, 1.0, 0.5, "bus") == Box("a", 1.0, 2.0, 0.3, 4.0, 2.0, 1.0, 0.5, "bus")
    with pytest.raises(AttributeError):
        make_lanepos("7", -2, 1.0, 0.0).s = 3.0  # still frozen


def test_lane_pose_on_a_fetched_lane_is_the_tables_pose():
    net = FakeStraightRoads(length=300.0, nr=2)
    table = LaneTable(net)
    ext = table.extent("1", -2)
    ln = table.lane("1", -2, ext)
    for s, off in ((0.0, 0.0), (17.3, 0.0), (150.25, 1.2), (299.9, -0.4), (300.0, 0.0)):
        assert lane_pose(ln, s, off) == table.pose("1", -2, ext, s, off)
    x, y, _, h, t = lane_pose(ln, 100.0)
    p = net.lane_to_world("1", -2, 100.0)
    assert (x, y) == pytest.approx((p.x, p.y)) and h == pytest.approx(p.h)
