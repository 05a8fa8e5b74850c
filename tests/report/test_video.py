"""roadtest replay: the clip decodes, has the frames the window asks for, and shows the violated rule's overlay."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from roadtest.cli import main
from roadtest.report.overlays import FONT, PANEL_W, RULE_COLORS, Trigger, draw_panel, rule_row_rect
from roadtest.report.rundata import load_run
from .runs import COLLISION_T, N_TICKS, VIOLATION_T, suite

W, H = 640 + PANEL_W, 640  # bird's-eye view 640 x 640 beside the 400 px panel


def decode(path: Path) -> tuple[dict, list[np.ndarray]]:
    """(meta, RGB frames) of an mp4, decoded by ffmpeg through imageio-ffmpeg."""
    import imageio_ffmpeg

    gen = imageio_ffmpeg.read_frames(str(path))
    meta = next(gen)
    w, h = meta["size"]
    frames = [np.frombuffer(b, np.uint8).reshape(h, w, 3) for b in gen]
    return meta, frames


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return suite(tmp_path_factory.mktemp("results"))


def test_whole_run_clip_has_every_tick(runs, tmp_path):
    out = tmp_path / "all.mp4"
    assert main(["replay", str(runs["A"]), "-o", str(out)]) == 0
    meta, frames = decode(out)
    assert meta["size"] == (W, H)
    assert len(frames) == N_TICKS  # 20 s at 0.1 s, both ends included
    assert meta["fps"] == pytest.approx(10.0)  # the trace's rate


def test_fps_thins_frames(runs, tmp_path):
    out = tmp_path / "slow.mp4"
    assert main(["replay", str(runs["A"]), "-o", str(out), "--fps", "5"]) == 0
    assert len(decode(out)[1]) == 101  # every second tick of 201


@pytest.fixture(scope="module")
def clips(runs, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("clips")
    assert main(["replay", str(runs["A"]), "-o", str(folder / "clip.mp4"), "--at", "violation"]) == 0
    return folder


def test_one_clip_per_violation_and_collision(clips):
    names = sorted(p.name for p in clips.glob("clip*.mp4"))
    assert names == ["clip.collision-truck-15.00s.mp4", "clip.violation-speed_limit-9.50s.mp4"]
    for name in names:
        meta, frames = decode(clips / name)
        assert len(frames) == 71  # 5 s before to 2 s after at 10 fps, both ends included
        assert meta["size"] == (W, H)


def test_violation_frame_shows_the_rule_in_red(runs, clips):
    import cv2

    _, frames = decode(clips / "clip.violation-speed_limit-9.50s.mp4")
    at = frames[50]  # clip starts at 9.5 - 5 = 4.5 s; 9.5 s is frame 50
    before = frames[0]
    x0, y0, x1, y1 = rule_row_rect(0)
    x0, x1 = x0 + 640, x1 + 640
    inner = lambda f: f[y0 + 4:y1 - 3, x0 + 4:x1 - 4].astype(int)
    # the text mask, drawn by OpenCV alone at the row's text origin
    mask = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    cv2.putText(mask, "speed_limit", (6, y1 - y0 - 7), FONT, 0.5, 255, 1, cv2.LINE_AA)
    text = mask[4:-4, 4:-5] > 200
    bgr_red, bgr_green = RULE_COLORS["violated"], RULE_COLORS["ok"]
    red = np.array(bgr_red[::-1]); green = np.array(bgr_green[::-1])
    box = inner(at)
    assert np.abs(np.median(box[~text], axis=0) - red).max() < 25  # the row is red at the violation
    assert box[text].mean() > box[~text].mean() + 60  # and carries light text where the rule id is written
    assert np.abs(np.median(inner(before)[~text], axis=0) - green).max() < 25  # green 5 s before
    # the frame's panel is the overlay drawn alone, up to the codec's loss
    run = load_run(runs["A"])
    i = int(round(VIOLATION_T / 0.1))
    alone = draw_panel(run, i, Trigger("violation", VIOLATION_T, "speed_limit"))[:, :, ::-1].astype(int)
    assert np.abs(at[:, 640:].astype(int) - alone).mean() < 6
    assert np.abs(before[:, 640:].astype(int) - alone).mean() > np.abs(at[:, 640:].astype(int) - alone).mean() + 1


def test_at_time_and_collision(runs, tmp_path):
    out = tmp_path / "t.mp4"
    assert main(["replay", str(runs["A"]), "-o", str(out), "--at", "1.0"]) == 0
    assert len(decode(out)[1]) == 31  # 0 s (clamped at the start) to 3 s
    assert main(["replay", str(runs["A"]), "-o", str(tmp_path / "c.mp4"), "--at", "collision"]) == 0
    assert [p.name for p in tmp_path.glob("c.*.mp4")] == [f"c.collision-truck-{COLLISION_T:.2f}s.mp4"]


@pytest.mark.parametrize("args,needle", [
    (["--at", "soon"], "expected 'violation', 'collision' or a time"),
    (["--at", "99"], "the run covers 0.00 s to 20.00 s"),
    (["--views", "bev,nosuch"], "no saved camera frames"),
    (["-o", "clip.gif"], "expected a .mp4"),
])
def test_bad_input_exits_2(runs, tmp_path, capsys, args, needle):
    argv = ["replay", str(runs["A"]), "-o", str(tmp_path / "x.mp4")] + args
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_not_a_run_folder(tmp_path, capsys):
    assert main(["replay", str(tmp_path), "-o", str(tmp_path / "x.mp4")]) == 2
    assert "no trace.json.gz" in capsys.readouterr().err


def test_saved_camera_frames_are_shown(runs, tmp_path):
    import cv2

    folder = runs["B"] / "sensors" / "Center"
    folder.mkdir(parents=True, exist_ok=True)
    for frame in (0, 100):  # saved every 100 ticks: frame 150 shows the one saved at 100
        img = np.zeros((90, 160, 3), np.uint8)
        img[:] = (0, 0, 255) if frame == 0 else (255, 0, 0)  # BGR red, then blue
        cv2.imwrite(str(folder / f"{frame:06d}.png"), img)
    out = tmp_path / "cam.mp4"
    assert main(["replay", str(runs["B"]), "-o", str(out)]) == 0  # saved views are shown by default
    meta, frames = decode(out)
    assert meta["size"] == (640 + 480 + PANEL_W, 640)
    centre = lambda f: f[320, 640 + 240].astype(int)  # the camera cell's centre (one view fills the column)
    assert np.abs(centre(frames[50]) - [255, 0, 0]).max() < 30  # RGB red from frame 0
    assert np.abs(centre(frames[150]) - [0, 0, 255]).max() < 30  # RGB blue from frame 100
    assert main(["replay", str(runs["B"]), "-o", str(tmp_path / "bev.mp4"), "--views", "bev"]) == 0
    assert decode(tmp_path / "bev.mp4")[0]["size"] == (W, H)  # asked for the bird's-eye view alone
