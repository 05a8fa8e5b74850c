"""After its start, a speed action changes the speed no faster than the entity's Performance allows.

esmini's LongSpeedAction::Step: a continuous RelativeTargetSpeed whose reference jumps (a lead that stops dead,
one that pulls away) is followed at maxDeceleration / maxAcceleration, not in one tick; the start itself, with
a step shape, still sets the target speed at once.
"""

from __future__ import annotations

import pytest

from roadtest.sim.xosc.engine import ScenarioEngine

from xosc_docs import event, lane_teleport, scenario, sim_time, speed_action, straight_road, trigger

TICK = 0.05
DECEL, ACCEL = 9.0, 5.0  # m/s^2, xosc_docs.VEHICLE's Performance


def follow(ref: str) -> str:
    return f"""<PrivateAction><LongitudinalAction><SpeedAction>
      <SpeedActionDynamics dynamicsShape="step" dynamicsDimension="time" value="0"/>
      <SpeedActionTarget><RelativeTargetSpeed entityRef="{ref}" value="0" speedTargetValueType="delta" continuous="true"/>
      </SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>"""


def run(tmp_path, lead_speed: float, lead_then: float, seconds: float = 6.0):
    (tmp_path / "road.xodr").write_text(straight_road(1000.0))
    init = (lane_teleport("Lead", -1, 200.0) + lane_teleport("Follower", -1, 20.0))
    init = init.replace('<Private entityRef="Lead">', f'<Private entityRef="Lead">{speed_action(lead_speed)}', 1)
    init = init.replace('<Private entityRef="Follower">', f'<Private entityRef="Follower">{follow("Lead")}', 1)
    body = event("change", speed_action(lead_then), trigger("StartTrigger", sim_time(2.0)))
    text = scenario(body, entities=("Lead", "Follower"), init=init, actors=("Lead",),
                    stop=trigger("StopTrigger", sim_time(100.0))).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    out = []
    for k in range(int(seconds / TICK)):
        eng.step(round(k * TICK, 9))
        out.append((round((k + 1) * TICK, 9), eng.entities["Lead"].speed, eng.entities["Follower"].speed))
    return out


def test_a_follower_whose_lead_stops_dead_brakes_at_its_max_deceleration(tmp_path):
    rows = run(tmp_path, 20.0, 0.0)
    assert rows[0][2] == pytest.approx(20.0)  # the step start sets the lead's speed at once
    stop = next(t for t, lead, _ in rows if lead == 0.0)
    for t, _, v in rows:
        if t >= stop:  # from the lead's stop on, the follower loses DECEL m/s each second, down to 0
            assert v == pytest.approx(max(0.0, 20.0 - DECEL * (t - stop)), abs=DECEL * TICK + 1e-9)
    assert rows[-1][2] == 0.0


def test_a_follower_whose_lead_pulls_away_accelerates_at_its_max_acceleration(tmp_path):
    rows = run(tmp_path, 5.0, 25.0, seconds=8.0)
    go = next(t for t, lead, _ in rows if lead == 25.0)
    speeds = [v for t, _, v in rows if t > go]
    steps = [b - a for a, b in zip(speeds, speeds[1:])]
    assert max(steps) == pytest.approx(ACCEL * TICK, abs=1e-9)  # never more than maxAcceleration per tick
    assert rows[-1][2] == pytest.approx(25.0)  # and it catches the lead's speed in (25-5)/5 = 4 s
