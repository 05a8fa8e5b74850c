"""Stand-ins for the road model and the OpenSCENARIO engine, so the simulator's own logic is tested alone.

FakeStraightRoads implements the lane API (roadtest/sim/road/api.py) for a chain of straight roads along
x; FakeEngine follows the ScenarioEngine contract with constant-speed entities and a time stop trigger.
Neither is used outside tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from roadtest.sim.api import Environment
from roadtest.sim.road.api import LaneMatch, Pose, Signal

__all__ = ["FakeMark", "FakeStraightRoads", "FakeEntity", "FakeEngine"]


@dataclass(frozen=True)
class FakeMark:
    """A road mark stand-in: broken marks may be crossed, solid ones not."""

    type: str
    color: str = "white"

    def crossing_allowed(self, from_inner_to_outer: bool) -> bool:
        return self.type == "broken"


class FakeStraightRoads:
    """Fake map: `n_roads` straight roads of `length` m end to end along x; right lanes -1..-nr run with +x,
    left lanes 1..nl against; an optional sidewalk beyond the outermost right lane."""

    driving_side = "right"

    def __init__(self, n_roads=1, length=500.0, nr=3, nl=0, width=3.5, center="solid", between="broken",
                 sidewalk=False, speed=20.0, signals: dict[str, Signal] | None = None):
        self.n, self.L, self.nr, self.nl, self.w = n_roads, length, nr, nl, width
        self.center, self.between, self.sidewalk, self.speed = center, between, sidewalk, speed
        self.signals = signals or {}
        self.objects = []

    def road_ids(self):
        return [str(i + 1) for i in range(self.n)]

    def road_length(self, road):
        return self.L

    def lane_ids(self, road, s):
        right = [-(k + 1) for k in range(self.nr + (1 if self.sidewalk else 0))]
        return sorted(right + [0] + [k + 1 for k in range(self.nl)])

    def _t(self, lane):
        return math.copysign((abs(lane) - 0.5) * self.w, lane)

    def _x0(self, road):
        return (int(road) - 1) * self.L

    def road_to_world(self, road, s, t=0.0):
        return Pose(self._x0(road) + s, t, 0.0, 0.0)

    def lane_to_world(self, road, lane, s, offset=0.0):
        return Pose(self._x0(road) + s, self._t(lane) + offset, 0.0, 0.0 if lane < 0 else math.pi)

    def lane_width(self, road, lane, s):
        return self.w

    def lane_type(self, road, lane, s):
        return "sidewalk" if self.sidewalk and lane == -(self.nr + 1) else "driving"

    def lane_direction(self, road, lane):
        return 1 if lane < 0 else -1

    def locate(self, x, y, h=None, hint=None, driving_only=False):
        k = int(x // self.L)
        nr = self.nr + (1 if self.sidewalk else 0)
        if not (0 <= k < self.n) or not (-nr * self.w <= y <= self.nl * self.w):
            return None
        lane = -int(-y // self.w) - 1 if y < 0 else int(y // self.w) + 1
        lane = max(-nr, min(self.nl, lane)) or -1
        d = 0.0 if lane < 0 else math.pi
        hd = 0.0 if h is None else math.remainder(h - d, math.tau)
        return LaneMatch(str(k + 1), lane, x - k * self.L, y, y - self._t(lane), hd, self.lane_type(str(k + 1), lane, 0),
                         True, None)

    def locate_many(self, xy):
        return [self.locate(float(x), float(y)) for x, y in np.asarray(xy)]

    def successors(self, road, lane):
        k = int(road) + (1 if lane < 0 else -1)
        return [(str(k), lane)] if 1 <= k <= self.n else []

    def predecessors(self, road, lane):
        k = int(road) - (1 if lane < 0 else -1)
        return [(str(k), lane)] if 1 <= k <= self.n else []

    def neighbours(self, road, lane, s):
        inner = lane + 1 if lane < 0 else lane - 1
        outer = lane - 1 if lane < 0 else lane + 1
        if inner == 0:
            inner = 1 if lane < 0 else -1
            inner_mark = FakeMark(self.center, "yellow")
            if inner not in self.lane_ids(road, s):
                inner, inner_mark = None, None
        else:
            inner_mark = FakeMark(self.between)
        if outer not in self.lane_ids(road, s) or self.lane_type(road, outer, s) != "driving":
            outer_mark, outer = None, None
        else:
            outer_mark = FakeMark(self.between)
        # Relative to the driving direction, the inner lane is on the left in right-hand traffic.
        return {"left": (inner, inner_mark), "right": (outer, outer_mark)}

    def speed_limit(self, road, lane, s):
        return self.speed

    def signals_for(self, road, lane, s, ahead=100.0):
        out = []
        for sig in self.signals.values():
            d = (sig.s - s) if sig.road == road else (self.L - s + sig.s if int(sig.road) == int(road) + 1 else -1)
            if lane < 0 and 0 <= d <= ahead:
                out.append((sig, d))
        return out


@dataclass
class FakeEntity:
    """EntityState stand-in with the contract's fields."""

    name: str
    category: str = "car"
    role: str = "scenario"
    length: float = 4.5
    width: float = 1.8
    height: float = 1.5
    bbox_cx: float = 1.4
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    h: float = 0.0
    speed: float = 0.0
    accel: float = 0.0
    yaw_rate: float = 0.0
    lane: Any = None
    max_speed: float = 60.0
    max_accel: float = 4.0
    max_decel: float = 8.0
    wheelbase: float = 2.7
    max_steer: float = 0.6
    properties: dict = field(default_factory=dict)
    visible: bool = True
    active: bool = True


class FakeEngine:
    """ScenarioEngine stand-in: entities keep their speed and heading; the storyboard stops at `stop_time`."""

    def __init__(self, network, entities, stop_time=None, signals=None, tick=0.05):
        self.network = network
        self.entities = {e.name: e for e in entities}
        self.environment = Environment()
        self.signals = dict(signals or {})
        self.stop_time, self.tick = stop_time, tick
        self.finished, self.end_reason = False, ""
        self.seen_events: list = []
        self.warnings: list[str] = []
        self.steps: list[float] = []

    def init(self):
        pass

    def controlled_externally(self, name):
        return False

    def step(self, time, external=frozenset(), events=()):
        self.steps.append(time)
        self.seen_events.append(list(events))
        if self.stop_time is not None and time + 1e-9 >= self.stop_time:
            self.finished, self.end_reason = True, f"stop trigger at {time:.2f} s"
        for name, e in self.entities.items():
            if name in external:
                continue
            e.x += e.speed * math.cos(e.h) * self.tick
            e.y += e.speed * math.sin(e.h) * self.tick
