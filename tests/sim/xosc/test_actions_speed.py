"""Jerk-limited longitudinal actions: SpeedProfileAction in follow mode and LongitudinalDistanceAction with rates."""

from __future__ import annotations

import pytest

from roadtest.sim.xosc.engine import ScenarioEngine
from roadtest.sim.xosc.speed_actions import Constraints, profile_segments, profile_speed
from roadtest.sim.xosc.storyboard import COMPLETE

from xosc_docs import event, lane_teleport, scenario, sim_time, speed_action, straight_road, trigger

TICK = 0.05
ENTRIES = [(0.0, 0.0), (10.0, 4.0), (4.0, 4.0), (8.0, 2.0)]  # (speed, duration) as in esmini's speed-profile.xosc


def _run(tmp_path, body: str, init: str, entities=("Ego",), ticks: int = 280):
    (tmp_path / "road.xodr").write_text(straight_road(1000.0))
    text = scenario(body, entities=entities, init=init).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    speeds = []
    for k in range(ticks):
        eng.step(round(k * TICK, 9))
        speeds.append({n: e.speed for n, e in eng.entities.items()})
    return eng, speeds


def _profile(mode: str, rates: str = 'maxAccelerationRate="4.0" maxDecelerationRate="3.0"') -> str:
    entries = "".join(f'<SpeedProfileEntry time="{t}" speed="{v}"/>' for v, t in ENTRIES)
    return (f'<PrivateAction><LongitudinalAction><SpeedProfileAction followingMode="{mode}">'
            f'<DynamicConstraints maxAcceleration="5.0" maxDeceleration="10.0" {rates} maxSpeed="50"/>'
            f'{entries}</SpeedProfileAction></LongitudinalAction></PrivateAction>')


def _accels(v: list[float]) -> list[float]:
    return [(b - a) / TICK for a, b in zip(v, v[1:])]


def test_follow_mode_speed_profile_bends_its_ramps_within_the_jerk_limits(tmp_path):
    body = event("sp", _profile("follow"), trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng, rows = _run(tmp_path, body, lane_teleport("Ego", -1, 10, 0.0))
    v = [r["Ego"] for r in rows]
    acc = _accels(v)
    jerks = [(b - a) / TICK for a, b in zip(acc, acc[1:])]
    assert max(jerks) <= 4.0 + 1e-6 and min(jerks) >= -3.0 - 1e-6  # maxAccelerationRate / maxDecelerationRate
    assert max(acc) <= 2.5 + 1e-6 and min(acc) >= -1.5 - 1e-6  # the ramps' own slopes are never exceeded
    assert max(v) < 10.0  # the corner at 10 m/s is rounded off, so the peak is not reached
    assert v[-1] == pytest.approx(8.0) and any(a == pytest.approx(2.0, abs=1e-6) for a in acc)
    assert next(e for e in eng.elements if e.name == "sp").state == COMPLETE


def test_position_mode_speed_profile_hits_each_entry_on_time(tmp_path):
    body = event("sp", _profile("position"), trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    _, rows = _run(tmp_path, body, lane_teleport("Ego", -1, 10, 0.0), ticks=240)
    v = [r["Ego"] for r in rows]  # row k holds the speed at (k + 1) ticks
    assert v[79] == pytest.approx(10.0) and v[159] == pytest.approx(4.0) and v[199] == pytest.approx(8.0)
    assert v[39] == pytest.approx(5.0)  # straight ramps


def test_follow_plan_joins_each_ramp_tangentially():
    c = Constraints(5.0, 10.0, 4.0, 3.0, 50.0)
    segs = profile_segments(ENTRIES, True, c, 0.0, 0.0)
    assert segs[0] == (0.0, 0.0, 0.0, 4.0)  # starts jerking up from rest at once
    for (t, v, k, j), nxt in zip(segs, segs[1:]):
        dt = nxt[0] - t
        assert dt >= -1e-9
        assert v + k * dt + 0.5 * j * dt * dt == pytest.approx(nxt[1], abs=1e-9)  # speed continuous
        assert k + j * dt == pytest.approx(nxt[2], abs=1e-9)  # acceleration continuous
    lin = [s for s in segs if s[3] == 0.0]
    # after the first, the constant-acceleration stretches lie on the entries' ramps: 10 m/s at 4 s, 4 at 8 s, 8 at 10 s
    assert [round(k, 9) for _, _, k, _ in lin] == [2.5, -1.5, 2.0, 0.0]
    assert lin[1][1] + lin[1][2] * (4.0 - lin[1][0]) == pytest.approx(10.0)
    assert lin[2][1] + lin[2][2] * (10.0 - lin[2][0]) == pytest.approx(8.0)
    assert profile_speed(segs, 0, 20.0)[0] == pytest.approx(8.0)


def test_single_target_follow_arrives_on_time_without_jumps_in_acceleration():
    c = Constraints(5.0, 10.0, 2.0, 2.0, 50.0)
    segs = profile_segments([(10.0, 8.0)], True, c, 1.0, 2.0)  # 2 -> 10 m/s over 8 s, from t = 1 s
    assert segs[-1][0] == pytest.approx(9.0) and segs[-1][1] == pytest.approx(10.0) and segs[-1][2] == 0.0
    for (t, v, k, j), nxt in zip(segs, segs[1:]):
        dt = nxt[0] - t
        assert v + k * dt + 0.5 * j * dt * dt == pytest.approx(nxt[1], abs=1e-9)
        assert k + j * dt == pytest.approx(nxt[2], abs=1e-9)


def _distance(rates: str) -> str:
    return (f'<PrivateAction><LongitudinalAction><LongitudinalDistanceAction entityRef="Lead" freespace="true" '
            f'continuous="true" timeGap="2.0" coordinateSystem="entity" displacement="any">'
            f'<DynamicConstraints maxSpeed="30.0" maxDeceleration="3.0" maxAcceleration="3.0" {rates}/>'
            f'</LongitudinalDistanceAction></LongitudinalAction></PrivateAction>')


@pytest.mark.parametrize("rate", [None, 1.0])
def test_distance_action_spring_respects_acceleration_and_jerk_limits(tmp_path, rate):
    rates = f'maxAccelerationRate="{rate}" maxDecelerationRate="{rate}"' if rate else ""
    body = event("d", _distance(rates), trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng, rows = _run(tmp_path, body, lane_teleport("Ego", -1, 10, 20.0) + lane_teleport("Lead", -1, 60, 10.0),
                     entities=("Ego", "Lead"), ticks=600)
    acc = _accels([r["Ego"] for r in rows])
    assert min(acc) >= -3.0 - 1e-6 and max(acc) <= 3.0 + 1e-6
    # the rates bound how fast braking or accelerating comes on (easing off is free, as in esmini)
    jerks = [abs(b - a) / TICK for a, b in zip(acc, acc[1:]) if (b < a and b < 0) or (b > a and b > 0)]
    if rate:
        assert max(jerks) <= rate + 1e-6
    else:
        assert max(jerks) > 10.0  # no rate limit: the brake comes on within a tick
    e, lead = eng.entities["Ego"], eng.entities["Lead"]
    gap = lead.x - e.x - (e.length + lead.length) / 2
    assert e.speed == pytest.approx(10.0, abs=0.2) and gap == pytest.approx(20.0, abs=1.0)  # 2 s behind at 10 m/s


def test_a_mid_run_teleport_holds_the_entity_there_for_that_tick(tmp_path):
    """esmini marks a teleported entity as moved for the tick: it goes on from the new place on the next one."""
    tp = ('<PrivateAction><TeleportAction><Position><LanePosition roadId="1" laneId="-1" offset="0" s="10"/>'
          '</Position></TeleportAction></PrivateAction>')
    body = (event("tp", tp, trigger("StartTrigger", sim_time(1.0, "greaterOrEqual", edge="none")))
            + event("later", tp, trigger("StartTrigger", sim_time(100.0))))  # keeps the act (and the run) going
    eng, _ = _run(tmp_path, body, lane_teleport("Ego", -1, 50, 20.0), ticks=20)  # up to t = 0.95: 19 m moved
    e = eng.entities["Ego"]
    assert e.lane.s == pytest.approx(50 + 20 * 20 * TICK)
    eng.step(1.0)  # teleported on this tick's triggers
    assert e.lane.s == pytest.approx(10.0) and e.speed == pytest.approx(20.0)
    eng.step(1.05)
    assert e.lane.s == pytest.approx(10.0 + 20 * TICK)


def _lane_change(seconds: float) -> str:
    return ('<PrivateAction><LateralAction><LaneChangeAction><LaneChangeActionDynamics dynamicsShape="sinusoidal" '
            f'dynamicsDimension="time" value="{seconds}"/><LaneChangeTarget><AbsoluteTargetLane value="-1"/>'
            '</LaneChangeTarget></LaneChangeAction></LateralAction></PrivateAction>')


def _progress(tmp_path, speed_first: bool) -> float:
    at0 = trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none"))
    lc, sp = event("lc", _lane_change(3.0), at0), event("sp", speed_action(20.0, "linear", "rate", 5.0), at0)
    eng, _ = _run(tmp_path, sp + lc if speed_first else lc + sp, lane_teleport("Ego", -2, 10, 10.0), ticks=40)
    return eng.entities["Ego"].lane.s


def test_a_lane_change_moves_with_the_speed_a_later_written_speed_action_has_not_yet_changed(tmp_path):
    """esmini steps actions in storyboard order and a lane change moves its entity in its own step."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, later = _progress(tmp_path / "a", True), _progress(tmp_path / "b", False)
    # each of the 40 ticks moves on the speed of the tick before: 5 m/s^2 * 0.05 s * 0.05 s less per tick
    assert first - later == pytest.approx(40 * 5.0 * TICK * TICK, rel=0.02)


def test_a_lane_offset_keeps_the_whole_step_along_the_road_and_starts_a_tick_late(tmp_path):
    lo = ('<PrivateAction><LateralAction><LaneOffsetAction continuous="false"><LaneOffsetActionDynamics '
          'dynamicsShape="sinusoidal" maxLateralAcc="2.0"/><LaneOffsetTarget><AbsoluteTargetLaneOffset value="1.5"/>'
          '</LaneOffsetTarget></LaneOffsetAction></LateralAction></PrivateAction>')
    body = (event("lo", lo, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
            + event("later", lo, trigger("StartTrigger", sim_time(100.0))))  # keeps the run going
    eng, _ = _run(tmp_path, body, lane_teleport("Ego", -1, 10, 10.0), ticks=1)
    e = eng.entities["Ego"]
    assert e.y == pytest.approx(-1.75)  # placed at the offset of the action's clock before it steps: still 0
    for k in range(1, 60):
        eng.step(round(k * TICK, 9))
    assert e.lane.s == pytest.approx(10.0 + 60 * 10.0 * TICK)  # no metres lost to the sideways move
    assert e.y == pytest.approx(-1.75 + 1.5)


def test_a_rigid_distance_action_in_init_places_the_entity_before_the_first_tick(tmp_path):
    dist = ('<PrivateAction><LongitudinalAction><LongitudinalDistanceAction entityRef="Lead" freespace="false" '
            'continuous="true" distance="7" coordinateSystem="road"/></LongitudinalAction></PrivateAction>')
    init = lane_teleport("Lead", -1, 50, 10.0) + lane_teleport("Ego", -1, 20, 10.0).replace("</Private>", dist + "</Private>")
    (tmp_path / "road.xodr").write_text(straight_road(1000.0))
    text = scenario("", entities=("Ego", "Lead"), init=init).replace(
        "<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    e = eng.entities["Ego"]
    assert e.x == pytest.approx(43.0) and e.lane.s == pytest.approx(43.0)  # 7 m behind the lead at time 0


def _narrowing_road() -> str:
    """Road 1 along +x with right lanes -1 and -2; lane -2 tapers off to nothing at s = 50."""
    def lane(i: int, widths: str) -> str:
        return f'<lane id="{i}" type="driving" level="false"><link/>{widths}</lane>'
    return f"""<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4" name="t" version="1.0"/>
<road name="r" length="500" id="1" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="500"><line/></geometry></planView>
<lanes><laneSection s="0"><center><lane id="0" type="none" level="false"/></center>
<right>{lane(-1, '<width sOffset="0" a="3.5" b="0" c="0" d="0"/>')}{lane(-2, '<width sOffset="0" a="3.5" b="0" c="0" d="0"/><width sOffset="40" a="3.5" b="-0.35" c="0" d="0"/><width sOffset="50" a="0" b="0" c="0" d="0"/>')}</right>
</laneSection></lanes></road></OpenDRIVE>
"""


def test_an_entity_leaves_a_lane_that_narrows_to_nothing_for_the_closest_lane_centre(tmp_path):
    (tmp_path / "road.xodr").write_text(_narrowing_road())
    text = scenario(event("later", speed_action(10.0), trigger("StartTrigger", sim_time(100.0))),
                    init=lane_teleport("Ego", -2, 10, 10.0))
    (tmp_path / "s.xosc").write_text(text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>'))
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    e = eng.entities["Ego"]
    for k in range(90):  # 45 m: it rides lane -2's centre as the lane tapers, then that lane is gone
        eng.step(round(k * TICK, 9))
        if e.x < 49.0:
            assert e.lane.lane == -2
    assert e.lane.lane == -1 and e.y == pytest.approx(-1.75)


def _sync(steady: str) -> str:
    return ('<PrivateAction><SynchronizeAction masterEntityRef="Lead">'
            '<TargetPositionMaster><LanePosition roadId="1" laneId="-1" offset="0" s="110"/></TargetPositionMaster>'
            '<TargetPosition><LanePosition roadId="1" laneId="-2" offset="0" s="70"/></TargetPosition>'
            f'<FinalSpeed><AbsoluteSpeed value="5">{steady}</AbsoluteSpeed></FinalSpeed>'
            '</SynchronizeAction></PrivateAction>')


@pytest.mark.parametrize("steady", ['<TargetDistanceSteadyState distance="10"/>', '<TargetTimeSteadyState time="2"/>'])
def test_synchronize_holds_the_final_speed_over_the_steady_state_stretch(tmp_path, steady):
    body = event("sync", _sync(steady), trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    (tmp_path / "road.xodr").write_text(straight_road(1000.0))
    text = scenario(body, entities=("Ego", "Lead"), init=lane_teleport("Ego", -2, 10, 0.0) + lane_teleport("Lead", -1, 10, 10.0))
    (tmp_path / "s.xosc").write_text(text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>'))
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    e, lead = eng.entities["Ego"], eng.entities["Lead"]
    k, held = 0, []
    while lead.lane.s < 110 - 1e-6 and k < 400:
        eng.step(round(k * TICK, 9))
        k += 1
        if e.lane.s > 60.5:  # inside the 10 m (= 2 s at 5 m/s) steady-state stretch before the target
            held.append(e.speed)
    assert held and all(v == pytest.approx(5.0) for v in held)
    assert e.lane.s == pytest.approx(70.0, abs=0.3)  # arrives with the master


def _follow_line(y: float) -> str:
    vertices = "".join(f'<Vertex><Position><WorldPosition x="{x}" y="{y}" h="0"/></Position></Vertex>' for x in (10, 600))
    return ('<PrivateAction><RoutingAction><FollowTrajectoryAction><Trajectory name="line" closed="false">'
            f'<Shape><Polyline>{vertices}</Polyline></Shape></Trajectory><TimeReference><None/></TimeReference>'
            '<TrajectoryFollowingMode followingMode="follow"/></FollowTrajectoryAction></RoutingAction></PrivateAction>')


def _sync_run(tmp_path, master_trajectory: bool) -> list[float]:
    """Ego's speeds over the first ticks of a synchronization whose master may start a trajectory alongside."""
    at0 = trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none"))
    (tmp_path / "road.xodr").write_text(straight_road(1000.0))
    text = scenario(event("sync", _sync('<TargetDistanceSteadyState distance="10"/>'), at0), entities=("Ego", "Lead"),
                    init=lane_teleport("Ego", -2, 10, 0.0) + lane_teleport("Lead", -1, 10, 10.0))
    text = text.replace("<RoadNetwork/>", '<RoadNetwork><LogicFile filepath="road.xodr"/></RoadNetwork>')
    if master_trajectory:  # a later maneuver group: the master's trajectory starts with the sync, steps after it
        lead = ('<ManeuverGroup name="L" maximumExecutionCount="1"><Actors selectTriggeringEntities="false">'
                f'<EntityRef entityRef="Lead"/></Actors><Maneuver name="ML">{event("traj", _follow_line(-1.75), at0)}'
                "</Maneuver></ManeuverGroup>")
        text = text.replace("</ManeuverGroup>", "</ManeuverGroup>" + lead, 1)
    (tmp_path / "s.xosc").write_text(text)
    eng = ScenarioEngine(tmp_path / "s.xosc", seed=0, tick=TICK)
    eng.init()
    out = []
    for k in range(6):
        eng.step(round(k * TICK, 9))
        out.append(eng.entities["Ego"].speed)
    return out


def test_synchronize_waits_a_step_for_a_master_whose_trajectory_is_not_yet_in_place(tmp_path):
    """esmini's first step sees such a master as not approaching: wait, then straight onto the linear ramp."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plain, waited = _sync_run(tmp_path / "a", False), _sync_run(tmp_path / "b", True)
    assert plain[0] > 0 and waited[0] == 0.0
    # the plain plan ramps up tick by tick; after the wait the entity is put straight onto the linear ramp to 5 m/s
    # at the steady-state stretch: 2 * (60 - 10) m / (10 - 2) s - 5 = 7.5 m/s (the master at 10 m/s, 100 m to go)
    assert plain[2] < 1.0
    assert waited[2] == pytest.approx(7.5, abs=0.3) and waited[5] < waited[2]
