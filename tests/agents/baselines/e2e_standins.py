"""Test-only stand-ins for the end-to-end model tests: NOT models and NOT the camera renderer.

- FixedCurveStandInModel: answers every /infer with the same gentle right-hand curve (six points 2.5 m apart
  along the lidar y axis, 0.5 s apart: 5 m/s) and records the requests it received.
- StallingStandInModel / FailingStandInModel / DyingStandInModel: stall, raise, or kill the server process.
- FakeCameraStandInSimulator: the built-in simulator plus flat test images for sensor.camera.rgb (one colour
  per camera, BGRA as CARLA's), used until the real renderer is on this branch.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Mapping

import numpy as np

from roadtest.sim.embedded.simulator import EmbeddedSimulation, EmbeddedSimulator
from roadtest.sim.embedded.sensors import observe

CURVE = [[0.05 * (2.5 * i / 5.0) ** 2, 2.5 * i] for i in range(1, 7)]  # lidar frame: x right, y forward (m)


def camera_colour(index: int) -> tuple[int, int, int]:
    """(B, G, R) of the fake image of camera `index` in CAMERAS order: far apart, so a swap is visible."""
    return (10 + 40 * index, 128, 240 - 40 * index)


class FixedCurveStandInModel:
    """Stand-in model: a fixed curve for every request; keeps the requests for the tests to inspect."""

    def __init__(self, curve=None):
        self.curve = curve or CURVE
        self.requests: list[dict] = []
        self.resets: list[dict] = []

    def reset(self, request):
        self.resets.append(request)

    def infer(self, request):
        self.requests.append(request)
        return {"trajectory": self.curve, "modes": [self.curve] * 6}


class StallingStandInModel(FixedCurveStandInModel):
    """Stand-in model that answers `answers` requests, then blocks until `release` is set."""

    def __init__(self, answers: int = 2):
        super().__init__()
        self.answers = answers
        self.release = threading.Event()

    def infer(self, request):
        if len(self.requests) >= self.answers:
            self.release.wait(30.0)
        return super().infer(request)


class FailingStandInModel(FixedCurveStandInModel):
    """Stand-in model whose third inference raises, as a model crashing on a CUDA error would."""

    def infer(self, request):
        if len(self.requests) >= 2:
            raise RuntimeError("CUDA out of memory (stand-in)")
        return super().infer(request)


class DyingStandInModel(FixedCurveStandInModel):
    """Stand-in model that kills its whole server process at inference number `steps` (a string from --model-arg)."""

    def __init__(self, steps: str = "3"):
        super().__init__()
        self.steps = int(steps)

    def infer(self, request):
        if len(self.requests) + 1 >= self.steps:
            os._exit(3)
        return super().infer(request)


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
