"""Background traffic: IDM, MOBIL across permitted marks only, routing across roads, signals, seeding."""

import math

import pytest

from roadtest.sim.embedded.traffic import IDM, Obstacle, Traffic, idm_accel
from roadtest.sim.road.api import Signal

from embedded_fakes import FakeStraightRoads

DT = 0.05


def run(tr, seconds, others=(), signals=None):
    for _ in range(int(round(seconds / DT))):
        tr.decide(others, signals or {}, DT)
        tr.integrate(DT)


def test_idm_accelerates_on_a_free_road_and_brakes_hard_close_behind_a_stopped_leader():
    p = IDM()
    assert idm_accel(0.0, 20.0, None, 0.0, p) == pytest.approx(p.a)
    assert idm_accel(20.0, 20.0, None, 0.0, p) == pytest.approx(0.0)
    assert idm_accel(15.0, 20.0, 10.0, 15.0, p) < -p.b_safe
    assert idm_accel(15.0, 20.0, 200.0, 0.0, p) > 0


def test_density_sets_the_count_and_the_seed_sets_the_placement():
    net = FakeStraightRoads(length=1000.0, nr=3)
    a = Traffic(net, {"density": 6.667}, seed=1)
    b = Traffic(net, {"density": 6.667}, seed=1)
    c = Traffic(net, {"density": 6.667}, seed=2)
    assert len(a.vehicles) == 20
    assert [(v.lane, v.s, v.v0) for v in a.vehicles] == [(v.lane, v.s, v.v0) for v in b.vehicles]
    assert [(v.lane, v.s) for v in a.vehicles] != [(v.lane, v.s) for v in c.vehicles]
    assert len(Traffic(net, {"vehicles": 7}, seed=1).vehicles) == 7


def test_no_spawn_near_scenario_actors():
    net = FakeStraightRoads(length=400.0, nr=1)
    tr = Traffic(net, {"vehicles": 100}, seed=0, avoid=[(200.0, -1.75)])
    assert tr.vehicles and all(abs(v.x - 200.0) > 25.0 for v in tr.vehicles)


def test_dense_traffic_runs_40_s_without_overlaps_and_is_deterministic():
    net = FakeStraightRoads(n_roads=3, length=400.0, nr=3)
    runs = []
    for _ in range(2):
        tr = Traffic(net, {"density": 15}, seed=4)
        worst = math.inf
        for _ in range(int(40 / DT)):
            tr.decide((), {}, DT)
            tr.integrate(DT)
            by_lane = {}
            for v in tr.vehicles:
                if v.lc_progress >= 1.0:
                    by_lane.setdefault((v.road, v.lane), []).append(v)
            for vs in by_lane.values():
                vs.sort(key=lambda v: v.s)
                for u, w in zip(vs, vs[1:]):
                    worst = min(worst, w.s - u.s - 0.5 * (u.length + w.length))
        runs.append([(v.id, v.road, v.lane, v.s, v.speed) for v in tr.vehicles])
        assert worst > 0.5
    assert runs[0] == runs[1]
    assert runs[0]  # some still on the network
    roads = {r[1] for r in runs[0]}
    assert roads & {"2", "3"}  # vehicles crossed from road to road along the lane graph


def test_mobil_overtakes_a_slow_obstacle_over_a_broken_line_but_not_over_a_solid_one():
    for between, expect_change in (("broken", True), ("solid", False)):
        net = FakeStraightRoads(length=1000.0, nr=2, between=between)
        tr = Traffic(net, {"vehicles": 1}, seed=0)
        v = tr.vehicles[0]
        v.road, v.lane, v.s, v.speed, v.v0 = "1", -1, 100.0, 15.0, 20.0
        slow = [Obstacle("truck", "1", -1, 160.0, 5.0, 8.0)]
        lanes = set()
        for i in range(int(10 / DT)):
            slow = [Obstacle("truck", "1", -1, 160.0 + 5.0 * DT * i, 5.0, 8.0)]
            tr.decide(slow, {}, DT)
            tr.integrate(DT)
            lanes.add(v.lane)
        assert (-2 in lanes) is expect_change
        if not expect_change:
            assert v.s < slow[0].s - 4.0  # stayed behind and did not drive into it


def test_vehicles_stop_at_a_red_signal_and_go_on_green():
    sig = Signal("7", "1", 300.0, -3.0, "DE", "1000001", "-1", None, None, "+", True, "light", ())
    net = FakeStraightRoads(length=600.0, nr=1, signals={"7": sig})
    tr = Traffic(net, {"vehicles": 1}, seed=0)
    v = tr.vehicles[0]
    v.s, v.speed = 150.0, 12.0
    run(tr, 40, signals={"7": "red"})
    assert v.speed < 0.1 and 280.0 < v.s < 300.0
    run(tr, 10, signals={"7": "green"})
    assert v.s > 310.0


def test_pedestrians_walk_on_the_sidewalk():
    net = FakeStraightRoads(length=200.0, nr=1, sidewalk=True)
    tr = Traffic(net, {"pedestrians": 3}, seed=0)
    assert len(tr.walkers) == 3 and all(w.lane == -2 for w in tr.walkers)
    before = [w.s for w in tr.walkers]
    run(tr, 2.0)
    assert all(0.5 < abs(w.s - b) < 4.0 for w, b in zip(tr.walkers, before))
    assert all(a.kind == "pedestrian" and a.lane.lane == -2 for a in tr.actor_states())


def test_vehicles_leaving_at_a_dead_end_are_replaced_out_of_sight_of_the_ego():
    net = FakeStraightRoads(length=600.0, nr=2)
    ego = (300.0, -1.75)
    tr = Traffic(net, {"density": 10}, seed=3, avoid=[ego])
    n = len(tr.vehicles)
    ids = {v.id for v in tr.vehicles}
    for _ in range(int(30 / DT)):
        tr.decide((), {}, DT)
        tr.integrate(DT)
        tr.refill([ego])
        for v in tr.vehicles:
            if v.id not in ids:
                ids.add(v.id)
                assert abs(v.x - ego[0]) >= 80.0 - 3.0  # appeared out of sight (slot jitter 3 m)
    assert len(tr.vehicles) == n and len(ids) > n


def test_background_actor_states_are_complete_actor_states():
    import dataclasses

    from roadtest.sim.api import ActorState

    tr = Traffic(FakeStraightRoads(length=300.0, nr=2, sidewalk=True), {"vehicles": 3, "pedestrians": 1}, seed=0)
    for a in tr.actor_states():
        assert a == ActorState(**dataclasses.asdict(a) | {"lane": a.lane})
        assert a.lane.road == "1" and a.role == "background"


def test_no_spawn_on_the_path_a_storyboard_actor_will_drive():
    """A storyboard actor does not react: background vehicles never start where it will be within a few seconds."""
    from roadtest.sim.embedded.traffic import CORRIDOR_TIME, SPAWN_CLEAR, _in_corridor

    fast = (0.0, 0.0, 0.0, 25.0)  # at the origin, heading +x, 25 m/s
    reach = SPAWN_CLEAR + 25.0 * CORRIDOR_TIME
    assert _in_corridor(reach - 1.0, 0.0, fast) and _in_corridor(50.0, 3.5, fast)  # ahead, in its lane or the next
    assert not _in_corridor(reach + 1.0, 0.0, fast)  # beyond where it gets in that time
    assert not _in_corridor(-10.0, 0.0, fast)  # behind it
    assert not _in_corridor(50.0, 8.0, fast)  # two lanes over


def test_leaders_by_lane_order_match_a_search_over_every_actor():
    """decide() finds leaders from each lane's sorted order; a brute-force search gives the same accelerations."""
    net = FakeStraightRoads(length=1500.0, nr=3)
    tr = Traffic(net, {"density": 12}, seed=5)
    for k in range(int(20 / DT)):
        others = [Obstacle("ego", "1", -2, 100.0 + 12.0 * DT * k, 12.0, 4.5)]
        tr.decide(others, {}, DT)
        if k % 20 == 19:
            checked = 0
            for v in tr.vehicles:
                here = [(u.s, u.speed, u.length) for u in tr.vehicles if u is not v and u.road == v.road and (
                    u.lane == v.lane or (u.lc_from == v.lane and u.lc_progress < 0.5))]
                here += [(o.s, o.speed, o.length) for o in others if (o.road, o.lane) == (v.road, v.lane)]
                ahead = [h for h in here if (h[0] - v.s) * v.dir >= 0]
                if not ahead:
                    continue
                s, speed, length = min(ahead, key=lambda h: abs(h[0] - v.s))
                gap = abs(s - v.s) - 0.5 * (v.length + length)
                assert v.accel == pytest.approx(idm_accel(v.speed, v.v0, gap, v.speed - speed, tr.p), abs=1e-9)
                checked += 1
            assert checked >= 10
        tr.integrate(DT)
    assert any(v.lc_from is not None or v.lane != -1 for v in tr.vehicles)
