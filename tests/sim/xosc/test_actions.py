"""Actions and default-controller motion on a small straight road, plus global actions without one."""

from __future__ import annotations

import math

import pytest

from roadtest.sim.api import Event
from roadtest.sim.xosc.storyboard import COMPLETE

from xosc_docs import event, lane_teleport, scenario, sim_time, speed_action, straight_road, teleport, trigger, load_engine

TICK = 0.05


def engine(tmp_path, text, road=True):
    return load_engine(tmp_path, text, 500.0 if road else None, TICK)


def steps(eng, n, start=0, **kw):
    for k in range(start, start + n):
        eng.step(round(k * TICK, 9), **kw)
    return start + n


def el(eng, name):
    return next(e for e in eng.elements if e.name == name)


def lane_change(target: str, shape: str = "sinusoidal", dim: str = "time", value: float = 2.0, offset: float = 0.0) -> str:
    return f"""<PrivateAction><LateralAction><LaneChangeAction targetLaneOffset="{offset}">
      <LaneChangeActionDynamics dynamicsShape="{shape}" dynamicsDimension="{dim}" value="{value}"/>
      <LaneChangeTarget>{target}</LaneChangeTarget></LaneChangeAction></LateralAction></PrivateAction>"""


def test_lane_following_and_teleport_to_lane_positions(tmp_path):
    eng = engine(tmp_path, scenario("", entities=("Ego", "Oncoming"),
                                    init=lane_teleport("Ego", -1, 20, 10) + lane_teleport("Oncoming", 1, 300, 5)))
    e, o = eng.entities["Ego"], eng.entities["Oncoming"]
    assert (e.x, e.y, e.h) == (pytest.approx(20), pytest.approx(-1.75), pytest.approx(0))
    assert (o.y, abs(o.h)) == (pytest.approx(1.75), pytest.approx(math.pi))  # left lane runs against s
    steps(eng, 40)
    assert e.x == pytest.approx(40.0) and e.lane.lane == -1 and e.lane.s == pytest.approx(40.0)
    assert o.x == pytest.approx(290.0) and o.lane.lane == 1
    assert e.lane.t == pytest.approx(-1.75)


@pytest.mark.parametrize("shape", ["sinusoidal", "cubic", "linear"])
def test_lane_change_by_time_reaches_the_target_lane_on_time(tmp_path, shape):
    body = event("lc", lane_change('<RelativeTargetLane entityRef="Ego" value="1"/>', shape, "time", 2.0),
                 trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng = engine(tmp_path, scenario(body, init=lane_teleport("Ego", -2, 20, 10)))
    e = eng.entities["Ego"]
    k = steps(eng, 20)
    assert e.y == pytest.approx(-5.25 + 1.75, abs=1e-6)  # half way at half time (all shapes are symmetric)
    assert e.h > 0  # turning left
    steps(eng, 20, k)
    assert e.y == pytest.approx(-1.75) and e.lane.lane == -1
    assert el(eng, "lc").state == COMPLETE
    assert e.x < 20 + 40 * TICK * 10  # the lateral part of each step is taken from the longitudinal progress


def test_lane_change_by_distance_and_rate_and_offset(tmp_path):
    body = event("lc", lane_change('<AbsoluteTargetLane value="-1"/>', "linear", "distance", 50.0, offset=0.5),
                 trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng = engine(tmp_path, scenario(body, init=lane_teleport("Ego", -2, 0, 10)))
    steps(eng, 50)  # 25 m of 50
    assert eng.entities["Ego"].y == pytest.approx(-5.25 + (3.5 + 0.5) / 2, abs=1e-6)
    steps(eng, 60, 50)
    assert eng.entities["Ego"].y == pytest.approx(-1.75 + 0.5)
    body = event("lc", lane_change('<AbsoluteTargetLane value="-1"/>', "linear", "rate", 1.0),
                 trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng = engine(tmp_path, scenario(body, init=lane_teleport("Ego", -2, 0, 10)))
    steps(eng, 69)
    assert el(eng, "lc").state != COMPLETE  # 3.5 m at 1 m/s takes 3.5 s
    steps(eng, 2, 69)
    assert el(eng, "lc").state == COMPLETE


def test_lane_offset_and_relative_speed(tmp_path):
    offset = """<PrivateAction><LateralAction><LaneOffsetAction continuous="false">
      <LaneOffsetActionDynamics dynamicsShape="sinusoidal" maxLateralAcc="1.0"/>
      <LaneOffsetTarget><AbsoluteTargetLaneOffset value="1.0"/></LaneOffsetTarget></LaneOffsetAction></LateralAction></PrivateAction>"""
    follow = """<PrivateAction><LongitudinalAction><SpeedAction>
      <SpeedActionDynamics dynamicsShape="step" dynamicsDimension="time" value="0"/>
      <SpeedActionTarget><RelativeTargetSpeed entityRef="Lead" value="0.5" speedTargetValueType="factor" continuous="true"/>
      </SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction>"""
    body = (event("off", offset, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
            + event("half", follow, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none"))))
    eng = engine(tmp_path, scenario(body, entities=("Ego", "Lead"),
                                    init=lane_teleport("Ego", -1, 0, 10) + lane_teleport("Lead", -2, 50, 20)))
    # a sinusoid peaking at 1 m/s^2 over 1 m lasts pi * sqrt(1 / 2) s
    duration = math.pi * math.sqrt(0.5)
    k = steps(eng, int(duration / TICK) + 2)
    assert eng.entities["Ego"].y == pytest.approx(-1.75 + 1.0)
    assert el(eng, "off").state == COMPLETE
    assert eng.entities["Ego"].speed == 10.0 and el(eng, "half").state != COMPLETE  # continuous: keeps tracking
    steps(eng, 1, k)


def test_follow_trajectory_polyline_with_timing(tmp_path):
    traj = """<PrivateAction><RoutingAction><FollowTrajectoryAction><TrajectoryRef><Trajectory name="t" closed="false">
      <Shape><Polyline>
        <Vertex time="0"><Position><WorldPosition x="0" y="0"/></Position></Vertex>
        <Vertex time="2"><Position><WorldPosition x="10" y="0"/></Position></Vertex>
        <Vertex time="4"><Position><WorldPosition x="10" y="10"/></Position></Vertex>
      </Polyline></Shape></Trajectory></TrajectoryRef>
      <TimeReference><Timing domainAbsoluteRelative="relative" scale="1" offset="0"/></TimeReference>
      <TrajectoryFollowingMode followingMode="position"/></FollowTrajectoryAction></RoutingAction></PrivateAction>"""
    body = event("go", traj, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng = engine(tmp_path, scenario(body, init=teleport("Ego", 0, 0, speed=0)), road=False)
    e = eng.entities["Ego"]
    k = steps(eng, 20)  # positions follow the vertex times: 1 s in, half way to the second vertex
    assert (e.x, e.y) == (pytest.approx(5.0), pytest.approx(0.0))
    assert e.speed == pytest.approx(5.0)
    k = steps(eng, 30, k)
    assert (e.x, e.y, e.h) == (pytest.approx(10.0), pytest.approx(2.5), pytest.approx(math.pi / 2))
    steps(eng, 35, k)
    assert el(eng, "go").state == COMPLETE and e.y == pytest.approx(10.0)


def test_global_actions_parameters_signals_entities(tmp_path):
    set_p = '<GlobalAction><ParameterAction parameterRef="n"><SetAction value="7"/></ParameterAction></GlobalAction>'
    mod_p = ('<GlobalAction><ParameterAction parameterRef="n"><ModifyAction><Rule><AddValue value="3"/></Rule>'
             '</ModifyAction></ParameterAction></GlobalAction>')
    sig = ('<GlobalAction><InfrastructureAction><TrafficSignalAction><TrafficSignalStateAction name="s1" state="green"/>'
           '</TrafficSignalAction></InfrastructureAction></GlobalAction>')
    delete = '<GlobalAction><EntityAction entityRef="Other"><DeleteEntityAction/></EntityAction></GlobalAction>'
    pcond = """<Condition name="p" delay="0" conditionEdge="none"><ByValueCondition>
      <ParameterCondition parameterRef="n" value="7" rule="equalTo"/></ByValueCondition></Condition>"""
    body = (event("set", set_p, trigger("StartTrigger", sim_time(0.5)))
            + event("mod", mod_p, trigger("StartTrigger", pcond))
            + event("sig", sig, trigger("StartTrigger", sim_time(1)))
            + event("del", delete, trigger("StartTrigger", sim_time(1))))
    params = '<ParameterDeclaration name="n" parameterType="double" value="1"/>'
    eng = engine(tmp_path, scenario(body, entities=("Ego", "Other"), params=params,
                                    init=teleport("Ego", 0, speed=1) + teleport("Other", 10, speed=1)), road=False)
    steps(eng, 11)
    assert eng.params["n"] == 1
    steps(eng, 1, 11)
    # set at the 0.55 s tick; events are evaluated in storyboard order, so the ParameterCondition of the
    # next event already sees 7 in the same tick (as esmini) and adds 3
    assert eng.params["n"] == 10.0
    steps(eng, 13, 12)
    assert eng.signals["s1"] == "green"
    assert not eng.entities["Other"].active
    x = eng.entities["Other"].x
    steps(eng, 5, 25)
    assert el(eng, "mod").state == COMPLETE
    assert eng.entities["Other"].x == x  # a deleted entity no longer moves


def test_collision_condition_reads_simulator_events(tmp_path):
    cond = """<Condition name="c" delay="0" conditionEdge="rising"><ByEntityCondition>
      <TriggeringEntities triggeringEntitiesRule="any"><EntityRef entityRef="Ego"/></TriggeringEntities>
      <EntityCondition><CollisionCondition><EntityRef entityRef="Other"/></CollisionCondition></EntityCondition>
      </ByEntityCondition></Condition>"""
    body = event("hit", speed_action(0), trigger("StartTrigger", cond))
    eng = engine(tmp_path, scenario(body, entities=("Ego", "Other"),
                                    init=teleport("Ego", 0, speed=5) + teleport("Other", 100, 0)), road=False)
    steps(eng, 3)
    assert eng.entities["Ego"].speed == 5
    eng.step(3 * TICK, events=[Event("collision", "Other", "Ego", {"relative_speed": 5.0})])
    assert eng.entities["Ego"].speed == 0


def test_external_controller_holds_entity_unless_caller_drives_it(tmp_path):
    ctrl = """<ObjectController><Controller name="ext"><Properties>
      <Property name="esminiController" value="ExternalController"/></Properties></Controller></ObjectController>"""
    activate = '<Private entityRef="Ego"><PrivateAction><ActivateControllerAction longitudinal="true" lateral="true"/></PrivateAction></Private>'
    text = scenario("", init=teleport("Ego", 0, speed=10) + activate)
    text = text.replace("</Vehicle></ScenarioObject>", "</Vehicle>" + ctrl + "</ScenarioObject>", 1)
    eng = engine(tmp_path, text, road=False)
    assert eng.controlled_externally("Ego") and eng.controller_of("Ego") == "ExternalController"
    steps(eng, 10)
    assert eng.entities["Ego"].x == 0 and eng.entities["Ego"].speed == 0
    eng.entities["Ego"].x = 3.0  # the caller (an agent's vehicle model) moves it
    steps(eng, 10, 10, external={"Ego"})
    assert eng.entities["Ego"].x == 3.0


def test_environment_action_and_empty_placeholder_action(tmp_path):
    env = """<GlobalAction><EnvironmentAction><Environment name="night">
      <TimeOfDay animation="false" dateTime="2020-01-01T22:00:00"/>
      <Weather cloudState="overcast"><Sun intensity="0.05" azimuth="0" elevation="-0.2"/><Fog visualRange="80"/>
        <Precipitation precipitationType="rain" intensity="0.9"/></Weather>
      <RoadCondition frictionScaleFactor="0.6"/></Environment></EnvironmentAction></GlobalAction>"""
    body = (event("env", env, trigger("StartTrigger", sim_time(0.5)))
            + '<Event name="noop" priority="parallel"><Action name="noop"/>'
            + trigger("StartTrigger", sim_time(0.2)) + "</Event>")
    eng = engine(tmp_path, scenario(body, init=teleport("Ego", 0, speed=1)), road=False)
    steps(eng, 20)
    env = eng.environment
    assert (env.precipitation, env.precipitation_intensity, env.fog_visual_range, env.friction) == ("rain", 0.9, 80.0, 0.6)
    assert env.time_of_day == "2020-01-01T22:00:00" and env.sun_intensity == 0.05 and env.cloudiness == 0.9
    assert el(eng, "noop").state == COMPLETE


def test_trailer_hangs_on_the_hitch_and_unhitches(tmp_path):
    connect = '<PrivateAction><TrailerAction><ConnectTrailerAction trailerRef="Trailer"/></TrailerAction></PrivateAction>'
    disconnect = '<PrivateAction><TrailerAction><DisconnectTrailerAction/></TrailerAction></PrivateAction>'
    body = (event("hitch", connect, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
            + event("unhitch", disconnect, trigger("StartTrigger", sim_time(2))))
    text = scenario(body, entities=("Ego", "Trailer"), init=teleport("Ego", 0, speed=5, h=0.0) + teleport("Trailer", -20, 3))
    parts = text.split("</Vehicle>")
    text = parts[0] + '<TrailerHitch dx="-1.0"/></Vehicle>' + parts[1] + '<TrailerCoupler dx="4.0"/></Vehicle>' + parts[2]
    eng = engine(tmp_path, text, road=False)
    steps(eng, 20)
    ego, tr = eng.entities["Ego"], eng.entities["Trailer"]
    assert tr.tow == "Ego" and ego.trailer == "Trailer"
    hx, hy = ego.x - 1.0 * math.cos(ego.h), ego.y - 1.0 * math.sin(ego.h)
    assert math.hypot(tr.x - hx, tr.y - hy) == pytest.approx(4.0)  # coupler on the hitch
    assert math.atan2(hy - tr.y, hx - tr.x) == pytest.approx(tr.h)  # pointing at it
    assert tr.speed == ego.speed
    steps(eng, 25, 20)
    assert tr.tow is None and ego.trailer is None and tr.speed == 0.0
    x = tr.x
    steps(eng, 5, 45)
    assert tr.x == x and ego.x > x + 4  # the tow drives on, the trailer stays


def test_traffic_swarm_is_seeded_and_stays_in_its_ellipse(tmp_path):
    swarm = """<GlobalAction><TrafficAction trafficName="bg"><TrafficSwarmAction innerRadius="20" semiMajorAxis="150"
      semiMinorAxis="20" numberOfVehicles="6" velocity="8"><CentralObject entityRef="Ego"/></TrafficSwarmAction>
      </TrafficAction></GlobalAction>"""
    stop = '<GlobalAction><TrafficAction trafficName="bg"><TrafficStopAction/></TrafficAction></GlobalAction>'
    body = event("stop", stop, trigger("StartTrigger", sim_time(3)))
    runs = []
    for _ in range(2):
        eng = engine(tmp_path, scenario(body, init=swarm + lane_teleport("Ego", -1, 250, 10)))
        ego = eng.entities["Ego"]
        bg = [e for e in eng.entities.values() if e.role == "background"]
        assert len(bg) == 6 and all(e.active and e.speed == 8 and e.lane is not None for e in bg)
        assert all(20 <= math.hypot(e.x - ego.x, e.y - ego.y) <= 150 for e in bg)
        steps(eng, 40)
        live = [e for e in eng.entities.values() if e.role == "background" and e.active]
        assert len(live) == 6
        runs.append(sorted((round(e.x, 6), round(e.y, 6)) for e in live))
        steps(eng, 30, 40)
        assert not any(e.active for e in eng.entities.values() if e.role == "background")
    assert runs[0] == runs[1]  # same seed, same swarm


def test_signal_controller_phases_cycle_after_the_delay():
    from lxml import etree

    from roadtest.sim.xosc.trailers import SignalControllers

    ctl = etree.fromstring("""<TrafficSignalController name="c" delay="1">
      <Phase name="go" duration="3"><TrafficSignalState trafficSignalId="5" state="green"/></Phase>
      <Phase name="stop" duration="2"><TrafficSignalState trafficSignalId="5" state="red"/></Phase>
      </TrafficSignalController>""")
    sc, sig = SignalControllers([ctl]), {}
    seen = []
    for t in (0.5, 1.0, 3.9, 4.0, 5.9, 6.0, 9.0):
        sc.update(t, sig)
        seen.append((sc.phase("c"), sig.get("5")))
    assert seen == [(None, None), ("go", "green"), ("go", "green"), ("stop", "red"), ("stop", "red"),
                    ("go", "green"), ("stop", "red")]
    sc.set_phase("c", "go", 9.5, sig)
    assert sig["5"] == "green"


def _polyline_follow(vertices: str, mode: str, timed: bool = True) -> str:
    timing = '<TimeReference><Timing domainAbsoluteRelative="relative" scale="1" offset="0"/></TimeReference>' if timed else ""
    return f"""<PrivateAction><RoutingAction><FollowTrajectoryAction><TrajectoryRef><Trajectory name="t" closed="false">
      <Shape><Polyline>{vertices}</Polyline></Shape></Trajectory></TrajectoryRef>{timing}
      <TrajectoryFollowingMode followingMode="{mode}"/></FollowTrajectoryAction></RoutingAction></PrivateAction>"""


def _vertex(t: float, x: float, y: float = 0.0) -> str:
    return f'<Vertex time="{t}"><Position><WorldPosition x="{x}" y="{y}"/></Position></Vertex>'


def test_a_trajectory_in_init_puts_the_entity_at_its_start(tmp_path):
    traj = _polyline_follow(_vertex(0, 30, 5) + _vertex(2, 30, 25), "position", timed=False)
    init = f'<Private entityRef="Ego">{speed_action(5.0)}{traj}</Private>'
    eng = engine(tmp_path, scenario("", init=init), road=False)
    e = eng.entities["Ego"]
    assert (e.x, e.y, e.h) == (pytest.approx(30.0), pytest.approx(5.0), pytest.approx(math.pi / 2))  # before a tick
    steps(eng, 20)
    assert (e.x, e.y) == (pytest.approx(30.0), pytest.approx(10.0))


@pytest.mark.parametrize("mode", ["follow", "position"])
def test_timed_polyline_follow_mode_accelerates_constantly_and_may_arrive_early(tmp_path, mode):
    # 10 m/s into a segment of 5 m in 1 s: 'follow' brakes evenly to 0 at its end, 'position' goes 5 m/s throughout
    verts = _vertex(0, 0) + _vertex(2, 20) + _vertex(3, 25) + _vertex(5, 26)
    body = event("go", _polyline_follow(verts, mode), trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng = engine(tmp_path, scenario(body, init=teleport("Ego", 0, 0, speed=10)), road=False)
    e = eng.entities["Ego"]
    k = steps(eng, 50)  # t = 2.5 s
    assert e.x == pytest.approx(23.75 if mode == "follow" else 22.5)
    k = steps(eng, 30, k)  # t = 4 s: from rest, 1 m in 2 s at constant acceleration, a quarter of it by half time
    assert e.x == pytest.approx(25.25 if mode == "follow" else 25.5)

    verts = _vertex(0, 0) + _vertex(2, 5) + _vertex(3, 15)  # 10 m/s cannot take 2 s over 5 m without reversing
    body = event("go", _polyline_follow(verts, mode), trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    eng = engine(tmp_path, scenario(body, init=teleport("Ego", 0, 0, speed=10)), road=False)
    e = eng.entities["Ego"]
    steps(eng, 30)  # t = 1.5 s
    assert e.x == pytest.approx(5.0 if mode == "follow" else 3.75)  # 'follow' stops at the vertex early and waits


def test_lane_offsets_run_across_the_reference_line_on_a_widening_lane():
    from roadtest.sim.road.network import RoadNetwork
    from roadtest.sim.xosc.motion import LaneCache

    xodr = straight_road(length=100.0).replace('<width sOffset="0" a="3.5" b="0" c="0" d="0"/>',
                                               '<width sOffset="0" a="3.5" b="0.2" c="0" d="0"/>')
    net = RoadNetwork.from_bytes(xodr.encode())
    cache = LaneCache(net)
    for s, off in ((10.0, 0.0), (40.25, 1.5), (70.0, -2.0)):
        x, y, _, h, t = cache.pose("1", -2, s, off)
        ref = net.lane_to_world("1", -2, s, off)
        # the lane centre slants (its heading turns away), but an offset stays a step in road t, as OpenDRIVE has it
        assert (x, y) == (pytest.approx(ref.x, abs=1e-6), pytest.approx(ref.y, abs=1e-6))
        assert x == pytest.approx(s, abs=1e-6) and h == pytest.approx(ref.h, abs=1e-6) and abs(h) > 0.1
        assert t == pytest.approx(y, abs=1e-6)


def test_the_rest_of_the_step_past_a_trajectory_end_is_not_lost(tmp_path):
    # 10 m/s on a 5.25 m path: the tick that reaches its end still covers 0.5 m, the 0.25 m past it straight on
    traj = _polyline_follow(_vertex(0, 0, -1.75) + _vertex(0, 5.25, -1.75), "position", timed=False)
    body = event("go", traj, trigger("StartTrigger", sim_time(0, "greaterOrEqual", edge="none")))
    stop = trigger("StopTrigger", sim_time(100.0))  # the run goes on after the trajectory
    eng = engine(tmp_path, scenario(body, init=lane_teleport("Ego", -1, 0, 10), stop=stop))
    e = eng.entities["Ego"]
    steps(eng, 11)
    assert el(eng, "go").state == COMPLETE
    assert (e.x, e.y) == (pytest.approx(5.5), pytest.approx(-1.75))
    steps(eng, 10, 11)
    assert e.x == pytest.approx(10.5) and e.lane.lane == -1  # then it follows its lane at its speed
