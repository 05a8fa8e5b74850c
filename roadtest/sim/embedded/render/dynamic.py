"""What changes every tick: actors by kind and size with their lamps (brake, indicators, headlights, light bar),
traffic-light heads showing their signal's state, and the light sources the shader sums at night."""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from roadtest.kinds import MOTOR_VEHICLES
from roadtest.sim.api import ActorState, WorldState
from roadtest.sim.embedded.render.formats import TAGS
from roadtest.sim.embedded.render.mesh import MAT_LAMP, MAT_PLAIN, MeshBuilder
from roadtest.sim.embedded.render.scene import Scene

__all__ = ["Light", "build_dynamic", "MAX_LIGHTS", "BRAKE_DECEL", "INDICATOR_SPEED"]

MAX_LIGHTS = 4  # the shader's array size; each light costs about an eighth of a day frame on llvmpipe
BRAKE_DECEL = 0.5  # m/s^2: brake lights on when decelerating harder (or standing still)
INDICATOR_SPEED = 0.25  # m/s of sideways speed across the lane: indicator on that side
_BLINK_HZ = 1.5  # indicators (flashing 60-120 per minute, UN R48)
_BAR_HZ = 2.0  # emergency light bar
_PALETTE = [(0.75, 0.75, 0.78), (0.08, 0.08, 0.09), (0.55, 0.06, 0.06), (0.1, 0.2, 0.45), (0.85, 0.85, 0.85),
            (0.35, 0.37, 0.4), (0.2, 0.35, 0.22), (0.6, 0.5, 0.3)]
_GLASS = (0.07, 0.09, 0.11)
_TYRE = (0.04, 0.04, 0.04)
_TAG_OF = {"car": "car", "emergency": "car", "truck": "truck", "bus": "bus", "motorcycle": "motorcycle",
           "bicycle": "bicycle", "pedestrian": "pedestrian", "officer": "pedestrian", "static": "static"}
_VEHICLES = MOTOR_VEHICLES  # lamps: brake lights, headlights, indicators


@dataclass(frozen=True)
class Light:
    """A light source: position (scene frame), direction, rgb, spot cone cosines (outer, inner), range (m)."""

    pos: tuple[float, float, float]
    dir: tuple[float, float, float]
    rgb: tuple[float, float, float]
    cos_outer: float
    cos_inner: float
    range: float


class _Boxes:
    """Boxes of every actor in their own frames, placed in the scene in one vectorised step."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def add(self, mb: MeshBuilder) -> None:
        if not self.rows:
            return
        r = np.array(self.rows, float)  # px py pz h | x y z | l w h | r g b e | tag mat
        c, s = np.cos(r[:, 3]), np.sin(r[:, 3])
        centers = np.column_stack([r[:, 0] + c * r[:, 4] - s * r[:, 5], r[:, 1] + s * r[:, 4] + c * r[:, 5],
                                   r[:, 2] + r[:, 6]])
        mb.boxes(centers, r[:, 7:10], r[:, 3], r[:, 10:14], r[:, 14], r[:, 15])


class _Local:
    """Adds boxes in an actor's own frame (x forward, y left, z up from its ground point)."""

    def __init__(self, boxes: _Boxes, a: ActorState, origin: np.ndarray):
        self.rows, self.h = boxes.rows, a.h
        self.c, self.s = math.cos(a.h), math.sin(a.h)
        self.p = (a.x - origin[0], a.y - origin[1], a.z - origin[2])

    def at(self, x: float, y: float, z: float) -> np.ndarray:
        return np.array([self.p[0] + self.c * x - self.s * y, self.p[1] + self.s * x + self.c * y, self.p[2] + z])

    def box(self, x, y, z, size, rgb, tag: str, mat=MAT_PLAIN, emissive: float = 0.0) -> None:
        self.rows.append((*self.p, self.h, x, y, z, *size, *rgb, emissive, TAGS[tag], mat))


def _colour(a: ActorState) -> tuple[float, float, float]:
    return _PALETTE[zlib.crc32(a.id.encode()) % len(_PALETTE)]


def _vehicle(lc: _Local, a: ActorState, lamps: dict[str, bool]) -> None:
    L, W, H = a.length, a.width, a.height
    tag = _TAG_OF.get(a.kind, "car")
    body = (0.9, 0.9, 0.92) if a.kind == "emergency" else (0.82, 0.78, 0.7) if a.kind == "bus" else _colour(a)
    if a.kind in ("truck",):
        cab = min(2.2, 0.3 * L)
        lc.box(L / 2 - cab / 2, 0, 0.35 + (H - 0.35) * 0.4, (cab, W, (H - 0.35) * 0.8), body, tag)
        lc.box(L / 2 - 0.05, 0, 0.35 + (H - 0.35) * 0.55, (0.12, W * 0.85, (H - 0.35) * 0.3), _GLASS, tag)
        lc.box(-cab / 2, 0, 0.35 + (H - 0.35) / 2, (L - cab - 0.2, W, H - 0.35), (0.85, 0.85, 0.83), tag)
    elif a.kind == "bus":
        lc.box(0, 0, 0.3 + (H - 0.3) / 2, (L, W, H - 0.3), body, tag)
        lc.box(0, 0, 0.3 + (H - 0.3) * 0.7, (L + 0.02, W + 0.02, (H - 0.3) * 0.3), _GLASS, tag)
    elif a.kind == "motorcycle":
        lc.box(0, 0, 0.55, (L * 0.9, min(W, 0.35), 0.5), body, tag)
        lc.box(-0.1, 0, 1.2, (0.45, 0.4, 0.7), (0.15, 0.15, 0.2), "rider")
        lc.box(-0.05, 0, 1.7, (0.25, 0.25, 0.28), (0.8, 0.1, 0.1), "rider")
    else:
        lower = 0.55 * H
        lc.box(0, 0, 0.2 + (lower - 0.2) / 2, (L, W, lower - 0.2), body, tag)
        lc.box(-0.1 * L, 0, lower + (H - lower) / 2, (0.5 * L, 0.9 * W, H - lower), _GLASS, tag)
        lc.box(-0.1 * L, 0, H - 0.03, (0.46 * L, 0.86 * W, 0.06), body, tag)
    if a.kind != "motorcycle":
        for wx in (0.32 * L, -0.32 * L):
            for wy in (W / 2 - 0.15, -W / 2 + 0.15):
                lc.box(wx, wy, 0.33, (0.66, 0.32, 0.66), _TYRE, tag)
    zl = 0.75 if a.kind in ("car", "emergency") else 0.9
    half = W / 2 - 0.2 if a.kind != "motorcycle" else 0.0
    for y in {half, -half}:
        lc.box(-L / 2 - 0.02, y, zl, (0.05, 0.3, 0.15), (0.9, 0.05, 0.05) if lamps["brake"] else (0.35, 0.03, 0.03),
               tag, MAT_LAMP, 1.0 if lamps["brake"] else 0.0)
        lc.box(L / 2 + 0.02, y, zl - 0.1, (0.05, 0.3, 0.15), (1.0, 0.97, 0.85) if lamps["head"] else (0.7, 0.7, 0.7),
               tag, MAT_LAMP, 1.0 if lamps["head"] else 0.0)
    for side, on in ((1, lamps["left"]), (-1, lamps["right"])):
        for x in (L / 2 + 0.03, -L / 2 - 0.03):
            lc.box(x, side * (W / 2 - 0.05), zl, (0.06, 0.12, 0.1), (1.0, 0.55, 0.0) if on else (0.4, 0.25, 0.05),
                   tag, MAT_LAMP, 1.0 if on else 0.0)
    if a.kind == "emergency":
        red_on = lamps["bar_phase"]
        for y, rgb, on in ((0.3, (1.0, 0.05, 0.05), red_on), (-0.3, (0.1, 0.2, 1.0), not red_on)):
            lit = lamps["siren"] and on
            lc.box(-0.1 * L, y, H + 0.08, (0.3, 0.55, 0.14), rgb if lit else tuple(0.3 * c for c in rgb), tag,
                   MAT_LAMP, 1.0 if lit else 0.0)


OFFICER_STOP = ("stop", "red")
OFFICER_GO = ("go", "green", "proceed")
_GLOVE = (0.97, 0.97, 0.97)


def officer_pose(signal: str | None) -> str:
    """The pose an officer's signal state shows: "stop", "go" or "rest" (arms down: no signal)."""
    v = str(signal or "").lower()
    return "stop" if v in OFFICER_STOP else "go" if v in OFFICER_GO else "rest"


def _person(lc: _Local, a: ActorState, signal: str | None = None, time: float = 0.0) -> None:
    H = max(a.height, 1.0)
    officer = a.kind == "officer"
    shirt = (0.85, 0.95, 0.1) if officer else _colour(a)
    lc.box(0, 0, 0.45 * H / 2, (0.25, 0.35, 0.45 * H), (0.12, 0.12, 0.25), "pedestrian")
    lc.box(0, 0, 0.45 * H + 0.18 * H, (0.28, 0.45, 0.36 * H), shirt, "pedestrian")
    lc.box(0, 0, 0.81 * H + 0.08 * H, (0.2, 0.2, 0.16 * H), (0.85, 0.65, 0.5), "pedestrian")
    if officer:
        lc.box(0, 0, 0.99 * H, (0.3, 0.3, 0.05), (0.95, 0.95, 0.95), "pedestrian")
        _officer_arms(lc, H, officer_pose(signal), shirt, time)


def _officer_arms(lc: _Local, H: float, pose: str, sleeve, time: float) -> None:
    """An officer's arms in the hand signal of `pose` (its own frame: x towards the traffic it directs, y left).
    stop: the left arm raised straight up, the white-gloved palm towards the traffic, the right arm held out
    sideways as a barrier; go: the right arm out at shoulder height, its raised gloved hand waving the traffic
    on (a 1 Hz sweep in towards the body and out); rest: both arms down."""
    sh = 0.81 * H  # shoulder height
    arm, y0 = 0.62, 0.225 + 0.05
    down = lambda y: lc.box(0, y, sh - arm / 2, (0.1, 0.1, arm), sleeve, "pedestrian")  # noqa: E731
    if pose == "stop":
        lc.box(0, y0, sh + arm / 2, (0.1, 0.1, arm), sleeve, "pedestrian")
        lc.box(0.06, y0, sh + arm + 0.08, (0.04, 0.14, 0.18), _GLOVE, "pedestrian")  # palm forward
        lc.box(0, -(y0 + arm / 2), sh - 0.02, (0.1, arm, 0.1), sleeve, "pedestrian")
        lc.box(0, -(y0 + arm + 0.06), sh - 0.02, (0.12, 0.12, 0.12), _GLOVE, "pedestrian")
    elif pose == "go":
        down(y0)
        wave = 0.5 + 0.5 * math.sin(2.0 * math.pi * time)  # 0..1: the forearm swings in towards the body and out
        lc.box(0, -(y0 + arm / 2), sh - 0.02, (0.1, arm, 0.1), sleeve, "pedestrian")
        lc.box(0.1 * wave, -(y0 + arm + 0.06) + 0.3 * wave, sh + 0.1, (0.1, 0.12, 0.24), _GLOVE, "pedestrian")
    else:
        down(y0)
        down(-y0)


def _bicycle(lc: _Local, a: ActorState) -> None:
    L = max(a.length, 1.6)
    lc.box(0, 0, 0.35, (L * 0.95, 0.06, 0.7), (0.1, 0.1, 0.1), "bicycle")
    lc.box(0, 0, 0.8, (L * 0.6, 0.05, 0.06), _colour(a), "bicycle")
    lc.box(-0.15, 0, 1.25, (0.35, 0.4, 0.7), _colour(a), "rider")
    lc.box(-0.05, 0, 1.72, (0.22, 0.22, 0.25), (0.85, 0.65, 0.5), "rider")


def _static(lc: _Local, a: ActorState) -> None:
    L, W, H = max(a.length, 0.05), max(a.width, 0.05), max(a.height, 0.05)
    if H < 1.2 and L < 0.8 and H > 1.5 * L:  # a cone: stacked boxes narrowing upward, orange with a white band
        for i, (f, rgb) in enumerate(((1.0, (1.0, 0.35, 0.0)), (0.7, (0.95, 0.95, 0.95)), (0.45, (1.0, 0.35, 0.0)))):
            lc.box(0, 0, H * (i + 0.5) / 3, (L * f, W * f, H / 3), rgb, "static")
    else:
        lc.box(0, 0, H / 2, (L, W, H), (0.9, 0.45, 0.1), "static")
        lc.box(0, 0, H * 0.75, (L + 0.01, W + 0.01, H * 0.15), (0.95, 0.95, 0.95), "static")


def _lamps(a: ActorState, time: float, headlights: bool, lateral: float) -> dict[str, bool]:
    """Which lamps are lit; `lateral` is the actor's speed towards its left across the lanes (m/s)."""
    braking = a.kind in _VEHICLES and (a.ax < -BRAKE_DECEL or abs(a.speed) < 0.1)
    left = right = False
    if a.kind in _VEHICLES:
        blink = (time * _BLINK_HZ) % 1.0 < 0.5
        left, right = blink and lateral > INDICATOR_SPEED, blink and lateral < -INDICATOR_SPEED
    return {"brake": braking, "head": headlights and a.kind in _VEHICLES, "left": left, "right": right,
            "siren": bool(a.siren), "bar_phase": (time * _BAR_HZ) % 1.0 < 0.5}


def _lateral(net, a: ActorState, time: float, history: dict) -> float:
    """Speed towards the actor's left across its road (m/s), from its lane t now and at the previous tick."""
    ln = a.lane
    if ln is None or net is None or ln.road not in net.roads:
        return 0.0
    sign = net.roads[ln.road].lane_sign(ln.lane)  # +1: driving with s, where t grows to the left
    prev = history.get(a.id)
    history[a.id] = (time, ln.road, ln.t, sign)
    if prev is None or prev[1] != ln.road or not time > prev[0]:
        return 0.0
    return sign * (ln.t - prev[2]) / (time - prev[0])


_LAMP_RGB = {"red": (1.0, 0.08, 0.05), "yellow": (1.0, 0.7, 0.0), "green": (0.1, 1.0, 0.45)}


def _traffic_lights(mb: MeshBuilder, scene: Scene, signals) -> None:
    for head in scene.lights:
        state = str(signals.get(head.id, "off"))
        x, y, z = np.array(head.center) - scene.origin
        c, s = math.cos(head.heading), math.sin(head.heading)
        mb.box((x, y, z), (0.3, 0.4, 1.1), head.heading, (0.08, 0.08, 0.08), TAGS["traffic_light"])
        for i, colour in enumerate(("red", "yellow", "green")):
            lit = colour in state.split("_")
            rgb = _LAMP_RGB[colour] if lit else tuple(0.15 * v for v in _LAMP_RGB[colour])
            mb.box((x + c * 0.16, y + s * 0.16, z + 0.35 - 0.35 * i), (0.04, 0.26, 0.26), head.heading,
                   (*rgb, 1.0 if lit else 0.0), TAGS["traffic_light"], MAT_LAMP)


def _officer_signal(signals, officer_id: str) -> str | None:
    """The officer's signal state as the monitors read it: its own id's, else the scene-wide "officer" key."""
    v = signals.get(officer_id)
    return v if v is not None else signals.get("officer")


def build_dynamic(scene: Scene, state: WorldState, net, dark: bool, headlights: bool, near: np.ndarray,
                  history: dict | None = None) -> tuple[np.ndarray, list[Light]]:
    """This tick's triangles and light sources (street lights when `dark`, vehicles' when `headlights`); `near`
    (scene frame) ranks which lights the shader gets: the ego's first, then the nearest;
    `history` (kept by the caller across ticks) holds each actor's last lane offset, for its indicators."""
    mb = MeshBuilder()
    boxes = _Boxes()
    history = {} if history is None else history
    lights: list[tuple[float, Light]] = []
    for a in state.actors:
        if not a.visible:
            continue
        lc = _Local(boxes, a, scene.origin)
        if a.kind in ("pedestrian", "officer"):
            _person(lc, a, _officer_signal(state.signals, a.id) if a.kind == "officer" else None, state.time)
        elif a.kind == "bicycle":
            _bicycle(lc, a)
        elif a.kind == "static":
            _static(lc, a)
        else:
            lamps = _lamps(a, state.time, headlights, _lateral(net, a, state.time, history))
            _vehicle(lc, a, lamps)
            if lamps["head"] and (dark or a.role == "ego"):  # by day (fog) others' lamps glow but light nothing
                d = (math.cos(a.h), math.sin(a.h), -0.08)
                p = lc.at(a.length / 2 + 0.05, 0.0, 0.65)  # the pair of headlamps as one light between them
                rank = -1.0 if a.role == "ego" else float(np.linalg.norm(p - near))
                lights.append((rank, Light(tuple(p), d, (2.4, 2.25, 2.0), math.cos(math.radians(40)),
                                           math.cos(math.radians(8)), 80.0)))
    boxes.add(mb)
    _traffic_lights(mb, scene, state.signals)
    if dark:
        for p in scene.street_lamps:
            lights.append((float(np.linalg.norm(p - near)) + 5.0,
                           Light(tuple(p - (0, 0, 0.2)), (0.0, 0.0, -1.0), (2.2, 1.9, 1.4), math.cos(math.radians(70)),
                                 math.cos(math.radians(35)), 25.0)))
    lights.sort(key=lambda p: p[0])
    return mb.array(), [lt for _, lt in lights[:MAX_LIGHTS]]
