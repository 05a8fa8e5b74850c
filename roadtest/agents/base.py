"""The agent API: the CARLA leaderboard's AutonomousAgent shape, plus a planned trajectory and free text.

An agent is built once per run: the constructor calls `setup(config)`; the runner then asks `sensors()`
once, calls the agent (`agent(input_data, timestamp)`, which runs `run_step`) every tick with
`input_data[id] = (frame, data)` as the leaderboard does, and finally `destroy()`. After each call
`last_output` holds the control with the planned trajectory (ego frame, x forward, y left, every 0.5 s)
and the text that `run_step` left in `self.planned` / `self.text`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import UserError
from roadtest.sim.api import AgentOutput, Control

__all__ = ["AutonomousAgent", "Track", "SENSOR_TYPES", "sensor_spec", "sensor_data", "load_config", "PLAN_DT", "PLAN_STEPS"]

PLAN_DT = 0.5  # s between planned waypoints
PLAN_STEPS = 6  # planned waypoints: 3 s ahead

SENSOR_TYPES = (
    "sensor.speedometer",  # {"speed": m/s}
    "sensor.other.imu",  # {"accelerometer": [ax, ay, az], "gyroscope": [wx, wy, wz], "compass": rad}
    "sensor.other.gnss",  # {"lat", "lon", "alt"} (CARLA) or {"x", "y", "z", "h"} (embedded)
    "roadtest.pose",  # {"x", "y", "z", "h"}: the ego pose in the inertial frame
    "roadtest.route",  # [(x, y), ...]: meta.route.waypoints (the global plan)
    "roadtest.objects",  # roadtest.sim.objects_sensor.objects_view(...): privileged scene knowledge
    "sensor.opendrive_map",  # {"opendrive": xodr text}
    "sensor.camera.rgb",  # H x W x 4 uint8 BGRA, as CARLA
    "sensor.camera.depth",  # H x W x 4 uint8 BGRA: 1000 m x (R + 256 G + 65536 B) / (2^24 - 1), as CARLA
    "sensor.camera.semantic_segmentation",  # H x W x 4 uint8 BGRA, CARLA 0.9.16 tag in R
    "roadtest.bev",  # H x W x 4 uint8 BGRA top-down view around the ego, heading up; spec field size: m across
)


class Track:
    """Leaderboard tracks; roadtest's own privileged sensors put an agent on the MAP track."""

    SENSORS = "SENSORS"
    MAP = "MAP"


def sensor_spec(type: str, id: str, x: float = 0.0, y: float = 0.0, z: float = 0.0, roll: float = 0.0,
                pitch: float = 0.0, yaw: float = 0.0, **fields: Any) -> dict[str, Any]:
    """A leaderboard-style sensor dict (mount in the vehicle frame, m and degrees as the leaderboard)."""
    return {"type": type, "id": id, "x": x, "y": y, "z": z, "roll": roll, "pitch": pitch, "yaw": yaw, **fields}


def sensor_data(input_data: Mapping[str, Any], sensor_id: str, default: Any = None) -> Any:
    """The data part of input_data[id] = (frame, data); `default` when the sensor gave nothing."""
    item = input_data.get(sensor_id)
    if item is None:
        return default
    if isinstance(item, tuple) and len(item) == 2:
        return item[1]
    return item


def load_config(config: str | Path | Mapping[str, Any] | None) -> dict[str, Any]:
    """An agent's configuration: None, a mapping, or a .json / .yaml file."""
    if config is None or config == "":
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    path = Path(config)
    if not path.is_file():
        raise UserError(f"{path}: agent config file not found")
    text = path.read_text()
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except Exception as e:  # noqa: BLE001 - any parse failure is the user's file
        raise UserError(f"{path}: cannot parse agent config: {e}") from e
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UserError(f"{path}: agent config must be a mapping, got {type(data).__name__}")
    return data


class AutonomousAgent:
    """Base of every roadtest agent, in the leaderboard's shape (setup, sensors, run_step, destroy)."""

    track = Track.SENSORS
    defaults: Mapping[str, Any] = {}  # config keys the agent accepts, with their default values

    def __init__(self, path_to_conf_file: str | Path | Mapping[str, Any] | None = None):
        self.config: dict[str, Any] = {}
        self.planned: tuple[tuple[float, float], ...] | None = None
        self.text: str | None = None
        self.last_output: AgentOutput | None = None
        self.global_plan: list[tuple[float, float]] | None = None
        self.setup(path_to_conf_file)

    def setup(self, path_to_conf_file: str | Path | Mapping[str, Any] | None) -> None:
        """Read the configuration; unknown keys are a user error when `defaults` lists the accepted ones."""
        given = load_config(path_to_conf_file)
        if self.defaults:
            unknown = sorted(set(given) - set(self.defaults))
            if unknown:
                raise UserError(f"{type(self).__name__}: unknown config key(s) {unknown}; expected some of {sorted(self.defaults)}")
        self.config = {**self.defaults, **given}

    def sensors(self) -> list[dict[str, Any]]:
        """Leaderboard-style sensor specs the agent needs."""
        return []

    def set_global_plan(self, global_plan_world_coord: list[tuple[float, float]]) -> None:
        """The route as world (x, y) points, as the leaderboard hands it before the first step."""
        self.global_plan = [(float(p[0]), float(p[1])) for p in global_plan_world_coord]

    def run_step(self, input_data: Mapping[str, Any], timestamp: float) -> Control:
        """The control for this tick; may set self.planned and self.text."""
        raise NotImplementedError

    def destroy(self) -> None:
        """Release resources at the end of the run."""

    def __call__(self, input_data: Mapping[str, Any], timestamp: float) -> Control:
        """Run one step and record the control with its plan and text in `last_output`."""
        self.planned, self.text = None, None
        control = self.run_step(input_data, timestamp)
        if not isinstance(control, Control):
            control = Control(throttle=float(getattr(control, "throttle", 0.0)), steer=float(getattr(control, "steer", 0.0)),
                              brake=float(getattr(control, "brake", 0.0)), hand_brake=bool(getattr(control, "hand_brake", False)),
                              reverse=bool(getattr(control, "reverse", False)))
        control = Control(throttle=min(max(control.throttle, 0.0), 1.0), steer=min(max(control.steer, -1.0), 1.0),
                          brake=min(max(control.brake, 0.0), 1.0), hand_brake=control.hand_brake, reverse=control.reverse)
        planned = tuple((float(x), float(y)) for x, y in self.planned) if self.planned is not None else None
        self.last_output = AgentOutput(time=float(timestamp), control=control, planned=planned, text=self.text)
        return control
