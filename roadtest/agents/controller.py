"""Low-level control shared by roadtest's agents: pure pursuit for steering, acceleration to pedals.

Steering sign: the ego frame has y to the left, a target on the left needs a left (counter-clockwise)
wheel angle, and CARLA's `steer` is positive to the right, so steer = -wheel_angle / max_wheel_angle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from roadtest.sim.api import Control

__all__ = ["VehicleParams", "pure_pursuit_steer", "lookahead_point", "accel_to_control", "SpeedController", "idm_accel"]


@dataclass(frozen=True)
class VehicleParams:
    """What the controllers assume about the car: a linear pedal map, close to the built-in car at urban speeds
    (roadtest.sim.powertrain: 4.5 m/s^2 at full throttle up to ~19 m/s, less above; brakes 8 m/s^2)."""

    wheelbase: float = 2.7  # m
    max_wheel_angle: float = 0.6  # rad at steer = 1 (embedded BicycleParams.max_steer)
    max_accel: float = 4.0  # m/s^2 at full throttle
    max_decel: float = 8.0  # m/s^2 at full brake


def _clip(v: float, lo: float, hi: float) -> float:
    return float(lo if v < lo else hi if v > hi else v)


def pure_pursuit_steer(target_x: float, target_y: float, params: VehicleParams = VehicleParams()) -> float:
    """CARLA steer (-1..1, right positive) that puts the rear axle on an arc through an ego-frame target."""
    d2 = target_x * target_x + target_y * target_y
    if d2 < 1e-6:
        return 0.0
    curvature = 2.0 * target_y / d2  # left positive
    wheel = math.atan(params.wheelbase * curvature)
    return _clip(-wheel / params.max_wheel_angle, -1.0, 1.0)


def lookahead_point(path: Sequence[Sequence[float]], distance: float) -> tuple[float, float] | None:
    """First point of an ego-frame path at least `distance` from the ego and ahead of it; the last point otherwise."""
    best = None
    for x, y in path:
        if x <= 0.0:
            continue
        best = (float(x), float(y))
        if math.hypot(x, y) >= distance:
            return best
    return best


def accel_to_control(accel: float, speed: float, steer: float = 0.0, params: VehicleParams = VehicleParams(),
                     rolling: float = 0.0) -> Control:
    """Pedals for a wanted longitudinal acceleration, making up for `rolling` (m/s^2, coasting deceleration);
    holds the car with full brake once stopped."""
    if accel <= 0.0 and speed < 0.05:
        return Control(throttle=0.0, steer=steer, brake=1.0)
    if accel >= -rolling and (accel > 0.0 or rolling > 0.0):
        return Control(throttle=float(_clip((accel + rolling) / params.max_accel, 0.0, 1.0)), steer=steer, brake=0.0)
    if accel > -0.15 and rolling == 0.0:  # coast: rolling resistance does the rest
        return Control(throttle=0.0, steer=steer, brake=0.0)
    return Control(throttle=0.0, steer=steer, brake=float(_clip((-accel - rolling) / params.max_decel, 0.0, 1.0)))


class SpeedController:
    """PI on speed on top of a feed-forward acceleration; the integral absorbs drag and model error."""

    def __init__(self, kp: float = 1.0, ki: float = 0.3, dt: float = 0.05, params: VehicleParams = VehicleParams()):
        self.kp, self.ki, self.dt, self.params = kp, ki, dt, params
        self.integral = 0.0

    def control(self, accel_ff: float, target_speed: float, speed: float, steer: float = 0.0) -> Control:
        """Pedals that follow `accel_ff` while pulling the speed towards `target_speed`."""
        err = target_speed - speed
        if target_speed < 0.05 and accel_ff <= 0.0:
            self.integral = 0.0
            return accel_to_control(min(accel_ff, -1.0), speed, steer, self.params)
        self.integral = float(_clip(self.integral + err * self.dt, -2.0, 2.0))
        accel = accel_ff + self.kp * err + self.ki * self.integral
        return accel_to_control(accel, speed, steer, self.params)


def idm_accel(speed: float, desired: float, gap: float | None = None, lead_speed: float = 0.0, a_max: float = 2.0,
              b: float = 3.0, s0: float = 2.0, headway: float = 1.5) -> float:
    """Intelligent Driver Model acceleration towards `desired` m/s, behind a lead `gap` m ahead (None: free road)."""
    desired = max(desired, 0.0)
    if desired < 0.05:
        free = -b if speed > 0.0 else 0.0
    else:
        free = max(a_max * (1.0 - (max(speed, 0.0) / desired) ** 4), -b)
    if gap is None:
        return free
    dv = speed - lead_speed
    s_star = s0 + max(0.0, speed * headway + speed * dv / (2.0 * math.sqrt(a_max * b)))
    return free - a_max * (s_star / max(gap, 0.1)) ** 2
