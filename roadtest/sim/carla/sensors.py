"""The agent's sensors() as CARLA sensors on the ego, and their data in the built-in backend's input_data shapes.

Cameras (rgb, depth, semantic segmentation) give the leaderboard's H x W x 4 BGRA uint8 array, GNSS
[lat, lon, alt] (the 0.9.16 server's fix re-expressed in the leaderboard's Mercator, frames.gnss_from_carla_fix), IMU [accelerometer xyz, gyroscope xyz, compass] in CARLA's frame (as the built-in backend
computes them), lidar (N, 4) float32 [x, y, z, intensity] and radar (N, 4) [depth, altitude, azimuth, velocity]
(the leaderboard's reversed columns; drop-off off, as the built-in lidar), the speedometer pseudo-sensor {"speed": m/s along the heading}; roadtest.pose / roadtest.route /
sensor.opendrive_map are read from the run itself. The spec's x, y, z, roll, pitch, yaw are CARLA's vehicle frame
(y right, degrees), as the leaderboard passes them.
"""

from __future__ import annotations

import math
import queue
from typing import Any, Mapping

import numpy as np

from roadtest.errors import BackendError
from roadtest.sim.sensors import LIDAR_DEFAULTS, RADAR_DEFAULTS
from roadtest.sim.sensors import PSEUDO as SHARED_PSEUDO

__all__ = ["SPAWNED", "REFUSED", "PSEUDO", "SENSOR_TYPES", "blueprint_attributes", "sensor_transform", "convert", "SensorRig"]

CAMERAS = ("sensor.camera.rgb", "sensor.camera.depth", "sensor.camera.semantic_segmentation")
RAYS = ("sensor.lidar.ray_cast", "sensor.other.radar")
SPAWNED = frozenset({*CAMERAS, *RAYS, "sensor.other.gnss", "sensor.other.imu"})
REFUSED = frozenset({"roadtest.objects"})  # roadtest's privileged view of its own world, drawn by roadtest alone
# read from the run: the shared pseudo-sensors CARLA does not spawn, and the server's own map text
PSEUDO = frozenset(SHARED_PSEUDO) - SPAWNED - REFUSED | {"sensor.opendrive_map"}
SENSOR_TYPES = SPAWNED | PSEUDO
SENSOR_TIMEOUT = 10.0  # s to wait for a spawned sensor's reading of the current frame


def blueprint_attributes(spec: Mapping[str, Any]) -> dict[str, str]:
    """Blueprint attributes from a leaderboard spec (only those the spec gives; CARLA's defaults otherwise)."""
    keys = {"width": "image_size_x", "height": "image_size_y", "fov": "fov"} if spec["type"] in CAMERAS else {}
    attrs = {bp: str(spec[k]) for k, bp in keys.items() if k in spec}
    if spec["type"] in RAYS:  # the built-in backend's defaults (the leaderboard's settings), the spec's values first
        defaults = LIDAR_DEFAULTS if spec["type"] == "sensor.lidar.ray_cast" else RADAR_DEFAULTS
        attrs = {k: str(spec.get(k, v)) for k, v in defaults.items()}
        if spec["type"] == "sensor.lidar.ray_cast":
            attrs.update({"dropoff_general_rate": "0.0", "dropoff_intensity_limit": "1.0", "dropoff_zero_intensity": "0.0"})
    if spec["type"] in CAMERAS and "lens_circle_multiplier" not in spec:
        attrs["lens_circle_multiplier"] = "3.0"  # the leaderboard's setting: no vignetting ring
    return attrs


def sensor_transform(carla: Any, spec: Mapping[str, Any]):
    """The mount pose on the ego (CARLA vehicle frame: x forward, y right, z up; degrees)."""
    return carla.Transform(carla.Location(x=float(spec.get("x", 0.0)), y=float(spec.get("y", 0.0)),
                                          z=float(spec.get("z", 0.0))),
                           carla.Rotation(pitch=float(spec.get("pitch", 0.0)), roll=float(spec.get("roll", 0.0)),
                                          yaw=float(spec.get("yaw", 0.0))))


def convert(kind: str, data: Any) -> Any:
    """A CARLA measurement as the leaderboard (and the built-in backend) hands it to run_step."""
    if kind in CAMERAS:
        return np.frombuffer(bytes(data.raw_data), dtype=np.uint8).reshape(data.height, data.width, 4).copy()
    if kind == "sensor.lidar.ray_cast":  # x, y, z, intensity in the sensor frame, as the leaderboard reads it
        return np.frombuffer(bytes(data.raw_data), dtype=np.float32).reshape(-1, 4).copy()
    if kind == "sensor.other.radar":  # velocity, azimuth, altitude, depth, reversed as the leaderboard reverses them
        return np.flip(np.frombuffer(bytes(data.raw_data), dtype=np.float32).reshape(-1, 4), 1).copy()
    if kind == "sensor.other.gnss":
        from roadtest.sim.frames import gnss_from_carla_fix

        return np.array(gnss_from_carla_fix(data.latitude, data.longitude, data.altitude), dtype=np.float64)
    if kind == "sensor.other.imu":
        a, g = data.accelerometer, data.gyroscope
        return np.array([a.x, a.y, a.z, g.x, g.y, g.z, data.compass], dtype=np.float64)
    raise BackendError(f"no conversion for CARLA sensor {kind!r}")


class SensorRig:
    """The spawned sensors of one run: each listens into a queue; read(frame) waits for that frame's reading."""

    def __init__(self, carla: Any, world: Any, ego: Any, specs: list[Mapping[str, Any]]):
        self.actors: dict[str, Any] = {}
        self.kinds: dict[str, str] = {}
        self.queues: dict[str, queue.Queue] = {}
        lib = world.get_blueprint_library()
        for spec in specs:
            if spec["type"] not in SPAWNED:
                continue
            sid = str(spec.get("id", spec["type"]))
            bp = lib.find(spec["type"])
            for k, v in blueprint_attributes(spec).items():
                if bp.has_attribute(k):
                    bp.set_attribute(k, v)
            actor = world.spawn_actor(bp, sensor_transform(carla, spec), attach_to=ego)
            q: queue.Queue = queue.Queue()
            actor.listen(q.put)
            self.actors[sid], self.kinds[sid], self.queues[sid] = actor, spec["type"], q

    def read(self, sid: str, frame: int) -> Any:
        """The reading of `sid` for `frame`, older ones dropped (BackendError when it never comes)."""
        q = self.queues[sid]
        while True:
            try:
                m = q.get(timeout=SENSOR_TIMEOUT)
            except queue.Empty:
                raise BackendError(f"sensor {sid!r} sent no data for frame {frame} within {SENSOR_TIMEOUT:.0f} s") from None
            if m.frame >= frame:
                return convert(self.kinds[sid], m)

    def destroy(self) -> None:
        for actor in self.actors.values():
            try:
                actor.stop()
                actor.destroy()
            except RuntimeError:  # the server already removed it
                pass
        self.actors.clear()


def forward_speed(transform: Any, velocity: Any) -> float:
    """The leaderboard speedometer: velocity along the actor's forward axis (m/s)."""
    yaw, pitch = math.radians(transform.rotation.yaw), math.radians(transform.rotation.pitch)
    fx, fy, fz = math.cos(pitch) * math.cos(yaw), math.cos(pitch) * math.sin(yaw), math.sin(pitch)
    return velocity.x * fx + velocity.y * fy + velocity.z * fz
