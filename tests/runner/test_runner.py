"""Runner: status classification, determinism, and resume after kill -9 (fake simulator and agents)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runner_fakes import make_bundle
from roadtest.cli import main
from roadtest.runner.cli import run_command
from roadtest.runner.store import read_records
from roadtest.sim.api import Trace

HERE = Path(__file__).resolve().parent
FAKE = "runner_fakes:FakeSimulator"
AGENTS = HERE / "runner_fakes.py"


def run(target, out, agent=None, seeds=1, workers=2, resume=False, timeout=60.0, trace_csv=None):
    return run_command(target=Path(target), agent=agent, seeds=seeds, seed=0, tick=0.05, workers=workers,
                       out=Path(out), resume=resume, trace_csv=trace_csv, timeout=timeout, backend=FAKE)


def by_id(out):
    return {r["run_id"]: r for r in read_records(Path(out))}


def test_statuses_completed_sim_error_timeout(tmp_path):
    suite = tmp_path / "suite"
    make_bundle(suite, "good")
    make_bundle(suite, "broken", broken=True)
    make_bundle(suite, "slow", length=200.0, sleep=0.05)
    code = run(suite, tmp_path / "out", timeout=1.0)
    recs = by_id(tmp_path / "out")
    assert code == 1
    assert recs["good__s0__scenario"]["status"] == "completed"
    assert recs["good__s0__scenario"]["scores"]["score_route"] == 100.0
    assert recs["broken__s0__scenario"]["status"] == "sim_error"
    assert recs["broken__s0__scenario"]["infrastructure"] is True
    assert "broken bundle" in recs["broken__s0__scenario"]["reason"]
    assert recs["slow__s0__scenario"]["status"] == "timeout"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["infrastructure_failures"] == 1 and summary["agent_failures"] == 1
    assert summary["leaderboard"]["total_routes"] == 3
    for rid in ("good__s0__scenario", "slow__s0__scenario"):
        assert (tmp_path / "out" / "runs" / rid / "trace.json.gz").exists()
    assert (tmp_path / "out" / "runs" / "good__s0__scenario" / "score.json").exists()


def test_agent_raising_is_agent_error(tmp_path):
    b = make_bundle(tmp_path, "good")
    code = run(b, tmp_path / "out", agent=f"{AGENTS}:RaisingAgent", workers=1)
    (rec,) = by_id(tmp_path / "out").values()
    assert code == 1
    assert rec["status"] == "agent_error" and "agent exploded on purpose" in rec["reason"]
    assert rec["infrastructure"] is False
    tr = Trace.load(tmp_path / "out" / "runs" / rec["run_id"] / "trace.json.gz")
    assert tr.termination.value == "agent_error"


def test_same_seed_same_results_and_trace_csv(tmp_path):
    b = make_bundle(tmp_path, "good", length=30.0)
    for name in ("a", "b"):
        assert run(b, tmp_path / name, agent=f"{AGENTS}:SteadyAgent", seeds=2) == 0
    a, bb = by_id(tmp_path / "a"), by_id(tmp_path / "b")
    assert sorted(a) == sorted(bb) == ["good__s0__runner_fakes-SteadyAgent", "good__s1__runner_fakes-SteadyAgent"]
    for rid in a:
        strip = lambda r: {k: v for k, v in r.items() if k not in ("wall_s",)}  # noqa: E731
        assert strip({**a[rid], "planning": None}) == strip({**bb[rid], "planning": None})
        ta = (tmp_path / "a" / "runs" / rid / "trace.json.gz").read_bytes()
        tb = (tmp_path / "b" / "runs" / rid / "trace.json.gz").read_bytes()
        assert ta == tb
    t0 = Trace.load(tmp_path / "a" / "runs" / "good__s0__runner_fakes-SteadyAgent" / "trace.json.gz")
    t1 = Trace.load(tmp_path / "a" / "runs" / "good__s1__runner_fakes-SteadyAgent" / "trace.json.gz")
    assert t0.states[-1].ego.x != t1.states[-1].ego.x  # the seed matters
    assert t0.agent and t0.agent[0].planned is not None
    csv = tmp_path / "one.csv"
    assert run(b, tmp_path / "c", agent=f"{AGENTS}:SteadyAgent", trace_csv=csv) == 0
    assert csv.read_text().startswith("time,entity,x,y,z,h,speed,lane,s,t\n")


def test_user_mistakes_exit_2(tmp_path, capsys):
    b = make_bundle(tmp_path, "good")
    assert run(b, tmp_path / "out") == 0
    argv = ["run", str(b), "--out", str(tmp_path / "out"), "--backend", FAKE]
    assert main(argv) == 2  # results exist and no --resume
    assert "--resume" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "nope"), "--out", str(tmp_path / "o2")]) == 2
    assert main(["run", str(b), "--out", str(tmp_path / "o3"), "--workers", "0"]) == 2
    assert main(["run", str(b), "--out", str(tmp_path / "o4"), "--agent", "no-such-agent"]) == 2


def test_resume_after_kill_minus_9(tmp_path):
    suite = tmp_path / "suite"
    for i in range(4):
        make_bundle(suite, f"b{i}", length=40.0, sleep=0.01)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "roadtest.cli", "run", str(suite), "--out", str(out), "--backend", FAKE,
           "--seeds", "2", "--workers", "2"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and len(list(read_records(out))) < 2:
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = [r["run_id"] for r in read_records(out)]
    assert 2 <= len(before) < 8, "the kill came too late to test resume"
    assert run(suite, out, seeds=2, resume=True) == 0
    after = [r["run_id"] for r in read_records(out)]
    assert sorted(after) == sorted(set(after)) and len(after) == 8
    assert after[: len(before)] == before
    assert all(r["status"] == "completed" for r in read_records(out))


def test_expectations_turn_a_finished_run_into_failed():
    from roadtest.runner.episode import _expectations

    meta = {"expect": {"reach_goal": True, "rules_hold": True}}
    # the goal is judged on roadtest's own route completion, not the leaderboard's (which misjudges short routes)
    good = {"scores": {"score_route": 98.0}, "roadtest": {"route_completion": 100.0, "goal_reached": True},
            "rules": [{"id": "speed_limit", "verdict": "excused"}]}
    bad = {"scores": {"score_route": 62.0}, "roadtest": {"route_completion": 62.5, "goal_reached": False},
           "rules": [{"id": "stop_sign", "verdict": "violated"}]}
    assert _expectations(meta, good) == []
    assert _expectations(meta, bad) == ["goal not reached (route completion 62.5 %)", "rules violated: stop_sign"]
    assert _expectations({}, bad) == []


def test_an_invalid_scenario_file_is_the_users_mistake_exit_2_and_the_rest_still_run(tmp_path, capsys):
    """A file refused at load (unsupported element) is status `invalid` with its located message, not a crash."""
    import sys as _sys

    _sys.path.insert(0, str(HERE.parent / "sim" / "xosc"))
    from xosc_docs import scenario, teleport

    suite = tmp_path / "suite"
    suite.mkdir()
    good = scenario("", init=teleport("Ego", 0, speed=5), stop="<StopTrigger><ConditionGroup><Condition name='c' "
                    "delay='0' conditionEdge='none'><ByValueCondition><SimulationTimeCondition value='1' "
                    "rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup></StopTrigger>")
    for name, text in (("good", good), ("bad", good.replace("<TeleportAction>", "<FooAction/><TeleportAction>", 1))):
        (suite / name).mkdir()
        (suite / name / "scenario.xosc").write_text(text)
    code = run_command(target=suite, agent=None, seeds=1, seed=0, tick=0.05, workers=1, out=tmp_path / "out",
                       resume=False, trace_csv=None, timeout=60.0, backend="embedded")
    recs = by_id(tmp_path / "out")
    assert code == 2
    (bad_id,) = [k for k in recs if k.startswith("bad")]
    (good_id,) = [k for k in recs if k.startswith("good")]
    assert recs[bad_id]["status"] == "invalid" and recs[bad_id]["infrastructure"] is False
    assert recs[bad_id]["reason"].startswith("unsupported: FooAction at ") and "scenario.xosc:" in recs[bad_id]["reason"]
    assert recs[good_id]["status"] == "completed"
    assert "unsupported: FooAction" in capsys.readouterr().err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["statuses"]["invalid"] == 1 and summary["infrastructure_failures"] == 0
