"""Test-only stand-in models for the model server: NOT models. Standard library only, so the server script runs
them in a bare interpreter (`python -S`), as it would in a model's own environment.

- FixedCurveStandInModel: answers every /infer with the same gentle right-hand curve (six points 2.5 m apart
  along the lidar y axis, 0.5 s apart: 5 m/s) and records the requests it received.
- StallingStandInModel / FailingStandInModel / DyingStandInModel: stall, raise, or kill the server process.
"""

import os
import threading

CURVE = [[0.05 * (2.5 * i / 5.0) ** 2, 2.5 * i] for i in range(1, 7)]  # lidar frame: x right, y forward (m)


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
