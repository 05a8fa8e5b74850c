"""Trajectory shapes (Polyline, Clothoid, ClothoidSpline, Nurbs) sampled into a followable path."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from roadtest.sim.xosc.motion import Path
from roadtest.sim.xosc.positions import parse_position, resolve

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["build_path", "SHAPES"]

SHAPES = ("Polyline", "Clothoid", "ClothoidSpline", "Nurbs")
_DS = 0.25  # m between samples of curved shapes


def _pos(el: Any, net: RoadNetworkAPI | None, entities: dict, file: str):
    return resolve(parse_position(el, file), net, entities)


def _arc(x: float, y: float, h: float, k0: float, k1: float, length: float):
    """Points along a clothoid from (x, y, h) with curvature going linearly from k0 to k1."""
    n = max(2, int(length / _DS))
    ds = length / n
    out = []
    for i in range(n):
        k = k0 + (k1 - k0) * (i + 0.5) / n
        hm = h + k * ds / 2
        x += ds * math.cos(hm)
        y += ds * math.sin(hm)
        h += k * ds
        out.append((x, y, h))
    return out


def _peak_times(knots: np.ndarray, k: int, n: int, t: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Time at each parameter u: control point i's time sits where its basis function peaks, linear between (as esmini)."""
    from scipy.interpolate import BSpline

    lo, hi = knots[k], knots[n]
    grid = np.linspace(lo, hi, max(2000, 200 * n))
    basis = np.nan_to_num(BSpline(knots, np.eye(n), k, extrapolate=False)(np.minimum(grid, hi - 1e-9)))
    peaks = np.maximum.accumulate(grid[np.argmax(basis, axis=0)])  # first grid point of each maximum
    seg = np.clip(np.searchsorted(peaks, u, side="right") - 1, 0, max(0, n - 2))
    if n < 2:
        return np.full(len(u), t[0])
    span = peaks[seg + 1] - peaks[seg]
    w = np.divide(u - peaks[seg], span, out=np.zeros(len(u)), where=span > 1e-12)
    return t[seg] + w * (t[seg + 1] - t[seg])


def _nurbs(shape: Any, net: RoadNetworkAPI | None, entities: dict, file: str):
    """Points (x, y, z, h, time or nan) of a rational B-spline from its control points, weights and knots."""
    from scipy.interpolate import BSpline

    order = int(shape.get("order"))
    cps = shape.findall("ControlPoint")
    knots = np.array([float(k.get("value")) for k in shape.findall("Knot")])
    pts, w, t = [], [], []
    for cp in cps:
        r = _pos(cp.find("Position"), net, entities, file)
        pts.append((r.x, r.y, r.z))
        w.append(float(cp.get("weight", "1") or 1))
        t.append(float(cp.get("time")) if cp.get("time") not in (None, "") else math.nan)
    pts, w, t = np.array(pts), np.array(w), np.array(t)
    k = order - 1
    hom = np.column_stack([pts * w[:, None], w[:, None]])
    spl = BSpline(knots, hom, k)
    u = np.linspace(knots[k], knots[len(cps)], max(50, 40 * len(cps)))
    v = spl(u)
    xyz = v[:, :3] / v[:, 3:4]
    tt = _peak_times(knots, k, len(cps), t, u) if not np.isnan(t).any() else np.full(len(u), math.nan)
    h = np.arctan2(np.gradient(xyz[:, 1]), np.gradient(xyz[:, 0]))
    return [(a[0], a[1], a[2], hh, ti) for a, hh, ti in zip(xyz, h, tt)]


def build_path(traj: Any, timing: Any, e: Any, now: float, net: RoadNetworkAPI | None, entities: dict, file: str) -> Path:
    """Sample a <Trajectory>; vertex times (when the shape has them and a Timing is given) make it timed."""
    shape = traj.find("Shape")[0]
    xs: list[float] = []
    ys: list[float] = []
    zs: list[float] = []
    hs: list[float] = []
    ts: list[float] = []
    if shape.tag == "Polyline":
        for v in shape.findall("Vertex"):
            r = _pos(v.find("Position"), net, entities, file)
            xs.append(r.x), ys.append(r.y), zs.append(r.z), hs.append(r.h)
            if v.get("time") not in (None, ""):
                ts.append(float(v.get("time")))
    elif shape.tag == "Nurbs":
        for x, y, z, h, t in _nurbs(shape, net, entities, file):
            xs.append(x), ys.append(y), zs.append(z), hs.append(h)
            if not math.isnan(t):
                ts.append(t)
    else:
        if shape.tag == "Clothoid":
            k0 = float(shape.get("curvature", "0"))
            kd = float(shape.get("curvaturePrime", shape.get("curvatureDot", "0")) or 0)
            length = float(shape.get("length"))
            segs = [(k0, k0 + kd * length, length, 0.0, shape.find("Position"), shape.get("startTime"))]
            t_end = shape.get("stopTime")
        else:
            segs = [(float(sg.get("curvatureStart", "0")), float(sg.get("curvatureEnd", "0")), float(sg.get("length")),
                     float(sg.get("hOffset", "0") or 0), sg.find("PositionStart"), sg.get("timeStart"))
                    for sg in shape.findall("ClothoidSplineSegment")]
            t_end = shape.get("timeEnd")
        x, y, z, h = e.x, e.y, e.z, e.h
        timed = t_end not in (None, "") and all(sg[5] not in (None, "") for sg in segs)
        for i, (k0, k1, length, hoff, start, tstart) in enumerate(segs):
            if start is not None and len(start):
                r = _pos(start if start.tag == "Position" else start, net, entities, file)
                x, y, z, h = r.x, r.y, r.z, r.h
            h += hoff
            pts = [(x, y, h)] + _arc(x, y, h, k0, k1, length)
            if timed:
                t0 = float(tstart)
                t1 = float(segs[i + 1][5]) if i + 1 < len(segs) else float(t_end)
                seg_t = [t0 + (t1 - t0) * j / (len(pts) - 1) for j in range(len(pts))]
            for j, (px, py, ph) in enumerate(pts):
                if xs and j == 0 and math.hypot(px - xs[-1], py - ys[-1]) < 1e-9:
                    continue  # continuous with the previous segment
                xs.append(px), ys.append(py), zs.append(z), hs.append(ph)
                if timed:
                    ts.append(seg_t[j])
            x, y, h = pts[-1]
    if not xs:
        xs, ys, zs, hs = [e.x], [e.y], [e.z], [e.h]
    times = None
    if timing is not None and ts and len(ts) == len(xs):
        scale, offset = float(timing.get("scale", "1") or 1), float(timing.get("offset", "0") or 0)
        base = now if timing.get("domainAbsoluteRelative", "absolute") == "relative" else 0.0
        times = np.maximum.accumulate(np.array(ts) * scale + offset + base)
    return Path(np.column_stack([xs, ys]), np.array(zs), np.array(hs), times)
