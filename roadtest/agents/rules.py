"""What the rules listed in meta.json ask of the expert's speed and gap, read from their parameters; the caps
of the weather and light come from roadtest.limits, as the monitors, traffic and report read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from roadtest.limits import is_night, param_si, rule_cap

__all__ = ["RuleLimits", "rule_limits", "param_si", "rule_param", "listed"]



def rule_param(view: Mapping[str, Any], rule_id: str, key: str) -> float | None:
    """A parameter (SI) of a rule listed in the objects view's rules; None when the rule or the parameter is absent."""
    for r in view.get("rules") or []:
        if isinstance(r, Mapping) and r.get("id") == rule_id:
            return param_si(r.get("params") or {}, key)
    return None


def listed(view: Mapping[str, Any], rule_id: str) -> bool:
    """Whether the scene's rules (meta.rules, as the objects view gives them) include `rule_id`."""
    return any((r.get("id") if isinstance(r, Mapping) else r) == rule_id for r in view.get("rules") or [])


@dataclass
class RuleLimits:
    """Constraints from rules: a speed cap now, caps ahead [(distance m, m/s)], gap keeping, yellow-light braking."""

    max_speed: float | None = None
    ahead: list[tuple[float, float]] = field(default_factory=list)
    min_gap: float = 2.5  # m at standstill
    headway: float = 1.6  # s
    comfort_decel: float = 3.0  # m/s^2

    def cap(self, v: float | None) -> None:
        if v is not None:
            self.max_speed = v if self.max_speed is None else min(self.max_speed, v)


def rule_limits(view: Mapping[str, Any], ignore: frozenset[str] = frozenset()) -> RuleLimits:
    """RuleLimits for the current tick from view["rules"] (meta.rules) and the scene in the objects view;
    the rules in `ignore` are skipped (the ablated expert), and ignoring safe_distance also drops the default gap."""
    out = RuleLimits()
    if "safe_distance" in ignore:
        out.min_gap, out.headway = 1.5, 0.6
    env = view.get("environment") or {}
    vis = float(env.get("fog_visual_range", 1e5))
    zones = view.get("zones") or []
    night = is_night(env)
    tol_margin = 0.0
    for rule in view.get("rules") or []:
        rid = str(rule.get("id", "") if isinstance(rule, Mapping) else rule)
        params = (rule.get("params") if isinstance(rule, Mapping) else None) or {}
        p = lambda k, d=None: param_si(params, k, d)  # noqa: E731
        if rid in ignore:
            continue
        if rid == "fog_speed_limit":
            out.cap(rule_cap(rid, params, vis, night))
        elif rid == "fog_expressway":
            out.cap(rule_cap(rid, params, vis, night))
            for i in (3, 2, 1):
                if vis < (p(f"vis{i}") or -1.0):
                    gap = p(f"gap{i}")
                    if gap is not None:
                        out.min_gap = max(out.min_gap, gap)
                    break
        elif rid == "night_speed":
            out.cap(rule_cap(rid, params, vis, night))
        elif rid in ("school_zone_speed", "work_zone_speed"):
            kind = "school_zone" if rid.startswith("school") else "work_zone"
            cap = p("school_speed" if kind == "school_zone" else "work_speed")
            for z in zones:
                if z.get("kind") != kind or cap is None:
                    continue
                if z.get("inside"):
                    out.cap(cap)
                elif float(z.get("distance_start", 1e9)) > 0.0:
                    out.ahead.append((float(z["distance_start"]), cap))
        elif rid == "safe_distance":
            out.headway = max(out.headway, (p("time_gap", 1.5) or 1.5) + 0.6)  # margin for a braking lead
            out.min_gap = max(out.min_gap, (p("min_gap", 2.0) or 2.0) + 1.5)
        elif rid == "expressway_distance":  # a gap that grows to fast_gap by fast_speed, never under slow_gap
            slow, fast, v_fast = p("slow_gap", 50.0), p("fast_gap", 100.0), p("fast_speed", 100 / 3.6)
            out.min_gap = max(out.min_gap, (slow or 50.0) + 5.0)
            out.headway = max(out.headway, (fast or 100.0) / (v_fast or 100 / 3.6) + 0.2)
        elif rid == "yellow_light":
            out.comfort_decel = p("comfort_decel", 3.0) or 3.0
        else:
            out.cap(rule_cap(rid, params, vis, night))
    if out.max_speed is not None:
        out.max_speed -= tol_margin
    return out
