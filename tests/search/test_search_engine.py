"""The search loop on stand-in runs: seeded candidates, order-independence, resume after a kill, boundaries."""

from __future__ import annotations

import json
import math
import random

import pytest


from roadtest.errors import UserError
from roadtest.search.boundary import estimate_boundary, wilson
from roadtest.search.engine import objective_of, run_search, trials_in_store
from search_fakes import stand_in_executor, write_scene

WINDOW = "actors.walker.behaviours.0.trigger.time: {range: [0, 20]}"
KEY = "actors.walker.behaviours.0.trigger.time"


def v_shape(values):
    """Margin of a walker that is hit when it starts in [7, 8] s: metres from the window's edge."""
    t = values[KEY]
    return abs(t - 7.5) - 0.5


def _cands(trials):
    return [(t.number, t.values[KEY]) for t in trials]


@pytest.mark.parametrize("method", ["tpe", "random", "qmc", "cmaes"])
def test_same_seed_same_candidates_whatever_order_the_runs_end_in(tmp_path, method):
    scene = write_scene(tmp_path, WINDOW)
    a = run_search(scene, ["lane-follower"], 12, tmp_path / "a", method=method, seed=3, batch=4,
                   executor=stand_in_executor(v_shape), quiet=True)["lane-follower"]
    b = run_search(scene, ["lane-follower"], 12, tmp_path / "b", method=method, seed=3, batch=4,
                   executor=stand_in_executor(v_shape, order=lambda js: js[::-1]), quiet=True)["lane-follower"]
    c = run_search(scene, ["lane-follower"], 12, tmp_path / "c", method=method, seed=4, batch=4,
                   executor=stand_in_executor(v_shape), quiet=True)["lane-follower"]
    assert _cands(a) == _cands(b)
    assert _cands(a) != _cands(c)
    assert [t.number for t in a] == list(range(12))
    assert all(0 <= x <= 20 for _, x in _cands(a))


def test_resume_after_a_kill_loses_and_repeats_nothing(tmp_path):
    scene = write_scene(tmp_path, WINDOW)
    whole = run_search(scene, ["lane-follower"], 10, tmp_path / "whole", method="tpe", seed=1, batch=4,
                       executor=stand_in_executor(v_shape), quiet=True)["lane-follower"]
    out = tmp_path / "killed"
    with pytest.raises(KeyboardInterrupt):  # killed in the second batch, two of its four runs recorded
        run_search(scene, ["lane-follower"], 10, out, method="tpe", seed=1, batch=4,
                   executor=stand_in_executor(v_shape, stop_after=6), quiet=True)
    assert len(trials_in_store(out)) == 6
    with pytest.raises(UserError, match="--resume"):
        run_search(scene, ["lane-follower"], 10, out, method="tpe", seed=1, batch=4,
                   executor=stand_in_executor(v_shape), quiet=True)
    ran = []

    def counting(jobs, on_result):
        ran.extend(j.run_id for j in jobs)
        stand_in_executor(v_shape)(jobs, on_result)

    resumed = run_search(scene, ["lane-follower"], 10, out, method="tpe", seed=1, batch=4, executor=counting,
                         resume=True, quiet=True)["lane-follower"]
    assert _cands(resumed) == _cands(whole)
    assert len(ran) == 4  # the two of the killed batch not yet recorded, and the last batch of two
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["search"]["trial"] for r in lines) == list(range(10))


def test_resume_refuses_another_search(tmp_path):
    scene = write_scene(tmp_path, WINDOW)
    run_search(scene, ["lane-follower"], 4, tmp_path / "o", seed=1, executor=stand_in_executor(v_shape), quiet=True)
    with pytest.raises(UserError, match="seed"):
        run_search(scene, ["lane-follower"], 4, tmp_path / "o", seed=2, resume=True,
                   executor=stand_in_executor(v_shape), quiet=True)


def test_objective_reads_the_margin_and_the_verdict():
    rec = {"status": "failed", "rules": [{"id": "a", "verdict": "violated", "worst": -1.0, "margin": -3.5},
                                         {"id": "b", "verdict": "satisfied", "worst": 0.25},
                                         {"id": "c", "verdict": "not_applicable", "worst": None}]}
    assert objective_of(rec, "robustness", None) == (-3.5, True, ["a"])
    assert objective_of(rec, "robustness", "b") == (0.25, False, ["a"])
    assert objective_of(rec, "robustness", "c")[0] == 100.0
    assert objective_of({"status": "sim_error"}, "robustness", None)[0] is None


def test_boundary_of_a_synthetic_objective_with_a_known_threshold(tmp_path):
    """Broken exactly below 150 m of visibility: the 95 % interval holds 150 and is narrow."""
    scene = write_scene(tmp_path, "environment.visibility: {range: [20, 400]}")
    trials = run_search(scene, ["lane-follower"], 40, tmp_path / "o", method="qmc", seed=0, batch=8,
                        executor=stand_in_executor(lambda v: v["environment.visibility"] - 150.0),
                        quiet=True)["lane-follower"]
    xs = [t.values["environment.visibility"] for t in trials]
    b = estimate_boundary("v", xs, [not t.broken for t in trials], 20, 400)
    assert b.broken_side == "below"
    assert b.low <= 150.0 <= b.high
    assert b.high - b.low < 40.0
    gap_low = max(x for x in xs if x < 150)
    gap_high = min(x for x in xs if x >= 150)
    assert b.low < gap_high and b.high > gap_low


def test_joint_boundary_of_two_parameters_finds_a_diagonal_known_by_construction(tmp_path):
    """Kept exactly when visibility >= 2 * speed + 50 (a diagonal): the joint line follows it; one-parameter fits
    cannot say where it is."""
    from roadtest.search.cli import boundaries
    from roadtest.search.engine import load_scene

    scene = write_scene(tmp_path, "environment.visibility: {range: [20, 400]}\nego.speed: {range: [20, 120]}")
    _, _, params = load_scene(scene)
    trials = run_search(scene, ["lane-follower"], 64, tmp_path / "o", method="qmc", seed=0, batch=8,
                        executor=stand_in_executor(lambda v: v["environment.visibility"] - 2 * v["ego.speed"] - 50),
                        quiet=True)
    rows = boundaries(params, trials)["lane-follower"]
    joint = next(r for r in rows if r.get("joint"))
    assert joint["params"] == ["environment.visibility", "ego.speed"] or tuple(joint["params"]) == (
        "environment.visibility", "ego.speed")
    w0, wx, wy = joint["w"]
    for vis in (150.0, 250.0, 350.0):  # on the true line, speed = (vis - 50) / 2
        assert -(w0 + wx * vis) / wy == pytest.approx((vis - 50) / 2, abs=6.0)
    assert joint["misclassified"] <= 2 and "kept below the line" in joint["sentence"]
    assert [r["param"] for r in rows if not r.get("joint")] == ["environment.visibility", "ego.speed"]


def test_boundary_of_noisy_logistic_data_covers_the_true_value():
    r = random.Random(7)
    xs = [r.uniform(0, 400) for _ in range(200)]
    kept = [r.random() < 1 / (1 + math.exp(-(x - 120) / 10)) for x in xs]
    b = estimate_boundary("v", xs, kept, 0, 400)
    assert b.low <= 120 <= b.high and b.high - b.low < 50
    assert estimate_boundary("v", xs, [True] * len(xs), 0, 400).x50 is None


def test_wilson_interval_against_the_textbook_value():
    # 8 of 10: Wilson 95 % interval 0.490 .. 0.943 (Newcombe 1998, Table I method 3 style)
    p, lo, hi = wilson(8, 10)
    assert p == 0.8 and lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)


def test_the_report_of_a_search_draws_each_parameter(tmp_path):
    from roadtest.report.html import build_report

    scene = write_scene(tmp_path, "environment.visibility: {range: [20, 400]}")
    out = tmp_path / "o"
    for agent, edge in (("lane-follower", 150.0), ("expert", 60.0)):
        run_search(scene, [agent], 12, out, method="qmc", seed=0, batch=4, resume=True,
                   executor=stand_in_executor(lambda v, e=edge: v["environment.visibility"] - e), quiet=True)
    page = build_report(out, tmp_path / "report.html")
    html = page.read_text()
    assert "<h2>search</h2>" in html and "search.png" in html
    assert (tmp_path / "report_files" / "search.png").stat().st_size > 10_000
    assert json.loads((out / "search.json").read_text())["agents"] == ["lane-follower", "expert"]
