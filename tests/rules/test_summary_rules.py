"""A rule never in force is counted apart from satisfied in the run record and in the suite summary."""

from __future__ import annotations

from roadtest.scoring.score import score_run
from roadtest.runner.summary import summarise
from roadtest.rules.catalogue_model import load_catalogue
from roadtest.rules.in_meta import RuleInForce

from .synth import const, drive


def test_run_record_counts_not_applicable_apart():
    # 44 km/h past a school-zone sign, no zone section; a 50 km/h road limit is in force the whole run
    meta = {"country": "JP", "driving_side": "left", "scene": {"speed_limit": 50 / 3.6},
            "rules": [RuleInForce.from_rule(load_catalogue()[r], "JP").to_meta() for r in ("school_zone_speed", "speed_limit")],
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


JP_CURVE = """\
name: jp-curve-school-sign
country: JP
road:
  kind: curve
  length: 220
  radius: 200
  angle: 20
  lanes: {{forward: 1, backward: 1}}
  speed_limit: 50
  signs:
    - {{id: school_zone, s: 60}}
{sections}
ego: {{lane: 1, s: 20, speed: 40, route: {{distance: 150}}}}
rules: [school_zone_speed, merge_give_way]
expect: {{timeout: 30}}
"""


def _verdicts(tmp_path, sections: str) -> tuple[dict, dict]:
    import json

    from roadtest.cli import main

    f = tmp_path / "jp.yaml"
    f.write_text(JP_CURVE.format(sections=sections))
    out = tmp_path / ("out" + str(len(sections)))
    main(["run", str(f), "--agent", "lane-follower", "-o", str(out)])
    (rec,) = [json.loads(ln) for ln in (out / "results.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    assert rec["rule_verdicts"]["not_applicable"] == sum(r["verdict"] == "not_applicable" for r in rec["rules"])
    return {r["id"]: r["verdict"] for r in rec["rules"]}, summary["rule_verdicts"]


def test_lane_follower_past_a_school_sign_without_zone(tmp_path):
    # the rule-blind lane follower holds 12 m/s (43 km/h) past a 30 km/h school-zone sign on a one-lane JP curve
    verdicts, counts = _verdicts(tmp_path, "")
    assert verdicts == {"school_zone_speed": "not_applicable", "merge_give_way": "not_applicable"}
    assert counts["not_applicable"] == 2 and counts["satisfied"] == 0
    # with the zone (s 70..200) it is in force, and 43 km/h > 30 + 2 km/h
    verdicts, _ = _verdicts(tmp_path, "  sections:\n    - {kind: school_zone, s_start: 70, s_end: 200, speed_limit: 30}")
    assert verdicts["school_zone_speed"] == "violated" and verdicts["merge_give_way"] == "not_applicable"
