"""The VLM agent driving the smoke suite through the fake OpenAI-compatible server.

Perfect answers come from the scene's ground truth (tests/agents/vlm/oracle.py, the test's, not the agent's);
the camera is the embedded renderer's, at a tiny size (the oracle needs no pixels).
"""

from __future__ import annotations

import pytest

pytest.importorskip("openai")

from drive import drive
from roadtest.sim.embedded import EmbeddedSimulator
from oracle import GroundTruthOracle

TINY_CAMERA = {"cameras": [{"id": "front", "width": 64, "height": 36, "fov": 60.0}]}
SMOKE = [pytest.param("straight-speed-limit", marks=pytest.mark.slow), "stop-sign-t-junction",
         pytest.param("red-light-intersection", marks=pytest.mark.slow),
         pytest.param("crosswalk-pedestrian", marks=pytest.mark.slow), pytest.param("fog-truck-solid-line", marks=pytest.mark.slow)]


def _violated(score):
    return sorted(r["id"] for r in score.get("rules", []) if r["verdict"] == "violated")


@pytest.mark.parametrize("scenario", SMOKE)
def test_perfect_answers_reach_the_goal_without_violations(smoke_bundles, scenario):
    trace, score, fig, srv = drive(smoke_bundles[scenario], TINY_CAMERA, GroundTruthOracle, EmbeddedSimulator)
    assert trace.termination.value == "completed", trace.reason
    assert score["scores"]["score_route"] == 100.0
    assert _violated(score) == []
    assert score["rules"], "the scenario's rules were checked"
    # min_speed_infractions is the leaderboard's pace penalty, not a rule broken (behind the fog scene's slow
    # truck the expert itself collects it)
    assert not any(v for k, v in score["infractions"].items() if k != "min_speed_infractions")
    # two calls per decision at 2 Hz over the run's simulated time
    sim_time = trace.states[-1].time
    assert abs(fig["decisions"] - sim_time * 2.0) <= 2
    assert len(srv.requests) == 2 * fig["decisions"]
    # the oracle's answers are the truth, so the figures must say so
    assert fig["parse"]["failures"] == 0 and fig["parse"]["failed_calls"] == 0
    if fig["signs"]["within_30m"]["instances"]:
        assert fig["signs"]["within_30m"]["accuracy"] == 1.0
    if fig["lights"]["decisions_with_light"]:
        assert fig["lights"]["accuracy"] == 1.0


def test_ignoring_the_stop_sign_violates_the_stop_sign_rule(smoke_bundles):
    blind = lambda sim: GroundTruthOracle(sim, blind_to=frozenset({"stop"}))  # noqa: E731
    trace, score, fig, _ = drive(smoke_bundles["stop-sign-t-junction"], TINY_CAMERA, blind, EmbeddedSimulator)
    assert _violated(score) == ["stop_sign"]
    assert score["infractions"]["stop_infraction"]
    # the model never reported the stop sign that was there
    assert fig["signs"]["instances"] > 0 and fig["signs"]["recognised"] < fig["signs"]["instances"]
    assert fig["instruction_following"]["rate"] < 1.0


def test_end_to_end_mode_one_call_per_decision(smoke_bundles):
    trace, score, fig, srv = drive(smoke_bundles["stop-sign-t-junction"], {**TINY_CAMERA, "mode": "end_to_end"},
                                   GroundTruthOracle, EmbeddedSimulator)
    assert _violated(score) == [] and score["scores"]["score_route"] == 100.0
    assert len(srv.requests) == fig["decisions"]
    rec = next(a.record for a in trace.agent if a.record)
    assert [s["stage"] for s in rec["stages"]] == ["end_to_end"]
    assert rec["stages"][0]["prompt_id"] == "end_to_end/v1"
