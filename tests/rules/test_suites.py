"""The L1..L5 suites: enough variants, three countries or more, and each level built as scripts/make_suites.py defines it."""

from __future__ import annotations

import importlib.util
from collections import Counter

import pytest

from roadtest.rules.catalogue_model import load_catalogue
from roadtest.dsl.suite import expand_target
from roadtest.rules.evaluate import governing_rule

LEVELS = ["L1", "L2", "L3", "L4", "L5"]
CAT = load_catalogue()


@pytest.fixture(scope="module")
def variants(repo_root):
    return {lv: expand_target(repo_root / "scenarios" / "suites" / f"{lv}.yaml") for lv in LEVELS}


def test_sixty_variants_over_three_countries(variants):
    every = [v for vs in variants.values() for v in vs]
    assert len(every) >= 60
    assert len({v.id for v in every}) == len(every)
    countries = Counter(v.scenario.country for v in every)
    assert {"CN", "DE", "US"} <= set(countries) and min(countries[c] for c in ("CN", "DE", "US")) >= 15


def test_levels_match_their_definition(variants):
    for lv, vs in variants.items():
        for v in vs:
            sc = v.scenario
            rules = [CAT[r.id] for r in sc.rules]
            assert sc.level == lv, v.id
            conflicts = governing_rule([r.id for r in rules], CAT)[1]
            if lv == "L1":
                assert len(rules) == 1
            elif lv == "L2":
                assert len(rules) == 2 and {r.perceptual_type for r in rules} == {"static"}, v.id
            elif lv == "L3":
                assert {r.perceptual_type for r in rules} == {"static", "dynamic"}, v.id
            elif lv == "L4":
                adverse = sc.environment.fog_visual_range <= 200 or sc.environment.sun_elevation < 0 \
                    or sc.environment.precipitation != "none"
                assert len(rules) >= 3 and adverse, v.id
            else:
                assert conflicts, v.id
            assert all(sc.country in r.jurisdictions for r in rules), v.id


def test_generator_reproduces_the_committed_files(repo_root, tmp_path, monkeypatch, variants):
    spec = importlib.util.spec_from_file_location("make_suites", repo_root / "scripts" / "make_suites.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    (tmp_path / "scenarios" / "suites").mkdir(parents=True)
    monkeypatch.setattr(mod, "ROOT", tmp_path)
    counts = mod.build()
    assert counts == {lv: len(vs) for lv, vs in variants.items()}
    for f in (tmp_path / "scenarios").rglob("*.yaml"):
        rel = f.relative_to(tmp_path)
        assert f.read_text() == (repo_root / rel).read_text(), f"{rel} is stale: run scripts/make_suites.py"


@pytest.mark.slow
def test_one_variant_is_feasible_and_sensitive(repo_root, tmp_path):
    """End to end on the smallest L1 variant: the expert keeps the rule, the lane follower breaks it."""
    spec = importlib.util.spec_from_file_location("check_suites", repo_root / "scripts" / "check_suites.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    from roadtest.dsl.convert import convert_command

    convert_command(repo_root / "scenarios" / "composed" / "L1" / "speed_limit.yaml", tmp_path)
    row = mod.run_variant(str(tmp_path / "l1-speed-limit--country-CN"), 0, 0.1)
    assert row["expert"]["verdicts"] == {"speed_limit": "satisfied"}, row
    assert row["lane-follower"]["verdicts"] == {"speed_limit": "violated"}, row
    assert row["feasible"] and row["sensitive"]
