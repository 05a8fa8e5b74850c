"""The agent API: the CARLA leaderboard's AutonomousAgent shape, plus a planned trajectory and free text.

An agent is built once per run: the constructor calls `setup(config)`; the runner then asks `sensors()`
once, calls the agent (`agent(input_data, timestamp)`, which runs `run_step`) every tick with
`input_data[id] = (frame, data)` as the leaderboard does, and finally `destroy()`. After each call
`last_output` holds the control with the planned trajectory (ego frame, x forward, y left, every 0.5 s)
and the text that `run_step` left in `self.planned` / `self.text` (and `self.record`, a JSON-able dict).

Sensor data come in the leaderboard's formats: speedometer {"speed": m/s}; IMU a float array of 7
(accelerometer x, y, z; gyroscope x, y, z; compass), GNSS an array (lat, lon, alt), both in CARLA's frame;
roadtest's privileged types (roadtest.pose, roadtest.route, roadtest.objects) in roadtest's inertial frame.
Which types a run can have is the backend's `Simulator.sensor_types()`.
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any, Mapping

from roadtest.errors import RoadtestError, UserError
from roadtest.sim.api import AgentOutput, Control

__all__ = ["AutonomousAgent", "AgentContractError", "as_control", "check_sensors", "Track", "sensor_spec", "sensor_data",
           "load_config", "PLAN_DT", "PLAN_STEPS"]

PLAN_DT = 0.5  # s between planned waypoints
PLAN_STEPS = 6  # planned waypoints: 3 s ahead


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


def check_sensors(specs: Any, supported: frozenset[str] | None, backend: str = "the backend",
                  agent: str = "agent") -> list[dict[str, Any]]:
    """The agent's sensor specs as a list, refused (UserError) when malformed, when two share an id (as the
    leaderboard refuses), or when `supported` (None: unchecked) lacks a type; the message lists what is supported."""
    try:
        specs = list(specs or [])
    except TypeError:
        raise UserError(f"{agent}.sensors() must return a list of sensor dicts, got {type(specs).__name__}") from None
    seen: set[str] = set()
    out = []
    for i, spec in enumerate(specs):
        if not isinstance(spec, Mapping) or not isinstance(spec.get("type"), str) or not isinstance(spec.get("id"), str):
            raise UserError(f"{agent}.sensors()[{i}]: expected a dict with string 'type' and 'id', got {spec!r}")
        if spec["id"] in seen:
            raise UserError(f"{agent}.sensors(): duplicated sensor id {spec['id']!r}")
        seen.add(spec["id"])
        if supported is not None and spec["type"] not in supported:
            raise UserError(f"{agent}.sensors(): sensor {spec['id']!r} has type {spec['type']!r}, which {backend} cannot "
                            f"provide; supported sensor types: {', '.join(sorted(supported))}")
        out.append(dict(spec))
    return out


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
        self.record: dict[str, Any] | None = None  # JSON-able detail of this step's decision, kept in the trace
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
        self.planned, self.text, self.record = None, None, None
        control = as_control(self.run_step(input_data, timestamp), type(self).__name__)
        planned = tuple((float(x), float(y)) for x, y in self.planned) if self.planned is not None else None
        self.last_output = AgentOutput(time=float(timestamp), control=control, planned=planned, text=self.text,
                                       record=self.record)
        return control


class AgentContractError(RoadtestError):
    """An agent broke the API (run_step returned something that is not a control): the run is an agent_error."""


def as_control(value: Any, agent: str = "agent") -> Control:
    """A Control clipped to the leaderboard's ranges, from roadtest's Control or a carla.VehicleControl-like
    object (throttle, steer, brake numbers; hand_brake, reverse flags); anything else is an AgentContractError."""
    if isinstance(value, Control):
        raw = value
    else:
        try:
            nums = [getattr(value, k) for k in ("throttle", "steer", "brake")]
            if isinstance(value, Mapping) or not all(isinstance(v, numbers.Real) for v in nums):
                raise TypeError
            raw = Control(throttle=float(nums[0]), steer=float(nums[1]), brake=float(nums[2]),
                          hand_brake=bool(getattr(value, "hand_brake", False)), reverse=bool(getattr(value, "reverse", False)))
        except (AttributeError, TypeError):
            shown = repr(value)
            raise AgentContractError(
                f"{agent}.run_step returned {type(value).__name__} {shown[:80]}{'...' if len(shown) > 80 else ''}; "
                "run_step must return a control: roadtest.sim.api.Control or carla.VehicleControl "
                "(throttle 0..1, steer -1..1, brake 0..1, hand_brake, reverse)") from None
    bad = [k for k in ("throttle", "steer", "brake") if not math.isfinite(getattr(raw, k))]
    if bad:
        raise AgentContractError(f"{agent}.run_step returned a control with non-finite {', '.join(bad)}: {raw}")
    return Control(throttle=min(max(raw.throttle, 0.0), 1.0), steer=min(max(raw.steer, -1.0), 1.0),
                   brake=min(max(raw.brake, 0.0), 1.0), hand_brake=raw.hand_brake, reverse=raw.reverse)
