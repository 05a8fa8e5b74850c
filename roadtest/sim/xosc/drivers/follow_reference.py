"""esmini's FollowReferenceController: a Stanley steering law and a damped spring on speed track a reference.

The reference is another entity (property ``referenceEntity``) or, when none is named, a ghost: a copy of
the entity that plays the storyboard's actions under the default controller (esmini moves the actions
to the ghost), the entity itself following it. The entity moves through ``BicycleVehicle``, a
kinematic model with esmini's vehicle's equations (also used by the offroad follower).
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any

from roadtest.errors import Problem, ScenarioError
from roadtest.sim.api import LanePos
from roadtest.sim.xosc.drivers.base import DriverModel
from roadtest.sim.xosc.positions import locate, wrap

if TYPE_CHECKING:
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["BicycleVehicle", "FollowReference", "number_property", "settle"]

MAX_WHEEL_ANGLE = math.radians(60.0)
SMALL = 1e-6


class BicycleVehicle:
    """esmini's simple vehicle: speed, a wheel angle, and a bicycle model about a point 15 % along the length."""

    def __init__(self, x: float, y: float, h: float, length: float, speed: float, *, max_speed: float = 70.0,
                 max_acc: float = 20.0, max_dec: float = 20.0, steering_rate: float = 5.0):
        self.x, self.y, self.h, self.length, self.speed = x, y, h, length, speed
        self.max_speed, self.max_acc, self.max_dec, self.steering_rate = max_speed, max_acc, max_dec, steering_rate
        self.wheel_angle = 0.0
        self.handbrake = False
        self.return_factor = 4.0  # self-aligning of the wheel per second
        self.engine_brake = 0.001  # speed lost per tick when coasting

    def update(self, dt: float) -> None:
        """Integrate one tick: the velocity points off the body axis by the slip of a point 15 % along it."""
        slip = math.atan(0.15 * math.tan(self.wheel_angle))
        vel_angle = self.h + slip
        yaw_rate = self.speed * math.sin(slip) / (self.length * 0.15)
        self.h = math.fmod(self.h + dt * yaw_rate, 2 * math.pi) % (2 * math.pi)
        self.x += dt * self.speed * math.cos(vel_angle)
        self.y += dt * self.speed * math.sin(vel_angle)

    def acc_and_steer(self, dt: float, acc: float, steer: float) -> None:
        """Commanded acceleration (not limited) and wheel angle (within +-60 deg)."""
        self.speed = _clamp(self.speed + acc * dt, self.max_speed)
        self.wheel_angle = _clamp(steer, MAX_WHEEL_ANGLE)
        self.update(dt)

    def analog(self, dt: float, throttle: float, steering: float) -> None:
        """Pedal in [-1, 1] (braking stops at standstill until released) and a steering-wheel rate in [-1, 1]."""
        old = self.speed
        if self.handbrake:
            if abs(throttle) < SMALL or throttle > SMALL:
                self.handbrake = False
        else:
            self.speed += (self.max_dec if throttle < 0 else self.max_acc) * throttle * dt
            if old > 0 and self.speed < 0:
                self.speed, self.handbrake = 0.0, True
            else:
                if abs(throttle) < SMALL:
                    self.speed *= 1 - self.engine_brake
                self.speed = _clamp(self.speed, self.max_speed)
        scale = 1.0 / (1 + 0.005 * self.speed * self.speed)  # steering slows with speed
        self.wheel_angle += scale * self.steering_rate * steering * dt
        self.wheel_angle *= 1.0 - self.return_factor * dt
        self.wheel_angle = _clamp(self.wheel_angle, scale * MAX_WHEEL_ANGLE)
        self.update(dt)


def _clamp(v: float, limit: float) -> float:
    return max(-limit, min(limit, v))


def _abs_floor(v: float, floor: float) -> float:
    return math.copysign(floor, v) if abs(v) < floor else v


def number_property(props: dict[str, str], key: str, default: float, ctrl: Any, engine: ScenarioEngine) -> float:
    """A numeric controller property (default when absent); a located ScenarioError when it is no number."""
    raw = props.get(key, "")
    if raw == "":
        return default
    try:
        return float(raw)
    except ValueError:
        f, line = engine.where(ctrl)
        raise ScenarioError(Problem(f, line, 0, f"Controller.Property[{key}]", f"a number, got {raw!r}")) from None


def _shape_slope(shape: str, p: float) -> float:
    """d shape / d p of the lateral transition shapes at p in [0, 1]."""
    p = min(max(p, 0.0), 1.0)
    if shape == "linear":
        return 1.0
    if shape == "cubic":
        return 6.0 * p * (1.0 - p)
    if shape == "sinusoidal":
        return math.pi / 2 * math.sin(math.pi * p)
    return 0.0


def _ghost_heading(engine: ScenarioEngine, m: Any, lat: Any, speed: float, dt: float, h: float) -> float:
    """The ghost's heading after a tick of a lateral move, as esmini sets it.

    esmini faces along the lane on the tick a move ends (and for a step), and otherwise turns by the angle of the
    move's lateral rate at the start of the tick against the longitudinal rest of the step; the default
    controller's advance uses the tick's chord instead (kept, h, for moves over a distance).
    """
    if lat.dimension == "distance" and not lat.done:
        return h
    ph = engine.lanes.pose(m.road, m.lane, m.s, m.offset)[3]
    along = wrap(ph if m.sdir == engine.network.lane_direction(m.road, m.lane) else ph + math.pi)
    if lat.done or lat.shape == "step":
        return along
    done, total = lat.duration_like()
    if total <= SMALL:
        return along
    rate = (lat.target - lat.start) * _shape_slope(lat.shape, (done - dt) / total) / total
    step = abs(speed) * dt
    dlat = min(abs(rate) * dt, step)
    turn = math.atan2(dlat, math.sqrt(step * step - dlat * dlat))
    return wrap(along + math.copysign(turn, rate * m.sdir * (1.0 if speed >= 0 else -1.0)))


def settle(engine: ScenarioEngine, e: Any, m: Any, off_graph: bool) -> None:
    """After a model moved e: its lane (None off every road), odometer and standstill; off the lane graph, off-road time.

    With off_graph the entity leaves the lane graph (m.road = None; the engine then leaves the off-road
    clock to the model) until the model stops and hands it back.
    """
    net, dt = engine.network, engine.tick
    mt = net.locate(e.x, e.y, e.h) if net is not None else None
    e.lane = LanePos(mt.road, mt.lane, mt.s, mt.t) if mt is not None else None
    m.odometer += abs(e.speed) * dt
    m.standstill = m.standstill + dt if abs(e.speed) < 1e-4 else 0.0
    if off_graph:
        m.road = None
        off = mt is None or not mt.on_road or mt.lane_type == "none"  # as the engine counts it
        m.offroad = m.offroad + dt if off else 0.0


class FollowReference(DriverModel):
    """Tracks a reference entity (or its own ghost) with esmini's Stanley steering and spring speed law."""

    kind = "FollowReferenceController"

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)
        p = self.props
        self.cte_gain = number_property(p, "stanleyCrossTrackErrorGain", 1.0, ctrl, engine)
        self.stabilizer = number_property(p, "stanleySpeedStabilizer", 1.0, ctrl, engine)
        self.heading_gain = number_property(p, "stanleyHeadingGain", 1.0, ctrl, engine)
        self.curvature_gain = number_property(p, "stanleyCurvatureGain", 1.0, ctrl, engine)
        self.stiffness = number_property(p, "speedControlStiffness", 1.0, ctrl, engine)
        self.ref_name = p.get("referenceEntity", "")
        if self.ref_name and (self.ref_name not in engine.entities or self.ref_name == name):
            f, line = engine.where(ctrl)
            known = ", ".join(n for n in engine.entities if n != name)
            raise ScenarioError(Problem(f, line, 0, "Controller.Property[referenceEntity]",
                                        f"another entity's name (known: {known}), got {self.ref_name!r}"))
        e = engine.entities[name]
        self.vehicle = BicycleVehicle(e.x, e.y, e.h, e.length, e.speed, max_speed=e.max_speed, max_acc=e.max_accel)
        self.wheelbase = e.wheelbase
        self.ghost = None
        shared = getattr(engine, "ghosts", {}).get(name)  # a ghost entity the engine made for this one
        if not self.ref_name and shared:
            self.ref_name = shared
        elif not self.ref_name:  # the ghost takes over the entity's actions and its lane-graph motion
            self.ghost = copy.copy(e)
            self.ghost.name = f"{name}_ghost"
        self._written = (e.x, e.y, e.speed)
        self._ref_rate = 0.0

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        """Move the ghost (if any), then steer and accelerate the entity after the reference."""
        from roadtest.sim.xosc.motion import advance

        e, m, dt = engine.entities[self.name], engine.motions[self.name], engine.tick
        if (e.x, e.y) != self._written[:2]:  # teleported since the last tick: the model restarts there
            self.vehicle.x, self.vehicle.y, self.vehicle.h = e.x, e.y, e.h
        if self.ghost is not None:
            g = self.ghost
            self._adopt_new_actions(engine, e, g)
            if e.speed != self._written[2]:  # an action commanded a new speed: it is the ghost's
                g.speed = e.speed
            odo, still = m.odometer, m.standstill
            h0, lat = g.h, m.lat
            advance(engine.network, g, m, dt, t_next, engine.lanes)
            if lat is not None and m.road is not None and engine.lanes is not None and abs(g.speed) > SMALL:
                g.h = _ghost_heading(engine, m, lat, g.speed, dt, g.h)
            ref, ref_rate = g, self._ref_rate
            self._ref_rate = wrap(g.h - h0) / dt  # esmini's heading rate lags a tick
            m.odometer, m.standstill = odo, still
        else:
            ref = engine.entities[self.ref_name]
            ref_rate = engine.snap[self.ref_name].yaw_rate if self.ref_name in engine.snap else ref.yaw_rate
        self._step(ref, ref_rate, dt)
        v = self.vehicle
        e.x, e.y, e.h, e.speed = v.x, v.y, wrap(v.h), v.speed
        settle(engine, e, m, off_graph=self.ghost is None)
        self._written = (e.x, e.y, e.speed)

    def _adopt_new_actions(self, engine: ScenarioEngine, e: Any, g: Any) -> None:
        """Actions started this tick read the entity's state; in esmini they act on the ghost: start them from it."""
        for _, ra in engine.running:
            if ra.actor != self.name or ra.done or ra.started_at != engine.time or getattr(ra, "ghost_started", False):
                continue
            ra.ghost_started = True
            if ra.name in ("SpeedAction", "SpeedProfileAction"):  # their start reads only the speed
                e.speed = g.speed
                ra.start(engine)
                ra.step(engine, engine.tick)
            elif ra.name == "LaneChangeAction" and getattr(ra, "profile", None) is not None and g.lane and e.lane:
                shift = g.lane.t - e.lane.t  # the move starts from the ghost's lateral place
                ra.profile.start += shift
                engine.motions[self.name].offset += shift

    def _step(self, ref: Any, ref_rate: float, dt: float) -> None:
        v = self.vehicle
        mx, my = (self.wheelbase * math.cos(v.h), self.wheelbase * math.sin(v.h)) if v.speed >= 0 else (0.0, 0.0)
        # signed distance of the front axle from the reference's x-axis (positive to its right)
        dy = (v.x + mx - ref.x) * math.sin(ref.h) - (v.y + my - ref.y) * math.cos(ref.h)
        # how far ahead of the reference the entity is, along its own heading
        dx = (v.x - ref.x) * math.cos(v.h) + (v.y - ref.y) * math.sin(v.h)
        dh = wrap(ref.h - v.h)
        curvature = _clamp(ref_rate, 0.5) / _abs_floor(ref.speed, SMALL)
        acc = -self.stiffness * dx - 2.0 * math.sqrt(max(self.stiffness, 0.0)) * (v.speed - ref.speed)
        steer = (self.heading_gain * dh * (-1.0 if v.speed < 0 else 1.0)
                 + math.atan2(self.cte_gain * dy, self.stabilizer + v.speed)
                 + self.curvature_gain * math.atan(curvature * self.wheelbase))
        v.acc_and_steer(dt, acc, steer)

    def stop(self, engine: ScenarioEngine) -> None:
        """Hand the entity back to the default controller on the lane it is on now."""
        from roadtest.sim.xosc.motion import place

        e = engine.entities[self.name]
        place(e, engine.motions[self.name], locate(engine.network, e.x, e.y, e.z, e.h), engine.network)
