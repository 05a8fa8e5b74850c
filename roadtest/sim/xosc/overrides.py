"""OverrideControllerValueAction: pedal, steering-wheel and gear values that replace a controller's own.

Each child (Throttle, Brake, Clutch, ParkingBrake, SteeringWheel, Gear) with active="true" sets its override,
active="false" releases it; children not written leave theirs as they were (OpenSCENARIO 1.x,
OverrideControllerValueAction). Values are those of the standard: pedals 0..1 (Brake and ParkingBrake also as
BrakePercent 0..1 or BrakeForce in N), steering wheel angle in rad with positive to the left, gear as
AutomaticGear (n, p, r, d) or ManualGear / the deprecated `number` (negative: reverse, 0: neutral).

`apply_overrides` turns them into the leaderboard Control of an agent-driven entity: this is how a driver
overrides the agent. The standard gives no steering ratio; roadtest takes STEERING_RATIO (a typical car's) to
turn the steering-wheel angle into a road-wheel angle. An entity the storyboard drives keeps its trajectory
(as in esmini, whose default controller reads no overrides); its overrides stay recorded in its properties.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from roadtest.sim.api import Control

__all__ = ["parse_overrides", "apply_overrides", "STEERING_RATIO"]

STEERING_RATIO = 15.0  # steering-wheel angle / road-wheel angle
G = 9.81  # m/s^2
_KINDS = ("Throttle", "Brake", "Clutch", "ParkingBrake", "SteeringWheel", "Gear")


def _num(el: Any, name: str, default: float = 0.0) -> float:
    v = el.get(name)
    try:
        x = float(v) if v not in (None, "") else default
    except ValueError:
        return default
    return x if math.isfinite(x) else default


def _pedal(el: Any, mass: float, max_decel: float) -> float:
    """A pedal's value 0..1: `value`, or a BrakePercent / BrakeForce child (force over what max_decel needs)."""
    pct, force = el.find("BrakePercent"), el.find("BrakeForce")
    if pct is not None:
        v = _num(pct, "value")
    elif force is not None:
        v = _num(force, "value") / max(mass * max_decel, 1e-6)
    else:
        v = _num(el, "value")
    return min(max(v, 0.0), 1.0)


def _gear(el: Any) -> str:
    auto, manual = el.find("AutomaticGear"), el.find("ManualGear")
    if auto is not None:
        return auto.get("gear", "d") or "d"
    n = _num(manual, "number") if manual is not None else _num(el, "number", 1.0)
    return "r" if n < 0 else ("n" if n == 0 else "d")


def parse_overrides(el: Any, current: dict[str, Any], mass: float = 1500.0, max_decel: float = 9.0) -> dict[str, Any]:
    """The overrides in force after an <OverrideControllerValueAction> on top of `current` (kind -> value)."""
    out = dict(current)
    for kind in _KINDS:
        c = el.find(kind)
        if c is None:
            continue
        if (c.get("active") or "false").strip().lower() not in ("true", "1"):
            out.pop(kind, None)
        elif kind == "Gear":
            out[kind] = _gear(c)
        elif kind == "SteeringWheel":
            out[kind] = _num(c, "value")
        elif kind in ("Brake", "ParkingBrake"):
            out[kind] = _pedal(c, mass, max_decel)
        else:
            out[kind] = min(max(_num(c, "value"), 0.0), 1.0)
    return out


def apply_overrides(control: Control, ov: dict[str, Any], max_steer: float) -> Control:
    """The control an agent asked for, with the overrides in force replacing its values."""
    if not ov:
        return control
    kw: dict[str, Any] = {}
    if "Throttle" in ov:
        kw["throttle"] = ov["Throttle"]
    if "Brake" in ov:
        kw["brake"] = ov["Brake"]
    if "SteeringWheel" in ov:
        wheel = ov["SteeringWheel"] / STEERING_RATIO  # rad at the road wheels, positive left
        kw["steer"] = min(max(-wheel / max(max_steer, 1e-6), -1.0), 1.0)  # Control: positive right
    if "ParkingBrake" in ov:
        kw["hand_brake"] = ov["ParkingBrake"] > 0.0
    gear = ov.get("Gear")
    if gear is not None:
        kw["reverse"] = gear == "r"
        if gear in ("n", "p"):
            kw["throttle"] = 0.0
        if gear == "p":
            kw["hand_brake"] = True
    if ov.get("Clutch", 0.0) >= 0.5:  # the clutch pressed past its biting point: no drive reaches the wheels
        kw["throttle"] = 0.0
    return replace(control, **kw)
