"""Suites on a local Ray cluster: the same results as the local pool, lost workers retried, server limits."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from roadtest.runner.cli import run_command
from roadtest.runner.episode import Job
from roadtest.runner.limits import ServerLimits, server_limit
from roadtest.runner.pool import run_jobs
from roadtest.runner.store import read_records

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SCENARIOS = [ROOT / "scenarios" / "straight_speed_limit.yaml", ROOT / "scenarios" / "stop_sign_t_junction.yaml"]
COMPARED = ("status", "scores", "infractions", "rules", "bench2drive", "planning", "ticks", "sim_time", "termination")


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: two\nscenarios:\n" + "".join(f"  - {p}\n" for p in SCENARIOS))
    return suite


def _run(target, out, agent, executor, workers=2, seeds=2, resume=False, retries=None):
    return run_command(target=Path(target), agent=agent, seeds=seeds, seed=0, tick=0.05, workers=workers,
                       out=Path(out), resume=resume, trace_csv=None, timeout=120.0, backend="embedded",
                       executor=executor, retries=retries)


def _by_id(out):
    recs = list(read_records(Path(out)))
    return {r["run_id"]: r for r in recs}, recs


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_suite_gives_the_local_pools_results(tmp_path, ray_local):
    suite = _suite(tmp_path)
    assert _run(suite, tmp_path / "local", "lane-follower", "local") in (0, 1)
    assert _run(suite, tmp_path / "ray", "lane-follower", "ray") in (0, 1)
    local, _ = _by_id(tmp_path / "local")
    on_ray, recs = _by_id(tmp_path / "ray")
    assert len(recs) == len(on_ray) == 4  # 2 scenarios x 2 seeds, each exactly once
    assert set(local) == set(on_ray)
    for run_id, rec in local.items():
        for key in COMPARED:
            assert on_ray[run_id].get(key) == rec.get(key), (run_id, key)
    # the lane follower runs the stop sign: the scores are not all trivially equal
    assert any(r["infractions"]["stop_infraction"] for r in local.values())


def test_a_killed_worker_is_retried_and_every_run_is_recorded_once(tmp_path, ray_local, monkeypatch):
    monkeypatch.setenv("ROADTEST_TEST_DIE_DIR", str(tmp_path))
    agent = f"{HERE / 'dying_agents.py'}:DiesOnceAgent"
    # the cluster was started before the variable was set: a fresh local cluster inherits it
    ray_local.shutdown()
    ray_local.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    _run(_suite(tmp_path), tmp_path / "out", agent, "ray")
    assert (tmp_path / "died").exists()  # one worker really died mid-run
    by_id, recs = _by_id(tmp_path / "out")
    assert len(recs) == len(by_id) == 4
    assert all(r["status"] in ("completed", "failed") for r in recs), [r.get("reason") for r in recs]


def test_a_worker_lost_on_every_attempt_is_an_infrastructure_failure(tmp_path, ray_local, monkeypatch):
    monkeypatch.setenv("ROADTEST_TEST_DIE_DIR", str(tmp_path))
    ray_local.shutdown()
    ray_local.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    agent = f"{HERE / 'dying_agents.py'}:AlwaysDiesAgent"
    code = _run(SCENARIOS[0], tmp_path / "out", agent, "ray", seeds=1, retries=1)
    (rec,) = list(read_records(tmp_path / "out"))
    assert code == 1
    assert rec["status"] == "sim_error" and rec["infrastructure"] is True
    assert "worker lost" in rec["reason"]
    assert (tmp_path / "attempts").read_text() == "xx"  # the first attempt and one retry


def test_resume_continues_runs_another_executor_wrote(tmp_path, ray_local):
    suite = _suite(tmp_path)
    out = tmp_path / "out"
    _run(suite, out, "expert", "ray")
    results = out / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:2]))  # as if the driver had been killed after two runs
    _run(suite, out, "expert", "local", resume=True)
    by_id, recs = _by_id(out)
    assert len(recs) == len(by_id) == 4


def test_without_ray_the_executor_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    from roadtest.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)
    code = main(["run", str(SCENARIOS[0]), "--executor", "ray", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert "pip install 'roadtest[ray]'" in err
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_server_limit_from_an_agent_config():
    assert server_limit({"backend": {"base_url": "http://gpu1:8000/v1", "max_concurrency": 3}}) == \
        {"server": "http://gpu1:8000/v1", "max_concurrency": 3}
    assert server_limit({"url": "http://m:9000", "max_concurrency": 1}) == {"server": "http://m:9000", "max_concurrency": 1}
    assert server_limit({"base_url": "http://x"}) == {}
    from roadtest.errors import UserError

    with pytest.raises(UserError, match="max_concurrency"):
        server_limit({"base_url": "http://x", "max_concurrency": 0})


def test_server_limits_pick_the_first_job_with_room():
    a1, a2, b1 = (Job(run_id=i, bundle="b", variant="v", seed=0, agent=None, tick=0.05, out="o", timeout=1.0,
                      extra={"server": s, "max_concurrency": 1}) for i, s in (("a1", "A"), ("a2", "A"), ("b1", "B")))
    free = Job(run_id="f", bundle="b", variant="v", seed=0, agent=None, tick=0.05, out="o", timeout=1.0)
    lim = ServerLimits()
    lim.start(a1)
    assert lim.next_index([a2, b1, free]) == 1
    lim.start(b1)
    assert lim.next_index([a2, free]) == 1
    lim.end(a1)
    assert lim.next_index([a2, free]) == 0


def test_the_local_pool_never_runs_two_jobs_on_a_server_limited_to_one(tmp_path):
    from runner_fakes import make_bundle

    suite = tmp_path / "suite"
    for name in ("a", "b", "c"):
        make_bundle(suite, name, length=30.0, sleep=0.01)
    jobs = [Job(run_id=f"{n}__s0", bundle=str(suite / n), variant=n, seed=0, agent=None, tick=0.05,
                out=str(tmp_path / "out"), timeout=30.0, backend="runner_fakes:FakeSimulator", reference=False,
                extra={"server": "http://one-gpu", "max_concurrency": 1}) for n in ("a", "b", "c")]
    (tmp_path / "out").mkdir()
    spans, recs = [], {}

    def on_result(rec):
        spans.append((rec["run_id"], time.monotonic()))
        recs[rec["run_id"]] = rec

    run_jobs(jobs, workers=3, on_result=on_result)
    assert [s[0] for s in spans] == ["a__s0", "b__s0", "c__s0"]  # in plan order
    assert all(r["status"] == "completed" for r in recs.values())
    # serialised: each run ends at least its own wall time after the previous one ended
    # (three parallel workers would end the three equal runs within a fraction of that)
    for (_, before), (run_id, end) in zip(spans, spans[1:]):
        assert end - before >= 0.9 * recs[run_id]["wall_s"] >= 0.3
