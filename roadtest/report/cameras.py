"""Camera views for a replay: the frames `--save-sensors` kept under the run folder.

Saved frames are looked up as RUN_DIR/sensors/<view>/<frame number>.(png|jpg); the frame shown at a
tick is the latest saved at or before that tick's frame number (agents may see fewer frames than
the simulator steps).
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

import numpy as np

from roadtest.errors import UserError
from roadtest.report.rundata import RunData

__all__ = ["CameraSource", "saved_views", "camera_sources"]

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


def camera_sources(run: RunData, views: list[str]) -> list[CameraSource]:
    """A source per requested camera view; UserError naming what is there when one is missing."""
    have = saved_views(run.run_dir)
    out = []
    for v in views:
        if v not in have:
            raise UserError(f"--views {v}: no saved camera frames under {run.run_dir / 'sensors' / v} "
                            f"(saved views: {', '.join(have) or 'none'}; run with --save-sensors to keep them)")
        out.append(CameraSource(v, run.run_dir / "sensors" / v))
    return out
