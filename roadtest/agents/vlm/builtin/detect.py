"""What the builtin backend sees in a camera image: sign boards (colour blobs classified by the sign classifier)
and the lit lamp of a traffic light, with distances from the camera's own geometry.

Sign distance: a board's longer side is `SIGN_SIZE` m, so d = focal * SIGN_SIZE / pixels. Light distance: a
lamp sits about `LAMP_HEIGHT` m up, so d = focal * (LAMP_HEIGHT - camera height) / (pixels above the horizon).
Both assume a level camera (pitch 0), as the default front camera is; boards cut by the image's edge are
skipped (half a sign is guesswork).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from roadtest.agents.vlm.builtin.classifier import SignClassifier

__all__ = ["Detection", "LampReading", "find_signs", "find_lamp", "is_foggy", "focal_px", "SIGN_SIZE", "LAMP_HEIGHT"]

SIGN_SIZE = 1.0  # m, a board's longer side as the renderer draws it (measured against its ground truth)
LAMP_HEIGHT = 5.5  # m: the lit lamp of a traffic-light head, as the renderer mounts it (its distance then reads as the stop line's)
MIN_PX, MAX_PX = 7, 220  # board sizes considered
MIN_PROB = 0.55
HORIZON_SHARE = 0.62  # boards and lamps lie in the upper part of the image (the road fills the rest)


@dataclass(frozen=True)
class Detection:
    label: str  # classifier label: "stop", "speed_limit:50"...
    prob: float
    box: tuple[int, int, int, int]  # x, y, w, h in px
    distance: float  # m
    side: str  # left | right

    @property
    def sign_id(self) -> str:
        return self.label.split(":", 1)[0]

    @property
    def value(self) -> float | None:
        return float(self.label.split(":", 1)[1]) if ":" in self.label else None


@dataclass(frozen=True)
class LampReading:
    state: str  # red | yellow | green | none
    distance: float | None  # m
    pixels: int


def focal_px(width: int, fov_deg: float) -> float:
    return (width / 2.0) / math.tan(math.radians(fov_deg) / 2.0)


def _hsv(img: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV)
    return hsv[:, :, 0].astype(np.int16), hsv[:, :, 1].astype(np.int16), hsv[:, :, 2].astype(np.int16)


def _boxes(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    mask = cv2.dilate(mask.astype(np.uint8), np.ones((3, 3), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    for x, y, w, h, area in stats[1:]:
        if MIN_PX <= max(w, h) <= MAX_PX and 0.35 <= w / h <= 2.8 and area >= 0.12 * w * h:
            out.append((int(x), int(y), int(w), int(h)))
    return out


def _crop(img: np.ndarray, box: tuple[int, int, int, int], size: int) -> np.ndarray:
    x, y, w, h = box
    side = int(max(w, h) * 1.15) + 2
    cx, cy = x + w / 2.0, y + h / 2.0
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    pad = np.pad(img, ((side, side), (side, side), (0, 0)), mode="edge")
    patch = pad[y0 + side:y0 + 2 * side, x0 + side:x0 + 2 * side]
    interp = cv2.INTER_AREA if side > size else cv2.INTER_LINEAR
    return cv2.resize(patch, (size, size), interpolation=interp)


def find_signs(img: np.ndarray, classifier: SignClassifier, fov_deg: float) -> list[Detection]:
    """Sign boards in an RGB image, nearest first."""
    h_img, w_img = img.shape[:2]
    top = img[: int(h_img * HORIZON_SHARE)]
    hue, sat, val = _hsv(top)
    band = slice(0, max(1, top.shape[0] // 8))
    sky_v, sky_s = float(np.median(val[band])), float(np.median(sat[band]))
    white_v = max(150.0, sky_v + 25.0) if sky_s <= 40 else 150.0  # a grey sky is itself low-saturation
    masks = [((hue <= 10) | (hue >= 165)) & (sat >= 80) & (val >= 45),
             (hue >= 95) & (hue <= 130) & (sat >= 90) & (val >= 40),
             (hue >= 15) & (hue <= 35) & (sat >= 90) & (val >= 70),
             (sat <= 40) & (val >= white_v)]
    boxes: list[tuple[int, int, int, int]] = []
    for m in masks:
        boxes += _boxes(m)
    boxes.sort(key=lambda b: -b[2] * b[3])
    kept: list[tuple[int, int, int, int]] = []
    horizon = h_img / 2.0  # a board hangs higher than the camera: its centre is above the horizon
    boxes = [b for b in boxes if b[1] + b[3] / 2 < horizon and b[0] > 0 and b[1] > 0 and b[0] + b[2] < w_img]
    for b in boxes:  # a ring's inside, or a plate's text, lies in a bigger box already kept
        cx, cy = b[0] + b[2] / 2, b[1] + b[3] / 2
        if not any(k[0] <= cx <= k[0] + k[2] and k[1] <= cy <= k[1] + k[3] for k in kept):
            kept.append(b)
    if not kept:
        return []
    labels, probs = classifier.predict(np.stack([_crop(top, b, classifier.input) for b in kept]))
    f = focal_px(w_img, fov_deg)
    out = []
    for b, lab, p in zip(kept, labels, probs):
        if lab == "background" or p < MIN_PROB:
            continue
        out.append(Detection(lab, float(p), b, f * SIGN_SIZE / max(b[2], b[3]),
                             "right" if b[0] + b[2] / 2 >= w_img / 2 else "left"))
    return sorted(out, key=lambda d: d.distance)


def find_lamp(img: np.ndarray, fov_deg: float, camera_z: float = 1.6) -> LampReading:
    """The lit lamp with the most pixels (red, yellow or green): bright, saturated, small, above the horizon."""
    h_img, w_img = img.shape[:2]
    horizon = h_img / 2.0
    top = img[: int(horizon)]
    hue, sat, val = _hsv(top)
    bright = (sat >= 110) & (val >= 170)
    best = LampReading("none", None, 0)
    f = focal_px(w_img, fov_deg)
    for state, m in (("red", (hue <= 8) | (hue >= 170)), ("yellow", (hue >= 15) & (hue <= 34)),
                     ("green", (hue >= 40) & (hue <= 95))):
        mask = (bright & m).astype(np.uint8)
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for (x, y, w, h, area), (cx, cy) in zip(stats[1:], cents[1:]):
            if not (1 <= max(w, h) <= 40 and 0.4 <= w / h <= 2.5 and area >= 0.4 * w * h):
                continue  # a lamp is a small filled disc; a sign's ring is hollow
            if area > best.pixels and horizon - cy > 0.5:
                best = LampReading(state, f * (LAMP_HEIGHT - camera_z) / (horizon - cy), int(area))
    return best


def is_foggy(img: np.ndarray) -> bool:
    """Fog: the upper half bright and flat (grey-level spread under 20 where a clear day gives over 50; on the
    renderer's fog of 50 m visibility it is under 14), which a dark night sky is not."""
    grey = cv2.cvtColor(img[: img.shape[0] // 2], cv2.COLOR_RGB2GRAY)
    return float(grey.std()) < 20.0 and float(grey.mean()) > 90.0
