"""A stand-in world for the agent tests: one straight two-lane road (FakeStraightNetwork) and a tiny loop.

It implements only the parts of the lane API (roadtest/sim/road/api.py) the objects sensor uses, and
drives the ego with the embedded simulator's bicycle model, so agents can be tested before and
independently of the full simulator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable

from roadtest.sim.api import ActorState, Environment, WorldState
from roadtest.sim.embedded.dynamics import BicycleParams, BicycleState, step_bicycle
from roadtest.sim.objects_sensor import objects_view
from roadtest.sim.road.api import LaneMatch, Pose

W = 3.5  # m lane width


@dataclass(frozen=True)
class _Mark:
    type: str
    color: str = "white"

    def crossing_allowed(self, from_inner_to_outer: bool) -> bool:
        return "solid" not in self.type


class FakeStraightNetwork:
    """Road "1" along +x from x=0 to `length`; lane -1 (right, with s) and lane 1 (left, against s); lane -2 when three."""

    driving_side = "right"
    signals: dict = {}
    objects: list = []

    def __init__(self, length: float = 500.0, center_mark: str = "broken", speed_limit: float | None = None, lanes_right: int = 1):
        self.length, self.center_mark, self.limit, self.nr = length, center_mark, speed_limit, lanes_right

    def road_length(self, road: str) -> float:
        return self.length

    def _t(self, lane: int) -> float:
        return (abs(lane) - 0.5) * W * (1 if lane > 0 else -1)

    def road_to_world(self, road: str, s: float, t: float = 0.0) -> Pose:
        return Pose(s, t, 0.0, 0.0)

    def lane_to_world(self, road: str, lane: int, s: float, offset: float = 0.0) -> Pose:
        return Pose(s, self._t(lane) + offset, 0.0, 0.0 if lane < 0 else math.pi)

    def lane_polyline(self, road: str, lane: int, which: str = "center", step: float = 1.0):
        import numpy as np

        xs = np.linspace(0.0, self.length, int(self.length / step) + 1)
        return np.column_stack([xs, np.full_like(xs, self._t(lane))])

    def lane_width(self, road: str, lane: int, s: float) -> float:
        return W

    def lane_direction(self, road: str, lane: int) -> int:
        return 1 if lane < 0 else -1

    def successors(self, road: str, lane: int) -> list:
        return []

    def speed_limit(self, road: str, lane: int, s: float) -> float | None:
        return self.limit

    def locate(self, x: float, y: float, h: float | None = None, hint: Any = None, driving_only: bool = False) -> LaneMatch | None:
        if not (0.0 <= x <= self.length) or not (-W * self.nr <= y <= W):
            return None
        lane = 1 if y >= 0 else -min(int(-y // W) + 1, self.nr)
        return LaneMatch("1", lane, x, y, y - self._t(lane), 0.0, "driving", True, None)

    def neighbours(self, road: str, lane: int, s: float) -> dict:
        centre = _Mark(self.center_mark, "yellow")
        if lane == -1:
            right = (-2, _Mark("broken")) if self.nr >= 2 else (None, _Mark("solid"))
            return {"left": (1, centre), "right": right}
        if lane == 1:
            return {"left": (-1, centre), "right": (None, _Mark("solid"))}
        return {"left": (lane + 1, _Mark("broken")), "right": (None, _Mark("solid"))}


def straight_meta(length: float = 400.0, start: float = 10.0, end: float | None = None, rules: list | None = None,
                  **scene: Any) -> dict:
    """meta.json for a route along lane -1 of the fake road, with `scene` as meta.scene."""
    end = length - 20.0 if end is None else end
    pts = [[float(s), -W / 2] for s in range(int(start), int(end) + 1, 2)]
    return {"id": "fake", "driving_side": "right",
            "route": {"waypoints": pts, "length": end - start, "lanes": [{"road": "1", "lane": -1, "s_start": start, "s_end": end}]},
            "scene": scene, "rules": list(rules or [])}


@dataclass
class Other:
    """A scripted actor: constant velocity from its start, or a motion function of time."""

    state: ActorState
    motion: Callable[[float, ActorState], ActorState] | None = None


def run_world(agent: Any, meta: dict, network: Any, ego_start: tuple[float, float, float, float], others: list[Other] = (),
              signals: Callable[[float], dict] = lambda t: {}, env: Environment = Environment(), seconds: float = 30.0,
              dt: float = 0.05) -> list[WorldState]:
    """Drive `agent` closed-loop for `seconds` and return the states (first one before any control)."""
    x, y, h, v = ego_start
    ego = BicycleState(x=x, y=y, h=h, speed=v)
    params = BicycleParams()
    route = [tuple(p) for p in meta["route"]["waypoints"]]
    agent.set_global_plan(route)
    specs = agent.sensors()
    states: list[WorldState] = []
    t, frame = 0.0, 0
    actors = [o.state for o in others]
    while t <= seconds + 1e-9:
        ego_actor = ActorState(id="hero", role="ego", kind="car", x=ego.x, y=ego.y, z=0.0, h=ego.h, speed=ego.speed,
                               vx=ego.speed * math.cos(ego.h), vy=ego.speed * math.sin(ego.h))
        state = WorldState(time=t, frame=frame, actors=(ego_actor, *actors), signals=signals(t), environment=env)
        states.append(state)
        data: dict[str, Any] = {}
        for spec in specs:
            kind, sid = spec["type"], spec["id"]
            if kind == "sensor.speedometer":
                data[sid] = (frame, {"speed": ego.speed})
            elif kind == "roadtest.pose":
                data[sid] = (frame, {"x": ego.x, "y": ego.y, "z": 0.0, "h": ego.h})
            elif kind == "roadtest.route":
                data[sid] = (frame, route)
            elif kind == "roadtest.objects":
                data[sid] = (frame, objects_view(state, network, meta, "hero"))
        control = agent(data, t)
        ego = step_bicycle(ego, control, params, dt)
        t, frame = round(t + dt, 6), frame + 1
        new = []
        for o, a in zip(others, actors):
            if o.motion is not None:
                new.append(o.motion(t, a))
            else:
                new.append(replace(a, x=a.x + a.vx * dt, y=a.y + a.vy * dt))
        actors = new
    return states
