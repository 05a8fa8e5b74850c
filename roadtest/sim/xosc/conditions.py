"""Triggers and conditions: ConditionGroups (AND within, OR across), edges, delays, and each condition type."""

from __future__ import annotations

import math
from typing import Any, Callable

from roadtest.errors import UnsupportedError
from roadtest.sim.xosc.conditions_angle import ANGLE_CONDITIONS, angle_condition
from roadtest.sim.xosc.storyboard import COMPLETE, RUNNING, STANDBY

__all__ = ["Condition", "Trigger", "compare", "build_trigger", "rel_distance", "CONDITIONS"]

EPS = 1e-6


def compare(a: Any, b: Any, rule: str) -> bool:
    """OpenSCENARIO Rule: greaterThan, lessThan, equalTo, greaterOrEqual, lessOrEqual, notEqualTo."""
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        x, y = str(a), str(b)
        if isinstance(a, bool) or str(a).lower() in ("true", "false"):
            x, y = str(a).lower(), str(b).lower()
        return {"equalTo": x == y, "notEqualTo": x != y}.get(rule, False)
    if rule == "greaterThan":
        return x > y
    if rule == "lessThan":
        return x < y
    if rule == "equalTo":
        return abs(x - y) < EPS
    if rule == "greaterOrEqual":
        return x >= y - EPS
    if rule == "lessOrEqual":
        return x <= y + EPS
    if rule == "notEqualTo":
        return abs(x - y) >= EPS
    raise ValueError(rule)


class Condition:
    """One <Condition>: its evaluator plus edge detection and delay."""

    def __init__(self, name: str, fn: Callable[[Any], bool], edge: str = "none", delay: float = 0.0):
        self.name, self.fn, self.edge, self.delay = name, fn, edge, delay
        self.prev = False
        self.evaluated = False  # an edge needs a previous evaluation: the first one never fires (as esmini)
        self.pending: list[float] = []  # times a delayed condition became true
        self.value = False

    def reset(self) -> None:
        """After its trigger fired: edges start afresh (a re-run event waits for a new edge)."""
        self.evaluated = False

    def evaluate(self, ctx: Any) -> bool:
        raw = bool(self.fn(ctx))
        if self.edge != "none" and not self.evaluated:
            v = False
        elif self.edge == "rising":
            v = raw and not self.prev
        elif self.edge == "falling":
            v = self.prev and not raw
        elif self.edge == "risingOrFalling":
            v = raw != self.prev
        else:
            v = raw
        self.prev = raw
        self.evaluated = True
        if self.delay <= 0:
            self.value = v
            return v
        if v:
            self.pending.append(ctx.time)
        due = [t for t in self.pending if t + self.delay <= ctx.time + EPS]
        self.pending = [t for t in self.pending if t + self.delay > ctx.time + EPS]
        self.value = bool(due)
        return self.value


class Trigger:
    """Condition groups: true when every condition of any group is true (AND within a group, OR across).

    `latch`: scenario_runner's reading (each condition is a oneshot_with_check behaviour under a SUCCESS_ON_ALL
    Parallel, and conditionEdge is not read): a condition that was true once stays true, so a group fires once all
    its conditions have been true, not necessarily at the same tick."""

    def __init__(self, groups: list[list[Condition]], latch: bool = False):
        self.groups = groups
        self.latch = latch
        self.held: set[int] = set()  # ids of the latched conditions that were true

    def evaluate(self, ctx: Any) -> bool:
        result = False
        for g in self.groups:
            ok = bool(g)
            for c in g:
                if self.latch:
                    if c.evaluate(ctx):
                        self.held.add(id(c))
                    ok = ok and id(c) in self.held
                # once a group is false only delayed conditions still need their history kept (as esmini)
                elif ok or c.delay > 0:
                    ok = c.evaluate(ctx) and ok
            result = result or ok
        if result:
            self.held.clear()
            for g in self.groups:
                for c in g:
                    c.reset()
        return result


# --------------------------------------------------------------------------- geometry helpers

def _half_extent(e: Any, dh: float) -> tuple[float, float]:
    """Extent of e's box along a direction at angle dh from e's heading: (forward, backward) from its reference point."""
    c, s = abs(math.cos(dh)), abs(math.sin(dh))
    half = e.length / 2 * c + e.width / 2 * s
    off = e.bbox_cx * math.cos(dh)
    return half + off, half - off


def _corners(e: Any) -> list[tuple[float, float]]:
    ch, sh = math.cos(e.h), math.sin(e.h)
    cx, cy = e.x + e.bbox_cx * ch, e.y + e.bbox_cx * sh
    out = []
    for lx, ly in ((1, 1), (1, -1), (-1, -1), (-1, 1)):
        dx, dy = lx * e.length / 2, ly * e.width / 2
        out.append((cx + dx * ch - dy * sh, cy + dx * sh + dy * ch))
    return out


def box_distance(a: Any, b: Any) -> float:
    """Free space between two entities' oriented boxes (0 when they overlap)."""
    from shapely.geometry import Polygon

    return Polygon(_corners(a)).distance(Polygon(_corners(b)))


def boxes_overlap(a: Any, b: Any) -> bool:
    from shapely.geometry import Polygon

    return Polygon(_corners(a)).intersects(Polygon(_corners(b)))


def rel_distance(ctx: Any, a: Any, b: Any, dtype: str = "cartesian", freespace: bool = False,
                 cs: str = "entity") -> float:
    """Signed distance from a to b (positive ahead/left of a) in the given coordinate system."""
    if dtype in ("cartesian", "cartesianDistance", "euclidianDistance", "euclideanDistance"):
        if freespace:
            return box_distance(a, b)
        return math.hypot(b.x - a.x, b.y - a.y)
    if cs in ("road", "lane", "trajectory") and a.lane is not None and b.lane is not None:
        d = ctx.road_delta(a, b)
        if d is not None:
            ds, dt = d
            if dtype == "longitudinal":
                if freespace:
                    fa, ra = a.length / 2 + a.bbox_cx, a.length / 2 - a.bbox_cx
                    fb, rb = b.length / 2 + b.bbox_cx, b.length / 2 - b.bbox_cx
                    ds = ds - fa - rb if ds > 0 else ds + ra + fb
                    if ds * d[0] < 0:
                        ds = 0.0
                return ds
            if freespace:
                w = (a.width + b.width) / 2
                dt = dt - w if dt > w else (dt + w if dt < -w else 0.0)
            return dt
    ch, sh = math.cos(a.h), math.sin(a.h)
    dx, dy = b.x - a.x, b.y - a.y
    lon, lat = dx * ch + dy * sh, -dx * sh + dy * ch
    if dtype == "longitudinal":
        if freespace:
            fa, ra = a.length / 2 + a.bbox_cx, a.length / 2 - a.bbox_cx
            fb, rb = _half_extent(b, a.h - b.h)  # a's forward, seen from b's heading
            v = lon - fa - rb if lon > 0 else lon + ra + fb
            return v if v * lon > 0 else 0.0
        return lon
    if freespace:
        wa = a.width / 2
        fb, rb = _half_extent(b, a.h + math.pi / 2 - b.h)  # a's left, seen from b's heading
        v = lat - wa - rb if lat > 0 else lat + wa + fb
        return v if v * lat > 0 else 0.0
    return lat


# --------------------------------------------------------------------------- condition builders

def _f(el: Any, name: str, default: float | None = None) -> float:
    v = el.get(name)
    if v is None:
        if default is None:
            raise ValueError(f"{el.tag}.{name} missing")
        return default
    return float(v)


def _b(el: Any, name: str, default: bool = False) -> bool:
    v = el.get(name)
    return default if v is None else v.strip().lower() in ("true", "1")


def _cs(el: Any) -> str:
    cs = el.get("coordinateSystem")
    if cs:
        return cs
    return "road" if _b(el, "alongRoute") else "entity"


def _value_condition(kind: str, el: Any, ctx_build: Any) -> Callable[[Any], bool]:
    if kind == "SimulationTimeCondition":
        v, rule = _f(el, "value"), el.get("rule")
        return lambda c: compare(c.time, v, rule)
    if kind == "StoryboardElementStateCondition":
        ref, state, etype = el.get("storyboardElementRef"), el.get("state"), el.get("storyboardElementType")

        def sbe(c: Any) -> bool:
            elem = c.element(ref, etype)
            if elem is None:
                return False
            if state in (STANDBY, RUNNING, COMPLETE):
                return elem.state == state
            t = elem.transitions.get(state)
            return t is not None and c.time - t <= c.tick + EPS
        return sbe
    if kind in ("ParameterCondition", "VariableCondition"):
        ref, v, rule = el.get("parameterRef") or el.get("variableRef"), el.get("value"), el.get("rule")
        store = "params" if kind == "ParameterCondition" else "variables"
        return lambda c: compare(getattr(c, store).get(ref), v, rule)
    if kind == "TimeOfDayCondition":
        from datetime import datetime

        target, rule = datetime.fromisoformat(el.get("dateTime")[:19]), el.get("rule")
        return lambda c: compare(c.time_of_day().timestamp(), target.timestamp(), rule)
    if kind == "TrafficSignalCondition":
        name, state = el.get("name"), el.get("state")
        return lambda c: str(c.signals.get(name, "")).lower() == str(state).lower()
    if kind == "TrafficSignalControllerCondition":
        ref, phase = el.get("trafficSignalControllerRef"), el.get("phase")
        return lambda c: c.controller_phase(ref) == phase
    raise KeyError(kind)


def _entity_condition(kind: str, el: Any, eb: Any) -> Callable[[Any, Any], bool]:
    """fn(ctx, triggering entity) -> bool."""
    rule = el.get("rule")
    if kind in ANGLE_CONDITIONS:
        return angle_condition(kind, el, eb)
    direction = el.get("direction")  # 1.2+: a component in the triggering entity's frame
    if kind == "SpeedCondition":
        v = _f(el, "value")
        # entities move along their heading: all of the speed is longitudinal
        return lambda c, e: compare(e.speed if direction in (None, "longitudinal") else 0.0, v, rule)
    if kind == "AccelerationCondition":
        v = _f(el, "value")

        def acc(c: Any, e: Any) -> bool:
            a = {"lateral": e.speed * e.yaw_rate, "vertical": 0.0}.get(direction, e.accel)  # lateral: centripetal
            return compare(a, v, rule)
        return acc
    if kind == "RelativeSpeedCondition":
        v, ref = _f(el, "value"), el.get("entityRef")

        def rel_speed(c: Any, e: Any) -> bool:
            o = c.snap[ref]
            if direction is None:
                return compare(e.speed - o.speed, v, rule)
            # in the reference entity's frame: e's velocity projected on its axes minus its own (esmini's rule; the
            # standard names no frame)
            dh = e.h - o.h
            comp = {"longitudinal": e.speed * math.cos(dh) - o.speed, "lateral": e.speed * math.sin(dh)}
            return compare(comp.get(direction, 0.0), v, rule)
        return rel_speed
    if kind == "StandStillCondition":
        d = _f(el, "duration")
        return lambda c, e: c.standstill_time(e.name) >= d - EPS
    if kind == "TraveledDistanceCondition":
        v = _f(el, "value")
        return lambda c, e: c.odometer(e.name) >= v - EPS
    if kind == "EndOfRoadCondition":
        d = _f(el, "duration")
        return lambda c, e: c.end_of_road_time(e.name) >= d - EPS
    if kind == "OffroadCondition":
        d = _f(el, "duration")
        return lambda c, e: c.offroad_time(e.name) >= d - EPS
    if kind == "CollisionCondition":
        ref = el.find("EntityRef")
        by_type = el.find("ByType")
        target = ref.get("entityRef") if ref is not None else None
        otype = by_type.get("type") if by_type is not None else None
        return lambda c, e: c.collides(e.name, target, otype)
    if kind == "ReachPositionCondition":
        tol, pos = _f(el, "tolerance"), eb.position(el.find("Position"))
        def reach(c: Any, e: Any) -> bool:
            p = c.resolve_position(pos, e)
            return math.hypot(p.x - e.x, p.y - e.y) < tol
        return reach
    if kind == "DistanceCondition":
        # compared as an absolute value, as RelativeDistanceCondition below
        v, fs, pos, cs = _f(el, "value"), _b(el, "freespace"), eb.position(el.find("Position")), _cs(el)
        dtype = el.get("relativeDistanceType", "cartesian")

        def dist(c: Any, e: Any) -> bool:
            return compare(abs(c.distance_to_position(e, c.resolve_position(pos, e), dtype, fs, cs)), v, rule)
        return dist
    if kind == "RelativeDistanceCondition":
        v, fs, ref = _f(el, "value"), _b(el, "freespace"), el.get("entityRef")
        dtype, cs = el.get("relativeDistanceType", "cartesian"), _cs(el)
        # a condition's distance is never negative (OpenSCENARIO 1.x, 6.4 Distances: in R+0; esmini takes fabs too)
        return lambda c, e: compare(abs(rel_distance(c, e, c.snap[ref], dtype, fs, cs)), v, rule)
    if kind == "TimeHeadwayCondition":
        v, fs, ref, cs = _f(el, "value"), _b(el, "freespace"), el.get("entityRef"), _cs(el)

        # alongRoute (deprecated) picks the road system only; the distance type stays euclidean unless named (1.1+)
        dtype = el.get("relativeDistanceType") or "euclidianDistance"

        def thw(c: Any, e: Any) -> bool:
            o = c.snap[ref]
            d = rel_distance(c, e, o, dtype, fs, cs)
            if dtype not in ("longitudinal", "lateral") and rel_distance(c, e, o, "longitudinal", fs, "entity") < 0:
                d = -d  # negative when the other is behind (with freespace: wholly behind, a gap between, as esmini)
            if d < 0 or e.speed <= EPS:
                return False  # headway is undefined behind the entity or when it stands: no rule holds (as esmini)
            return compare(d / e.speed, v, rule)
        return thw
    if kind == "TimeToCollisionCondition":
        v, fs, cs = _f(el, "value"), _b(el, "freespace"), _cs(el)
        tgt = el.find("TimeToCollisionConditionTarget")
        eref = tgt.find("EntityRef") if tgt is not None else None
        pos = eb.position(tgt.find("Position")) if tgt is not None and tgt.find("Position") is not None else None

        def ttc(c: Any, e: Any) -> bool:
            if eref is not None:
                o = c.snap[eref.get("entityRef")]
                d = rel_distance(c, e, o, "longitudinal", fs, cs)
                closing = e.speed - o.speed * math.cos(o.h - e.h)
            else:
                p = c.resolve_position(pos, e)
                d = c.distance_to_position(e, p, "longitudinal", fs, cs)
                closing = e.speed
            if d <= EPS or closing <= EPS:
                return False  # no time to collision when not closing in: no rule holds (as esmini)
            return compare(d / closing, v, rule)
        return ttc
    raise KeyError(kind)


CONDITIONS = {
    "ByValueCondition": ("SimulationTimeCondition", "StoryboardElementStateCondition", "ParameterCondition",
                         "VariableCondition", "TimeOfDayCondition", "TrafficSignalCondition",
                         "TrafficSignalControllerCondition"),
    "ByEntityCondition": ("SpeedCondition", "AccelerationCondition", "RelativeSpeedCondition", "StandStillCondition",
                          "TraveledDistanceCondition", "EndOfRoadCondition", "OffroadCondition", "CollisionCondition",
                          "ReachPositionCondition", "DistanceCondition", "RelativeDistanceCondition",
                          "TimeHeadwayCondition", "TimeToCollisionCondition") + ANGLE_CONDITIONS,
}


def _build_condition(cx: Any, eb: Any) -> Condition:
    name, edge = cx.get("name", ""), cx.get("conditionEdge", "none")
    delay = float(cx.get("delay", "0") or 0)
    bv, be = cx.find("ByValueCondition"), cx.find("ByEntityCondition")
    if bv is not None and len(bv):
        inner = bv[0]
        if inner.tag not in CONDITIONS["ByValueCondition"]:
            raise UnsupportedError(inner.tag, *eb.where(inner))
        return Condition(name, _value_condition(inner.tag, inner, eb), edge, delay)
    if be is not None:
        te = be.find("TriggeringEntities")
        ec = be.find("EntityCondition")
        if te is None or ec is None or not len(ec):
            raise eb.error(be, "ByEntityCondition", "expected TriggeringEntities and an EntityCondition")
        inner = ec[0]
        if inner.tag not in CONDITIONS["ByEntityCondition"]:
            raise UnsupportedError(inner.tag, *eb.where(inner))
        ents = [r.get("entityRef") for r in te.findall("EntityRef")]
        for n in ents + ([inner.get("entityRef")] if inner.get("entityRef") else []):
            if n not in eb.entity_names:
                raise eb.error(inner, f"{inner.tag}.entityRef", f"unknown entity {n!r} (known: {', '.join(eb.entity_names)})")
        mode = te.get("triggeringEntitiesRule", "any")
        fn = _entity_condition(inner.tag, inner, eb)

        def by_entity(c: Any) -> bool:
            vals = [fn(c, c.snap[n]) for n in ents if c.snap[n].active]
            if not vals:
                return False
            return all(vals) if mode == "all" else any(vals)
        return Condition(name, by_entity, edge, delay)
    raise UnsupportedError(cx[0].tag if len(cx) else "Condition", *eb.where(cx))


def build_trigger(tx: Any, eb: Any) -> Trigger:
    """A <StartTrigger>/<StopTrigger> element as a Trigger; `eb` gives file locations and position parsing."""
    latch = getattr(getattr(eb, "sc", None), "srunner_dialect", False)
    groups = [[_build_condition(cx, eb) for cx in gx.findall("Condition")] for gx in tx.findall("ConditionGroup")]
    if latch:  # scenario_runner reads no conditionEdge: a condition succeeds while its test holds
        for c in (c for g in groups for c in g):
            c.edge = "none"
    return Trigger(groups, latch)
