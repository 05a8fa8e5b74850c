"""Adding a rule whose signals exist is one YAML file: the record of docs/extending.md, in a folder named by
$ROADTEST_RULES, is composed into a scene, monitored, ablated and examined with no other edit."""

from __future__ import annotations

import re

import pytest
import yaml

from roadtest.errors import ScenarioError


def _docs_record(repo_root) -> str:
    """The YAML block of docs/extending.md's "Add a rule" section, as a reader would copy it."""
    text = (repo_root / "docs" / "extending.md").read_text()
    section = text.split("## Add a rule", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)


@pytest.fixture
def one_file(repo_root, tmp_path, monkeypatch):
    """The docs' record as the only file of an extra catalogue folder."""
    folder = tmp_path / "my_rules"
    folder.mkdir()
    record = _docs_record(repo_root)
    rid = yaml.safe_load(record)["id"]
    (folder / f"{rid}.yaml").write_text(record)
    monkeypatch.setenv("ROADTEST_RULES", str(folder))
    return rid


def test_the_record_joins_the_catalogue_and_nothing_else_changes(one_file):
    from roadtest.agents.ablation import ABLATIONS
    from roadtest.rules.catalogue_model import catalogue_dir, load_catalogue

    cat = load_catalogue()
    shipped = load_catalogue(catalogue_dir())
    assert set(cat) - set(shipped) == {one_file}
    assert ABLATIONS[one_file] == "the 40 km/h cap in town"
    assert cat[one_file].params_for("DE")["max_speed"] == pytest.approx(40 / 3.6)


def test_composed_monitored_ablated_and_examined(one_file, tmp_path):
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.compose import compose_scenario, render_yaml
    from roadtest.dsl.suite import iter_target
    from roadtest.exam.questions import action_question, compliant
    from roadtest.runner.coverage import run_variant

    scenario = compose_scenario([one_file], country="DE")
    assert scenario["road"]["speed_limit"] == 50  # the record's context asks for an urban road (50 km/h there)
    path = tmp_path / "scene.yaml"
    path.write_text(render_yaml(scenario))
    (variant,) = [v for _src, result in iter_target(path) for v in result]
    bundle = load_bundle(write_bundle(variant, tmp_path / "bundles"))
    (rule,) = [r for r in bundle.meta["rules"] if r["id"] == one_file]
    assert rule["params"]["max_speed"] == pytest.approx(40 / 3.6)  # meta.json carries the SI value

    row = run_variant(str(bundle.root), tick=0.05, lane_follower=False)
    assert row["expert"]["verdicts"][one_file] == "satisfied"  # the expert caps its speed at the record's max_speed
    assert row["ignoring"][one_file]["verdicts"][one_file] == "violated"  # ...and, ignoring it, drives at 50 km/h

    q = action_question("q", [rule], None, {}, "DE", "right", {"limit": 50 / 3.6}, "L1", {})
    right = [o for o in q.options if compliant(o, set())]
    assert [o.text for o in right] == ["Keep to at most 40 km/h in town."]
    assert len(q.options) == 4 and all(o.breaks == (one_file,) for o in q.options if o not in right)


def test_its_l1_scene_comes_from_the_record(one_file, repo_root):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("make_suites_with_extra_rule", repo_root / "scripts" / "make_suites.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        rows = [r for r in mod._l1() if r[0] == [one_file]]
    finally:
        del sys.modules[spec.name]
    assert rows == [([one_file], ["DE"], {}, {"expect": {"timeout": 70}})]


def test_a_second_record_with_a_taken_id_names_both_files(one_file, tmp_path, monkeypatch):
    from roadtest.rules.catalogue_model import catalogue_dir, load_catalogue

    clash = tmp_path / "clash"
    clash.mkdir()
    (clash / "red_light.yaml").write_text((catalogue_dir() / "red_light.yaml").read_text())
    monkeypatch.setenv("ROADTEST_RULES", str(clash))
    with pytest.raises(ScenarioError, match="already defined in .*catalogue/red_light.yaml"):
        load_catalogue()


def test_an_exam_phrase_naming_an_unknown_value_is_refused_with_its_line(one_file, tmp_path, monkeypatch):
    from roadtest.rules.catalogue_model import load_rule_file

    bad = tmp_path / "bad" / f"{one_file}.yaml"
    bad.parent.mkdir()
    bad.write_text(_docs_record_text(tmp_path, one_file).replace("{max_speed|kmh}", "{max_sped|kmh}"))
    with pytest.raises(ScenarioError) as e:
        load_rule_file(bad)
    (p,) = e.value.problems
    assert "max_sped" in p.message and p.line > 1


def _docs_record_text(tmp_path, rid: str) -> str:
    return (tmp_path / "my_rules" / f"{rid}.yaml").read_text()


def test_every_signal_has_one_registered_function_and_an_unknown_one_is_refused():
    from roadtest.rules import signals

    assert set(signals._PRODUCERS) == set(signals.VOCABULARY)
    with pytest.raises(ValueError, match="not in VOCABULARY"):
        signals.signal("no_such_signal")
