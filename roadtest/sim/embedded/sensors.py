"""observe() for the built-in simulator: speedometer, IMU, GNSS/pose, route, map and the privileged objects sensor."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import UserError

__all__ = ["observe", "gnss_from_xy", "EARTH_RADIUS", "CAMERA_TYPES", "UNRENDERED"]

EARTH_RADIUS = 6378137.0  # m, WGS84 equatorial (spherical Mercator, geo-origin at lat 0, lon 0 as CARLA towns)
G = 9.81
CAMERA_TYPES = frozenset({"sensor.camera.rgb", "sensor.camera.depth", "sensor.camera.semantic_segmentation",
                          "roadtest.bev"})  # rendered by roadtest.sim.embedded.render (imported on first use)
UNRENDERED = "the built-in simulator renders no lidar or radar"


def gnss_from_xy(x: float, y: float, z: float) -> dict[str, float]:
    """Latitude/longitude (degrees) of a map point through a spherical Mercator projection around (0, 0)."""
    lon = math.degrees(x / EARTH_RADIUS)
    lat = math.degrees(2.0 * math.atan(math.exp(y / EARTH_RADIUS)) - 0.5 * math.pi)
    return {"lat": lat, "lon": lon, "alt": z}


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


def _cameras(sim, specs: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Camera images; the run's renderer (and the process's GL context) is made on the first camera reading."""
    cams = getattr(sim, "cameras", None)
    if cams is None:
        from roadtest.sim.embedded.render.cameras import Cameras

        cams = sim.cameras = Cameras(sim.network)
    return cams.observe(sim.state, specs)


def observe(sim, specs: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Sensor data {id: (frame, data)} for the current tick of an EmbeddedSimulation."""
    state = sim.state
    ego = state.ego if state is not None else None
    frame = state.frame if state is not None else 0
    cams = [s for s in specs if str(s.get("type", "")) in CAMERA_TYPES]
    out: dict[str, Any] = _cameras(sim, cams) if cams else {}
    for spec in specs:
        kind = str(spec.get("type", ""))
        sid = str(spec.get("id", kind))
        if kind in CAMERA_TYPES:
            continue
        if kind.startswith("sensor.camera") or kind.startswith("sensor.lidar") or kind.startswith("sensor.other.radar"):
            raise UserError(f"sensor {sid!r} ({kind}): {UNRENDERED}; supported types: {', '.join(sorted(CAMERA_TYPES))}, "
                            "sensor.speedometer, sensor.other.imu, sensor.other.gnss, roadtest.pose, roadtest.route, "
                            "roadtest.objects, sensor.opendrive_map")
        if kind == "roadtest.route":
            out[sid] = (frame, [tuple(p) for p in (sim.meta.get("route") or {}).get("waypoints", [])])
            continue
        if kind == "sensor.opendrive_map":
            out[sid] = (frame, {"opendrive": _xodr_text(sim)})
            continue
        if ego is None:
            raise UserError(f"sensor {sid!r} ({kind}): the scenario has no ego vehicle to mount it on")
        if kind == "sensor.speedometer":
            data: Any = {"speed": ego.speed}
        elif kind == "sensor.other.imu":
            compass = (0.5 * math.pi - ego.h) % math.tau  # radians clockwise from north, as CARLA
            data = {"accelerometer": [ego.ax, ego.ay, G], "gyroscope": [0.0, 0.0, ego.yaw_rate], "compass": compass}
        elif kind == "sensor.other.gnss":
            data = {**gnss_from_xy(ego.x, ego.y, ego.z), "x": ego.x, "y": ego.y, "z": ego.z, "h": ego.h}
        elif kind == "roadtest.pose":
            data = {"x": ego.x, "y": ego.y, "z": ego.z, "h": ego.h}
        elif kind == "roadtest.objects":
            data = _objects(sim, ego)
        else:
            raise UserError(f"sensor {sid!r}: unknown sensor type {kind!r} (expected one of {', '.join(sorted(CAMERA_TYPES))}, sensor.speedometer, "
                            "sensor.other.imu, sensor.other.gnss, roadtest.pose, roadtest.route, roadtest.objects, "
                            "sensor.opendrive_map)")
        out[sid] = (frame, data)
    return out
