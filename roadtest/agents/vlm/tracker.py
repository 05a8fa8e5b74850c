"""The tracking controller: turns the latest plan into controls every tick.

A plan (six ego-frame waypoints at 0.5 s and a target speed) is anchored in the world frame at the pose
the decision was made from. Each tick, pure pursuit steers towards the plan point `lookahead_m +
lookahead_s * speed` metres ahead (past the last point, along the last segment), and a PID on speed
follows the lower of the target speed and the speed the waypoints imply for the current 0.5 s step (their
spacing / 0.5 s), with the change to the next step's speed as feed-forward acceleration. A plan that asks to stop (target below 0.5 m/s) is followed by a constant-deceleration
profile (`stop_decel`, or the deceleration that stops there when the car is faster) that ends at its last
point, never faster than the speed at the decision (at least
1 m/s, so a car stopped short can creep up). No plan, or a plan past its hold time: brake at `stop_decel`
to a stop, steering along the last path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from roadtest.agents.base import PLAN_DT
from roadtest.agents.controller import VehicleParams, accel_to_control, pure_pursuit_steer
from roadtest.sim.api import Control
from roadtest.sim.route_path import to_ego_frame

__all__ = ["Plan", "Tracker", "STOP_SPEED"]

STOP_SPEED = 0.5  # m/s: a target below this is a plan to stop at its last point
STOP_MARGIN = 0.5  # m short of the plan's last point where the stop profile reaches zero


@dataclass(frozen=True)
class Plan:
    """A valid plan, in the world frame of the pose it was made from."""

    world: tuple[tuple[float, float], ...]  # m, the six waypoints
    target_speed: float  # m/s
    made_at: float  # s, simulated time of the decision's image
    effective_at: float  # s, when the plan takes effect (later than made_at in realtime mode)
    reason: str = ""
    speed0: float = 0.0  # m/s, the ego's speed at the decision
    step_speeds: tuple[float, ...] = ()  # m/s the waypoints imply for each 0.5 s step

    @classmethod
    def from_ego(cls, pts: Sequence[Sequence[float]], pose: Mapping[str, float], target_speed: float, made_at: float,
                 effective_at: float, reason: str = "", speed0: float = 0.0) -> "Plan":
        c, s = math.cos(pose["h"]), math.sin(pose["h"])
        world = tuple((pose["x"] + c * x - s * y, pose["y"] + s * x + c * y) for x, y in pts)
        prev, steps = (0.0, 0.0), []
        for x, y in pts:
            steps.append(math.hypot(x - prev[0], y - prev[1]) / PLAN_DT)
            prev = (x, y)
        return cls(world, float(target_speed), made_at, effective_at, reason, float(speed0), tuple(steps))


class _PID:
    def __init__(self, kp: float, ki: float, kd: float):
        self.kp, self.ki, self.kd = kp, ki, kd
        self.integral, self.prev = 0.0, None

    def __call__(self, err: float, dt: float) -> float:
        self.integral = max(-2.0, min(2.0, self.integral + err * dt))
        deriv = 0.0 if self.prev is None or dt <= 0 else (err - self.prev) / dt
        self.prev = err
        return self.kp * err + self.ki * self.integral + self.kd * deriv

    def reset(self) -> None:
        self.integral, self.prev = 0.0, None


class Tracker:
    """Pure pursuit + PID over the plan in force (gains from the config's `controller` section)."""

    def __init__(self, gains: Mapping[str, Any]):
        self.g = dict(gains)
        self.params = VehicleParams(wheelbase=float(gains["wheelbase"]), max_wheel_angle=float(gains["max_wheel_angle"]))
        self.pid = _PID(float(gains["kp"]), float(gains["ki"]), float(gains["kd"]))

    def _ego_path(self, plan: Plan, pose: Mapping[str, float]) -> list[tuple[float, float]]:
        return [to_ego_frame(pose["x"], pose["y"], pose["h"], x, y) for x, y in plan.world]

    def control(self, plan: Plan | None, pose: Mapping[str, float] | None, speed: float, dt: float, t: float,
                braking: bool = False) -> Control:
        """Controls for this tick; `braking` (a stale plan) stops the car along the plan's path."""
        if plan is None or pose is None:
            self.pid.reset()
            return accel_to_control(-float(self.g["stop_decel"]), speed)
        path = self._ego_path(plan, pose)
        steer = self._steer(path, speed)
        if braking:
            self.pid.reset()
            return accel_to_control(-float(self.g["stop_decel"]), speed, steer, self.params)
        target, a_ff = min(plan.target_speed, 60.0), 0.0
        if plan.target_speed < STOP_SPEED:
            room = _remaining(path) - STOP_MARGIN
            if room <= 0.3 and speed < 0.3:
                self.pid.reset()
                return Control(throttle=0.0, steer=steer, brake=1.0)
            target = min(math.sqrt(2.0 * float(self.g["stop_decel"]) * max(room, 0.0)), max(plan.speed0, 1.0))
            if speed > target:  # the deceleration that stops at the point
                a_ff = -speed * speed / (2.0 * max(room, 0.1))
        elif plan.step_speeds:
            k = min(max(int((t - plan.made_at) / PLAN_DT), 0), len(plan.step_speeds) - 1)
            target = min(target, plan.step_speeds[k])
            if k + 1 < len(plan.step_speeds) and plan.step_speeds[k + 1] < plan.target_speed:
                a_ff = (plan.step_speeds[k + 1] - plan.step_speeds[k]) / PLAN_DT
        accel = a_ff + self.pid(target - speed, dt)
        accel = max(min(accel, float(self.g["max_accel"])), -self.params.max_decel)
        if target < 0.05 and accel >= 0.0:
            accel = -1.0
        return accel_to_control(accel, speed, steer, self.params)

    def _steer(self, path: list[tuple[float, float]], speed: float) -> float:
        look = float(self.g["lookahead_m"]) + float(self.g["lookahead_s"]) * max(speed, 0.0)
        pts = [(0.0, 0.0)] + [p for p in path if p[0] > 0.0]
        for x, y in pts[1:]:
            if math.hypot(x, y) >= look:
                return pure_pursuit_steer(x, y, self.params)
        if len(pts) >= 3:  # past the plan's end: extend its last segment
            (x0, y0), (x1, y1) = pts[-2], pts[-1]
            seg = math.hypot(x1 - x0, y1 - y0)
            if seg > 0.2:
                k = look / seg
                return pure_pursuit_steer(x1 + (x1 - x0) * k, y1 + (y1 - y0) * k, self.params)
        if len(pts) >= 2 and math.hypot(*pts[-1]) > 1.0:
            return pure_pursuit_steer(*pts[-1], self.params)
        return 0.0


def _remaining(path: list[tuple[float, float]]) -> float:
    """Metres left along the plan to its last point, from the point nearest ahead of the car."""
    ahead = [i for i, (x, _) in enumerate(path) if x > 0.0]
    if not ahead:
        return 0.0
    i = ahead[0]
    d = math.hypot(*path[i])
    for (x0, y0), (x1, y1) in zip(path[i:], path[i + 1:]):
        d += math.hypot(x1 - x0, y1 - y0)
    return d
