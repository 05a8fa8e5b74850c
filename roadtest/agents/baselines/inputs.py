"""The model inputs Bench2DriveZoo's UniAD / VAD agents build each tick, rebuilt from leaderboard sensor data.

Images: BGRA -> drop alpha -> BGR2RGB -> JPEG at quality 20 (cv2), the bytes the server decodes with
cv2.imdecode, so it holds the very array their agent feeds the model (RGB bytes that cv2 took for BGR).
Pose: the GNSS fix through their Mercator projection around a reference solved from the route's first point;
heading from the IMU compass (NaN -> 0, and then no acceleration or angular velocity); can_bus as their run_step.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["JPEG_QUALITY", "EARTH_RADIUS", "jpeg_bytes", "jpeg_roundtrip", "solve_geo_reference", "gps_to_location",
           "ego_state", "can_bus", "lidar2global", "target_in_lidar", "yaw_quaternion"]

JPEG_QUALITY = 20  # their agents compress every frame as the training data were compressed
EARTH_RADIUS = 6378137.0  # m, the equatorial radius of their projection


def jpeg_bytes(bgra: np.ndarray, quality: int = JPEG_QUALITY) -> bytes:
    """A CARLA camera image (H x W x 4 BGRA, or BGR) as their agent's JPEG: channels swapped to RGB, then encoded."""
    import cv2

    rgb = cv2.cvtColor(np.ascontiguousarray(bgra[:, :, :3]), cv2.COLOR_BGR2RGB)
    ok, buf = cv2.imencode(".jpg", rgb, [int(cv2.IMWRITE_JPEG_QUALITY), int(quality)])
    if not ok:
        raise RuntimeError("cv2.imencode failed on a camera image")
    return buf.tobytes()


def jpeg_roundtrip(bgra: np.ndarray, quality: int = JPEG_QUALITY) -> np.ndarray:
    """The H x W x 3 array their agent gives the model for one camera (RGB order after the decode)."""
    import cv2

    return cv2.imdecode(np.frombuffer(jpeg_bytes(bgra, quality), np.uint8), cv2.IMREAD_COLOR)


def solve_geo_reference(world_xy: Sequence[float], lat: float, lon: float) -> tuple[float, float]:
    """(lat_ref, lon_ref) from the route's first GNSS fix and CARLA point, as their agents solve it (the same two
    equations, scipy's fsolve from (0, 0)). Their x equation multiplies the CARLA x by lat_ref, so away from
    lat 0 the solution puts the first point at x = 0 (y is matched): positions are shifted, differences kept."""
    import warnings

    from scipy.optimize import fsolve

    locx, locy = float(world_xy[0]), float(world_xy[1])

    def equations(v):
        x, y = v
        c = math.cos(x * math.pi / 180)
        return [lon * c - (locx * x * 180) / (math.pi * EARTH_RADIUS) - c * y,
                math.log(math.tan((lat + 90) * math.pi / 360)) * EARTH_RADIUS * c + locy
                - c * EARTH_RADIUS * math.log(math.tan((90 + x) * math.pi / 360))]

    with warnings.catch_warnings():  # fsolve's "not making good progress": the same answer theirs gets
        warnings.simplefilter("ignore", RuntimeWarning)
        sol = fsolve(equations, [0.0, 0.0])
    return float(sol[0]), float(sol[1])


def gps_to_location(lat: float, lon: float, lat_ref: float, lon_ref: float) -> np.ndarray:
    """CARLA-frame (x, y) of a GNSS fix: their Mercator projection (y grows southwards, as CARLA's)."""
    scale = math.cos(lat_ref * math.pi / 180.0)
    my = math.log(math.tan((lat + 90) * math.pi / 360.0)) * (EARTH_RADIUS * scale)
    mx = (lon * (math.pi * EARTH_RADIUS * scale)) / 180.0
    y = scale * EARTH_RADIUS * math.log(math.tan((90.0 + lat_ref) * math.pi / 360.0)) - my
    x = mx - scale * lon_ref * math.pi * EARTH_RADIUS / 180.0
    return np.array([x, y])


def ego_state(gnss: Sequence[float], imu: Sequence[float], speed: float, lat_ref: float, lon_ref: float) -> dict[str, Any]:
    """Position (CARLA frame), compass, acceleration and angular velocity as their tick(): a NaN compass gives
    compass 0 and zero acceleration and angular velocity."""
    imu = np.asarray(imu, dtype=float)
    compass = float(imu[-1])
    acc, gyro = imu[:3].copy(), imu[3:6].copy()
    if math.isnan(compass):
        compass, acc, gyro = 0.0, np.zeros(3), np.zeros(3)
    return {"pos": gps_to_location(float(gnss[0]), float(gnss[1]), lat_ref, lon_ref), "compass": compass,
            "speed": float(speed), "acceleration": acc, "angular_velocity": gyro}


def yaw_quaternion(theta: float) -> list[float]:
    """(w, x, y, z) of a rotation by theta about z, as pyquaternion's Quaternion(axis=[0, 0, 1], radians=theta)."""
    return [math.cos(theta / 2.0), 0.0, 0.0, math.sin(theta / 2.0)]


def can_bus(state: dict[str, Any]) -> np.ndarray:
    """The 18 values of their run_step: [0:2] position (y flipped to the right-handed frame), [3:7] yaw quaternion,
    [7] speed, [10:13] acceleration with y negated, [13:16] negated angular velocity, [16] yaw (rad), [17] yaw (deg);
    [2], [8], [9] stay 0. Yaw = pi/2 - compass: counter-clockwise from east."""
    theta = -state["compass"] + math.pi / 2
    cb = np.zeros(18)
    cb[0] = state["pos"][0]
    cb[1] = -state["pos"][1]
    cb[3:7] = yaw_quaternion(theta)
    cb[7] = state["speed"]
    cb[10:13] = state["acceleration"]
    cb[11] *= -1
    cb[13:16] = -np.asarray(state["angular_velocity"], dtype=float)
    cb[16] = theta
    cb[17] = theta / math.pi * 180
    return cb


def lidar2global(cb: np.ndarray, l2e: np.ndarray) -> np.ndarray:
    """4x4 lidar -> world (right-handed): ego2world from can_bus position and yaw, times lidar2ego."""
    theta = float(cb[16])
    e2w = np.eye(4)
    e2w[:2, :2] = [[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]]
    e2w[0:2, 3] = cb[0:2]
    return e2w @ l2e


def target_in_lidar(node_xy: Sequence[float], cb: np.ndarray, compass: float) -> np.ndarray:
    """A route node (CARLA frame) relative to the ego in the lidar frame (x right, y forward): the PID's target
    point, as their run_step rotates it by the compass."""
    d = np.array([float(node_xy[0]) - cb[0], -float(node_xy[1]) - cb[1]])
    c, s = math.cos(compass), math.sin(compass)
    return np.array([[c, -s], [s, c]]) @ d
