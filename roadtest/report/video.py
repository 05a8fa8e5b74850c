"""`roadtest replay RUN_DIR -o clip.mp4`: H.264 clips rendered from the recorded trace, never by re-simulating.

A frame is [bird's-eye view | camera views | panel]. `--at violation` cuts one clip per violated
rule (at its first violation) and per collision, from CLIP_BEFORE before to CLIP_AFTER after.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from roadtest.errors import UserError
from roadtest.report.overlays import PANEL_W, Trigger, draw_panel
from roadtest.report.rundata import RunData

__all__ = ["Clip", "clip_windows", "frame_indices", "FrameComposer", "write_clip", "replay_command",
           "CLIP_BEFORE", "CLIP_AFTER", "frame_size"]

CLIP_BEFORE = 5.0  # s before the event
CLIP_AFTER = 2.0  # s after it
BEV_SIZE = 640
CAM_W = 480


@dataclass(frozen=True)
class Clip:
    """One clip to render: the time window and what triggered it (None for the whole run)."""

    t0: float
    t1: float
    trigger: Trigger | None = None

    def suffix(self) -> str:
        if self.trigger is None:
            return ""
        what = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.trigger.what) or "t"
        return f".{self.trigger.kind}-{what}-{self.trigger.time:.2f}s" if self.trigger.kind != "time" else ""


def clip_windows(run: RunData, at: str | None) -> list[Clip]:
    """The clips `--at` asks for: None the whole run; 'violation', 'collision' or a time in seconds."""
    start, end = run.states[0].time, run.states[-1].time

    def around(kind: str, t: float, what: str) -> Clip:
        return Clip(max(start, t - CLIP_BEFORE), min(end, t + CLIP_AFTER), Trigger(kind, t, what))

    if at is None:
        return [Clip(start, end)]
    if at in ("violation", "collision"):
        clips = []
        if at == "violation":
            firsts: dict[str, float] = {}
            for rid, t, _ in run.violations():
                firsts.setdefault(rid, t)
            clips += [around("violation", t, rid) for rid, t in firsts.items()]
        clips += [around("collision", t, other) for t, other, _ in run.collisions()]
        return sorted(clips, key=lambda c: c.trigger.time)
    try:
        t = float(at)
    except ValueError:
        raise UserError(f"--at {at!r}: expected 'violation', 'collision' or a time in seconds") from None
    if not math.isfinite(t) or t < start - 1e-9 or t > end + 1e-9:
        raise UserError(f"--at {at}: the run covers {start:.2f} s to {end:.2f} s")
    return [around("time", t, "")]


def frame_indices(run: RunData, clip: Clip, fps: float) -> list[int]:
    """State indices drawn for a clip: every state in [t0, t1], thinned to `fps` when it is below the trace's rate."""
    rate = 1.0 / run.trace.tick
    step = max(1, int(round(rate / fps)))
    idx = [i for i, st in enumerate(run.states) if clip.t0 - 1e-9 <= st.time <= clip.t1 + 1e-9]
    return idx[::step]


def frame_size(n_cams: int) -> tuple[int, int]:
    """(width, height) of a composed frame with n camera views."""
    return BEV_SIZE + (CAM_W if n_cams else 0) + PANEL_W, BEV_SIZE


class FrameComposer:
    """Builds composed frames (BGR) of one run: bird's-eye view, the camera views stacked, the panel."""

    def __init__(self, run: RunData, views: list[str], span: float = 80.0):
        from roadtest.report.bev import BevRenderer
        from roadtest.report.cameras import camera_sources

        self.run = run
        self.bev = BevRenderer(run, BEV_SIZE, span) if "bev" in views else None
        self.cams = camera_sources(run, [v for v in views if v != "bev"])
        self.size = frame_size(len(self.cams))

    def frame(self, i: int, trigger: Trigger | None = None) -> np.ndarray:
        import cv2

        w, h = self.size
        img = np.zeros((h, w, 3), np.uint8)
        x = 0
        if self.bev is not None:
            img[:, :BEV_SIZE] = self.bev.draw(i)
        x = BEV_SIZE
        if self.cams:
            cell = h // len(self.cams)
            for k, cam in enumerate(self.cams):
                pic = cam.image(self.run.states[i].frame)
                if pic is None:
                    continue
                ph, pw = pic.shape[:2]
                s = min(CAM_W / pw, cell / ph)
                pic = cv2.resize(pic, (max(1, int(pw * s)), max(1, int(ph * s))), interpolation=cv2.INTER_AREA)
                y0 = k * cell + (cell - pic.shape[0]) // 2
                img[y0:y0 + pic.shape[0], x:x + pic.shape[1]] = pic
                cv2.putText(img, cam.name, (x + 6, k * cell + 18), 0, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
            x += CAM_W
        img[:, x:x + PANEL_W] = draw_panel(self.run, i, trigger, h)
        if trigger is not None and trigger.kind != "time" and abs(self.run.states[i].time - trigger.time) <= 0.5:
            cv2.rectangle(img, (2, 2), (BEV_SIZE - 3, h - 3), (0, 0, 255), 4)  # the moment itself
        return img


def _frames(comp: FrameComposer, idx: list[int], trigger: Trigger | None, progress) -> Iterator[bytes]:
    import cv2

    for i in idx:
        yield cv2.cvtColor(comp.frame(i, trigger), cv2.COLOR_BGR2RGB).tobytes()
        if progress is not None:
            progress()


def write_clip(comp: FrameComposer, clip: Clip, out: Path, fps: float, progress=None) -> int:
    """Encode one clip as H.264 (yuv420p) to `out`; returns the frame count."""
    import imageio_ffmpeg

    idx = frame_indices(comp.run, clip, fps)
    if not idx:
        raise UserError(f"{out}: no state between {clip.t0:.2f} s and {clip.t1:.2f} s")
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = imageio_ffmpeg.write_frames(str(out), comp.size, fps=fps, codec="libx264", macro_block_size=16,
                                         output_params=["-preset", "veryfast", "-crf", "23"])
    writer.send(None)
    for data in _frames(comp, idx, clip.trigger, progress):
        writer.send(data)
    writer.close()
    return len(idx)


def replay_command(run_dir: Path, out: Path, at: str | None, views: str | None, fps: float | None, span: float) -> int:
    """Render the clips asked for; print one line per file written. `views` None: bev and every saved camera view."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from roadtest.report.cameras import saved_views
    from roadtest.report.rundata import load_run

    if views is None:
        views = ",".join(["bev"] + saved_views(Path(run_dir)))
    names = [v.strip() for v in views.split(",") if v.strip()]
    if not names:
        raise UserError("--views: expected a comma-separated list such as bev,front")
    if str(out).lower().endswith(".mp4") is False:
        raise UserError(f"-o {out}: expected a .mp4 file name")
    if span <= 0:
        raise UserError(f"--span {span}: expected metres > 0")
    run = load_run(run_dir)
    fps = fps or 1.0 / run.trace.tick
    if not math.isfinite(fps) or fps <= 0:
        raise UserError(f"--fps {fps}: expected frames per second > 0")
    comp = FrameComposer(run, names, span)
    clips = clip_windows(run, at)
    console = Console(stderr=True)
    if not clips:
        console.print(f"{run.run_id}: no {'violation or collision' if at == 'violation' else at} to cut a clip at")
        return 0
    total = sum(len(frame_indices(run, c, fps)) for c in clips)
    with Progress(TextColumn("[bold]frames"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("", total=total)
        for c in clips:
            path = out.with_name(out.stem + c.suffix() + out.suffix)
            n = write_clip(comp, c, path, fps, lambda: bar.advance(task))
            what = c.trigger.label() if c.trigger else "whole run"
            console.print(f"wrote {path} ({n} frames, {comp.size[0]}x{comp.size[1]}, {fps:g} fps, {what})")
    return 0
