"""WorldState fields and sensor data from CARLA readings (real carla value types, no server); expected values
worked out by hand in CARLA's left-handed frame (x forward/east, y south, yaw clockwise in degrees)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from roadtest.bundle import load_bundle
from hypothesis import given
from hypothesis import strategies as st

from roadtest.sim import frames
from roadtest.sim.carla import sensors, state
from roadtest.sim.carla.traffic import CLEARANCE, plan_traffic
from roadtest.sim.road import load_map


def test_a_car_heading_north_turning_left(real_carla):
    c = real_carla
    tf = c.Transform(c.Location(x=5.0, y=-20.0, z=0.3), c.Rotation(yaw=-90.0))  # CARLA yaw -90: roadtest north
    a = state.actor_state("hero", "ego", "car", tf, velocity=c.Vector3D(0.0, -10.0, 0.0),
                          acceleration=c.Vector3D(-3.0, -2.0, 0.0), angular_velocity=c.Vector3D(0.0, 0.0, -30.0),
                          extent=c.Vector3D(2.4, 1.0, 0.8))
    assert (a.x, a.y, a.z) == pytest.approx((5.0, 20.0, 0.3))
    assert a.h == pytest.approx(math.pi / 2)
    assert (a.vx, a.vy, a.speed) == pytest.approx((0.0, 10.0, 10.0))
    assert a.ax == pytest.approx(2.0)  # CARLA -y is north: speeding up
    assert a.ay == pytest.approx(3.0)  # CARLA -x is west, the left of a car heading north
    assert a.yaw_rate == pytest.approx(math.radians(30.0))  # a left turn stays a left turn (CCW, positive)
    assert (a.length, a.width, a.height) == pytest.approx((4.8, 2.0, 1.6))


def test_box_centre_is_ahead_of_the_origin_along_the_heading(real_carla):
    c = real_carla
    tf = c.Transform(c.Location(x=5.0, y=-20.0, z=0.0), c.Rotation(yaw=-90.0))
    centre = state.box_centre(c, tf, c.Location(x=1.5, y=0.0, z=0.7))
    assert (centre.x, centre.y, centre.z) == pytest.approx((5.0, -21.5, 0.7), abs=1e-5)  # 1.5 m further north


def test_kinds_and_light_states(real_carla):
    assert state.actor_kind("walker.pedestrian.0001") == "pedestrian"
    assert state.actor_kind("vehicle.carlamotors.carlacola", {"base_type": "truck"}) == "truck"
    assert state.actor_kind("vehicle.ford.ambulance", {"base_type": "van", "special_type": "emergency"}) == "emergency"
    assert state.actor_kind("static.prop.streetsign") == "static"
    assert state.light_state(real_carla.TrafficLightState.Red) == "red"
    assert state.light_state(real_carla.TrafficLightState.Green) == "green"


def test_sensor_data_in_the_leaderboards_shapes(real_carla):
    c = real_carla
    raw = bytes(range(4 * 3 * 2))
    img = sensors.convert("sensor.camera.rgb", SimpleNamespace(raw_data=raw, width=3, height=2))
    assert img.shape == (2, 3, 4) and img.dtype == np.uint8 and img[1, 2, 3] == 23  # BGRA, row-major
    gnss = sensors.convert("sensor.other.gnss", SimpleNamespace(latitude=1.0, longitude=2.0, altitude=3.0))
    # the 0.9.16 server's fix (+lat towards CARLA's +y) as the leaderboard's GPS: latitude mirrored, about the same size
    assert gnss.tolist() == pytest.approx([-1.0, 2.0, 3.0], abs=2e-3) and gnss[0] != -1.0
    imu = sensors.convert("sensor.other.imu", SimpleNamespace(accelerometer=c.Vector3D(0.1, 0.2, 9.81),
                                                             gyroscope=c.Vector3D(0.0, 0.0, -0.3), compass=1.5))
    assert imu.shape == (7,) and imu.tolist() == pytest.approx([0.1, 0.2, 9.81, 0.0, 0.0, -0.3, 1.5])
    tf = c.Transform(c.Location(), c.Rotation(yaw=-90.0))
    assert sensors.forward_speed(tf, c.Vector3D(0.0, -7.0, 0.0)) == pytest.approx(7.0)
    assert sensors.forward_speed(tf, c.Vector3D(0.0, 7.0, 0.0)) == pytest.approx(-7.0)  # reversing
    spec = {"type": "sensor.camera.rgb", "id": "front", "x": 1.3, "y": 0.0, "z": 2.3, "yaw": -30.0,
            "width": 800, "height": 600, "fov": 100}
    assert sensors.blueprint_attributes(spec) == {"image_size_x": "800", "image_size_y": "600", "fov": "100",
                                                  "lens_circle_multiplier": "3.0"}
    mount = sensors.sensor_transform(c, spec)
    assert (mount.location.x, mount.location.z, mount.rotation.yaw) == pytest.approx((1.3, 2.3, -30.0))


def test_sensor_types_cover_the_built_in_ones_but_privileged_objects():
    from roadtest.sim.embedded.sensors import SENSORS

    assert set(SENSORS) - sensors.SENSOR_TYPES == {"roadtest.objects", "roadtest.bev"}  # drawn by roadtest alone
    assert {"sensor.camera.rgb", "sensor.camera.depth", "sensor.camera.semantic_segmentation"} <= sensors.SENSOR_TYPES


def test_traffic_plan_is_seeded_and_keeps_clear_of_the_scenario(smoke_bundles):
    b = load_bundle(smoke_bundles["fog-truck-solid-line"])
    net = load_map(b.xodr)
    cfg = b.meta["traffic"]  # density 2 per km of driving lane
    ego = (b.meta["route"]["waypoints"][0][0], b.meta["route"]["waypoints"][0][1])
    v1, w1 = plan_traffic(net, cfg, 3, [ego])
    v2, _ = plan_traffic(net, cfg, 3, [ego])
    v3, _ = plan_traffic(net, cfg, 4, [ego])
    km = sum(net.road_length(r) for r in net.road_ids()) * 2 / 1000.0  # one lane each way
    assert len(v1) == round(2.0 * km) and v1 == v2 and v1 != v3 and w1 == []
    assert all(math.hypot(s.x - ego[0], s.y - ego[1]) > CLEARANCE for s in v1)


finite = st.floats(-1e4, 1e4, allow_nan=False)


@given(finite, finite, finite, st.floats(-math.pi, math.pi))
def test_frame_round_trips_are_the_identity(x, y, z, h):
    assert frames.location_from_carla(*frames.location_to_carla(x, y, z)) == (x, y, z)
    assert frames.vector_from_carla(*frames.vector_to_carla(x, y, z)) == (x, y, z)
    assert math.remainder(frames.yaw_from_carla(frames.yaw_to_carla(h)) - h, math.tau) == pytest.approx(0.0, abs=1e-9)


def test_world_and_map_parameters_are_what_libcarla_accepts(real_carla):
    from roadtest.sim.carla.simulation import OPENDRIVE_PARAMS, sync_settings

    p = real_carla.OpendriveGenerationParameters(**OPENDRIVE_PARAMS)
    assert (p.vertex_distance, p.wall_height, p.additional_width) == pytest.approx((2.0, 1.0, 0.6))  # scenario_runner's
    assert p.smooth_junctions and p.enable_mesh_visibility and p.enable_pedestrian_navigation
    ws = sync_settings(real_carla.WorldSettings(), 0.05)
    assert ws.synchronous_mode and ws.fixed_delta_seconds == pytest.approx(0.05) and ws.deterministic_ragdolls
    from roadtest.errors import UserError

    with pytest.raises(UserError, match="up to 0.1 s"):
        sync_settings(real_carla.WorldSettings(), 0.2)
