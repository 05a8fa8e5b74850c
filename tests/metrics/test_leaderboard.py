"""Leaderboard 2.0 driving score: the hand-computed case and each detection rule at its boundary."""

from __future__ import annotations

import math

import pytest

from metrics_synth import actor, collision, drive, ego, straight_meta
from roadtest.metrics import corrected, leaderboard as lb
from roadtest.sim.api import Event, Termination


def ramp(x0: float, x1: float, step: float = 0.5) -> list[float]:
    n = int(round((x1 - x0) / step))
    return [x0 + step * i for i in range(n + 1)]


def test_hand_computed_two_vehicle_collisions_one_red_light_at_80_percent():
    xs = ramp(0, 80.5) + [80.5] * 10
    meta = straight_meta(100, lights=[{"id": "L1", "road": "1", "s": 50.0}])
    events = {20: [collision("car1", "car")], 100: [collision("car2", "truck")]}
    trace = drive(xs, events=events, signals=lambda i: {"L1": "red"}, termination=Termination.STOPPED)
    r = lb.evaluate(trace, meta)
    assert r.score_route == pytest.approx(80.0)
    assert len(r.infractions["collisions_vehicle"]) == 2
    assert len(r.infractions["red_light"]) == 1
    assert r.score_composed == pytest.approx(80 * 0.6 * 0.6 * 0.7) == pytest.approx(20.16)
    d = r.to_dict()
    assert d["scores"]["score_composed"] == pytest.approx(20.16)
    assert d["infractions"]["red_light"][0].startswith("Agent ran a red light L1")
    assert r.status == "Failed"


@pytest.mark.parametrize("y_end,full", [(1.5, False), (2.5, True)])
def test_completion_is_100_only_within_10m_of_goal_and_above_99(y_end, full):
    # route 2000 m east then 12 m north; at y=1.5 the ego passed 99.45 % but is 10.5 m from the goal
    meta = {"route": {"waypoints": [[0.0, 0.0], [2000.0, 0.0], [2000.0, 12.0]]}}
    tr = drive(ramp(0, 2000.0, 1.0) + [2000.0] * 2)
    last = tr.states[-1]
    tr.states[-1] = type(last)(time=last.time, frame=last.frame, actors=(ego(2000.0, 1.0, y=y_end, h=math.pi / 2),))
    r = lb.evaluate(tr, meta)
    if full:
        assert r.score_route == 100.0 and r.status == "Perfect" and r.score_composed == 100.0
    else:
        assert 99.0 < r.score_route < 100.0 and r.status == "Failed"


def test_collision_dedup_same_actor_within_5s_and_within_5m():
    xs = ramp(0, 80, 0.25)
    meta = straight_meta(100)
    # CollisionTest.update forgets the id once GameTime - collision time > 5 s, and a tick's contact is handled
    # before that tick's update: first at 0.5 s; the update at 5.55 s (tick 111) forgets it, so tick 112 counts
    t_a = drive(xs, events={10: [collision("c", "car")], 111: [collision("c", "car")]})
    t_b = drive(xs, events={10: [collision("c", "car")], 112: [collision("c", "car")]})
    assert len(lb.evaluate(t_a, meta).infractions["collisions_vehicle"]) == 1
    assert len(lb.evaluate(t_b, meta).infractions["collisions_vehicle"]) == 2
    # another actor, ego still within 5 m of the first collision (19 ticks x 0.25 m = 4.75 m): not counted
    t_c = drive(xs, events={10: [collision("c", "car")], 29: [collision("d", "car")]})
    t_d = drive(xs, events={10: [collision("c", "car")], 31: [collision("d", "car")]})
    assert len(lb.evaluate(t_c, meta).infractions["collisions_vehicle"]) == 1
    assert len(lb.evaluate(t_d, meta).infractions["collisions_vehicle"]) == 2


def test_collision_ignored_below_0_1_mps_and_classified():
    meta = straight_meta(100)
    xs = [10.0] * 5
    slow = drive(xs, [0.09] * 5, events={2: [collision("p", "pedestrian")]})
    moving = drive(xs, [0.11] * 5, events={2: [collision("p", "pedestrian")]})
    assert lb.evaluate(slow, meta).infractions["collisions_pedestrian"] == ()
    r = lb.evaluate(moving, meta)
    assert len(r.infractions["collisions_pedestrian"]) == 1 and r.score_penalty == pytest.approx(0.5)
    wall = lb.evaluate(drive(xs, [1.0] * 5, events={2: [collision("w", "static")]}), meta)
    assert wall.score_penalty == pytest.approx(0.65)


@pytest.mark.parametrize("state,counted", [("red", True), ("green", False), ("yellow", False)])
def test_red_light_only_on_red(state, counted):
    meta = straight_meta(100, lights=[{"id": "L", "road": "1", "s": 50.0}])
    r = lb.evaluate(drive(ramp(0, 70), signals=lambda i: {"L": state}), meta)
    assert (len(r.infractions["red_light"]) == 1) is counted


def test_red_light_uses_the_rear_not_the_front():
    meta = straight_meta(100, lights=[{"id": "L", "road": "1", "s": 50.0}],
                         stop_lines=[{"road": "1", "s": 48.0, "lanes": [-1]}])
    # rear = centre - 2.25 m: centre stops at 50.2 -> rear 47.95 < 48: not crossed
    stop_before = drive(ramp(0, 50.0) + [50.2] * 5, signals=lambda i: {"L": "red"})
    cross = drive(ramp(0, 50.5), signals=lambda i: {"L": "red"})
    assert lb.evaluate(stop_before, meta).infractions["red_light"] == ()
    assert len(lb.evaluate(cross, meta).infractions["red_light"]) == 1
    # another lane the stop line does not govern
    other = straight_meta(100, lights=[{"id": "L", "road": "1", "s": 50.0}],
                          stop_lines=[{"road": "1", "s": 48.0, "lanes": [-2]}])
    assert lb.evaluate(cross, other).infractions["red_light"] == ()


def _stop_trace(stop_at: float, min_speed: float):
    """Approach a stop line at s=50, slow to min_speed with the centre at stop_at, then go on."""
    xs = ramp(0, stop_at) + [stop_at] * 4 + ramp(stop_at, 70)[1:]
    n1 = len(ramp(0, stop_at))
    speeds = [10.0] * n1 + [min_speed] * 4 + [10.0] * (len(xs) - n1 - 4)
    return drive(xs, speeds)


@pytest.mark.parametrize("front_gap,speed,infraction", [
    (3.9, 0.05, False),   # stopped 3.9 m before the line
    (4.1, 0.05, True),    # stopped, but 4.1 m before: outside the 4 m zone
    (1.0, 0.10, True),    # 0.1 m/s is not below 0.1 m/s
    (1.0, 0.09, False),
])
def test_stop_sign_boundaries(front_gap, speed, infraction):
    meta = straight_meta(100, signs=[{"id": "stop", "road": "1", "s": 52.0, "t": -3.0}],
                         stop_lines=[{"road": "1", "s": 50.0, "lanes": [-1]}])
    centre = 50.0 - front_gap - 4.5 / 2
    r = lb.evaluate(_stop_trace(centre, speed), meta)
    assert (len(r.infractions["stop_infraction"]) == 1) is infraction
    if infraction:
        assert r.score_penalty == pytest.approx(0.8)


def test_stop_sign_for_the_other_direction_is_ignored():
    meta = straight_meta(100, signs=[{"id": "stop", "road": "1", "s": 50.0, "t": 3.0}])
    assert lb.evaluate(drive(ramp(0, 70)), meta).infractions["stop_infraction"] == ()


@pytest.mark.parametrize("offset,deviated", [(29.9, False), (30.0, True)])
def test_route_deviation_at_30m_ends_route(offset, deviated):
    meta = straight_meta(100)
    tr = drive(ramp(0, 40.5))
    tr.states += [type(s)(time=s.time + 10, frame=s.frame + 1000,
                          actors=(ego(40.5, 1.0, y=offset, lane=None),)) for s in tr.states[:1]]
    tr.states += [type(s)(time=11 + i * 0.05, frame=2000 + i, actors=(ego(x, 10.0),)) for i, x in enumerate(ramp(41, 60.5))
                  for s in tr.states[:1]]
    r = lb.evaluate(tr, meta)
    assert bool(r.infractions["route_dev"]) is deviated
    assert r.score_route == pytest.approx(40.0 if deviated else 60.0)


def test_blocked_after_180s_and_min_speed():
    meta = straight_meta(100)
    tick = 1.0
    xs = [10.0] * 182
    r = lb.evaluate(drive(xs, [0.0] * 182, tick=tick), meta)
    assert len(r.infractions["vehicle_blocked"]) == 1 and r.status.startswith("Failed - Agent got blocked")
    r2 = lb.evaluate(drive([10.0] * 180, [0.0] * 180, tick=tick), meta)
    assert r2.infractions["vehicle_blocked"] == ()


def test_min_speed_checkpoint_factor():
    meta = straight_meta(100)
    xs = ramp(0, 100)
    bg = {i: [actor("b", x, 3.5, role="background", speed=20.0)] for i, x in enumerate(xs)}  # in the next lane
    r = lb.evaluate(drive(xs, [10.0] * len(xs), extra=bg), meta)  # ego 10 m/s vs background 20 m/s: 50 % at each of 4 checkpoints
    assert len(r.infractions["min_speed_infractions"]) == 4
    assert r.score_penalty == pytest.approx((0.7 + 0.3 * 0.5) ** 4, abs=1e-6)
    b2d = lb.evaluate(drive(xs, extra=bg), meta, min_speed_penalty=False)
    assert b2d.score_penalty == 1.0
    # the leaderboard counts every background vehicle, oncoming too; roadtest's own min speed does not
    oncoming = {i: [actor("b", x, 3.5, role="background", speed=20.0, h=math.pi)] for i, x in enumerate(xs)}
    tr = drive(xs, [10.0] * len(xs), extra=oncoming)
    assert len(lb.evaluate(tr, meta).infractions["min_speed_infractions"]) == 4
    assert corrected.evaluate(tr, meta, lb.evaluate(tr, meta))["min_speed"] == []


def test_outside_route_lanes_factor_is_share_of_travelled_route():
    meta = straight_meta(200)
    xs = ramp(0, 100)
    tr = drive(xs)
    states = []
    for st in tr.states:
        e = st.ego
        if 20 <= e.x < 45:
            e = type(e)(**{**e.__dict__, "lane": type(e.lane)("1", 1, e.x, 1.0)})
        states.append(type(st)(time=st.time, frame=st.frame, actors=(e,), signals={}, events=()))
    tr.states = states
    r = lb.evaluate(tr, meta)
    (v,) = r.infractions["outside_route_lanes"]
    assert v.worst == pytest.approx(25.0, abs=1.5)
    assert r.score_penalty == pytest.approx(1 - v.worst / 100)
    assert v.description.split(" ")[8] == str(round(v.data["meters"], 3))


def test_suite_aggregation_counts_missing_routes_as_zero():
    recs = [{"scores": {"score_composed": 80.0, "score_route": 100.0, "score_penalty": 0.8},
             "infractions": {"stop_infraction": ["x"]}, "meta": {"route_length": 500.0}}]
    agg = lb.aggregate_suite(recs, total_routes=2)
    assert agg["scores_mean"]["score_composed"] == pytest.approx(40.0)
    assert agg["infractions_per_km"]["stop_infraction"] == pytest.approx(2.0)
    # statistics_manager.py sums the deviation over recorded routes only: sqrt((80 - 40)^2 / (2 - 1))
    assert agg["scores_std_dev"]["score_composed"] == pytest.approx(40.0)


@pytest.mark.parametrize("lane,counted", [(-2, False), (None, True), (1, True)])
def test_outside_route_lanes_counts_off_road_and_wrong_way_only(lane, counted):
    from roadtest.sim.api import LanePos

    tr = drive(ramp(0, 100))
    for i, st in enumerate(tr.states):
        e = st.ego
        if 20 <= e.x < 45:
            new = LanePos("1", lane, e.x, 0.0) if lane is not None else None
            tr.states[i] = type(st)(time=st.time, frame=st.frame, actors=(type(e)(**{**e.__dict__, "lane": new}),))
    r = lb.evaluate(tr, straight_meta(200))
    assert bool(r.infractions["outside_route_lanes"]) is counted


def test_red_light_at_the_very_end_of_a_road_is_still_caught():
    from roadtest.sim.api import LanePos

    meta = straight_meta(100, lights=[{"id": "L", "signal_id": "7", "road": "1", "s": 50.0}])
    tr = drive(ramp(0, 60), signals=lambda i: {"7": "red"})
    for i, st in enumerate(tr.states):
        e = st.ego
        if e.x > 50.0:  # road 1 ends at the stop line; the ego's centre is on road 2 before its rear crosses
            tr.states[i] = type(st)(time=st.time, frame=st.frame, signals=st.signals,
                                    actors=(type(e)(**{**e.__dict__, "lane": LanePos("2", -1, e.x - 50.0, -1.75)}),))
    (v,) = lb.evaluate(tr, meta).infractions["red_light"]
    assert tr.states[int(round(v.start / 0.05))].ego.x == pytest.approx(52.5)  # first tick with rear past 50 m


@pytest.mark.parametrize("ev_end_x,infraction", [(30.0, True), (45.0, False)])
def test_yield_to_emergency_vehicle(ev_end_x, infraction):
    xs = ramp(0, 40, 0.25)  # ego at 40 m at the end
    n = len(xs)
    ev = {i: [actor("amb", x0, 0.0, kind="emergency", speed=12.0, siren=True)]
          for i, x0 in enumerate([-20.0 + (ev_end_x + 20.0) * i / (n - 1) for i in range(n)])}
    r = lb.evaluate(drive(xs, extra=ev), straight_meta(100))
    assert bool(r.infractions["yield_emergency_vehicle_infractions"]) is infraction
    if infraction:
        assert r.score_penalty == pytest.approx(0.7)


@pytest.mark.parametrize("seconds,timed_out", [(305, False), (310, True)])
def test_route_timeout_grows_with_progress(seconds, timed_out):
    # 300 s plus 1/(0.1 * 13.9 m/s) s per metre passed: ~10 m passed -> about 307 s
    xs = [min(10.5, 0.5 * i) for i in range(seconds + 1)]
    r = lb.evaluate(drive(xs, [0.5] * len(xs), tick=1.0), straight_meta(100))
    assert bool(r.infractions["route_timeout"]) is timed_out


def _min_speed_events(speed: float, extra_at, meta=None, bg_offset: float = 3.5) -> int:
    """Min-speed events of an ego at `speed` beside 20 m/s background traffic, with extra_at(x) added each tick."""
    xs = ramp(0, 100)
    extra = {i: [actor("b", x, bg_offset, role="background", speed=20.0)] + extra_at(x) for i, x in enumerate(xs)}
    tr, meta = drive(xs, [speed] * len(xs), extra=extra), meta or straight_meta(100)
    return len(corrected.evaluate(tr, meta, lb.evaluate(tr, meta))["min_speed"])


@pytest.mark.parametrize("gap, excused", [(3.0 * 5.0 + 10.0 - 0.2, True), (3.0 * 5.0 + 10.0 + 0.2, False)])
def test_min_speed_excused_behind_a_lead_within_the_safe_gap(gap, excused):
    # lead rear at 3 s x 5 m/s + 10 m beyond the ego's front (car and lead 4.5 m long): the boundary of the safe gap
    lead = lambda x: [actor("truck", x + 2.25 + gap + 2.25, 0.0, kind="truck", speed=5.0, length=4.5)]
    assert _min_speed_events(5.0, lead) == (0 if excused else 4)
    assert _min_speed_events(5.0, lambda x: []) == 4  # without the lead the slow ego is charged
    xs = ramp(0, 100)
    extra = {i: [actor("b", x, 3.5, role="background", speed=20.0)] + lead(x) for i, x in enumerate(xs)}
    tr = drive(xs, [5.0] * len(xs), extra=extra)
    own = corrected.evaluate(tr, straight_meta(100), lb.evaluate(tr, straight_meta(100)))
    assert own["efficiency"] == pytest.approx(25.0)  # efficiency excuses nothing


@pytest.mark.parametrize("speed, excused", [(13.9 - 1.0 + 0.05, True), (13.9 - 1.0 - 0.05, False)])
def test_min_speed_excused_at_the_limit_in_force(speed, excused):
    # road limit 13.9 m/s; faster (speeding) traffic does not make driving at the limit too slow
    assert _min_speed_events(speed, lambda x: []) == (0 if excused else 4)


def test_min_speed_caps_from_signs_zones_and_fog():
    from roadtest.metrics.min_speed import speed_cap
    from roadtest.sim.api import Environment, WorldState
    from metrics_synth import ego

    meta = straight_meta(100, signs=[{"id": "speed_limit", "road": "1", "s": 40.0, "value": 30.0, "unit": "km/h"}],
                         zones=[{"kind": "school_zone", "road": "1", "s_start": 70.0, "s_end": 90.0, "speed_limit": 5.0}])
    meta["rules"] = [{"id": "fog_speed_limit", "params": {"visibility_threshold": 50.0, "fog_speed": 4.0}}]
    clear = WorldState(time=0.0, frame=0, actors=())
    fog = WorldState(time=0.0, frame=0, actors=(), environment=Environment(fog_visual_range=50.0))
    assert speed_cap(clear, ego(39.0, 0.0), meta) == pytest.approx(13.9)
    assert speed_cap(clear, ego(41.0, 0.0), meta) == pytest.approx(30 / 3.6)
    assert speed_cap(clear, ego(80.0, 0.0), meta) == pytest.approx(5.0)
    assert speed_cap(fog, ego(10.0, 0.0), meta) == pytest.approx(4.0)


def test_min_speed_ignores_traffic_far_from_the_ego():
    assert _min_speed_events(5.0, lambda x: [], bg_offset=3.5) == 4
    assert _min_speed_events(5.0, lambda x: [], bg_offset=61.0) == 0
