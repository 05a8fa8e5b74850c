"""Small departures from what a leaderboard agent gets in CARLA, closed: the first timestamp is one tick (0.05),
cameras are opaque (alpha 255), GNSS and IMU read at their mount, and both backends give one GNSS reading
(CARLA 0.9.16's server fix, taken from the real client's carla.Map, re-expressed as the built-in's)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

from roadtest.sim.api import ActorState, SimSettings

REPO = Path(__file__).resolve().parents[2]


def _bundle(tmp_path, name):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target

    (variant,) = expand_target(REPO / "scenarios" / name)
    return load_bundle(write_bundle(variant, tmp_path / "bundle"))


def test_the_first_timestamp_is_one_tick_as_the_leaderboards_game_time(tmp_path):
    from roadtest.runner.episode import run_episode

    seen = tmp_path / "stamps.txt"
    agent = tmp_path / "stamp_agent.py"
    agent.write_text(f"""
class StampAgent:
    def setup(self, path_to_conf_file):
        pass
    def sensors(self):
        return []
    def run_step(self, input_data, timestamp):
        with open({str(seen)!r}, "a") as f:
            f.write(repr(timestamp) + "\\n")
        from roadtest.sim.api import Control
        return Control(brake=1.0)
""")
    bundle = _bundle(tmp_path, "straight_speed_limit.yaml")
    run_episode(bundle, 0, f"{agent}:StampAgent", SimSettings(tick=0.05, max_time=0.2))
    stamps = [float(x) for x in seen.read_text().split()]
    # leaderboard: world.tick() then GameTime 0.05 at the first run_step, 0.10 at the second ...
    assert stamps[:3] == pytest.approx([0.05, 0.10, 0.15])
    stamps_10hz = tmp_path / "stamps.txt"
    stamps_10hz.unlink()
    run_episode(bundle, 0, f"{agent}:StampAgent", SimSettings(tick=0.1, max_time=0.3))
    assert [float(x) for x in seen.read_text().split()][:2] == pytest.approx([0.1, 0.2])


def test_cameras_are_opaque_in_snow_as_carlas(tmp_path):
    import cv2

    from roadtest.runner.episode import run_episode

    spec = {"type": "sensor.camera.rgb", "id": "Center", "x": 1.5, "z": 1.6, "width": 160, "height": 120, "fov": 90}
    bundle = _bundle(tmp_path, "roundabout_snow.yaml")
    run_episode(bundle, 0, None, SimSettings(max_time=0.1), sensors=[spec], save_sensors=tmp_path / "png")
    png = cv2.imread(str(sorted((tmp_path / "png" / "Center").glob("*.png"))[0]), cv2.IMREAD_UNCHANGED)
    assert png.shape == (120, 160, 4) and int(png[..., 3].min()) == 255


def _ego(**kw) -> ActorState:
    base = dict(id="ego", role="ego", kind="car", x=100.0, y=50.0, z=0.0, h=math.pi / 2, speed=10.0)
    return ActorState(**{**base, **kw})


def test_gnss_reads_at_its_mount_point():
    from roadtest.sim.embedded.sensors import SENSORS
    from roadtest.sim.sensors import gnss_from_xy

    gnss = SENSORS["sensor.other.gnss"]
    ego = _ego()  # heading north
    # Bench2Drive's rig: GPS at x = -1.4 (behind the reference point): 1.4 m south of it; y = 0.5 (right): east
    lat, lon, alt = gnss(None, ego, {"type": "sensor.other.gnss", "id": "GPS", "x": -1.4, "y": 0.5, "z": 1.0})
    g = gnss_from_xy(100.5, 48.6, 1.0)
    assert (lat, lon, alt) == pytest.approx((g["lat"], g["lon"], g["alt"]), abs=1e-12)
    # 1.4 m south is 1.4 / (R pi / 180) degrees of latitude less (the leaderboard's Mercator at the equator)
    centre = gnss(None, ego, {"type": "sensor.other.gnss", "id": "GPS"})
    assert centre[0] - lat == pytest.approx(1.4 * 180.0 / (math.pi * 6378137.0), rel=1e-6)


def test_imu_feels_the_centripetal_pull_at_its_mount_and_turns_with_its_yaw():
    from roadtest.sim.embedded.sensors import SENSORS

    imu = SENSORS["sensor.other.imu"]
    w = 0.5  # rad/s left turn
    ego = _ego(ax=1.0, ay=2.0, yaw_rate=w)
    at_ref = imu(None, ego, {"type": "sensor.other.imu", "id": "IMU"})
    assert at_ref[:3] == pytest.approx([1.0, -2.0, 9.81])  # CARLA's y is to the right
    behind = imu(None, ego, {"type": "sensor.other.imu", "id": "IMU", "x": -1.4})
    # a point 1.4 m behind the turning reference point: a = a_ref - w^2 r, r = (-1.4, 0): +0.35 m/s^2 forward
    assert behind[:3] == pytest.approx([1.0 + 0.25 * 1.4, -2.0, 9.81])
    assert behind[3:6] == pytest.approx(at_ref[3:6])  # one rigid body: one angular velocity
    right = imu(None, ego, {"type": "sensor.other.imu", "id": "IMU", "yaw": 90.0})  # looking to the right
    # the sensor's x is the vehicle's right (-left = -2.0 lateral, i.e. CARLA +2 to the right), its y the rear
    assert right[:2] == pytest.approx([-2.0, -1.0])
    assert right[6] == pytest.approx((at_ref[6] + math.pi / 2) % math.tau)  # compass 90 degrees further clockwise


@pytest.fixture(scope="module")
def real_carla_map(tmp_path_factory):
    os.environ.setdefault("HOME", str(tmp_path_factory.mktemp("home")))  # the real client crashes without HOME
    carla = pytest.importorskip("carla", reason="the real CARLA client (extra 'carla') is not installed")
    from roadtest.agents.leaderboard_compat import is_compat

    if is_compat(carla):
        pytest.skip("only roadtest's stand-in `carla` is importable, not the real client")
    bundle = _bundle(tmp_path_factory.mktemp("geo"), "straight_speed_limit.yaml")
    return carla, carla.Map("geo", Path(bundle.xodr).read_text())


def test_both_backends_give_one_gnss_reading(real_carla_map):
    """The 0.9.16 server's GNSS fix is geom::GeoLocation::Transform, the very code behind the client's
    carla.Map.transform_to_geolocation; re-expressed, it is the built-in GNSS of the same point."""
    carla, cmap = real_carla_map
    from roadtest.sim.frames import (gnss_from_carla_fix, gnss_from_carla_location,
                                           location_from_carla_geolocation)

    north = cmap.transform_to_geolocation(carla.Location(x=0.0, y=-100.0, z=0.0))  # CARLA -y: north
    assert north.latitude < 0  # 0.9.16 puts +lat towards CARLA's +y: the opposite of the leaderboard's route GPS
    for x, y, z in ((0.0, 0.0, 0.0), (120.0, -340.0, 2.0), (-50.0, 75.0, 0.5), (800.0, 800.0, 0.0)):
        fix = cmap.transform_to_geolocation(carla.Location(x=x, y=y, z=z))
        back = cmap.geolocation_to_transform(fix)
        assert location_from_carla_geolocation(fix.latitude, fix.longitude, fix.altitude) == pytest.approx(
            (back.x, back.y, back.z), abs=1e-3)
        assert (back.x, back.y) == pytest.approx((x, y), abs=1e-3)
        assert gnss_from_carla_fix(fix.latitude, fix.longitude, fix.altitude) == pytest.approx(
            gnss_from_carla_location(x, y, z), abs=1e-9)  # degrees: ~0.1 mm


def test_the_carla_backend_converts_its_server_fix():
    from types import SimpleNamespace

    from roadtest.sim.frames import gnss_from_carla_location, TM_SCALE
    from roadtest.sim.carla.sensors import convert

    # the 0.9.16 fix of CARLA (0, +100): +lat = 100 / (k0 R) rad, by hand from geom::GeoLocation's inverse TM
    lat = math.degrees(100.0 / (TM_SCALE * 6378137.0))
    got = convert("sensor.other.gnss", SimpleNamespace(latitude=lat, longitude=0.0, altitude=0.0))
    assert got == pytest.approx(np.array(gnss_from_carla_location(0.0, 100.0, 0.0)), abs=1e-10)
    assert got[0] < 0  # 100 m south in roadtest's frame: negative latitude, as the route GPS has it
