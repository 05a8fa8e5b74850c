"""esmini's ghost concept: a ghost runs the storyboard a head start ahead, the FollowGhostController entity follows its trail."""

from __future__ import annotations

import math

import pytest

from roadtest.bundle import load_bundle
from roadtest.errors import ScenarioError
from roadtest.sim.api import SimSettings
from roadtest.sim.embedded.simulator import EmbeddedSimulation
from roadtest.sim.xosc.engine import ScenarioEngine
from roadtest.sim.xosc.ghost import Trail
from xosc_docs import event, lane_teleport, scenario, sim_time, speed_action, straight_road, trigger, with_controller

TICK = 0.05
HEAD = 2.0
LANE_CHANGE = """<PrivateAction><LateralAction><LaneChangeAction>
  <LaneChangeActionDynamics dynamicsShape="sinusoidal" value="2" dynamicsDimension="time"/>
  <LaneChangeTarget><AbsoluteTargetLane value="-2"/></LaneChangeTarget></LaneChangeAction></LateralAction></PrivateAction>"""
ACTIVATE = """<Private entityRef="Ego"><PrivateAction>
  <ActivateControllerAction longitudinal="true" lateral="true"/></PrivateAction></Private>"""


def _controller(mode: str) -> str:
    props = {"esminiController": "FollowGhostController", "headstartTime": HEAD, "followMode": mode,
             "lookaheadSpeed": 0.5, "minLookaheadSpeed": 7.0, "lookaheadSteering": 0.5, "minLookaheadSteering": 7.0,
             "steeringSpeedInertia": 0.02}
    if mode == "time":
        props.update(lookaheadSpeed=0.1, minLookaheadSpeed=0.1, lookaheadSteering=0.4, minLookaheadSteering=0.4)
    ps = "".join(f'<Property name="{k}" value="{v}"/>' for k, v in props.items())
    return f'<ObjectController><Controller name="ghostly"><Properties>{ps}</Properties></Controller></ObjectController>'


def _doc(mode: str = "position") -> str:
    body = (event("Go", speed_action(15.0, "linear", "time", 3.0), trigger("StartTrigger", sim_time(0.0)))
            + event("Change", LANE_CHANGE, trigger("StartTrigger", sim_time(4.0))))
    other = """<ManeuverGroup name="G2" maximumExecutionCount="1"><Actors selectTriggeringEntities="false">
      <EntityRef entityRef="Other"/></Actors><Maneuver name="M2">""" + event(
        "OtherGo", speed_action(5.0), trigger("StartTrigger", sim_time(1.0))) + "</Maneuver></ManeuverGroup>"
    text = scenario(body, entities=("Ego", "Other"),
                    init=lane_teleport("Ego", -1, 20, 0) + ACTIVATE + lane_teleport("Other", 2, 100, 0),
                    stop=trigger("StopTrigger", sim_time(12.0)))
    text = with_controller(text, _controller(mode))
    return text.replace("</ManeuverGroup>", "</ManeuverGroup>" + other, 1)


def _write(tmp_path, text):
    (tmp_path / "road.xodr").write_text(straight_road())
    p = tmp_path / "s.xosc"
    p.write_text(text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>'))
    return p


def _run(tmp_path, mode="position"):
    """The engine stepped to its end; poses[name] = [(time, x, y, speed)] at the end of each tick."""
    eng = ScenarioEngine(_write(tmp_path, _doc(mode)), seed=0, tick=TICK)
    eng.init()
    poses = {n: [(eng.time, e.x, e.y, e.speed)] for n, e in eng.entities.items()}
    t = eng.start_time
    while not eng.finished and t < 20:
        eng.step(t)
        t = round(t + TICK, 9)
        for n, e in eng.entities.items():
            poses[n].append((t, e.x, e.y, e.speed))
    return eng, poses


def _crossing(track, y_mid):
    """Time the track's y first goes below y_mid (the middle of a right-hand lane change)."""
    return next(t for t, _, y, _ in track if y < y_mid)


def test_the_ghost_runs_the_storyboard_a_head_start_ahead(tmp_path):
    eng, poses = _run(tmp_path)
    assert eng.ghosts == {"Ego": "Ego_ghost"} and eng.start_time == -HEAD
    assert eng.entities["Ego_ghost"].visible is False
    ego, ghost = poses["Ego"], poses["Ego_ghost"]
    assert ego[0][0] == pytest.approx(-HEAD)
    # before time 0 only the ghost moves: its SimulationTime>0 speed event started at -HEAD
    before = [p for p in ego if p[0] <= 1e-9]
    assert {(round(x, 6), round(y, 6)) for _, x, y, _ in before} == {(round(ego[0][1], 6), round(ego[0][2], 6))}
    g0 = next(p for p in ghost if abs(p[0]) < 1e-9)
    assert g0[1] - ghost[0][1] == pytest.approx(0.5 * 5.0 * HEAD ** 2, abs=0.5)  # 5 m/s^2 (Performance) for HEAD s
    # the ghost's lane change (SimulationTime > 4) happens HEAD s early, the entity's about HEAD s after it
    t_ghost = _crossing(ghost, -3.5)
    assert t_ghost == pytest.approx(4.0 - HEAD + 1.0, abs=0.2)
    assert 4.0 - 1.0 < _crossing(ego, -3.5) < 4.0 + 2.0
    # another entity's SimulationTime trigger keeps its time
    other = poses["Other"]
    assert next(t for t, _, _, v in other if v > 0) == pytest.approx(1.0 + TICK, abs=TICK + 1e-6)


def _trail_distance(trail: Trail, x: float, y: float) -> float:
    s, i = trail.closest(x, y, 0)
    p, _ = trail.at_s(s, i)
    return math.hypot(p.x - x, p.y - y)


@pytest.mark.parametrize("mode", ["position", "time"])
def test_the_follower_keeps_to_the_ghosts_trail_through_its_lane_change(tmp_path, mode):
    eng, poses = _run(tmp_path, mode)
    trail = eng.ghost_trails["Ego_ghost"]
    assert len(trail.points) > 20
    ego = [p for p in poses["Ego"] if p[0] > 0]
    worst = max(_trail_distance(trail, x, y) for _, x, y, _ in ego)
    assert worst < 0.4, f"{mode}: {worst:.2f} m off the ghost's trail"
    assert ego[-1][2] == pytest.approx(-5.25, abs=0.3)  # ended in lane -2's centre like the ghost
    assert max(v for *_, v in ego) == pytest.approx(15.0, abs=0.5)
    assert ego[-1][1] < poses["Ego_ghost"][-1][1]  # behind the ghost all along
    if mode == "time":  # the entity passes where the ghost was HEAD s before
        assert _crossing(poses["Ego"], -3.5) == pytest.approx(_crossing(poses["Ego_ghost"], -3.5) + HEAD, abs=0.2)


def test_a_restart_esmini_would_make_after_time_zero_is_reported(tmp_path):
    late = event("Late", speed_action(10.0), """<StartTrigger><ConditionGroup><Condition name="c" delay="0"
      conditionEdge="rising"><ByValueCondition><StoryboardElementStateCondition storyboardElementType="event"
      storyboardElementRef="Go" state="completeState"/></ByValueCondition></Condition></ConditionGroup></StartTrigger>""")
    text = _doc().replace('<Event name="Change"', late + '<Event name="Change"', 1)
    eng = ScenarioEngine(_write(tmp_path, text), seed=0, tick=TICK)
    eng.init()
    t = eng.start_time
    while not eng.finished:
        eng.step(t)
        t = round(t + TICK, 9)
    assert any("ghost restart" in w and "'Late'" in w for w in eng.warnings), eng.warnings


def test_before_time_zero_such_an_event_puts_the_ghost_back_on_its_entity(tmp_path):
    jump = event("Jump", speed_action(6.0), """<StartTrigger><ConditionGroup><Condition name="c" delay="1"
      conditionEdge="none"><ByValueCondition><StoryboardElementStateCondition storyboardElementType="event"
      storyboardElementRef="Go" state="runningState"/></ByValueCondition></Condition></ConditionGroup></StartTrigger>""")
    text = _doc().replace('<Event name="Change"', jump + '<Event name="Change"', 1)
    eng = ScenarioEngine(_write(tmp_path, text), seed=0, tick=TICK)
    eng.init()
    ego, ghost = eng.entities["Ego"], eng.entities["Ego_ghost"]
    t, gaps = eng.start_time, []
    while t < -0.5:
        eng.step(t)
        t = round(t + TICK, 9)
        gaps.append((t, ghost.x - ego.x, ghost.speed))
    jumped = [k for k in range(1, len(gaps)) if gaps[k][1] < gaps[k - 1][1] - 1.0]
    assert len(jumped) == 1, gaps
    t1, gap, v = gaps[jumped[0]]
    assert t1 == pytest.approx(-HEAD + 1.0 + 2 * TICK, abs=2 * TICK)
    assert gap == pytest.approx(v * TICK, abs=0.05)  # back on the entity, then one tick of its own speed
    assert not any("restart" in w for w in eng.warnings)


def test_an_unknown_follow_mode_falls_back_to_time_and_says_so(tmp_path):
    eng = ScenarioEngine(_write(tmp_path, _doc().replace('value="position"', 'value="sideways"')), seed=0, tick=TICK)
    eng.init()
    assert eng.drivers["Ego"].mode == "time"
    assert any("'sideways'" in w for w in eng.warnings)


def test_a_ghost_never_collides_and_is_no_obstacle(tmp_path):
    # at the start the ghost and its entity overlap fully: no collision, no obstacle, no CollisionCondition
    p = _write(tmp_path, _doc())
    sim = EmbeddedSimulation(load_bundle(p), seed=0, settings=SimSettings(tick=TICK, traffic=False))
    assert sim.state.time == pytest.approx(-HEAD)
    assert sim.trace.info["ghosts"] == {"Ego": "Ego_ghost"}
    seen = 0
    while not sim.done:
        st = sim.step(None)
        ghost = st.actor("Ego_ghost")
        assert not ghost.visible
        assert "Ego_ghost" not in [o.id for o in sim._obstacles()]
        assert not any(ev.kind == "collision" and "Ego_ghost" in (ev.actor, ev.other) for ev in st.events)
        seen += st.time < 0
        if st.time < 0:
            assert not sim.engine.collides("Ego", None, None)
    assert seen == int(HEAD / TICK) - 1


@pytest.mark.parametrize("prop, value, field", [("headstartTime", "-1", "headstartTime"),
                                                 ("lookaheadSpeed", "fast", "lookaheadSpeed")])
def test_bad_controller_properties_are_located_errors(tmp_path, prop, value, field):
    text = _doc().replace(f'name="{prop}" value="', f'name="{prop}" value="{value}" old="', 1)
    with pytest.raises(ScenarioError) as err:
        ScenarioEngine(_write(tmp_path, text), seed=0, tick=TICK).init()
    assert field in str(err.value) and "s.xosc:" in str(err.value)


def test_an_external_controller_with_use_ghost_gets_a_guide_ahead(tmp_path):
    ctrl = ('<ObjectController><Controller name="ext"><Properties><Property name="esminiController" '
            'value="ExternalController"/><Property name="useGhost" value="true"/><Property name="headstartTime" '
            'value="1.5"/></Properties></Controller></ObjectController>')
    text = _doc().replace(_controller("position"), ctrl)
    eng = ScenarioEngine(_write(tmp_path, text), seed=0, tick=TICK)
    eng.init()
    assert eng.ghosts == {"Ego": "Ego_ghost"} and eng.start_time == -1.5
    x0 = eng.entities["Ego"].x
    t = eng.start_time
    while t < 3.0:
        eng.step(t)
        t = round(t + TICK, 9)
    assert eng.entities["Ego_ghost"].speed > 10 and eng.entities["Ego_ghost"].x > x0 + 20
    assert eng.entities["Ego"].x == x0  # nobody drives the external entity here: it waits


def test_an_agents_ego_waits_out_the_head_start(tmp_path):
    from roadtest.sim.api import Control

    sim = EmbeddedSimulation(load_bundle(_write(tmp_path, _doc())), seed=0, settings=SimSettings(tick=TICK, traffic=False))
    x0 = sim.state.actor("Ego").x
    xs = [(sim.step(Control(throttle=1.0)).time, sim.state.actor("Ego").x) for _ in range(int(HEAD / TICK) + 10)]
    assert all(x == x0 for t, x in xs if t <= 1e-9)
    assert xs[-1][1] > x0 + 0.1  # the agent drives from time 0


def test_trail_geometry():
    tr = Trail()
    for k, (x, y) in enumerate([(0, 0), (10, 0), (10, 10)]):
        tr.add(x, y, 0.0, float(k), 2.0 * k)
    assert tr.closest(4, 1, 0) == pytest.approx((4.0, 0))
    assert tr.closest(11, 6, 0) == pytest.approx((16.0, 1))
    p, i = tr.at_s(15.0)
    assert (p.x, p.y, p.speed, i) == pytest.approx((10.0, 5.0, 3.0, 1))
    assert tr.at_s(99.0)[0].y == 10.0
    q = tr.at_time(0.25)
    assert (q.x, q.speed) == pytest.approx((2.5, 0.5))
    assert tr.at_time(-5).x == 0 and tr.at_time(5).y == 10


def test_trail_samples_every_fifth_of_a_second_and_not_while_standing():
    tr = Trail()
    for k in range(9):
        tr.sample(float(k), 0.0, 0.0, round(k * 0.05, 9), 0.0 if k == 0 else 1.0)
    assert [round(p.time, 2) for p in tr.points] == [0.0, 0.2, 0.4]
    for k in range(20):
        tr.sample(9.0, 0.0, 0.0, 0.45 + k * 0.05, 0.0)
    assert len(tr.points) == 4  # one resting sample, then nothing while it stands


def test_esmini_follow_ghost_ends_when_esmini_does(conformance_dir):
    from esmini_corpus import corpus_rows, run_corpus_file

    row = next(r for r in corpus_rows(conformance_dir) if r["xosc_path"].endswith("/follow_ghost.xosc"))
    res = run_corpus_file(conformance_dir, row)
    assert res.result == "completed" and res.matches, (res.end, res.esmini_end)
    assert set(res.max_diff) == {"Ego", "Ego_ghost"}
    assert res.max_diff["Ego_ghost"] < 0.1 and res.max_diff["Ego"] < 0.5, res.max_diff
