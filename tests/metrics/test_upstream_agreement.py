"""Each departure the scoring once had from upstream, as a case whose expected figures are derived by hand from
the upstream code. Sources read (line numbers of these snapshots):
  SM  carla-simulator/leaderboard@leaderboard-2.0 (a87a341) leaderboard/utils/statistics_manager.py
  RS  carla-simulator/leaderboard@leaderboard-2.0 leaderboard/scenarios/route_scenario.py
  AC  carla-simulator/scenario_runner@leaderboard-2.0 (d7bcaf0d) srunner/scenariomanager/scenarioatomics/atomic_criteria.py
  B2D Thinklab-SJTU/Bench2Drive@0.0.4 (7ec25d1): tools/merge_route_json.py (MRJ), tools/efficiency_smoothness_benchmark.py
      (ESB), scenario_runner/.../atomic_criteria.py (B2D-AC), leaderboard/leaderboard/utils/statistics_manager.py (B2D-SM)
Route geometry of straight_meta(L): waypoints every 2 m along x, interpolated to points every 1 m (hop_resolution 1.0),
so point k sits at x = k, its forward vector is +x and it counts as passed once the ego's x > k (AC 1586, strict).
"""

from __future__ import annotations

import math

import pytest

from metrics_synth import actor, collision, drive, straight_meta
from roadtest.metrics import bench2drive, corrected, leaderboard as lb
from roadtest.sim.api import ActorState, Event, LanePos, Termination, Trace, WorldState


def ramp(x0: float, x1: float, step: float = 0.5) -> list[float]:
    return [x0 + step * i for i in range(int(round((x1 - x0) / step)) + 1)]


def layout() -> Event:
    """A contact with the map itself: no other actor, which CARLA reports with id 0."""
    return Event(kind="collision", actor="hero", other=None, data={"relative_speed": 5.0, "other_kind": "static"})


def test_penalty_multiplies_per_event_with_5m_5s_deduplication():
    # ego at 10 m/s, 0.5 m per 0.05 s tick, x = tick / 2
    events = {
        10: [collision("a", "car")],         # t 0.5, x 5: counted, 0.6 (SM 22-30, AC 387)
        14: [collision("b", "car")],         # x 7, 2 m from the last counted contact: ignored (AC 379)
        30: [collision("a", "car")],         # x 15, 5 m memory gone, but id "a" kept < 5 s: ignored (AC 342, 375)
        40: [collision("p", "pedestrian")],  # x 20: counted, 0.5
        60: [layout()],                      # x 30: counted, 0.65; id 0 is not remembered (AC 392)
        80: [collision("p", "pedestrian")],  # x 40, t 4.0: "p" still remembered (counted at t 2.0): ignored
        100: [layout()],                     # x 50: the layout again, 20 m on: counted, 0.65
    }
    r = lb.evaluate(drive(ramp(0, 60), [10.0] * 121, events=events, termination=Termination.STOPPED), straight_meta(100))
    assert [v.kind for k in ("collisions_vehicle", "collisions_pedestrian", "collisions_layout")
            for v in r.infractions[k]] == ["collisions_vehicle", "collisions_pedestrian", "collisions_layout",
                                           "collisions_layout"]
    assert r.score_penalty == pytest.approx(0.6 * 0.5 * 0.65 * 0.65)  # SM 371: one factor per event
    assert r.score_route == 59.0  # last point passed: 59 (x = 60 is not > 60)
    assert r.score_composed == pytest.approx(round(59.0 * 0.12675, 6))
    assert r.status == "Failed"  # SM 401-405: RC below 100, no failure message


def test_static_prop_with_an_id_hit_twice_10m_apart_counts_once():
    # AC 392: only id 0 escapes the same-id rule; a cone with an id is remembered for 5 s like any actor
    cone = {10: [collision("cone7", "cone")], 30: [collision("cone7", "cone")]}  # x 5 and x 15, 1 s apart
    r = lb.evaluate(drive(ramp(0, 60), [10.0] * 121, events=cone), straight_meta(100))
    assert len(r.infractions["collisions_layout"]) == 1 and r.score_penalty == pytest.approx(0.65)
    walls = {10: [layout()], 30: [layout()]}
    r = lb.evaluate(drive(ramp(0, 60), [10.0] * 121, events=walls), straight_meta(100))
    assert len(r.infractions["collisions_layout"]) == 2 and r.score_penalty == pytest.approx(0.65 ** 2)


def _off_between(trace: Trace, x0: float, x1: float) -> Trace:
    """The ego has no lane (outside the driving lanes) while x0 <= x < x1."""
    for i, st in enumerate(trace.states):
        e = st.ego
        if x0 <= e.x < x1:
            trace.states[i] = WorldState(time=st.time, frame=st.frame, actors=(ActorState(**{**e.__dict__, "lane": None}),))
    return trace


def test_route_completion_at_last_passed_point_with_an_off_lane_share():
    # ego 0 -> 70.5 m; point k is passed at x = k + 0.5; outside lanes for x in [20, 30): points 20..29 passed off lane
    # AC 1064-1077: each passed point adds 1 m to the total, and to the wrong distance when off: 10 of 70 m
    r = lb.evaluate(_off_between(drive(ramp(0, 70.5)), 20.0, 30.0), straight_meta(100))
    assert r.score_route == 70.0  # AC 1586-1590: share of the last passed point, 70 of 100 m
    (off,) = r.infractions["outside_route_lanes"]
    assert off.description == "Agent went outside its route lanes for about 10.0 meters (14.29% of the completed route)"
    # SM 342: the factor takes the event's unrounded percentage (AC 1090, 1102): 1 - (10/70)
    assert r.score_penalty == round(1 - 10 / 70, 6) == 0.857143
    assert r.score_composed == 60.0  # 70 * 6/7; with the share rounded to 14.29 it would be 59.997


def test_min_speed_checkpoints_drift_and_count_every_background_vehicle():
    # 100 m route, ego 10 m/s (0.5 m/tick) to x = 100.5; one background car 20 m/s for ticks 0..12, 10 m/s after
    n = len(ramp(0, 100.5))  # 202 ticks
    bg = {i: [actor("b", 0.0, 60.0, role="background", speed=20.0 if i <= 12 else 10.0, h=math.pi)] for i in range(n)}
    tr = drive(ramp(0, 100.5), [10.0] * n, extra=bg)
    meta = straight_meta(100)
    # Bench2Drive fork, N = 20 (B2D RS 427): L/N = 5 m; a checkpoint fires when accum[index] - last > 5 (AC 2027),
    # before the tick's sample is added (AC 2033-2051): index 6, 12, ..., 96 (ticks 13, 25, ..., 193) = 16, plus one
    # at the end because 100 % > 95 % was passed (AC 2085). The first window is ticks 0..12: 10 / 20 = 50 %.
    fork = bench2drive.fork_evaluate(tr, meta)
    assert list(fork.min_speed_checkpoints) == [50.0] + [100.0] * 16
    assert len(fork.infractions["min_speed_infractions"]) == 17  # B2D-AC 2066-2071: every checkpoint is an event
    assert fork.score_penalty == 1.0  # B2D-SM 37, 359: 'unused'
    eff = bench2drive.efficiency(fork)  # ESB 268-272: percentages parsed from the messages, mean per route
    assert eff.value == pytest.approx((50.0 + 16 * 100.0) / 17)
    assert bench2drive.success(fork) is True  # MRJ 23: min speed is the one infraction that keeps success
    # Leaderboard 2.0, N = 4 (RS 427): fires at index 26 (tick 53); ticks 0..52: ego 10, background
    # (13 * 20 + 40 * 10) / 53, so round(10 / (660 / 53) * 100, 2) = 80.3; the later checkpoints are 100 (no event)
    up = lb.evaluate(tr, meta)
    assert [v.worst for v in up.infractions["min_speed_infractions"]] == [80.3]
    assert up.score_penalty == pytest.approx(1 - (1 - 0.7) * (1 - 80.3 / 100))  # SM 340
    assert up.status == "Completed" and up.score_composed == pytest.approx(94.09)
    # roadtest's own min speed ignores a background car 60 m away on the other carriageway
    assert corrected.evaluate(tr, meta, up)["min_speed"] == []


def test_stop_5m_short_of_the_goal_is_rc_94_and_failed_and_late_collision_counts():
    xs = ramp(0, 95) + [95.0] * 20
    speeds = [10.0] * len(ramp(0, 95)) + [0.0] * 20
    tr = drive(xs, speeds, events={186: [collision("c", "car")]}, termination=Termination.STOPPED)  # x = 93
    r = lb.evaluate(tr, straight_meta(100))
    # AC 1594: 100 needs > 99 % AND < 10 m; the last point passed is 94 (x = 95 is not > 95)
    assert r.score_route == 94.0 and r.status == "Failed"
    assert len(r.infractions["collisions_vehicle"]) == 1 and r.score_composed == pytest.approx(94.0 * 0.6)
    assert bench2drive.evaluate(tr, straight_meta(100))["success"] is False
    own = corrected.evaluate(tr, straight_meta(100), r)
    assert own["route_completion"] == 95.0 and own["goal_reached"] is False


def test_red_light_stop_and_an_emergency_vehicle_never_passed():
    meta = straight_meta(100, lights=[{"id": "L1", "road": "1", "s": 30.0}],
                         signs=[{"id": "stop", "road": "1", "s": 62.0, "t": -3.0}],
                         stop_lines=[{"road": "1", "s": 30.0, "lanes": [-1]}, {"road": "1", "s": 60.0, "lanes": [-1]}])
    xs = ramp(0, 100.5)
    # a siren ambulance 40 m behind the whole way: never within 30 m, never in front of the ego
    ev = {i: [actor("amb", x - 40.0, 0.0, kind="emergency", speed=10.0, siren=True)] for i, x in enumerate(xs)}
    tr = drive(xs, [10.0] * len(xs), extra=ev, signals=lambda i: {"L1": "red"})
    r = lb.evaluate(tr, meta)
    assert len(r.infractions["red_light"]) == 1 and len(r.infractions["stop_infraction"]) == 1
    # AC 2134-2149: FAILURE while ev_forward . (ego - ev) > 0, one event when the scenario ends in FAILURE
    assert len(r.infractions["yield_emergency_vehicle_infractions"]) == 1
    assert r.score_penalty == pytest.approx(0.7 * 0.8 * 0.7)  # SM 26-29
    assert r.score_route == 100.0 and r.status == "Completed" and r.score_composed == pytest.approx(39.2)


def test_scenario_timeout_fires_after_240s_blocked_by_an_obstacle():
    # a static obstacle on the route at x = 50; the ego stops at 44 m and waits; tick 1 s
    xs = [0.0, 10.0, 20.0, 30.0, 40.0, 44.0] + [44.0] * 250
    speeds = [10.0] * 5 + [0.0] * 251
    obstacle = {i: [actor("crate", 50.0, 0.0, kind="static")] for i in range(len(xs))}
    r = lb.evaluate(drive(xs, speeds, extra=obstacle, tick=1.0), straight_meta(100))
    # ScenarioTimeout(240) (atomic_behaviors.py 4310) expired: ScenarioTimeoutTest emits one event (AC 2187-2191), 0.7
    assert len(r.infractions["scenario_timeouts"]) == 1 and r.score_penalty == pytest.approx(0.7)
    # the blocked test is off while the timeout runs (AC_SwitchActorBlockedTest), so 250 s standing is no block
    assert r.infractions["vehicle_blocked"] == () and r.score_route == 43.0


@pytest.mark.parametrize("last_tick,blocked", [(185, False), (186, True)])
def test_blocked_counts_from_the_last_tick_at_speed(last_tick, blocked):
    # tick 1 s; moving at 10 m/s on ticks 0..5, standing from tick 6. AC 440-470: the clock is the last tick at or
    # above 0.1 m/s (t = 5), and the test fails once GameTime - 5 > 180: first at t = 186
    xs = [10.0 * min(i, 5) for i in range(last_tick + 1)]
    speeds = [10.0 if i <= 5 else 0.0 for i in range(last_tick + 1)]
    r = lb.evaluate(drive(xs, speeds, tick=1.0), straight_meta(100))
    assert bool(r.infractions["vehicle_blocked"]) is blocked
    assert r.status == ("Failed - Agent got blocked" if blocked else "Failed")  # SM 385, 403-405


def test_suite_with_one_of_two_routes_recorded():
    rec = {"scores": {"score_composed": 80.0, "score_route": 100.0, "score_penalty": 0.8},
           "infractions": {"stop_infraction": ["Agent ran a stop"],
                           "outside_route_lanes": ["Agent went outside its route lanes for about 14.0 meters "
                                                   "(2.8% of the completed route)"]},
           "meta": {"route_length": 500.0}}
    agg = lb.aggregate_suite([rec], total_routes=2)
    # SM 435-437: means over the planned routes: 80/2, 100/2, 0.8/2
    assert agg["scores_mean"] == {"score_composed": 40.0, "score_route": 50.0, "score_penalty": 0.4}
    # SM 458-469: deviation summed over recorded routes only, over (2 - 1), rounded to 3
    assert agg["scores_std_dev"] == {"score_composed": 40.0, "score_route": 50.0, "score_penalty": 0.4}
    # SM 472-483: 0.5 km driven (500 m at 100 %): 1 stop / 0.5 = 2.0 per km; off lane is km: 14 m -> 0.014
    assert agg["infractions_per_km"]["stop_infraction"] == 2.0
    assert agg["infractions_per_km"]["outside_route_lanes"] == 0.014


def _frames(n: int, tick: float = 0.05, *, yaw_rate=lambda k: 0.0, ax=lambda k: 0.0, v: float = 1.0) -> Trace:
    """An ego whose backend reports its yaw rate (rad/s) and longitudinal acceleration (m/s^2) per frame k."""
    states, x, y, h = [], 0.0, 0.0, 0.0
    for k in range(n):
        e = ActorState(id="hero", role="ego", kind="car", x=x, y=y, z=0.0, h=h, speed=v, vx=v * math.cos(h),
                       vy=v * math.sin(h), ax=ax(k), yaw_rate=yaw_rate(k), lane=LanePos("1", -1, x, y))
        states.append(WorldState(time=round(k * tick, 6), frame=k, actors=(e,)))
        x, y, h = x + v * math.cos(h) * tick, y + v * math.sin(h) * tick, h + yaw_rate(k) * tick
    return Trace(states=states, tick=tick)


def test_comfort_on_a_yaw_rate_ramp():
    # yaw rate 0.0005 k rad/s over 60 frames (3 chunks of 20, ESB 52-62). Bench2Drive's formulas (ESB 84-106):
    #   yaw_rate = savgol(z, 7, 2); "yaw_acc" = savgol(z, 7, 2) (no deriv), z = get_angular_velocity().z in deg/s.
    # A window-7 order-2 Savitzky-Golay fit returns a linear ramp unchanged, so both equal 0.0005 k * 180/pi deg/s:
    # chunk 0 peaks at k = 19: 0.544 < 0.95; chunk 1 reaches 0.95 at k = 0.95 / 0.02865 = 33.2 < 39: fails; chunk 2 fails.
    tr = _frames(60, yaw_rate=lambda k: 0.0005 * k)
    assert bench2drive.comfort(tr).value == pytest.approx(1 / 3)
    # roadtest: rad/s and a true derivative: rate <= 0.0295 rad/s, yaw acceleration 0.01 rad/s^2: every chunk passes
    assert corrected.comfort(tr).value == 1.0


def test_comfort_on_an_acceleration_step_at_a_chunk_boundary():
    # lon acceleration 0 for frames 0..19, 2 m/s^2 for 20..39. Bench2Drive filters each chunk alone (ESB 57-61):
    # chunk 0 is all 0, chunk 1 all 2.0 < 2.40, both jerks 0: comfort 1.0.
    step = _frames(40, ax=lambda k: 2.0 if k >= 20 else 0.0)
    assert bench2drive.comfort(step).value == 1.0
    # roadtest filters the whole episode: the window-7 order-2 derivative weights are j / 28 (j = -3..3), so at frames
    # 19 and 20 the lon jerk is 2 * (1 + 2 + 3) / 28 / 0.05 = 8.57 m/s^3 > 4.13: both chunks fail
    assert corrected.comfort(step).value == 0.0
    # inside a chunk Bench2Drive does see it, but with delta = 0.1 s (ESB 126-143) the jerk is halved: 4.29 > 4.13
    mid = _frames(40, ax=lambda k: 2.0 if k >= 10 else 0.0)
    (v,) = bench2drive.comfort(mid).violations
    assert v.kind == "lon_jerk" and v.worst + 4.13 == pytest.approx(2 * 6 / 28 / 0.1)


def test_route_completion_does_not_depend_on_the_tick():
    # the same drive to x = 60 m at 20 m/s, sampled at 0.05 s and at 0.2 s (4 m per tick, more than the 2 points
    # RouteCompletionTest looks ahead per frame): the leaderboard's criteria run at its 20 Hz, interpolated
    fine = drive(ramp(0, 60, 1.0), [20.0] * 61, tick=0.05)
    coarse = drive(ramp(0, 60, 4.0), [20.0] * 16, tick=0.2)
    meta = straight_meta(100)
    assert lb.evaluate(fine, meta).score_route == lb.evaluate(coarse, meta).score_route == 59.0
    assert corrected.route_completion(fine, meta)[0] == corrected.route_completion(coarse, meta)[0] == 60.0
    # the simulator's goal event (within its goal radius at any point of the tick's motion) completes roadtest's route
    reached = drive(ramp(0, 98, 2.0), tick=0.2, events={49: [Event("goal_reached", "hero")]})
    assert corrected.route_completion(reached, meta)[:2] == (100.0, True)
