"""Files written for scenario_runner, read as it reads them. A header description starting with "CARLA:" puts the
file in CARLA's left-handed frame (OpenScenarioParser.convert_position_to_transform negates y and yaw only for files
without the prefix) and in scenario_runner's reading of a step SpeedAction (it lasts its dynamics' time or distance);
conditions named criteria_* are its test criteria, not storyboard conditions. Every other file is read as written."""

from __future__ import annotations

import math

import pytest
from xosc_docs import event, load_engine, scenario, speed_action, trigger

# the straight test road runs along +x; lane -1 (right, with s) spans y in [-3.5, 0], lane -2 [-7, -3.5]
INIT = """<Private entityRef="Ego"><PrivateAction><TeleportAction><Position>
  <WorldPosition x="50" y="1.75" z="0" h="-0.2"/></Position></TeleportAction></PrivateAction></Private>
<Private entityRef="B"><PrivateAction><TeleportAction><Position>
  <RelativeObjectPosition entityRef="Ego" dx="0" dy="3.5"/></Position></TeleportAction></PrivateAction></Private>
<Private entityRef="C"><PrivateAction><TeleportAction><Position>
  <RoadPosition roadId="1" s="80" t="1.75"><Orientation type="absolute" h="0.3"/></RoadPosition></Position>
  </TeleportAction></PrivateAction></Private>"""


def _placed(tmp_path, description: str):
    text = scenario("", entities=("Ego", "B", "C"), init=INIT).replace('description="test"',
                                                                        f'description="{description}"')
    eng = load_engine(tmp_path, text)
    return {n: (e.x, e.y, e.h) for n, e in eng.entities.items()}


def test_a_carla_file_is_mirrored_into_the_opendrive_frame(tmp_path):
    got = _placed(tmp_path, "CARLA:FollowLeadingVehicle")
    # CARLA's y = +1.75 (right of the x axis there) is OpenDRIVE's y = -1.75: lane -1; yaw -0.2 is heading +0.2
    assert got["Ego"] == pytest.approx((50.0, -1.75, 0.2))
    # dy = +3.5 (to CARLA's right, the ego's right) puts B a lane further right: y = -1.75 - 3.5 * cos(0.2)
    assert got["B"][:2] == pytest.approx((50.0 + 3.5 * math.sin(0.2), -1.75 - 3.5 * math.cos(0.2)))
    # t = +1.75 in CARLA's frame is right of the reference line; its yaw 0.3 is heading -0.3
    assert got["C"] == pytest.approx((80.0, -1.75, -0.3))


def test_a_file_without_the_prefix_is_read_as_the_standard_says(tmp_path):
    got = _placed(tmp_path, "FollowLeadingVehicle")
    assert got["Ego"] == pytest.approx((50.0, 1.75, -0.2))
    assert got["C"] == pytest.approx((80.0, 1.75, 0.3))


def _second_event_after_first(tmp_path, description: str) -> list[tuple[float, float]]:
    """Ego starts still; event 1 sets 10 m/s as a step with 20 m of distance dynamics; event 2, when event 1's action
    ends, stops it. Returns (time, x) per tick."""
    first = event("go", speed_action(10.0, "step", "distance", 20.0), trigger("StartTrigger", """<Condition name="c"
      delay="0" conditionEdge="none"><ByValueCondition><SimulationTimeCondition value="0" rule="greaterOrEqual"/>
      </ByValueCondition></Condition>"""))
    second = event("halt", speed_action(0.0), trigger("StartTrigger", """<Condition name="d" delay="0"
      conditionEdge="none"><ByValueCondition><StoryboardElementStateCondition storyboardElementType="action"
      storyboardElementRef="go_action" state="endTransition"/></ByValueCondition></Condition>"""))
    init = """<Private entityRef="Ego"><PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-1"
      s="10" offset="0"/></Position></TeleportAction></PrivateAction></Private>"""
    text = scenario(first + second, init=init).replace('description="test"', f'description="{description}"')
    eng = load_engine(tmp_path, text)
    out = []
    for k in range(80):
        eng.step(round(k * 0.05, 6))
        out.append((round((k + 1) * 0.05, 6), eng.entities["Ego"].x))
    return out


def test_a_step_speed_action_lasts_its_distance_in_scenario_runners_reading(tmp_path):
    xs = [x for _, x in _second_event_after_first(tmp_path, "CARLA:Lead")]
    # 10 m/s held until 20 m are driven, then the stop: the car comes to rest 20 m (+ at most one tick) from s=10
    assert xs[-1] - 10.0 == pytest.approx(20.0, abs=10.0 * 0.05 + 1e-6)
    assert xs[-1] == xs[-2]


def test_a_step_speed_action_ends_at_once_by_the_standard(tmp_path):
    xs = [x for _, x in _second_event_after_first(tmp_path, "Lead")]
    assert xs[-1] - 10.0 < 1.0  # the stop follows in the same or next tick: the car hardly moves


def test_criteria_conditions_are_reported_not_evaluated_as_triggers(tmp_path):
    stop = """<StopTrigger><ConditionGroup>
      <Condition name="criteria_CollisionTest" delay="0" conditionEdge="rising"><ByValueCondition>
        <ParameterCondition parameterRef="" value="" rule="lessThan"/></ByValueCondition></Condition>
      <Condition name="criteria_DrivenDistanceTest" delay="0" conditionEdge="rising"><ByValueCondition>
        <ParameterCondition parameterRef="distance_success" value="100" rule="lessThan"/></ByValueCondition></Condition>
    </ConditionGroup></StopTrigger>"""
    text = scenario("", stop=stop).replace('description="test"', 'description="CARLA:Criteria"')
    eng = load_engine(tmp_path, text)  # before: "ParameterCondition.parameterRef: missing"
    assert [(c.name, c.argument, c.value) for c in eng.sc.criteria] == [
        ("CollisionTest", "", 0.0), ("DrivenDistanceTest", "distance_success", 100.0)]
    assert any("criteria" in w and "CollisionTest" in w for w in eng.warnings)
    for k in range(20):  # the emptied stop trigger never fires
        eng.step(round(k * 0.05, 6))
    assert not eng.finished


def _act_started(tmp_path, description: str) -> bool:
    """The act's start group: SimulationTime == 0 AND the ego has travelled 1 m (true only later, at 5 m/s)."""
    start = """<StartTrigger><ConditionGroup>
      <Condition name="moved" delay="0" conditionEdge="rising"><ByEntityCondition><TriggeringEntities
        triggeringEntitiesRule="any"><EntityRef entityRef="Ego"/></TriggeringEntities><EntityCondition>
        <TraveledDistanceCondition value="1.0"/></EntityCondition></ByEntityCondition></Condition>
      <Condition name="at0" delay="0" conditionEdge="rising"><ByValueCondition>
        <SimulationTimeCondition value="0" rule="equalTo"/></ByValueCondition></Condition>
    </ConditionGroup></StartTrigger>"""
    init = """<Private entityRef="Ego"><PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-1"
      s="10" offset="0"/></Position></TeleportAction></PrivateAction>""" + speed_action(5.0) + "</Private>"
    body = event("faster", speed_action(15.0), trigger("StartTrigger", """<Condition name="c" delay="0"
      conditionEdge="none"><ByValueCondition><SimulationTimeCondition value="0" rule="greaterOrEqual"/>
      </ByValueCondition></Condition>"""))
    text = scenario(body, init=init, act_start=start).replace('description="test"', f'description="{description}"')
    eng = load_engine(tmp_path, text)
    for k in range(40):
        eng.step(round(k * 0.05, 6))
    return eng.entities["Ego"].speed > 10.0


def test_conditions_latch_in_scenario_runners_reading(tmp_path):
    assert _act_started(tmp_path, "CARLA:Latch")  # t == 0 was true once, 1 m travelled later: the group fires


def test_conditions_hold_together_by_the_standard(tmp_path):
    assert not _act_started(tmp_path, "Latch")  # never both true at one tick
