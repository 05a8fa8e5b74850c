"""observe() for the built-in simulator: one handler per sensor type in SENSORS, data in the leaderboard's formats.

A new sensor is one entry: SENSORS["sensor.camera.rgb"] = handler(sim, ego, spec) -> data, where ego is the
ego's ActorState (None when the scenario has none) and spec the agent's sensor dict. The keys of SENSORS are
what EmbeddedSimulator.sensor_types() reports, so an agent asking for anything else is refused before its run.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from roadtest.errors import UserError
from roadtest.sim.carla.frames import (EARTH_RADIUS, angular_velocity_to_carla, compass_from_heading, gnss_from_carla_location,
                                       location_to_carla, vector_to_carla)

__all__ = ["observe", "SENSORS", "CAMERA_TYPES", "gnss_from_xy", "EARTH_RADIUS"]

G = 9.81


def gnss_from_xy(x: float, y: float, z: float) -> dict[str, float]:
    """Latitude/longitude (degrees) and altitude of a map point, geo-reference (0, 0) as CARLA's default."""
    lat, lon, alt = gnss_from_carla_location(*location_to_carla(x, y, z))
    return {"lat": lat, "lon": lon, "alt": alt}


def _objects(sim, ego) -> dict[str, Any]:
    """The privileged objects reading; the run keeps one ObjectsSensor (its map and meta data are built once)."""
    sensor = getattr(sim, "objects_sensor", None)
    if sensor is None:
        from roadtest.sim.objects_sensor import ObjectsSensor

        sensor = sim.objects_sensor = ObjectsSensor(sim.network, sim.meta)
    return sensor(sim.state, ego.id)


def _xodr_text(sim) -> str:
    path = getattr(sim.engine, "xodr_path", None) or (sim.bundle.xodr if sim.bundle is not None else None)
    return Path(path).read_text() if path else ""


def _mount(spec) -> tuple[float, float, float, float]:
    """The spec's mount in roadtest's vehicle frame: forward, left, up (m) and yaw (rad, counter-clockwise);
    the spec gives CARLA's (x forward, y right, yaw degrees clockwise)."""
    return (float(spec.get("x", 0.0)), -float(spec.get("y", 0.0)), float(spec.get("z", 0.0)),
            -math.radians(float(spec.get("yaw", 0.0))))


def _imu(sim, ego, spec) -> np.ndarray:
    """The leaderboard's IMU array: accelerometer x, y, z (m/s^2, gravity included), gyroscope x, y, z (rad/s),
    compass (rad clockwise from north), all in the sensor's CARLA frame (x forward, y right, z up).

    Mounted at (fx, ly) off the reference point, the sensor also feels the turn's centripetal -w^2 r (the
    yaw acceleration's tangential part is not modelled); a yawed mount turns its axes and its compass."""
    fx, ly, _, myaw = _mount(spec)
    w = ego.yaw_rate
    ax, ay = ego.ax - w * w * fx, ego.ay - w * w * ly
    c, s = math.cos(myaw), math.sin(myaw)
    acc = vector_to_carla(c * ax + s * ay, -s * ax + c * ay, G)
    gyro = angular_velocity_to_carla(0.0, 0.0, w)
    return np.array([*acc, *gyro, compass_from_heading(ego.h + myaw)], dtype=np.float64)


def _gnss(sim, ego, spec) -> np.ndarray:
    """The leaderboard's GNSS array: latitude, longitude (degrees), altitude (m) of the sensor's mount point."""
    fx, ly, uz, _ = _mount(spec)
    c, s = math.cos(ego.h), math.sin(ego.h)
    g = gnss_from_xy(ego.x + c * fx - s * ly, ego.y + s * fx + c * ly, ego.z + uz)
    return np.array([g["lat"], g["lon"], g["alt"]], dtype=np.float64)


Handler = Callable[[Any, Any, Mapping[str, Any]], Any]

SENSORS: dict[str, Handler] = {
    "sensor.speedometer": lambda sim, ego, spec: {"speed": ego.speed},  # m/s, forward
    "sensor.other.imu": _imu,
    "sensor.other.gnss": _gnss,
    "roadtest.pose": lambda sim, ego, spec: {"x": ego.x, "y": ego.y, "z": ego.z, "h": ego.h},  # inertial frame
    "roadtest.route": lambda sim, ego, spec: [tuple(p) for p in (sim.meta.get("route") or {}).get("waypoints", [])],
    "roadtest.objects": lambda sim, ego, spec: _objects(sim, ego),
    "sensor.opendrive_map": lambda sim, ego, spec: {"opendrive": _xodr_text(sim)},
}
NO_EGO_NEEDED = frozenset({"roadtest.route", "sensor.opendrive_map"})


def _run_cameras(sim):
    """The run's cameras; the renderer (and the process's GL context) is made on the first camera reading."""
    cams = getattr(sim, "cameras", None)
    if cams is None:
        from roadtest.sim.embedded.render.cameras import Cameras

        cams = sim.cameras = Cameras(sim.network)
    return cams


# rendered by roadtest.sim.embedded.render: BGRA images in CARLA's formats (observe() renders a tick's cameras
# together, so cameras with the same mounting share one render)
CAMERA_TYPES = frozenset({"sensor.camera.rgb", "sensor.camera.depth", "sensor.camera.semantic_segmentation",
                          "roadtest.bev"})


def _camera(sim, ego, spec) -> Any:
    """One camera's image by itself."""
    return _run_cameras(sim).observe(sim.state, [spec])[str(spec.get("id", spec.get("type")))][1]


SENSORS.update({kind: _camera for kind in CAMERA_TYPES})


def _ray_sensor(kind: str) -> Handler:
    def handler(sim, ego, spec):
        """Lidar or radar rays cast against the cameras' scene (roadtest.sim.embedded.lidar)."""
        from roadtest.sim.embedded import lidar

        tick = float(getattr(getattr(sim, "settings", None), "tick", 0.05))
        return getattr(lidar, kind)(sim, ego, spec, _run_cameras(sim).renderer, tick)

    return handler


SENSORS.update({"sensor.lidar.ray_cast": _ray_sensor("lidar"), "sensor.other.radar": _ray_sensor("radar")})


def observe(sim, specs: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Sensor data {id: (frame, data)} for the current tick of an EmbeddedSimulation."""
    state = sim.state
    ego = state.ego if state is not None else None
    frame = state.frame if state is not None else 0
    cams = [s for s in specs if s.get("type") in CAMERA_TYPES]
    out: dict[str, Any] = _run_cameras(sim).observe(state, cams) if cams and ego is not None else {}
    for spec in specs:
        kind = str(spec.get("type", ""))
        sid = str(spec.get("id", kind))
        if kind in CAMERA_TYPES and sid in out:  # (frame, image): a camera's frame stands until its sensor_tick
            continue
        handler = SENSORS.get(kind)
        if handler is None:
            raise UserError(f"sensor {sid!r}: unknown sensor type {kind!r} (expected one of {sorted(SENSORS)})")
        if ego is None and kind not in NO_EGO_NEEDED:
            raise UserError(f"sensor {sid!r} ({kind}): the scenario has no ego vehicle to mount it on")
        out[sid] = (frame, handler(sim, ego, spec))
    return out
