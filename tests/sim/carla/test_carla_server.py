"""End to end on a CARLA 0.9.16 server (CARLA_HOST[:PORT], SCENARIO_RUNNER_ROOT, CARLA's PythonAPI agents on
PYTHONPATH): a smoke bundle driven by the expert on CARLA and on the built-in simulator, their WorldState
streams and rule verdicts compared. Never run here (no server on these machines): written for whoever has one."""

from __future__ import annotations

import math
import os

import pytest

from roadtest.bundle import load_bundle
from roadtest.runner.episode import run_episode
from roadtest.sim.api import SimSettings, Termination

HOST = os.environ.get("CARLA_HOST")
pytestmark = [pytest.mark.carla, pytest.mark.skipif(not HOST, reason="CARLA_HOST is unset: no CARLA server to run on")]
PARITY_M = 5.0  # m: how far the ego may end up from the built-in simulator's ego (different vehicle physics)


@pytest.mark.parametrize("variant", ["straight-speed-limit", "fog-truck-solid-line"])
def test_a_smoke_bundle_on_carla_matches_the_built_in_run(variant, smoke_bundles, tmp_path):
    from roadtest.scoring.score import score_run

    bundle = load_bundle(smoke_bundles[variant])
    settings = SimSettings(tick=0.05)
    opts = {"host": HOST, "record_dir": str(tmp_path)}
    carla_trace = run_episode(bundle, 0, "expert", settings, "carla", backend_options=opts)
    built_in = run_episode(bundle, 0, "expert", settings, "embedded")
    assert carla_trace.termination in (Termination.COMPLETED, Termination.TIMEOUT), carla_trace.reason
    assert carla_trace.termination == built_in.termination
    first, ref = carla_trace.states[0], built_in.states[0]
    assert {a.id for a in first.actors if a.role != "background"} == {a.id for a in ref.actors if a.role != "background"}
    assert math.hypot(first.ego.x - ref.ego.x, first.ego.y - ref.ego.y) < 0.5  # the same spawn pose
    assert first.ego.lane is not None and first.ego.lane.road == ref.ego.lane.road
    n = min(len(carla_trace.states), len(built_in.states))
    a, b = carla_trace.states[n - 1].ego, built_in.states[n - 1].ego
    assert math.hypot(a.x - b.x, a.y - b.y) < PARITY_M
    verdict = lambda s: {r.get("id") or r.get("rule"): r["verdict"] for r in s.get("rules") or []}  # noqa: E731
    assert verdict(score_run(carla_trace, bundle.meta, None)) == verdict(score_run(built_in, bundle.meta, None))
    assert (tmp_path / "carla_recorder.log").exists()  # the server wrote its recorder file into the run folder
