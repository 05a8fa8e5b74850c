"""A fake simulator and agents for runner tests (stand-ins, not simulators): an ego on a straight line.

FakeSimulator is importable by spawned workers as backend "runner_fakes:FakeSimulator" because
multiprocessing's spawn start method hands the parent's sys.path to the child.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from roadtest.agents.base import AutonomousAgent
from roadtest.sim.api import ActorState, Control, LanePos, SimSettings, Simulation, Simulator, Termination, WorldState

__all__ = ["FakeSimulator", "SteadyAgent", "RaisingAgent", "make_bundle"]


class FakeSimulation(Simulation):
    """Ego drives +x from 0 at a seed-dependent speed; ends when it passes meta.route.length."""

    def __init__(self, bundle, seed: int, settings: SimSettings):
        super().__init__(settings)
        meta = bundle.meta
        if meta.get("broken"):
            raise ValueError("broken bundle: the fake refuses it")
        self.rng = random.Random(seed)
        self.length = float(meta["route"]["length"])
        self.sleep = float(meta.get("sleep", 0.0))
        self.x, self.v, self.t, self.frame = 0.0, 8.0 + 4.0 * self.rng.random(), 0.0, 0

    def _advance(self, control: Control | None):
        if control is not None:
            self.v = max(0.0, self.v + (control.throttle - control.brake) * 2.0 * self.tick)
        self.v += self.rng.uniform(-0.05, 0.05)
        self.x += self.v * self.tick
        self.t += self.tick
        self.frame += 1
        if self.sleep:
            time.sleep(self.sleep)
        ego = ActorState(id="hero", role="ego", kind="car", x=self.x, y=0.0, z=0.0, h=0.0, speed=self.v, vx=self.v,
                         lane=LanePos("1", -1, self.x, -1.75))
        state = WorldState(time=round(self.t, 9), frame=self.frame, actors=(ego,))
        done = self.x >= self.length
        return state, (Termination.COMPLETED if done else None), ("goal" if done else "")

    def _observe(self, sensor_specs):
        return {s["id"]: (self.frame, {"speed": self.v}) for s in sensor_specs}


class FakeSimulator(Simulator):
    name = "fake"

    def load(self, bundle, seed: int = 0, settings: SimSettings | None = None) -> FakeSimulation:
        return FakeSimulation(bundle, seed, settings or SimSettings())


class SteadyAgent(AutonomousAgent):
    """Light throttle every tick, with a planned straight path."""

    def sensors(self):
        return [{"type": "sensor.speedometer", "id": "speed"}]

    def run_step(self, input_data, timestamp):
        self.planned = tuple((5.0 * k, 0.0) for k in range(1, 7))
        return Control(throttle=0.1)


class RaisingAgent(AutonomousAgent):
    """Raises on its third step."""

    def __init__(self, conf=None):
        self.n = 0
        super().__init__(conf)

    def run_step(self, input_data, timestamp):
        self.n += 1
        if self.n == 3:
            raise RuntimeError("agent exploded on purpose")
        return Control(throttle=0.2)


def make_bundle(folder: Path, name: str, length: float = 20.0, **meta) -> Path:
    """A bundle folder the fake simulator runs: a placeholder scenario.xosc and a meta.json with a straight route."""
    b = folder / name
    b.mkdir(parents=True, exist_ok=True)
    (b / "scenario.xosc").write_text("<OpenSCENARIO/>\n")
    wps = [[float(x), 0.0] for x in range(0, int(length) + 1, 2)]
    (b / "meta.json").write_text(json.dumps({"id": name, "route": {"waypoints": wps, "length": length}, **meta}))
    return b
