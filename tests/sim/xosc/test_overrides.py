"""OverrideControllerValueAction: a driver's pedals, steering wheel and gear override the agent's control."""

from __future__ import annotations

import math

import pytest
from lxml import etree
from xosc_docs import event, lane_teleport, scenario, sim_time, speed_action, straight_road, trigger

from roadtest.bundle import load_bundle
from roadtest.sim.api import Control, SimSettings
from roadtest.sim.embedded.simulator import EmbeddedSimulation
from roadtest.sim.xosc.overrides import STEERING_RATIO, apply_overrides, parse_overrides

TICK = 0.05


def _ov(inner: str) -> etree._Element:
    return etree.fromstring(f"<OverrideControllerValueAction>{inner}</OverrideControllerValueAction>")


def test_parse_sets_releases_and_keeps():
    ov = parse_overrides(_ov('<Throttle active="true" value="0.3"/><Brake active="true"><BrakePercent value="0.6"/>'
                             '</Brake><Gear active="true"><ManualGear number="-1"/></Gear>'), {})
    assert ov == {"Throttle": 0.3, "Brake": 0.6, "Gear": "r"}
    # a later action releases the throttle, leaves the brake as it was, and sets the steering wheel
    ov = parse_overrides(_ov('<Throttle active="false" value="0"/><SteeringWheel active="true" value="1.5"/>'), ov)
    assert ov == {"Brake": 0.6, "Gear": "r", "SteeringWheel": 1.5}


def test_brake_force_is_a_fraction_of_the_full_brake():
    """1500 kg braking at most 9 m/s^2 needs 13500 N: 6750 N is half the pedal."""
    ov = parse_overrides(_ov('<Brake active="true"><BrakeForce value="6750"/></Brake>'), {}, mass=1500, max_decel=9)
    assert ov["Brake"] == pytest.approx(0.5)


def test_apply_turns_the_steering_wheel_into_a_leaderboard_steer():
    """1.5 rad of wheel to the left is 0.1 rad at the road wheels: with 0.5 rad of lock, steer -0.2 (CARLA: + right)."""
    c = apply_overrides(Control(throttle=0.7, steer=0.3), {"SteeringWheel": 1.5}, max_steer=0.5)
    assert c.steer == pytest.approx(-1.5 / STEERING_RATIO / 0.5) and c.throttle == 0.7
    c = apply_overrides(Control(throttle=0.7), {"Gear": "p"}, max_steer=0.5)
    assert (c.throttle, c.hand_brake) == (0.0, True)
    assert apply_overrides(Control(throttle=0.7), {"Clutch": 1.0}, max_steer=0.5).throttle == 0.0


# an event that never starts keeps the storyboard, and so the run, going
LATER = event("later", speed_action(1.0), trigger("StartTrigger", sim_time(100.0, rule="greaterOrEqual")))


def _override(inner: str) -> str:
    return f"<PrivateAction><ControllerAction><OverrideControllerValueAction>{inner}</OverrideControllerValueAction>" \
           "</ControllerAction></PrivateAction>"


def test_a_drivers_brake_overrides_the_agent_then_hands_back(tmp_path):
    """The agent holds full throttle; from 1 s to 2 s the override brakes fully, then releases both pedals."""
    body = (event("brake", _override('<Throttle active="true" value="0"/><Brake active="true" value="1"/>'),
                  trigger("StartTrigger", sim_time(1.0, rule="greaterOrEqual")))
            + event("release", _override('<Throttle active="false" value="0"/><Brake active="false" value="0"/>'),
                    trigger("StartTrigger", sim_time(2.0, rule="greaterOrEqual"))) + LATER)
    (tmp_path / "road.xodr").write_text(straight_road())
    text = scenario(body, init=lane_teleport("Ego", -1, 20, 15.0))
    (tmp_path / "s.xosc").write_text(text.replace("<RoadNetwork/>",
                                                  '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>'))
    sim = EmbeddedSimulation(load_bundle(tmp_path / "s.xosc"), seed=0, settings=SimSettings(tick=TICK, traffic=False))
    v = {}
    for _ in range(int(3.0 / TICK)):
        st = sim.step(Control(throttle=1.0))
        v[round(st.time, 2)] = st.actor("Ego").speed
    assert v[0.9] > v[0.5] > 15.0  # the agent accelerates
    assert v[1.9] < v[1.2] - 3.0  # full brake for most of a second: well over 3 m/s shed
    assert v[2.9] > v[2.2]  # released: the agent's throttle drives again
    sim.close()


def test_a_storyboard_driven_entity_keeps_its_speed_and_records_the_override(tmp_path):
    """As in esmini, the default controller reads no overrides: the entity keeps its speed; the values are kept."""
    from xosc_docs import load_engine

    body = event("brake", _override('<Brake active="true" value="1"/>'),
                 trigger("StartTrigger", sim_time(0.0, rule="greaterOrEqual", edge="none"))) + LATER
    eng = load_engine(tmp_path, scenario(body, init=lane_teleport("Ego", -1, 20, 10.0)))
    for k in range(10):
        eng.step(round(k * TICK, 6))
    e = eng.entities["Ego"]
    assert e.speed == pytest.approx(10.0) and e.properties["override.Brake"] == "1.0"
    assert eng.overrides["Ego"] == {"Brake": 1.0}
    assert math.isclose(e.x, 20 + 10.0 * 10 * TICK, abs_tol=0.6)


def test_an_openscenario_1_0_controller_action_runs_both_of_its_actions(tmp_path):
    """1.0's ControllerAction holds AssignControllerAction and OverrideControllerValueAction together: both run."""
    from xosc_docs import load_engine

    both = """<PrivateAction><ControllerAction><AssignControllerAction><Controller name="c"><Properties/></Controller>
      </AssignControllerAction><OverrideControllerValueAction><Throttle active="true" value="0.4"/>
      <Brake active="false" value="0"/><Clutch active="false" value="0"/><ParkingBrake active="false" value="0"/>
      <SteeringWheel active="false" value="0"/><Gear active="false" number="0"/></OverrideControllerValueAction>
      </ControllerAction></PrivateAction>"""
    body = event("ctl", both, trigger("StartTrigger", sim_time(0.0, rule="greaterOrEqual", edge="none"))) + LATER
    eng = load_engine(tmp_path, scenario(body, init=lane_teleport("Ego", -1, 20, 10.0)))
    eng.step(0.0)
    assert eng.overrides["Ego"] == {"Throttle": 0.4}
