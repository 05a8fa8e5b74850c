"""The privileged objects sensor on the stand-in straight road: frames, route distances, limits, lights."""

from __future__ import annotations

import math

import pytest

from roadtest.sim.api import ActorState, Environment, WorldState
from roadtest.sim.objects_sensor import objects_view
from roadtest.sim.route_path import RoutePath
from agents_world import W, FakeStraightNetwork, straight_meta


def _state(ego_h=0.0, others=(), signals=None, env=Environment()):
    ego = ActorState(id="hero", role="ego", kind="car", x=50.0, y=-W / 2, z=0, h=ego_h, speed=8.0)
    return WorldState(time=1.0, frame=20, actors=(ego, *others), signals=signals or {}, environment=env)


def test_route_path_projection_signed_and_past_the_ends():
    r = RoutePath([[0, 0], [10, 0], [10, 10]])
    assert r.project(5, 1)[:2] == pytest.approx((5.0, 1.0))
    assert r.project(-3, 1)[:2] == pytest.approx((-3.0, 1.0))
    assert r.project(12, 5)[:2] == pytest.approx((15.0, -2.0))
    assert r.point_at(15) == pytest.approx((10.0, 5.0, math.pi / 2))


def test_actors_in_ego_frame_and_on_route():
    truck = ActorState(id="t", role="scenario", kind="truck", x=80.0, y=-W / 2, z=0, h=0.0, speed=5.0, vx=5.0)
    ev = ActorState(id="ev", role="scenario", kind="emergency", x=25.0, y=-W / 2, z=0, h=0.0, speed=15.0, vx=15.0, siren=True)
    far = ActorState(id="far", role="background", kind="car", x=400.0, y=0, z=0, h=0.0, speed=0.0)
    view = objects_view(_state(others=(truck, ev, far)), FakeStraightNetwork(), straight_meta(), "hero")
    ids = [a["id"] for a in view["actors"]]
    assert ids == ["ev", "t"]  # sorted by distance, the far one left out
    t = view["actors"][1]
    assert t["x"] == pytest.approx(30.0) and t["y"] == pytest.approx(0.0) and t["route_s"] == pytest.approx(30.0)
    assert view["actors"][0]["route_s"] == pytest.approx(-25.0) and view["actors"][0]["siren"] is True
    # a rotated ego sees the same truck to its right
    view2 = objects_view(_state(ego_h=math.pi / 2, others=(truck,)), FakeStraightNetwork(), straight_meta(), "hero")
    assert view2["actors"][0]["x"] == pytest.approx(0.0, abs=1e-9) and view2["actors"][0]["y"] == pytest.approx(-30.0)
    assert view["ego"]["route_s"] == pytest.approx(40.0) and view["ego"]["lane"] == -1


def test_speed_limit_from_scene_signs_and_zones():
    meta = straight_meta(speed_limit=20.0,
                         signs=[{"id": "speed_limit", "road": "1", "s": 30.0, "value": 50, "unit": "km/h"},
                                {"id": "speed_limit", "road": "1", "s": 90.0, "value": 30, "unit": "km/h"}],
                         zones=[{"kind": "school_zone", "road": "1", "s_start": 45.0, "s_end": 70.0, "speed_limit": 25 / 3.6},
                                {"kind": "work_zone", "road": "1", "s_start": 150.0, "s_end": 170.0, "speed_limit": 10.0}])
    view = objects_view(_state(), FakeStraightNetwork(), meta, "hero")
    assert view["speed_limit"] == pytest.approx(25 / 3.6)  # inside the school zone, below the 50 km/h sign passed
    assert [x for p in view["speed_limits_ahead"] for x in p] == pytest.approx([40.0, 30 / 3.6, 100.0, 10.0])
    assert [z["inside"] for z in view["zones"]] == [True, False]


def test_lights_stop_lines_and_lane_marks():
    meta = straight_meta(stop_lines=[{"road": "1", "s": 95.0, "lanes": [-1]}, {"road": "1", "s": 60.0, "lanes": [1]},
                                     {"road": "1", "s": 150.0, "lanes": [-1]}],
                         lights=[{"id": "L", "road": "1", "s": 100.0}],
                         signs=[{"id": "stop", "road": "1", "s": 150.0}])
    view = objects_view(_state(signals={"L": "red"}), FakeStraightNetwork(center_mark="solid"), meta, "hero")
    assert view["lights"][0]["state"] == "red" and view["lights"][0]["stop_distance"] == pytest.approx(45.0)
    lines = [(sl["distance"], sl["stop_sign"]) for sl in view["stop_lines"]]
    assert lines == [(pytest.approx(45.0), False), (pytest.approx(100.0), True)]  # the lane 1 line is not ours
    lane = view["lane"]
    assert lane["left"]["crossing_allowed"] is False and lane["width"] == W
    assert lane["centerline"][0] == pytest.approx([0.0, 0.0], abs=1e-6)


def test_without_map_or_meta_still_reports_actors_and_environment():
    ped = ActorState(id="p", role="scenario", kind="pedestrian", x=55.0, y=0.0, z=0, h=0.0, speed=1.0)
    view = objects_view(_state(others=(ped,), env=Environment(fog_visual_range=40.0)), None, {}, "hero")
    assert view["actors"][0]["x"] == pytest.approx(5.0) and view["actors"][0]["route_s"] is None
    assert view["environment"]["fog_visual_range"] == 40.0 and view["lane"] is None and view["speed_limit"] is None


def test_foreign_xosc_uses_the_maps_signals():
    from roadtest.sim.road.api import Signal

    class SignalledRoad(FakeStraightNetwork):
        def signals_for(self, road, lane, s, ahead=100.0):
            light = Signal("7", "1", 90.0, -4.0, "DE", "1000001", "", None, None, "+", True, "L", ())
            limit = Signal("8", "1", 70.0, -4.0, "DE", "274", "", 30.0, "km/h", "+", False, "V", ())
            return [(sig, sig.s - s) for sig in (limit, light) if 0.0 <= sig.s - s <= ahead]

    view = objects_view(_state(signals={"7": "red"}), SignalledRoad(), {}, "hero")
    assert view["lights"] == [{"id": "7", "state": "red", "distance": 40.0, "stop_distance": 40.0, "road": "1", "s": 90.0}]
    assert view["signs"][0]["speed_limit"] == pytest.approx(30 / 3.6)
    assert view["speed_limits_ahead"] == [[20.0, pytest.approx(30 / 3.6)]]


def _naive_project(pts, x, y):
    """Reference: (s, distance) of the nearest point over every segment by plain Python (ends not extended)."""
    best = None
    s0 = 0.0
    for (ax, ay), (bx, by) in zip(pts[:-1], pts[1:]):
        L = math.hypot(bx - ax, by - ay)
        u = min(max(((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / L, 0.0), L)
        fx, fy = ax + (bx - ax) * u / L, ay + (by - ay) * u / L
        d = math.hypot(x - fx, y - fy)
        if best is None or d < best[0] - 1e-9:
            best = (d, s0 + u)
        s0 += L
    return best[1], best[0]


def test_vectorised_route_queries_agree_with_each_other_and_a_naive_reference():
    import numpy as np

    rng = np.random.default_rng(7)
    for _ in range(30):
        pts = np.cumsum(rng.normal(size=(int(rng.integers(3, 40)), 2)) * 5.0, axis=0).tolist()
        r = RoutePath(pts)
        xs = (rng.normal(size=6) * 10 + r.pts[len(r.pts) // 2, 0]).tolist()
        ys = (rng.normal(size=6) * 10 + r.pts[len(r.pts) // 2, 1]).tolist()
        many = r.project_many(xs, ys)
        for x, y, m in zip(xs, ys, many):
            one = r.project(x, y)
            assert m == one  # bit for bit: the batch must not change any trace
            s, dist = _naive_project(r.pts.tolist(), x, y)
            if 0.0 < one[0] < r.length:  # the naive reference does not extend past the ends
                px, py, _ = r.point_at(one[0])
                assert one[0] == pytest.approx(s, abs=1e-6) and math.hypot(x - px, y - py) == pytest.approx(dist, abs=1e-6)
        ss = rng.uniform(-10.0, r.length + 10.0, 12)
        assert r.points_at(ss).tolist() == [list(r.point_at(float(s))[:2]) for s in ss]
        assert r.project_many(xs, ys, 5.0, 30.0) == [r.project(x, y, 5.0, 30.0) for x, y in zip(xs, ys)]


def test_ego_at_rest_reuses_its_lane_info_without_sharing_it():
    from roadtest.sim.objects_sensor import ObjectsSensor

    class CountingRoad(FakeStraightNetwork):
        calls = 0

        def locate(self, *a, **k):
            CountingRoad.calls += 1
            return super().locate(*a, **k)

    net, meta = CountingRoad(), straight_meta()
    sensor = ObjectsSensor(net, meta)
    first = sensor(_state(), "hero")
    first["lane"]["centerline"][0][0] = 99.0
    first["lane"]["left"]["mark"] = "edited"
    again = sensor(_state(), "hero")
    assert CountingRoad.calls == 1  # same pose: located once
    assert again["lane"]["centerline"][0] == pytest.approx([0.0, 0.0], abs=1e-6) and again["lane"]["left"]["mark"] != "edited"
    assert again == objects_view(_state(), FakeStraightNetwork(), straight_meta(), "hero")
    moved = ActorState(id="hero", role="ego", kind="car", x=60.0, y=-W / 2, z=0, h=0.0, speed=8.0)
    view = sensor(WorldState(time=2.0, frame=40, actors=(moved,), signals={}, environment=Environment()), "hero")
    assert CountingRoad.calls == 2 and view["ego"]["route_s"] == pytest.approx(50.0)


def test_a_passed_limit_stays_in_force_until_the_next_sign_however_far_behind():
    ego = ActorState(id="hero", role="ego", kind="car", x=200.0, y=-W / 2, z=0, h=0.0, speed=8.0)
    state = WorldState(time=1.0, frame=20, actors=(ego,))
    sign = {"id": "speed_limit", "road": "1", "s": 30.0, "value": 50, "unit": "km/h"}
    view = objects_view(state, FakeStraightNetwork(), straight_meta(speed_limit=20.0, signs=[sign]), "hero")
    assert view["signs"] == []  # out of the sensor's range behind...
    assert view["speed_limit"] == pytest.approx(50 / 3.6)  # ...but still the limit in force
    end = {"id": "end_speed_limit", "road": "1", "s": 120.0}
    view = objects_view(state, FakeStraightNetwork(), straight_meta(speed_limit=20.0, signs=[sign, end]), "hero")
    assert view["speed_limit"] == pytest.approx(20.0)  # the end sign restores the road's limit


def test_route_junctions_of_the_roundabout_scene(repo_root, tmp_path):
    """roundabout_snow: the route runs road 1 from s 15 to its end at 120, then a connecting road of the ring."""
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target
    from roadtest.sim.road import load_map

    [(_source, [scenario])] = list(iter_target(repo_root / "scenarios" / "roundabout_snow.yaml"))
    bundle = load_bundle(write_bundle(scenario, tmp_path))
    net = load_map(bundle.xodr)
    ego = ActorState(id="hero", role="ego", kind="car", x=-1.625, y=-139.77, z=0.0, h=math.pi / 2, speed=8.3)
    view = objects_view(WorldState(time=0.0, frame=0, actors=[ego]), net, bundle.meta, "hero")
    [j] = view["junctions"]
    assert j["distance_start"] == pytest.approx(120.0 - 15.0 - view["ego"]["route_s"], abs=0.5)
    assert j["distance_end"] > j["distance_start"] + 20.0 and not j["inside"]
    straight = objects_view(_state(), FakeStraightNetwork(), straight_meta(), "hero")
    assert straight["junctions"] == []


def test_the_view_carries_the_limit_in_force_as_the_monitors_compute_it():
    """Road 60 km/h, a 40 km/h sign passed at s = 30, a 90 km/h sign (above the road's limit) passed at s = 40, dense
    fog (visual range 40 m) with CN's fog_speed_limit (30 km/h below 50 m): posted min(60, 90) = 60 km/h (the lowest
    of road and last sign, as the speed_limit monitor reads it), in force 30 km/h set by the fog rule."""
    fog = [{"id": "fog_speed_limit", "params": {"fog_speed": 30 / 3.6, "visibility_threshold": 50.0}}]
    signs = [{"id": "speed_limit", "road": "1", "s": 30.0, "value": 40, "unit": "km/h"},
             {"id": "speed_limit", "road": "1", "s": 40.0, "value": 90, "unit": "km/h"}]
    meta = straight_meta(speed_limit=60 / 3.6, signs=signs, rules=fog)
    view = objects_view(_state(env=Environment(fog_visual_range=40.0)), FakeStraightNetwork(), meta, "hero")
    assert view["speed_limit"] == pytest.approx(60 / 3.6) and view["base_speed_limit"] == pytest.approx(60 / 3.6)
    assert view["limit_in_force"] == {"value": pytest.approx(30 / 3.6), "source": "fog_speed_limit"}
    clear = objects_view(_state(env=Environment(fog_visual_range=1e5)), FakeStraightNetwork(), meta, "hero")
    assert clear["limit_in_force"] == {"value": pytest.approx(60 / 3.6), "source": "road"}
