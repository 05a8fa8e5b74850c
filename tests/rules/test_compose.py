"""Composition: coexisting contexts merge into a loadable scenario; exclusive ones fail naming both rules."""

from __future__ import annotations

import pytest
import yaml

from roadtest.cli import main
from roadtest.dsl.compose import compose_scenario, merge_contexts
from roadtest.rules.catalogue_model import load_catalogue
from roadtest.errors import UserError

CAT = load_catalogue()


def test_incompatible_pair_names_both_rules_and_the_clash():
    with pytest.raises(UserError) as e:
        compose_scenario(["merge_give_way", "no_overtaking_solid_line"], "CN", CAT)
    msg = str(e.value)
    assert "merge_give_way" in msg and "no_overtaking_solid_line" in msg and "lane_change" in msg
    with pytest.raises(UserError, match="stop_sign needs junction = stop_sign, red_light needs junction = traffic_light"):
        compose_scenario(["stop_sign", "red_light"], "DE", CAT)


def test_rule_outside_its_jurisdictions_is_refused():
    with pytest.raises(UserError, match="fog_expressway has no jurisdiction DE"):
        compose_scenario(["fog_expressway"], "DE", CAT)


def test_scene_requirements_are_merged():
    sc = compose_scenario(["fog_speed_limit", "no_overtaking_solid_line", "safe_distance"], "CN", CAT)
    assert sc["environment"]["weather"] == "fog_dense"
    assert sc["road"]["markings"]["center"] == "solid"  # the colour is each swept country's
    assert [a["kind"] for a in sc["actors"]] == ["truck"]
    assert sc["level"] == "L4" and sc["rules"] == ["fog_speed_limit", "no_overtaking_solid_line", "safe_distance"]
    de = compose_scenario(["no_overtaking_solid_line"], "DE", CAT)
    assert de["road"]["markings"]["center"] == "solid"  # white in DE: tests/dsl/test_centre_colour.py
    stop = compose_scenario(["stop_sign"], "JP", CAT)
    assert stop["road"]["kind"] == "t_junction" and stop["ego"]["route"] == {"exit": "left"}
    assert {s["id"] for s in stop["road"]["signs"]} == {"stop"} and stop["road"]["stop_lines"]


def test_conflict_resolved_by_priority_and_recorded():
    comp = merge_contexts([CAT["red_light"], CAT["officer_signal"]], "CN")
    assert comp.governing == "officer_signal"
    assert comp.conflicts[0]["yields"] == "red_light"
    assert compose_scenario(["red_light", "officer_signal"], "CN", CAT)["level"] == "L5"


def test_compose_is_deterministic():
    a = compose_scenario(["school_zone_speed", "yield_pedestrian_crosswalk"], "US", CAT)
    b = compose_scenario(["school_zone_speed", "yield_pedestrian_crosswalk"], "US", CAT)
    assert a == b


@pytest.mark.parametrize("rules,country", [
    (["stop_sign"], "DE"), (["red_light", "officer_signal"], "CN"), (["speed_limit", "safe_distance"], "US"),
    (["yield_emergency_vehicle", "no_overtaking_solid_line"], "JP"),
    (["school_zone_speed", "yield_pedestrian_crosswalk"], "US"), (["no_lane_change_tunnel"], "CN"),
])
def test_cli_writes_a_scenario_the_loader_accepts(tmp_path, capsys, rules, country):
    from roadtest.dsl.loader import load_scenario_file

    out = tmp_path / "s.yaml"
    assert main(["compose", *rules, "--country", country, "-o", str(out)]) == 0
    sc = load_scenario_file(out)
    assert [r.id for r in sc.rules] == rules and sc.country == country
    assert yaml.safe_load(out.read_text())["rules"] == rules
    assert out.read_text().startswith("# roadtest compose")


def test_cli_incompatible_exits_2(tmp_path, capsys):
    assert main(["compose", "stop_sign", "red_light", "-o", str(tmp_path / "x.yaml")]) == 2
    assert "mutually exclusive" in capsys.readouterr().err
    assert not (tmp_path / "x.yaml").exists()


def test_a_reacting_actor_above_the_posted_limit_is_retimed_to_it():
    """L1 merge_give_way's main-lane car (70 km/h, s = 82, the ego at s = 110) on a road posted 60: set at 60 and
    started at 110 + (82 - 110) x 60/70 = 86, so it passes the ego's start 28/70 h = 1.44 s in, as before; a
    relative placement's distance scales alike (35 x 60/70 = 30); an ambulance on call keeps its 80."""
    from roadtest.dsl.compose import fit_reacting_speeds

    sc = {"road": {"speed_limit": 60}, "ego": {"s": 110},
          "actors": [{"id": "car", "kind": "vehicle", "place": {"lane": 2, "s": 82}, "speed": 70, "reacts": True,
                      "behaviours": [{"action": "change_speed", "speed": 75}]},
                     {"id": "behind", "kind": "vehicle", "place": {"behind": "ego", "distance": 35}, "speed": 70,
                      "reacts": True},
                     {"id": "amb", "kind": "emergency", "siren": True, "place": {"lane": 1, "s": 20}, "speed": 80,
                      "reacts": True},
                     {"id": "story", "kind": "vehicle", "place": {"lane": 1, "s": 20}, "speed": 80}]}
    fit_reacting_speeds(sc)
    car, behind, amb, story = sc["actors"]
    assert (car["speed"], car["place"]["s"], car["behaviours"][0]["speed"]) == (60, 86.0, 60)
    assert (behind["speed"], behind["place"]["distance"]) == (60, 30.0)
    assert (amb["speed"], amb["place"]["s"]) == (80, 20)
    assert (story["speed"], story["place"]["s"]) == (80, 20)  # not reacting: a storyboard actor the scene drives
