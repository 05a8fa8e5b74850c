"""Test-only stand-in for the camera renderer (the models' stand-ins are in e2e_standin_models.py).

- FakeCameraStandInSimulator: the built-in simulator plus flat test images for sensor.camera.rgb (one colour
  per camera, BGRA as CARLA's) where the renderer's cost (~1 s a tick for six 1600x900 views on CPU) would
  only slow a test that is not about the pictures.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from roadtest.sim.embedded.simulator import EmbeddedSimulation, EmbeddedSimulator
from roadtest.sim.embedded.sensors import observe


def camera_colour(index: int) -> tuple[int, int, int]:
    """(B, G, R) of the fake image of camera `index` in CAMERAS order: far apart, so a swap is visible."""
    return (10 + 40 * index, 128, 240 - 40 * index)


def fake_image(spec: Mapping[str, Any], index: int) -> np.ndarray:
    """H x W x 4 BGRA, flat colour of camera `index` with a faint horizontal ramp (JPEG has something to code)."""
    h, w = int(spec["height"]), int(spec["width"])
    img = np.empty((h, w, 4), np.uint8)
    img[..., :3] = camera_colour(index)
    img[..., 1] = (128 + (np.arange(w) * 16 // w)).astype(np.uint8)[None, :]
    img[..., 3] = 255
    return img


class _FakeCameraSimulation(EmbeddedSimulation):
    _cache: dict[str, np.ndarray] = {}

    def _observe(self, sensor_specs):
        from roadtest.agents.baselines.e2e_server import CAMERAS

        cams = [s for s in sensor_specs if s.get("type") == "sensor.camera.rgb"]
        out = observe(self, [s for s in sensor_specs if s.get("type") != "sensor.camera.rgb"])
        frame = self.state.frame if self.state is not None else 0
        for spec in cams:
            key = f"{spec['id']}:{spec['width']}x{spec['height']}"
            if key not in self._cache:
                idx = CAMERAS.index(spec["id"]) if spec["id"] in CAMERAS else 0
                self._cache[key] = fake_image(spec, idx)
            out[spec["id"]] = (frame, self._cache[key])
        return out


class FakeCameraStandInSimulator(EmbeddedSimulator):
    """Test-only backend: the built-in simulator with flat fake camera images (not rendered)."""

    @classmethod
    def sensor_types(cls) -> frozenset[str]:
        return super().sensor_types() | {"sensor.camera.rgb"}

    def load(self, bundle, seed: int = 0, settings=None, params=None):
        sim = super().load(bundle, seed, settings, params)
        sim.__class__ = _FakeCameraSimulation
        return sim
