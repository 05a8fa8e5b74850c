"""The scenario model: SI conversion, weather presets, time of day, placements, JSON schema."""

from __future__ import annotations

import json
import math

import pytest
from pydantic import ValidationError

from roadtest.dsl.model import (WEATHER_PRESETS, Environment, Scenario, driving_side, lane_order,
                                resolve_placements, sun_elevation)
from roadtest.dsl.schema import schema_json

BASE = {"name": "m", "road": {"kind": "straight", "length": 300, "lanes": {"forward": 2, "backward": 1}},
        "ego": {"lane": 1, "s": 20, "speed": 72, "route": {"distance": 100}}}


def scenario(**extra) -> Scenario:
    return Scenario.model_validate({**BASE, **extra})


def test_units_converted_to_si():
    s = scenario(road={**BASE["road"], "speed_limit": 90, "kind": "curve", "angle": 45})
    assert s.ego.speed == pytest.approx(20.0)
    assert s.road.speed_limit == pytest.approx(25.0)
    assert s.road.angle == pytest.approx(math.pi / 4)


@pytest.mark.parametrize("preset", sorted(WEATHER_PRESETS))
def test_weather_preset_fills_values_and_explicit_values_win(preset):
    env = Environment.model_validate({"weather": preset})
    assert env.fog_visual_range == WEATHER_PRESETS[preset]["fog_visual_range"]
    assert env.precipitation == WEATHER_PRESETS[preset]["precipitation"]
    env = Environment.model_validate({"weather": preset, "friction": 0.33})
    assert env.friction == 0.33


def test_fog_presets_reduce_visibility_in_order():
    r = {p: Environment.model_validate({"weather": p}).fog_visual_range for p in ("clear", "fog_light", "fog_dense")}
    assert r["clear"] > r["fog_light"] > r["fog_dense"]


def test_time_of_day_and_sun():
    assert sun_elevation("12:00") == pytest.approx(math.radians(60))
    assert sun_elevation("23:00") < 0 < sun_elevation("08:00")
    night = Environment.model_validate({"time": "night"})
    assert night.time_of_day == "23:00" and night.sun_elevation < 0
    with pytest.raises(ValidationError):
        Environment.model_validate({"time": "24:10"})


def test_unknown_keys_forbidden_everywhere():
    with pytest.raises(ValidationError):
        scenario(ego={**BASE["ego"], "colour": "red"})
    with pytest.raises(ValidationError):
        scenario(road={**BASE["road"], "lanes": {"forward": 1, "widht": 3}})


def test_behaviour_discriminated_by_action():
    a = {"id": "c", "kind": "vehicle", "place": {"lane": 2, "s": 50}, "speed": 36,
         "behaviours": [{"action": "change_speed", "to": 18, "trigger": {"ttc": 3}},
                        {"action": "change_lane", "direction": "left"}]}
    s = scenario(actors=[a])
    b0, b1 = s.actors[0].behaviours
    assert b0.to == pytest.approx(5.0) and b0.trigger.ttc == 3
    assert b1.lanes == 1 and b1.trigger is None
    with pytest.raises(ValidationError):
        scenario(actors=[{**a, "behaviours": [{"action": "fly"}]}])
    with pytest.raises(ValidationError):
        scenario(actors=[{**a, "behaviours": [{"action": "stop", "trigger": {"time": 1, "ttc": 2}}]}])


def test_place_shapes():
    ok = {"id": "c", "kind": "vehicle", "place": {"behind": "ego", "distance": 30}}
    assert scenario(actors=[ok]).actors[0].place.reference == ("behind", "ego")
    for bad in ({"lane": 1}, {"lane": 1, "side": "right", "s": 3}, {"ahead_of": "ego", "s": 3},
                {"ahead_of": "ego", "behind": "ego"}):
        with pytest.raises(ValidationError):
            scenario(actors=[{**ok, "place": bad}])


def test_lane_order_depends_on_driving_side():
    s = scenario()
    assert lane_order(s.road.lanes, "right") == [-1, 1, 2]
    assert lane_order(s.road.lanes, "left") == [2, 1, -1]
    assert driving_side("JP") == "left" and driving_side("DE") == "right"


def test_resolve_relative_placements_chain():
    actors = [{"id": "a", "kind": "vehicle", "place": {"ahead_of": "ego", "distance": 30}},
              {"id": "b", "kind": "truck", "place": {"right_of": "a", "distance": 5}},
              {"id": "c", "kind": "vehicle", "place": {"behind": "b", "distance": 20}}]
    r = resolve_placements(scenario(actors=actors))
    assert r["a"] == (1, None, 50.0)
    assert r["b"] == (2, None, 55.0)
    assert r["c"] == (2, None, 35.0)
    jp = resolve_placements(scenario(country="JP", actors=actors))
    assert jp["b"][0] == -1  # right of forward lane 1 is the oncoming lane in left-hand traffic


def test_relative_placement_seen_from_the_reference_driver():
    actors = [{"id": "o", "kind": "vehicle", "place": {"lane": -1, "s": 200}},
              {"id": "p", "kind": "vehicle", "place": {"ahead_of": "o", "distance": 30}},
              {"id": "q", "kind": "vehicle", "place": {"left_of": "o", "distance": 10}},
              {"id": "r", "kind": "vehicle", "place": {"left_of": "ego"}}]
    r = resolve_placements(scenario(actors=actors))
    assert r["p"] == (-1, None, 170.0)  # ahead of an oncoming car is towards smaller s
    assert r["q"] == (1, None, 190.0)   # its left, in right-hand traffic, is across the centre line
    assert r["r"] == (-1, None, 20.0)
    jp = resolve_placements(scenario(country="JP", actors=actors))
    assert jp["r"] == (2, None, 20.0)   # left-hand traffic: the ego's left is the outer lane


def test_rules_accept_ids_and_params():
    s = scenario(rules=["speed_limit", {"id": "safe_distance", "params": {"min_gap": 2.0}}])
    assert [r.id for r in s.rules] == ["speed_limit", "safe_distance"]
    assert s.rules[1].params == {"min_gap": 2.0}


def test_json_schema_documents_units():
    schema = json.loads(schema_json())
    ego = schema["$defs"]["Ego"]["properties"]
    assert "km/h" in ego["speed"]["description"]
    assert "degrees" in schema["$defs"]["Road"]["properties"]["angle"]["description"]
    assert schema["additionalProperties"] is False
    assert "fog_dense" in json.dumps(schema["$defs"]["Environment"])
    assert {"type": "string", "description": "Rule id."} in schema["properties"]["rules"]["items"]["anyOf"]


def test_defaults_are_converted_like_written_values():
    """A default stated in YAML units (degrees, km/h) must reach the model in SI units too."""
    import math

    from roadtest.dsl.model import CrossRoad, Road

    assert Road(kind="curve").angle == pytest.approx(math.radians(90))
    assert Road(kind="curve", angle=90).angle == Road(kind="curve").angle
    assert CrossRoad(action="cross_road").speed == pytest.approx(5 / 3.6)
