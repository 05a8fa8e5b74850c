"""LanePosition headings follow the lane's driving direction, also on rule="LHT" roads."""

from __future__ import annotations

import math

import pytest

from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.loader import load_variants
from roadtest.sim.xosc.engine import ScenarioEngine

SCENARIO = """\
name: lht-straight
country: {country}
level: L1
environment: {{weather: clear, time: day}}
road: {{kind: straight, length: 200, lanes: {{forward: 1, backward: 1, width: 3.5}}, speed_limit: 50}}
ego: {{lane: 1, s: 20, speed: 30, route: {{distance: 100}}}}
rules: [speed_limit]
expect: {{reach_goal: true, timeout: 30}}
"""


@pytest.mark.parametrize("country", ["JP", "DE"])
def test_ego_starts_facing_its_route(tmp_path, country):
    src = tmp_path / "s.yaml"
    src.write_text(SCENARIO.format(country=country))
    bundle = write_bundle(load_variants(src)[0], tmp_path / "out")
    eng = ScenarioEngine(bundle / "scenario.xosc", seed=0, tick=0.05)
    eng.init()
    ego = next(e for e in eng.entities.values() if e.role == "ego")
    lane = ego.lane
    road_h = eng.network.road_to_world(lane.road, lane.s, 0.0).h
    along = eng.network.lane_direction(lane.road, lane.lane)
    expected = road_h if along > 0 else road_h + math.pi
    assert math.cos(ego.h - expected) > 0.99, (country, lane, ego.h, expected)
    x0 = ego.x, ego.y
    for k in range(1, 21):
        eng.step(k * 0.05)
    moved = (ego.x - x0[0]) * math.cos(road_h) + (ego.y - x0[1]) * math.sin(road_h)
    assert moved * along > 5.0  # drives with its lane's traffic, not against it
