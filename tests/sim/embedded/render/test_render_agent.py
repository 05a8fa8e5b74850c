"""A leaderboard-style agent that asks for a front RGB camera and reads input_data['Center'][1][:, :, :3] gets the
picture it expects: CARLA's BGRA layout, the sky above, the road ahead where the pinhole puts it, the yellow centre
line yellow in BGR order; `--save-sensors` writes the same pixels."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from roadtest.sim.api import SimSettings

REPO = Path(__file__).resolve().parents[4]
SPEC = {"type": "sensor.camera.rgb", "id": "Center", "x": 2.5, "y": 0.0, "z": 1.6, "roll": 0.0, "pitch": 0.0,
        "yaw": 0.0, "width": 400, "height": 300, "fov": 90}

AGENT = '''
import numpy as np

class CameraAgent:
    """Leaderboard shape, no roadtest import: sensors() and run_step(input_data, timestamp)."""

    def setup(self, path_to_conf_file):
        self.seen = []

    def sensors(self):
        return [SPEC]

    def run_step(self, input_data, timestamp):
        frame, image = input_data["Center"]
        bgr = image[:, :, :3]
        np.save(OUT + "/frame_%04d.npy" % frame, bgr)
        np.save(OUT + "/raw_%04d.npy" % frame, image)
        from roadtest.sim.api import Control
        return Control(throttle=0.3)
'''


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target

    folder = tmp_path_factory.mktemp("bundle")
    (variant,) = expand_target(REPO / "scenarios" / "straight_speed_limit.yaml")
    return load_bundle(write_bundle(variant, folder))


def test_a_leaderboard_agent_reads_the_center_camera_as_carla_gives_it(bundle, tmp_path):
    from roadtest.runner.episode import run_episode
    from roadtest.sim.embedded.render.camera import CameraSpec, camera_pose, project

    out = tmp_path / "seen"
    out.mkdir()
    agent_file = tmp_path / "camera_agent.py"
    agent_file.write_text(f"SPEC = {SPEC!r}\nOUT = {str(out)!r}\n" + AGENT)
    saved = tmp_path / "sensors"
    trace = run_episode(bundle, 0, f"{agent_file}:CameraAgent", SimSettings(max_time=0.5), save_sensors=saved)
    frames = sorted(out.glob("frame_*.npy"))
    assert len(frames) == len(trace.states) - 1  # one image per agent step
    raw = np.load(out / "raw_0000.npy")
    assert raw.shape == (300, 400, 4) and raw.dtype == np.uint8 and (raw[..., 3] == 255).all()
    bgr = np.load(frames[0]).astype(int)
    assert bgr.shape == (300, 400, 3)
    sky = bgr[:20].reshape(-1, 3).mean(0)
    assert sky[0] > sky[2] + 40  # blue above red: channel 0 is B, as CARLA's BGRA
    ego = trace.states[0].ego
    cam = CameraSpec.from_spec(SPEC)
    pose = camera_pose(cam, ego.x, ego.y, ego.z, ego.h)
    # the road 6 m ahead of the camera, on the ego's lane centre: grey asphalt (B ~ G ~ R, dark)
    ahead = np.array([[ego.x + (2.5 + 6.0) * math.cos(ego.h), ego.y + (2.5 + 6.0) * math.sin(ego.h), ego.z]])
    u, v, _ = project(cam, pose, ahead)[0]
    road = bgr[int(v) - 1:int(v) + 2, int(u) - 1:int(u) + 2].reshape(-1, 3).mean(0)
    assert road.max() - road.min() < 25 and road.mean() < 120
    # the solid yellow centre line (left of the ego's lane, t = 0 of road 1) 8 m ahead: R and G well above B
    lane = trace.states[0].ego.lane
    from roadtest.sim.road.network import load_map

    net = load_map(bundle.xodr)
    line = net.road_to_world(lane.road, lane.s + 8.0 + 2.5, 0.0)
    u, v, _ = project(cam, pose, np.array([[line.x, line.y, ego.z]]))[0]
    b, g, r = bgr[int(v), int(u)]
    assert r > b + 60 and g > b + 40, (b, g, r)
    # --save-sensors wrote the same pixels the agent got
    import cv2

    png = cv2.imread(str(saved / "Center" / "000000.png"), cv2.IMREAD_UNCHANGED)
    assert np.array_equal(png, raw)


def test_a_run_without_cameras_never_loads_the_renderer(bundle):
    """The expert reads speed, pose, route and objects only: neither moderngl nor the renderer is imported."""
    import subprocess
    import sys

    code = ("import sys; from roadtest.bundle import load_bundle; from roadtest.runner.episode import run_episode; "
            "from roadtest.sim.api import SimSettings; "
            f"run_episode(load_bundle({str(bundle.root)!r}), 0, "
            "'expert', SimSettings(max_time=0.3)); "
            "print(sorted(m for m in sys.modules if m == 'moderngl' or m.startswith('roadtest.sim.embedded.render')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_cameras_and_lidar_are_supported_and_a_semantic_lidar_is_refused_before_the_run():
    from roadtest.agents.base import check_sensors
    from roadtest.errors import UserError
    from roadtest.sim.embedded.simulator import EmbeddedSimulator

    types = EmbeddedSimulator.sensor_types()
    assert {"sensor.camera.rgb", "sensor.camera.depth", "sensor.camera.semantic_segmentation", "roadtest.bev"} <= types
    assert check_sensors([SPEC], types)[0]["id"] == "Center"
    assert {"sensor.lidar.ray_cast", "sensor.other.radar"} <= types
    with pytest.raises(UserError, match="sensor.lidar.ray_cast_semantic.*supported sensor types: .*sensor.camera.rgb"):
        check_sensors([{"type": "sensor.lidar.ray_cast_semantic", "id": "LIDAR"}], types)
