"""A backend added as docs/extending.md says (its own module plus one registry line) runs through the runner's
episodes with the shared loop, its time cap, the environment, the pseudo-sensors and the conformance check."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from roadtest.bundle import load_bundle
from roadtest.sim import backends
from roadtest.sim.api import SimSettings, Termination
from roadtest.sim.conformance import check_backend

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wet_bundle(tmp_path_factory):
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target

    [variant] = expand_target(REPO / "scenarios" / "curve_wet_motorcycle.yaml")
    return load_bundle(write_bundle(variant, tmp_path_factory.mktemp("wet")))


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(backends.BACKENDS, "standin", "standin_backend:StandinPointSimulator")
    return "standin"


def test_the_registry_line_is_all_the_runner_needs(registered, wet_bundle):
    from roadtest.runner.episode import agent_sensors, run_episode
    from roadtest.agents.registry import load_agent

    assert backends.simulator_class(registered).__name__ == "StandinPointSimulator"
    assert {s["type"] for s in agent_sensors(load_agent("lane-follower"), registered)} <= backends.simulator_class(
        registered).sensor_types()
    unlimited = dataclasses.replace(wet_bundle, meta={k: v for k, v in wet_bundle.meta.items() if k != "expect"})
    trace = run_episode(unlimited, 0, "idle", SimSettings(tick=0.1, time_cap=2.0), backend=registered)
    # the shared loop's cap from the settings: 2 s at 0.1 s is 20 ticks after the first state
    assert trace.termination is Termination.TIMEOUT and trace.reason == "no stop trigger fired within 2 s"
    assert len(trace.states) == 21 and trace.states[-1].time == pytest.approx(2.0)
    assert trace.states[0].environment.wetness == 0.7  # environment_of: the scenario's wet road
    assert trace.info["agent"] == "idle"


def test_the_stand_in_passes_the_conformance_check(wet_bundle):
    from standin_backend import StandinPointSimulator

    out = check_backend(StandinPointSimulator(), wet_bundle, steps=50)
    assert out["steps"] == 51
