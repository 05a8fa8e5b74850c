"""TEST-ONLY stand-in camera: the embedded simulator with every `sensor.camera.rgb` answered by a flat grey
BGRA image of the asked size. It is not a renderer; it lets the agent's plumbing run before real frames exist.

Backend name for the runner: "fake_camera:FakeCameraEmbeddedSimulator" (the test folder is on sys.path).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from roadtest.sim.embedded import EmbeddedSimulator

__all__ = ["FakeCameraEmbeddedSimulator", "fake_camera_frame"]


def fake_camera_frame(spec: Mapping[str, Any]) -> np.ndarray:
    img = np.full((int(spec.get("height", 576)), int(spec.get("width", 1024)), 4), 128, np.uint8)
    img[:, :, 3] = 255
    return img


class FakeCameraEmbeddedSimulator(EmbeddedSimulator):
    """EmbeddedSimulator whose simulations answer camera specs with fake_camera_frame (TEST-ONLY)."""

    @classmethod
    def sensor_types(cls):
        return frozenset(super().sensor_types() | {"sensor.camera.rgb"})

    def load(self, bundle, seed: int = 0, settings=None, params=None):
        sim = super().load(bundle, seed, settings, params=params)
        real = sim._observe

        def observe(specs):
            cams = [s for s in specs if str(s.get("type", "")).startswith("sensor.camera")]
            out = real([s for s in specs if s not in cams])
            frame = sim.state.frame if sim.state is not None else 0
            for s in cams:
                out[str(s["id"])] = (frame, fake_camera_frame(s))
            return out

        sim._observe = observe
        return sim
