"""The sign classifier's forward pass in numpy (no torch at run time): three 3x3 conv + ReLU + 2x2 max-pool
layers, two dense layers, softmax over labels ("background", sign ids, "speed_limit:50"...).

The weights (sign_classifier.npz, float16, beside this module) are written by scripts/train_sign_classifier.py.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = ["SignClassifier", "INPUT", "load_classifier", "DEFAULT_CHECKPOINT"]

INPUT = 40  # px, square crops (the checkpoint says its own)
DEFAULT_CHECKPOINT = "sign_classifier.npz"


def _conv_relu_pool(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x: N x C x H x W, w: O x C x 3 x 3, padding 1; then ReLU and 2x2 max-pool."""
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # N C H W 3 3
    out = np.einsum("nchwij,ocij->nohw", cols, w, optimize=True) + b[None, :, None, None]
    out = np.maximum(out, 0.0)
    return out.reshape(n, out.shape[1], h // 2, 2, wd // 2, 2).max(axis=(3, 5))


class SignClassifier:
    """Labels and weights of one checkpoint; `predict(crops)` -> (labels, probabilities)."""

    def __init__(self, path: str | Path):
        data = np.load(path, allow_pickle=False)
        self.labels = [str(s) for s in data["labels"]]
        self.input = int(data["input"]) if "input" in data.files else 32
        self.w = {k: data[k].astype(np.float32) for k in data.files if k not in ("labels", "input")}

    def predict(self, crops: np.ndarray) -> tuple[list[str], np.ndarray]:
        """crops: N x input x input x 3 RGB uint8 -> best label and its probability per crop."""
        if len(crops) == 0:
            return [], np.zeros(0)
        x = (crops.astype(np.float32) / 255.0 - 0.5).transpose(0, 3, 1, 2)
        for i in (1, 2, 3):
            x = _conv_relu_pool(x, self.w[f"conv{i}.weight"], self.w[f"conv{i}.bias"])
        x = x.reshape(len(x), -1)
        x = np.maximum(x @ self.w["fc1.weight"].T + self.w["fc1.bias"], 0.0)
        logits = x @ self.w["fc2.weight"].T + self.w["fc2.bias"]
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        best = p.argmax(axis=1)
        return [self.labels[i] for i in best], p[np.arange(len(p)), best]


@lru_cache(maxsize=4)
def load_classifier(path: str | None = None) -> SignClassifier:
    """The shipped checkpoint, or the one at `path`."""
    if path:
        return SignClassifier(path)
    with resources.as_file(resources.files("roadtest.agents.vlm.builtin").joinpath(DEFAULT_CHECKPOINT)) as p:
        return SignClassifier(p)
