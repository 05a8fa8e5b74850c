"""The UniAD / VAD camera rig of Bench2DriveZoo's agents and the lidar-frame calibration derived from it.

The models read every matrix in a virtual "lidar" frame (x = ego right, y = ego forward, z up; origin at ego
(-0.39, 0, 1.84) m) that Bench2DriveZoo hard-codes; here the matrices are computed from the mounts: pinhole
f = w / (2 tan(fov/2)), principal point at the image centre, camera frame x right, y down, z forward.
Mounts are leaderboard spec dicts in CARLA's vehicle frame (x forward, y right, z up, yaw clockwise seen from above).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from roadtest.agents.baselines.e2e_server import CAMERAS
from roadtest.sim.embedded.render.rigs import UNIAD_RIG  # the one definition of the six mounts

__all__ = ["CAMERAS", "UNIAD_RIG", "LIDAR_ORIGIN", "lidar2ego", "intrinsics", "cam2ego", "lidar2cam", "lidar2img",
           "calibration"]

LIDAR_ORIGIN = (-0.39, 0.0, 1.84)  # m, in the right-handed ego frame (x forward, y left, z up)

def lidar2ego() -> np.ndarray:
    """4x4 lidar -> ego (x forward, y left, z up): lidar x is ego -y (right), lidar y is ego x (forward)."""
    m = np.eye(4)
    m[:3, :3] = [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    m[:3, 3] = LIDAR_ORIGIN
    return m


def intrinsics(spec: Mapping[str, Any]) -> np.ndarray:
    """4x4 pinhole matrix (the models' 'viewpad') of a camera spec: f = w / (2 tan(fov/2)), centre (w/2, h/2)."""
    w, h = float(spec["width"]), float(spec["height"])
    f = w / (2.0 * math.tan(math.radians(float(spec["fov"])) / 2.0))
    k = np.eye(4)
    k[0, 0] = k[1, 1] = f
    k[0, 2], k[1, 2] = w / 2.0, h / 2.0
    return k


def cam2ego(spec: Mapping[str, Any]) -> np.ndarray:
    """4x4 camera (x right, y down, z forward) -> ego (x forward, y left, z up) for a CARLA mount (no roll/pitch)."""
    if float(spec.get("roll", 0.0)) or float(spec.get("pitch", 0.0)):
        raise ValueError(f"camera {spec.get('id')!r}: only yaw mounts are supported (roll and pitch must be 0)")
    psi = -math.radians(float(spec.get("yaw", 0.0)))  # CARLA yaw turns right; the ego frame's turns left
    fwd = (math.cos(psi), math.sin(psi), 0.0)
    right = (math.sin(psi), -math.cos(psi), 0.0)
    down = (0.0, 0.0, -1.0)
    m = np.eye(4)
    m[:3, :3] = np.column_stack([right, down, fwd])
    m[:3, 3] = (float(spec.get("x", 0.0)), -float(spec.get("y", 0.0)), float(spec.get("z", 0.0)))
    return m


def lidar2cam(spec: Mapping[str, Any]) -> np.ndarray:
    """4x4 lidar -> camera."""
    return np.linalg.inv(cam2ego(spec)) @ lidar2ego()


def lidar2img(spec: Mapping[str, Any]) -> np.ndarray:
    """4x4 lidar -> image (pixels, homogeneous): intrinsics @ lidar2cam."""
    return intrinsics(spec) @ lidar2cam(spec)


def calibration(rig: Sequence[Mapping[str, Any]] = UNIAD_RIG) -> dict[str, Any]:
    """The protocol's calibration block: per camera lidar2img, lidar2cam, intrinsics, cam2ego (4x4 lists), and
    lidar2ego, in CAMERAS order."""
    by_id = {s["id"]: s for s in rig}
    missing = [c for c in CAMERAS if c not in by_id]
    if missing:
        raise ValueError(f"the rig lacks camera(s) {missing}")
    out: dict[str, Any] = {"lidar2img": {}, "lidar2cam": {}, "intrinsics": {}, "cam2ego": {}}
    for cid in CAMERAS:
        spec = by_id[cid]
        out["lidar2img"][cid] = lidar2img(spec).tolist()
        out["lidar2cam"][cid] = lidar2cam(spec).tolist()
        out["intrinsics"][cid] = intrinsics(spec).tolist()
        out["cam2ego"][cid] = cam2ego(spec).tolist()
    out["lidar2ego"] = lidar2ego().tolist()
    return out
