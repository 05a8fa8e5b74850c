"""esmini's FollowGhostController: the entity drives along the trail its ghost (see xosc/ghost.py) leaves ahead."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from roadtest.sim.xosc.drivers.base import DriverModel

if TYPE_CHECKING:
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["FollowGhost", "TrailVehicle"]

MAX_ACC = 10.0  # m/s^2, the follower's acceleration limit and speed gain (esmini's value for this controller)
MAX_SPEED = 100.0  # m/s
MAX_WHEEL = math.radians(60.0)  # rad, wheel angle limit at standstill
REAR_SHARE = 0.15  # the reference point's share of the length between the axles in the simple bicycle model


class TrailVehicle:
    """Kinematic bicycle driven by a target speed and a heading error (esmini's simple vehicle model, target mode)."""

    def __init__(self, x: float, y: float, h: float, speed: float, length: float, inertia: float):
        self.x, self.y, self.h, self.speed = x, y, h, speed
        self.length, self.inertia = max(length, 0.1), inertia
        self.wheel = 0.0

    def step(self, dt: float, target_speed: float, heading_error: float) -> None:
        """Speed first (proportional, limited), then a wheel angle that shrinks with speed, then the pose."""
        acc = min(max(MAX_ACC * (target_speed - self.speed), -MAX_ACC), MAX_ACC)
        self.speed = min(max(self.speed + acc * dt, -MAX_SPEED), MAX_SPEED)
        limit = MAX_WHEEL / (1.0 + self.inertia * self.speed * self.speed)
        self.wheel = min(max(heading_error, -limit), limit)
        slip = math.atan(REAR_SHARE * math.tan(self.wheel))
        course = self.h + slip
        self.h = math.remainder(self.h + dt * self.speed * math.sin(slip) / (self.length * REAR_SHARE), math.tau)
        self.x += dt * self.speed * math.cos(course)
        self.y += dt * self.speed * math.sin(course)


class FollowGhost(DriverModel):
    """Follows the ghost's trail: speed from a point a lookahead ahead on it, steering towards another.

    followMode "position" looks ahead by distance along the trail from the point nearest the entity
    (max(minLookahead, lookahead * speed) m); "time" takes the trail's points HeadStartTime seconds
    late plus the lookahead times. Without a ghost (esmini makes only one) the entity stands still.
    """

    kind = "FollowGhostController"

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)

        def num(key: str, default: float) -> float:
            return self._number(engine, key, default)

        self.headstart = num("headstartTime", 3.0)
        mode = self.props.get("followMode", "time")
        if mode not in ("time", "position"):
            msg = f"FollowGhostController of {name!r}: followMode {mode!r} is neither time nor position; using time"
            if msg not in engine.warnings:
                engine.warnings.append(msg)  # esmini falls back the same way
            mode = "time"
        self.mode = mode
        self.la_speed, self.min_la_speed = num("lookaheadSpeed", 0.1), num("minLookaheadSpeed", 0.1)
        self.la_steer, self.min_la_steer = num("lookaheadSteering", 1.0), num("minLookaheadSteering", 1.0)
        self.inertia = num("steeringSpeedInertia", 0.01)
        self.index = 0  # trail segment the entity was nearest last tick
        self.vehicle: TrailVehicle | None = None

    def _number(self, engine: ScenarioEngine, key: str, default: float) -> float:
        v = self.props.get(key)
        if v in (None, ""):
            return default
        try:
            return float(v)
        except ValueError:
            raise engine.error(self.ctrl, f"Controller.Property[{key}]", f"expected a number, got {v!r}") from None

    def _targets(self, trail: Any, e: Any, t_next: float) -> tuple[float, float, float]:
        """(speed to drive, x, y of the steering target) from the ghost's trail."""
        if not trail.points:
            return 0.0, e.x, e.y
        if self.mode == "position":
            s0, self.index = trail.closest(e.x, e.y, self.index)
            sp, _ = trail.at_s(s0 + max(self.min_la_speed, self.la_speed * e.speed), self.index)
            st, _ = trail.at_s(s0 + max(self.min_la_steer, self.la_steer * e.speed), self.index)
        else:
            late = t_next - self.headstart  # esmini reads its clock after advancing it
            sp = trail.at_time(late + max(self.min_la_speed, self.la_speed))
            st = trail.at_time(late + max(self.min_la_steer, self.la_steer))
        return sp.speed, st.x, st.y

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        e = engine.entities[self.name]
        ghost = getattr(engine, "ghosts", {}).get(self.name)
        if ghost is None:
            e.speed = 0.0
            return
        if self.vehicle is None:
            self.vehicle = TrailVehicle(e.x, e.y, e.h, engine.snap[self.name].speed, e.length, self.inertia)
        v = self.vehicle
        speed, tx, ty = self._targets(engine.ghost_trails[ghost], e, t_next)
        dx, dy = tx - v.x, ty - v.y
        n = math.hypot(dx, dy)
        cross = (math.cos(v.h) * dy - math.sin(v.h) * dx) / n if n > 1e-9 else 0.0
        v.step(engine.tick, speed, math.asin(max(-1.0, min(1.0, cross))))
        x0, y0 = e.x, e.y
        e.x, e.y, e.h, e.speed = v.x, v.y, v.h, v.speed
        self._relocate(engine, e)
        engine.motions[self.name].odometer += math.hypot(e.x - x0, e.y - y0)

    def _relocate(self, engine: ScenarioEngine, e: Any) -> None:
        """Find the entity's lane again, so conditions and the default controller (if it takes over) see it."""
        net = engine.network
        if net is None:
            e.lane = None
            return
        from roadtest.sim.api import LanePos
        from roadtest.sim.xosc.motion import place
        from roadtest.sim.xosc.positions import Resolved

        m = net.locate(e.x, e.y, e.h)
        lane = LanePos(m.road, m.lane, m.s, m.t) if m is not None and m.lane != 0 else None
        place(e, engine.motions[self.name], Resolved(e.x, e.y, e.z, e.h, lane, m.offset if lane else 0.0), net)
