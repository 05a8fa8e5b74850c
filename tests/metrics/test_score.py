"""score_run: leaderboard-named fields that Bench2Drive tooling reads, JSON-ready, with rule verdicts when available."""

from __future__ import annotations

import json

import pytest

from metrics_synth import collision, drive, straight_meta
from roadtest.metrics.leaderboard import INFRACTION_KEYS
from roadtest.scoring.score import score_run


def test_score_record_fields_and_json():
    xs = [0.5 * i for i in range(120)]
    rec = score_run(drive(xs, events={30: [collision("c", "car")]}), straight_meta(100))
    json.dumps(rec, allow_nan=False)
    assert set(rec["scores"]) == {"score_route", "score_penalty", "score_composed"}
    assert set(rec["infractions"]) == set(INFRACTION_KEYS)
    assert rec["infractions"]["collisions_vehicle"][0].startswith("Agent collided against object with type=car")
    assert rec["scores"]["score_composed"] == pytest.approx(rec["scores"]["score_route"] * 0.6)
    assert rec["bench2drive"]["success"] is False
    assert rec["planning"]["details"]["collision_rate"]["samples"] > 0
    assert rec["planning"]["value"] is None  # no reference trace given
    assert rec["rules"] == [] and rec["rule_verdicts"] == {"satisfied": 0, "violated": 0, "excused": 0, "not_applicable": 0}


def test_a_failing_rule_monitor_keeps_the_driving_score(monkeypatch):
    import roadtest.rules.evaluate as rules

    def boom(trace, meta):
        raise KeyError("zones")

    monkeypatch.setattr(rules, "evaluate_rules", boom)
    rec = score_run(drive([0.5 * i for i in range(50)]), straight_meta(100))
    assert rec["scores"]["score_route"] > 0
    assert rec["rules_error"].startswith("KeyError") and "rules" not in rec
