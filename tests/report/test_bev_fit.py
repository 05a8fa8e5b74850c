"""The bird's-eye view of a straight road fills its frame with road (rows of the band), the ego always on it."""

from __future__ import annotations

import numpy as np

from roadtest.report.bev import ROLE_COLORS, BevRenderer
from roadtest.report.rundata import load_run

LANE = np.array([72, 72, 72])  # the map's driving-lane fill (BGR), as test_real_run reads it


def _share(img: np.ndarray, bgr) -> float:
    return float((np.abs(img.astype(int) - np.asarray(bgr)).max(axis=2) < 12).mean())


def test_a_straight_road_fills_the_frame_and_keeps_the_ego_in_it(real_run_dir):
    run = load_run(real_run_dir)
    bev = BevRenderer(run, 640, 80.0)
    # the road is 7 m of driving lanes: in one 80 m square it is under a tenth of the frame; in rows of the band
    # (lanes, sidewalks and a margin) it is over a quarter at the start, in the middle and at the end of the run
    n = len(run.states)
    for i in (0, n // 2, n - 1):
        img = bev.draw(i)
        assert img.shape == (640, 640, 3)
        assert _share(img, LANE) > 0.25, (i, _share(img, LANE))
        assert _share(img, ROLE_COLORS["ego"]) > 0.001, i  # the ego is drawn in the frame
    square = BevRenderer(run, 640, 80.0)
    square.strip = None  # the one-square view, as before
    assert _share(square.draw(0), LANE) < 0.15
