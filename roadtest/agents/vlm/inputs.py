"""What the agent reads from its sensors: camera images as RGB, the ego pose, and the route ahead in words and points.

Only what the leaderboard's SENSORS track gives: cameras, speedometer, GNSS + IMU, and the global plan.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, Mapping, Sequence

import numpy as np

from roadtest.agents.base import sensor_data, sensor_spec
from roadtest.sim.route_path import RoutePath, to_ego_frame, wrap_angle

__all__ = ["camera_specs", "rgb_image", "image_digest", "stitch", "pose_from", "route_ahead", "route_command"]

EARTH_RADIUS = 6378137.0  # m, the spherical Mercator of the GNSS sensor


def camera_specs(cameras: Sequence[Mapping[str, Any]], sensor_tick: float | None = None) -> list[dict[str, Any]]:
    """Leaderboard camera dicts (m and degrees) from the config's camera list; `sensor_tick` (s, CARLA's attribute)
    asks for a frame only that often."""
    out = []
    for cam in cameras:
        c = dict(cam)
        cid = str(c.pop("id"))
        out.append(sensor_spec("sensor.camera.rgb", cid, **{k: c.pop(k, 0.0) for k in ("x", "y", "z", "roll", "pitch", "yaw")},
                               width=int(c.pop("width", 1024)), height=int(c.pop("height", 576)),
                               fov=float(c.pop("fov", 60.0)), **({"sensor_tick": sensor_tick} if sensor_tick else {}), **c))
    return out


def rgb_image(data: Any) -> np.ndarray:
    """H x W x 3 RGB uint8 from a camera's data: H x W x 4 BGRA (CARLA's layout) or H x W x 3 BGR."""
    import cv2

    arr = np.asarray(data)
    if arr.ndim != 3 or arr.shape[2] not in (3, 4) or arr.dtype != np.uint8:
        raise ValueError(f"camera data: expected H x W x 3 or 4 uint8, got {arr.dtype} {arr.shape}")
    return cv2.cvtColor(arr, cv2.COLOR_BGRA2RGB if arr.shape[2] == 4 else cv2.COLOR_BGR2RGB)


def image_digest(img: np.ndarray) -> str:
    """The first 16 hex digits of the SHA-256 of the image's bytes (with its shape)."""
    h = hashlib.sha256(str(img.shape).encode())
    h.update(np.ascontiguousarray(img).tobytes())
    return h.hexdigest()[:16]


def stitch(images: Sequence[np.ndarray]) -> np.ndarray:
    """Cameras side by side, in the config's order, padded to the tallest."""
    height = max(im.shape[0] for im in images)
    padded = [np.pad(im, ((0, height - im.shape[0]), (0, 0), (0, 0))) for im in images]
    return np.concatenate(padded, axis=1)


def pose_from(input_data: Mapping[str, Any]) -> dict[str, float] | None:
    """The ego pose (x, y, h) in the inertial frame from the leaderboard's GNSS (lat, lon, alt) and IMU compass
    (the last of its seven values): the inverse of the spherical Mercator around (0, 0) that CARLA's GNSS uses."""
    from roadtest.sim.frames import heading_from_compass

    gnss = sensor_data(input_data, "gnss")
    imu = sensor_data(input_data, "imu")
    if gnss is None or imu is None:
        return None
    if isinstance(gnss, Mapping):  # an older dict form
        gnss = [gnss["lat"], gnss["lon"], gnss.get("alt", 0.0)]
    compass = imu["compass"] if isinstance(imu, Mapping) else imu[6]
    lat, lon = float(gnss[0]), float(gnss[1])
    x = math.radians(lon) * EARTH_RADIUS
    y = EARTH_RADIUS * math.log(math.tan(0.25 * math.pi + 0.5 * math.radians(lat)))
    return {"x": x, "y": y, "h": heading_from_compass(float(compass))}


def route_ahead(route: RoutePath, pose: Mapping[str, float], s0: float, step: float = 5.0,
                distance: float = 30.0) -> list[list[float]]:
    """Route points every `step` m up to `distance` m past route position s0 (the ego's), in the ego frame
    (x forward, y left), to 0.1 m; past the route's end it goes straight on along the last heading."""
    out = []
    for k in range(1, int(distance / step) + 1):
        s = s0 + k * step
        x, y, th = route.point_at(min(s, route.length))
        if s > route.length:  # past the goal: straight on, so that a plan still reaches it at speed
            x, y = x + (s - route.length) * math.cos(th), y + (s - route.length) * math.sin(th)
        ex, ey = to_ego_frame(pose["x"], pose["y"], pose["h"], x, y)
        out.append([round(ex, 1), round(ey, 1)])
    return out


def route_command(route: RoutePath, s0: float) -> str:
    """The navigation command for the 40 m past route position s0: "turn left", "turn right" or "follow the lane"."""
    _, _, h0 = route.point_at(min(s0 + 2.0, route.length))
    _, _, h1 = route.point_at(min(s0 + 40.0, route.length))
    turn = wrap_angle(h1 - h0)
    if turn > 0.6:
        return "turn left"
    if turn < -0.6:
        return "turn right"
    return "follow the lane"
