"""CARLA's Traffic Manager vehicles are given the limit in force (roadtest.limits) as their desired speed, their
seeded share of it, as the built-in simulator's traffic: checked with a stand-in TM (no server needed)."""

from __future__ import annotations

import pytest

from roadtest.limits import SceneLimits
from roadtest.sim.api import ActorState, Environment, LanePos
from roadtest.sim.carla.traffic import Background, apply_desired_speeds, traffic_desired_speeds

KMH = 1 / 3.6


class _Net:
    """A road "1" whose map limit is 72 km/h; lane -1 drives with s, lane 1 against it."""

    def speed_limit(self, road, lane, s):
        return 20.0

    def lane_direction(self, road, lane):
        return 1 if lane < 0 else -1


class _TM:
    def __init__(self):
        self.set = {}

    def set_desired_speed(self, actor, kmh):
        self.set[actor] = kmh


def _car(name, lane, s):
    return ActorState(id=name, role="background", kind="car", x=s, y=0.0, z=0.0, h=0.0, speed=10.0,
                      lane=LanePos("1", lane, s, 0.0))


def test_tm_vehicles_get_their_share_of_the_limit_in_force():
    # road 60 km/h, a 40 km/h sign at s = 100 for traffic with s, fog_speed_limit 30 km/h below 50 m
    meta = {"scene": {"speed_limit": 60 * KMH, "signs": [{"id": "speed_limit", "road": "1", "s": 100.0, "value": 40,
                                                            "direction": "forward"}]},
            "rules": [{"id": "fog_speed_limit", "params": {"fog_speed": 30 * KMH, "visibility_threshold": 50.0}}]}
    limits = SceneLimits.from_meta(meta)
    bg = Background(vehicles=["v0", "v1", "v2"], desires=[1.0, 0.9, 1.2])
    cars = [_car("traffic_0", -1, 50.0), _car("traffic_1", -1, 150.0), _car("traffic_2", 1, 150.0),
            _car("hero", -1, 60.0)]
    clear = traffic_desired_speeds(bg, cars, _Net(), limits, Environment(fog_visual_range=1e5))
    # before the sign: 60; past it with s: 0.9 x 40 = 36; against s the sign does not apply: 1.2 x 60 = 72
    assert clear == {"traffic_0": pytest.approx(60.0), "traffic_1": pytest.approx(36.0), "traffic_2": pytest.approx(72.0)}
    fog = traffic_desired_speeds(bg, cars, _Net(), limits, Environment(fog_visual_range=40.0))
    assert fog == {"traffic_0": pytest.approx(30.0), "traffic_1": pytest.approx(27.0), "traffic_2": pytest.approx(36.0)}
    tm = _TM()
    apply_desired_speeds(tm, bg, fog)
    assert tm.set == {"v0": pytest.approx(30.0), "v1": pytest.approx(27.0), "v2": pytest.approx(36.0)}
