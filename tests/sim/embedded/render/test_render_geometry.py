"""The renderer against geometry worked out by hand: CARLA's pinhole, planar depth of a wall and of the road,
CARLA's depth encoding, and semantic tags of road, sign and vehicle pixels."""

from __future__ import annotations

import math

import numpy as np
import pytest
import render_scene as rs

from roadtest.sim.api import ActorState
from roadtest.sim.embedded.render.camera import CameraSpec, camera_pose, intrinsics, project
from roadtest.sim.embedded.render.formats import decode_depth, encode_depth

W, H = 320, 240


@pytest.fixture(scope="module")
def renderer():
    r = rs.renderer()
    yield r
    r.release()


def cam(**kw) -> CameraSpec:
    spec = {"type": "sensor.camera.rgb", "id": "c", "x": 2.5, "z": 1.6, "width": W, "height": H, "fov": 90, **kw}
    return CameraSpec.from_spec(spec)


def test_focal_length_is_carlas_and_the_uniad_rig_matches_its_calibration():
    # Bench2DriveZoo's hard-coded lidar2img: f = 800 / tan(35 deg) = 1142.5 px for the 70 deg, 1600 px cameras
    k = intrinsics(CameraSpec.from_spec({"type": "sensor.camera.rgb", "id": "f", "width": 1600, "height": 900,
                                         "fov": 70}))
    assert k[0, 0] == pytest.approx(1142.5, abs=0.1) and k[1, 1] == k[0, 0]
    assert (k[0, 2], k[1, 2]) == (800.0, 450.0)
    back = intrinsics(CameraSpec.from_spec({"type": "sensor.camera.rgb", "id": "b", "width": 1600, "height": 900,
                                            "fov": 110}))
    assert back[0, 0] == pytest.approx(560.2, abs=0.1)


def test_a_known_point_projects_where_the_pinhole_formula_puts_it(renderer):
    # ego at the origin heading east; camera 2 m up, turned 30 deg right (CARLA yaw), pitched 10 deg down
    c = cam(x=0.0, y=0.0, z=2.0, yaw=30.0, pitch=-10.0)
    point = np.array([10.0, -3.0, 1.0])
    # by hand: camera forward/right/up in the world for yaw 30 right (towards -y) and pitch -10
    yaw, pitch = math.radians(-30.0), math.radians(-10.0)
    fwd = np.array([math.cos(pitch) * math.cos(yaw), math.cos(pitch) * math.sin(yaw), math.sin(pitch)])
    right = np.cross(fwd, [0.0, 0.0, 1.0])  # no roll: the right axis stays horizontal
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    d = point - np.array([0.0, 0.0, 2.0])
    f = W / (2 * math.tan(math.radians(45)))
    u = W / 2 + f * (d @ right) / (d @ fwd)
    v = H / 2 - f * (d @ up) / (d @ fwd)
    got = project(c, camera_pose(c, 0.0, 0.0, 0.0, 0.0), point[None])[0]
    assert got[:2] == pytest.approx([u, v], abs=1e-6)
    # and the rendered image agrees: a 0.12 m cube at the point shows centred on (u, v)
    cube = ActorState(id="cube", role="scenario", kind="static", x=10.0, y=-3.0, z=1.0 - 0.06, h=0.0, speed=0.0,
                      length=0.12, width=0.12, height=0.12)
    st = rs.state([rs.ego(0.0, 0.0), cube])
    tags = renderer.render(c, st, st.ego, ("tags",))["tags"]
    rows, cols = np.nonzero(tags == 20)  # CARLA's Static
    assert len(rows) >= 4
    assert cols.mean() + 0.5 == pytest.approx(u, abs=0.6) and rows.mean() + 0.5 == pytest.approx(v, abs=0.6)


def test_depth_of_a_wall_and_of_the_road_is_the_geometric_distance(renderer):
    c = cam(x=2.5, z=1.6)  # ahead of the ego's bonnet
    d_wall = 17.3  # m from the camera to the wall's face
    wall = ActorState(id="wall", role="scenario", kind="static", x=50.0 + 2.5 + d_wall + 0.5, y=rs.LANE_T, z=0.0, h=0.0,
                      speed=0.0, length=1.0, width=30.0, height=12.0)
    st = rs.state([rs.ego(50.0), wall])
    out = renderer.render(c, st, st.ego, ("depth", "depth_m", "tags"))
    mid = out["depth_m"][H // 2 - 20:H // 2 + 10, W // 2 - 40:W // 2 + 40]  # the road meets the wall 15 px down
    assert np.abs(mid - d_wall).max() < 0.005
    decoded = decode_depth(out["depth"])  # CARLA's own formula on the encoded image
    assert np.abs(decoded[H // 2 - 20:H // 2 + 10, W // 2 - 40:W // 2 + 40] - d_wall).max() < 0.005
    assert out["depth"].shape == (H, W, 4) and out["depth"].dtype == np.uint8
    # a road pixel below the horizon at row v lies at planar depth f * h_cam / (v + 0.5 - H/2) on flat ground
    f = W / 2
    v = H - 10
    z_expect = f * 1.6 / (v + 0.5 - H / 2)
    assert out["tags"][v, W // 2] in (1, 24)
    assert out["depth_m"][v, W // 2] == pytest.approx(z_expect, rel=0.01)


def test_depth_encoding_is_carlas():
    d = np.array([[0.0, 1.0, 999.9, 1000.0, 5000.0]])
    enc = encode_depth(d)
    # CARLA: normalized = (R + G*256 + B*256^2) / (256^3 - 1), metres = 1000 * normalized; R is channel 2 of BGRA
    r, g, b = enc[..., 2].astype(float), enc[..., 1].astype(float), enc[..., 0].astype(float)
    back = 1000.0 * (r + g * 256 + b * 65536) / (256 ** 3 - 1)
    assert back[0, :4] == pytest.approx([0.0, 1.0, 999.9, 1000.0], abs=1e-4)
    assert back[0, 4] == pytest.approx(1000.0)  # beyond the range saturates, as CARLA's far plane


def test_segmentation_tags_road_sign_vehicle_and_sky(renderer):
    c = cam(x=2.5, z=1.6)
    car = ActorState(id="lead", role="scenario", kind="car", x=55.0, y=rs.LANE_T, z=0.0, h=0.0, speed=10.0,
                     length=4.5, width=1.8, height=1.5)
    st = rs.state([rs.ego(40.0 - 2.5), car])  # camera at x = 40, the sign 20 m ahead
    pose = camera_pose(c, st.ego.x, st.ego.y, st.ego.z, st.ego.h)
    out = renderer.render(c, st, st.ego, ("semantic", "tags"))
    sem = out["semantic"]
    assert sem.shape == (H, W, 4) and (sem[..., 2] == out["tags"]).all() and (sem[..., :2] == 0).all()

    def tag_at(p):
        u, v, _ = project(c, pose, np.array([p]))[0]
        return int(out["tags"][int(v), int(u)])

    assert tag_at([44.0, -3.5 - 1.75, 0.0]) == 1  # lane -2's centre, 4 m ahead: Roads
    assert tag_at([rs.SIGN_S, rs.SIGN_T, rs.SIGN_CENTRE_Z]) == 8  # TrafficSigns
    assert tag_at([55.0, rs.LANE_T, 0.8]) == 14  # Car
    assert int(out["tags"][0, W // 2]) == 11  # Sky


def test_the_uniad_rig_renders_six_1600x900_views_each_looking_its_way(renderer):
    from roadtest.sim.embedded.render.cameras import Cameras
    from roadtest.sim.embedded.render.rigs import UNIAD_RIG

    behind = ActorState(id="behind", role="scenario", kind="car", x=40.0, y=rs.LANE_T, z=0.0, h=0.0, speed=5.0)
    ahead = ActorState(id="ahead", role="scenario", kind="truck", x=75.0, y=rs.LANE_T, z=0.0, h=0.0, speed=5.0,
                       length=8.0, width=2.5, height=3.2)
    st = rs.state([rs.ego(55.0), behind, ahead])
    cams = Cameras(renderer.network, renderer)
    seg = [dict(s, type="sensor.camera.semantic_segmentation") for s in UNIAD_RIG]
    out = cams.observe(st, seg)
    assert sorted(out) == sorted(s["id"] for s in UNIAD_RIG)
    tags = {k: v[1][..., 2] for k, v in out.items()}
    assert all(t.shape == (900, 1600) for t in tags.values())
    assert (tags["CAM_FRONT"] == 15).sum() > 1000 and (tags["CAM_FRONT"] == 14).sum() < 50  # truck ahead
    assert (tags["CAM_BACK"] == 14).sum() > 1000 and (tags["CAM_BACK"] == 15).sum() == 0  # car behind
    assert (tags["CAM_FRONT_RIGHT"] == 2).sum() > (tags["CAM_FRONT_LEFT"] == 2).sum()  # the sidewalk is on the right


def test_inside_a_tunnel_the_ceiling_keeps_the_sun_off():
    from roadtest.sim.embedded.render.renderer import Renderer
    from roadtest.sim.road.network import RoadNetwork

    xodr = rs.XODR.replace(b"<signals>", b'<objects><tunnel s="150" length="100" id="t1" name="tunnel" '
                                         b'type="standard"/></objects><signals>')
    r = Renderer(RoadNetwork.from_bytes(xodr, "render-tunnel.xodr"))
    c = cam(x=2.5, z=1.6)
    ground = rs.LANE_T

    def road_and_tags(x):
        st = rs.state([rs.ego(x)])
        out = r.render(c, st, st.ego, ("rgb", "tags"))
        u, v, _ = project(c, camera_pose(c, x, ground, 0.0, 0.0), np.array([[x + 8.5, ground, 0.0]]))[0]
        return out["rgb"][int(v) - 2:int(v) + 2, int(u) - 2:int(u) + 2, :3].mean(), out["tags"]

    outside, _ = road_and_tags(60.0)
    inside, tags = road_and_tags(180.0)
    r.release()
    assert inside < 0.6 * outside, (inside, outside)
    assert (tags[:, :W // 4] == 4).mean() > 0.3 and (tags[:, -W // 4:] == 4).mean() > 0.3  # walls on both sides
    assert (tags[0] == 4).all()  # the ceiling above


def test_sensor_tick_renders_every_so_often_and_repeats_the_last_frame_between(renderer):
    from roadtest.sim.embedded.render.cameras import Cameras

    cams = Cameras(renderer.network, renderer)
    spec = {"type": "sensor.camera.rgb", "id": "slow", "x": 2.5, "z": 1.6, "width": 64, "height": 48,
            "sensor_tick": 0.1}
    fast = dict(spec, id="fast", sensor_tick=0.0)
    frames = []
    for k in range(5):  # ticks of 0.05 s
        st = rs.state([rs.ego(40.0 + k)], time=0.05 * k, frame=k)
        out = cams.observe(st, [spec, fast])
        frames.append((out["slow"][0], out["fast"][0]))
    assert frames == [(0, 0), (0, 1), (2, 2), (2, 3), (4, 4)]
