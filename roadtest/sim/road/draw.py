"""`roadtest map`: draw an OpenDRIVE map (lanes by type, marks, junctions, signals, objects, scale bar)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from roadtest.errors import UserError
from roadtest.sim.road.network import RoadNetwork, load_map

__all__ = ["map_command", "render_map", "render_map_view", "MapView", "lane_strips", "signal_label", "LANE_COLORS"]

# BGR fills per OpenDRIVE lane type
LANE_COLORS = {
    "driving": (72, 72, 72), "bidirectional": (72, 72, 90), "entry": (80, 80, 80), "exit": (80, 80, 80),
    "onRamp": (80, 80, 80), "offRamp": (80, 80, 80), "connectingRamp": (80, 80, 80),
    "sidewalk": (175, 180, 195), "walking": (175, 180, 195), "shoulder": (120, 135, 140),
    "border": (140, 150, 150), "parking": (110, 90, 70), "biking": (90, 70, 150), "stop": (80, 80, 150),
    "restricted": (60, 90, 160), "median": (80, 140, 90), "curb": (200, 200, 200), "none": (205, 215, 205),
}
_MARK_COLORS = {"yellow": (0, 200, 255), "white": (255, 255, 255), "standard": (255, 255, 255),
                "blue": (200, 80, 0), "green": (0, 160, 0), "red": (0, 0, 220), "orange": (0, 140, 255)}
_BG = (205, 225, 205)
_STEP = 0.5  # m between boundary samples


class MapView:
    """World metres to image pixels (y up in the world, down in the image)."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray, max_px: int = 2000, margin: int = 50,
                 scale: float | None = None):
        span = np.maximum(hi - lo, 1.0)
        self.scale = scale if scale is not None else min(max_px / span[0], max_px / span[1], 40.0)
        self.lo, self.hi, self.margin = lo, hi, margin
        self.w = int(span[0] * self.scale) + 2 * margin
        self.h = int(span[1] * self.scale) + 2 * margin + 40

    def px(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, dtype=float).reshape(-1, 2)
        u = (xy[:, 0] - self.lo[0]) * self.scale + self.margin
        v = (self.hi[1] - xy[:, 1]) * self.scale + self.margin
        return np.round(np.column_stack([u, v]) * 4).astype(np.int32)  # 2 fractional bits for cv2 shift=2


def lane_strips(net: RoadNetwork):
    """Yield (road, section index, lane, s samples, inner xy, outer xy) for every lane of every section."""
    for road in net.roads.values():
        for si, sec in enumerate(road.sections):
            n = max(2, int(math.ceil((sec.s_end - sec.s) / _STEP)) + 1)
            s = np.linspace(sec.s, sec.s_end, n)
            for lid, (tin, tout) in road.bounds(si, s).items():
                xi, yi, _ = road.world(s, tin)
                xo, yo, _ = road.world(s, tout)
                yield road, si, sec.lanes[lid], s, np.column_stack([xi, yi]), np.column_stack([xo, yo])


def _dashes(pts: np.ndarray, on: float, off: float) -> list[np.ndarray]:
    d = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
    out, start = [], 0.0
    while start < d[-1]:
        end = min(start + on, d[-1])
        m = (d >= start) & (d <= end)
        if m.sum() >= 2:
            out.append(pts[m])
        start += on + off
    return out


def _offset(pts: np.ndarray, dist: float) -> np.ndarray:
    """The polyline shifted `dist` m to its left."""
    if len(pts) < 2:
        return pts
    d = np.gradient(pts, axis=0)
    n = np.column_stack([-d[:, 1], d[:, 0]]) / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)[:, None]
    return pts + dist * n


def render_map(net: RoadNetwork, max_px: int = 2000) -> np.ndarray:
    """The map as a BGR image."""
    return render_map_view(net, max_px)[0]


def render_map_view(net: RoadNetwork, max_px: int = 2000, scale: float | None = None,
                    decorations: bool = True) -> tuple[np.ndarray, MapView]:
    """The map as a BGR image and the view that placed it (world metres -> pixels), for drawing over it.

    `scale` (px/m) overrides the fit to `max_px`; `decorations` False leaves out the title and scale bar."""
    import cv2

    strips = list(lane_strips(net))
    allpts = np.concatenate([np.concatenate([a, b]) for *_, a, b in strips])
    view = MapView(allpts.min(0) - 5.0, allpts.max(0) + 5.0, max_px, scale=scale)
    img = np.full((view.h, view.w, 3), _BG, np.uint8)
    aa = dict(lineType=cv2.LINE_AA, shift=2)
    junction_layer = img
    junction_pts: dict[str, list[np.ndarray]] = {}
    for in_junction in (False, True):
        if in_junction:
            junction_layer = img.copy()  # the tint blends junction lanes only
        for road, si, lane, s, inner, outer in strips:
            if lane.id == 0 or (road.junction is not None) != in_junction:
                continue
            poly = view.px(np.concatenate([inner, outer[::-1]]))
            color = LANE_COLORS.get(lane.type, (150, 150, 150))
            cv2.fillPoly(img, [poly], color, **aa)
            if in_junction:
                cv2.fillPoly(junction_layer, [poly], (150, 110, 60), **aa)
                junction_pts.setdefault(road.junction, []).append(np.concatenate([inner, outer]))
    if junction_pts:
        img[:] = cv2.addWeighted(img, 0.65, junction_layer, 0.35, 0)
        for jid, parts in junction_pts.items():
            hull = cv2.convexHull(view.px(np.concatenate(parts)))
            cv2.polylines(img, [hull], True, (0, 120, 255), 2, **aa)
            c = np.concatenate(parts).mean(0)
            u, v = view.px(c)[0] // 4
            cv2.putText(img, f"J{jid}", (int(u), int(v)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 90, 200), 1, cv2.LINE_AA)
    lw = max(1, int(round(0.15 * view.scale)))
    for road, si, lane, s, inner, outer in strips:
        sec = road.sections[si]
        for k, (off, mark) in enumerate(lane.marks):
            end = lane.marks[k + 1][0] if k + 1 < len(lane.marks) else sec.s_end - sec.s
            m = (s - sec.s >= off - 1e-9) & (s - sec.s <= end + 1e-9)
            if mark.type in ("none", "") or m.sum() < 2:
                continue
            line = outer[m]
            color = _MARK_COLORS.get(mark.color, (255, 255, 255))
            words = mark.type.split()
            shifts = [0.0] if len(words) == 1 else [0.12, -0.12]
            for word, sh in zip(words, shifts):
                pts = _offset(line, sh) if sh else line
                pieces = _dashes(pts, 3.0, 6.0) if word == "broken" else [pts]
                if word == "botts":
                    pieces = _dashes(pts, 0.3, 2.0)
                cv2.polylines(img, [view.px(p) for p in pieces], False, color, lw, **aa)
    for obj in net.objects:
        color = (255, 255, 255) if obj.type == "crosswalk" else (0, 0, 200) if obj.type == "stopLine" else (40, 90, 160)
        if obj.outline:
            poly = view.px(np.array(obj.outline))
        elif obj.length > 0 and obj.width > 0:
            x, y, _ = net.roads[obj.road].world(obj.s, obj.t)
            c, sn = math.cos(obj.heading), math.sin(obj.heading)
            loc = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [obj.length / 2, obj.width / 2]
            wx = x[0] + c * loc[:, 0] - sn * loc[:, 1]
            wy = y[0] + sn * loc[:, 0] + c * loc[:, 1]
            poly = view.px(np.column_stack([wx, wy]))
        else:
            x, y, _ = net.roads[obj.road].world(obj.s, obj.t)
            u, v = view.px([x[0], y[0]])[0]
            cv2.circle(img, (int(u), int(v)), 12, color, -1, **aa)
            continue
        if obj.type == "crosswalk":
            layer = img.copy()
            cv2.fillPoly(layer, [poly], color, **aa)
            img[:] = cv2.addWeighted(img, 0.4, layer, 0.6, 0)
        cv2.polylines(img, [poly], True, color, 2, **aa)
    r = max(4, int(0.6 * view.scale))
    for road in net.roads.values():
        for sg in road.signals:
            x, y, _ = road.world(sg.s, sg.t)
            u, v = view.px([x[0], y[0]])[0]
            fill = (0, 200, 255) if sg.dynamic else (40, 40, 220)
            cv2.circle(img, (int(u), int(v)), r * 4, fill, -1, **aa)
            cv2.circle(img, (int(u), int(v)), r * 4, (255, 255, 255), 1, **aa)
            label = signal_label(sg)
            cv2.putText(img, label, (int(u) // 4 + r + 2, int(v) // 4 - r), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                        (20, 20, 120), 1, cv2.LINE_AA)
    if not decorations:
        return img, view
    _scale_bar(img, view)
    title = f"{Path(net.source).name}: {len(net.roads)} roads, {len(net.junctions)} junctions, " \
            f"{len(net.placed_signals)} signals, {len(net.objects)} objects, {net.driving_side}-hand traffic"
    cv2.putText(img, title, (10, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (20, 20, 20), 1, cv2.LINE_AA)
    return img, view


def signal_label(sg) -> str:
    """A signal's label on the map: the name its author gave it, else its id, else its type code."""
    return sg.name or sg.id or (f"{sg.type}" + (f".{sg.subtype}" if sg.subtype not in ("-1", "", "none") else ""))


def _scale_bar(img: np.ndarray, view: MapView) -> None:
    import cv2

    target = (view.w / 5) / view.scale
    base = 10 ** math.floor(math.log10(target))
    length = max(m * base for m in (1, 2, 5) if m * base <= target)
    x0, y0 = 20, view.h - 20
    x1 = x0 + int(length * view.scale)
    cv2.rectangle(img, (x0, y0 - 6), (x1, y0), (0, 0, 0), -1)
    cv2.rectangle(img, (x0, y0 - 6), ((x0 + x1) // 2, y0), (255, 255, 255), -1)
    cv2.rectangle(img, (x0, y0 - 6), (x1, y0), (0, 0, 0), 1)
    cv2.putText(img, f"{length:g} m", (x1 + 8, y0), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)


def map_command(xodr: Path, out: Path) -> int:
    """Draw `xodr` into the PNG `out`; returns the exit code (MapError propagates as a user error)."""
    import cv2

    xodr, out = Path(xodr), Path(out)
    if not xodr.is_file():
        raise UserError(f"{xodr}: no such OpenDRIVE file")
    net = load_map(xodr)
    img = render_map(net)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), img):
        raise UserError(f"{out}: cannot write the image (expected a .png path in a writable folder)")
    print(f"wrote {out} ({img.shape[1]}x{img.shape[0]} px, {len(net.roads)} roads)")
    return 0
