"""The police officer shows its signal: in the camera's semantic mask the stop pose (left arm raised, palm to the
traffic, right arm out) reaches above the head, the go pose (right arm out, hand waving on) reaches out to one
side, and both differ from an officer with no signal (arms down)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import render_scene as rs

from roadtest.sim.api import ActorState, LanePos
from roadtest.sim.embedded.render.camera import CameraSpec
from roadtest.sim.embedded.render.formats import TAGS

CAM = {"type": "sensor.camera.rgb", "id": "Center", "x": 2.5, "z": 1.6, "width": 400, "height": 300, "fov": 40}
OFFICER = ActorState(id="officer", role="scenario", kind="officer", x=60.0, y=rs.LANE_T, z=0.0, h=math.pi, speed=0.0,
                     lane=LanePos("1", -1, 60.0, rs.LANE_T), length=0.4, width=0.6, height=1.8)


def _mask(renderer, signal: str | None, key: str = "officer") -> np.ndarray:
    ego = rs.ego(60.0 - 14.0 - 2.5)
    st = replace(rs.state([ego, OFFICER]), signals={key: signal} if signal else {})
    return renderer.render(CameraSpec.from_spec(CAM), st, ego, ("tags",))["tags"] == TAGS["pedestrian"]


def _extent(m: np.ndarray) -> tuple[int, int, int]:
    ys, xs = np.nonzero(m)
    return int(ys.min()), int(xs.min()), int(xs.max())  # top row, left and right columns


def test_officer_poses_differ_per_signal_state():
    r = rs.renderer()
    rest, stop, go = _mask(r, None), _mask(r, "stop"), _mask(r, "go")
    assert rest.sum() > 300
    (top_r, l_r, r_r), (top_s, l_s, r_s), (top_g, l_g, r_g) = _extent(rest), _extent(stop), _extent(go)
    # 14 m away at 40 deg over 300 px (f = 412 px): 0.7 m of raised arm is about 20 px above the cap
    assert top_s < top_r - 12
    assert (r_g - l_g) > (r_r - l_r) + 12 and top_g >= top_r - 2  # arm out sideways, nothing raised
    assert (stop != go).sum() > 100 and (rest != go).sum() > 100
    assert np.array_equal(_mask(r, "stop", "officer"), _mask(r, "red", "officer"))  # states as the monitors read them
