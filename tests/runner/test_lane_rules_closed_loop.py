"""merge_give_way and solid_line_exception in their L1 scenes: the full expert keeps each, the expert ignoring it
breaks it. The gaps and speeds asserted are read from the trace's ground truth (actor poses and lanes), not from
the monitor's signals, and the scene's numbers are checked against a hand calculation."""

from __future__ import annotations

import math

import pytest
from l1_scenes import l1_bundle as _bundle, l1_scene as _scene

KMH = 1 / 3.6




def test_merge_scene_puts_the_rear_gap_to_the_test(repo_root):
    sc = _scene(repo_root, "merge_give_way")
    ramp, ego = sc["road"]["ramp"], sc["ego"]
    (car,) = sc["actors"]
    assert ego["lane"] == sc["road"]["lanes"]["forward"] + 1  # the acceleration lane
    assert ramp["merge_s"] <= ego["s"] < ramp["merge_s"] + ramp["length"]
    assert car["place"]["lane"] == sc["road"]["lanes"]["forward"] and car["reacts"] is True
    assert car["place"]["s"] >= ramp["merge_s"]  # on the same road as the ego from the start (the monitor's lanes)
    # cutting in at once, the ego is over the line after ~2 s; by then the car (ego at most at its start speed
    # plus 2 m/s^2) has closed 28 m to under a 1 s gap: bumper gap over its speed
    t = 2.0
    ego_x = ego["s"] + ego["speed"] * KMH * t + 0.5 * 2.0 * t * t
    car_x = car["place"]["s"] + car["speed"] * KMH * t
    gap = ego_x - car_x - (4.8 + 4.7) / 2
    assert gap / (car["speed"] * KMH) < 1.0
    # waiting costs room: the car must get by before the acceleration lane ends (ego capped at 0.7 of its speed)
    rel = car["speed"] * KMH * 0.3
    pass_time = (ego["s"] - car["place"]["s"] + 10.0) / rel
    assert ego["s"] + 0.7 * car["speed"] * KMH * (pass_time + 3.0) < ramp["merge_s"] + ramp["length"]


def _lane_changes(trace):
    """(tick index, state) where the ego's lane id changed on the same road."""
    out, prev = [], None
    for i, st in enumerate(trace.states):
        e = st.ego
        if prev is not None and e.lane and prev.lane and e.lane.road == prev.lane.road and e.lane.lane != prev.lane.lane:
            out.append((i, st))
        prev = e
    return out


def _truth_rear_gap(st, other_id: str) -> float:
    """Time gap (s) of `other_id` behind the ego in the ego's lane, from poses; inf when it is ahead or elsewhere."""
    e, o = st.ego, st.actor(other_id)
    if o.lane is None or o.lane.road != e.lane.road or o.lane.lane != e.lane.lane:
        return math.inf
    along = (o.x - e.x) * math.cos(e.h) + (o.y - e.y) * math.sin(e.h)
    if along >= 0:
        return math.inf
    return (-along - (e.length + o.length) / 2) / max(o.speed, 0.1)


def _collided(trace) -> bool:
    return any(ev.kind == "collision" for st in trace.states for ev in st.events)


def _run(bundle, agent):
    from roadtest.rules.evaluate import evaluate_rules
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    trace = run_episode(bundle, 0, agent, SimSettings(tick=0.05))
    return trace, {r.id: r.verdict for r in evaluate_rules(trace, bundle.meta)}


@pytest.mark.parametrize("country", ["DE", "JP"])
def test_merge_full_expert_waits_ablated_cuts_in(repo_root, tmp_path, country):
    bundle = _bundle(repo_root, tmp_path, "merge_give_way", country)
    trace, verdicts = _run(bundle, "expert")
    assert trace.termination.value == "completed" and verdicts == {"merge_give_way": "satisfied"}
    (change,) = _lane_changes(trace)  # one merge, after the car went by
    assert _truth_rear_gap(change[1], "main_lane_car") >= 1.0
    assert not _collided(trace)
    trace, verdicts = _run(bundle, "expert-ignore:merge_give_way")
    assert verdicts == {"merge_give_way": "violated"}
    (change,) = _lane_changes(trace)
    assert _truth_rear_gap(change[1], "main_lane_car") < 1.0  # cut in ahead of it
    assert not _collided(trace)  # the car reacts: the verdict is the rule's, not a crash


@pytest.mark.parametrize("country", ["CN", "US"])
def test_solid_line_full_expert_passes_only_the_standing_truck(repo_root, tmp_path, country):
    sc = _scene(repo_root, "solid_line_exception")
    (truck,) = sc["actors"]
    stop = next(b for b in truck["behaviours"] if b["action"] == "stop")
    assert stop["trigger"]["time"] > 5.0 + 1.0  # it still moves when the 5 s wait behind it is over
    bundle = _bundle(repo_root, tmp_path, "solid_line_exception", country)

    def crossings(trace):
        return [st for st in trace.states for ev in st.events
                if ev.kind == "lane_invasion" and ev.actor == st.ego.id and ev.data.get("allowed") is False]

    def lead_gap(st):
        e, o = st.ego, st.actor("truck")
        return (o.x - e.x) * math.cos(e.h) + (o.y - e.y) * math.sin(e.h) - (e.length + o.length) / 2

    trace, verdicts = _run(bundle, "expert")
    assert trace.termination.value == "completed" and verdicts == {"solid_line_exception": "satisfied"}
    first, *_ = crossings(trace)
    assert first.actor("truck").speed < 0.5 and 0.0 < lead_gap(first) <= 15.0  # blocked: standing, within blocked_gap
    assert not _collided(trace)
    trace, verdicts = _run(bundle, "expert-ignore:solid_line_exception")
    assert verdicts == {"solid_line_exception": "violated"}
    first, *_ = crossings(trace)
    assert first.actor("truck").speed > 0.5  # it pulled out while the truck still moved
    assert not _collided(trace)
