"""roadtest replay --views with a camera rig: the rig's camera re-rendered from the trace beside the bird's-eye view."""

from __future__ import annotations

import numpy as np

from roadtest.cli import main
from roadtest.report.overlays import PANEL_W
from .runs import suite
from .test_video import decode


def test_front_rig_rerendered_from_the_trace(real_run_dir, tmp_path):
    out = tmp_path / "front.mp4"
    assert main(["replay", str(real_run_dir), "-o", str(out), "--views", "bev,front", "--at", "10", "--fps", "2"]) == 0
    meta, frames = decode(out)
    assert meta["size"] == (640 + 480 + PANEL_W, 640)
    assert len(frames) == 15  # 5 s to 12 s at 2 fps from a 20 Hz trace: every 10th of 141 ticks
    cam = frames[10][:, 640:640 + 480].astype(int)
    # the front camera (800 x 600, pitch 0) scaled to 480 x 360, centred in the 640 px column: its
    # horizon is the image's middle row, y = 140 + 180; sky above it, road below
    sky, road = cam[140 + 60], cam[140 + 330]
    centre = slice(200, 280)
    assert (sky[centre, 2] - sky[centre, 0]).mean() > 40  # blue over red: sky
    assert np.abs(road[centre, 2] - road[centre, 0]).mean() < 30  # grey asphalt
    assert road[centre].mean() < sky[centre].mean()
    assert cam[30:130].max() < 25 and cam[-130:].max() < 25  # black bars above (below the label) and below the 4:3 image


def test_rig_without_a_map_exits_2(tmp_path, capsys):
    runs = suite(tmp_path)
    assert main(["replay", str(runs["A"]), "-o", str(tmp_path / "x.mp4"), "--views", "bev,front"]) == 2
    assert "needs the run's road.xodr" in capsys.readouterr().err
