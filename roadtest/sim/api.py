"""Backend-neutral simulation API: the types every backend returns and every metric reads.

Units are SI, angles in radians, positions in the OpenDRIVE/OpenSCENARIO inertial frame
(x east, y north, z up, heading counter-clockwise from x). Everything crossing this boundary is a
frozen dataclass so a Trace cannot be changed after the fact.
"""

from __future__ import annotations

import enum
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from roadtest.errors import RoadtestError

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = [
    "DEFAULT_TICK",
    "LanePos",
    "ActorState",
    "Event",
    "Environment",
    "WorldState",
    "Control",
    "AgentOutput",
    "Termination",
    "Trace",
    "SimSettings",
    "Simulator",
    "Simulation",
    "SimulationClosed",
]

DEFAULT_TICK = 0.05  # s, as the CARLA leaderboard


@dataclass(frozen=True)
class LanePos:
    """A position in OpenDRIVE lane coordinates."""

    road: str
    lane: int
    s: float  # m along the road reference line
    t: float  # m lateral from the reference line, left positive


@dataclass(frozen=True)
class ActorState:
    """One actor at one tick."""

    id: str
    role: str  # "ego" | "scenario" | "background"
    kind: str  # car, truck, bus, emergency, motorcycle, bicycle, pedestrian, officer, static
    x: float  # m
    y: float  # m
    z: float  # m
    h: float  # rad, heading counter-clockwise from x
    speed: float  # m/s, signed along the heading
    vx: float = 0.0  # m/s, world frame
    vy: float = 0.0  # m/s, world frame
    ax: float = 0.0  # m/s^2, longitudinal (vehicle frame)
    ay: float = 0.0  # m/s^2, lateral (vehicle frame)
    yaw_rate: float = 0.0  # rad/s
    length: float = 4.5  # m, bounding box centred on (x, y)
    width: float = 1.8  # m
    height: float = 1.5  # m
    lane: LanePos | None = None
    siren: bool = False  # emergency vehicle with siren on
    visible: bool = True


@dataclass(frozen=True)
class Event:
    """Something that happened during one tick.

    kind: "collision" (actor, other, data: relative_speed m/s, other_kind),
          "lane_invasion" when the actor's box touches a marking line, once per crossing (actor, data: road,
          lane crossed from, to_lane, side, mark type/color, lane_change, allowed: bool, centre_across, s, t_line),
          "off_road" (actor), "goal_reached" (actor), "stop_trigger" (storyboard ended).
    """

    kind: str
    actor: str
    other: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Environment:
    """Weather and light in force, as OpenSCENARIO's Environment describes them."""

    cloudiness: float = 0.0  # 0..1
    precipitation: str = "dry"  # dry | rain | snow
    precipitation_intensity: float = 0.0  # 0..1
    fog_visual_range: float = 100000.0  # m
    wetness: float = 0.0  # 0..1
    friction: float = 1.0  # road friction scale factor
    time_of_day: str = "2026-06-21T12:00:00"  # ISO date-time
    sun_elevation: float = 1.0  # rad
    sun_azimuth: float = 0.0  # rad
    sun_intensity: float = 1.0  # 0..1 scale, 0 at night


@dataclass(frozen=True)
class WorldState:
    """Everything a metric may read about one tick."""

    time: float  # s since start
    frame: int
    actors: tuple[ActorState, ...]
    signals: Mapping[str, str] = field(default_factory=dict)  # signal id -> "red"/"yellow"/"green"/"off"...
    environment: Environment = field(default_factory=Environment)
    events: tuple[Event, ...] = ()

    def actor(self, actor_id: str) -> ActorState:
        for a in self.actors:
            if a.id == actor_id:
                return a
        raise KeyError(actor_id)

    @property
    def ego(self) -> ActorState | None:
        for a in self.actors:
            if a.role == "ego":
                return a
        return None


@dataclass(frozen=True)
class Control:
    """Leaderboard-style vehicle control."""

    throttle: float = 0.0  # 0..1
    steer: float = 0.0  # -1..1, positive turns right as in CARLA
    brake: float = 0.0  # 0..1
    hand_brake: bool = False
    reverse: bool = False


@dataclass(frozen=True)
class AgentOutput:
    """What the agent said at one tick, beside its control."""

    time: float
    control: Control
    planned: tuple[tuple[float, float], ...] | None = None  # ego frame (x forward, y left), every 0.5 s
    text: str | None = None
    record: dict[str, Any] | None = None  # JSON-able detail of a decision (a VLM agent's prompt, answer, parse)


class Termination(str, enum.Enum):
    """Why a run ended."""

    COMPLETED = "completed"  # storyboard stop trigger fired or the ego reached its goal
    TIMEOUT = "timeout"  # scenario time limit reached
    COLLISION = "collision"  # ended because of a collision (only when settings ask for it)
    BLOCKED = "blocked"  # ego blocked too long
    ROUTE_DEVIATION = "route_deviation"
    AGENT_ERROR = "agent_error"
    SIM_ERROR = "sim_error"
    STOPPED = "stopped"  # closed by the caller before the end


_FIELDS: dict[type, tuple[str, ...]] = {}
_SCALARS = frozenset({float, int, str, bool})


def _plain(v: Any) -> Any:
    """What dataclasses.asdict gives, as JSON writes it (sequences as lists), without its deep copies:
    a trace of many ticks is written in a fraction of the time, byte for byte the same."""
    cls = type(v)
    if cls in _SCALARS or v is None:
        return v
    names = _FIELDS.get(cls)
    if names is None and hasattr(cls, "__dataclass_fields__"):
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    if names is not None:
        out = {}
        for n in names:
            x = getattr(v, n)
            out[n] = x if x is None or type(x) in _SCALARS else _plain(x)
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def _actor_from_dict(d: dict) -> ActorState:
    lane = d.get("lane")
    return ActorState(**{**d, "lane": LanePos(**lane) if lane else None})


def _state_from_dict(d: dict) -> WorldState:
    return WorldState(
        time=d["time"],
        frame=d["frame"],
        actors=tuple(_actor_from_dict(a) for a in d["actors"]),
        signals=dict(d.get("signals", {})),
        environment=Environment(**d.get("environment", {})),
        events=tuple(Event(**e) for e in d.get("events", [])),
    )


@dataclass
class Trace:
    """A whole run: the states tick by tick, what the agent said, and why it ended."""

    states: list[WorldState] = field(default_factory=list)
    agent: list[AgentOutput] = field(default_factory=list)
    termination: Termination | None = None
    reason: str = ""
    tick: float = DEFAULT_TICK
    info: dict[str, Any] = field(default_factory=dict)  # backend, seed, bundle id...

    def to_dict(self) -> dict:
        return {
            "tick": self.tick,
            "termination": self.termination.value if self.termination else None,
            "reason": self.reason,
            "info": self.info,
            "states": [_plain(s) for s in self.states],
            "agent": [_plain(a) for a in self.agent],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Trace":
        agent = []
        for a in d.get("agent", []):
            planned = a.get("planned")
            agent.append(
                AgentOutput(
                    time=a["time"],
                    control=Control(**a["control"]),
                    planned=tuple(tuple(p) for p in planned) if planned is not None else None,
                    text=a.get("text"),
                    record=a.get("record"),
                )
            )
        term = d.get("termination")
        return cls(
            states=[_state_from_dict(s) for s in d["states"]],
            agent=agent,
            termination=Termination(term) if term else None,
            reason=d.get("reason", ""),
            tick=d.get("tick", DEFAULT_TICK),
            info=d.get("info", {}),
        )

    def save(self, path: str | Path) -> None:
        """Write as JSON (gzip when the name ends in .gz), atomically."""
        import gzip
        import os

        from roadtest.sim.trace_json import trace_json

        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        data = trace_json(self).encode()  # the text of json.dumps(self.to_dict(), separators=(",", ":"))
        if path.suffix == ".gz":
            data = gzip.compress(data, compresslevel=6, mtime=0)  # zlib's default: 9 took 3x as long for 6 % less
        tmp.write_bytes(data)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path) -> "Trace":
        import gzip

        raw = Path(path).read_bytes()
        if str(path).endswith(".gz"):
            raw = gzip.decompress(raw)
        return cls.from_dict(json.loads(raw))

    def write_csv(self, path: str | Path, network: RoadNetworkAPI | None = None) -> None:
        """Every entity's state each tick: time,entity,x,y,z,h,speed,lane,s,t (esmini_reference columns).

        Positions are each entity's reference point, as OpenSCENARIO players write them: the states hold
        bounding-box centres, moved back by info["bbox_cx"]; with the road network, lane, s and t are those
        of the reference point too (else of the centre)."""
        import csv
        import math

        cx_of = self.info.get("bbox_cx") or {}
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time", "entity", "x", "y", "z", "h", "speed", "lane", "s", "t"])
            for st in self.states:
                for a in st.actors:
                    cx = float(cx_of.get(a.id, 0.0) or 0.0)
                    x, y = a.x - cx * math.cos(a.h), a.y - cx * math.sin(a.h)
                    ln = a.lane
                    lane, s, t = (ln.lane, ln.s, ln.t) if ln else (None, None, None)
                    if cx and ln is not None and network is not None:
                        m = network.locate(x, y, a.h)
                        if m is not None:
                            lane, s, t = m.lane, m.s, m.t
                    w.writerow([f"{st.time:.3f}", a.id, f"{x:.3f}", f"{y:.3f}", f"{a.z:.3f}", f"{a.h:.4f}",
                                f"{a.speed:.3f}", "" if lane is None else lane, "" if s is None else f"{s:.3f}",
                                "" if t is None else f"{t:.3f}"])


@dataclass(frozen=True)
class SimSettings:
    """Run settings that a backend honours."""

    tick: float = DEFAULT_TICK  # s
    max_time: float | None = None  # s; None: the scenario's own timeout / stop trigger
    stop_on_collision: bool = False
    traffic: bool = True  # spawn background traffic from meta.json
    record: bool = True  # keep the Trace
    time_cap: float = 600.0  # s; the run loop ends a run that max_time and the scenario's timeout leave unlimited


class SimulationClosed(RoadtestError):
    """step() or observe() on a closed simulation."""


class Simulation(ABC):
    """One run. The base owns the loop bookkeeping: recording, termination, closed state.

    Backends implement `_advance`, `_observe` and `_close`.
    """

    def __init__(self, settings: SimSettings):
        self.settings = settings
        self.tick = settings.tick
        self.trace = Trace(tick=settings.tick)
        self._closed = False
        self.state: WorldState | None = None

    @property
    def done(self) -> bool:
        return self.trace.termination is not None

    @property
    def closed(self) -> bool:
        return self._closed

    def step(self, control: Control | None = None, output: AgentOutput | None = None) -> WorldState:
        """Advance one tick. `control` drives the ego; None leaves the ego to its own controller."""
        if self._closed:
            raise SimulationClosed("step() on a closed simulation")
        if self.done:
            raise SimulationClosed(f"step() after the run ended ({self.trace.termination.value})")
        state, termination, reason = self._advance(control)
        self.state = state
        if self.settings.record:
            self.trace.states.append(state)
            if output is not None:
                self.trace.agent.append(output)
        if termination is None and self.settings.max_time is not None and state.time >= self.settings.max_time - 1e-9:
            termination, reason = Termination.TIMEOUT, f"max_time {self.settings.max_time} s reached"
        if termination is not None:
            self.trace.termination, self.trace.reason = termination, reason
        return state

    def observe(self, sensor_specs: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
        """Sensor data for the current tick, keyed by sensor id: {id: (frame, data)} as the leaderboard."""
        if self._closed:
            raise SimulationClosed("observe() on a closed simulation")
        return self._observe(list(sensor_specs))

    def end(self, termination: Termination, reason: str = "") -> None:
        """Mark the run ended by the caller (agent error, wall-clock limit...)."""
        if self.trace.termination is None:
            self.trace.termination, self.trace.reason = termination, reason

    def close(self) -> None:
        """Release the run; idempotent."""
        if self._closed:
            return
        self._closed = True
        if self.trace.termination is None:
            self.trace.termination = Termination.STOPPED
        self._close()

    def __enter__(self) -> "Simulation":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @abstractmethod
    def _advance(self, control: Control | None) -> tuple[WorldState, Termination | None, str]:
        """Integrate one tick; return the new state and, when the run ends this tick, why."""

    @abstractmethod
    def _observe(self, sensor_specs: list[Mapping[str, Any]]) -> dict[str, Any]:
        ...

    def _close(self) -> None:
        """Backend clean-up; default none."""


class Simulator(ABC):
    """A connection and the settings that outlive runs."""

    name: str = "abstract"

    @abstractmethod
    def load(self, bundle: "Any", seed: int = 0, settings: SimSettings | None = None) -> Simulation:
        """Start a run of a Bundle (roadtest.bundle.Bundle) with the given seed."""

    @classmethod
    def sensor_types(cls) -> frozenset[str] | None:
        """The sensor type strings ("sensor.speedometer", ...) this backend provides; None: it does not say."""
        return None

    @classmethod
    def preflight(cls, **options: Any) -> None:
        """Check, before a suite's first run, that the backend can run with these options (UserError if not)."""

    def close(self) -> None:
        """Release the connection; idempotent."""
