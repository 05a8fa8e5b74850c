"""The local pool's long-lived workers: one worker serves many runs, a worker that dies or hangs loses only its run,
and a run's trace and score do not depend on what its worker ran before."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from roadtest.runner import pool
from roadtest.runner.cli import plan_jobs, run_command
from roadtest.runner.store import read_records

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
STRAIGHT = ROOT / "scenarios" / "straight_speed_limit.yaml"
JUNCTION = ROOT / "scenarios" / "stop_sign_t_junction.yaml"


def _run(target, out, agent, workers=1, seeds=1):
    return run_command(target=Path(target), agent=agent, seeds=seeds, seed=0, tick=0.05, workers=workers,
                       out=Path(out), resume=False, trace_csv=None, timeout=120.0, backend="embedded")


def test_a_long_lived_worker_dying_mid_run_loses_that_run_only(tmp_path, monkeypatch):
    monkeypatch.setenv("ROADTEST_TEST_DIE_DIR", str(tmp_path))
    agent = f"{HERE / 'dying_agents.py'}:DiesInSecondRunAgent"
    code = _run(STRAIGHT, tmp_path / "out", agent, workers=1, seeds=4)
    recs = list(read_records(tmp_path / "out"))
    assert code == 1
    assert sorted(r["seed"] for r in recs) == [0, 1, 2, 3]  # every run recorded once
    lost = [r for r in recs if r["status"] == "sim_error"]
    assert [r["seed"] for r in lost] == [1]  # the worker's second run: the first one it served was kept
    assert lost[0]["reason"] == "worker exited with code 137 without a result" and lost[0]["infrastructure"] is True
    assert all(r["status"] in ("completed", "failed") for r in recs if r["seed"] != 1), [r["reason"] for r in recs]
    died = (tmp_path / "died").read_text()
    served = {p.name.removeprefix("runs-"): p.read_text() for p in tmp_path.glob("runs-*")}
    assert served[died] == "xx"  # the dead worker had lived across a run before the one it took down
    assert sorted(v for k, v in served.items() if k != died) == ["xx"]  # a fresh worker ran seeds 2 and 3
    assert not list((tmp_path / "out" / "runs").glob("*/.result.json"))  # no record left behind


def test_a_hung_worker_is_killed_and_the_next_run_gets_a_fresh_one(tmp_path, monkeypatch):
    monkeypatch.setattr(pool, "KILL_GRACE", 0.0)  # the parent's limit: 1.5 x the run's own 1 s
    from runner_fakes import make_bundle

    hung = make_bundle(tmp_path / "suite", "hung", length=1e6, sleep=30.0)  # one tick outlasts every limit
    good = make_bundle(tmp_path / "suite", "good")
    out = tmp_path / "out"
    jobs = plan_jobs([("hung", str(hung)), ("good", str(good))], None, 1, 0, 0.05, out, 1.0, "runner_fakes:FakeSimulator")
    got = []
    pool.run_jobs(jobs, 1, got.append)
    by_variant = {r["variant"]: r for r in got}
    assert by_variant["hung"]["status"] == "timeout" and "killed after 1 s" in by_variant["hung"]["reason"]
    assert by_variant["good"]["status"] == "completed"


def _trace(out: Path, run_id: str) -> dict:
    with gzip.open(out / "runs" / run_id / "trace.json.gz", "rt") as f:
        return json.load(f)


def test_a_run_gives_the_same_trace_and_score_after_other_runs_in_its_worker(tmp_path):
    # alone in a fresh worker, and as the third run of a worker that has driven another map and this one
    _run(STRAIGHT, tmp_path / "alone", "expert")
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: mixed\nscenarios:\n  - {JUNCTION}\n  - {STRAIGHT}\n")
    _run(suite, tmp_path / "after", "expert", seeds=1)
    (alone,) = list(read_records(tmp_path / "alone"))
    after = {r["run_id"]: r for r in read_records(tmp_path / "after")}
    rid = alone["run_id"]
    assert rid in after and len(after) == 2
    for key in ("status", "scores", "infractions", "rules", "ticks", "sim_time", "termination"):
        assert after[rid].get(key) == alone.get(key), key
    assert _trace(tmp_path / "after", rid) == _trace(tmp_path / "alone", rid)
    score = lambda out: json.loads((out / "runs" / rid / "score.json").read_text())  # noqa: E731
    assert score(tmp_path / "after") == score(tmp_path / "alone")



def test_a_worker_started_later_sees_the_environment_of_its_start_not_the_forkservers(tmp_path, monkeypatch):
    """The forkserver is started by the first pool of the process; a setting made after it must still reach the
    workers a later pool starts (here the dying agent's marker folder, read from the environment)."""
    monkeypatch.setenv("ROADTEST_TEST_DIE_DIR", str(tmp_path / "first"))
    (tmp_path / "first").mkdir()
    _run(STRAIGHT, tmp_path / "out1", f"{HERE / 'dying_agents.py'}:DiesInSecondRunAgent", workers=1, seeds=1)
    later = tmp_path / "later"
    later.mkdir()
    monkeypatch.setenv("ROADTEST_TEST_DIE_DIR", str(later))
    _run(STRAIGHT, tmp_path / "out2", f"{HERE / 'dying_agents.py'}:DiesInSecondRunAgent", workers=1, seeds=1)
    assert [p.name for p in later.glob("runs-*")], "the second pool's worker wrote its marker where it was told"
