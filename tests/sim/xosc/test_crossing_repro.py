"""Reproducers for runtime faults seen while checking crossing pedestrians and overlapping actors (xfail until fixed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadtest.bundle import load_bundle
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.suite import iter_target

REPO = Path(__file__).resolve().parents[3]


def _trace(rel: str, tmp_path: Path):
    from roadtest.sim.embedded import run_bundle

    (_, variants), = list(iter_target(REPO / rel))
    return run_bundle(load_bundle(write_bundle(variants[0], tmp_path)))


TIMED = """<PrivateAction><RoutingAction><FollowTrajectoryAction><Trajectory name="walk" closed="false">
  <Shape><Polyline>
    <Vertex time="0"><Position><WorldPosition x="10" y="-1.75" h="0"/></Position></Vertex>
    <Vertex time="6.48"><Position><WorldPosition x="19" y="-1.75" h="0"/></Position></Vertex>
  </Polyline></Shape></Trajectory>
  <TimeReference><Timing domainAbsoluteRelative="relative" scale="1" offset="0"/></TimeReference>
  <TrajectoryFollowingMode followingMode="position"/></FollowTrajectoryAction></RoutingAction></PrivateAction>"""


def test_speed_after_timed_trajectory_is_the_paths_end_speed(tmp_path):
    from xosc_docs import event, scenario, sim_time, speed_action, straight_road, teleport, trigger

    from roadtest.sim.xosc.engine import ScenarioEngine

    (tmp_path / "road.xodr").write_text(straight_road())
    body = (event("walk", TIMED, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
            + event("later", speed_action(0.0), trigger("StartTrigger", sim_time(100))))  # keeps the story running
    text = scenario(body, init=teleport("Ego", 10, -1.75, speed=0)).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=0.05)
    eng.init()
    e = eng.entities["Ego"]
    for k in range(160):  # 8 s: the path ends at 6.48 s
        eng.step(round(k * 0.05, 9))
    assert e.x > 19.0  # it went on along its lane after the path
    assert e.speed == pytest.approx(9 / 6.48, abs=0.02)


def test_background_traffic_does_not_overlap_scenario_actors(tmp_path):
    trace = _trace("scenarios/highway_merge_cut_in.yaml", tmp_path)
    hits = [(st.time, e.actor, e.other) for st in trace.states for e in st.events
            if e.kind == "collision" and "hero" not in (e.actor, e.other)]
    assert hits == []


def test_composed_emergency_scene_actors_do_not_overlap(tmp_path):
    trace = _trace("scenarios/composed/L5/yield_emergency_vehicle_no_overtaking_solid_line_safe_distance.yaml",
                   tmp_path)
    hits = [(st.time, e.actor, e.other) for st in trace.states for e in st.events
            if e.kind == "collision" and "hero" not in (e.actor, e.other)]
    assert hits == []


def test_standing_entity_keeps_its_teleported_heading_until_an_action_moves_it(tmp_path):
    import math

    from xosc_docs import event, scenario, sim_time, speed_action, straight_road, teleport, trigger

    from roadtest.sim.xosc.engine import ScenarioEngine

    (tmp_path / "road.xodr").write_text(straight_road())
    body = (event("go", speed_action(1.5), trigger("StartTrigger", sim_time(1.0)))
            + event("later", speed_action(0.0), trigger("StartTrigger", sim_time(100))))  # keeps the story running
    text = scenario(body, init=teleport("Ego", 10, -1.75, h=math.pi / 2, speed=0)).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=0.05)
    eng.init()
    e = eng.entities["Ego"]
    for k in range(10):  # 0.5 s standing, before the speed action starts
        eng.step(round(k * 0.05, 9))
    assert e.h == pytest.approx(math.pi / 2, abs=1e-9)
    assert (e.x, e.y) == pytest.approx((10.0, -1.75), abs=1e-6)
    for k in range(10, 60):  # once it moves, the default controller takes it along its lane
        eng.step(round(k * 0.05, 9))
    assert e.x > 10.5
    assert e.h == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("name", ["yield_emergency_vehicle_no_overtaking_solid_line_safe_distance",
                                  "yield_emergency_vehicle_no_lane_change_tunnel_safe_distance"])
def test_composed_emergency_scene_ambulance_stays_behind_the_lead_to_the_road_end(tmp_path, name):
    import math

    from roadtest.sim.xosc.engine import ScenarioEngine

    (_, variants), = list(iter_target(REPO / "scenarios/composed/L5" / f"{name}.yaml"))
    bundle = write_bundle(variants[0], tmp_path)
    eng = ScenarioEngine(Path(bundle) / "scenario.xosc", seed=0, tick=0.1)
    eng.init()
    amb, lead = eng.entities["ambulance"], eng.entities["lead"]
    gaps = []
    for k in range(600):  # 60 s: past the lead standing at the road's end; the ego is left out
        eng.step(round(k * 0.1, 9))
        gaps.append(math.hypot(amb.x - lead.x, amb.y - lead.y))
    assert lead.speed == 0.0 and amb.speed == 0.0  # both stand at the end, the ambulance behind the lead
    half = (amb.length + lead.length) / 2
    assert min(gaps) > half + 5.0
