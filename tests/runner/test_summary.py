"""Summary: the rule figures beside the leaderboard's, suite rule compliance, and the table's legend."""

from __future__ import annotations

import json

from roadtest.runner.summary import legend, rule_figures, summarise, write_summary


def _rec(rid: str, verdicts: list[str], ds: float = 100.0) -> dict:
    return {"run_id": rid, "status": "failed" if "violated" in verdicts else "completed", "reason": "",
            "scores": {"score_composed": ds, "score_route": 100.0, "score_penalty": ds / 100},
            "infractions": {}, "meta": {"route_length": 100.0},
            "bench2drive": {"success": True, "driving_score": ds},
            "roadtest": {"route_completion": 100.0, "goal_reached": True, "driving_score": ds, "success": True},
            "rules": [{"id": f"r{i}", "verdict": v} for i, v in enumerate(verdicts)]}


def test_rule_figures_leave_rules_never_in_play_out():
    # 1 violated, 1 satisfied, 1 excused (complied: a higher rule demanded it), 1 never in play
    assert rule_figures([{"verdict": "violated"}, {"verdict": "satisfied"}, {"verdict": "excused"},
                         {"verdict": "not_applicable"}]) == (1, 3, 2)
    assert rule_figures([]) == (0, 0, 0)


def test_suite_rule_compliance_beside_a_perfect_driving_score(tmp_path, capsys):
    recs = [_rec("a", ["violated", "satisfied"]), _rec("b", ["satisfied", "not_applicable"])]
    s = summarise(recs, ["a", "b", "c"])
    # DS 100 on both recorded routes, yet one rule of the three in play was violated
    assert s["leaderboard"]["scores_mean"]["score_composed"] == round(200 / 3, 6)
    assert s["rule_figures"] == {"rules_violated": 1, "rules_in_play": 3, "rule_compliance_rate": round(2 / 3, 6),
                                 "runs_without_violation": 1, "runs_with_rules": 2}
    assert s["roadtest"]["success_rate"] == round(2 / 3, 6)
    write_summary(tmp_path, recs, ["a", "b", "c"])
    out = capsys.readouterr().out
    assert "compliance" in out and "1 violated of 3 in play, compliance rate 66.7 %" in out
    assert {col for col, _ in legend()} >= {"DS, RC %, penalty", "rules viol.", "compliance", "own RC"}
    assert json.loads((tmp_path / "summary.json").read_text())["rule_figures"]["rules_violated"] == 1
