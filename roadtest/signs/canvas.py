"""A supersampled RGBA canvas in sign units (the face's longer side is 1.0, y down) that sign recipes paint on.

Shapes are shapely geometries, so rounded corners, borders (negative buffers) and strokes (buffered lines)
come from one geometry library; the result is area-averaged down to the requested size (anti-aliased,
premultiplied so that edges do not darken).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import cv2
import numpy as np
from shapely import affinity
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry

from roadtest.signs import fonts

__all__ = ["Canvas", "circle", "rounded", "regular_polygon", "stroke", "rect", "triangle", "diamond", "octagon",
           "arrow", "translate", "scale", "rotate", "union"]

SUPERSAMPLE = 4


def circle(cx: float, cy: float, r: float) -> Polygon:
    return Point(cx, cy).buffer(r, quad_segs=64)


def rect(x0: float, y0: float, x1: float, y1: float, r: float = 0.0) -> Polygon:
    return rounded(box(x0, y0, x1, y1), r)


def rounded(geom: BaseGeometry, r: float) -> BaseGeometry:
    """The geometry with its convex corners rounded to radius r."""
    return geom.buffer(-r, quad_segs=16).buffer(r, quad_segs=16) if r > 0 else geom


def regular_polygon(cx: float, cy: float, r: float, n: int, start_deg: float) -> Polygon:
    a = [math.radians(start_deg + 360.0 * k / n) for k in range(n)]
    return Polygon([(cx + r * math.cos(t), cy + r * math.sin(t)) for t in a])


def triangle(cx: float, cy: float, side: float, up: bool = True, r: float = 0.0) -> BaseGeometry:
    """Equilateral triangle centred on its bounding box: apex up (warning) or down (give way)."""
    h = side * math.sqrt(3) / 2
    top, bot = cy - h / 2, cy + h / 2
    pts = [(cx, top), (cx + side / 2, bot), (cx - side / 2, bot)] if up else [(cx - side / 2, top), (cx + side / 2, top), (cx, bot)]
    return rounded(Polygon(pts), r)


def diamond(cx: float, cy: float, half: float, r: float = 0.0) -> BaseGeometry:
    return rounded(Polygon([(cx, cy - half), (cx + half, cy), (cx, cy + half), (cx - half, cy)]), r)


def octagon(cx: float, cy: float, r: float) -> Polygon:
    return regular_polygon(cx, cy, r, 8, 22.5)


def stroke(points: Sequence[tuple[float, float]], width: float, cap: str = "round") -> BaseGeometry:
    caps = {"round": 1, "flat": 2, "square": 3}
    return LineString(points).buffer(width / 2, cap_style=caps[cap], join_style=1, quad_segs=12)


def arrow(points: Sequence[tuple[float, float]], width: float, head: float | None = None) -> BaseGeometry:
    """A polyline shaft with a triangular head ending at its last point (head: the head's length)."""
    from shapely.ops import substring

    head = head or width * 2.2
    line = LineString(points)
    shaft_line = substring(line, 0.0, max(line.length - head * 0.9, 1e-6))
    (x0, y0), (x1, y1) = line.interpolate(line.length - head).coords[0], points[-1]
    d = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / d, (y1 - y0) / d
    bx, by = x1 - ux * head, y1 - uy * head
    shaft = shaft_line.buffer(width / 2, cap_style=2, join_style=1, quad_segs=12)
    hw = head * 0.85
    tip = Polygon([(x1, y1), (bx - uy * hw, by + ux * hw), (bx + uy * hw, by - ux * hw)])
    return shaft.union(tip)


def translate(g: BaseGeometry, dx: float, dy: float) -> BaseGeometry:
    return affinity.translate(g, dx, dy)


def scale(g: BaseGeometry, sx: float, sy: float | None = None, origin: tuple[float, float] | str = "center") -> BaseGeometry:
    return affinity.scale(g, sx, sx if sy is None else sy, origin=origin)


def rotate(g: BaseGeometry, deg: float, origin: tuple[float, float] | str = "center") -> BaseGeometry:
    """Rotate clockwise on the page (y points down) by deg degrees."""
    return affinity.rotate(g, deg, origin=origin)


def union(*gs: BaseGeometry) -> BaseGeometry:
    out = gs[0]
    for g in gs[1:]:
        out = out.union(g)
    return out


def _rings(g: BaseGeometry) -> Iterable[Polygon]:
    if isinstance(g, Polygon):
        yield g
    elif isinstance(g, MultiPolygon) or hasattr(g, "geoms"):
        for part in g.geoms:
            yield from _rings(part)


class Canvas:
    """Paint in sign units; `rgba()` returns the face at its final size."""

    def __init__(self, width: float, height: float, px: int):
        self.w, self.h = float(width), float(height)
        self.px = int(px)
        self.out_w = max(1, round(px * width / max(width, height)))
        self.out_h = max(1, round(px * height / max(width, height)))
        self.k = SUPERSAMPLE * px / max(width, height)
        sw, sh = self.out_w * SUPERSAMPLE, self.out_h * SUPERSAMPLE
        self.rgb = np.zeros((sh, sw, 3), np.float32)
        self.alpha = np.zeros((sh, sw), np.float32)

    def _mask(self, g: BaseGeometry) -> np.ndarray:
        m = np.zeros(self.alpha.shape, np.uint8)
        for poly in _rings(g):
            if poly.is_empty:
                continue
            rings = [poly.exterior] + list(poly.interiors)
            pts = [np.round(np.asarray(r.coords) * self.k * 16).astype(np.int32) for r in rings]
            cv2.fillPoly(m, pts, 1, lineType=cv2.LINE_8, shift=4)
        return m.view(bool)

    def fill(self, g: BaseGeometry, color: Sequence[int]) -> None:
        """Paint a shape; the outermost shape (the sign's board) is what makes pixels opaque."""
        m = self._mask(g)
        self.rgb[m] = np.asarray(color[:3], np.float32)
        self.alpha[m] = 1.0

    def text(self, s: str, x0: float, y0: float, x1: float, y1: float, color: Sequence[int], *,
             font: str = "sans-bold", squeeze: float = 1.0, align: str = "center") -> None:
        """Fit text into the box (keeping its aspect, narrowed by `squeeze`), centred vertically."""
        glyphs = fonts.render(s, font)  # raises when a glyph is not shipped: never a blank legend
        gh, gw = glyphs.shape
        bw, bh = (x1 - x0) * self.k, (y1 - y0) * self.k
        f = min(bh / gh, bw / (gw * squeeze))
        th, tw = max(1, round(gh * f)), max(1, round(gw * f * squeeze))
        m = cv2.resize(glyphs, (tw, th), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        cx = {"center": (x0 + x1) / 2 * self.k - tw / 2, "left": x0 * self.k, "right": x1 * self.k - tw}[align]
        ox, oy = int(round(cx)), int(round((y0 + y1) / 2 * self.k - th / 2))
        H, W = self.alpha.shape
        ys, xs = slice(max(oy, 0), min(oy + th, H)), slice(max(ox, 0), min(ox + tw, W))
        cov = m[ys.start - oy:ys.stop - oy, xs.start - ox:xs.stop - ox][..., None]
        region = self.rgb[ys, xs]
        region += (np.asarray(color[:3], np.float32) - region) * cov

    def rgba(self) -> np.ndarray:
        """H x W x 4 uint8, transparent outside the board, premultiplied area averaging."""
        size = (self.out_w, self.out_h)
        a = cv2.resize(self.alpha, size, interpolation=cv2.INTER_AREA)
        pm = cv2.resize(self.rgb * self.alpha[..., None], size, interpolation=cv2.INTER_AREA)
        rgb = np.where(a[..., None] > 1e-6, pm / np.maximum(a[..., None], 1e-6), 0.0)
        out = np.dstack([np.clip(rgb, 0, 255), np.clip(a * 255.0, 0, 255)])
        return np.round(out).astype(np.uint8)
