"""Small OpenDRIVE roads for generated scenarios: straight, arc, spiral into arc, a lane-width change, a junction.

Test data builders, not part of roadtest. Every road has two driving lanes each side (ids -2..2, 3.5 m wide
unless the width changes); the junction map is road 1 into junction 100 with three connecting roads (straight
on to road 2, left to road 3, right to road 4). Each builder returns the .xodr text.
"""

from __future__ import annotations

import math

__all__ = ["road_xodr", "junction_xodr", "SHAPES", "LENGTH"]

SHAPES = ("straight", "arc", "spiral", "width")
LENGTH = 300.0  # m, every non-junction road
_W = 3.5


def _header() -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<OpenDRIVE>\n'
            '  <header revMajor="1" revMinor="7" name="generated" version="1.00" north="0" south="0" east="0" west="0"/>\n')


def _lane(lid: int, widths: list[tuple[float, float, float]], pred: int | None = None, succ: int | None = None) -> str:
    link = ""
    if pred is not None or succ is not None:
        link = ("<link>" + (f'<predecessor id="{pred}"/>' if pred is not None else "")
                + (f'<successor id="{succ}"/>' if succ is not None else "") + "</link>")
    else:
        link = "<link/>"
    w = "".join(f'<width sOffset="{s:g}" a="{a:g}" b="{b:g}" c="0" d="0"/>' for s, a, b in widths)
    mark = '<roadMark sOffset="0" type="solid" weight="standard" color="standard" width="0.12"/>'
    return f'          <lane id="{lid}" type="driving" level="false">{link}{w}{mark}</lane>\n'


def _lanes(ids: tuple[int, ...], widths: dict[int, list[tuple[float, float, float]]] | None = None,
           links: bool = False) -> str:
    widths = widths or {}
    left = [i for i in ids if i > 0]
    right = [i for i in ids if i < 0]
    out = '    <lanes>\n      <laneSection s="0">\n'
    if left:
        out += "        <left>\n" + "".join(_lane(i, widths.get(i, [(0, _W, 0)]), *((i, i) if links else ()))
                                        for i in sorted(left, reverse=True)) + "        </left>\n"
    out += '        <center><lane id="0" type="none" level="false"><roadMark sOffset="0" type="solid" ' \
           'weight="standard" color="standard" width="0.12"/></lane></center>\n'
    if right:
        out += "        <right>\n" + "".join(_lane(i, widths.get(i, [(0, _W, 0)]), *((i, i) if links else ()))
                                         for i in sorted(right, reverse=True)) + "        </right>\n"
    return out + "      </laneSection>\n    </lanes>\n"


def _road(rid: int, length: float, geometry: str, lanes: str, link: str = "", junction: int = -1) -> str:
    return (f'  <road name="r{rid}" length="{length:.6f}" id="{rid}" junction="{junction}">\n'
            f"    <link>{link}</link>\n"
            '    <type s="0" type="town"><speed max="50" unit="km/h"/></type>\n'
            f"    <planView>\n{geometry}    </planView>\n{lanes}  </road>\n")


def _geom(s: float, x: float, y: float, hdg: float, length: float, kind: str) -> str:
    return (f'      <geometry s="{s:.6f}" x="{x:.6f}" y="{y:.6f}" hdg="{hdg:.9f}" length="{length:.6f}">'
            f"{kind}</geometry>\n")


def _arc_end(x: float, y: float, h: float, k: float, length: float) -> tuple[float, float, float]:
    if abs(k) < 1e-12:
        return x + length * math.cos(h), y + length * math.sin(h), h
    h1 = h + k * length
    return x + (math.sin(h1) - math.sin(h)) / k, y - (math.cos(h1) - math.cos(h)) / k, h1


def _spiral_end(x: float, y: float, h: float, k1: float, length: float, n: int = 2000) -> tuple[float, float, float]:
    """End pose of a clothoid from curvature 0 to k1 (numerical: midpoint rule on the heading)."""
    ds = length / n
    for i in range(n):
        hm = h + k1 * ((i + 0.5) * ds) ** 2 / (2 * length)
        x, y = x + ds * math.cos(hm), y + ds * math.sin(hm)
    return x, y, h + k1 * length / 2


def road_xodr(shape: str, curvature: float = 0.0, width: float = _W) -> str:
    """One 300 m road, id 1, starting at the origin heading east.

    straight; arc of `curvature` (1/m, + left); spiral: 50 m line, 100 m clothoid to `curvature`, 150 m arc;
    width: straight, lane -1 narrowing (or widening) linearly from 3.5 m to `width` between s 60 and 100."""
    if shape == "straight":
        g = _geom(0, 0, 0, 0, LENGTH, "<line/>")
    elif shape == "arc":
        g = _geom(0, 0, 0, 0, LENGTH, f'<arc curvature="{curvature:.9f}"/>')
    elif shape == "spiral":
        x, y, h = 50.0, 0.0, 0.0
        x2, y2, h2 = _spiral_end(x, y, h, curvature, 100.0)
        g = (_geom(0, 0, 0, 0, 50, "<line/>")
             + _geom(50, x, y, h, 100, f'<spiral curvStart="0" curvEnd="{curvature:.9f}"/>')
             + _geom(150, x2, y2, h2, 150, f'<arc curvature="{curvature:.9f}"/>'))
    elif shape == "width":
        g = _geom(0, 0, 0, 0, LENGTH, "<line/>")
        b = (width - _W) / 40.0
        lanes = _lanes((2, 1, -1, -2), {-1: [(0, _W, 0), (60, _W, b), (100, width, 0)]})
        return _header() + _road(1, LENGTH, g, lanes) + "</OpenDRIVE>\n"
    else:
        raise ValueError(f"road shape {shape!r}: expected one of {SHAPES}")
    return _header() + _road(1, LENGTH, g, _lanes((2, 1, -1, -2))) + "</OpenDRIVE>\n"


def junction_xodr(radius: float = 20.0) -> str:
    """Road 1 (100 m east) into junction 100: road 10 straight on (20 m) to road 2, road 11 left and road 12 right
    (quarter circles of `radius` on the reference line) to roads 3 and 4; roads 2-4 are 100 m long."""
    L = 100.0
    roads = [_road(1, L, _geom(0, 0, 0, 0, L, "<line/>"), _lanes((2, 1, -1, -2)),
                   '<successor elementType="junction" elementId="100"/>')]
    arc = math.pi / 2 * radius
    ends = {10: (L + 20, 0.0, 0.0, 20.0, 0.0, 2), 11: (*_arc_end(L, 0, 0, 1 / radius, arc), arc, 1 / radius, 3),
            12: (*_arc_end(L, 0, 0, -1 / radius, arc), arc, -1 / radius, 4)}
    for cid, (x, y, h, length, k, out) in ends.items():
        kind = "<line/>" if k == 0 else f'<arc curvature="{k:.9f}"/>'
        lanes = _lanes((-1, -2) if cid == 10 else (-1,), links=True)
        roads.append(_road(cid, length, _geom(0, L, 0, 0, length, kind), lanes,
                           f'<predecessor elementType="road" elementId="1" contactPoint="end"/>'
                           f'<successor elementType="road" elementId="{out}" contactPoint="start"/>', junction=100))
        roads.append(_road(out, L, _geom(0, x, y, h, L, "<line/>"), _lanes((2, 1, -1, -2)),
                           '<predecessor elementType="junction" elementId="100"/>'))
    conns = "".join(
        f'    <connection id="{i}" incomingRoad="1" connectingRoad="{cid}" contactPoint="start">'
        + "".join(f'<laneLink from="{ln}" to="{ln}"/>' for ln in ((-1, -2) if cid == 10 else (-1,)))
        + "</connection>\n" for i, cid in enumerate(ends))
    return (_header() + "".join(roads) + f'  <junction id="100" name="j">\n{conns}  </junction>\n</OpenDRIVE>\n')
