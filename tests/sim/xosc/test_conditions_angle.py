"""AngleCondition, RelativeAngleCondition and RelativeClearanceCondition on scenarios built here.

Expected outcomes are worked out by hand from the scene: a straight road along +x (lanes 2, 1 against s,
-1, -2 with s, 3.5 m wide), cars 5 m long with their box centre 1.5 m ahead of the reference point.
esmini (built from its public snapshot, these scenarios written out with a stop trigger at 0.3 s) starts
the same events in test_angle_condition_in_world_road_and_lane and in the clearance tests, except where
a lane range crosses the centre lane: esmini checks that the range exists by adding `from`/`to` to the
lane id (lane -1 + 1 = lane 0, no lane), roadtest counts lanes as RelativeLanePosition does (lane 0 is
not counted, so lane 1 is one to the left of lane -1).
"""

from __future__ import annotations

import math

import pytest
from xosc_docs import event, lane_teleport, load_engine, scenario, speed_action, trigger

from roadtest.errors import UserError
from roadtest.sim.xosc.storyboard import STANDBY

PI = f"{math.pi:.6f}"


def _cond(inner: str, who: str = "Ego") -> str:
    return trigger("StartTrigger", f"""<Condition name="c" delay="0" conditionEdge="none"><ByEntityCondition>
      <TriggeringEntities triggeringEntitiesRule="any"><EntityRef entityRef="{who}"/></TriggeringEntities>
      <EntityCondition>{inner}</EntityCondition></ByEntityCondition></Condition>""")


def fired(tmp_path, conditions: dict[str, str], init: str, steps: int = 2) -> dict[str, bool]:
    """Which of the events (name -> entity condition XML) left standby within `steps` ticks."""
    body = "".join(event(n, speed_action(5.0 + i), _cond(c)) for i, (n, c) in enumerate(conditions.items()))
    eng = load_engine(tmp_path, scenario(body, entities=("Ego", "Other"), init=init, rev_minor=3))
    for k in range(steps):
        eng.step(round(k * 0.05, 6))
    return {n: eng.element(n, "event").state != STANDBY for n in conditions}


def test_angle_condition_in_world_road_and_lane(tmp_path):
    """Ego in lane 1 drives against s: heading pi in the world and to the road's line, 0 to its lane."""
    a = '<AngleCondition angleType="{t}" angle="{a}" angleTolerance="{tol}" {cs}/>'
    got = fired(tmp_path, {
        "world_pi": a.format(t="heading", a=PI, tol="0.01", cs='coordinateSystem="world"'),
        "default_is_world": a.format(t="heading", a="0", tol="0.01", cs=""),
        "road_pi": a.format(t="heading", a=f"-{PI}", tol="0.01", cs='coordinateSystem="road"'),  # -pi is pi
        "lane_zero": a.format(t="heading", a="0", tol="0.01", cs='coordinateSystem="lane"'),
        "outside_tolerance": a.format(t="heading", a="0.2", tol="0.1", cs='coordinateSystem="lane"'),
        "inside_tolerance": a.format(t="heading", a="0.05", tol="0.1", cs='coordinateSystem="lane"'),
        "pitch_level": a.format(t="pitch", a="0", tol="0.01", cs='coordinateSystem="world"'),
        "entity_zero": a.format(t="heading", a="1", tol="0.1", cs='coordinateSystem="entity"'),
    }, lane_teleport("Ego", 1, 100, 10) + lane_teleport("Other", -1, 100, 10))
    assert got == {"world_pi": True, "default_is_world": False, "road_pi": True, "lane_zero": True,
                   "outside_tolerance": False, "inside_tolerance": True, "pitch_level": True, "entity_zero": False}


def test_relative_angle_condition(tmp_path):
    """Ego (lane -1, heading 0) and Other (lane 1, heading pi): pi apart in the world, 0 apart to their lanes."""
    r = '<RelativeAngleCondition entityRef="Other" angleType="heading" angle="{a}" angleTolerance="0.01" {cs}/>'
    got = fired(tmp_path, {
        "opposed": r.format(a=PI, cs=""),
        "not_parallel": r.format(a="0", cs=""),
        "same_to_lanes": r.format(a="0", cs='coordinateSystem="lane"'),
    }, lane_teleport("Ego", -1, 100, 10) + lane_teleport("Other", 1, 120, 10))
    assert got == {"opposed": True, "not_parallel": False, "same_to_lanes": True}


def test_relative_angle_condition_needs_a_known_entity(tmp_path):
    text = scenario(event("e", speed_action(5), _cond(
        '<RelativeAngleCondition entityRef="Nobody" angleType="heading" angle="0" angleTolerance="0.1"/>')),
        entities=("Ego", "Other"), init=lane_teleport("Ego", -1, 10), rev_minor=3)
    with pytest.raises(UserError, match="Nobody"):
        load_engine(tmp_path, text)


def clearance(fwd: float, back: float, lo: int | None, hi: int | None, free: bool, opposite: bool) -> str:
    rng = "" if lo is None else f'<RelativeLaneRange from="{lo}" to="{hi}"/>'
    return (f'<RelativeClearanceCondition distanceForward="{fwd}" distanceBackward="{back}" '
            f'freeSpace="{str(free).lower()}" oppositeLanes="{str(opposite).lower()}">{rng}</RelativeClearanceCondition>')


def test_relative_clearance_condition(tmp_path):
    """Ego in lane -1 at s=50, Other one lane to its right (lane -2) 5 m ahead (reference points).

    Between the boxes the gap is 5 - (2.5 + 1.5) - (2.5 - 1.5) = 0 m. Lane 1, to Ego's left, runs the other way.
    """
    got = fired(tmp_path, {
        "right_lane_taken": clearance(10, 10, -1, -1, False, False),
        "right_lane_beyond_reach": clearance(3, 10, -1, -1, False, False),
        "right_lane_boxes_touch": clearance(3, 10, -1, -1, True, False),
        "left_only_opposite_lanes": clearance(10, 10, 1, 1, False, False),
        "left_opposite_counted_free": clearance(10, 10, 1, 1, False, True),
        "any_lane_taken": clearance(10, 10, None, None, False, True),
        "other_behind_not_reached": clearance(0, 30, -1, -1, False, False),
    }, lane_teleport("Ego", -1, 50, 0) + lane_teleport("Other", -2, 55, 0))
    assert got == {"right_lane_taken": False, "right_lane_beyond_reach": True, "right_lane_boxes_touch": False,
                   "left_only_opposite_lanes": False, "left_opposite_counted_free": True, "any_lane_taken": False,
                   "other_behind_not_reached": True}


@pytest.mark.parametrize("listed, clear", [("Ego", False), ("Third", True)])
def test_relative_clearance_only_counts_the_listed_entities(tmp_path, listed, clear):
    """Other (lane -1) has Ego beside it in lane -2 and Third far ahead: only the listed one counts."""
    cond = ('<RelativeClearanceCondition distanceForward="10" distanceBackward="10" freeSpace="false" '
            f'oppositeLanes="false"><RelativeLaneRange from="-1" to="-1"/><EntityRef entityRef="{listed}"/>'
            "</RelativeClearanceCondition>")
    body = event("e", speed_action(5.0), _cond(cond, who="Other"))
    eng = load_engine(tmp_path, scenario(body, entities=("Ego", "Other", "Third"), rev_minor=3, init=(
        lane_teleport("Ego", -2, 50) + lane_teleport("Other", -1, 50) + lane_teleport("Third", -2, 200))))
    eng.step(0.0)
    eng.step(0.05)
    assert (eng.element("e", "event").state != STANDBY) is clear


def test_relative_clearance_on_one_side_of_the_road(tmp_path):
    """Ego in lane -2 at s=50, Other in lane -1 (to Ego's left) 5 m ahead; no lane to Ego's right. esmini agrees."""
    got = fired(tmp_path, {
        "left_taken": clearance(10, 10, 1, 1, False, False),
        "right_missing": clearance(10, 10, -1, -1, False, False),
        "left_beyond_reach": clearance(3, 10, 1, 1, False, False),
        "both_sides": clearance(3, 10, -1, 1, False, False),
    }, lane_teleport("Ego", -2, 50, 0) + lane_teleport("Other", -1, 55, 0))
    assert got == {"left_taken": False, "right_missing": False, "left_beyond_reach": True, "both_sides": True}


def test_speed_conditions_by_direction(tmp_path):
    """Ego 10 m/s along +x, Other 6 m/s against it (lane 1). A relative speed is taken in the reference's frame
    (esmini's rule): Ego's velocity seen along Other's axis is -10, minus Other's 6: -16; sideways 0. Ego's own
    speed is all longitudinal. esmini starts the same events."""
    sp = '<SpeedCondition value="{v}" rule="{r}" direction="{d}"/>'
    rs = '<RelativeSpeedCondition entityRef="Other" value="{v}" rule="{r}" direction="{d}"/>'
    got = fired(tmp_path, {
        "lon": sp.format(v=9.9, r="greaterThan", d="longitudinal"),
        "lat": sp.format(v=0.1, r="lessThan", d="lateral"),
        "vert_fast": sp.format(v=0.1, r="greaterThan", d="vertical"),
        "rel_lon": rs.format(v=-15.9, r="lessThan", d="longitudinal"),
        "rel_lon_not_less": rs.format(v=-16.1, r="lessThan", d="longitudinal"),
        "rel_lat": rs.format(v=0.1, r="lessThan", d="lateral"),
    }, lane_teleport("Ego", -1, 100, 10) + lane_teleport("Other", 1, 200, 6), steps=1)
    assert got == {"lon": True, "lat": True, "vert_fast": False, "rel_lon": True, "rel_lon_not_less": False,
                   "rel_lat": True}
