"""Camera sensors of one run: leaderboard specs in, {id: (frame, image)} out, rendered every tick or every
`sensor_tick` seconds; cameras with the same mounting and image share one render."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from roadtest.errors import UserError
from roadtest.sim.api import WorldState
from roadtest.sim.embedded.render.camera import CameraSpec

__all__ = ["Cameras", "OUTPUT_OF"]

# sensor type -> the renderer output it returns
OUTPUT_OF = {"sensor.camera.rgb": "rgb", "sensor.camera.depth": "depth",
             "sensor.camera.semantic_segmentation": "semantic", "roadtest.bev": "rgb"}


class Cameras:
    """The renderer of a run (made on the first camera reading, so a run without cameras creates no GL context)
    and each camera's last image, which stands until its sensor_tick has passed."""

    def __init__(self, network, renderer=None):
        """`renderer`: an existing Renderer of the same network (tests share one); else one is made."""
        if network is None:
            raise UserError("camera sensors need the scenario's road network (the scenario names no OpenDRIVE file)")
        from roadtest.sim.embedded.render.renderer import Renderer

        self.renderer = renderer or Renderer(network)
        self._last: dict[str, tuple[float, int, np.ndarray]] = {}
        self._specs: dict[str, CameraSpec] = {}

    def spec(self, raw: Mapping[str, Any]) -> CameraSpec:
        sid = str(raw.get("id", raw.get("type", "")))
        cam = self._specs.get(sid)
        if cam is None:
            cam = self._specs[sid] = CameraSpec.from_spec(raw)
        return cam

    def observe(self, state: WorldState, specs: list[Mapping[str, Any]]) -> dict[str, tuple[int, np.ndarray]]:
        """Images of this tick for the camera specs (types in OUTPUT_OF)."""
        ego = state.ego
        if ego is None:
            raise UserError("camera sensors need an ego vehicle to mount them on; the scenario has none")
        due: dict[tuple, list[CameraSpec]] = {}
        out: dict[str, tuple[int, np.ndarray]] = {}
        for raw in specs:
            cam = self.spec(raw)
            last = self._last.get(cam.id)
            if last is not None and cam.sensor_tick > 0 and state.time - last[0] < cam.sensor_tick - 1e-9:
                out[cam.id] = (last[1], last[2])
                continue
            due.setdefault(cam.key(), []).append(cam)
        for group in due.values():
            wanted = tuple(sorted({OUTPUT_OF[c.type] for c in group}))
            images = self.renderer.render(group[0], state, ego, wanted)
            for cam in group:
                img = images[OUTPUT_OF[cam.type]]
                self._last[cam.id] = (state.time, state.frame, img)
                out[cam.id] = (state.frame, img)
        return out

    def release(self) -> None:
        self.renderer.release()
