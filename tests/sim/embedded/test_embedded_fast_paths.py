"""The tick's fast paths give what the plain versions give: broad-phase collisions, lane poses, LanePos/Box builders."""

import math
import random

import pytest

from roadtest.sim.api import ActorState, LanePos
from roadtest.sim.events import Box, EventDetector, boxes_overlap, make_box, overlapping_pairs
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


def _plain_project(ln, x, y, s_guess, reach=8):
    """The lane projection written plainly: every segment of the window, the nearest foot kept (first on ties)."""
    import bisect

    i0 = bisect.bisect_right(ln.s, s_guess) - 1
    cands = []
    for i in range(max(0, i0 - reach), min(len(ln.s) - 1, i0 + reach + 1)):
        ax, ay, bx, by = ln.x[i], ln.y[i], ln.x[i + 1], ln.y[i + 1]
        L2 = (bx - ax) * (bx - ax) + (by - ay) * (by - ay)
        u = ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / L2 if L2 > 0 else 0.0
        uc = min(1.0, max(0.0, u))
        cands.append(((x - (ax + uc * (bx - ax))) ** 2 + (y - (ay + uc * (by - ay))) ** 2, i, u, uc))
    d2, i, u, uc = min(cands, key=lambda c: c[0])
    if (u < 0.0 and i == 0) or (u > 1.0 and i == len(ln.s) - 2) or u != uc and i in (i0 - reach, i0 + reach):
        return None
    return ln.s[i] + uc * (ln.s[i + 1] - ln.s[i]), i


@pytest.mark.parametrize("seed", range(4))
def test_the_lane_projection_finds_the_segment_a_plain_search_finds(seed):
    rng = random.Random(seed)
    table = LaneTable(FakeStraightRoads(length=300.0, nr=2))
    ext = table.extent("1", -1)
    ln = table.lane("1", -1, ext)
    # bend the tabulated centre into an S so that neighbouring segments compete for the nearest foot
    ln.y = [y + 4.0 * math.sin(s / 9.0) for s, y in zip(ln.s, ln.y)]
    hits = misses = 0
    for _ in range(400):
        s_guess = rng.uniform(-2.0, 302.0)
        x, y = s_guess + rng.uniform(-6.0, 6.0), -1.75 + 4.0 * math.sin(s_guess / 9.0) + rng.uniform(-3.0, 3.0)
        got = table.project("1", -1, ext, x, y, s_guess)
        want = _plain_project(ln, x, y, s_guess)
        if want is None:
            assert got is None
            misses += 1
        else:
            assert got is not None and got[0] == want[0]
            hits += 1
    assert hits > 100 and misses > 10  # both outcomes exercised


def test_the_tick_builds_frozen_states_equal_to_the_dataclass_constructors():
    from dataclasses import FrozenInstanceError, fields

    from roadtest.sim.api import Control, SimSettings, WorldState
    from roadtest.sim.embedded.dynamics import BicycleParams, BicycleState, step_bicycle
    from roadtest.sim.embedded.simulator import EmbeddedSimulation

    from embedded_fakes import FakeEngine, FakeEntity

    nxt = step_bicycle(BicycleState(1.0, 2.0, 0.3, 8.0), Control(throttle=0.4, steer=-0.2), BicycleParams(), 0.05)
    assert nxt == BicycleState(**{f.name: getattr(nxt, f.name) for f in fields(BicycleState)}) and nxt.steer > 0
    with pytest.raises(FrozenInstanceError):
        nxt.x = 0.0

    class _Bundle:
        meta, xodr, id = {}, None, "fake"

    net = FakeStraightRoads(length=1000.0, nr=3)
    eng = FakeEngine(net, [FakeEntity("hero", role="ego", x=50.0, y=-5.25, speed=10.0),
                           FakeEntity("lead", x=100.0, y=-5.25, speed=5.0)])
    sim = EmbeddedSimulation(_Bundle(), 0, SimSettings(), engine=eng)
    for _ in range(3):
        st = sim.step(Control(throttle=0.3))
    assert st == WorldState(**{f.name: getattr(st, f.name) for f in fields(WorldState)})
    ego = st.ego
    assert ego.lane is not None and ego.lane.lane == -2 and ego.lane.s == pytest.approx(ego.x, abs=1e-6)
    assert [a.id for a in st.actors] == ["hero", "lead"]
    with pytest.raises(FrozenInstanceError):
        st.frame = 0


def test_the_egos_tracked_lane_match_is_what_the_map_locates():
    from dataclasses import fields

    from roadtest.sim.api import Control, SimSettings
    from roadtest.sim.embedded.simulator import EmbeddedSimulation
    from roadtest.sim.road.api import LaneMatch

    from embedded_fakes import FakeEngine, FakeEntity

    class _Bundle:
        meta, xodr, id = {}, None, "fake"

    net = FakeStraightRoads(length=1000.0, nr=3)
    sim = EmbeddedSimulation(_Bundle(), 0, SimSettings(), engine=FakeEngine(net, [FakeEntity("hero", role="ego", x=50.0,
                                                                                              y=-5.25, speed=10.0)]))
    for _ in range(4):
        st = sim.step(Control(throttle=0.5, steer=0.05))
        m = sim._track(st.ego)
        assert m is not None and m == LaneMatch(**{f.name: getattr(m, f.name) for f in fields(LaneMatch)})
        want = net.locate(st.ego.x, st.ego.y, st.ego.h)
        assert (m.road, m.lane, m.lane_type, m.on_road) == (want.road, want.lane, want.lane_type, want.on_road)
        assert (m.s, m.t, m.offset, m.heading_diff) == pytest.approx((want.s, want.t, want.offset, want.heading_diff),
                                                                     abs=1e-6)
