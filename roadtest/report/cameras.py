"""Camera views for a replay: the frames `--save-sensors` kept under the run folder, else re-rendered.

Saved frames are looked up as RUN_DIR/sensors/<sensor id>/<frame number>.png (as `roadtest run
--save-sensors` writes them); the frame shown at a tick is the latest saved at or before that
tick's frame number (a camera with a sensor_tick saves fewer frames than the simulator steps).
A view named after a camera rig (`front`, `uniad`) shows that rig's cameras: saved frames when the
run kept them, else each tick re-rendered from the trace by the built-in camera renderer.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

import numpy as np

from roadtest.errors import UserError
from roadtest.report.rundata import RunData

__all__ = ["CameraSource", "RenderedSource", "saved_views", "camera_sources"]

_EXT = (".png", ".jpg", ".jpeg")
_NUM = re.compile(r"(\d+)")


def saved_views(run_dir: Path) -> list[str]:
    """Names of the camera views whose frames were saved in the run folder."""
    root = Path(run_dir) / "sensors"
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(f.suffix.lower() in _EXT for f in p.iterdir()))


class CameraSource:
    """One view's saved frames, fetched by simulation frame number."""

    def __init__(self, name: str, folder: Path):
        self.name = name
        files = []
        for f in folder.iterdir():
            m = _NUM.findall(f.stem)
            if f.suffix.lower() in _EXT and m:
                files.append((int(m[-1]), f))
        files.sort()
        self.frames = [n for n, _ in files]
        self.files = [f for _, f in files]
        self._cache: tuple[int, np.ndarray] | None = None

    def image(self, frame: int) -> np.ndarray | None:
        """BGR image of the latest saved frame at or before `frame`, None before the first."""
        import cv2

        k = bisect.bisect_right(self.frames, frame) - 1
        if k < 0:
            return None
        if self._cache is None or self._cache[0] != k:
            img = cv2.imread(str(self.files[k]), cv2.IMREAD_COLOR)
            if img is None:
                raise UserError(f"{self.files[k]}: not a readable image")
            self._cache = (k, img)
        return self._cache[1]


class RenderedSource:
    """One camera of a rig, rendered from each recorded state (the run kept no frames of it)."""

    def __init__(self, spec: dict, run: RunData, cameras):
        self.name = str(spec.get("id"))
        self.spec, self.run, self.cameras = spec, run, cameras
        self._by_frame = {st.frame: st for st in run.states}

    def image(self, frame: int) -> np.ndarray | None:
        st = self._by_frame.get(frame)
        if st is None or st.ego is None:
            return None
        _, img = self.cameras.observe(st, [self.spec])[self.name]
        return img[:, :, :3] if img.ndim == 3 and img.shape[2] == 4 else img


def _rig(name: str) -> list[dict] | None:
    from roadtest.sim.embedded.render.rigs import RIGS

    return [dict(s) for s in RIGS[name]] if name in RIGS and name != "bev" else None


def camera_sources(run: RunData, views: list[str]) -> list:
    """A source per requested camera (a rig gives one per camera); UserError naming what is there when one is missing."""
    have = saved_views(run.run_dir)
    out: list = []
    renderer = None
    for v in views:
        if v in have:
            out.append(CameraSource(v, run.run_dir / "sensors" / v))
            continue
        rig = _rig(v)
        if rig is None:
            raise UserError(f"--views {v}: no saved camera frames under {run.run_dir / 'sensors' / v} and no camera "
                            f"rig of that name to re-render (saved views: {', '.join(have) or 'none'}; "
                            "run with --camera NAME --save-sensors to keep them)")
        for spec in rig:
            sid = str(spec["id"])
            if sid in have:
                out.append(CameraSource(sid, run.run_dir / "sensors" / sid))
                continue
            if run.network is None:
                raise UserError(f"--views {v}: re-rendering camera {sid} needs the run's road.xodr, which was not found")
            if renderer is None:
                from roadtest.sim.embedded.render.cameras import Cameras

                renderer = Cameras(run.network)
            out.append(RenderedSource(spec, run, renderer))
    return out
