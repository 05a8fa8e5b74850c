"""The run table at 80 columns and in a pipe: one line a run under a short id; the full table where it fits."""

from __future__ import annotations

import json

import pytest

from roadtest.runner.summary import write_summary
from roadtest.runner.table import short_run_ids

SWEEP = "fog-sweep--environment.weather-fog_{w}--ego.speed-{v}"
IDS = [f"{SWEEP.format(w=w, v=v)}__s0__expert-ignore-fog_speed_limit" for w in ("light", "dense") for v in (20, 30)]


def _rec(rid: str, violated: bool) -> dict:
    return {"run_id": rid, "status": "failed" if violated else "completed", "reason": "",
            "scores": {"score_composed": 60.0 if violated else 100.0, "score_route": 100.0, "score_penalty": 0.6},
            "infractions": {"collisions_vehicle": [{}]} if violated else {}, "meta": {"route_length": 260.0},
            "bench2drive": {"success": not violated, "driving_score": 60.0},
            "roadtest": {"route_completion": 100.0, "goal_reached": True, "driving_score": 60.0, "success": not violated},
            "rules": [{"id": "fog_speed_limit", "verdict": "violated" if violated else "satisfied"},
                      {"id": "safe_distance", "verdict": "satisfied"}]}


def test_short_ids_keep_the_swept_values_and_say_the_shared_seed_and_agent_once():
    short, said = short_run_ids(IDS)
    assert [short[r] for r in IDS] == ["fog-sweep[fog_light,20]", "fog-sweep[fog_light,30]", "fog-sweep[fog_dense,20]",
                                       "fog-sweep[fog_dense,30]"]
    assert said == "agent expert-ignore-fog_speed_limit, seed 0"
    two_seeds = ["a__s0__expert", "a__s1__expert"]
    assert short_run_ids(two_seeds) == ({"a__s0__expert": "a s0", "a__s1__expert": "a s1"}, "agent expert")
    assert short_run_ids(["odd id"]) == ({"odd id": "odd id"}, "")  # not a roadtest run id: left whole


def _table_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("run "))
    end = next(i for i, ln in enumerate(lines) if ln.startswith("  run: "))
    return lines[start + 1:end]


@pytest.mark.parametrize("force_terminal", [False, True])
def test_piped_or_80_columns_one_line_a_run_and_full_ids_in_the_files(tmp_path, capsys, monkeypatch, force_terminal):
    monkeypatch.setenv("COLUMNS", "80")
    if force_terminal:  # an 80-column terminal, as rich sees one
        monkeypatch.setenv("FORCE_COLOR", "1")
    recs = [_rec(r, violated=i >= 2) for i, r in enumerate(IDS)]
    write_summary(tmp_path, recs, IDS)
    out = capsys.readouterr().out
    import re

    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert max(len(ln) for ln in plain.splitlines()) <= 80
    rows = _table_lines(plain)
    assert [ln.split()[0] for ln in rows if not ln.startswith(" ")] == [short_run_ids(IDS)[0][r] for r in IDS]
    assert rows[0].split() == ["fog-sweep[fog_light,20]", "completed", "100.00", "100.0", "0", "2/2"]
    assert rows[2].split()[1:] == ["failed", "60.00", "100.0", "1", "1/2"]
    assert rows[3].strip() == "collisions_vehicle×1 rules: fog_speed_limit"  # the infractions under their run
    assert len(rows) == 6 and not any(r in plain for r in IDS)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert [r["run_id"] for r in summary["runs"]] == IDS


def test_a_wide_terminal_gets_the_full_table(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("FORCE_COLOR", "1")
    write_summary(tmp_path, [_rec(r, violated=False) for r in IDS], IDS)
    out = capsys.readouterr().out
    assert all(r in out for r in IDS) and "B2D ok" in out and "own RC" in out
