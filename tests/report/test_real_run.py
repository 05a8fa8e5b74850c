"""Replay and report on a real closed-loop run (lane-follower, straight speed-limit road, map drawn)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from roadtest.cli import main
from roadtest.report.overlays import RULE_COLORS, rule_row_rect
from .test_video import decode


@pytest.fixture
def run_dir(real_run_dir):
    return real_run_dir


def test_violation_clip_of_a_real_run(run_dir, tmp_path):
    rec = json.loads((run_dir.parent.parent / "results.jsonl").read_text().splitlines()[0])
    broken = [r for r in rec["rules"] if r["verdict"] == "violated"]
    assert broken, "the lane-follower keeps 45 km/h past the 30 km/h sign"
    t = broken[0]["first_violation"]
    out = tmp_path / "clip.mp4"
    assert main(["replay", str(run_dir), "-o", str(out), "--at", "violation"]) == 0
    clip = tmp_path / f"clip.violation-{broken[0]['id']}-{t:.2f}s.mp4"
    meta, frames = decode(clip)
    start = max(0.0, t - 5.0)
    end = min(rec["sim_time"], t + 2.0)
    assert len(frames) == int(round((end - start) / rec["tick"])) + 1
    at = frames[int(round((t - start) / rec["tick"]))]
    x0, y0, x1, y1 = rule_row_rect(0)
    row = at[y0 + 4:y1 - 3, 640 + x0 + 4:640 + x0 + 40].astype(int)  # left of the text: the box colour alone
    assert np.abs(np.median(row.reshape(-1, 3), axis=0) - np.array(RULE_COLORS["violated"][::-1])).max() < 25
    bev = at[:, :640].astype(int)
    grey = (np.abs(bev - 72).max(axis=2) < 12).mean()  # the map's driving-lane fill (BGR 72,72,72)
    assert grey > 0.05  # the road is drawn under the actors


def test_report_of_a_real_run(run_dir, tmp_path):
    out = tmp_path / "report.html"
    assert main(["report", str(run_dir.parent.parent), "-o", str(out)]) == 0
    html = out.read_text()
    assert html.count("<tr data-k=") == 1 and "speed_limit" in html
