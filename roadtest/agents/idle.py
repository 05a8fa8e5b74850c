"""The idle agent: brakes and stays, the floor every score is measured against."""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.agents.base import AutonomousAgent, sensor_spec
from roadtest.sim.api import Control

__all__ = ["IdleAgent"]


class IdleAgent(AutonomousAgent):
    """Full brake every tick; plans to stay where it is."""

    def sensors(self) -> list[dict[str, Any]]:
        return [sensor_spec("sensor.speedometer", "speed")]

    def run_step(self, input_data: Mapping[str, Any], timestamp: float) -> Control:
        self.planned = tuple((0.0, 0.0) for _ in range(6))
        return Control(throttle=0.0, steer=0.0, brake=1.0)
