"""esmini's InteractiveController run headless: nobody at the keys, so the vehicle coasts with a neutral wheel.

esmini lets a person drive the entity with the arrow keys through its simple vehicle model
(``BicycleVehicle``). Without a person (roadtest runs headless, and an agent, when one drives the entity,
replaces this model) the throttle and the wheel stay released: on the longitudinal domain the speed
drops by the engine brake (0.1 % a tick) and is capped at the speed limit times ``speedFactor``; on the
lateral domain the wheel stays straight, so the entity runs straight along its heading (aligned with
the road when the controller takes the lateral domain) and leaves a curving road.
With only the longitudinal domain the entity coasts along its lane; with only the lateral one it keeps
the speed the storyboard gives it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from roadtest.sim.xosc.drivers.base import DriverModel, road_speed_limit
from roadtest.sim.xosc.drivers.follow_reference import BicycleVehicle, number_property, settle
from roadtest.sim.xosc.positions import wrap

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["InteractiveHeadless", "interactive_speed_limit"]

NARROW_LIMIT = 60 / 3.6  # m/s, esmini's limit where the road gives none and one lane runs this way
WIDE_LIMIT = 110 / 3.6  # m/s, the same with more than one lane this way


def interactive_speed_limit(net: RoadNetworkAPI | None, x: float, y: float, h: float) -> float | None:
    """The speed limit esmini's interactive driver keeps to at (x, y); None off every road (keep the last one)."""
    return road_speed_limit(net, x, y, h, WIDE_LIMIT, NARROW_LIMIT)


class InteractiveHeadless(DriverModel):
    """esmini's InteractiveController with no key pressed: coasting, wheel straight (see the module docstring)."""

    kind = "InteractiveController"
    keeps_lateral_when_displaced = True  # esmini: a controller assigned after it does not end it on the lateral domain

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)
        self.steering_rate = number_property(self.props, "steeringRate", 4.0, ctrl, engine)
        self.speed_factor = number_property(self.props, "speedFactor", 1.0, ctrl, engine)
        e = engine.entities[name]
        if lateral:
            e.h = _road_heading(engine, e)
        self.vehicle = BicycleVehicle(e.x, e.y, e.h, e.length, e.speed, max_acc=e.max_accel, max_dec=e.max_decel,
                                      steering_rate=self.steering_rate)
        self._written = (e.x, e.y, e.h)

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        """One tick of the released vehicle on the active domains."""
        e, m, dt, v = engine.entities[self.name], engine.motions[self.name], engine.tick, self.vehicle
        if (e.x, e.y, e.h) != self._written:  # moved by something else (a teleport, an agent): restart there
            v.x, v.y, v.h, v.speed = e.x, e.y, e.h, e.speed
        lim = interactive_speed_limit(engine.network, v.x, v.y, v.h)
        if lim is not None:
            v.max_speed = min(self.speed_factor * lim, e.max_speed)
        if not self.longitudinal:
            v.speed = e.speed  # the default controller (the storyboard's speed actions) owns the speed
        else:
            v.speed = max(-v.max_speed, min(v.max_speed, v.speed * (1.0 - v.engine_brake)))
        if self.lateral:
            v.wheel_angle = 0.0  # released wheel: self-aligning keeps it straight
            v.update(dt)
            e.x, e.y, e.h, e.speed = v.x, v.y, wrap(v.h), v.speed
            settle(engine, e, m, off_graph=True)
        else:  # longitudinal only: the coasting speed, moved along the lane by the default controller
            e.speed = v.speed
            self.default(engine, t_next)
            e.speed = v.speed
            v.x, v.y, v.h = e.x, e.y, e.h
        self._written = (e.x, e.y, e.h)

    def steer_after(self, engine: ScenarioEngine) -> None:
        """Displaced but still lateral: after the newer controller's motion, the straight wheel sets the place."""
        e, m, v = engine.entities[self.name], engine.motions[self.name], self.vehicle
        v.speed = e.speed
        v.wheel_angle = 0.0
        v.update(engine.tick)
        e.x, e.y, e.h = v.x, v.y, wrap(v.h)
        odometer = m.odometer  # the newer controller's motion already counted this tick
        settle(engine, e, m, off_graph=True)
        m.odometer = odometer
        self._written = (e.x, e.y, e.h)

    def stop(self, engine: ScenarioEngine) -> None:
        """Hand the entity back on the lane it is on now, facing along the road (esmini aligns the heading)."""
        from roadtest.sim.xosc.motion import place
        from roadtest.sim.xosc.positions import locate

        e = engine.entities[self.name]
        if self.lateral:
            e.h = _road_heading(engine, e)
            place(e, engine.motions[self.name], locate(engine.network, e.x, e.y, e.z, e.h), engine.network)


def _road_heading(engine: ScenarioEngine, e: Any) -> float:
    """The driving direction of the lane under e (e's heading when it is off every road)."""
    net = engine.network
    m = net.locate(e.x, e.y, e.h) if net is not None else None
    if m is None:
        return e.h
    return wrap(e.h - m.heading_diff)
