"""The backend conformance check passes on the built-in simulator and catches a nondeterministic backend."""

import itertools

import pytest

from roadtest.sim.api import Control, SimSettings
from roadtest.sim.conformance import ConformanceFailure, check_backend
from roadtest.sim.embedded.simulator import EmbeddedSimulation, EmbeddedSimulator

from embedded_fakes import FakeEngine, FakeEntity, FakeStraightRoads


class _Bundle:
    meta = {"traffic": {"density": 4, "seed": 1}}
    xodr = None
    id = "fake"


class FakeEngineSimulator(EmbeddedSimulator):
    """The built-in simulator on the stand-in engine and map (the real engine is tested on real files)."""

    def load(self, bundle, seed=0, settings=None):
        net = FakeStraightRoads(n_roads=2, length=500.0, nr=3)
        ents = [FakeEntity("hero", role="ego", x=20.0, y=-5.25, speed=8.0), FakeEntity("lead", x=80.0, y=-5.25, speed=6.0)]
        return EmbeddedSimulation(bundle, seed, settings or SimSettings(), engine=FakeEngine(net, ents))


class LeakySimulator(FakeEngineSimulator):
    """A broken backend: a process-global counter leaks into the ego's speed, so runs differ."""

    counter = itertools.count()

    def load(self, bundle, seed=0, settings=None):
        sim = super().load(bundle, seed, settings)
        sim.engine.entities["lead"].speed += next(self.counter)
        return sim


def test_the_built_in_simulator_passes_with_scripted_control():
    info = check_backend(FakeEngineSimulator(), _Bundle(), steps=120, seed=3)
    assert info["steps"] == 121 and len(info["digest"]) == 64


def test_the_check_runs_a_leaderboard_shaped_agent():
    class Cruise:
        def sensors(self):
            return [{"type": "sensor.speedometer", "id": "speed"}]

        def run_step(self, data, timestamp):
            return Control(throttle=0.5 if data["speed"][1]["speed"] < 10 else 0.0)

    assert check_backend(FakeEngineSimulator(), _Bundle(), agent_factory=Cruise, steps=60)["steps"] == 61


def test_a_nondeterministic_backend_fails_the_check():
    with pytest.raises(ConformanceFailure, match="different traces"):
        check_backend(LeakySimulator(), _Bundle(), steps=30)
