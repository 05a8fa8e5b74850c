"""Bench2DriveZoo's trajectory follower (team_code/pid_controller.py defaults) and their agents' post-processing.

Waypoints and the route target are in the lidar frame (x right, y forward, m), 0.5 s apart. Desired speed is
twice the mean waypoint spacing; the aim point is the waypoint whose segment midpoint lies closest to 4 m;
the route target replaces it when its angle is smaller, or when it turns away from the last segment by more
than 0.3 and lies under 10 m ahead. Each PID's integral is the mean of a 40-sample window (started with zeros),
its derivative the last difference.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

__all__ = ["PID", "PIDGains", "PIDController", "postprocess", "UNIAD_SPEED_CUT"]

UNIAD_SPEED_CUT = 5.0  # m/s: UniAD's agent (not VAD's) drops the throttle above it


class PID:
    """K_P e + K_I mean(window) + K_D (e - e_prev), the window holding the last n errors (zeros at first)."""

    def __init__(self, k_p: float, k_i: float, k_d: float, n: int):
        self.k_p, self.k_i, self.k_d = k_p, k_i, k_d
        self.window: deque[float] = deque([0.0] * n, maxlen=n)

    def step(self, error: float) -> float:
        self.window.append(float(error))
        if len(self.window) >= 2:
            integral = float(np.mean(self.window))
            derivative = self.window[-1] - self.window[-2]
        else:
            integral = derivative = 0.0
        return self.k_p * error + self.k_i * integral + self.k_d * derivative


@dataclass(frozen=True)
class PIDGains:
    """PIDController's defaults in Bench2DriveZoo (the values their UniAD and VAD agents run with)."""

    turn_kp: float = 0.75
    turn_ki: float = 0.75
    turn_kd: float = 0.3
    turn_n: int = 40
    speed_kp: float = 5.0
    speed_ki: float = 0.5
    speed_kd: float = 1.0
    speed_n: int = 40
    max_throttle: float = 0.75
    brake_speed: float = 0.4  # m/s: a plan slower than this brakes
    brake_ratio: float = 1.1  # brake when speed exceeds the plan's by this factor
    clip_delta: float = 0.25  # m/s: the speed error is clipped to [0, clip_delta]
    aim_dist: float = 4.0  # m
    angle_thresh: float = 0.3
    dist_thresh: float = 10.0  # m


def _angle(p: Sequence[float]) -> float:
    """(90 deg - atan2(y, x)) / 90 deg: 0 straight ahead, positive to the right."""
    return math.degrees(math.pi / 2 - math.atan2(float(p[1]), float(p[0]))) / 90.0


class PIDController:
    """control_pid(waypoints, speed, target) -> (steer, throttle, brake, metadata), as Bench2DriveZoo's."""

    def __init__(self, gains: PIDGains = PIDGains()):
        self.gains = gains
        self.turn = PID(gains.turn_kp, gains.turn_ki, gains.turn_kd, gains.turn_n)
        self.speed = PID(gains.speed_kp, gains.speed_ki, gains.speed_kd, gains.speed_n)

    def control_pid(self, waypoints: Any, speed: float, target: Sequence[float]) -> tuple[float, float, float, dict]:
        g = self.gains
        wps = np.asarray(waypoints, dtype=float)[:, :2]
        pairs = len(wps) - 1
        desired, best, aim = 0.0, 1e5, wps[0]
        for i in range(pairs):
            desired += float(np.linalg.norm(wps[i + 1] - wps[i])) * 2.0 / pairs
            norm = float(np.linalg.norm((wps[i + 1] + wps[i]) / 2.0))
            if abs(g.aim_dist - best) > abs(g.aim_dist - norm):
                aim, best = wps[i], norm
        angle, angle_last, angle_target = _angle(aim), _angle(wps[-1] - wps[-2]), _angle(target)
        use_target = abs(angle_target) < abs(angle) or (
            abs(angle_target - angle_last) > g.angle_thresh and float(target[1]) < g.dist_thresh)
        angle_final = angle_target if use_target else angle
        steer = float(np.clip(self.turn.step(angle_final), -1.0, 1.0))
        brake = desired < g.brake_speed or (speed / desired) > g.brake_ratio
        delta = float(np.clip(desired - speed, 0.0, g.clip_delta))
        throttle = float(np.clip(self.speed.step(delta), 0.0, g.max_throttle))
        throttle = 0.0 if brake else throttle
        meta = {"aim": [float(aim[0]), float(aim[1])], "target": [float(target[0]), float(target[1])],
                "desired_speed": desired, "angle": angle, "angle_last": angle_last, "angle_target": angle_target,
                "angle_final": angle_final, "delta": delta, "use_target": bool(use_target)}
        return steer, throttle, float(brake), meta


def postprocess(steer: float, throttle: float, brake: float, speed: float,
                speed_cut: float | None = None) -> tuple[float, float, float]:
    """Their agents' last step: brake < 0.05 -> 0; throttle > brake -> no brake; with `speed_cut` (UniAD: 5 m/s)
    no throttle above it; clips steer [-1, 1], throttle [0, 0.75], brake [0, 1]."""
    if brake < 0.05:
        brake = 0.0
    if throttle > brake:
        brake = 0.0
    if speed_cut is not None and speed > speed_cut:
        throttle = 0.0
    return (float(np.clip(steer, -1.0, 1.0)), float(np.clip(throttle, 0.0, 0.75)), float(np.clip(brake, 0.0, 1.0)))
