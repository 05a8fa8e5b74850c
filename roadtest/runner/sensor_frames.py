"""`roadtest run --save-sensors`: every rendered frame as a PNG, OUT/runs/<run id>/sensors/<sensor id>/<frame>.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

__all__ = ["FrameSaver"]


class FrameSaver:
    """Writes the image readings of each tick once (a camera with a sensor_tick repeats its last frame).

    Files hold the images exactly as the agent got them (BGRA; depth CARLA-encoded; segmentation tag in R), so
    a replay or an export decodes them as CARLA's own saved frames."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self._last: dict[str, int] = {}

    def __call__(self, data: Mapping[str, Any]) -> None:
        import cv2

        for sid, reading in data.items():
            if not (isinstance(reading, tuple) and len(reading) == 2 and isinstance(reading[1], np.ndarray)
                    and reading[1].ndim == 3):
                continue
            frame, img = reading
            if self._last.get(sid) == frame:
                continue
            self._last[sid] = frame
            d = self.folder / str(sid)
            d.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(d / f"{int(frame):06d}.png"), img)
