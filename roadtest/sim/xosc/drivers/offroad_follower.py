"""esmini's OffroadFollower: steer straight at a lead entity and keep a distance to it, ignoring the roads.

Properties: followEntity (the lead), targetDistance (m between reference points, 20), steeringRate (4),
speedFactor (read, unused, as in esmini). The entity moves through esmini's vehicle model
(``BicycleVehicle.analog``): a pedal from the distance and speed errors, a steering-wheel rate from the
bearing of the lead, speed capped at 1.2 times the nearest road's speed limit (70 km/h off every road).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from roadtest.errors import Problem, ScenarioError
from roadtest.sim.xosc.drivers.base import DriverModel, road_speed_limit
from roadtest.sim.xosc.drivers.follow_reference import BicycleVehicle, number_property, settle
from roadtest.sim.xosc.positions import wrap

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["OffroadFollower", "speed_limit_at"]

DEFAULT_LIMIT = 70 / 3.6  # m/s, esmini's speed limit where no road gives one


def speed_limit_at(net: RoadNetworkAPI | None, x: float, y: float, h: float) -> float:
    """The speed limit where (x, y) is, esmini's way: the road's, else 120 or 60 km/h by lanes, else 70 km/h."""
    v = road_speed_limit(net, x, y, h, 120 / 3.6, 60 / 3.6)
    return DEFAULT_LIMIT if v is None else v


class OffroadFollower(DriverModel):
    """Follows another entity across or off the roads at a target distance (esmini's OffroadFollower)."""

    kind = "OffroadFollower"

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)
        p = self.props
        self.lead = p.get("followEntity", "")
        if self.lead not in engine.entities or self.lead == name:
            f, line = engine.where(ctrl)
            known = ", ".join(n for n in engine.entities if n != name)
            raise ScenarioError(Problem(f, line, 0, "Controller.Property[followEntity]",
                                        f"another entity's name (known: {known}), got {self.lead!r}"))
        self.target = number_property(p, "targetDistance", 20.0, ctrl, engine)
        rate = number_property(p, "steeringRate", 4.0, ctrl, engine)
        self.speed_factor = number_property(p, "speedFactor", 1.0, ctrl, engine)
        e = engine.entities[name]
        self.vehicle = BicycleVehicle(e.x, e.y, e.h, e.length, e.speed, max_acc=e.max_accel, max_dec=e.max_decel,
                                      steering_rate=rate)
        self._written = (e.x, e.y)

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        """Pedal and steering from the lead's place now, then one step of the vehicle model."""
        e, m, dt, v = engine.entities[self.name], engine.motions[self.name], engine.tick, self.vehicle
        if (e.x, e.y) != self._written:  # teleported since the last tick: the model restarts there
            v.x, v.y, v.h, v.speed = e.x, e.y, e.h, e.speed
        lead = engine.entities[self.lead]
        v.max_speed = min(1.2 * speed_limit_at(engine.network, v.x, v.y, v.h), e.max_speed)
        bearing = wrap(math.atan2(lead.y - v.y, lead.x - v.x) - v.h)
        dist = math.hypot(lead.x - v.x, lead.y - v.y)
        steering = max(-1.0, min(1.0, bearing))
        throttle = max(-1.0, min(1.0, 0.5 * (dist - self.target) - 0.5 * (v.speed - lead.speed)))
        v.analog(dt, throttle, steering)
        e.x, e.y, e.h, e.speed = v.x, v.y, wrap(v.h), v.speed
        settle(engine, e, m, off_graph=True)
        self._written = (e.x, e.y)

    def stop(self, engine: ScenarioEngine) -> None:
        """Hand the entity back to the default controller on the lane it is on now (if any)."""
        from roadtest.sim.xosc.motion import place
        from roadtest.sim.xosc.positions import locate

        e = engine.entities[self.name]
        place(e, engine.motions[self.name], locate(engine.network, e.x, e.y, e.z, e.h), engine.network)
