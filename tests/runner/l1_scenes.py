"""The committed L1 scene files, read as YAML or written as one country's bundle, for the per-rule scene tests."""

from __future__ import annotations

import yaml


def l1_scene(repo_root, rule: str) -> dict:
    """scenarios/composed/L1/<rule>.yaml as a dictionary (YAML units)."""
    return yaml.safe_load((repo_root / "scenarios" / "composed" / "L1" / f"{rule}.yaml").read_text())


def l1_bundle(repo_root, tmp_path, rule: str, country: str):
    """The bundle of that scene's `country` variant, written under tmp_path."""
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import iter_target

    for _source, result in iter_target(repo_root / "scenarios" / "composed" / "L1" / f"{rule}.yaml"):
        for variant in result:
            if variant.sweep.get("country") == country:
                return load_bundle(write_bundle(variant, tmp_path))
    raise AssertionError(f"no {country} variant of {rule}")
