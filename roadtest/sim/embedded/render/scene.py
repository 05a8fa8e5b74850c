"""The static scene of an OpenDRIVE map as triangles: lane surfaces by type, kerbs, lane marks, crosswalks,
stop lines, signs on poles, traffic-light poles, street lights, objects, tunnels and bridges, ground and
buildings/trees beside roads; and the shelter map: where a tunnel's ceiling keeps the sun off.

Traffic-light heads and their lamps change per tick and are built by dynamic.py from the `lights` list here.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from roadtest.sim.embedded.render.atlas import SignAtlas
from roadtest.sim.embedded.render.formats import TAGS
from roadtest.sim.embedded.render.mesh import MAT_ASPHALT, MAT_FACE, MAT_LAMP, MAT_MARK, MAT_PLAIN, MAT_TERRAIN, MeshBuilder
from roadtest.sim.road.draw import _dashes, _offset
from roadtest.sim.road.model import DRIVING_TYPES
from roadtest.sim.road.network import RoadNetwork

__all__ = ["Scene", "build_scene", "LightHead", "TRAFFIC_LIGHT_TYPES"]

STEP = 2.0  # m between samples along a road (1 m where it curves)
MARK_LIFT = 0.015  # m above the surface: lane marks, crosswalks, stop lines
KERB = 0.12  # m, sidewalk height
SIGN_BOTTOM = 2.0  # m above the road, where a signal gives no zOffset (roadtest's roadside signs write 2.0)
SIGN_SIZE = 0.8  # m, a face's longer side where a signal gives no width or height
GANTRY_LIFT = 4.5  # m: a face this high is overhead, hung from a gantry instead of standing on a pole
LIGHT_HEIGHT = 4.5  # m, bottom of a traffic-light head
STREET_LIGHT_EVERY = 40.0  # m along a road
STREET_LIGHT_HEIGHT = 7.0  # m
TUNNEL_HEIGHT = 5.5  # m, ceiling above the road
SHELTER_CELL = 0.5  # m per shelter-map cell (coarser on big maps: at most 2048 cells a side)
TRAFFIC_LIGHT_TYPES = frozenset({"1000001", "1000002", "1000007", "1000008", "1000009", "1000010", "1000011",
                                 "1000012", "1000013"})  # OpenDRIVE's signal catalogue: traffic lights

_ASPHALT = (0.26, 0.26, 0.27)
_LANE_FILL = {  # (rgb, CARLA tag, material, raised)
    "sidewalk": ((0.62, 0.61, 0.58), "sidewalk", MAT_PLAIN, True),
    "walking": ((0.62, 0.61, 0.58), "sidewalk", MAT_PLAIN, True),
    "curb": ((0.7, 0.7, 0.68), "sidewalk", MAT_PLAIN, True),
    "shoulder": ((0.36, 0.35, 0.34), "road", MAT_ASPHALT, False),
    "border": ((0.33, 0.42, 0.25), "terrain", MAT_TERRAIN, False),
    "median": ((0.3, 0.45, 0.22), "terrain", MAT_TERRAIN, False),
    "parking": ((0.3, 0.3, 0.31), "road", MAT_ASPHALT, False),
    "biking": ((0.45, 0.25, 0.22), "road", MAT_ASPHALT, False),
    "restricted": ((0.34, 0.33, 0.3), "road", MAT_ASPHALT, False),
    "none": ((0.33, 0.42, 0.25), "terrain", MAT_TERRAIN, False),
}
_MARK_RGB = {"yellow": (0.85, 0.65, 0.1), "orange": (0.9, 0.45, 0.1), "blue": (0.1, 0.3, 0.8),
             "green": (0.1, 0.6, 0.2), "red": (0.8, 0.1, 0.1)}
_WHITE = (0.86, 0.86, 0.84)
_GRASS = (0.3, 0.42, 0.2)
_POLE = (0.45, 0.46, 0.47)


@dataclass(frozen=True)
class LightHead:
    """A traffic-light head: signal id, box centre, facing heading (towards the traffic it governs)."""

    id: str
    center: tuple[float, float, float]
    heading: float


@dataclass
class Scene:
    """Static triangles (N x 14 float32, positions minus `origin`), the sign atlas and the dynamic parts' data."""

    vertices: np.ndarray
    atlas: SignAtlas
    origin: np.ndarray
    lights: list[LightHead] = field(default_factory=list)
    street_lamps: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # world xyz minus origin
    ground_z: float = 0.0
    extent: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # xmin, ymin, xmax, ymax (world)
    # ceiling height (scene frame z) per cell where a tunnel covers the ground, -1e4 elsewhere; None: no tunnel
    shelter: np.ndarray | None = None
    shelter_lo: tuple[float, float] = (0.0, 0.0)  # scene-frame xy of cell (0, 0)'s corner
    shelter_cell: float = SHELTER_CELL


def _samples(road, si: int) -> np.ndarray:
    sec = road.sections[si]
    length = sec.s_end - sec.s
    curvy = float(np.max(np.abs(road.curvature(np.linspace(sec.s, sec.s_end, 5))))) > 1e-3
    step = 1.0 if curvy else STEP
    return np.linspace(sec.s, sec.s_end, max(2, int(math.ceil(length / step)) + 1))


def _xyz(road, s, t, lift=0.0) -> np.ndarray:
    x, y, _ = road.world(s, t)
    z = road.elevation(s) + lift
    return np.column_stack([x, y, np.broadcast_to(z, x.shape)])


def _lanes(mb: MeshBuilder, net: RoadNetwork) -> None:
    """Lane surfaces, kerbs and lane marks of every road."""
    for road in net.roads.values():
        for si, sec in enumerate(road.sections):
            s = _samples(road, si)
            bounds = road.bounds(si, s)
            for lid, (tin, tout) in bounds.items():
                lane = sec.lanes[lid]
                if lid != 0 and np.max(np.abs(tout - tin)) > 1e-3:
                    rgb, tag, mat, raised = _LANE_FILL.get(lane.type, (_ASPHALT, "road", MAT_ASPHALT, False))
                    if lane.type in DRIVING_TYPES or lane.type == "stop":
                        rgb, tag, mat, raised = _ASPHALT, "road", MAT_ASPHALT, False
                    lift = KERB if raised else 0.0
                    a, b = _xyz(road, s, tin, lift), _xyz(road, s, tout, lift)
                    left, right = (b, a) if lid > 0 else (a, b)
                    mb.strip(left, right, rgb, TAGS[tag], mat)
                    if raised:  # the kerb's face towards the carriageway
                        mb.strip(_xyz(road, s, tin, 0.0), a, (0.55, 0.55, 0.53), TAGS[tag], MAT_PLAIN,
                                 normal=(0.0, 0.0, 1.0))
                _marks(mb, road, si, lane, s, tout)


def _marks(mb: MeshBuilder, road, si: int, lane, s: np.ndarray, tout: np.ndarray) -> None:
    sec = road.sections[si]
    for k, (off, mark) in enumerate(lane.marks):
        end = lane.marks[k + 1][0] if k + 1 < len(lane.marks) else sec.s_end - sec.s
        m = (s - sec.s >= off - 1e-9) & (s - sec.s <= end + 1e-9)
        if mark.type in ("none", "", "curb", "grass", "edge") or m.sum() < 2:
            continue
        rgb = _MARK_RGB.get(mark.color, _WHITE)
        width = 0.25 if mark.weight == "bold" else 0.15
        line = _xyz(road, s[m], tout[m], MARK_LIFT)
        words = mark.type.split()
        shifts = [0.0] if len(words) == 1 else [0.1 + width / 2, -0.1 - width / 2]
        for word, sh in zip(words, shifts):
            xy = _offset(line[:, :2], sh) if sh else line[:, :2]
            pts = np.column_stack([xy, line[:, 2]])
            if word == "broken":
                pieces = _dashes(_resample(pts, 0.5), 3.0, 6.0)
            elif word == "botts":
                pieces = _dashes(_resample(pts, 0.1), 0.15, 1.5)
            else:
                pieces = [pts]
            for p in pieces:
                if len(p) >= 2:
                    l2 = np.column_stack([_offset(p[:, :2], width / 2), p[:, 2]])
                    r2 = np.column_stack([_offset(p[:, :2], -width / 2), p[:, 2]])
                    mb.strip(l2, r2, rgb, TAGS["road_line"], MAT_MARK)


def _resample(pts: np.ndarray, step: float) -> np.ndarray:
    """The polyline resampled every `step` m (dashes start and end on their own length, not on samples)."""
    d = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(pts[:, :2], axis=0), axis=1))])
    n = max(2, int(math.ceil(d[-1] / step)) + 1)
    q = np.linspace(0.0, d[-1], n)
    return np.column_stack([np.interp(q, d, pts[:, i]) for i in range(3)])


def _rect(net: RoadNetwork, obj, lift: float) -> tuple[np.ndarray, float, float] | None:
    """World corners (4 x 3) of an object's length x width rectangle at its (s, t), and its heading."""
    road = net.roads.get(obj.road)
    if road is None or not (obj.length > 0 and obj.width > 0):
        return None
    x, y, h = road.world(obj.s, obj.t)
    z = float(road.elevation(obj.s)) + lift
    hd = float(h[0]) + obj.heading
    c, sn = math.cos(hd), math.sin(hd)
    loc = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [obj.length / 2, obj.width / 2]
    return np.column_stack([x[0] + c * loc[:, 0] - sn * loc[:, 1], y[0] + sn * loc[:, 0] + c * loc[:, 1],
                            np.full(4, z)]), hd, z


def _objects(mb: MeshBuilder, net: RoadNetwork) -> None:
    """Crosswalk stripes, stop lines and boxes for the other objects (cones, barriers, poles, buildings)."""
    for obj in net.objects:
        kind = (obj.type or "").lower()
        name = (obj.name or "").lower()
        r = _rect(net, obj, MARK_LIFT)
        if kind == "crosswalk" and r is not None:
            corners, hd, z = r
            n = max(1, int(obj.width / 1.0))
            c, sn = math.cos(hd), math.sin(hd)
            along, across = np.array([c, sn, 0.0]), np.array([-sn, c, 0.0])
            base = corners[0]
            for i in range(n):  # 0.5 m stripes with 0.5 m gaps across the road
                v0 = (i + 0.25) * obj.width / n
                v1 = v0 + 0.5 * obj.width / n
                q = [base + across * v0, base + along * obj.length + across * v0,
                     base + along * obj.length + across * v1, base + across * v1]
                mb.quad(q, _WHITE, TAGS["road_line"], MAT_MARK)
        elif (kind in ("roadmark", "stopline") or "stopline" in name) and r is not None:
            mb.quad(r[0], _WHITE, TAGS["road_line"], MAT_MARK)
        elif r is not None or obj.outline:
            x, y, hd = (r[0][:, 0].mean(), r[0][:, 1].mean(), r[1]) if r is not None else (
                *np.mean(np.array(obj.outline), axis=0), obj.heading)
            road = net.roads.get(obj.road)
            z = float(road.elevation(obj.s)) if road is not None else 0.0
            rgb, tag, height = _object_look(kind)
            length, width = (obj.length, obj.width) if r is not None else (1.0, 1.0)
            mb.box((x, y, z + height / 2), (length, width, height), hd, rgb, TAGS[tag])


def _object_look(kind: str) -> tuple[tuple[float, float, float], str, float]:
    if kind in ("building",):
        return (0.6, 0.55, 0.5), "building", 8.0
    if kind in ("tree", "vegetation"):
        return (0.2, 0.4, 0.15), "vegetation", 5.0
    if kind in ("pole", "streetlamp"):
        return _POLE, "pole", 5.0
    if kind in ("barrier", "railing", "guardrail"):
        return (0.8, 0.8, 0.8), "guard_rail", 0.9
    if kind in ("trafficisland",):
        return (0.6, 0.6, 0.58), "sidewalk", 0.15
    return (0.9, 0.4, 0.1), "static", 0.8


def _signals(mb: MeshBuilder, net: RoadNetwork, atlas: SignAtlas) -> list[LightHead]:
    """Signs (pole, textured face, grey back) and traffic-light poles; returns the light heads."""
    heads = []
    for road in net.roads.values():
        for sg in road.signals:
            x, y, h = road.world(sg.s, sg.t)
            x, y, h = float(x[0]), float(y[0]), float(h[0])
            z = float(road.elevation(sg.s))
            facing = h + math.pi if sg.orientation != "-" else h  # the face looks at the traffic it governs
            nx, ny = math.cos(facing), math.sin(facing)
            if sg.dynamic or sg.type in TRAFFIC_LIGHT_TYPES:
                mb.box((x, y, z + LIGHT_HEIGHT / 2), (0.15, 0.15, LIGHT_HEIGHT), facing, _POLE, TAGS["pole"])
                heads.append(LightHead(sg.id, (x, y, z + LIGHT_HEIGHT + 0.55), facing))
                continue
            fw, fh, lift = sign_mount(sg, atlas.aspect(sg))
            bottom = z + lift
            if lift >= GANTRY_LIFT:  # overhead: a gantry beam from the face's top to a post beyond the road's edge
                _gantry(mb, road, sg, x, y, z, bottom + fh, h)
            else:
                mb.box((x, y, (z + bottom + fh / 2) / 2), (0.07, 0.07, bottom - z + fh / 2), facing, _POLE, TAGS["pole"])
            rx, ry = -ny * fw / 2, nx * fw / 2  # half-width towards the right of a viewer facing it
            fx, fy = x + nx * 0.05, y + ny * 0.05
            bl, br = (fx - rx, fy - ry, bottom), (fx + rx, fy + ry, bottom)
            tr, tl = (fx + rx, fy + ry, bottom + fh), (fx - rx, fy - ry, bottom + fh)
            mb.quad([bl, br, tr, tl], (1.0, 1.0, 1.0), TAGS["traffic_sign"], MAT_FACE, uv=atlas.uv(sg))
            bx, by = x - nx * 0.01, y - ny * 0.01
            mb.quad([(bx - rx, by - ry, bottom), (bx + rx, by + ry, bottom), (bx + rx, by + ry, bottom + fh),
                     (bx - rx, by - ry, bottom + fh)], (0.5, 0.5, 0.52), TAGS["traffic_sign"], MAT_PLAIN,
                    uv=atlas.uv(sg)[[1, 0, 3, 2]])  # the face's outline, mirrored as seen from behind
    return heads


def sign_mount(sg, aspect: tuple[float, float]) -> tuple[float, float, float]:
    """(face width, face height, lower edge above the road) in m of a sign as its OpenDRIVE signal mounts it:
    zOffset lifts the face's lower edge (SIGN_BOTTOM when not given), and the face, in its own aspect, is the
    largest that fits the signal's width x height (SIGN_SIZE for its longer side when neither is given)."""
    aw, ah = aspect
    w, h = (sg.width or None), (sg.height or None)
    fits = [v for v in ((w / aw) if w else None, (h / ah) if h else None) if v is not None]
    size = min(fits) if fits else SIGN_SIZE
    lift = sg.z_offset if sg.z_offset is not None else SIGN_BOTTOM
    return size * aw, size * ah, float(lift)


def _gantry(mb: MeshBuilder, road, sg, x: float, y: float, z: float, top: float, h: float) -> None:
    """A gantry for an overhead sign: a beam at the face's top out to a post 1 m beyond the road's nearer edge."""
    si = road.section_index(sg.s)
    right, left = (float(v[0]) for v in _edges(road, si, np.array([sg.s])))
    t_post = right - 1.0 if abs(sg.t - right) <= abs(left - sg.t) else left + 1.0
    px, py, _ = road.world(sg.s, t_post)
    px, py = float(px[0]), float(py[0])
    span = math.hypot(px - x, py - y)
    mb.box(((x + px) / 2, (y + py) / 2, top + 0.15), (span + 0.3, 0.2, 0.3), math.atan2(py - y, px - x), _POLE,
           TAGS["pole"])
    mb.box((px, py, (z + top + 0.3) / 2), (0.25, 0.25, top + 0.3 - z), h, _POLE, TAGS["pole"])


def _edges(road, si: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """t of the road's outermost lane edges on the right and on the left at s."""
    b = road.bounds(si, s)
    return np.min([v[1] for v in b.values()], axis=0), np.max([v[1] for v in b.values()], axis=0)


def _covered(road, s0: float, s1: float, step: float = 2.0):
    """(s, right edge t, left edge t) along [s0, s1] of a road, section by section."""
    for si, sec in enumerate(road.sections):
        a, b = max(s0, sec.s), min(s1, sec.s_end)
        if b - a > 1e-6:
            s = np.linspace(a, b, max(2, int(math.ceil((b - a) / step)) + 1))
            yield (s, *_edges(road, si, s))


def _tunnels_bridges(mb: MeshBuilder, net: RoadNetwork) -> list[np.ndarray]:
    """Tunnel walls, ceiling and lamps; bridge railings. Returns the tunnels' footprints with their ceiling z
    (N x 3 polygons in world metres), for the shelter map."""
    footprints = []
    wall, rail = (0.55, 0.54, 0.5), (0.75, 0.76, 0.78)
    for road in net.roads.values():
        for s0, length in road.tunnels:
            for s, lo, hi in _covered(road, s0, s0 + length):
                a, b = _xyz(road, s, lo - 0.02), _xyz(road, s, hi + 0.02)
                up = np.array([0.0, 0.0, TUNNEL_HEIGHT])
                mb.strip(a, a + up, (*wall, -1.0), TAGS["wall"], MAT_PLAIN, normal=(0.0, 0.0, 1.0))
                mb.strip(b + up, b, (*wall, -1.0), TAGS["wall"], MAT_PLAIN, normal=(0.0, 0.0, 1.0))
                mb.strip(a + up, b + up, (*wall, -1.0), TAGS["wall"], MAT_PLAIN, normal=(0.0, 0.0, -1.0))
                mid = _xyz(road, s, 0.5 * (lo + hi), TUNNEL_HEIGHT - 0.05)
                for k in range(0, len(s) - 1, 5):  # a lamp strip every 10 m
                    mb.box(mid[k], (1.2, 0.25, 0.08), float(road.world(s[k], 0)[2][0]), (1.0, 0.95, 0.8, 1.0),
                           TAGS["wall"], MAT_LAMP)
                poly = np.concatenate([a, b[::-1]])
                poly[:, 2] = float(np.min(a[:, 2])) + TUNNEL_HEIGHT
                footprints.append(poly)
        for s0, length in road.bridges:
            for s, lo, hi in _covered(road, s0, s0 + length):
                for t in (lo - 0.2, hi + 0.2):
                    p = _xyz(road, s, t)
                    mb.strip(p, p + (0.0, 0.0, 1.0), rail, TAGS["guard_rail"], MAT_PLAIN, normal=(0.0, 0.0, 1.0))
    return footprints


def _shelter(footprints: list[np.ndarray], origin: np.ndarray):
    """The shelter map: ceiling z (scene frame) per cell under a tunnel, -1e4 elsewhere."""
    import cv2

    if not footprints:
        return None, (0.0, 0.0), SHELTER_CELL
    pts = np.concatenate(footprints)[:, :2] - origin[:2]
    lo, hi = pts.min(0) - 2.0, pts.max(0) + 2.0
    cell = max(SHELTER_CELL, float(np.max(hi - lo)) / 2048)
    w, h = (int(math.ceil(v)) for v in (hi - lo) / cell)
    grid = np.full((h, w), -1e4, np.float32)
    for poly in footprints:
        px = np.round((poly[:, :2] - origin[:2] - lo) / cell * 16).astype(np.int32)  # 4 fractional bits
        cv2.fillPoly(grid, [px], float(poly[0, 2] - origin[2]), lineType=cv2.LINE_8, shift=4)
    return grid, (float(lo[0]), float(lo[1])), cell


def _roadside(mb: MeshBuilder, net: RoadNetwork) -> np.ndarray:
    """Street lights along the right edge of every road and buildings / trees beyond both edges.

    Placement is seeded by the road id (crc32), so the same map always gives the same scene."""
    lamps = []
    centers, sizes, heads, colors, tags = [], [], [], [], []
    for road in net.roads.values():
        if road.junction is not None:
            continue
        rng = np.random.default_rng(zlib.crc32(road.id.encode()))
        for si, sec in enumerate(road.sections):
            s = np.arange(sec.s + 5.0, sec.s_end - 2.0, 1.0)
            if len(s) == 0:
                continue
            b = road.bounds(si, s)
            t_lo = np.min([v[1] for v in b.values()], axis=0)
            t_hi = np.max([v[1] for v in b.values()], axis=0)
            for k in range(0, len(s), int(STREET_LIGHT_EVERY)):
                if any(s0 - 5.0 <= s[k] <= s0 + length + 5.0 for s0, length in road.tunnels):
                    continue
                p = _xyz(road, s[k:k + 1], t_lo[k:k + 1] - 0.6)[0]
                if net.locate(p[0], p[1]) is None or not net.locate(p[0], p[1]).on_road:
                    lamps.append(p + (0, 0, STREET_LIGHT_HEIGHT))
                    mb.box(p + (0, 0, STREET_LIGHT_HEIGHT / 2), (0.18, 0.18, STREET_LIGHT_HEIGHT), 0.0, _POLE,
                           TAGS["pole"])
                    mb.box(p + (0, 0, STREET_LIGHT_HEIGHT), (0.6, 0.3, 0.15), float(road.world(s[k], 0)[2][0]),
                           (0.9, 0.85, 0.7), TAGS["pole"], MAT_LAMP)
            for k in range(0, len(s), 18):
                for side, t_edge in ((-1, t_lo[k]), (1, t_hi[k])):
                    depth = rng.uniform(6.0, 14.0)
                    building = rng.random() < 0.55
                    size = (rng.uniform(8, 16), rng.uniform(6, 12), rng.uniform(5, 18)) if building else \
                        (rng.uniform(2.5, 4.5),) * 2 + (rng.uniform(4, 9),)
                    t = t_edge + side * (3.0 + depth / 2 + size[1] / 2)
                    p = _xyz(road, s[k:k + 1], np.array([t]))[0]
                    h = float(road.world(s[k], 0)[2][0])
                    if _clear_of_roads(net, p, size, h):
                        centers.append(p + (0, 0, size[2] / 2))
                        sizes.append(size)
                        heads.append(h)
                        colors.append(_building_rgb(rng) if building else (0.16 + 0.1 * rng.random(), 0.35, 0.12, 0))
                        tags.append(TAGS["building"] if building else TAGS["vegetation"])
    if centers:
        n = len(centers)
        mb.boxes(np.array(centers), np.array(sizes), np.array(heads), np.array(colors, float),
                 np.array(tags, float), np.full(n, MAT_PLAIN))
    return np.array(lamps).reshape(-1, 3)


def _building_rgb(rng) -> tuple[float, float, float, float]:
    g = rng.uniform(0.45, 0.75)
    return (g * rng.uniform(0.9, 1.1), g * rng.uniform(0.85, 1.0), g * rng.uniform(0.75, 0.95), 0.0)


def _clear_of_roads(net: RoadNetwork, p: np.ndarray, size, h: float) -> bool:
    c, s = math.cos(h), math.sin(h)
    for u, v in ((0, 0), (1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1)):
        du, dv = u * (size[0] / 2 + 2), v * (size[1] / 2 + 2)
        if net.locate(p[0] + c * du - s * dv, p[1] + s * du + c * dv) is not None:
            return False
    return True


def build_scene(net: RoadNetwork) -> Scene:
    """Everything static of a map, ready to upload."""
    mb = MeshBuilder()
    _lanes(mb, net)
    _objects(mb, net)
    signals = [sg for r in net.roads.values() for sg in r.signals
               if not (sg.dynamic or sg.type in TRAFFIC_LIGHT_TYPES)]
    atlas = SignAtlas(signals)
    heads = _signals(mb, net, atlas)
    lamps = _roadside(mb, net)
    footprints = _tunnels_bridges(mb, net)
    v = mb.array()
    lo, hi = v[:, :2].min(0), v[:, :2].max(0)
    zmin = float(v[:, 2].min()) if len(v) else 0.0
    origin = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, 0.0]).round(0)
    g = MeshBuilder()  # ground: 1.5 km beyond the map on every side, just under the lowest road
    x0, y0, x1, y1 = lo[0] - 1500, lo[1] - 1500, hi[0] + 1500, hi[1] + 1500
    gz = zmin - 0.05
    g.quad([(x0, y0, gz), (x1, y0, gz), (x1, y1, gz), (x0, y1, gz)], _GRASS, TAGS["terrain"], MAT_TERRAIN)
    v = np.concatenate([v, g.array()])  # last: early depth tests skip the ground under roads and boxes
    v[:, 0:3] -= origin.astype(np.float32)
    shelter, shelter_lo, cell = _shelter(footprints, origin)
    return Scene(vertices=v, atlas=atlas, origin=origin, lights=heads, shelter=shelter, shelter_lo=shelter_lo,
                 shelter_cell=cell,
                 street_lamps=lamps - origin if len(lamps) else lamps, ground_z=gz,
                 extent=(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])))
