"""Every example scenario loads, and together they cover the road kinds, weather, actors and rules."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from roadtest.dsl.loader import load_variants
from roadtest.dsl.model import WEATHER_PRESETS, ActorKind, Road
from roadtest.signs.catalogue import load_signs, sign_code
from roadtest.dsl.suite import expand_target

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
EXAMPLES = sorted(SCENARIOS.glob("*.yaml"))
REQUIRED_RULES = {"speed_limit", "stop_sign", "red_light", "no_overtaking_solid_line", "yield_emergency_vehicle",
                  "yield_pedestrian_crosswalk", "fog_speed_limit", "school_zone_speed", "no_lane_change_tunnel",
                  "safe_distance"}


@pytest.fixture(scope="module")
def variants():
    return expand_target(SCENARIOS)


def test_at_least_sixteen_examples():
    assert len(EXAMPLES) >= 16


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_loads_and_is_short(path):
    for v in load_variants(path):
        s = v.scenario
        assert s.expect.timeout <= 60
        if s.ego.route.distance is not None:
            assert 150 <= s.ego.route.distance <= 400


def test_examples_cover_every_road_kind_weather_and_actor(variants):
    scns = [v.scenario for v in variants]
    kinds = set(typing.get_args(Road.model_fields["kind"].annotation))
    assert {s.road.kind for s in scns} == kinds
    assert {s.environment.weather for s in scns} == set(WEATHER_PRESETS)
    assert {a.kind for s in scns for a in s.actors} == set(typing.get_args(ActorKind))
    elevations = [s.environment.sun_elevation for s in scns]
    assert min(elevations) < 0 < max(elevations)  # night and day


def test_examples_use_the_required_rules(variants):
    used = {r.id for v in variants for r in v.scenario.rules}
    assert REQUIRED_RULES <= used and len(used) >= 10


def test_variant_ids_unique_across_examples(variants):
    ids = [v.id for v in variants]
    assert len(ids) == len(set(ids))


def test_smoke_suite(variants):
    smoke = expand_target(SCENARIOS / "suites" / "smoke.yaml")
    assert 4 <= len(smoke) <= 5
    assert {v.id for v in smoke} <= {v.id for v in variants}
    assert {"stop_sign", "red_light", "yield_pedestrian_crosswalk", "fog_speed_limit", "speed_limit"} <= {
        r.id for v in smoke for r in v.scenario.rules}


def test_sign_catalogue():
    signs = load_signs()
    assert len(signs) >= 20
    for sid, entry in signs.items():
        assert set(entry["codes"]) >= {"CN", "DE", "US", "JP"}, sid
        assert entry["value"] in ("required", "optional", "none"), sid
    assert sign_code("speed_limit", "DE")["type"] == "274"
    assert sign_code("stop", "US") == {"country": "US", "type": "R1-1", "subtype": "-1"}
    assert sign_code("speed_limit", "JP")["unit"] == "km/h"


def test_examples_validate_against_the_json_schema():
    """What an editor checks (roadtest schema) accepts every example and rejects a typo."""
    import json

    import jsonschema

    import yaml

    from roadtest.dsl.schema import schema_json

    validator = jsonschema.Draft202012Validator(json.loads(schema_json()))
    for path in EXAMPLES:
        data = yaml.safe_load(path.read_text())
        assert not list(validator.iter_errors(data)), path.name
    data["ego"]["sped"] = 3
    assert list(validator.iter_errors(data))
