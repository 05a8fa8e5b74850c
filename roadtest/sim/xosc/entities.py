"""Entities: Vehicle, Pedestrian and MiscObject definitions as the mutable state the engine moves."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from roadtest.errors import UnsupportedError
from roadtest.sim.api import LanePos
from roadtest.sim.xosc.parser import attr_float as _f

__all__ = ["EntityState", "build_entity", "UNLIMITED_RATE"]

UNLIMITED_RATE = 1e9  # m/s^2: no acceleration cap, finite so that rate arithmetic stays finite


@dataclass
class EntityState:
    """One entity's state, mutated in place each tick (the engine snapshots it before triggers)."""

    name: str
    category: str  # car, truck, bus, van, motorbike, bicycle, pedestrian, misc, ... (vehicleCategory etc.)
    role: str  # "ego" for the hero/Ego, else "scenario"
    length: float  # m
    width: float  # m
    height: float  # m
    bbox_cx: float = 0.0  # m, bounding box centre forward of the reference point
    x: float = 0.0  # m
    y: float = 0.0  # m
    z: float = 0.0  # m
    h: float = 0.0  # rad
    speed: float = 0.0  # m/s
    accel: float = 0.0  # m/s^2
    yaw_rate: float = 0.0  # rad/s
    lane: LanePos | None = None
    max_speed: float = 70.0  # m/s
    max_accel: float = 10.0  # m/s^2
    max_decel: float = 10.0  # m/s^2
    wheelbase: float = 2.8  # m
    max_steer: float = 0.6  # rad
    properties: dict[str, str] = field(default_factory=dict)
    visible: bool = True
    active: bool = True
    kind: str = "vehicle"  # vehicle | pedestrian | misc (the OpenSCENARIO element)
    bbox_cy: float = 0.0  # m, bounding box centre left of the reference point
    bbox_cz: float = 0.0  # m
    hitch_dx: float | None = None  # m, trailer hitch forward of the reference point (a tow vehicle)
    coupler_dx: float | None = None  # m, coupler forward of the reference point (a trailer)
    trailer: str | None = None  # entity towed now
    tow: str | None = None  # entity towing this one now; a towed trailer follows its hitch


def build_entity(so: Any, eb: Any) -> tuple[EntityState, Any]:
    """An EntityState from a <ScenarioObject> (catalog entries already inlined), and its controller element."""
    name = so.get("name", "")
    body = next((c for c in so if isinstance(c.tag, str) and c.tag in ("Vehicle", "Pedestrian", "MiscObject")), None)
    if body is None:
        other = next((c for c in so if isinstance(c.tag, str) and c.tag != "ObjectController"), None)
        raise UnsupportedError(other.tag if other is not None else "ScenarioObject", *eb.where(other if other is not None else so))
    bb = body.find("BoundingBox")
    ctr, dim = (bb.find("Center"), bb.find("Dimensions")) if bb is not None else (None, None)
    props = {p.get("name", ""): p.get("value", "") for p in body.findall("Properties/Property")}
    kind = {"Vehicle": "vehicle", "Pedestrian": "pedestrian", "MiscObject": "misc"}[body.tag]
    if kind == "vehicle":
        category = body.get("vehicleCategory", "car")
    elif kind == "pedestrian":
        category = "pedestrian"
    else:
        category = "misc"
    role = "ego" if props.get("type") == "ego_vehicle" or name.lower() in ("hero", "ego") else "scenario"
    e = EntityState(
        name=name, category=category, role=role,
        length=_f(dim, "length", 4.5), width=_f(dim, "width", 1.8), height=_f(dim, "height", 1.5),
        bbox_cx=_f(ctr, "x", 0.0), bbox_cy=_f(ctr, "y", 0.0), bbox_cz=_f(ctr, "z", 0.0),
        properties=props, kind=kind,
    )
    perf = body.find("Performance")
    if perf is not None:
        e.max_speed = _f(perf, "maxSpeed", e.max_speed)
        e.max_accel = _f(perf, "maxAcceleration", e.max_accel)
        e.max_decel = _f(perf, "maxDeceleration", e.max_decel)
    elif kind == "pedestrian":
        # OpenSCENARIO's Pedestrian has no Performance element: nothing caps how it moves (esmini: unlimited too)
        e.max_accel = e.max_decel = UNLIMITED_RATE
    front, rear = body.find("Axles/FrontAxle"), body.find("Axles/RearAxle")
    if front is not None and rear is not None:
        wb = _f(front, "positionX", 0.0) - _f(rear, "positionX", 0.0)
        if wb > 0.1:
            e.wheelbase = wb
        e.max_steer = _f(front, "maxSteering", e.max_steer) or e.max_steer
    if not math.isfinite(e.max_speed):
        e.max_speed = 70.0
    hitch, coupler = body.find("TrailerHitch"), body.find("TrailerCoupler")
    e.hitch_dx = _f(hitch, "dx", 0.0) if hitch is not None else None
    e.coupler_dx = _f(coupler, "dx", 0.0) if coupler is not None else None
    ref = body.find("Trailer/TrailerRef")
    e.trailer = ref.get("entityRef") or None if ref is not None else None
    ctrl = so.find("ObjectController/Controller")
    return e, ctrl
