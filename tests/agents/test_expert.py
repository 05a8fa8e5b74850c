"""The expert and the baselines driven closed-loop in the fake straight-road world (tests/agents/agents_world.py)."""

from __future__ import annotations

import math

import pytest

from roadtest.agents import load_agent
from roadtest.sim.api import ActorState, Environment
from agents_world import W, FakeStraightNetwork, Other, run_world, straight_meta

LANE_Y = -W / 2


def ego_track(states):
    return [s.ego for s in states]


def test_expert_converges_to_route_and_keeps_speed_limit():
    net = FakeStraightNetwork(speed_limit=None)
    meta = straight_meta(speed_limit=10.0)
    states = run_world(load_agent("expert"), meta, net, (10.0, LANE_Y + 1.2, 0.15, 0.0), seconds=25.0)
    ego = ego_track(states)
    assert max(e.speed for e in ego) <= 10.0 + 0.05
    late = ego[-100:]
    assert all(abs(e.y - LANE_Y) < 0.15 for e in late)
    assert min(e.speed for e in late) > 9.0


def test_expert_full_stop_at_stop_sign_then_goes():
    net = FakeStraightNetwork()
    meta = straight_meta(speed_limit=13.0, stop_lines=[{"road": "1", "s": 100.0, "lanes": [-1]}],
                         signs=[{"id": "stop", "kind": "stop", "road": "1", "s": 100.0, "t": -4.0}])
    states = run_world(load_agent("expert"), meta, net, (10.0, LANE_Y, 0.0, 10.0), seconds=25.0)
    ego = ego_track(states)
    front = [e.x + e.length / 2 for e in ego]
    near = [e.speed for e, f in zip(ego, front) if 96.0 <= e.x <= 100.0 or 96.0 <= f <= 100.0]
    assert near and min(near) < 0.1  # stopped within 4 m of the line
    assert max(front[: next(i for i, e in enumerate(ego) if e.speed < 0.1 and e.x > 80)]) <= 100.0
    assert ego[-1].x > 130.0  # and then went on


def test_expert_waits_at_red_light_until_green():
    net = FakeStraightNetwork()
    meta = straight_meta(speed_limit=13.0, stop_lines=[{"road": "1", "s": 120.0, "lanes": [-1]}],
                         lights=[{"id": "L1", "road": "1", "s": 125.0}])
    states = run_world(load_agent("expert"), meta, net, (10.0, LANE_Y, 0.0, 12.0),
                       signals=lambda t: {"L1": "red" if t < 15.0 else "green"}, seconds=25.0)
    for s in states:
        if s.signals["L1"] == "red":
            assert s.ego.x + s.ego.length / 2 <= 120.0
    assert states[-1].ego.x > 140.0


def test_expert_keeps_gap_behind_slow_lead():
    net = FakeStraightNetwork(center_mark="solid")  # no passing: it must follow
    meta = straight_meta(speed_limit=15.0)
    lead = ActorState(id="truck", role="scenario", kind="truck", x=60.0, y=LANE_Y, z=0, h=0.0, speed=5.0, vx=5.0, length=8.0, width=2.5)
    states = run_world(load_agent("expert"), meta, net, (10.0, LANE_Y, 0.0, 14.0), others=[Other(lead)], seconds=25.0)
    gaps = [s.actor("truck").x - 4.0 - (s.ego.x + 2.25) for s in states]
    assert min(gaps) > 5.0
    assert abs(states[-1].ego.speed - 5.0) < 0.5  # follows rather than stopping


def test_expert_passes_slow_lead_over_broken_line_and_comes_back():
    net = FakeStraightNetwork()  # broken centre line, no oncoming traffic
    meta = straight_meta(speed_limit=15.0)
    lead = ActorState(id="truck", role="scenario", kind="truck", x=60.0, y=LANE_Y, z=0, h=0.0, speed=5.0, vx=5.0, length=8.0, width=2.5)
    states = run_world(load_agent("expert"), meta, net, (10.0, LANE_Y, 0.0, 14.0), others=[Other(lead)], seconds=30.0)
    beside = [s for s in states if abs(s.actor("truck").x - s.ego.x) < 6.25]
    assert beside and all(abs(s.ego.y - LANE_Y) > 2.5 for s in beside)  # a lane over while alongside
    assert states[-1].ego.x > states[-1].actor("truck").x + 10.0  # ahead of it at the end
    assert abs(states[-1].ego.y - LANE_Y) < 0.3  # and back in its lane


def test_expert_yields_to_pedestrian_on_crosswalk():
    net = FakeStraightNetwork()
    meta = straight_meta(speed_limit=12.0, crosswalks=[{"road": "1", "s_start": 90.0, "s_end": 94.0}])
    ped = ActorState(id="ped", role="scenario", kind="pedestrian", x=92.0, y=-6.0, z=0, h=math.pi / 2, speed=1.0, vx=0.0, vy=0.8,
                     length=0.5, width=0.5)

    def walk(t, a):  # crosses the whole road, then stays on the far side
        return a if a.y > 6.0 else ActorState(**{**a.__dict__, "y": a.y + 0.8 * 0.05})

    states = run_world(load_agent("expert"), meta, net, (10.0, LANE_Y, 0.0, 12.0), others=[Other(ped, walk)], seconds=35.0)
    for s in states:
        p = s.actor("ped")
        if -W <= p.y <= W:
            assert s.ego.x + s.ego.length / 2 < 90.0
    assert states[-1].ego.x > 110.0


def test_expert_slows_for_fog_rule():
    net = FakeStraightNetwork()
    meta = straight_meta(speed_limit=60 / 3.6, rules=[{"id": "fog_speed_limit", "params": {"visibility_threshold": 50.0, "fog_speed": 30 / 3.6}}])
    env = Environment(fog_visual_range=40.0)
    states = run_world(load_agent("expert"), meta, net, (10.0, LANE_Y, 0.0, 5.0), env=env, seconds=15.0)
    assert max(s.ego.speed for s in states) <= 30 / 3.6
    assert states[-1].ego.speed > 30 / 3.6 - 1.0


def test_expert_plan_is_six_points_ahead_half_a_second_apart():
    net = FakeStraightNetwork()
    meta = straight_meta(speed_limit=10.0)
    agent = load_agent("expert")
    run_world(agent, meta, net, (10.0, LANE_Y, 0.0, 10.0), seconds=2.0)
    plan = agent.last_output.planned
    assert len(plan) == 6
    xs = [p[0] for p in plan]
    assert all(b > a for a, b in zip(xs, xs[1:]))
    assert xs[0] == pytest.approx(5.0, abs=0.5) and xs[-1] == pytest.approx(30.0, abs=1.5)
    assert all(abs(p[1]) < 0.3 for p in plan)


def test_lane_follower_ignores_stop_sign_and_limit():
    net = FakeStraightNetwork()
    meta = straight_meta(speed_limit=8.0, stop_lines=[{"road": "1", "s": 100.0, "lanes": [-1]}],
                         signs=[{"id": "stop", "kind": "stop", "road": "1", "s": 100.0}])
    states = run_world(load_agent("lane-follower"), meta, net, (10.0, LANE_Y + 0.8, 0.0, 0.0), seconds=20.0)
    ego = ego_track(states)
    near = [e.speed for e in ego if 96.0 <= e.x <= 104.0]
    assert near and min(near) > 5.0
    assert max(e.speed for e in ego) > 11.0
    assert abs(ego[-1].y - LANE_Y) < 0.2


def test_idle_stays():
    net = FakeStraightNetwork()
    states = run_world(load_agent("idle"), straight_meta(), net, (10.0, LANE_Y, 0.0, 3.0), seconds=5.0)
    assert states[-1].ego.speed == 0.0 and states[-1].ego.x < 12.0


def test_expert_moves_over_for_emergency_vehicle_and_comes_back():
    net = FakeStraightNetwork(length=700.0, lanes_right=2)
    meta = straight_meta(length=700.0, speed_limit=12.0)
    ev = ActorState(id="amb", role="scenario", kind="emergency", x=-20.0, y=LANE_Y, z=0, h=0.0, speed=22.0, vx=22.0,
                    length=6.0, width=2.2, siren=True)
    states = run_world(load_agent("expert"), meta, net, (30.0, LANE_Y, 0.0, 12.0), others=[Other(ev)], seconds=30.0)
    for s in states:
        e, a = s.ego, s.actor("amb")
        assert abs(e.x - a.x) > (e.length + a.length) / 2 or abs(e.y - a.y) > (e.width + a.width) / 2  # never touch
    passing = [s.ego.y for s in states if abs(s.actor("amb").x - s.ego.x) < 5.0]
    assert passing and max(passing) < -W + 0.2  # in the next lane while it passes
    assert abs(states[-1].ego.y - LANE_Y) < 0.2 and states[-1].ego.speed > 10.0  # back on the route lane, at speed


def test_expert_without_route_follows_its_lane_and_stops_behind_a_standing_car():
    net = FakeStraightNetwork()
    meta = straight_meta(speed_limit=10.0)
    meta_no_route = {"scene": {"speed_limit": 10.0}}
    car = ActorState(id="parked", role="scenario", kind="car", x=90.0, y=LANE_Y, z=0, h=0.0, speed=0.0)
    agent = load_agent("expert")
    agent.sensors = lambda: [s for s in type(agent).sensors(agent) if s["type"] != "roadtest.route"]
    states = run_world(agent, {**meta_no_route, "route": meta["route"] | {"waypoints": []}}, net, (10.0, LANE_Y + 0.6, 0.0, 8.0),
                       others=[Other(car)], seconds=20.0)
    end = states[-1].ego
    assert end.speed < 0.1 and 90.0 - 2.25 - (end.x + 2.25) > 2.0
    assert abs(end.y - LANE_Y) < 0.2


@pytest.mark.parametrize("governing", [None, "yield_emergency_vehicle"])
def test_expert_pulls_over_for_emergency_vehicle_on_a_single_lane(governing):
    net = FakeStraightNetwork(length=700.0, center_mark="solid")
    meta = {**straight_meta(length=700.0, speed_limit=12.0), "governing": governing}
    ev = ActorState(id="amb", role="scenario", kind="emergency", x=0.0, y=LANE_Y, z=0, h=0.0, speed=18.0, vx=18.0,
                    length=5.5, width=2.1, siren=True)
    states = run_world(load_agent("expert"), meta, net, (40.0, LANE_Y, 0.0, 8.0), others=[Other(ev)], seconds=12.0)
    alongside = [s for s in states if abs(s.actor("amb").x - s.ego.x) < 3.0]
    assert alongside
    assert all(s.ego.y < LANE_Y - 0.5 for s in alongside)  # at the right-hand side as it passes
    if governing:  # yielding governs: clear of its path, even beyond the lane edge
        assert all(abs(s.ego.y - LANE_Y) > (2.1 + s.ego.width) / 2 for s in alongside)
    else:  # otherwise it slows down within its lane
        assert alongside[0].ego.speed < 2.0
        assert min(s.ego.y for s in states) - states[0].ego.width / 2 > -W - 0.05
    assert states[-1].ego.speed > 3.0  # and drives on once it has passed
