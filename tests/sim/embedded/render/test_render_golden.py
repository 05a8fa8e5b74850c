"""Golden images: one small frame of the test road for every weather preset, by day and by night, compared with
the PNGs under golden/ within a tolerance (another Mesa or CPU vector width may change a few bytes); and the same
scene gives the same bytes twice in one process and in two processes.

The golden PNGs were written by make_golden.py and looked at before they were committed."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import render_scene as rs

from roadtest.dsl.model import WEATHER_PRESETS

GOLDEN = Path(__file__).parent / "golden"
MEAN_TOL = 2.0  # mean |difference| per channel, 0..255
FAR_OFF = 30  # a pixel differs when a channel is off by more than this ...
FAR_SHARE = 0.01  # ... and at most 1 % of the pixels may


@pytest.fixture(scope="module")
def renderer():
    r = rs.renderer()
    yield r
    r.release()


@pytest.mark.parametrize("when", ["day", "night"])
@pytest.mark.parametrize("preset", sorted(WEATHER_PRESETS))
def test_each_weather_preset_matches_its_golden_frame(renderer, preset, when):
    import cv2

    from make_golden import frame

    got = frame(renderer, preset, when)[:, :, :3]
    want = cv2.imread(str(GOLDEN / f"{preset}_{when}.png"))
    assert want is not None, f"missing golden/{preset}_{when}.png (run make_golden.py)"
    diff = np.abs(got.astype(int) - want.astype(int))
    assert diff.mean() <= MEAN_TOL, diff.mean()
    assert (diff.max(axis=2) > FAR_OFF).mean() <= FAR_SHARE


def test_golden_frames_differ_between_weathers():
    # the tolerance above could not hide a preset rendering as another: the presets' frames differ well beyond it
    import cv2

    imgs = {p.name: cv2.imread(str(p)).astype(int) for p in sorted(GOLDEN.glob("*.png"))}
    names = sorted(imgs)
    assert len(names) == 2 * len(WEATHER_PRESETS)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if {a, b} == {"clear_night.png", "cloudy_night.png"}:
                continue  # no sun and no moon: cloud cover does not change a night frame
            assert np.abs(imgs[a] - imgs[b]).mean() > 2 * MEAN_TOL or (np.abs(imgs[a] - imgs[b]).max(axis=2) > FAR_OFF).mean() > 2 * FAR_SHARE, (a, b)


def _digest(renderer, preset: str, when: str) -> str:
    from make_golden import frame

    return hashlib.sha256(frame(renderer, preset, when).tobytes()).hexdigest()


def test_same_scene_same_bytes_in_one_process_and_across_processes(renderer):
    first = _digest(renderer, "rain_heavy", "night")
    _digest(renderer, "snow", "day")  # something else in between
    assert _digest(renderer, "rain_heavy", "night") == first
    code = ("import sys; sys.path.insert(0, %r); import render_scene as rs, make_golden as mg, hashlib; "
            "print(hashlib.sha256(mg.frame(rs.renderer(), 'rain_heavy', 'night').tobytes()).hexdigest())"
            % str(Path(__file__).parent))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == first
