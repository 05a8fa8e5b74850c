"""Which ticks of an expert's run become exam frames: signs in view by IDKB's geometry, and decision ticks.

A sign frame needs the sign within 30 m of the camera, within 35 degrees of its axis, and its face
turned at least 160 degrees from the camera's heading (IDKB's selection of CARLA frames). Of the ticks
that qualify, the one nearest 20 m is kept: close enough to read, far enough to still be ahead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from roadtest.sim.route_path import wrap_angle

if TYPE_CHECKING:
    from roadtest.sim.road.network import RoadNetwork

__all__ = ["SignPose", "sign_poses", "camera_pose", "sign_in_view", "sign_frames", "MAX_DIST", "MAX_OFF_AXIS",
           "MIN_FACING", "BEST_DIST"]

MAX_DIST = 30.0  # m
MAX_OFF_AXIS = math.radians(35.0)
MIN_FACING = math.radians(160.0)
BEST_DIST = 20.0  # m


@dataclass(frozen=True)
class SignPose:
    """A sign's face in the inertial frame: where it stands and where its face points (None: both ways)."""

    signal_id: str
    name: str
    x: float
    y: float
    z: float
    face: float | None  # rad; the direction the face looks towards


def sign_poses(network: RoadNetwork) -> list[SignPose]:
    """Every static signal of a road network, placed by its road's reference line (s, t)."""
    out = []
    for sid, sg in sorted(network.signals.items()):
        if getattr(sg, "dynamic", False):
            continue
        road = network.roads[sg.road]
        x, y, hdg = (float(np.asarray(v).reshape(-1)[0]) for v in road.world(sg.s, sg.t))
        if sg.orientation == "+":  # valid for traffic along +s: the face looks back towards it
            face = wrap_angle(hdg + math.pi)
        elif sg.orientation == "-":
            face = wrap_angle(hdg)
        else:
            face = None
        out.append(SignPose(str(sid), str(getattr(sg, "name", "") or sid), x, y, 1.5, face))
    return out


def camera_pose(ego: Any, mount: dict[str, float]) -> tuple[float, float, float]:
    """(x, y, heading) of a camera mounted on the ego (leaderboard spec: x forward, y right, yaw in degrees)."""
    c, s = math.cos(ego.h), math.sin(ego.h)
    mx, my = float(mount.get("x", 0.0)), -float(mount.get("y", 0.0))  # CARLA's y is to the right
    return ego.x + c * mx - s * my, ego.y + s * mx + c * my, wrap_angle(ego.h - math.radians(float(mount.get("yaw", 0.0))))


def sign_in_view(cam: tuple[float, float, float], sign: SignPose) -> float | None:
    """The distance to the sign when IDKB's three conditions hold, else None."""
    cx, cy, ch = cam
    dx, dy = sign.x - cx, sign.y - cy
    dist = math.hypot(dx, dy)
    if dist > MAX_DIST or dist < 1e-6:
        return None
    if abs(wrap_angle(math.atan2(dy, dx) - ch)) > MAX_OFF_AXIS:
        return None
    if sign.face is not None and abs(wrap_angle(sign.face - ch)) < MIN_FACING:
        return None
    return dist


def sign_frames(states: Sequence[Any], signs: Iterable[SignPose], mount: dict[str, float]) -> dict[str, tuple[int, float]]:
    """signal id -> (state index, distance) of the qualifying tick nearest BEST_DIST, for every sign ever in view."""
    best: dict[str, tuple[float, int, float]] = {}
    signs = list(signs)
    for i, st in enumerate(states):
        ego = st.ego
        if ego is None:
            continue
        cam = camera_pose(ego, mount)
        for sg in signs:
            d = sign_in_view(cam, sg)
            if d is None:
                continue
            key = (abs(d - BEST_DIST), i, d)
            if sg.signal_id not in best or key < best[sg.signal_id]:
                best[sg.signal_id] = key
    return {sid: (i, d) for sid, (_, i, d) in best.items()}
