"""The e2e-server agent's inputs against Bench2DriveZoo's agents: calibration literals, JPEG, can_bus, command, PID.

Expected matrices are the literals of Thinklab-SJTU/Bench2DriveZoo team_code/uniad_b2d_agent.py at commit
40ec4b511929fb543b6ea2f08a60aff100ec520e (vad_b2d_agent.py holds the same). The older commit 056c924 had a
CAM_BACK lidar2img without the intrinsics (a bare rotation: row 0 = [-1, -1.2e-16, 0, -2e-16]), the bug that
Bench2Drive's README reports fixed on 2024-08-10; roadtest matches the fixed one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from roadtest.agents.baselines import inputs, pid, rig, route
from roadtest.errors import UserError

B2D_LIDAR2IMG = {
    "CAM_FRONT": [[1.14251841e+03, 8.00000000e+02, 0.0, -9.52000000e+02],
                  [0.0, 4.50000000e+02, -1.14251841e+03, -8.09704417e+02],
                  [0.0, 1.0, 0.0, -1.19000000e+00], [0, 0, 0, 1]],
    "CAM_FRONT_LEFT": [[6.03961325e-14, 1.39475744e+03, 0.0, -9.20539908e+02],
                       [-3.68618420e+02, 2.58109396e+02, -1.14251841e+03, -6.47296750e+02],
                       [-8.19152044e-01, 5.73576436e-01, 0.0, -8.29094072e-01], [0, 0, 0, 1]],
    "CAM_FRONT_RIGHT": [[1.31064327e+03, -4.77035138e+02, 0.0, -4.06010608e+02],
                        [3.68618420e+02, 2.58109396e+02, -1.14251841e+03, -6.47296750e+02],
                        [8.19152044e-01, 5.73576436e-01, 0.0, -8.29094072e-01], [0, 0, 0, 1]],
    "CAM_BACK": [[-5.60166031e+02, -8.00000000e+02, 0.0, -1.28800000e+03],
                 [5.51091060e-14, -4.50000000e+02, -5.60166031e+02, -8.58939847e+02],
                 [1.22464680e-16, -1.0, 0.0, -1.61000000e+00], [0, 0, 0, 1]],
    "CAM_BACK_LEFT": [[-1.14251841e+03, 8.00000000e+02, 0.0, -6.84385123e+02],
                      [-4.22861679e+02, -1.53909064e+02, -1.14251841e+03, -4.96004706e+02],
                      [-9.39692621e-01, -3.42020143e-01, 0.0, -4.92889531e-01], [0, 0, 0, 1]],
    "CAM_BACK_RIGHT": [[3.60989788e+02, -1.34723223e+03, 0.0, -1.04238127e+02],
                       [4.22861679e+02, -1.53909064e+02, -1.14251841e+03, -4.96004706e+02],
                       [9.39692621e-01, -3.42020143e-01, 0.0, -4.92889531e-01], [0, 0, 0, 1]],
}
B2D_LIDAR2CAM = {
    "CAM_FRONT": [[1, 0, 0, 0], [0, 0, -1, -0.24], [0, 1, 0, -1.19], [0, 0, 0, 1]],
    "CAM_FRONT_LEFT": [[0.57357644, 0.81915204, 0, -0.22517331], [0, 0, -1, -0.24],
                       [-0.81915204, 0.57357644, 0, -0.82909407], [0, 0, 0, 1]],
    "CAM_FRONT_RIGHT": [[0.57357644, -0.81915204, 0, 0.22517331], [0, 0, -1, -0.24],
                        [0.81915204, 0.57357644, 0, -0.82909407], [0, 0, 0, 1]],
    "CAM_BACK": [[-1, 0, 0, 0], [0, 0, -1, -0.24], [0, -1, 0, -1.61], [0, 0, 0, 1]],
    "CAM_BACK_LEFT": [[-0.34202014, 0.93969262, 0, -0.25388956], [0, 0, -1, -0.24],
                      [-0.93969262, -0.34202014, 0, -0.49288953], [0, 0, 0, 1]],
    "CAM_BACK_RIGHT": [[-0.34202014, -0.93969262, 0, 0.25388956], [0, 0, -1, -0.24],
                       [0.93969262, -0.34202014, 0, -0.49288953], [0, 0, 0, 1]],
}
B2D_LIDAR2EGO = [[0, 1, 0, -0.39], [-1, 0, 0, 0], [0, 0, 1, 1.84], [0, 0, 0, 1]]


def test_calibration_derived_from_the_rig_equals_bench2drivezoo_literals():
    cal = rig.calibration()
    for cam in rig.CAMERAS:  # the literals carry 9 significant digits
        np.testing.assert_allclose(cal["lidar2img"][cam], B2D_LIDAR2IMG[cam], rtol=1e-8, atol=1e-5, err_msg=cam)
        np.testing.assert_allclose(cal["lidar2cam"][cam], B2D_LIDAR2CAM[cam], rtol=0, atol=1e-8, err_msg=cam)
    np.testing.assert_array_equal(cal["lidar2ego"], B2D_LIDAR2EGO)


def test_focal_lengths_and_principal_point_by_hand():
    by_id = {s["id"]: s for s in rig.UNIAD_RIG}
    k_front, k_back = rig.intrinsics(by_id["CAM_FRONT"]), rig.intrinsics(by_id["CAM_BACK"])
    assert k_front[0, 0] == pytest.approx(800 / math.tan(math.radians(35)))  # 1142.518...
    assert k_back[0, 0] == pytest.approx(800 / math.tan(math.radians(55)))  # 560.166...
    assert (k_front[0, 2], k_front[1, 2]) == (800.0, 450.0)
    # a point 10 m straight ahead of CAM_FRONT at its height lands on the principal point
    p_ego = np.array([0.80 + 10.0, 0.0, 1.60, 1.0])
    p_lidar = np.linalg.inv(rig.lidar2ego()) @ p_ego
    u, v, w, _ = rig.lidar2img(by_id["CAM_FRONT"]) @ p_lidar
    assert (u / w, v / w, w) == pytest.approx((800.0, 450.0, 10.0))


def test_the_rig_is_bench2drivezoo_s():
    assert [s["id"] for s in rig.UNIAD_RIG] == list(rig.CAMERAS)
    mounts = {s["id"]: (s["x"], s["y"], s["z"], s["yaw"], s["fov"], s["width"], s["height"]) for s in rig.UNIAD_RIG}
    assert mounts["CAM_BACK"] == (-2.0, 0.0, 1.60, 180.0, 110, 1600, 900)
    assert mounts["CAM_FRONT_LEFT"] == (0.27, -0.55, 1.60, -55.0, 70, 1600, 900)
    assert mounts["CAM_BACK_RIGHT"] == (-0.32, 0.55, 1.60, 110.0, 70, 1600, 900)


def _dqt_luma(jpeg: bytes) -> list[int]:
    """The first quantisation table of a baseline JPEG, in the file's zig-zag order."""
    i = jpeg.index(b"\xff\xdb")
    return list(jpeg[i + 5:i + 5 + 64])


def test_jpeg_is_quality_20_of_the_rgb_swapped_image():
    bgra = np.zeros((900, 1600, 4), np.uint8)
    bgra[..., 0], bgra[..., 1], bgra[..., 2], bgra[..., 3] = 10, 100, 240, 255  # B, G, R, A
    data = inputs.jpeg_bytes(bgra)
    # IJG quality scaling: q < 50 -> 5000 / q = 250 %; the standard luminance table in zig-zag order starts
    # 16, 11, 12, 14 (JPEG Annex K.1)
    assert _dqt_luma(data)[:4] == [(16 * 250 + 50) // 100, (11 * 250 + 50) // 100, (12 * 250 + 50) // 100,
                                   (14 * 250 + 50) // 100]
    img = inputs.jpeg_roundtrip(bgra)
    assert img.shape == (900, 1600, 3) and img.dtype == np.uint8
    # their agent hands the model RGB bytes in cv2's BGR slots: channel 0 holds red
    assert np.abs(img[..., 0].astype(int) - 240).max() <= 4 and np.abs(img[..., 2].astype(int) - 10).max() <= 4


def test_gnss_projection_and_geo_reference():
    from roadtest.sim.sensors import gnss_from_xy

    g = gnss_from_xy(0.0, 0.0, 0.0)
    assert inputs.solve_geo_reference((0.0, 0.0), g["lat"], g["lon"]) == pytest.approx((0.0, 0.0), abs=1e-12)
    # their x equation multiplies the CARLA x by lat_ref (about 0 here), so the solved lon_ref is the first
    # fix's own longitude: the first route point lands on x = 0 while y is matched; their frame, kept
    g = gnss_from_xy(120.0, 35.0, 0.0)  # inertial (x east, y north) -> CARLA (120, -35)
    lat_ref, lon_ref = inputs.solve_geo_reference((120.0, -35.0), g["lat"], g["lon"])
    assert lon_ref == pytest.approx(g["lon"], rel=1e-9)
    assert inputs.gps_to_location(g["lat"], g["lon"], lat_ref, lon_ref) == pytest.approx([0.0, -35.0], abs=1e-6)
    h = gnss_from_xy(-40.0, 260.0, 0.0)  # 160 m west and 225 m north of the first point
    assert inputs.gps_to_location(h["lat"], h["lon"], lat_ref, lon_ref) == pytest.approx([-160.0, -260.0], abs=1e-6)


def test_can_bus_fields_by_hand():
    state = {"pos": np.array([12.0, -30.0]), "compass": math.radians(30.0), "speed": 4.5,
             "acceleration": np.array([0.3, 0.2, 9.81]), "angular_velocity": np.array([0.01, 0.02, 0.1])}
    cb = inputs.can_bus(state)
    theta = math.radians(60.0)  # pi/2 - compass: heading 30 deg east of north is 60 deg CCW from east
    expected = [12.0, 30.0, 0.0, math.cos(theta / 2), 0.0, 0.0, math.sin(theta / 2), 4.5, 0.0, 0.0,
                0.3, -0.2, 9.81, -0.01, -0.02, -0.1, theta, 60.0]
    assert cb.tolist() == pytest.approx(expected)
    # NaN compass: heading 0 and no acceleration or angular velocity, as their tick()
    s = inputs.ego_state([0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, float("nan")], 2.0, 0.0, 0.0)
    assert s["compass"] == 0.0 and not s["acceleration"].any() and not s["angular_velocity"].any()


def test_target_point_in_the_lidar_frame():
    # ego heading east (compass pi/2) at right-handed (10, 0); a node 20 m east and 3 m north (CARLA y = -3)
    cb = inputs.can_bus({"pos": np.array([10.0, 0.0]), "compass": math.pi / 2, "speed": 0.0,
                         "acceleration": np.zeros(3), "angular_velocity": np.zeros(3)})
    assert inputs.target_in_lidar((30.0, -3.0), cb, math.pi / 2) == pytest.approx([-3.0, 20.0])  # left, ahead


def test_route_planner_command_by_hand():
    # CARLA-frame nodes 0, 50 and 100 m east: LANEFOLLOW, LEFT (the junction), LANEFOLLOW
    planner = route.RoutePlanner([(0, 0), (50, 0), (100, 0)], [4, 1, 4])
    node, opt = planner.run_step((0.0, 0.0))  # nothing within 4 m: the next node, LEFT
    assert node.tolist() == [50.0, 0.0] and route.model_command(opt) == 0
    node, opt = planner.run_step((47.5, 0.5))  # the LEFT node within 4 m is passed
    assert node.tolist() == [100.0, 0.0] and route.model_command(opt) == 3
    node, opt = planner.run_step((99.0, 0.0))  # two nodes always remain
    assert node.tolist() == [100.0, 0.0]
    assert [route.model_command(v) for v in (-1, 1, 2, 3, 4, 5, 6)] == [3, 0, 1, 2, 3, 4, 5]


def test_bench2drive_plan_of_a_right_turn_route(repo_root, tmp_path):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target

    ((_, result),) = list(iter_target(repo_root / "scenarios" / "stop_sign_t_junction.yaml"))
    r = load_bundle(write_bundle(result[0], tmp_path)).meta["route"]
    plan = route.bench2drive_plan(r["waypoints"], r)
    assert plan["options"][0] == 4 and 2 in plan["options"]  # LANEFOLLOW first, RIGHT at the junction
    x0, y0 = r["waypoints"][0][:2]
    x1, y1 = r["waypoints"][-1][:2]
    (a, b), (c, d) = plan["nodes"][0], plan["nodes"][-1]
    assert b == pytest.approx(-y0, abs=1e-6)  # GNSS back to CARLA's y (x shifted as their geo-reference does)
    assert (c - a, d - b) == pytest.approx((x1 - x0, -(y1 - y0)), abs=1e-6)
    gaps = np.linalg.norm(np.diff(np.asarray(plan["nodes"]), axis=0), axis=1)
    assert gaps.max() <= 53.0  # downsampled to about 50 m (and at every change of RoadOption)


def test_pid_by_hand():
    straight = [[0.0, 2.5 * i] for i in range(1, 7)]  # 2.5 m per 0.5 s: desired 5 m/s
    c = pid.PIDController()
    steer, throttle, brake, meta = c.control_pid(straight, 0.0, [0.0, 20.0])
    assert meta["desired_speed"] == pytest.approx(5.0) and meta["aim"] == [0.0, 2.5]
    # speed PID on clip(5 - 0, 0, 0.25): 5 * 0.25 + 0.5 * 0.25 / 40 + 1.0 * 0.25 = 1.503 -> 0.75
    assert (steer, throttle, brake) == (0.0, 0.75, 0.0)
    _, throttle, _, _ = c.control_pid(straight, 4.9, [0.0, 20.0])
    assert throttle == pytest.approx(5 * 0.1 + 0.5 * 0.35 / 40 + 1.0 * (0.1 - 0.25))
    _, throttle, brake, _ = c.control_pid(straight, 6.0, [0.0, 20.0])  # 6 / 5 > 1.1: brake
    assert (throttle, brake) == (0.0, 1.0)
    # the route target 45 deg to the right and 5 m ahead turns away from the plan's last segment: it wins
    c = pid.PIDController()
    steer, _, _, meta = c.control_pid([[1.0, 4.0 * i] for i in range(1, 7)], 0.0, [5.0, 5.0])
    assert meta["use_target"] and meta["angle_final"] == pytest.approx(0.5)
    assert steer == pytest.approx(0.75 * 0.5 + 0.75 * 0.5 / 40 + 0.3 * 0.5)


def test_post_processing_and_uniad_throttle_cut():
    assert pid.postprocess(0.2, 0.5, 0.03, 5.5) == (0.2, 0.5, 0.0)
    assert pid.postprocess(0.2, 0.5, 0.03, 5.5, speed_cut=5.0) == (0.2, 0.0, 0.0)
    assert pid.postprocess(-1.4, 0.9, 0.0, 1.0, speed_cut=5.0) == (-1.0, 0.75, 0.0)
    assert pid.postprocess(0.0, 0.2, 0.1, 1.0) == (0.0, 0.2, 0.0)  # throttle above brake: no brake
    assert pid.postprocess(0.0, 0.0, 1.0, 1.0) == (0.0, 0.0, 1.0)


def test_agent_config_defaults_and_errors(tmp_path):
    from roadtest.agents.registry import load_agent

    assert load_agent("e2e-server").config["throttle_cut"] == 5.0  # UniAD: on
    assert load_agent("e2e-server", {"model": "vad"}).config["throttle_cut"] is None
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: uniad\nurll: http://x\n")
    with pytest.raises(UserError, match=r"bad.yaml: unknown key\(s\) \['urll'\]"):
        load_agent("e2e-server", bad)
    with pytest.raises(UserError, match="model: expected one of"):
        load_agent("e2e-server", {"model": "unaid"})
    with pytest.raises(UserError, match="infer_every"):
        load_agent("e2e-server", {"infer_every": 0})
