"""Background pedestrians: they walk along sidewalks, turning at their ends; some cross at crosswalks."""

from __future__ import annotations

import math
from dataclasses import dataclass

from roadtest.sim.api import ActorState, LanePos
from roadtest.sim.embedded.lanes import make_actor

__all__ = ["CROSSING_SHARE", "Walker", "WalkerCrowd"]

CROSSING_SHARE = 0.3  # of walkers that cross the road at crosswalks they pass


@dataclass
class Walker:
    """A pedestrian walking along a sidewalk lane, turning at its ends."""

    id: str
    road: str
    lane: int
    s: float
    dir: int
    speed: float
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    h: float = 0.0
    crosses: bool = False  # one of the seeded share that crosses at crosswalks


class WalkerCrowd:
    """Every background pedestrian of a Traffic: spawn, decide, integrate, and the stops they impose on vehicles."""

    def __init__(self, traffic, crossing_share: float = CROSSING_SHARE):
        self.tr = traffic
        self.net = traffic.net
        self.crossing_share = crossing_share
        self.walkers: list[Walker] = []

    def spawn(self, pedestrians: int) -> None:
        """Place walkers on random sidewalk lanes (seeded by the traffic's generator)."""
        tr, net = self.tr, self.net
        side = []
        if pedestrians > 0:
            for road in sorted(net.road_ids()):
                L = net.road_length(road)
                for lane in net.lane_ids(road, 0.5 * L):
                    if lane and net.lane_type(road, lane, 0.5 * L) == "sidewalk":
                        side.append((road, lane))
        for i in range(pedestrians if side else 0):
            road, lane = side[tr.rng.randrange(len(side))]
            lo, hi = tr.extent(road, lane)
            w = Walker(id=f"walker_{i}", road=road, lane=lane, s=tr.rng.uniform(lo, hi),
                       dir=tr.rng.choice((1, -1)), speed=tr.rng.uniform(1.0, 1.6))
            self._pose(w)
            self.walkers.append(w)

    def decide(self, idx, others, dt: float) -> None:
        """Crossing decisions on the frozen snapshot."""

    def vehicle_stops(self, vehicles, stops: dict[str, float]) -> None:
        """Stop gaps (vehicle id -> m) before crosswalks that walkers are on."""

    def integrate(self, dt: float) -> None:
        """Move every walker one tick."""
        for w in self.walkers:
            w.s += w.dir * w.speed * dt
            lo, hi = self.tr.extent(w.road, w.lane)
            if w.s > hi or w.s < lo:
                w.s = min(max(w.s, lo), hi)
                w.dir = -w.dir
            self._pose(w)

    def _pose(self, w: Walker) -> None:
        x, y, z, h, _ = self.tr.table.pose(w.road, w.lane, self.tr.extent(w.road, w.lane), w.s)
        same = self.net.lane_direction(w.road, w.lane) == w.dir
        w.x, w.y, w.z, w.h = x, y, z, math.remainder(h if same else h + math.pi, math.tau)

    def actor_states(self) -> list[ActorState]:
        """The WorldState view of every walker."""
        return [make_actor(id=w.id, role="background", kind="pedestrian", x=w.x, y=w.y, z=w.z, h=w.h,
                           speed=w.speed, vx=w.speed * math.cos(w.h), vy=w.speed * math.sin(w.h),
                           length=0.5, width=0.6, height=1.8, lane=LanePos(w.road, w.lane, w.s, 0.0))
                for w in self.walkers]
