"""Background vehicles yield to the scenario's pedestrians on crosswalks, as to their own walkers: on a built
straight road (two lanes, 40 km/h, a 5 m wide zebra at s = 130) a car coming up lane 1 stops before the zebra
while a scenario pedestrian stands on it, and drives through when the pedestrian is on the kerb."""

from __future__ import annotations

import pytest

from roadtest.sim.embedded.traffic import Obstacle, Traffic

from test_junction_traffic import _map

SCENE = """
name: zebra-only
country: CN
level: L1
environment: {weather: clear, time: "12:00"}
road:
  kind: straight
  length: 300
  lanes: {forward: 1, backward: 1, width: 3.5}
  speed_limit: 40
  crosswalks:
    - {s: 130, width: 5}
ego: {lane: 1, s: 10, speed: 0, route: {distance: 250}}
rules: [yield_pedestrian_crosswalk]
expect: {reach_goal: true, timeout: 60}
"""
DT = 0.05


@pytest.fixture(scope="module")
def zebra(tmp_path_factory):
    net = _map(tmp_path_factory.mktemp("zebra"), SCENE)
    (cw,) = [o for o in net.objects if o.type == "crosswalk"]
    return net, cw


def _drive(net, cw, pedestrian_lane: int, seconds: float = 25.0) -> float:
    """Where (s of its centre) one background car started 60 m before the zebra ends up after `seconds`."""
    tr = Traffic(net, {}, seed=0)
    lane = next(ln for ln in (-1, 1) if net.lane_direction(cw.road, ln) == 1)
    car = tr._new_vehicle(cw.road, lane, cw.s - 60.0)
    ped = Obstacle("walker", cw.road, pedestrian_lane, cw.s, 0.0, 0.5, "pedestrian")
    for _ in range(int(seconds / DT)):
        tr.decide((ped,), {}, DT)
        tr.integrate(DT)
    return car.s, car.length


def test_a_car_stops_before_a_zebra_a_scenario_pedestrian_is_on(zebra):
    net, cw = zebra
    on_road = next(ln for ln in net.lane_ids(cw.road, cw.s) if ln and net.lane_type(cw.road, ln, cw.s) == "driving"
                   and net.lane_direction(cw.road, ln) == -1)  # on the far lane: the car's own lane is clear
    s, length = _drive(net, cw, on_road)
    # the zebra is 5 m wide (2.5 m either side of s = 130); the car's stop point is 1 m before it: its front
    # at most at 127.5 - 1 = 126.5 m, so its centre at most 126.5 - 4.5 / 2 (IDM keeps s0 = 2 m more)
    assert s <= cw.s - 2.5 - 1.0 - 0.5 * length + 1e-6
    assert s > cw.s - 2.5 - 1.0 - 0.5 * length - 4.0  # it drove up to the zebra, not stopped far off


def test_a_pedestrian_on_the_kerb_holds_no_car(zebra):
    net, cw = zebra
    kerb = next(ln for ln in net.lane_ids(cw.road, cw.s) if ln and net.lane_type(cw.road, ln, cw.s) == "sidewalk")
    s, _ = _drive(net, cw, kerb)
    assert s > cw.s + 50.0  # 25 s at up to 40 km/h from 70 m before: well past the zebra
