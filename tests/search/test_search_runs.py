"""Searches with real runs on the built-in simulator: counterexamples reproduce, a kill -9 resumes, margins."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


from roadtest.cli import main
from types import SimpleNamespace

from roadtest.rules.margins import _is_vru, box_clearance, post_encroachment_time
from roadtest.sim.api import ActorState

REPO = Path(__file__).resolve().parents[2]

SCENE = """\
name: walker-window
country: CN
road: {kind: straight, length: 200, lanes: {forward: 1, backward: 1, width: 3.5}, speed_limit: 40}
ego: {lane: 1, s: 10, speed: 36, route: {distance: 150}}
actors:
  - id: walker
    kind: pedestrian
    place: {side: right, s: 110}
    behaviours:
      - {action: cross_road, speed: 5, to: left, trigger: {time: 3}}
rules: [no_collision_vru]
expect: {reach_goal: true, timeout: 30}
search:
  actors.walker.behaviours.0.trigger.time: {range: [%s, %s]}
"""


def _scene(tmp_path: Path, lo: float, hi: float) -> Path:
    p = tmp_path / "walker.yaml"
    p.write_text(SCENE % (lo, hi))
    return p


def _verdicts(out: Path) -> dict[str, str]:
    rec = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    return {r["id"]: r["verdict"] for r in rec["rules"]} | {"status": rec["status"]}


def test_box_clearance_by_hand():
    a = ActorState("ego", "ego", "car", 0.0, 0.0, 0.0, 0.0, 0.0, length=4.5, width=1.8)
    b = ActorState("p", "scenario", "car", 10.0, 0.0, 0.0, 0.0, 0.0, length=4.5, width=1.8)
    assert box_clearance(a, b) == pytest.approx(10.0 - 4.5)
    turned = ActorState("p", "scenario", "car", 10.0, 0.0, 0.0, math.pi / 2, 0.0, length=4.5, width=1.8)
    assert box_clearance(a, turned) == pytest.approx(10.0 - 2.25 - 0.9)
    assert box_clearance(a, ActorState("p", "scenario", "pedestrian", 2.0, 0.5, 0.0, 0.0, 0.0, length=0.5,
                                       width=0.5)) == 0.0


def _pet_trace(walker_at, walker_times):
    """Ego 4.8 x 2.0 m driving +x at 10 m/s from x = 0 for 10 s; a walker's box (0.5 x 0.6 m) at (50, 0) at
    `walker_times`, far away (y = 100) otherwise."""
    states = []
    for k in range(101):
        t = round(k * 0.1, 10)
        ego = ActorState("hero", "ego", "car", 10.0 * t, 0.0, 0.0, 0.0, 10.0, length=4.8, width=2.0)
        there = walker_times[0] <= t <= walker_times[1]
        walker = ActorState("w", "scenario", "pedestrian", walker_at, 0.0 if there else 100.0, 0.0, 0.0, 0.0,
                            length=0.5, width=0.6)
        states.append(SimpleNamespace(time=t, actors=[ego, walker]))
    return SimpleNamespace(states=states)


def test_post_encroachment_time_by_hand():
    # the ego's front (x + 2.4) first covers the walker's box (x >= 49.75) at the 4.8 s tick; the walker left at 1.0 s
    assert post_encroachment_time(_pet_trace(50.0, (0.0, 1.0)), _is_vru) == pytest.approx(3.8)
    # the ego's rear (x - 2.4) last covers it (x <= 50.25) at the 5.2 s tick; the walker arrives at 8.0 s
    assert post_encroachment_time(_pet_trace(50.0, (8.0, 9.0)), _is_vru) == pytest.approx(2.8)
    # never on the ego's path: the run's duration
    assert post_encroachment_time(_pet_trace(500.0, (0.0, 10.0)), _is_vru) == pytest.approx(10.0)


def test_a_counterexample_reproduces_under_roadtest_run(tmp_path, monkeypatch):
    """A walker starting 5.8..6.4 s in is always hit by the lane follower; its scenario gives the same verdict."""
    monkeypatch.chdir(tmp_path)
    scene = _scene(tmp_path, 5.8, 6.4)
    assert main(["search", str(scene), "--agent", "lane-follower", "--budget", "1", "--method", "random",
                 "-o", str(tmp_path / "s")]) == 1
    index = json.loads((tmp_path / "s" / "counterexamples" / "index.json").read_text())
    assert len(index) == 1 and index[0]["role"] == "most violating" and index[0]["violated"] == ["no_collision_vru"]
    found = json.loads((tmp_path / "s" / "results.jsonl").read_text().splitlines()[0])
    rule = found["rules"][0]
    assert rule["verdict"] == "violated" and rule["worst"] == -1.0 and rule["margin"] <= -0.05  # minus overlap s
    cex = tmp_path / "s" / "counterexamples" / index[0]["file"]
    text = cex.read_text()
    assert "search:" not in text and f"time: {index[0]['values']['actors.walker.behaviours.0.trigger.time']}" in text
    assert main(["run", str(cex), "--agent", "lane-follower", "-o", str(tmp_path / "again")]) == 0  # ran to its end
    assert _verdicts(tmp_path / "again") == {"no_collision_vru": "violated", "status": "failed"}
    again = json.loads((tmp_path / "again" / "results.jsonl").read_text().splitlines()[0])["rules"][0]
    assert again["margin"] == rule["margin"]


def test_clips_cut_each_counterexample_at_its_violation(tmp_path, monkeypatch):
    """--clips: the counterexample's bird's-eye clip, its border red around the moment the walker is hit."""
    import cv2

    monkeypatch.chdir(tmp_path)
    scene = _scene(tmp_path, 5.8, 6.4)
    assert main(["search", str(scene), "--agent", "lane-follower", "--budget", "1", "--method", "random", "--clips",
                 "-o", str(tmp_path / "s")]) == 1
    entry = json.loads((tmp_path / "s" / "counterexamples" / "index.json").read_text())[0]
    assert ".violation-no_collision_vru-" in entry["clip"]
    cap = cv2.VideoCapture(str(tmp_path / "s" / "counterexamples" / entry["clip"]))
    frames = []
    ok, frame = cap.read()
    while ok:
        frames.append(frame)
        ok, frame = cap.read()
    assert len(frames) > 20 and frames[0].shape[:2] == (640, 1040)
    red = [i for i, f in enumerate(frames) if f[3, 3, 2] > 200 and f[3, 3, 1] < 60 and f[3, 3, 0] < 60]  # BGR border
    assert red and red == list(range(red[0], red[-1] + 1)), "one red-framed stretch around the violation"
    assert 0 < red[0] and red[-1] < len(frames) - 1, "the clip starts before the violation and goes on after it"


@pytest.mark.slow
def test_kill_9_mid_search_then_resume(tmp_path):
    """A search process killed with SIGKILL after its first record resumes without losing or repeating a run."""
    scene = _scene(tmp_path, 0.0, 20.0)
    out = tmp_path / "s"
    cmd = [sys.executable, "-m", "roadtest.cli", "search", str(scene), "--agent", "lane-follower", "--budget", "4",
           "--batch", "2", "--seed", "5", "-o", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not (results.exists() and results.read_text().count("\n") >= 1):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = [json.loads(x) for x in results.read_text().splitlines()]
    assert 1 <= len(before) < 4
    done = subprocess.run(cmd + ["--resume"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    after = [json.loads(x) for x in results.read_text().splitlines()]
    assert sorted(r["search"]["trial"] for r in after) == [0, 1, 2, 3]
    assert after[: len(before)] == before  # nothing rewritten
    assert len({r["run_id"] for r in after}) == 4


@pytest.mark.slow
def test_local_pool_and_ray_give_the_same_candidates(tmp_path):
    pytest.importorskip("ray")
    from roadtest.search.engine import run_search

    scene = _scene(tmp_path, 0.0, 20.0)
    local = run_search(scene, ["lane-follower"], 4, tmp_path / "local", seed=2, batch=2, workers=2, quiet=True)
    ray = run_search(scene, ["lane-follower"], 4, tmp_path / "ray", seed=2, batch=2, workers=2, executor="ray",
                     quiet=True)
    pick = lambda r: [(t.number, t.values, t.objective) for t in r["lane-follower"]]
    assert pick(local) == pick(ray)
