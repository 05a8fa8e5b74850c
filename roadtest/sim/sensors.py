"""The pseudo-sensors every backend serves alike, computed from the run's own WorldState, and the one observe loop.

A pseudo-sensor is a handler(sim, ego, spec) -> data in the leaderboard's format, where `sim` is the Simulation
(its `state`, `meta`, `network`), `ego` the ego's ActorState (None when the scenario has none) and `spec` the
agent's sensor dict. A backend adds its native sensors (cameras, a server's own GNSS) as handlers of the same
shape, or reads a batch of them at once (cameras sharing one render), and calls `observe`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from roadtest.errors import UserError
from roadtest.sim.frames import (angular_velocity_to_carla, compass_from_heading, gnss_from_carla_location,
                                 location_to_carla, vector_to_carla)

if TYPE_CHECKING:
    from roadtest.sim.api import ActorState

__all__ = ["Handler", "PSEUDO", "NO_EGO_NEEDED", "observe", "gnss_from_xy", "G", "LIDAR_DEFAULTS", "RADAR_DEFAULTS"]

G = 9.81  # m/s^2, the gravity an accelerometer at rest reads
# the ray sensors' settings the leaderboard forces, which both backends apply where the spec leaves one out
LIDAR_DEFAULTS = {"range": 85.0, "channels": 64, "rotation_frequency": 10.0, "upper_fov": 10.0, "lower_fov": -30.0,
                  "points_per_second": 600000, "atmosphere_attenuation_rate": 0.004}
RADAR_DEFAULTS = {"horizontal_fov": 30.0, "vertical_fov": 30.0, "range": 100.0, "points_per_second": 1500}

Handler = Callable[[Any, "ActorState | None", Mapping[str, Any]], Any]


def gnss_from_xy(x: float, y: float, z: float) -> dict[str, float]:
    """Latitude/longitude (degrees) and altitude of a map point, geo-reference (0, 0) as CARLA's default."""
    lat, lon, alt = gnss_from_carla_location(*location_to_carla(x, y, z))
    return {"lat": lat, "lon": lon, "alt": alt}


def _objects(sim: Any, ego: ActorState) -> dict[str, Any]:
    """The privileged objects reading; the run keeps one ObjectsSensor (its map and meta data are built once)."""
    sensor = getattr(sim, "objects_sensor", None)
    if sensor is None:
        from roadtest.sim.objects_sensor import ObjectsSensor

        sensor = sim.objects_sensor = ObjectsSensor(sim.network, sim.meta)
    return sensor(sim.state, ego.id)


def _mount(spec: Mapping[str, Any]) -> tuple[float, float, float, float]:
    """The spec's mount in roadtest's vehicle frame: forward, left, up (m) and yaw (rad, counter-clockwise);
    the spec gives CARLA's (x forward, y right, yaw degrees clockwise)."""
    return (float(spec.get("x", 0.0)), -float(spec.get("y", 0.0)), float(spec.get("z", 0.0)),
            -math.radians(float(spec.get("yaw", 0.0))))


def _imu(sim: Any, ego: ActorState, spec: Mapping[str, Any]) -> np.ndarray:
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


def _gnss(sim: Any, ego: ActorState, spec: Mapping[str, Any]) -> np.ndarray:
    """The leaderboard's GNSS array: latitude, longitude (degrees), altitude (m) of the sensor's mount point."""
    fx, ly, uz, _ = _mount(spec)
    c, s = math.cos(ego.h), math.sin(ego.h)
    g = gnss_from_xy(ego.x + c * fx - s * ly, ego.y + s * fx + c * ly, ego.z + uz)
    return np.array([g["lat"], g["lon"], g["alt"]], dtype=np.float64)


PSEUDO: dict[str, Handler] = {
    "sensor.speedometer": lambda sim, ego, spec: {"speed": ego.speed},  # m/s, forward
    "sensor.other.imu": _imu,
    "sensor.other.gnss": _gnss,
    "roadtest.pose": lambda sim, ego, spec: {"x": ego.x, "y": ego.y, "z": ego.z, "h": ego.h},  # inertial frame
    "roadtest.route": lambda sim, ego, spec: [tuple(p) for p in (sim.meta.get("route") or {}).get("waypoints", [])],
    "roadtest.objects": lambda sim, ego, spec: _objects(sim, ego),
}
NO_EGO_NEEDED = frozenset({"roadtest.route", "sensor.opendrive_map"})


def observe(sim: Any, specs: list[Mapping[str, Any]], sensors: Mapping[str, Handler],
            batched: frozenset[str] = frozenset(),
            read_batch: Callable[[list[Mapping[str, Any]]], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Sensor data {id: (frame, data)} for the current tick, as the leaderboard hands it to run_step.

    `sensors` maps each type the backend serves to its handler (PSEUDO and the backend's own); the specs whose
    type is in `batched` are read together first by `read_batch` (when the run has an ego), and a batched
    reading it gives is kept as it is (a camera's frame stands until its sensor_tick)."""
    state = sim.state
    ego = state.ego if state is not None else None
    frame = state.frame if state is not None else 0
    group = [s for s in specs if s.get("type") in batched]
    out: dict[str, Any] = read_batch(group) if group and read_batch is not None and ego is not None else {}
    for spec in specs:
        kind = str(spec.get("type", ""))
        sid = str(spec.get("id", kind))
        if kind in batched and sid in out:
            continue
        handler = sensors.get(kind)
        if handler is None:
            raise UserError(f"sensor {sid!r}: unknown sensor type {kind!r} (expected one of {sorted(sensors)})")
        if ego is None and kind not in NO_EGO_NEEDED:
            raise UserError(f"sensor {sid!r} ({kind}): the scenario has no ego vehicle to mount it on")
        out[sid] = (frame, handler(sim, ego, spec))
    return out
