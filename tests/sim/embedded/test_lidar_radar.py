"""Lidar and radar on the built-in backend hit the scene the cameras see, where geometry worked out by hand says:
the road plane below the sensor, the rear face of the truck ahead; CARLA's formats, channels and sweep."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from roadtest.sim.api import SimSettings

REPO = Path(__file__).resolve().parents[3]
H = 2.5  # m: the lidar above the road, clear of the ego's roof (CARLA's lidar also hits its own car)


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """fog_truck_solid_line at its first tick: the ego at (20.48, -1.75) heading east (+x), the truck ahead in the
    same lane, nothing else within 40 m; a flat road at z = 0."""
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target
    from roadtest.sim.embedded.simulator import EmbeddedSimulator

    (variant,) = expand_target(REPO / "scenarios" / "fog_truck_solid_line.yaml")[:1]
    bundle = load_bundle(write_bundle(variant, tmp_path_factory.mktemp("b")))
    s = EmbeddedSimulator().load(bundle, 0, SimSettings())
    yield s
    s.close()


def _lidar(**kw):
    spec = {"type": "sensor.lidar.ray_cast", "id": "LIDAR", "x": 0.0, "y": 0.0, "z": H, "channels": 3,
            "upper_fov": 0.0, "lower_fov": -10.0, "rotation_frequency": 20.0, "points_per_second": 3 * 720 * 20,
            "range": 100.0}
    return {**spec, **kw}


def test_lidar_ranges_match_the_road_plane_and_the_truck_by_hand(sim):
    ego, truck = sim.state.ego, sim.state.actor("truck")
    assert ego.h == 0.0 and ego.z == 0.0 and truck.y == ego.y  # the geometry the numbers below assume
    frame, pts = sim.observe([_lidar()])["LIDAR"]
    assert pts.dtype == np.float32 and pts.ndim == 2 and pts.shape[1] == 4
    x, y, z, inten = pts.T.astype(float)
    r = np.linalg.norm(pts[:, :3].astype(float), axis=1)
    az = np.degrees(np.arctan2(y, x))
    el = np.degrees(np.arctan2(z, np.hypot(x, y)))
    half_px = 0.13  # degrees: 360 px across a 90 degree view, a ray lands within half a pixel
    # the horizontal channel straight ahead: the truck's rear face, (truck.x - length / 2) - ego.x away
    ahead = (np.abs(az) < 1.0) & (np.abs(el) < half_px)
    assert ahead.sum() >= 2
    rear = truck.x - truck.length / 2 - ego.x
    assert r[ahead] == pytest.approx(rear, abs=0.25)  # the truck's drawn body within its box
    # the -5 and -10 degree channels ahead and behind: the road H below, at H / sin(5) and H / sin(10)
    for deg in (5.0, 10.0):
        for centre in (0.0, 180.0):
            sel = (np.abs(((az - centre) + 180) % 360 - 180) < 3.0) & (np.abs(el + deg) < 0.5)
            assert sel.sum() >= 4, (deg, centre)
            assert z[sel] == pytest.approx(-H, abs=0.06)  # a road plane, give or take its cross-fall
            # range error from half a pixel of elevation: dr = H cos(e) / sin(e)^2 de
            e = math.radians(deg)
            tol = H * math.cos(e) / math.sin(e) ** 2 * math.radians(half_px) + 0.06 / math.sin(e)
            assert r[sel] == pytest.approx(H / math.sin(e), abs=tol)
    # CARLA's intensity: exp(-0.004 d)
    assert inten == pytest.approx(np.exp(-0.004 * r), rel=1e-5)
    # channels in CARLA's order: the upper one first, each sweeping clockwise (azimuth growing to the right)
    assert el[0] == pytest.approx(0.0, abs=half_px) and el[-1] == pytest.approx(-10.0, abs=0.5)
    first = el > -2.5
    assert np.all(np.diff(np.unwrap(np.radians(az[first]))) > 0)


def test_a_lidar_sweeps_its_share_of_the_turn_each_tick(sim):
    from roadtest.sim.api import Control

    spec = _lidar(id="HALF", rotation_frequency=10.0, points_per_second=3 * 360 * 20, channels=3)
    _, first = sim.observe([spec])["HALF"]
    az0 = np.degrees(np.arctan2(first[:, 1], first[:, 0])) % 360
    assert az0.min() >= 0.0 and az0.max() < 181.0  # 10 Hz at 20 Hz ticks: the front-right half first
    sim.step(Control())
    _, second = sim.observe([spec])["HALF"]
    az1 = np.degrees(np.arctan2(second[:, 1], second[:, 0])) % 360
    assert az1.min() >= 179.0  # then the back-left half


def test_radar_sees_the_truck_closing_and_the_ground_standing(sim):
    ego, truck = sim.state.ego, sim.state.actor("truck")
    spec = {"type": "sensor.other.radar", "id": "RADAR", "x": 2.5, "z": 1.0, "horizontal_fov": 10.0,
            "vertical_fov": 10.0}
    _, det = sim.observe([spec])["RADAR"]
    assert det.dtype == np.float32 and det.shape[1] == 4 and 0 < len(det) <= 75  # 1500 points/s x 0.05 s rays
    depth, alt, az, vel = det.T.astype(float)
    assert np.all(np.abs(az) <= math.radians(5.0) + 1e-6) and np.all(np.abs(alt) <= math.radians(5.0) + 1e-6)
    on_truck = np.abs(depth - (truck.x - truck.length / 2 - ego.x - 2.5)) < 0.5
    assert on_truck.sum() >= 5
    assert vel[on_truck] == pytest.approx(truck.speed - ego.speed, abs=0.05)  # negative: closing
    ground = depth > truck.x - ego.x + 5.0
    if ground.any():  # the road beyond: standing still, so closing at the ego's speed along the ray
        assert vel[ground] == pytest.approx(-ego.speed * np.cos(az[ground]) * np.cos(alt[ground]), abs=0.05)
    again = sim.observe([spec])["RADAR"][1]
    assert np.array_equal(again, det)  # seeded by the run's seed, the frame and the sensor id


def test_bad_lidar_specs_are_refused_with_the_field(sim):
    from roadtest.errors import UserError

    with pytest.raises(UserError, match=r"'LIDAR'.*pitch=5.*level"):
        sim.observe([_lidar(pitch=5.0)])
    with pytest.raises(UserError, match=r"channels='abc' is not a number"):
        sim.observe([_lidar(channels="abc")])
    with pytest.raises(UserError, match=r"lower_fov 5 is above upper_fov 0"):
        sim.observe([_lidar(lower_fov=5.0)])


def test_the_carla_backend_parses_lidar_and_radar_buffers_as_the_leaderboard():
    from types import SimpleNamespace

    from roadtest.sim.carla.sensors import blueprint_attributes, convert

    raw = np.arange(8, dtype=np.float32).tobytes()
    assert convert("sensor.lidar.ray_cast", SimpleNamespace(raw_data=raw)).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    # CARLA's radar detection is (velocity, azimuth, altitude, depth); the leaderboard reverses the columns
    assert convert("sensor.other.radar", SimpleNamespace(raw_data=raw)).tolist() == [[3, 2, 1, 0], [7, 6, 5, 4]]
    attrs = blueprint_attributes({"type": "sensor.lidar.ray_cast", "id": "L", "channels": 32})
    assert attrs["channels"] == "32" and attrs["range"] == "85.0" and attrs["dropoff_general_rate"] == "0.0"
    assert blueprint_attributes({"type": "sensor.other.radar", "id": "R", "horizontal_fov": 35})["horizontal_fov"] == "35"
