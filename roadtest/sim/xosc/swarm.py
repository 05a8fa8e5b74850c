"""TrafficSwarmAction: vehicles kept in an ellipse around a central entity, spawned on lanes with a seeded generator."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from roadtest.sim.api import LanePos
from roadtest.sim.xosc.entities import EntityState
from roadtest.sim.xosc.motion import Motion, place
from roadtest.sim.xosc.positions import Resolved

__all__ = ["Swarm"]

_TRIES = 60  # spawn attempts per missing vehicle and tick


class Swarm:
    """The swarm's vehicles (entities named swarm<N>_<i>, role background) and its respawn rule."""

    def __init__(self, eng: Any, el: Any, index: int):
        f = lambda k, d=0.0: float(el.get(k, d) or d)  # noqa: E731 - local reader
        self.eng, self.prefix = eng, f"swarm{index}_"
        self.center = el.find("CentralObject").get("entityRef")
        self.inner, self.a, self.b = f("innerRadius"), f("semiMajorAxis"), f("semiMinorAxis")
        self.count, self.speed = int(f("numberOfVehicles")), f("velocity", 10.0)
        self.rng = random.Random(eng.seed * 7919 + index)
        self.names: list[str] = []
        self.active = True
        self._cand: np.ndarray | None = None
        self._roads: list[str] = []

    def _inside(self, x: float, y: float) -> bool:
        c = self.eng.entities[self.center]
        dx, dy = x - c.x, y - c.y
        lon = dx * math.cos(c.h) + dy * math.sin(c.h)
        lat = -dx * math.sin(c.h) + dy * math.cos(c.h)
        return (lon / self.a) ** 2 + (lat / self.b) ** 2 <= 1.0 if self.a > 0 and self.b > 0 else False

    def _candidates(self) -> np.ndarray:
        """Spawn points every 10 m on every driving lane: rows (road index, lane, s, x, y), computed once."""
        if self._cand is None:
            net, rows = self.eng.network, []
            self._roads = list(net.road_ids())
            for ri, road in enumerate(self._roads):
                length = net.road_length(road)
                for s in np.arange(5.0, max(length - 5.0, 5.0), 10.0):
                    for lane in net.lane_ids(road, float(s)):
                        if net.lane_type(road, lane, float(s)) == "driving":
                            x, y, _, _, _ = self.eng._lanes.pose(road, lane, float(s), 0.0)
                            rows.append((ri, lane, s, x, y))
            self._cand = np.array(rows, dtype=float).reshape(-1, 5)
        return self._cand

    def _spawn_pose(self) -> Resolved | None:
        c = self.eng.entities[self.center]
        cand = self._candidates()
        dx, dy = cand[:, 3] - c.x, cand[:, 4] - c.y
        lon = dx * math.cos(c.h) + dy * math.sin(c.h)
        lat = -dx * math.sin(c.h) + dy * math.cos(c.h)
        ok = (np.hypot(dx, dy) >= self.inner) & ((lon / max(self.a, 1e-9)) ** 2 + (lat / max(self.b, 1e-9)) ** 2 <= 1.0)
        idx = np.flatnonzero(ok)
        others = [(o.x, o.y) for o in self.eng.entities.values() if o.active]
        for _ in range(min(_TRIES, len(idx))):
            ri, lane, s, x, y = cand[idx[self.rng.randrange(len(idx))]]
            if any(math.hypot(x - ox, y - oy) < 10.0 for ox, oy in others):
                continue
            road, lane = self._roads[int(ri)], int(lane)
            px, py, pz, ph, t = self.eng._lanes.pose(road, lane, float(s), 0.0)
            return Resolved(px, py, pz, ph, LanePos(road, lane, float(s), t), 0.0)
        return None

    def step(self) -> None:
        """Retire vehicles that left the ellipse, then fill it up again to numberOfVehicles."""
        if not self.active or self.eng.network is None:
            return
        ents = self.eng.entities
        for n in self.names:
            e = ents[n]
            if e.active and not self._inside(e.x, e.y):
                e.active = False
        live = sum(ents[n].active for n in self.names)
        for _ in range(self.count - live):
            pose = self._spawn_pose()
            if pose is None:
                return
            free = next((n for n in self.names if not ents[n].active), None)
            if free is None:
                free = f"{self.prefix}{len(self.names)}"
                self.names.append(free)
                ents[free] = EntityState(name=free, category="car", role="background", length=4.5, width=1.8,
                                         height=1.5, bbox_cx=1.4)
                self.eng.motions[free] = Motion()
            e = ents[free]
            e.active, e.speed = True, self.speed
            place(e, self.eng.motions[free], pose, self.eng.network)

    def stop(self) -> None:
        """TrafficStopAction: the swarm's vehicles leave."""
        self.active = False
        for n in self.names:
            self.eng.entities[n].active = False
