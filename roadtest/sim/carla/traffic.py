"""Background traffic on CARLA: the bundle's meta.traffic (vehicles per km of driving lane, pedestrians) as
Traffic Manager vehicles and AI walkers, placed by a seeded plan on roadtest's own map of the .xodr.

plan_traffic is pure: the same (map, traffic block, seed) gives the same slots, the same order of spawning, so
with the TM's seed (set_random_device_seed), synchronous mode and hybrid physics off the traffic is repeatable.
Speeds obey roadtest.limits, as on the built-in simulator: every LIMIT_PERIOD ticks each TM vehicle is given
(set_desired_speed) its seeded share of the limit in force where it is (0.85 to 1.0; a scene's `violators` share
1.1 to 1.3), instead of the TM's own 30 % under CARLA's limit, which knows neither the scene's fog nor night caps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import numpy as np

from roadtest.sim.frames import location_to_carla, yaw_to_carla

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["Slot", "plan_traffic", "Background", "spawn_traffic", "traffic_desired_speeds", "apply_desired_speeds",
           "SPACING", "CLEARANCE", "LIMIT_PERIOD"]

SPACING = 25.0  # m between candidate slots along a lane
CLEARANCE = 20.0  # m from any scenario actor or the ego
WALKER_SPEED = (1.0, 1.6)  # m/s range of walkers' cruise speed
LIMIT_PERIOD = 10  # ticks between two updates of the TM vehicles' desired speeds
DESIRE, VIOLATOR_DESIRE = (0.85, 1.0), (1.1, 1.3)  # a driver's desired speed, times the limit in force


@dataclass(frozen=True)
class Slot:
    """A spawn pose in roadtest's frame."""

    x: float
    y: float
    z: float
    h: float


def _driving_lanes(net: RoadNetworkAPI) -> list[tuple[str, int, float]]:
    lanes = []
    for road in net.road_ids():
        length = net.road_length(road)
        for lane in net.lane_ids(road, 0.5 * length):
            if lane != 0 and net.lane_type(road, lane, 0.5 * length) == "driving":
                lanes.append((road, lane, length))
    return lanes


def plan_traffic(net: RoadNetworkAPI, traffic: Mapping[str, Any], seed: int,
                 avoid: Iterable[tuple[float, float]] = ()) -> tuple[list[Slot], list[Slot]]:
    """(vehicle slots, walker slots): round(density x driving-lane km) vehicles (or `vehicles` when given) on lane
    centres SPACING m apart, none within CLEARANCE m of `avoid`; `pedestrians` walkers on sidewalk centres."""
    rng = np.random.default_rng(seed)
    avoid = list(avoid)
    lanes = _driving_lanes(net)
    km = sum(length for _, _, length in lanes) / 1000.0
    count = traffic.get("vehicles")
    n = int(count) if count is not None else int(round(float(traffic.get("density", 0.0) or 0.0) * km))
    slots = []
    for road, lane, length in lanes:
        for s in np.arange(0.5 * SPACING, length - 5.0, SPACING):
            p = net.lane_to_world(road, lane, float(s))
            if all(math.hypot(p.x - ax, p.y - ay) > CLEARANCE for ax, ay in avoid):
                slots.append(Slot(p.x, p.y, p.z, p.h))
    order = rng.permutation(len(slots)) if slots else []
    vehicles = [slots[i] for i in order[:n]]
    walk = []
    for road in net.road_ids():
        length = net.road_length(road)
        for lane in net.lane_ids(road, 0.5 * length):
            if net.lane_type(road, lane, 0.5 * length) == "sidewalk":
                walk += [net.lane_to_world(road, lane, float(s)) for s in np.arange(2.0, length - 2.0, 5.0)]
    k = int(traffic.get("pedestrians", 0) or 0)
    walkers = [Slot(walk[i].x, walk[i].y, walk[i].z, walk[i].h) for i in rng.permutation(len(walk))[:k]] if walk else []
    return vehicles, walkers


@dataclass
class Background:
    """The spawned TM vehicles and walkers (with their AI controllers), named as the built-in simulator names them;
    destroy() removes them in the order CARLA wants (controllers stopped first)."""

    carla: Any = None  # the client module
    vehicles: list[Any] = field(default_factory=list)
    desires: list[float] = field(default_factory=list)  # per vehicle: desired speed / limit in force
    walkers: list[Any] = field(default_factory=list)
    controllers: list[Any] = field(default_factory=list)

    def named(self) -> list[tuple[str, Any]]:
        return ([(f"traffic_{i}", v) for i, v in enumerate(self.vehicles)]
                + [(f"pedestrian_{i}", w) for i, w in enumerate(self.walkers)])

    def destroy(self, client: Any) -> None:
        for c in self.controllers:
            c.stop()
        client.apply_batch_sync([self.carla.command.DestroyActor(a.id) for a in [*self.controllers, *self.walkers,
                                                                         *self.vehicles]], True)
        self.vehicles, self.walkers, self.controllers = [], [], []


def _transform(carla: Any, slot: Slot, lift: float) -> Any:
    x, y, z = location_to_carla(slot.x, slot.y, slot.z + lift)
    return carla.Transform(carla.Location(x=x, y=y, z=z), carla.Rotation(yaw=yaw_to_carla(slot.h)))


def spawn_traffic(carla: Any, client: Any, world: Any, tm: Any, net: RoadNetworkAPI, traffic: Mapping[str, Any], seed: int,
                  avoid: Iterable[tuple[float, float]] = ()) -> Background:
    """Spawn the plan: TM autopilot vehicles (4-wheeled car blueprints, sorted, picked by the seeded RNG) and
    walkers with controller.ai.walker heading to navmesh points."""
    rng = np.random.default_rng(seed + 1)
    vslots, wslots = plan_traffic(net, traffic, int(traffic.get("seed", seed) or seed),
                                  avoid)
    lib = world.get_blueprint_library()
    cars = sorted((b for b in lib.filter("vehicle.*") if int(b.get_attribute("number_of_wheels").as_int()) == 4),
                  key=lambda b: b.id)
    bg = Background(carla)
    violators = float(traffic.get("violators", 0.0) or 0.0)
    drivers = np.random.default_rng(seed + 2)  # its own generator: the blueprints drawn stay as they were
    for i, slot in enumerate(vslots):
        bp = cars[int(rng.integers(len(cars)))]
        breaks = violators > 0.0 and float(drivers.random()) < violators
        desire = float(drivers.uniform(*(VIOLATOR_DESIRE if breaks else DESIRE)))
        bp.set_attribute("role_name", f"traffic_{i}")
        v = world.try_spawn_actor(bp, _transform(carla, slot, 0.3))
        if v is not None:
            v.set_autopilot(True, tm.get_port())
            bg.vehicles.append(v)
            bg.desires.append(desire)
    walkers_bp = sorted(lib.filter("walker.pedestrian.*"), key=lambda b: b.id)
    ctrl_bp = lib.find("controller.ai.walker")
    for i, slot in enumerate(wslots):
        bp = walkers_bp[int(rng.integers(len(walkers_bp)))]
        if bp.has_attribute("is_invincible"):
            bp.set_attribute("is_invincible", "false")
        w = world.try_spawn_actor(bp, _transform(carla, slot, 1.0))
        if w is not None:
            bg.walkers.append(w)
            bg.controllers.append(world.spawn_actor(ctrl_bp, carla.Transform(), attach_to=w))
    world.set_pedestrians_cross_factor(float(traffic.get("crossing_share", 0.3)))
    world.tick()
    for c in bg.controllers:
        c.start()
        c.go_to_location(world.get_random_location_from_navigation())
        c.set_max_speed(float(rng.uniform(*WALKER_SPEED)))
    return bg


def traffic_desired_speeds(background: Background, actors: Iterable[Any], net: RoadNetworkAPI, limits: Any,
                           environment: Any) -> dict[str, float]:
    """km/h each background vehicle of `actors` (a WorldState's, located on the map) should drive: its desire times
    roadtest.limits' limit in force at it (limits.vehicle_limit: the map's lane limit, the scene's posted limit,
    signs, zones and rule caps); vehicles off the map or where no limit is known are left out."""
    from roadtest.limits import vehicle_limit

    desire = {f"traffic_{i}": d for i, d in enumerate(background.desires)}
    out = {}
    for a in actors:
        lp = a.lane
        if a.id not in desire or lp is None or not lp.lane:
            continue
        limit = vehicle_limit(limits, net.speed_limit(lp.road, lp.lane, lp.s), str(lp.road), lp.s,
                              net.lane_direction(lp.road, lp.lane), environment)
        if limit is not None:
            out[a.id] = desire[a.id] * limit * 3.6
    return out


def apply_desired_speeds(tm: Any, background: Background, speeds: Mapping[str, float]) -> None:
    """Hand the TM each vehicle's desired speed (km/h, TrafficManager.set_desired_speed, CARLA 0.9.14 on)."""
    for name, actor in background.named():
        if name in speeds:
            tm.set_desired_speed(actor, float(speeds[name]))
