"""Pictograms for sign faces, each a shapely geometry in a 1 x 1 box centred on (0, 0), y down.

`place(g, cx, cy, size)` puts one on a face. Drawn after the common pictograms of the Vienna convention
and of MUTCD (walking figure, two children, worker with shovel, car side views, skidding car, arrows).
"""

from __future__ import annotations

import math

from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from roadtest.signs.canvas import arrow, circle, rect, rotate, scale, stroke, translate, union

__all__ = ["place", "mirror", "pedestrian", "children", "worker", "car_rear", "skid", "curve",
           "merge", "narrows", "narrows_both", "tunnel", "u_turn", "turn", "straight_arrow", "keep_arrow", "roundabout",
           "light_housing", "light_lamps", "exclamation", "fog", "height_marks", "zebra"]


def place(g: BaseGeometry, cx: float, cy: float, size: float) -> BaseGeometry:
    return translate(scale(g, size, size, origin=(0, 0)), cx, cy)


def mirror(g: BaseGeometry) -> BaseGeometry:
    return scale(g, -1, 1, origin=(0, 0))


def _figure(x: float, y: float, s: float, stride: float = 1.0) -> BaseGeometry:
    """A walking person, head at (x, y - 0.36 s), height about s."""
    w = 0.12 * s
    head = circle(x + 0.03 * s, y - 0.40 * s, 0.085 * s)
    body = stroke([(x + 0.02 * s, y - 0.27 * s), (x - 0.02 * s, y + 0.05 * s)], w)
    leg_f = stroke([(x - 0.02 * s, y + 0.05 * s), (x + 0.12 * s * stride, y + 0.25 * s), (x + 0.17 * s * stride, y + 0.47 * s)], w * 0.9)
    leg_b = stroke([(x - 0.02 * s, y + 0.05 * s), (x - 0.13 * s * stride, y + 0.26 * s), (x - 0.25 * s * stride, y + 0.42 * s)], w * 0.9)
    arm_f = stroke([(x + 0.02 * s, y - 0.22 * s), (x + 0.14 * s, y - 0.06 * s), (x + 0.20 * s, y + 0.06 * s)], w * 0.7)
    arm_b = stroke([(x + 0.01 * s, y - 0.22 * s), (x - 0.12 * s, y - 0.08 * s), (x - 0.18 * s, y + 0.05 * s)], w * 0.7)
    return union(head, body, leg_f, leg_b, arm_f, arm_b)


def pedestrian() -> BaseGeometry:
    return _figure(0.0, 0.02, 0.95)


def zebra(width: float = 0.9, n: int = 5) -> BaseGeometry:
    """Stripes of a crossing under a figure (lower part of the box)."""
    bars = [rect(-width / 2 + i * width / n + 0.02, 0.38, -width / 2 + (i + 0.55) * width / n + 0.02, 0.48) for i in range(n)]
    return union(*bars)


def children() -> BaseGeometry:
    """An older child leading a younger one (DE 136, GB 545, CN, JP style)."""
    return union(_figure(-0.18, -0.02, 0.9), _figure(0.22, 0.12, 0.66))


def worker() -> BaseGeometry:
    """A worker digging with a shovel at a heap (DE 123, GB 7001)."""
    s = 1.0
    head = circle(-0.12, -0.36, 0.085)
    body = stroke([(-0.12, -0.24), (0.0, 0.06)], 0.12)
    legs = union(stroke([(0.0, 0.06), (-0.12, 0.26), (-0.18, 0.46)], 0.11), stroke([(0.0, 0.06), (0.16, 0.26), (0.14, 0.46)], 0.11))
    arms = union(stroke([(-0.10, -0.20), (0.10, -0.02), (0.22, 0.10)], 0.08), stroke([(-0.08, -0.18), (-0.22, 0.02)], 0.08))
    shovel = union(stroke([(-0.30, -0.10), (0.30, 0.26)], 0.04 * s), Polygon([(0.26, 0.22), (0.40, 0.22), (0.42, 0.36), (0.30, 0.36)]))
    heap = Polygon([(0.20, 0.47), (0.36, 0.34), (0.50, 0.47)])
    return union(head, body, legs, arms, shovel, heap)




def car_rear(x: float = 0.0, y: float = 0.0, s: float = 1.0) -> BaseGeometry:
    """A car seen from behind (no overtaking signs), about s wide."""
    body = rect(-0.5, -0.05, 0.5, 0.32, 0.08)
    roof = Polygon([(-0.36, -0.05), (-0.26, -0.40), (0.26, -0.40), (0.36, -0.05)])
    wheels = union(rect(-0.44, 0.28, -0.24, 0.48, 0.04), rect(0.24, 0.28, 0.44, 0.48, 0.04))
    return translate(scale(union(roof, body, wheels), s, s, origin=(0, 0)), x, y)


def skid() -> BaseGeometry:
    """A skidding car with two crossing tyre tracks behind it (slippery road)."""
    car = rotate(car_rear(0.0, -0.22, 0.62), -12)
    tracks = union(stroke([(-0.08, 0.06), (-0.25, 0.22), (0.05, 0.38), (-0.12, 0.48)], 0.06),
                   stroke([(0.16, 0.06), (0.0, 0.22), (0.30, 0.38), (0.12, 0.48)], 0.06))
    return union(car, tracks)


def curve(right: bool = True, head: bool = True) -> BaseGeometry:
    """A road bending to the right (or left) ahead: a thick bent bar, with an arrowhead or without."""
    pts = [(-0.14, 0.46), (-0.14, 0.02)] + [(-0.14 + 0.34 * (1 - math.cos(t)), 0.02 - 0.34 * math.sin(t))
                                             for t in [i * math.pi / 2 / 12 for i in range(1, 13)]]
    pts = pts[:-3] + [(0.34, -0.38)]
    g = arrow(pts, 0.15, 0.26) if head else stroke(pts, 0.17, cap="flat")
    return g if right else mirror(g)


def merge(from_right: bool = True) -> BaseGeometry:
    """A main road with a lane joining it from the right (or left)."""
    main = stroke([(-0.08, 0.46), (-0.08, -0.46)], 0.16, cap="flat")
    side = stroke([(0.30, 0.46), (0.30, 0.22), (0.0, -0.12)], 0.11, cap="flat")
    g = union(main, side)
    return g if from_right else mirror(g)


def narrows(right: bool = True) -> BaseGeometry:
    """Carriageway narrows on the right (or left): two edges, one stepping in."""
    left_edge = stroke([(-0.26, 0.46), (-0.26, -0.46)], 0.11, cap="flat")
    right_edge = stroke([(0.28, 0.46), (0.28, 0.12), (0.08, -0.12), (0.08, -0.46)], 0.11, cap="flat")
    g = union(left_edge, right_edge)
    return g if right else mirror(g)


def narrows_both() -> BaseGeometry:
    """Carriageway narrows on both sides."""
    g = stroke([(0.30, 0.46), (0.30, 0.12), (0.12, -0.12), (0.12, -0.46)], 0.11, cap="flat")
    return union(g, mirror(g))


def tunnel() -> BaseGeometry:
    """A tunnel portal: an arch in a hill face."""
    outer = union(rect(-0.48, -0.05, 0.48, 0.42), circle(0.0, -0.05, 0.48).intersection(rect(-0.5, -0.6, 0.5, -0.05)))
    inner = union(rect(-0.28, -0.02, 0.28, 0.42), circle(0.0, -0.02, 0.28).intersection(rect(-0.3, -0.4, 0.3, -0.02)))
    return outer.difference(inner)


def u_turn() -> BaseGeometry:
    """An arrow up the right side that turns back down on the left."""
    pts = [(0.22, 0.42), (0.22, -0.05)] + [(0.22 * math.cos(t), -0.05 - 0.22 * math.sin(t)) for t in
                                            [i * math.pi / 12 for i in range(1, 13)]] + [(-0.22, 0.22)]
    return arrow(pts, 0.13, 0.2)


def turn(right: bool = True) -> BaseGeometry:
    """An arrow going up then turning right (or left)."""
    pts = [(-0.12, 0.42), (-0.12, -0.02)] + [(-0.12 + 0.18 * (1 - math.cos(t)), -0.02 - 0.18 * math.sin(t))
                                             for t in [i * math.pi / 2 / 6 for i in range(1, 7)]] + [(0.40, -0.20)]
    g = arrow(pts, 0.14, 0.22)
    return g if right else mirror(g)


def straight_arrow() -> BaseGeometry:
    return arrow([(0.0, 0.42), (0.0, -0.42)], 0.16, 0.28)


def keep_arrow(right: bool = True) -> BaseGeometry:
    """The arrow pointing down to the right (pass this side of the obstacle)."""
    g = arrow([(-0.28, -0.28), (0.30, 0.30)], 0.17, 0.30)
    return g if right else mirror(g)


def roundabout() -> BaseGeometry:
    """Three arrows chasing each other anticlockwise on the page (right-hand traffic)."""
    parts = []
    for k in range(3):
        a0 = math.radians(80 + 120 * k)
        pts = [(0.32 * math.cos(a0 - t), 0.32 * math.sin(a0 - t)) for t in [i * math.radians(95) / 16 for i in range(17)]]
        parts.append(arrow(pts, 0.11, 0.19))
    return union(*parts)


def light_housing() -> BaseGeometry:
    return rect(-0.17, -0.46, 0.17, 0.46, 0.08)


def light_lamps() -> list[BaseGeometry]:
    """Red, amber, green lamp discs, top to bottom, inside `light_housing`."""
    return [circle(0.0, y, 0.11) for y in (-0.28, 0.0, 0.28)]




def exclamation() -> BaseGeometry:
    bar = Polygon([(-0.07, -0.45), (0.07, -0.45), (0.04, 0.18), (-0.04, 0.18)])
    return union(bar, circle(0.0, 0.36, 0.08))


def fog() -> BaseGeometry:
    """Horizontal wavy bands (fog)."""
    bands = []
    for i, y in enumerate((-0.3, -0.1, 0.1, 0.3)):
        pts = [(-0.45 + 0.9 * t / 20, y + 0.04 * math.sin(t / 20 * 2 * math.pi * 2 + i)) for t in range(21)]
        bands.append(stroke(pts, 0.09))
    return union(*bands)


def height_marks() -> BaseGeometry:
    """Two triangles pointing at each other at top and bottom (height limit)."""
    top = Polygon([(-0.16, -0.48), (0.16, -0.48), (0.0, -0.30)])
    bot = Polygon([(-0.16, 0.48), (0.16, 0.48), (0.0, 0.30)])
    return union(top, bot)
