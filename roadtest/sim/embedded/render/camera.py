"""Camera specs as the CARLA leaderboard writes them, CARLA's mounting transform and its pinhole projection.

A spec is {type, id, x, y, z, roll, pitch, yaw, width, height, fov, sensor_tick}: position in metres and angles
in degrees in CARLA's vehicle frame (x forward, y right, z up, yaw positive to the right, pitch positive up).
The projection is CARLA's: focal length w / (2 tan(fov / 2)) pixels on both axes, principal point at the image
centre, so a rig's calibration matrices equal those CARLA users derive. Pure numpy: no GL here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from roadtest.errors import UserError

__all__ = ["CameraSpec", "Pose3", "carla_rotation", "intrinsics", "camera_pose", "project", "view_matrix",
           "perspective", "orthographic", "NEAR", "FAR"]

NEAR = 0.1  # m, CARLA's camera near plane
FAR = 1000.0  # m, CARLA's depth camera range (the encoding saturates there)

# CARLA's blueprint defaults for sensor.camera.*
_DEFAULTS = {"x": 0.0, "y": 0.0, "z": 0.0, "roll": 0.0, "pitch": 0.0, "yaw": 0.0, "width": 800, "height": 600,
             "fov": 90.0, "sensor_tick": 0.0}


@dataclass(frozen=True)
class CameraSpec:
    """One camera: its id and CARLA type, mounting (m, degrees, CARLA vehicle frame) and image geometry."""

    id: str
    type: str
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    roll: float = 0.0  # deg
    pitch: float = 0.0  # deg
    yaw: float = 0.0  # deg
    width: int = 800  # px
    height: int = 600  # px
    fov: float = 90.0  # deg, horizontal
    sensor_tick: float = 0.0  # s; 0 renders every tick
    size: float = 0.0  # m across the image, roadtest.bev only

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> "CameraSpec":
        """Parse a leaderboard sensor dict; a missing field takes CARLA's blueprint default."""
        kind = str(spec.get("type", ""))
        sid = str(spec.get("id", kind))
        vals: dict[str, Any] = {}
        for key, default in _DEFAULTS.items():
            raw = spec.get(key, default)
            try:
                vals[key] = int(raw) if isinstance(default, int) else float(raw)
            except (TypeError, ValueError):
                raise UserError(f"sensor {sid!r} ({kind}): {key}={raw!r} is not a number") from None
            if isinstance(default, int) and not float(raw) == vals[key]:
                raise UserError(f"sensor {sid!r} ({kind}): {key}={raw!r}: expected a whole number of pixels")
        if not (1 <= vals["width"] <= 8192 and 1 <= vals["height"] <= 8192):
            raise UserError(f"sensor {sid!r} ({kind}): image {vals['width']}x{vals['height']} px: expected 1..8192 "
                            "on each side")
        if not 0.0 < vals["fov"] < 180.0:
            raise UserError(f"sensor {sid!r} ({kind}): fov={vals['fov']:g}: expected degrees in (0, 180)")
        if vals["sensor_tick"] < 0:
            raise UserError(f"sensor {sid!r} ({kind}): sensor_tick={vals['sensor_tick']:g}: expected >= 0 s")
        size = float(spec.get("size", 64.0 if kind == "roadtest.bev" else 0.0))
        if kind == "roadtest.bev" and not size > 0:
            raise UserError(f"sensor {sid!r} ({kind}): size={size:g}: expected metres across the image, > 0")
        return cls(id=sid, type=kind, size=size, **vals)

    @property
    def focal(self) -> float:
        """Focal length in pixels, CARLA's w / (2 tan(fov / 2))."""
        return self.width / (2.0 * math.tan(math.radians(self.fov) / 2.0))

    def key(self) -> tuple:
        """What decides the picture: sensors with equal keys share one render."""
        return (self.x, self.y, self.z, self.roll, self.pitch, self.yaw, self.width, self.height, self.fov,
                self.size, self.type == "roadtest.bev")


@dataclass(frozen=True)
class Pose3:
    """A camera in the world: position and its forward, right and up unit vectors (inertial frame)."""

    pos: np.ndarray
    fwd: np.ndarray
    right: np.ndarray
    up: np.ndarray


def carla_rotation(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """CARLA's Transform rotation (degrees) as a 3x3 matrix in its left-handed frame: columns are the
    sensor's forward, right and up axes expressed in the parent frame (x forward, y right, z up)."""
    cr, sr = math.cos(math.radians(roll)), math.sin(math.radians(roll))
    cp, sp = math.cos(math.radians(pitch)), math.sin(math.radians(pitch))
    cy, sy = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    return np.array([[cp * cy, cy * sp * sr - sy * cr, -cy * sp * cr - sy * sr],
                     [cp * sy, sy * sp * sr + cy * cr, -sy * sp * cr + cy * sr],
                     [sp, -cp * sr, cp * cr]])


def intrinsics(cam: CameraSpec) -> np.ndarray:
    """The 3x3 pinhole matrix K CARLA users build: f = w / (2 tan(fov/2)), principal point (w/2, h/2)."""
    f = cam.focal
    return np.array([[f, 0.0, cam.width / 2.0], [0.0, f, cam.height / 2.0], [0.0, 0.0, 1.0]])


def camera_pose(cam: CameraSpec, x: float, y: float, z: float, h: float) -> Pose3:
    """Where a camera mounted on a vehicle at (x, y, z, heading h) sits and looks, in the inertial frame."""
    fwd_v = np.array([math.cos(h), math.sin(h), 0.0])
    right_v = np.array([math.sin(h), -math.cos(h), 0.0])
    up_v = np.array([0.0, 0.0, 1.0])
    basis = np.column_stack([fwd_v, right_v, up_v])  # CARLA vehicle axes -> world
    pos = np.array([x, y, z]) + basis @ np.array([cam.x, cam.y, cam.z])
    rot = basis @ carla_rotation(cam.roll, cam.pitch, cam.yaw)
    return Pose3(pos=pos, fwd=rot[:, 0], right=rot[:, 1], up=rot[:, 2])


def project(cam: CameraSpec, pose: Pose3, points: np.ndarray) -> np.ndarray:
    """Pixel coordinates (u right, v down; pixel i spans [i, i+1)) and depth of world points: N x 3 (u, v, z)."""
    d = np.atleast_2d(np.asarray(points, dtype=float)) - pose.pos
    xc, yc, zc = d @ pose.right, -(d @ pose.up), d @ pose.fwd
    k = intrinsics(cam)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = k[0, 0] * xc / zc + k[0, 2]
        v = k[1, 1] * yc / zc + k[1, 2]
    return np.column_stack([u, v, zc])


def view_matrix(pose: Pose3, origin: np.ndarray) -> np.ndarray:
    """World (minus the scene origin) to GL eye coordinates: x right, y up, looking down -z."""
    p = pose.pos - origin
    rot = np.stack([pose.right, pose.up, -pose.fwd])
    m = np.eye(4)
    m[:3, :3] = rot
    m[:3, 3] = -rot @ p
    return m


def perspective(cam: CameraSpec, near: float = NEAR, far: float = FAR) -> np.ndarray:
    """GL projection matching CARLA's pinhole, with y flipped so that row 0 of the read-back is the image top."""
    f = cam.focal
    m = np.zeros((4, 4))
    m[0, 0] = 2.0 * f / cam.width
    m[1, 1] = -2.0 * f / cam.height
    m[2, 2] = -(far + near) / (far - near)
    m[2, 3] = -2.0 * far * near / (far - near)
    m[3, 2] = -1.0
    return m


def orthographic(width_m: float, height_m: float, near: float, far: float) -> np.ndarray:
    """GL orthographic projection (y flipped as perspective())."""
    m = np.eye(4)
    m[0, 0] = 2.0 / width_m
    m[1, 1] = -2.0 / height_m
    m[2, 2] = -2.0 / (far - near)
    m[2, 3] = -(far + near) / (far - near)
    return m
