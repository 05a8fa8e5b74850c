"""The simulation loop on stand-in engine and map: two-phase tick, ego dynamics, termination, sensors, events."""

import json
import math

import numpy as np
import pytest

from roadtest.errors import UserError
from roadtest.sim.api import Control, SimSettings, SimulationClosed, Termination
from roadtest.sim.embedded.simulator import EmbeddedSimulation, normalise_kind

from embedded_fakes import FakeEngine, FakeEntity, FakeStraightRoads


class _Bundle:
    def __init__(self, meta=None):
        self.meta = meta or {}
        self.xodr = None
        self.id = "fake"


def make(meta=None, stop_time=None, entities=None, settings=None, seed=0):
    net = FakeStraightRoads(length=1000.0, nr=3)
    ents = entities or [FakeEntity("hero", role="ego", x=50.0, y=-5.25, speed=10.0),
                        FakeEntity("lead", x=100.0, y=-5.25, speed=5.0)]
    eng = FakeEngine(net, ents, stop_time=stop_time)
    return EmbeddedSimulation(_Bundle(meta), seed, settings or SimSettings(), engine=eng), eng


def test_initial_state_is_recorded_with_roles_kinds_lanes_and_the_box_centre():
    sim, _ = make()
    st = sim.trace.states[0]
    assert st.time == 0.0 and st.frame == 0
    ego = st.ego
    assert ego.id == "hero" and ego.role == "ego" and st.actor("lead").role == "scenario"
    assert ego.x == pytest.approx(51.4)  # reference point + bbox_cx along the heading
    assert ego.lane.road == "1" and ego.lane.lane == -2


def test_agent_control_drives_the_ego_while_the_engine_moves_the_rest():
    sim, eng = make()
    for _ in range(20):
        st = sim.step(Control(throttle=1.0))
    assert st.time == pytest.approx(1.0) and st.frame == 20
    assert st.ego.speed > 12.0  # accelerated by the bicycle model
    assert st.actor("lead").x == pytest.approx(101.4 + 5.0)  # constant speed under the engine
    assert eng.steps[0] == 0.0 and eng.steps[-1] == pytest.approx(0.95)


def test_no_control_leaves_the_ego_to_its_scenario_controller():
    sim, _ = make()
    st = sim.step(None)
    assert st.ego.x == pytest.approx(51.4 + 0.5)


def test_stop_trigger_completes_the_run_and_step_after_the_end_raises():
    sim, _ = make(stop_time=0.5)
    while not sim.done:
        st = sim.step(None)
    assert sim.trace.termination is Termination.COMPLETED
    assert any(e.kind == "stop_trigger" for e in st.events)
    with pytest.raises(SimulationClosed):
        sim.step(None)


def test_goal_reached_and_timeout_from_meta():
    sim, _ = make(meta={"route": {"goal": {"x": 60.0, "y": -5.25}}})
    n = 0
    while not sim.done and n < 200:
        sim.step(None)
        n += 1
    assert sim.trace.termination is Termination.COMPLETED and "goal" in sim.trace.reason
    assert sim.state.time == pytest.approx(0.7)  # box centre 8.6 m short of the goal at 10 m/s, within 2 m
    # with a route the goal counts once passed, as the leaderboard completes a route only past its last point:
    # the run ends on the tick whose motion carries the box centre across x = 60
    sim, _ = make(meta={"route": {"goal": {"x": 60.0, "y": -5.25}, "waypoints": [[0.0, -5.25], [60.0, -5.25]]}})
    while not sim.done:
        sim.step(None)
    assert sim.trace.termination is Termination.COMPLETED and sim.state.ego.x > 60.0 > sim.trace.states[-2].ego.x
    sim, _ = make(meta={"expect": {"timeout": 1.0}})
    while not sim.done:
        sim.step(None)
    assert sim.trace.termination is Termination.TIMEOUT and sim.state.time == pytest.approx(1.0)


def test_rear_end_collision_is_an_event_for_the_pair_and_can_end_the_run():
    ents = [FakeEntity("hero", role="ego", x=50.0, y=-5.25, speed=20.0), FakeEntity("lead", x=60.0, y=-5.25, speed=0.0)]
    sim, eng = make(entities=ents, settings=SimSettings(stop_on_collision=True))
    events = []
    while not sim.done:
        events += sim.step(None).events
    col = [e for e in events if e.kind == "collision"]
    assert len(col) == 1 and (col[0].actor, col[0].other) == ("hero", "lead")
    assert col[0].data["relative_speed"] == pytest.approx(20.0)
    assert sim.trace.termination is Termination.COLLISION
    assert sim.state.time == pytest.approx(0.3, abs=0.06)  # 10 m gap minus 4.5 m length at 20 m/s


def test_background_traffic_joins_the_world_state_and_the_trace_is_deterministic():
    meta = {"traffic": {"density": 5, "seed": 3}}
    dumps = []
    for _ in range(2):
        sim, _ = make(meta=meta, seed=7)
        for i in range(100):
            sim.step(Control(throttle=0.5, steer=0.05 * ((i % 7) - 3)))
        sim.close()
        dumps.append(json.dumps(sim.trace.to_dict()))
        bg = [a for a in sim.trace.states[0].actors if a.role == "background"]
        assert len(bg) == 15 and all(a.lane is not None for a in bg)
        assert sum(a.role == "background" for a in sim.state.actors) == 15  # those leaving at the dead end are replaced
    assert dumps[0] == dumps[1]
    sim, _ = make(meta=meta, seed=8)
    for i in range(100):
        sim.step(Control(throttle=0.5))
    assert json.dumps(sim.trace.to_dict()) != dumps[0]


def test_close_is_idempotent_and_closed_runs_refuse_step_and_observe():
    sim, _ = make()
    sim.close()
    sim.close()
    assert sim.trace.termination is Termination.STOPPED
    with pytest.raises(SimulationClosed):
        sim.step(None)
    with pytest.raises(SimulationClosed):
        sim.observe([])


def test_sensors_give_speed_pose_imu_gnss_route_as_the_leaderboard_and_refuse_unknown_types():
    sim, _ = make(meta={"route": {"waypoints": [[50, -5.25], [60, -5.25]]}})
    sim.step(Control(throttle=1.0))
    obs = sim.observe([{"type": "sensor.speedometer", "id": "speed"}, {"type": "roadtest.pose", "id": "pose"},
                       {"type": "sensor.other.imu", "id": "imu"}, {"type": "sensor.other.gnss", "id": "gps"},
                       {"type": "roadtest.route", "id": "route"}])
    frame, speed = obs["speed"]
    assert frame == 1 and speed["speed"] == pytest.approx(sim.state.ego.speed)
    assert obs["pose"][1]["x"] == pytest.approx(sim.state.ego.x)
    imu = obs["imu"][1]  # leaderboard sensor_interface: [acc x, y, z, gyro x, y, z, compass] float64
    assert imu.shape == (7,) and imu.dtype == np.float64
    assert imu[0] > 1.0 and imu[2] == pytest.approx(9.81)  # accelerating forward; gravity on z, as CARLA's IMU
    assert imu[6] == pytest.approx(math.pi / 2, abs=1e-6)  # heading east: compass 90 degrees clockwise from north
    gps = obs["gps"][1]  # (lat, lon, alt)
    assert gps.shape == (3,) and gps[1] > 0 and gps[0] < 0  # east of and south of the origin
    assert obs["route"][1] == [(50, -5.25), (60, -5.25)]
    with pytest.raises(UserError, match="unknown sensor type.*sensor.speedometer"):
        sim.observe([{"type": "sensor.sonar", "id": "x"}])
    with pytest.raises(UserError, match="unknown sensor type 'sensor.lidar.ray_cast_semantic'.*sensor.camera.rgb"):
        sim.observe([{"type": "sensor.lidar.ray_cast_semantic", "id": "lidar"}])
    for _ in range(10):  # a left turn: CARLA's gyroscope z and lateral accelerometer (y to the right) read negative
        sim.step(Control(throttle=0.3, steer=-0.5))
    imu = sim.observe([{"type": "sensor.other.imu", "id": "imu"}])["imu"][1]
    assert sim.state.ego.yaw_rate > 0 and imu[5] == pytest.approx(-sim.state.ego.yaw_rate) and imu[1] < 0
    assert imu[6] == pytest.approx((math.pi / 2 - sim.state.ego.h) % math.tau)


def test_objects_sensor_comes_from_the_agents_module():
    sim, _ = make(meta={"route": {"waypoints": [[50, -5.25], [300, -5.25]]}})
    sim.step(Control())
    _, data = sim.observe([{"type": "roadtest.objects", "id": "objects"}])["objects"]
    lead = [a for a in data["actors"] if a["id"] == "lead"]
    assert lead and lead[0]["x"] == pytest.approx(50.0, abs=1.0)


def test_kinds_are_normalised_with_emergency_from_properties_or_meta():
    assert normalise_kind("van") == ("car", False)
    assert normalise_kind("semitrailer") == ("truck", False)
    assert normalise_kind("motorbike") == ("motorcycle", False)
    assert normalise_kind("car", {"siren": "true"}) == ("emergency", True)
    assert normalise_kind("car", None, {"kind": "emergency", "siren": True}) == ("emergency", True)
    assert normalise_kind("pedestrian", None, {"kind": "officer"}) == ("officer", False)
    assert normalise_kind("obstacle") == ("static", False)
    # a DSL cone is a MiscObject of category obstacle whose meta record says cone: a static object, never a car
    assert normalise_kind("misc", None, {"kind": "cone"}) == ("static", False)
    assert normalise_kind("misc") == ("static", False)

