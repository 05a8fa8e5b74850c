"""observe() for the built-in simulator: the shared pseudo-sensors (roadtest.sim.sensors) plus its own cameras,
rendered by roadtest.sim.embedded.render, and the OpenDRIVE text read from the bundle.

A new native sensor is one entry: SENSORS["sensor.x"] = handler(sim, ego, spec) -> data (see roadtest.sim.sensors).
The keys of SENSORS are what EmbeddedSimulator.sensor_types() reports, so an agent asking for anything else is
refused before its run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from roadtest.sim.sensors import PSEUDO, Handler
from roadtest.sim.sensors import observe as observe_sensors

__all__ = ["observe", "SENSORS", "CAMERA_TYPES"]


def _xodr_text(sim: Any) -> str:
    path = getattr(sim.engine, "xodr_path", None) or (sim.bundle.xodr if sim.bundle is not None else None)
    return Path(path).read_text() if path else ""


def _run_cameras(sim: Any) -> Any:
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


def _camera(sim: Any, ego: Any, spec: Mapping[str, Any]) -> Any:
    """One camera's image by itself."""
    return _run_cameras(sim).observe(sim.state, [spec])[str(spec.get("id", spec.get("type")))][1]


SENSORS: dict[str, Handler] = {**PSEUDO, "sensor.opendrive_map": lambda sim, ego, spec: {"opendrive": _xodr_text(sim)},
                               **{kind: _camera for kind in CAMERA_TYPES}}


def _ray_sensor(kind: str) -> Handler:
    def handler(sim, ego, spec):
        """Lidar or radar rays cast against the cameras' scene (roadtest.sim.embedded.lidar)."""
        from roadtest.sim.embedded import lidar

        tick = float(getattr(getattr(sim, "settings", None), "tick", 0.05))
        return getattr(lidar, kind)(sim, ego, spec, _run_cameras(sim).renderer, tick)

    return handler


SENSORS.update({"sensor.lidar.ray_cast": _ray_sensor("lidar"), "sensor.other.radar": _ray_sensor("radar")})


def observe(sim: Any, specs: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Sensor data {id: (frame, data)} for the current tick of an EmbeddedSimulation."""
    return observe_sensors(sim, specs, SENSORS, CAMERA_TYPES, lambda cams: _run_cameras(sim).observe(sim.state, cams))
