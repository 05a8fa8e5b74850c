"""The L1 driving_side, min_speed_expressway, no_stopping, no_entry and no_u_turn scenes closed-loop: the full expert keeps the rule, the expert
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


def _stand(trace):
    """(road s where the ego first stands still, seconds it stands there)."""
    still = [st for st in trace.states if st.ego is not None and st.ego.speed < 0.05]
    return still[0].ego.lane.s, still[-1].time - still[0].time


@pytest.mark.parametrize("country", ["CN", "JP"])
def test_asked_stop_moves_out_of_the_no_stopping_zone(repo_root, tmp_path, country):
    scene = _scene(repo_root, "no_stopping")
    (zone,) = scene["road"]["sections"]
    asked = scene["ego"]["route"]["stop"]
    assert zone["kind"] == "no_stopping" and zone["s_start"] < asked["s"] < zone["s_end"]  # the drop-off is in the zone
    trace, _, verdicts = _drive(repo_root, tmp_path, "no_stopping", country, "expert")
    assert trace.termination.value == "completed" and verdicts == {"no_stopping": "satisfied"}
    s, held = _stand(trace)
    half = trace.states[0].ego.length / 2
    assert zone["s_end"] <= s - half <= zone["s_end"] + 2.0  # its rear just past the zone's end
    assert held >= asked["duration"] - 0.1
    trace, _, verdicts = _drive(repo_root, tmp_path, "no_stopping", country, "expert-ignore:no_stopping")
    assert trace.termination.value == "completed" and verdicts == {"no_stopping": "violated"}
    s, held = _stand(trace)
    assert s == pytest.approx(asked["s"], abs=1.5) and held >= asked["duration"] - 0.1  # where asked, in the zone


@pytest.mark.parametrize("country", ["DE", "JP"])
def test_route_into_a_no_entry_street_is_refused_at_the_junction(repo_root, tmp_path, country):
    from roadtest.runner.coverage import expected_end

    scene = _scene(repo_root, "no_entry")
    (sign,) = scene["road"]["signs"]
    assert scene["ego"]["route"]["exit"] == sign["arm"] == "left" and sign["direction"] == "backward"  # closes the turn
    assert scene["expect"]["reach_goal"] is False and expected_end(scene) == "timeout"
    trace, sig, verdicts = _drive(repo_root, tmp_path, "no_entry", country, "expert")
    assert trace.termination.value == "timeout" and verdicts == {"no_entry": "satisfied"}
    assert all(v > 0 for v in sig["no_entry_ahead"])  # in force all along: the route leads past the sign
    e = trace.states[-1].ego
    front = e.lane.s + e.length / 2
    assert e.lane.road == "1" and scene["road"]["length"] - 2.0 <= front <= scene["road"]["length"]  # at the junction's entry
    trace, _, verdicts = _drive(repo_root, tmp_path, "no_entry", country, "expert-ignore:no_entry")
    assert trace.termination.value == "completed" and verdicts == {"no_entry": "violated"}


@pytest.mark.parametrize("country", ["CN", "US"])
def test_u_turn_past_a_no_u_turn_sign_is_refused_before_the_turn(repo_root, tmp_path, country):
    scene = _scene(repo_root, "no_u_turn")
    (sign,) = scene["road"]["signs"]
    turn = scene["ego"]["route"]["u_turn"]
    assert sign["id"] == "no_u_turn" and scene["ego"]["s"] < sign["s"] < turn and scene["expect"]["reach_goal"] is False
    trace, _, verdicts = _drive(repo_root, tmp_path, "no_u_turn", country, "expert")
    assert trace.termination.value == "timeout" and verdicts == {"no_u_turn": "satisfied"}
    e = trace.states[-1].ego
    assert turn - 2.0 <= e.lane.s + e.length / 2 <= turn and e.speed < 0.1  # standing just short of the turn
    trace, sig, verdicts = _drive(repo_root, tmp_path, "no_u_turn", country, "expert-ignore:no_u_turn")
    assert trace.termination.value == "completed" and verdicts == {"no_u_turn": "violated"}
    first = next(i for i, v in enumerate(sig["u_turn"]) if v > 0)
    assert trace.states[first].ego.lane.s >= turn  # caught once it comes back from the turn
