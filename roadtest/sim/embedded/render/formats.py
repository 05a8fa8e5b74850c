"""CARLA's image formats: BGRA colour, depth encoded in R, G, B, and semantic tags (CARLA 0.9.16) in R."""

from __future__ import annotations

import numpy as np

__all__ = ["TAGS", "encode_depth", "decode_depth", "tags_to_bgra", "CITYSCAPES_BGR"]

# CARLA 0.9.16 CityObjectLabel ids (LibCarla rpc/ObjectLabel.h)
TAGS = {
    "unlabeled": 0, "road": 1, "sidewalk": 2, "building": 3, "wall": 4, "fence": 5, "pole": 6,
    "traffic_light": 7, "traffic_sign": 8, "vegetation": 9, "terrain": 10, "sky": 11, "pedestrian": 12,
    "rider": 13, "car": 14, "truck": 15, "bus": 16, "train": 17, "motorcycle": 18, "bicycle": 19, "static": 20,
    "dynamic": 21, "other": 22, "water": 23, "road_line": 24, "ground": 25, "bridge": 26, "rail_track": 27,
    "guard_rail": 28,
}

# CARLA's CityScapesPalette colours per tag, BGR (for viewing saved segmentation frames)
CITYSCAPES_BGR = np.array([
    (0, 0, 0), (128, 64, 128), (232, 35, 244), (70, 70, 70), (156, 102, 102), (153, 153, 190), (153, 153, 153),
    (30, 170, 250), (0, 220, 220), (35, 142, 107), (152, 251, 152), (180, 130, 70), (60, 20, 220), (0, 0, 255),
    (142, 0, 0), (70, 0, 0), (100, 60, 0), (100, 80, 0), (230, 0, 0), (32, 11, 119), (160, 170, 110),
    (50, 120, 170), (60, 20, 55), (150, 60, 45), (50, 234, 157), (81, 0, 81), (100, 100, 150), (140, 150, 230),
    (180, 165, 180)], np.uint8)

_SCALE = float(2 ** 24 - 1)


def encode_depth(depth_m: np.ndarray) -> np.ndarray:
    """Planar depth (m) -> H x W x 4 BGRA uint8 as CARLA's depth camera: 1000 m x (R + 256 G + 65536 B) / (2^24 - 1)."""
    n = np.rint(np.clip(np.asarray(depth_m, np.float64) / 1000.0, 0.0, 1.0) * _SCALE).astype(np.uint32)
    out = np.empty(n.shape + (4,), np.uint8)
    out[..., 2] = n & 0xFF
    out[..., 1] = (n >> 8) & 0xFF
    out[..., 0] = (n >> 16) & 0xFF
    out[..., 3] = 255
    return out


def decode_depth(bgra: np.ndarray) -> np.ndarray:
    """CARLA-encoded depth image (BGRA) -> metres, the formula of CARLA's documentation."""
    b = bgra.astype(np.float64)
    return 1000.0 * (b[..., 2] + 256.0 * b[..., 1] + 65536.0 * b[..., 0]) / _SCALE


def tags_to_bgra(tags: np.ndarray) -> np.ndarray:
    """Tag ids (H x W uint8) -> BGRA with the tag in the red channel, as CARLA's raw segmentation image."""
    out = np.zeros(tags.shape + (4,), np.uint8)
    out[..., 2] = tags
    out[..., 3] = 255
    return out
