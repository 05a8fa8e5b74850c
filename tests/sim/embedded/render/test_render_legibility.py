"""A speed-limit sign 20 m ahead at 800x600 / 90 deg in clear daylight matches its face; beyond the fog's visual
range it does not.

Measure: the four projected corners of the sign's face (CARLA's pinhole, from the scene's geometry) give a
homography that maps the rendered face back to a square of its own size in pixels (16 px here); the square is
compared with the face, resized to it, by normalised correlation over the RGB channels inside the face's outline.

Threshold: the region must correlate with its own face above 0.9, more than with the face of every other sign of
the catalogue (so the picture identifies the sign, not only "a red disc"), and more, by 0.03, than with the faces of
the other speed values (so the digits are read, not only the ring). 0.9: a face resampled without error correlates
1.0; the renderer's shading and mip-mapped texture at 16 px keep about 0.94, the 30 / 60 / 80 faces reach about
0.88 and the best other sign (weight limit) about 0.66; through fog at the sign's distance (the visual range) the
correlation falls to about 0.2, as 5 % of the contrast is left."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import render_scene as rs

from roadtest.signs.catalogue import load_signs
from roadtest.sim.embedded.render.atlas import face_for
from roadtest.sim.embedded.render.camera import CameraSpec, camera_pose, project

THRESHOLD = 0.9
CAM = {"type": "sensor.camera.rgb", "id": "Center", "x": 2.5, "z": 1.6, "width": 800, "height": 600, "fov": 90}


def _region(renderer, env) -> np.ndarray:
    """The sign's face in the rendered image, warped to an n x n square (RGB float)."""
    import cv2

    cam = CameraSpec.from_spec(CAM)
    ego = rs.ego(rs.SIGN_S - 20.0 - 2.5)  # the camera 20 m before the sign along the road
    st = rs.state([ego], env)
    img = renderer.render(cam, st, ego, ("rgb",))["rgb"][:, :, 2::-1].astype(np.float32)  # BGRA -> RGB
    pose = camera_pose(cam, ego.x, ego.y, ego.z, ego.h)
    x, h, y, z = rs.SIGN_S - 0.05, 0.4, rs.SIGN_T, rs.SIGN_CENTRE_Z
    # the face looks down the road (-x): its top-left, seen by the driver, is the corner nearer the road (+y)
    corners = np.array([[x, y + h, z + h], [x, y - h, z + h], [x, y - h, z - h], [x, y + h, z - h]])
    uv = project(cam, pose, corners)[:, :2].astype(np.float32)
    n = int(round(np.mean(np.linalg.norm(np.roll(uv, -1, axis=0) - uv, axis=1))))
    m = cv2.getPerspectiveTransform(uv, np.float32([[0, 0], [n, 0], [n, n], [0, n]]))
    return cv2.warpPerspective(img, m, (n, n), flags=cv2.INTER_LINEAR)


def _corr(region: np.ndarray, face: np.ndarray) -> float:
    import cv2

    n = region.shape[0]
    small = cv2.resize(face, (n, n), interpolation=cv2.INTER_AREA).astype(float)
    inside = small[..., 3] > 200
    a, b = region[inside].ravel().astype(float), small[..., :3][inside].ravel()
    a, b = a - a.mean(), b - b.mean()
    denom = math.sqrt(float((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / denom) if denom > 0 else 0.0


@pytest.fixture(scope="module")
def renderer():
    r = rs.renderer()
    yield r
    r.release()


def test_a_speed_limit_sign_20_m_ahead_matches_its_face_in_daylight(renderer):
    region = _region(renderer, rs.DAY)
    assert region.shape[0] >= 14  # 0.8 m at 21.5 m with f = 400 px
    own = _corr(region, face_for("speed_limit", "DE", 50.0))
    others = {sid: _corr(region, face_for(sid, "DE", None)) for sid in load_signs() if sid != "speed_limit"}
    values = {v: _corr(region, face_for("speed_limit", "DE", float(v))) for v in (30, 60, 70, 80, 100, 120)}
    assert own > THRESHOLD, own
    assert own > max(others.values()), (own, max(others.items(), key=lambda kv: kv[1]))
    assert own > max(values.values()) + 0.03, (own, values)


def test_beyond_the_fog_visual_range_the_sign_does_not_match(renderer):
    face = face_for("speed_limit", "DE", 50.0)
    # the face is 21.5 m from the camera: at a visual range of 20 m about 4 % of its contrast is left
    assert _corr(_region(renderer, replace(rs.DAY, fog_visual_range=20.0)), face) < 0.3
    assert _corr(_region(renderer, replace(rs.DAY, fog_visual_range=10.0)), face) < 0.3
    # with a visual range of 100 m (half its contrast left) the same sign matches again: the fog hid it
    assert _corr(_region(renderer, replace(rs.DAY, fog_visual_range=100.0)), face) > THRESHOLD
