"""LateralDistanceAction: gap to the reference, speed kept while moving sideways, the spring and when it ends."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from lxml import etree

from roadtest.sim.api import LanePos
from roadtest.sim.xosc.actions import RuntimeAction
from roadtest.sim.xosc.motion import Motion
from roadtest.sim.xosc.storyboard import COMPLETE

from xosc_docs import event, lane_teleport, scenario, sim_time, trigger, load_engine

TICK = 0.05


def engine(tmp_path, text):
    return load_engine(tmp_path, text, 1000.0, TICK)


def lat_distance(distance: float, *, continuous: bool = False, freespace: bool = False,
                 side: str = "leftToReferencedEntity", constraints: str = "") -> str:
    return f"""<PrivateAction><LateralAction><LateralDistanceAction entityRef="Ref" continuous="{str(continuous).lower()}"
      freespace="{str(freespace).lower()}" distance="{distance}" displacement="{side}" coordinateSystem="road">
      {constraints}</LateralDistanceAction></LateralAction></PrivateAction>"""


def run(eng, n, start=0):
    for k in range(start, start + n):
        eng.step(round(k * TICK, 9))
    return start + n


def two_cars(tmp_path, action: str, ego_lane: int = -1):
    body = event("ld", action, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    init = lane_teleport("Ego", ego_lane, 50, 20) + lane_teleport("Ref", -2, 50, 20)
    stop = trigger("StopTrigger", sim_time(100.0))  # the run goes on after the action has ended
    return engine(tmp_path, scenario(body, entities=("Ego", "Ref"), init=init, rev_minor=1, stop=stop))


def test_speed_limited_move_keeps_the_speed_and_turns_the_heading(tmp_path):
    eng = two_cars(tmp_path, lat_distance(1.0, constraints='<DynamicConstraints maxSpeed="2.0"/>'))
    e = eng.entities["Ego"]
    k = run(eng, 3)  # the first tick only measures
    x0, y0 = e.x, e.y
    run(eng, 1, k)
    dx, dy = e.x - x0, e.y - y0
    assert dy == pytest.approx(-2.0 * TICK, abs=1e-6)  # towards Ref on the right at maxSpeed
    assert math.hypot(dx, dy) == pytest.approx(20.0 * TICK, abs=1e-6)  # the sideways part comes out of the progress
    assert e.h == pytest.approx(math.atan2(dy, dx), abs=1e-6)  # it faces the way it moves
    run(eng, 80, k + 1)
    assert e.lane.t - eng.entities["Ref"].lane.t == pytest.approx(1.0, abs=1e-9)
    assert el(eng, "ld").state == COMPLETE and e.h == pytest.approx(0.0, abs=1e-9)  # straight on again


def el(eng, name):
    return next(x for x in eng.elements if x.name == name)


def test_spring_ends_within_a_centimetre_and_the_continuous_one_keeps_going(tmp_path):
    eng = two_cars(tmp_path, lat_distance(0.5, freespace=True, side="rightToReferencedEntity",
                                          constraints='<DynamicConstraints maxAcceleration="5.0"/>'), ego_lane=-1)
    e, r = eng.entities["Ego"], eng.entities["Ref"]
    k, ended = 0, None
    while ended is None and k < 400:
        k = run(eng, 1, k)
        if el(eng, "ld").state == COMPLETE:
            ended = k
    want = -(0.5 + (e.width + r.width) / 2)  # right of Ref, freespace adds the half widths
    assert ended is not None and abs(e.lane.t - r.lane.t - want) < 0.011
    t_end, x_end = e.lane.t, e.x
    run(eng, 20, k)
    assert e.lane.t == pytest.approx(t_end, abs=1e-9)  # a finished action moves it no more
    assert e.x - x_end == pytest.approx(20 * 20.0 * TICK, abs=1e-6)
    assert e.speed == pytest.approx(20.0)

    eng = two_cars(tmp_path, lat_distance(0.5, continuous=True, side="rightToReferencedEntity",
                                          constraints='<DynamicConstraints maxAcceleration="5.0"/>'), ego_lane=-1)
    run(eng, 400)
    e, r = eng.entities["Ego"], eng.entities["Ref"]
    assert el(eng, "ld").state != COMPLETE and e.lane.t - r.lane.t == pytest.approx(-0.5, abs=1e-4)


def _fake(ref_xy, ref_t, ego_t, h=0.0):
    """A minimal engine view for stepping the action alone: Ego and Ref on one straight lane."""
    ents = {"Ego": SimpleNamespace(name="Ego", x=0.0, y=ego_t, h=0.0, speed=20.0, width=2.0,
                                   lane=LanePos("1", -1, 0.0, ego_t)),
            "Ref": SimpleNamespace(name="Ref", x=ref_xy[0], y=ref_xy[1], h=h, speed=20.0, width=2.0,
                                   lane=LanePos("1", -1, 0.0, ref_t))}
    mots = {"Ego": Motion(road="1", lane=-1), "Ref": Motion(road="1", lane=-1)}
    return SimpleNamespace(entities=ents, motions=mots, time=0.0)


def test_spring_damps_the_speed_relative_to_the_reference_sideways_speed():
    xml = etree.fromstring(lat_distance(1.0, continuous=True, constraints='<DynamicConstraints maxAcceleration="5.0"/>'))
    ra = RuntimeAction(xml.find(".//LateralDistanceAction"), "LateralDistanceAction", "Ego", None)
    vr = 0.5  # m/s: Ref slides left without turning (its own frame's lateral axis)
    ref_t, ego_t = 0.0, 1.0  # Ego starts exactly at the wanted gap
    c = _fake((0.0, ref_t), ref_t, ego_t)
    ra.start(c)
    errs = []
    for k in range(200):
        c.entities["Ref"].y, c.entities["Ref"].lane = ref_t, LanePos("1", -1, 0.0, ref_t)
        c.entities["Ego"].lane = LanePos("1", -1, 0.0, ego_t)
        ra.step(c, TICK)
        ego_t += c.motions["Ego"].side_step
        c.motions["Ego"].side_step = 0.0
        errs.append(ego_t - ref_t - 1.0)
        ref_t += vr * TICK
    # damping the absolute speed would leave a steady lag of 2 * vr / sqrt(0.4 * 5) = 0.71 m; the relative one
    # leaves only the tick it reacts late (vr * TICK = 0.025 m)
    assert abs(errs[-1]) < 0.03 and max(abs(x) for x in errs) < 0.2


def test_lateral_freespace_of_a_turned_box_is_its_nearest_corner():
    from roadtest.sim.xosc.conditions import rel_distance

    ego = SimpleNamespace(x=0.0, y=0.0, h=0.0, length=5.0, width=2.0, bbox_cx=1.5, lane=None)
    ref = SimpleNamespace(x=0.0, y=4.0, h=-0.1, length=5.0, width=2.0, bbox_cx=1.5, lane=None)  # turned towards Ego
    c, s = math.cos(ref.h), math.sin(ref.h)
    corners_y = [ref.y + (ref.bbox_cx + lx * ref.length / 2) * s + ly * ref.width / 2 * c
                 for lx in (-1, 1) for ly in (-1, 1)]
    assert rel_distance(None, ego, ref, "lateral", True, "entity") == pytest.approx(min(corners_y) - ego.width / 2)
