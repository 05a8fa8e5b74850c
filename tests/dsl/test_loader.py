"""Bad scenario input is reported as file:line:col: field: what was expected, all problems at once."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from roadtest.dsl.loader import load_scenario_file, load_variants
from roadtest.errors import ScenarioError

GOOD = """\
name: t
country: CN
environment: {weather: clear, time: "12:00"}
road:
  kind: straight
  length: 300
  lanes: {forward: 2, backward: 1}
  speed_limit: 60
  signs:
    - {id: speed_limit, s: 30, value: 60}
ego: {lane: 1, s: 10, speed: 40, route: {distance: 200}}
actors:
  - {id: car, kind: vehicle, place: {lane: 2, s: 80}, speed: 30}
rules: [speed_limit]
expect: {timeout: 60}
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def problems(path: Path) -> list:
    with pytest.raises(ScenarioError) as e:
        load_variants(path)
    return e.value.problems


def only(path: Path):
    found = problems(path)
    assert len(found) == 1, [str(p) for p in found]
    return found[0]


def test_good_file_loads_with_si_units(tmp_path):
    scn = load_scenario_file(write(tmp_path, GOOD))
    assert scn.ego.speed == pytest.approx(40 / 3.6)
    assert scn.road.speed_limit == pytest.approx(60 / 3.6)
    assert scn.actors[0].place.lane == 2


def test_malformed_yaml_reports_parser_position(tmp_path):
    p = only(write(tmp_path, GOOD.replace("  length: 300", "  length: [300")))
    assert p.file.endswith("s.yaml") and p.line in (6, 7) and p.col > 0
    assert "malformed YAML" in p.message


def test_unknown_key_suggests_nearest(tmp_path):
    p = only(write(tmp_path, GOOD.replace("{weather: clear", "{wether: clear")))
    assert (p.line, p.col, p.field) == (3, 15, "environment.wether")
    assert "did you mean 'weather'" in p.message


def test_wrong_type(tmp_path):
    p = only(write(tmp_path, GOOD.replace("length: 300", "length: long")))
    assert (p.line, p.col, p.field) == (6, 11, "road.length")
    assert "number" in p.message and "'long'" in p.message


def test_negative_speed(tmp_path):
    p = only(write(tmp_path, GOOD.replace("speed: 40", "speed: -40")))
    assert (p.line, p.field) == (11, "ego.speed")
    assert p.col == GOOD.splitlines()[10].index("speed: 40") + len("speed: ") + 1
    assert "greater than or equal to 0" in p.message


def test_lane_the_road_does_not_have(tmp_path):
    p = only(write(tmp_path, GOOD.replace("place: {lane: 2", "place: {lane: 3")))
    assert (p.line, p.field) == (13, "actors.0.place.lane")
    assert "lane 3 does not exist" in p.message and "1..2" in p.message


def test_placement_beyond_road_end(tmp_path):
    p = only(write(tmp_path, GOOD.replace("s: 80}", "s: 380}")))
    assert (p.line, p.field) == (13, "actors.0.place.s")
    assert "beyond the road's end" in p.message


def test_overlapping_actors(tmp_path):
    text = GOOD.replace("place: {lane: 2, s: 80}", "place: {lane: 1, s: 12}")
    p = only(write(tmp_path, text))
    assert (p.line, p.field) == (13, "actors.0.place")
    assert "overlaps 'ego'" in p.message


def test_relative_overlap_detected(tmp_path):
    text = GOOD.replace("place: {lane: 2, s: 80}", "place: {ahead_of: ego, distance: 2}")
    p = only(write(tmp_path, text))
    assert p.field == "actors.0.place" and "overlaps" in p.message


def test_unknown_sign_id(tmp_path):
    p = only(write(tmp_path, GOOD.replace("{id: speed_limit, s: 30", "{id: speed_limt, s: 30")))
    assert (p.line, p.col, p.field) == (10, 12, "road.signs.0.id")
    assert "did you mean 'speed_limit'" in p.message


def test_unknown_rule_id(tmp_path):
    from roadtest.dsl.schema import known_rule_ids

    if known_rule_ids() is None:
        pytest.skip("no rule catalogue in this checkout (roadtest/rules/catalogue/ empty)")
    p = only(write(tmp_path, GOOD.replace("rules: [speed_limit]", "rules: [speed_limt]")))
    assert (p.line, p.col, p.field) == (14, 9, "rules.0")
    assert "unknown rule id 'speed_limt'" in p.message


def test_sweep_over_missing_path(tmp_path):
    p = only(write(tmp_path, GOOD + "sweep:\n  ego.sped: [10, 20]\n"))
    assert (p.line, p.col, p.field) == (17, 3, "sweep.ego.sped")
    assert "does not exist" in p.message and "'speed'" in p.message


def test_bad_value_in_sweep_points_at_the_sweep_item(tmp_path):
    p = only(write(tmp_path, GOOD + "sweep:\n  environment.weather: [clear, fogg]\n"))
    assert (p.line, p.field) == (17, "environment.weather")
    assert p.col == len("  environment.weather: [clear, ") + 1


def test_all_problems_at_once(tmp_path):
    text = GOOD.replace("{weather: clear", "{wether: clear").replace("length: 300", "length: long").replace("speed: 40", "speed: -1")
    found = problems(write(tmp_path, text))
    assert {p.field for p in found} == {"environment.wether", "road.length", "ego.speed"}


def test_missing_required_key(tmp_path):
    p = only(write(tmp_path, GOOD.replace("ego: {lane: 1, s: 10, speed: 40, route: {distance: 200}}\n", "")))
    assert p.field == "ego" and "missing" in p.message


def test_time_like_value_stays_a_time(tmp_path):
    scn = load_scenario_file(write(tmp_path, GOOD.replace('time: "12:00"', "time: 06:10")))
    assert scn.environment.time_of_day == "06:10"
    assert scn.environment.sun_elevation == pytest.approx(0.0457, abs=1e-3)


def test_duplicate_key(tmp_path):
    p = only(write(tmp_path, GOOD.replace("  length: 300\n", "  length: 300\n  length: 200\n")))
    assert (p.line, p.field) == (7, "road.length") and "duplicate" in p.message


def test_sweep_expansion_ids_and_seeds(tmp_path):
    text = GOOD.replace("expect", "traffic: {seed: 7}\nexpect") + "sweep:\n  ego.speed: [20, 30]\n  actors.car.speed: [10, 15, 25]\n"
    vs = load_variants(write(tmp_path, text))
    assert len(vs) == 6
    assert len({v.id for v in vs}) == 6 and len({v.seed for v in vs}) == 6
    assert all(set(v.id) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") for v in vs)
    first = vs[0]
    assert first.sweep == {"ego.speed": 20, "actors.car.speed": 10}
    assert first.scenario.ego.speed == pytest.approx(20 / 3.6)
    assert first.scenario.actors[0].speed == pytest.approx(10 / 3.6)
    assert first.scenario.traffic.seed == first.seed and first.scenario.sweep == {}
    assert vs[-1].scenario.actors[0].speed == pytest.approx(25 / 3.6)


def test_rule_params_checked_against_catalogue(tmp_path):
    from roadtest.dsl.schema import known_rule_ids

    if known_rule_ids() is None:
        pytest.skip("no rule catalogue in this checkout (roadtest/rules/catalogue/ empty)")
    text = GOOD.replace("rules: [speed_limit]", "rules:\n  - {id: speed_limit, params: {tolerence: 1}}")
    p = only(write(tmp_path, text))
    assert (p.line, p.field) == (15, "rules.0.params.tolerence")
    assert "did you mean 'tolerance'" in p.message


def test_unknown_behaviour_action_points_at_action(tmp_path):
    text = GOOD.replace("speed: 30}", "speed: 30, behaviours: [{action: fly}]}")
    p = only(write(tmp_path, text))
    assert (p.line, p.field) == (13, "actors.0.behaviours.0.action")
    assert p.col == GOOD.splitlines()[12].index("speed: 30}") + len("speed: 30, behaviours: [{action: ") + 1
    assert "unknown action 'fly'" in p.message and "'change_lane'" in p.message


def test_sweep_size_is_bounded(tmp_path):
    text = GOOD + "sweep:\n  ego.speed: [" + ", ".join(map(str, range(40))) + "]\n  actors.car.speed: [" + ", ".join(map(str, range(30))) + "]\n"
    p = only(write(tmp_path, text))
    assert (p.line, p.field) == (16, "sweep") and "1200 variants" in p.message


def test_infinite_values_rejected(tmp_path):
    p = only(write(tmp_path, GOOD.replace("s: 80}", "s: .inf}")))
    assert p.field == "actors.0.place.s" and "finite" in p.message


def test_sweep_over_rule_params_of_a_rule_id_shorthand(tmp_path):
    vs = load_variants(write(tmp_path, GOOD + "sweep:\n  rules.0.params.tolerance: [0.5, 1.0]\n"))
    assert [(v.scenario.rules[0].id, v.scenario.rules[0].params) for v in vs] == [
        ("speed_limit", {"tolerance": 0.5}), ("speed_limit", {"tolerance": 1.0})]
