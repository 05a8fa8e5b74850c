"""StandinPointSimulator: a stand-in backend, written the way docs/extending.md says a backend is added.

Not a simulator of anything: the ego is a point mass that drives along +x at the speed its throttle and brake
give (4 m/s^2 each way), nothing else moves. It supplies `_advance`, `_observe` and `_close` only; the loop,
the time cap, the recording, the environment reading, the event detection and the pseudo-sensors are the
shared layer's."""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.sim.api import ActorState, Control, SimSettings, Simulation, Simulator, Termination, WorldState
from roadtest.sim.environment import environment_of
from roadtest.sim.events import EventDetector
from roadtest.sim.sensors import PSEUDO, observe

ACCEL = 4.0  # m/s^2 at full throttle or full brake


class StandinPointSimulation(Simulation):
    """One run of the stand-in: a point-mass ego on an empty plane (see the module docstring)."""

    def __init__(self, bundle: Any, seed: int, settings: SimSettings):
        super().__init__(settings)
        self.meta: dict[str, Any] = dict(bundle.meta)
        self.network = None
        self.environment = environment_of(bundle.xosc, self.meta)
        self.detector = EventDetector(None, watch=["ego"])
        self.x = self.speed = 0.0
        self.frame = 0
        self.trace.info.update(backend="standin", seed=seed)
        self.state = self._world(0.0)
        if settings.record:
            self.trace.states.append(self.state)

    def _world(self, t: float) -> WorldState:
        ego = ActorState(id="ego", role="ego", kind="car", x=self.x, y=0.0, z=0.0, h=0.0, speed=self.speed,
                         vx=self.speed)
        new, _ = self.detector.collisions([ego], first="ego")
        return WorldState(time=t, frame=self.frame, actors=(ego,), environment=self.environment, events=tuple(new))

    def _advance(self, control: Control | None) -> tuple[WorldState, Termination | None, str]:
        c = control or Control()
        self.speed = max(0.0, self.speed + ACCEL * (c.throttle - c.brake) * self.tick)
        self.x += self.speed * self.tick
        self.frame += 1
        return self._world(round(self.frame * self.tick, 9)), None, ""

    def _observe(self, sensor_specs: list[Mapping[str, Any]]) -> dict[str, Any]:
        return observe(self, sensor_specs, PSEUDO)


class StandinPointSimulator(Simulator):
    """The stand-in backend's Simulator (registered by name in a test, as BACKENDS' one line would)."""

    name = "standin"

    @classmethod
    def sensor_types(cls) -> frozenset[str]:
        return frozenset(PSEUDO)

    def load(self, bundle: Any, seed: int = 0, settings: SimSettings | None = None) -> StandinPointSimulation:
        return StandinPointSimulation(bundle, seed, settings or SimSettings())
