"""ALKS_R157SM_Controller: an UN Regulation 157 ALKS safety model drives the entity's speed (esmini's controller).

The Controller's ``model`` property picks Regulation, ReferenceDriver (alks_models.py), RSS or FSM (alks_rss_fsm.py);
``cruise``, ``fullStop``, ``alwaysTrigOnScenario``, ``cutInPerceptionDelayMode``, ``aebTTC``,
``aebDeceleration``, ``aebAvailable``, ``driverDeceleration``, ``lateralTrigDistance``,
``overlapTolerance`` and ``pedestrianRiskEvaluationTime`` tune it as in esmini. Only the speed is the
model's; the entity keeps following its lane (and any lateral action) under the default controller.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roadtest.errors import Problem, ScenarioError
from roadtest.sim.api import LanePos
from roadtest.sim.route_path import wrap_angle
from roadtest.sim.xosc.drivers.alks_models import LARGE, SMALL, Model, ObjectInfo
from roadtest.sim.xosc.drivers.alks_rss_fsm import MODELS as ALKS_MODELS
from roadtest.sim.xosc.drivers.acc import ACC
from roadtest.sim.xosc.drivers.base import DriverModel

if TYPE_CHECKING:
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["ALKS", "ALKSR157", "Perception", "Placed", "build_model"]


def _lane_index(lane: int) -> int:
    """Lanes counted across the centre lane (-1 and 1 are neighbours)."""
    return lane if lane < 0 else lane - 1


@dataclass
class Placed:
    """One entity in the ego's driving frame: s ahead, t to the left, heading relative to the road."""

    name: str
    kind: str  # vehicle | pedestrian | misc
    category: str
    s: float
    t: float
    rel: float  # rad, heading minus the frame's forward direction
    speed: float
    accel: float
    lane: int | None  # lane index in the frame (left higher), None off the lanes
    offset: float  # m from its lane centre, left positive
    lane_width: float
    state: Any

    @property
    def v_s(self) -> float:
        return self.speed * math.cos(self.rel)

    @property
    def v_t(self) -> float:
        return self.speed * math.sin(self.rel)

    @property
    def acc_s(self) -> float:
        return self.accel * math.cos(self.rel)

    def corners(self) -> list[tuple[float, float]]:
        """Bounding-box corners (s, t), first quadrant first, as esmini lists them."""
        e = self.state
        c, sn = math.cos(self.rel), math.sin(self.rel)
        out = []
        for dx, dy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
            x, y = e.bbox_cx + dx * e.length / 2, e.bbox_cy + dy * e.width / 2
            out.append((self.s + x * c - y * sn, self.t + x * sn + y * c))
        return out


def _world_corners(e: Any) -> list[tuple[float, float]]:
    c, s = math.cos(e.h), math.sin(e.h)
    out = []
    for dx, dy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
        x, y = e.bbox_cx + dx * e.length / 2, e.bbox_cy + dy * e.width / 2
        out.append((e.x + x * c - y * s, e.y + x * s + y * c))
    return out


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    """Separating-axis test of two rectangles."""
    for poly in (a, b):
        for i in range(2):
            ax, ay = poly[i + 1][0] - poly[i][0], poly[i + 1][1] - poly[i][1]
            pa = [ax * x + ay * y for x, y in a]
            pb = [ax * x + ay * y for x, y in b]
            if max(pa) < min(pb) or max(pb) < min(pa):
                return False
    return True


def _others_after_tick(engine: ScenarioEngine, ego: str) -> dict[str, Any]:
    """Every entity as esmini's controller sees it: the others already moved this tick, the ego not yet.

    esmini moves the default-controlled entities before it steps player controllers; roadtest moves
    entities in declaration order, so one not moved yet is carried one tick along its heading here.
    Their velocities read as at the start of the tick (before this tick's actions), as esmini's do.
    """
    names = engine.entity_names
    i = names.index(ego)
    out: dict[str, Any] = {ego: engine.snap.get(ego, engine.entities[ego]) if engine.snap else engine.entities[ego]}
    for k, n in enumerate(names):
        if n == ego:
            continue
        e = engine.entities[n]
        if k > i and e.active and abs(e.speed) > 1e-9:
            e = copy.copy(e)
            step = e.speed * engine.tick
            e.x, e.y = e.x + step * math.cos(e.h), e.y + step * math.sin(e.h)
            if e.lane is not None and engine.network is not None:
                rh = engine.network.road_to_world(e.lane.road, e.lane.s, 0.0).h
                e.lane = LanePos(e.lane.road, e.lane.lane, e.lane.s + step * math.cos(e.h - rh),
                                 e.lane.t + step * math.sin(e.h - rh))
        if engine.snap and n in engine.snap and e.speed != engine.snap[n].speed:
            e = copy.copy(e) if e is engine.entities[n] else e
            e.speed = engine.snap[n].speed
        out[n] = e
    return out


class Perception:
    """What the ego's ALKS sees this tick (the others moved, itself not yet), in the ego's driving frame."""

    def __init__(self, engine: ScenarioEngine, ego: str):
        self.engine, self.ego_name = engine, ego
        self.time = engine.time
        self.states = _others_after_tick(engine, ego)
        self.net = engine.network
        self._cache: dict[str, Placed | None] = {}
        e = self.states[ego]
        m = engine.motions.get(ego)
        self.dir = m.sdir if m is not None and m.road is not None else 1
        self.road = e.lane.road if e.lane is not None and self.net is not None else None
        self.ego = self._place(e, frame=False)

    # -- placing entities in the frame
    def _place(self, e: Any, frame: bool = True) -> Placed:
        d = self.dir
        if self.road is not None and e.lane is not None and e.lane.road == self.road:
            base = self.net.road_to_world(self.road, e.lane.s, 0.0).h + (math.pi if d < 0 else 0.0)
            s, t, rel = e.lane.s * d, e.lane.t * d, wrap_angle(e.h - base)
            lane, offset, width = self._lane_of(e)
        else:  # not on the ego's road (or no map): project onto the ego's own axes
            o = self.states[self.ego_name]
            dx, dy = e.x - o.x, e.y - o.y
            c, sn = math.cos(o.h), math.sin(o.h)
            s0, t0 = (self.ego.s, self.ego.t) if frame else (0.0, 0.0)
            s, t, rel = s0 + dx * c + dy * sn, t0 - dx * sn + dy * c, wrap_angle(e.h - o.h)
            lane, offset, width = None, 0.0, 3.5
            if frame and self.ego.lane is not None:
                rows = round((t - self.ego.t + self.ego.offset) / self.ego.lane_width)
                lane, offset = self.ego.lane + rows, t - (self.ego.t - self.ego.offset + rows * self.ego.lane_width)
                width = self.ego.lane_width
        return Placed(e.name, e.kind, e.category, s, t, rel, e.speed, e.accel, lane, offset, width, e)

    def _lane_of(self, e: Any) -> tuple[int | None, float, float]:
        lp = e.lane
        if not lp.lane:
            return None, 0.0, 3.5
        try:
            width = self.net.lane_width(lp.road, lp.lane, lp.s)
            centre = self.engine.lanes.pose(lp.road, lp.lane, lp.s, 0.0)[4] if self.engine.lanes else None
            if centre is None:
                p = self.net.lane_to_world(lp.road, lp.lane, lp.s, 0.0)
                r = self.net.road_to_world(lp.road, lp.s, 0.0)
                centre = (p.x - r.x) * -math.sin(r.h) + (p.y - r.y) * math.cos(r.h)
        except Exception:  # noqa: BLE001 - a lane the map cannot answer for: treat as off the lanes
            return None, 0.0, 3.5
        return _lane_index(lp.lane) * self.dir, (lp.t - centre) * self.dir, width

    def placed(self, name: str) -> Placed | None:
        if name not in self._cache:
            e = self.states.get(name)
            self._cache[name] = self._place(e) if e is not None and e.active else None
        return self._cache[name]

    # -- queries the models make
    def names(self) -> list[str]:
        return [n for n in self.engine.entity_names if n != self.ego_name]

    def kind(self, name: str) -> str:
        p = self.placed(name)
        return p.kind if p else ""

    def category(self, name: str) -> str:
        p = self.placed(name)
        return p.category if p else ""

    def t(self, name: str) -> float:
        p = self.placed(name)
        return p.t if p else 0.0

    def offset(self, name: str) -> float:
        p = self.placed(name)
        return p.offset if p else 0.0

    def centre_offset(self, name: str) -> float:
        """Lane offset of the bounding-box centre (the reference point moved forward by bbox_cx)."""
        p = self.placed(name)
        return p.offset + p.state.bbox_cx * math.sin(p.rel) if p else 0.0

    def acc_s(self, name: str) -> float:
        p = self.placed(name)
        return p.acc_s if p else 0.0

    def v_t(self, name: str) -> float:
        p = self.placed(name)
        return p.v_t if p else 0.0

    def speed(self, name: str) -> float:
        p = self.placed(name)
        return p.speed if p else 0.0

    def process(self, info: ObjectInfo, max_range: float) -> bool:
        """Measure info.obj from the ego (freespace distances, closing speeds, TTC, headway); False when out of view."""
        o, me = self.placed(info.obj) if info.obj else None, self.ego
        if o is None or o.name == me.name:
            return False
        ds = o.s - me.s
        if o.lane is not None and me.lane is not None:
            dlane = o.lane - me.lane
        else:
            dlane = round((o.t - me.t) / me.lane_width)
        if not (SMALL < ds <= max_range) or (o.kind != "pedestrian" and abs(dlane) > 1):
            return False
        info.dlane = dlane
        info.dist_long, info.dist_lat = self._freespace(me, o)
        info.dv_s = me.v_s - o.v_s
        info.dv_t = (me.v_t - o.v_t) * (1 if o.t - me.t >= 0 else -1)
        info.thw = info.dist_long / me.v_s if me.v_s > 0 else LARGE
        info.ttc = info.dist_long / info.dv_s if info.dv_s > 0 else LARGE
        return True

    def _freespace(self, a: Placed, b: Placed) -> tuple[float, float]:
        """Freespace (ds, dt) from a to b: the smallest corner-to-corner gaps, 0 where the extents overlap."""
        if _overlap(_world_corners(a.state), _world_corners(b.state)):
            return 0.0, 0.0
        ca, cb = a.corners(), b.corners()
        out = []
        for k in (0, 1):
            d = [[q[k] - p[k] for q in cb] for p in ca]
            best = min((x for row in d for x in row), key=abs)
            if any(min(row) < 0 <= max(row) for row in d):
                best = 0.0
            out.append(best)
        return out[0], out[1]

    def wheel_intrusion(self, name: str, dlane: int) -> float:
        """How far the object's front wheel on the ego's side is past its own lane edge towards the ego (m)."""
        o = self.placed(name)
        if o is None:
            return -LARGE
        e = o.state
        x = e.wheelbase if o.kind == "vehicle" else e.length / 2  # front axle (rear axle at the reference point)
        y = -(1 if dlane >= 0 else -1) * e.width / 2
        yr = x * math.sin(o.rel) + y * math.cos(o.rel)
        return (o.offset + yr) * -(1 if dlane >= 0 else -1) - o.lane_width / 2

    def overlapping_front(self, name: str | None, tol: float) -> int:
        """How the object's box covers the ego's front edge: 0 none, 1 part, 2 inside, 4 full, 6 both."""
        o = self.placed(name) if name else None
        if o is None:
            return 0
        me = self.states[self.ego_name]
        c, s = math.cos(me.h), math.sin(me.h)
        fx = me.bbox_cx + me.length / 2
        lx, ly = me.x + fx * c - (me.width / 2) * s, me.y + fx * s + (me.width / 2) * c
        rx, ry = me.x + fx * c + (me.width / 2) * s, me.y + fx * s - (me.width / 2) * c
        ux, uy = rx - lx, ry - ly
        w = math.hypot(ux, uy)
        inside = left = right = 0
        for px, py in _world_corners(o.state):
            u = ((px - lx) * ux + (py - ly) * uy) / (w * w)
            if 0.0 <= u <= 1.0:
                inside += 1
                if u * me.width < tol:
                    left += 1
                elif (1 - u) * me.width < tol:
                    right += 1
            else:
                dist = -math.hypot(px - lx, py - ly) if u < 0 else math.hypot(px - rx, py - ry)
                if abs(dist) < tol:
                    inside += 1
                if dist < 0:
                    left += 1
                else:
                    right += 1
        if inside == 4:
            return 6 if left and right else 2
        if left and right:
            return 4
        return 1 if inside else 0


def _num(props: dict[str, str], key: str, ctrl: Any, engine: ScenarioEngine) -> float | None:
    v = props.get(key)
    if v in (None, ""):
        return None
    try:
        return float(v)
    except ValueError:
        f, line = engine.where(ctrl) if ctrl is not None else (engine.file, 0)
        raise ScenarioError(Problem(f, line, 0, f"Controller.Property[{key}]", f"expected a number, got {v!r}")) from None


def build_model(props: dict[str, str], engine: ScenarioEngine | None = None, ctrl: Any = None) -> Model:
    """The safety model a controller's properties ask for (ReferenceDriver when none is named)."""
    name = props.get("model") or "ReferenceDriver"
    cls = ALKS_MODELS.get(name)
    if cls is None:
        f, line = engine.where(ctrl) if engine is not None and ctrl is not None else ("", 0)
        raise ScenarioError(Problem(f, line, 0, "Controller.Property[model]",
                                    f"unknown ALKS R157 model {name!r} (expected one of {', '.join(ALKS_MODELS)})"))
    m = cls()
    num = (lambda k: _num(props, k, ctrl, engine)) if engine is not None else (lambda k: float(props[k]) if props.get(k) else None)
    if name == "ReferenceDriver":
        mode = props.get("cutInPerceptionDelayMode")
        if mode in ("Dist", "Time"):
            m.delay_mode = mode
        for key, attr in (("pedestrianRiskEvaluationTime", "ped_eval_time"), ("aebTTC", "aeb_ttc"),
                          ("overlapTolerance", "overlap_tolerance")):
            if num(key) is not None:
                setattr(m, attr, num(key))
        if num("aebDeceleration") is not None:
            m.aeb_dec = abs(num("aebDeceleration"))
        if props.get("aebAvailable", "").lower() == "false":
            m.aeb_available = False
        if num("lateralTrigDistance") is not None:
            m.lateral_trigger = num("lateralTrigDistance")
        if num("driverDeceleration") is not None:
            m.max_dec = abs(num("driverDeceleration"))
    # booleans: a boolean parameter may resolve to "True"/"False"
    if "fullStop" in props:
        m.full_stop = props["fullStop"].lower() == "true"
    if "alwaysTrigOnScenario" in props:
        m.always_trig = props["alwaysTrigOnScenario"].lower() == "true"
    if props.get("cruise", "").lower() in ("true", "false"):
        m.cruise_on = props["cruise"].lower() == "true"
    return m


class ALKSR157(DriverModel):
    """esmini's ALKS_R157SM_Controller: a regulation-157 safety model sets the speed; lanes are followed as default."""

    kind = "ALKS_R157SM_Controller"

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)
        self.model = build_model(self.props, engine, ctrl)
        self.model.set_speed = engine.entities[name].speed  # the speed at activation is the set speed

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        e = engine.entities[self.name]
        if self.longitudinal:
            world = Perception(engine, self.name)
            world.ego.speed = e.speed  # what the storyboard commanded this tick
            e.speed = self.model.step(world, engine.tick)
        self.default(engine, t_next)


class ALKS(ACC):
    """esmini's plain ALKSController: esmini builds it as its ACC controller, unchanged, and so does roadtest."""

    kind = "ALKSController"
