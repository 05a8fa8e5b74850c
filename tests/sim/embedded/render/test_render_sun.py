"""The sun stands where OpenSCENARIO puts it (azimuth 0 = north, clockwise): a DSL scene at 08:00 is lit from the
east-south-east, so a truck's east-facing front is bright and its west-facing rear is in shade; at 16:00 the
reverse.

Hand calculation (DSL: azimuth = 15 deg per hour from north, elevation 60 deg * sin(pi (h - 6) / 12)):
08:00 -> azimuth 120 deg, elevation 30 deg, so the unit vector to the sun (x east, y north, z up) is
(sin 120 cos 30, cos 120 cos 30, sin 30) = (0.75, -0.433, 0.5): a face with normal +x gets cos = 0.75 of the
direct light, a face with normal -x gets none. 16:00 -> azimuth 240 deg: (-0.75, -0.433, 0.5)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import render_scene as rs

from roadtest.dsl.emit_xosc import environment as emit_environment
from roadtest.dsl.model import Environment as DslEnvironment
from roadtest.sim.api import ActorState, Environment, LanePos
from roadtest.sim.embedded.render.camera import CameraSpec
from roadtest.sim.embedded.render.formats import TAGS
from roadtest.sim.embedded.render.weather import look_of
from roadtest.sim.xosc.trailers import environment_from

CAM = {"type": "sensor.camera.rgb", "id": "Center", "x": 2.5, "z": 1.6, "width": 320, "height": 240, "fov": 60}
TRUCK = ActorState(id="truck", role="scenario", kind="truck", x=60.0, y=rs.LANE_T, z=0.0, h=0.0, speed=0.0,
                   lane=LanePos("1", -1, 60.0, rs.LANE_T), length=8.0, width=2.5, height=3.2)


def _env_at(hhmm: str) -> Environment:
    """The DSL's environment at `hhmm`, emitted as OpenSCENARIO and read back as the simulator reads it."""
    env = emit_environment(DslEnvironment(time=hhmm, weather="clear"))
    env.setVersion(minor=0)  # the bundle's scenario is OpenSCENARIO 1.0
    element = env.get_element()
    return environment_from(element, Environment())


def test_emitted_sun_follows_the_standard():
    env = _env_at("08:00")
    assert math.degrees(env.sun_azimuth) == pytest.approx(120.0) and math.degrees(env.sun_elevation) == pytest.approx(30.0)
    assert look_of(env).sun_dir == pytest.approx((0.75, -0.4330127, 0.5), abs=1e-6)
    assert math.degrees(_env_at("16:00").sun_azimuth) == pytest.approx(240.0)


def _truck_brightness(renderer, env: Environment, cam_x: float, heading: float) -> float:
    cam = CameraSpec.from_spec(CAM)
    ego = replace(rs.ego(cam_x), h=heading)
    out = renderer.render(cam, rs.state([ego, TRUCK], env), ego, ("rgb", "tags"))
    mask = out["tags"] == TAGS["truck"]
    assert mask.mean() > 0.05, "the truck fills part of the frame"
    return float(out["rgb"][..., :3][mask].mean())


def test_sun_in_the_east_at_0800_lights_the_east_side():
    """Each face against itself at 08:00 and 16:00 (same elevation, so the same sky and ambient light): only the
    direct sun differs, 0.75 of it on the east face in the morning and on the west face in the afternoon."""
    r = rs.renderer()
    morning, afternoon = _env_at("08:00"), _env_at("16:00")
    west = [_truck_brightness(r, env, TRUCK.x - 14.5, 0.0) for env in (morning, afternoon)]     # looking east at the rear
    east = [_truck_brightness(r, env, TRUCK.x + 14.5, math.pi) for env in (morning, afternoon)]  # looking west at the front
    assert east[0] > 1.5 * east[1], east
    assert west[1] > 1.5 * west[0], west
