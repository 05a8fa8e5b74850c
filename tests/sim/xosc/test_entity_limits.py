"""Entity performance limits: a Vehicle's Performance caps its speed changes; a Pedestrian (no Performance) is uncapped."""

from __future__ import annotations

import pytest

from roadtest.sim.xosc.engine import ScenarioEngine

from xosc_docs import VEHICLE, event, scenario, sim_time, speed_action, teleport, trigger

TICK = 0.05
PEDESTRIAN = """<Pedestrian name="walker" mass="80" pedestrianCategory="pedestrian" model="walker">
  <BoundingBox><Center x="0" y="0" z="0.9"/><Dimensions width="0.5" length="0.6" height="1.8"/></BoundingBox>
  <Properties/></Pedestrian>"""


def _speed_after(tmp_path, body_xml: str, target: float, shape: str, rate: float, seconds: float) -> float:
    text = scenario(event("go", speed_action(target, shape, "rate" if rate else "time", rate),
                          trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none"))),
                    init=teleport("Ego", 0.0, 0.0, 0.0, speed=0.0))
    text = text.replace(VEHICLE, body_xml)
    p = tmp_path / "s.xosc"
    p.write_text(text)
    eng = ScenarioEngine(p, seed=0, tick=TICK)
    eng.init()
    for k in range(round(seconds / TICK)):
        eng.step(round(k * TICK, 9))
    return eng.entities["Ego"].speed


def test_pedestrian_without_performance_reaches_a_step_speed_above_walking_pace(tmp_path):
    # esmini gives a Pedestrian unlimited performance; a 3 m/s cap made traffic_lights' runner 4.9 m off
    assert _speed_after(tmp_path, PEDESTRIAN, 6.0, "step", 0.0, 0.5) == pytest.approx(6.0)


def test_pedestrian_follows_a_steep_rate_without_an_acceleration_cap(tmp_path):
    # 8 m/s^2 from rest for 0.5 s: 4 m/s (a 2 m/s^2 cap would give 1 m/s)
    assert _speed_after(tmp_path, PEDESTRIAN, 10.0, "linear", 8.0, 0.5) == pytest.approx(4.0, abs=0.45)


def test_vehicle_performance_still_caps_speed_and_acceleration(tmp_path):
    # VEHICLE: maxSpeed 50, maxAcceleration 5
    assert _speed_after(tmp_path, VEHICLE, 80.0, "step", 0.0, 0.5) == pytest.approx(50.0)
    assert _speed_after(tmp_path, VEHICLE, 10.0, "linear", 8.0, 0.5) == pytest.approx(2.5, abs=0.3)
