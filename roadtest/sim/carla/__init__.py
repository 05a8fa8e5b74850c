"""The CARLA backend (CARLA 0.9.16 + scenario_runner): CarlaSimulator / CarlaSimulation; roadtest.sim.frames is
where roadtest's frame meets CARLA's. Importing this package needs neither `carla` nor scenario_runner."""

from __future__ import annotations

from typing import Any

__all__ = ["CarlaSimulator", "CarlaSimulation"]


def __getattr__(name: str) -> Any:
    if name == "CarlaSimulator":
        from roadtest.sim.carla.simulator import CarlaSimulator

        return CarlaSimulator
    if name == "CarlaSimulation":
        from roadtest.sim.carla.simulation import CarlaSimulation

        return CarlaSimulation
    raise AttributeError(name)
