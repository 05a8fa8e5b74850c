"""A rule never in force is counted apart from satisfied in the run record and in the suite summary."""

from __future__ import annotations

from roadtest.metrics.score import score_run
from roadtest.runner.summary import summarise
from tests.rules.synth import const, drive


def test_run_record_counts_not_applicable_apart():
    # 44 km/h past a school-zone sign, no zone section; a 50 km/h road limit is in force the whole run
    meta = {"country": "JP", "driving_side": "left", "scene": {"speed_limit": 50 / 3.6},
            "rules": [{"id": "school_zone_speed", "params": {}}, {"id": "speed_limit", "params": {}}],
            "route": {"waypoints": [[20.0, 0.0], [400.0, 0.0]]}}
    rec = score_run(drive(const(44 / 3.6, 50), x0=20.0), meta)
    assert {r["id"]: r["verdict"] for r in rec["rules"]} == {"school_zone_speed": "not_applicable",
                                                            "speed_limit": "satisfied"}
    assert rec["rule_verdicts"] == {"satisfied": 1, "violated": 0, "excused": 0, "not_applicable": 1}


def test_summary_counts_verdicts_apart():
    recs = [{"run_id": "a", "status": "completed", "rules": [{"id": "merge_give_way", "verdict": "not_applicable"},
                                                              {"id": "speed_limit", "verdict": "satisfied"}]},
            {"run_id": "b", "status": "failed", "rules": [{"id": "merge_give_way", "verdict": "violated"},
                                                           {"id": "speed_limit", "verdict": "satisfied"}]}]
    s = summarise(recs, ["a", "b"])
    assert s["rules"]["merge_give_way"] == {"not_applicable": 1, "violated": 1}
    assert s["rule_verdicts"] == {"satisfied": 2, "violated": 1, "excused": 0, "not_applicable": 1}
