"""Scoring reads the rules from meta.json alone: conversion carries formula, params, priority and context."""

from __future__ import annotations

import json

import pytest

import roadtest.rules.catalogue_model as catalogue_model
from roadtest.cli import main
from roadtest.errors import UserError
from roadtest.rules.evaluate import evaluate_rules
from .synth import const, drive

KMH = 1 / 3.6


@pytest.fixture(scope="module")
def converted(tmp_path_factory, repo_root):
    out = tmp_path_factory.mktemp("bundles")
    assert main(["convert", str(repo_root / "scenarios" / "straight_speed_limit.yaml"), "-o", str(out)]) == 0
    (meta_file,) = out.glob("*/meta.json")
    return json.loads(meta_file.read_text())


def _no_catalogue(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("scoring read the rule catalogue")

    monkeypatch.setattr(catalogue_model, "load_catalogue", refuse)
    monkeypatch.setattr(catalogue_model, "load_rule_file", refuse)


def test_meta_carries_what_the_monitor_needs(converted):
    (rule,) = [r for r in converted["rules"] if r["id"] == "speed_limit"]
    # as written in roadtest/rules/catalogue/speed_limit.yaml: tolerance 2 km/h, class traffic_signs (index 4)
    assert rule["monitor"]["formula"] == "always(ego_speed <= speed_limit + tolerance)"
    assert rule["params"] == {"tolerance": pytest.approx(2 / 3.6)}
    assert (rule["priority"], rule["priority_class"]) == (4, "traffic_signs")
    assert rule["context"]["signs"] == ["speed_limit"]


def test_scoring_reads_no_rule_yaml(converted, monkeypatch):
    _no_catalogue(monkeypatch)
    limit = converted["scene"]["speed_limit"]
    fast, slow = drive(const(limit + 5 * KMH, 40)), drive(const(limit - 5 * KMH, 40))
    m = {**converted, "rules": [r for r in converted["rules"] if r["id"] == "speed_limit"]}
    assert [r.verdict for r in evaluate_rules(fast, m)] == ["violated"]
    assert [r.verdict for r in evaluate_rules(slow, m)] == ["satisfied"]
    # the formula that meta.json carries is the one evaluated, whatever the catalogue says
    m["rules"] = [{**m["rules"][0], "monitor": {**m["rules"][0]["monitor"],
                                                "formula": "always(ego_speed <= tolerance)"}}]
    assert [r.verdict for r in evaluate_rules(slow, m)] == ["violated"]


def test_a_bundle_without_rule_data_is_a_clear_error(converted, monkeypatch):
    _no_catalogue(monkeypatch)
    old = {**converted, "rules": [{"id": "speed_limit", "params": {}, "priority": 4, "priority_class": "traffic_signs"}]}
    with pytest.raises(UserError, match=r"rules\[0\] \(speed_limit\): no monitor formula.*convert its scenario again"):
        evaluate_rules(drive(const(10.0, 10)), old)
