"""The L1 driving_side and min_speed_expressway scenes closed-loop: the full expert keeps the rule, the expert
that drops the one constraint breaks it, where and how the scene file says it must."""

from __future__ import annotations

import math

import pytest
import yaml

KMH = 1 / 3.6


def _scene(repo_root, rule: str) -> dict:
    return yaml.safe_load((repo_root / "scenarios" / "composed" / "L1" / f"{rule}.yaml").read_text())


def _drive(repo_root, tmp_path, rule: str, country: str, agent: str):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target
    from roadtest.rules.evaluate import evaluate_rules
    from roadtest.rules.signals import extract_signals
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    for _source, result in iter_target(repo_root / "scenarios" / "composed" / "L1" / f"{rule}.yaml"):
        for variant in result:
            if variant.sweep.get("country") == country:
                bundle = load_bundle(write_bundle(variant, tmp_path / agent.replace(":", "_")))
                trace = run_episode(bundle, 0, agent, SimSettings(tick=0.05))
                verdicts = {r.id: r.verdict for r in evaluate_rules(trace, bundle.meta)}
                return trace, extract_signals(trace, bundle.meta), verdicts
    raise AssertionError(f"no {country} variant of {rule}")


@pytest.mark.parametrize("country", ["US", "JP"])  # right- and left-hand traffic
def test_ignoring_driving_side_cuts_the_bend_after_the_oncoming_car(repo_root, tmp_path, country):
    road = _scene(repo_root, "driving_side")["road"]
    assert road["kind"] == "curve" and road["direction"] == "far"  # the bend turns toward the oncoming lanes
    trace, _, verdicts = _drive(repo_root, tmp_path, "driving_side", country, "expert")
    assert trace.termination.value == "completed" and verdicts == {"driving_side": "satisfied"}
    trace, sig, verdicts = _drive(repo_root, tmp_path, "driving_side", country, "expert-ignore:driving_side")
    assert trace.termination.value == "completed" and verdicts == {"driving_side": "violated"}
    egos = [st.ego for st in trace.states if st.ego is not None]
    wrong = [i for i, v in enumerate(sig["opposite_side"]) if v > 0]
    bend_start, bend_end = road["curve_start"], road["curve_start"] + road["radius"] * math.radians(road["angle"])
    # it moves over as the bend comes within 40 m (bend_line.WINDOW) and is back by the end of the straight after it
    assert bend_start - 40.0 <= egos[wrong[0]].lane.s <= bend_start + 20.0
    assert all(bend_start - 40.0 <= egos[i].lane.s <= bend_end + 40.0 for i in wrong)
    onc = next(a for a in trace.states[wrong[0]].actors if a.id == "oncoming")
    assert onc.lane.s < egos[wrong[0]].lane.s  # the oncoming car has already gone by


@pytest.mark.parametrize("country", ["DE", "JP"])
def test_ignoring_the_minimum_leaves_the_default_cruise(repo_root, tmp_path, country):
    scene = _scene(repo_root, "min_speed_expressway")
    assert scene["road"]["speed_limit"] is None  # no posted maximum: the expert's own default governs
    minimum = scene["rules"][0]["params"]["min_speed"]
    tol = 2 * KMH  # the catalogue's tolerance
    trace, _, verdicts = _drive(repo_root, tmp_path, "min_speed_expressway", country, "expert")
    assert trace.termination.value == "completed" and verdicts == {"min_speed_expressway": "satisfied"}
    assert min(st.ego.speed for st in trace.states if st.ego) >= minimum - tol
    trace, _, verdicts = _drive(repo_root, tmp_path, "min_speed_expressway", country, "expert-ignore:min_speed_expressway")
    assert verdicts == {"min_speed_expressway": "violated"}
    assert trace.states[-1].ego.speed == pytest.approx(50 * KMH, abs=0.3)  # the expert's default when no limit is known
