"""The rule-blind baseline: follows its current lane at a fixed speed, ignoring every rule and actor."""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.agents.base import PLAN_DT, PLAN_STEPS, AutonomousAgent, sensor_data, sensor_spec
from roadtest.agents.controller import SpeedController, lookahead_point, pure_pursuit_steer
from roadtest.sim.api import Control

__all__ = ["LaneFollowerAgent"]


class LaneFollowerAgent(AutonomousAgent):
    """Pure pursuit on the lane centre from the objects sensor; PI speed control to `speed` (m/s)."""

    defaults = {"speed": 12.0, "lookahead": 6.0}

    def setup(self, path_to_conf_file: Any) -> None:
        super().setup(path_to_conf_file)
        self.speed_ctl = SpeedController()

    def sensors(self) -> list[dict[str, Any]]:
        return [sensor_spec("sensor.speedometer", "speed"), sensor_spec("roadtest.objects", "objects")]

    def run_step(self, input_data: Mapping[str, Any], timestamp: float) -> Control:
        speed = float((sensor_data(input_data, "speed") or {}).get("speed", 0.0))
        objects = sensor_data(input_data, "objects") or {}
        lane = objects.get("lane") or {}
        centre = lane.get("centerline") or []
        target_speed = float(self.config["speed"])
        steer = 0.0
        lookahead = max(float(self.config["lookahead"]), 0.6 * speed)
        point = lookahead_point(centre, lookahead)
        if point is not None:
            steer = pure_pursuit_steer(*point)
        self.planned = _plan_along(centre, speed, target_speed)
        self.text = f"lane {lane.get('road')}/{lane.get('lane')} at {target_speed:.1f} m/s"
        return self.speed_ctl.control(0.0, target_speed, speed, steer)


def _plan_along(path: list, speed: float, target: float) -> tuple[tuple[float, float], ...]:
    """Points every PLAN_DT s along an ego-frame path at a speed moving to `target` at 2 m/s^2."""
    import numpy as np

    pts = np.asarray([[0.0, 0.0]] + [list(p) for p in path if p[0] > 0.0], dtype=float)
    if len(pts) < 2:
        pts = np.array([[0.0, 0.0], [1.0, 0.0]])
    cum = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))]
    out, s, v = [], 0.0, speed
    for _ in range(PLAN_STEPS):
        for _ in range(5):
            v = v + float(np.clip(target - v, -2.0 * PLAN_DT / 5, 2.0 * PLAN_DT / 5))
            s += v * PLAN_DT / 5
        if s <= cum[-1]:
            out.append((float(np.interp(s, cum, pts[:, 0])), float(np.interp(s, cum, pts[:, 1]))))
        else:
            d = pts[-1] - pts[-2]
            d = d / max(float(np.linalg.norm(d)), 1e-9)
            p = pts[-1] + d * (s - cum[-1])
            out.append((float(p[0]), float(p[1])))
    return tuple(out)
