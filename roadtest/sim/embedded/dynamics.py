"""Kinematic bicycle for an agent-driven ego: Control in, pose out, limits from the entity's Performance and Axles.

Longitudinally the pedals act through roadtest.sim.powertrain (drive force falling with speed, rolling
resistance and drag, top speed from Performance maxSpeed), so a throttle means roughly what it means in CARLA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from roadtest.sim import powertrain as pt
from roadtest.sim.api import Control

__all__ = ["BicycleParams", "BicycleState", "step_bicycle", "params_from_entity"]

G = pt.G  # m/s^2
REVERSE_MAX_SPEED = 5.0  # m/s
MAX_PLAUSIBLE_STEER = 1.2  # rad (69 degrees); larger front-wheel angles are taken as degrees written by mistake


@dataclass(frozen=True)
class BicycleParams:
    """Vehicle limits; OpenSCENARIO Performance gives the longitudinal ones, Axles the geometry."""

    wheelbase: float = 2.7  # m
    max_steer: float = 0.6  # rad, front wheel angle at full lock
    max_steer_rate: float = 1.2  # rad/s, wheel angle rate (not in OpenSCENARIO: full lock in 0.5 s)
    max_speed: float = 70.0  # m/s, full-throttle top speed
    max_accel: float = pt.LAUNCH_ACCEL  # m/s^2, at full throttle from rest
    max_decel: float = pt.BRAKE_DECEL  # m/s^2, at full brake (before rolling resistance and drag)
    friction: float = 1.0  # road friction scale (Environment.friction)
    power: float = 0.0  # W/kg at the wheels at full throttle; 0: the power that reaches max_speed

    def __post_init__(self):
        if not self.power > 0.0:
            object.__setattr__(self, "power", pt.specific_power(self.max_speed))


@dataclass(frozen=True)
class BicycleState:
    """Pose and motion of the bicycle at its bounding-box centre."""

    x: float  # m
    y: float  # m
    h: float  # rad
    speed: float  # m/s, signed (negative when reversing)
    steer: float = 0.0  # rad, front wheel angle, positive to the left (counter-clockwise)
    accel: float = 0.0  # m/s^2, longitudinal
    yaw_rate: float = 0.0  # rad/s


def params_from_entity(entity, friction: float = 1.0) -> BicycleParams:
    """Limits of a ScenarioEngine EntityState, with defaults where a file gave none."""
    d = BicycleParams()

    def pos(name: str, default: float) -> float:
        v = getattr(entity, name, None)
        return float(v) if v is not None and v > 0 and math.isfinite(v) else default

    max_steer = pos("max_steer", d.max_steer)
    if max_steer > MAX_PLAUSIBLE_STEER:
        # OpenSCENARIO gives radians; some files write degrees (maxSteering="30"): read those as degrees.
        max_steer = math.radians(max_steer) if max_steer <= 90.0 else d.max_steer
    return BicycleParams(
        wheelbase=pos("wheelbase", d.wheelbase),
        max_steer=max_steer,
        max_steer_rate=2.0 * max_steer,
        max_speed=pos("max_speed", d.max_speed),
        max_accel=min(pos("max_accel", d.max_accel), pt.LAUNCH_ACCEL),  # Performance bounds the car, never lifts it
        max_decel=min(pos("max_decel", d.max_decel), pt.BRAKE_DECEL),
        friction=friction,
    )


def _clip(v: float, lo: float, hi: float) -> float:
    return lo if v < lo else hi if v > hi else v


def step_bicycle(st: BicycleState, c: Control, p: BicycleParams, dt: float) -> BicycleState:
    """One tick: steering toward the command at a limited rate, then longitudinal, then the pose (midpoint rule)."""
    # Control.steer is positive to the right (CARLA); the wheel angle here is counter-clockwise positive.
    target = -_clip(c.steer, -1.0, 1.0) * p.max_steer
    dmax = p.max_steer_rate * dt
    steer = st.steer + _clip(target - st.steer, -dmax, dmax)

    v = st.speed
    throttle = _clip(c.throttle, 0.0, 1.0)
    brake = 1.0 if c.hand_brake else _clip(c.brake, 0.0, 1.0)
    vmax = REVERSE_MAX_SPEED if c.reverse else p.max_speed
    drive_dir = -1.0 if c.reverse else 1.0
    along = max(0.0, v * drive_dir)
    a_drive = drive_dir * throttle * pt.drive_accel(along, p.max_accel, p.power, vmax)
    resist = brake * p.max_decel + pt.resistance(abs(v))
    a_grip = p.friction * G
    a_drive = _clip(a_drive, -a_grip, a_grip)
    resist = min(resist, a_grip)
    # Resistance opposes motion and never reverses it within the tick.
    if v > 0.0:
        v_new = max(0.0, v + (a_drive - resist) * dt) if a_drive - resist < 0 else v + (a_drive - resist) * dt
    elif v < 0.0:
        v_new = min(0.0, v + (a_drive + resist) * dt) if a_drive + resist > 0 else v + (a_drive + resist) * dt
    else:
        mag = max(0.0, abs(a_drive) - brake * p.max_decel)
        v_new = math.copysign(mag * dt, a_drive) if a_drive else 0.0
    v_new = _clip(v_new, -REVERSE_MAX_SPEED, p.max_speed)
    accel = (v_new - v) / dt

    # Kinematic bicycle about the centre: slip angle beta with the centre midway between the axles.
    beta = math.atan(0.5 * math.tan(steer))
    v_mid = 0.5 * (v + v_new)
    yaw_rate = v_mid * math.cos(beta) * math.tan(steer) / p.wheelbase
    h_mid = st.h + 0.5 * yaw_rate * dt
    x = st.x + v_mid * math.cos(h_mid + beta) * dt
    y = st.y + v_mid * math.sin(h_mid + beta) * dt
    h = math.remainder(st.h + yaw_rate * dt, math.tau)
    out = object.__new__(BicycleState)  # filled in place: the frozen dataclass's __init__ is a setattr per field
    d = out.__dict__
    d["x"], d["y"], d["h"], d["speed"], d["steer"], d["accel"], d["yaw_rate"] = x, y, h, v_new, steer, accel, yaw_rate
    return out
