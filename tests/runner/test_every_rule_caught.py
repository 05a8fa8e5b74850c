"""CI's subset of the per-rule check: for every rule of the catalogue, one L1 variant that lists it (the country
rotated over the rule's jurisdictions, so the set spans every country): the full expert keeps it and the expert
ignoring it breaks it. The issue's definition of a tested rule, so the expectation is the catalogue itself.
`scripts/check_suites.py` runs every variant of every level (about 20 s here for the 29 rules)."""

from __future__ import annotations

import pytest


def _catalogue():
    from roadtest.rules.catalogue_model import load_catalogue

    return load_catalogue()


def _l1_variant(repo_root, rule: str, index: int):
    """The L1 variants listing `rule`, the `index`-th one (mod their number) returned as (variant, country)."""
    from roadtest.dsl.suite import iter_target

    found = []
    for _src, result in iter_target(repo_root / "scenarios" / "suites" / "L1.yaml"):
        for variant in result:
            if rule in [r.id for r in variant.scenario.rules]:
                found.append(variant)
    assert found, f"no L1 variant lists {rule}"
    found.sort(key=lambda v: v.sweep.get("country", ""))
    return found[index % len(found)]


@pytest.mark.parametrize("index,rule", list(enumerate(sorted(_catalogue()))))
def test_rule_feasible_and_caught_when_ignored(repo_root, tmp_path, index, rule):
    from roadtest.agents.ablation import ABLATIONS
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.runner.coverage import run_variant

    assert rule in ABLATIONS, f"the expert keeps no constraint for {rule} to drop"
    variant = _l1_variant(repo_root, rule, index)
    bundle = load_bundle(write_bundle(variant, tmp_path))
    row = run_variant(str(bundle.root), tick=0.05, lane_follower=False)
    assert row["feasible"], (variant.id, row["expert"])
    assert row["expert"]["verdicts"][rule] in ("satisfied", "excused"), (variant.id, row["expert"])
    assert row["ignoring"][rule]["verdicts"][rule] == "violated", (variant.id, row["ignoring"][rule])
