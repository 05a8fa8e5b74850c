"""`roadtest run SUITE --agent vlm --agent-config FILE` end to end through the fake server, and config errors."""

from __future__ import annotations

import json

import pytest
import yaml

pytest.importorskip("openai")

from fake_openai import FakeOpenAIServer
from oracle import route_following_reply
from roadtest.cli import main

from conftest import REPO


def test_smoke_suite_through_the_cli_is_scored_with_vlm_figures(tmp_path, capsys):
    with FakeOpenAIServer(route_following_reply(25.0)) as srv:
        cfg = tmp_path / "my_vlm.yaml"
        cfg.write_text(yaml.safe_dump({"backend": "openai", "openai": {"base_url": srv.base_url},
                                       "cameras": [{"id": "front", "width": 64, "height": 36, "fov": 60.0}]}))
        out = tmp_path / "results"
        code = main(["run", str(REPO / "scenarios" / "suites" / "smoke.yaml"), "--agent", "vlm", "--agent-config", str(cfg),
                     "-o", str(out), "-j", "2"])
    printed = capsys.readouterr().out
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert code == 0, [r["reason"] for r in records]
    assert len(records) == 5 and {r["status"] for r in records} <= {"completed", "failed"}
    for r in records:
        assert r["scores"] and r["vlm"]["decisions"] > 0 and r["vlm"]["backend"] == "openai"
    stop = next(r for r in records if r["variant"] == "stop-sign-t-junction")
    # this model sees no sign: it drives through the stop sign
    assert [x["verdict"] for x in stop["rules"] if x["id"] == "stop_sign"] == ["violated"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["vlm"]["runs"] == 5 and summary["vlm"]["sign_accuracy_30m"] == 0.0
    assert summary["vlm"]["parse_failure_rate"] == 0.0
    assert "vlm agent (openai)" in printed and "signs within 30 m recognised 0.0 %" in printed
    from roadtest.sim.api import Trace

    trace = Trace.load(out / "runs" / stop["run_id"] / "trace.json.gz")
    recs = [a.record for a in trace.agent if a.record]
    assert recs and recs[0]["kind"] == "vlm_decision" and recs[0]["stages"][1]["parsed"]["reason"] == "following the route"
    assert [a.planned for a in trace.agent if a.record][0] == tuple(tuple(p) for p in recs[0]["plan"]["waypoints"])


def test_config_mistakes_exit_2_with_the_dotted_key(tmp_path, capsys):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(yaml.safe_dump({"openai": {"base_ur": "http://x"}}))
    code = main(["run", str(REPO / "scenarios" / "straight_speed_limit.yaml"), "--agent", "vlm", "--agent-config", str(cfg),
                 "-o", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and f"{cfg}: openai.base_ur: unknown key" in err
    cfg.write_text(yaml.safe_dump({"decision_hz": "fast"}))
    assert main(["run", str(REPO / "scenarios" / "straight_speed_limit.yaml"), "--agent", "vlm", "--agent-config", str(cfg),
                 "-o", str(tmp_path / "r2")]) == 2
    assert "decision_hz: expected a number, got 'fast'" in capsys.readouterr().err
    cfg.write_text(yaml.safe_dump({"backend": "gpt"}))
    assert main(["run", str(REPO / "scenarios" / "straight_speed_limit.yaml"), "--agent", "vlm", "--agent-config", str(cfg),
                 "-o", str(tmp_path / "r3")]) == 2
    assert "backend: expected one of ['builtin', 'openai', 'transformers'], got 'gpt'" in capsys.readouterr().err
