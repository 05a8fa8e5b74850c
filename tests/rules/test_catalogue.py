"""The rule catalogue: records load, are complete, and mistakes are reported with file:line:col."""

from __future__ import annotations

import re

import pytest

from roadtest.cli import main
from roadtest.rules.catalogue_model import PRIORITY_CLASSES, load_catalogue, load_rule_file
from roadtest.rules.cli import check_catalogue
from roadtest.errors import ScenarioError

EXAMPLE_IDS = ["speed_limit", "stop_sign", "red_light", "no_overtaking_solid_line", "yield_emergency_vehicle",
               "yield_pedestrian_crosswalk", "fog_speed_limit", "school_zone_speed", "no_lane_change_tunnel",
               "safe_distance"]


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


def test_catalogue_covers_issue_six(cat):
    assert len(cat) >= 25
    assert set(EXAMPLE_IDS) <= set(cat)
    assert {r.priority_class for r in cat.values()} == set(PRIORITY_CLASSES)
    for r in cat.values():
        assert re.match(r"^When .+, the driver (may|must|must not) ", r.rule_content), r.id
    big3 = [r.id for r in cat.values() if {"CN", "DE", "US"} <= set(r.jurisdictions)]
    assert len(big3) >= 25


def test_china_fog_figures(cat):
    fog = cat["fog_speed_limit"].params_for("CN")
    assert fog["visibility_threshold"] == 50 and abs(fog["fog_speed"] - 30 / 3.6) < 1e-9
    fx = cat["fog_expressway"].params_for("CN")
    assert [fx[k] for k in ("vis1", "vis2", "vis3", "gap1", "gap2")] == [200, 100, 50, 100, 50]
    assert [round(fx[k] * 3.6, 6) for k in ("speed1", "speed2", "speed3")] == [60, 40, 20]
    assert abs(cat["school_zone_speed"].params_for("US")["school_speed"] - 25 * 0.44704) < 1e-9


def test_every_formula_parses_and_names_known_signals(cat):
    assert check_catalogue(cat) == []


def test_mistakes_name_file_line_column_and_field(tmp_path):
    bad = tmp_path / "bad_rule.yaml"
    bad.write_text(
        "id: bad_rule\ntitle: x\nrule_content: \"The driver must drive.\"\nperceptual_type: statik\n"
        "norm_type: forbidden\naction_type: stop\npriority_class: traffic_signs\n"
        "params:\n  t: {value: 1, unit: kmh}\njurisdictions:\n  CN: {source: x}\n"
        "monitor: {formula: \"always(ego_speed <= t)\", signals: [ego_speed], colour: red}\n")
    with pytest.raises(ScenarioError) as e:
        load_rule_file(bad)
    text = str(e.value)
    assert f"{bad}:3:1: rule_content: expected 'When [condition]" in text
    assert f"{bad}:4:1: perceptual_type:" in text
    assert f"{bad}:9:17: params.t.unit: unknown unit 'kmh'" in text
    assert f"{bad}:12:68: monitor.colour: unknown field" in text


def test_id_must_match_file_name(tmp_path, cat):
    src = open(cat["red_light"].file).read()
    (tmp_path / "red_lights.yaml").write_text(src)
    with pytest.raises(ScenarioError, match=r"red_lights.yaml:1:1: id: 'red_light' must match the file name"):
        load_rule_file(tmp_path / "red_lights.yaml")


def test_cli_rules_commands(capsys):
    assert main(["rules", "check"]) == 0
    assert "rules OK" in capsys.readouterr().out
    assert main(["rules", "show", "stop_sign"]) == 0
    out = capsys.readouterr().out
    assert "stop_speed = 0.1 m/s" in out and "DE: StVO" in out
    assert main(["rules", "show", "stop_sgn"]) == 2
    assert "did you mean stop_sign" in capsys.readouterr().err
    assert main(["rules", "list"]) == 0
    assert "yield_emergency_vehicle" in capsys.readouterr().out


def _variant_of(cat, rule_id: str, tmp_path, old: str, new: str):
    src = open(cat[rule_id].file).read()
    assert old in src
    path = tmp_path / f"{rule_id}.yaml"
    path.write_text(src.replace(old, new, 1))
    return path


def test_context_signs_are_scenario_sign_ids(tmp_path, cat):
    from roadtest.signs.catalogue import load_signs

    ids = set(load_signs())
    assert all(set(r.context.signs) <= ids for r in cat.values())
    bad = _variant_of(cat, "give_way_sign", tmp_path, "signs: [yield]", "signs: [give_way]")
    with pytest.raises(ScenarioError, match=r"unknown sign need 'give_way'; expected a scenario sign id"):
        load_rule_file(bad)


def test_closed_loop_false_needs_its_reason(tmp_path, cat):
    assert all(r.closed_loop or r.closed_loop_reason.strip() for r in cat.values())
    assert cat["red_light"].closed_loop is True and cat["officer_signal"].closed_loop is True
    bad = _variant_of(cat, "red_light", tmp_path, "\nmonitor:", "\nclosed_loop: false\nmonitor:")
    with pytest.raises(ScenarioError, match="closed_loop: false needs closed_loop_reason"):
        load_rule_file(bad)
