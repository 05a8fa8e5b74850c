"""What the model must answer (JSON schemas) and how an answer is read: extracted, validated, and repaired
only where the repair is unambiguous. Every repair is named, so the records can count them.

Unambiguous repairs: a code fence or prose around the JSON object, trailing commas, points written as
{"x", "y"}, more than six waypoints (the first six kept), a missing reason. Anything else (no JSON, fewer
than six waypoints, NaN, a point behind the car or over 1000 m away, a negative or absurd speed) makes the
answer invalid.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from roadtest.agents.base import PLAN_STEPS

__all__ = ["LIGHT_STATES", "perception_schema", "plan_schema", "end_to_end_schema", "Parsed", "extract_json",
           "read_perception", "read_plan", "BEHIND_TOLERANCE"]

LIGHT_STATES = ("red", "yellow", "green", "off", "none")
MAX_WAYPOINT_M = 1000.0  # m: a waypoint further than this (3 s ahead) is a broken answer, not a plan
MAX_TARGET_SPEED = 1000.0  # km/h or mph: past this the number is garbage, and 1e308 would overflow the controller
BEHIND_TOLERANCE = 0.5  # m: a waypoint further behind the car than this makes the plan invalid
_DIST = ("near", "mid", "far")


def perception_schema(sign_ids: list[str]) -> dict[str, Any]:
    sign = {"type": "object", "additionalProperties": False, "required": ["id", "value", "side", "distance"],
            "properties": {"id": {"type": "string", "enum": sorted(sign_ids) + ["other"]},
                           "value": {"type": ["number", "null"]},
                           "side": {"type": "string", "enum": ["left", "right", "overhead"]},
                           "distance": {"type": "string", "enum": list(_DIST)}}}
    user = {"type": "object", "additionalProperties": False, "required": ["kind", "where", "distance"],
            "properties": {"kind": {"type": "string"}, "where": {"type": "string", "enum": ["ahead", "left", "right", "crossing"]},
                           "distance": {"type": "string", "enum": list(_DIST)}}}
    return {"type": "object", "additionalProperties": False, "required": ["signs", "light", "road_users"],
            "properties": {"signs": {"type": "array", "items": sign},
                           "light": {"type": "string", "enum": list(LIGHT_STATES)},
                           "road_users": {"type": "array", "items": user}}}


def plan_schema() -> dict[str, Any]:
    point = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
    return {"type": "object", "additionalProperties": False, "required": ["waypoints", "target_speed", "reason"],
            "properties": {"waypoints": {"type": "array", "items": point, "minItems": PLAN_STEPS, "maxItems": PLAN_STEPS},
                           "target_speed": {"type": "number", "minimum": 0}, "reason": {"type": "string"}}}


def end_to_end_schema(sign_ids: list[str]) -> dict[str, Any]:
    p, q = perception_schema(sign_ids), plan_schema()
    return {"type": "object", "additionalProperties": False, "required": p["required"] + q["required"],
            "properties": {**p["properties"], **q["properties"]}}


@dataclass
class Parsed:
    """One answer read: the value (None when invalid), the repairs made, and why it is invalid."""

    value: dict[str, Any] | None
    repairs: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def _balanced(text: str, start: int) -> str | None:
    depth, in_str, esc = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    return None


def extract_json(text: str | None) -> Parsed:
    """The JSON object in a model's text: as is, else the first balanced {...} (fences, prose around it)."""
    if text is None or not text.strip():
        return Parsed(None, error="empty answer")
    repairs: list[str] = []
    body = text.strip()
    try:
        value = json.loads(body)
    except ValueError:
        start = body.find("{")
        chunk = _balanced(body, start) if start >= 0 else None
        if chunk is None:
            return Parsed(None, error="no JSON object in the answer")
        repairs.append("extracted JSON object from surrounding text")
        try:
            value = json.loads(chunk)
        except ValueError:
            fixed = re.sub(r",\s*([}\]])", r"\1", chunk)
            try:
                value = json.loads(fixed)
            except ValueError as e:
                return Parsed(None, repairs, f"invalid JSON: {e}")
            repairs.append("removed trailing commas")
    if not isinstance(value, dict):
        return Parsed(None, repairs, f"expected a JSON object, got {type(value).__name__}")
    return Parsed(value, repairs)


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                return None
        else:
            return None
    return float(v)


def read_perception(raw: dict[str, Any], sign_ids: set[str], repairs: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """Signs, light and road users from a parsed answer; unknown sign ids are kept as "other"."""
    signs_in = raw.get("signs", [])
    if not isinstance(signs_in, list):
        return None, f"signs: expected a list, got {type(signs_in).__name__}"
    signs = []
    for i, sg in enumerate(signs_in):
        if isinstance(sg, str):
            sg = {"id": sg}
            repairs.append(f"signs.{i}: bare id read as a sign")
        if not isinstance(sg, dict) or not isinstance(sg.get("id"), str):
            return None, f"signs.{i}: expected an object with an id"
        sid = sg["id"].strip().lower().replace(" ", "_").replace("-", "_")
        value = _number(sg.get("value")) if sg.get("value") is not None else None
        signs.append({"id": sid if sid in sign_ids else "other", "label": sg["id"], "value": value,
                      "side": sg.get("side"), "distance": sg.get("distance")})
    light = str(raw.get("light", "none") or "none").strip().lower()
    light = {"amber": "yellow", "unknown": "none", "no": "none", "null": "none"}.get(light, light)
    if light not in LIGHT_STATES:
        return None, f"light: expected one of {list(LIGHT_STATES)}, got {raw.get('light')!r}"
    users = raw.get("road_users", [])
    if not isinstance(users, list):
        return None, "road_users: expected a list"
    return {"signs": signs, "light": light, "road_users": [u for u in users if isinstance(u, dict)]}, None


def read_plan(raw: dict[str, Any], repairs: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """Six finite waypoints none behind the car, a target speed >= 0 (in the prompt's unit), a reason."""
    wps = raw.get("waypoints")
    if not isinstance(wps, list):
        return None, "waypoints: expected a list of [x, y]"
    pts = []
    for i, p in enumerate(wps):
        if isinstance(p, dict) and "x" in p and "y" in p:
            p = [p["x"], p["y"]]
            if "points written as {x, y}" not in repairs:
                repairs.append("points written as {x, y}")
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            return None, f"waypoints.{i}: expected [x, y], got {p!r}"
        x, y = _number(p[0]), _number(p[1])
        if x is None or y is None:
            return None, f"waypoints.{i}: expected numbers, got {p!r}"
        if not (math.isfinite(x) and math.isfinite(y)):
            return None, f"waypoints.{i}: not finite ({x}, {y})"
        if abs(x) > MAX_WAYPOINT_M or abs(y) > MAX_WAYPOINT_M:
            return None, f"waypoints.{i}: ({x:g}, {y:g}) is more than {MAX_WAYPOINT_M:g} m from the car"
        pts.append((x, y))
    if len(pts) > PLAN_STEPS:
        repairs.append(f"{len(pts)} waypoints: kept the first {PLAN_STEPS}")
        pts = pts[:PLAN_STEPS]
    if len(pts) < PLAN_STEPS:
        return None, f"waypoints: expected {PLAN_STEPS}, got {len(pts)}"
    behind = [i for i, (x, _) in enumerate(pts) if x < -BEHIND_TOLERANCE]
    if behind:
        return None, f"waypoints.{behind[0]}: behind the car (x = {pts[behind[0]][0]:.2f} m)"
    speed = _number(raw.get("target_speed"))
    if speed is None or not math.isfinite(speed):
        return None, f"target_speed: expected a number, got {raw.get('target_speed')!r}"
    if speed < 0:
        return None, f"target_speed: negative ({speed})"
    if speed > MAX_TARGET_SPEED:
        return None, f"target_speed: {speed:g} is over {MAX_TARGET_SPEED:g} (the prompt's unit)"
    reason = raw.get("reason")
    if not isinstance(reason, str):
        repairs.append("missing reason")
        reason = ""
    return {"waypoints": pts, "target_speed": speed, "reason": reason.strip()}, None
