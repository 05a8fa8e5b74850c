"""What the rules listed in meta.json ask of the expert's speed and gap, read from their parameters: one small
limit per rule id, registered with _limit; the caps of the weather and light, and any other rule's max_speed (or
speed_limit) param, come from roadtest.limits, as the monitors, traffic and report read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from roadtest.agents.constraints import keeps
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


@dataclass(frozen=True)
class _Tick:
    """What a rule's limit reads of this tick: its id and params (SI), the environment, the fog range, the zones."""

    rid: str
    params: Mapping[str, Any]
    env: Mapping[str, Any]
    vis: float
    zones: list[Mapping[str, Any]]

    @property
    def cap(self) -> float | None:
        """The cap roadtest.limits gives the rule now from the weather and light (None: none)."""
        return rule_cap(self.rid, self.params, self.vis, is_night(self.env))

    def p(self, key: str, default: float | None = None) -> float | None:
        return param_si(self.params, key, default)


_LIMITS: dict[str, Callable[[RuleLimits, _Tick], None]] = {}  # rule id -> how it constrains speed and gap


def _limit(*rule_ids: str) -> Callable[[Callable[[RuleLimits, _Tick], None]], Callable[[RuleLimits, _Tick], None]]:
    """Register a rule's limit (and, for the ablated expert, that this module keeps a constraint for the rule)."""
    def deco(fn: Callable[[RuleLimits, _Tick], None]) -> Callable[[RuleLimits, _Tick], None]:
        for rid in rule_ids:
            _LIMITS[rid] = fn
        keeps(__name__, *rule_ids)
        return fn
    return deco


@_limit("fog_speed_limit")
def _fog(out: RuleLimits, t: _Tick) -> None:
    out.cap(t.cap)


@_limit("fog_expressway")
def _fog_expressway(out: RuleLimits, t: _Tick) -> None:
    out.cap(t.cap)
    for i in (3, 2, 1):
        if t.vis < (t.p(f"vis{i}") or -1.0):
            gap = t.p(f"gap{i}")
            if gap is not None:
                out.min_gap = max(out.min_gap, gap)
            break


@_limit("night_speed")
def _night_speed(out: RuleLimits, t: _Tick) -> None:
    out.cap(t.cap)


def _zone_cap(kind: str, param: str) -> Callable[[RuleLimits, _Tick], None]:
    def cap_in(out: RuleLimits, t: _Tick) -> None:
        cap = t.p(param)
        for z in t.zones:
            if z.get("kind") != kind or cap is None:
                continue
            if z.get("inside"):
                out.cap(cap)
            elif float(z.get("distance_start", 1e9)) > 0.0:
                out.ahead.append((float(z["distance_start"]), cap))
    return cap_in


_limit("school_zone_speed")(_zone_cap("school_zone", "school_speed"))
_limit("work_zone_speed")(_zone_cap("work_zone", "work_speed"))


@_limit("safe_distance")
def _safe_distance(out: RuleLimits, t: _Tick) -> None:
    out.headway = max(out.headway, (t.p("time_gap", 1.5) or 1.5) + 0.6)  # margin for a braking lead
    out.min_gap = max(out.min_gap, (t.p("min_gap", 2.0) or 2.0) + 1.5)


@_limit("expressway_distance")
def _expressway_distance(out: RuleLimits, t: _Tick) -> None:
    """A gap that grows to fast_gap by fast_speed, never under slow_gap."""
    slow, fast, v_fast = t.p("slow_gap", 50.0), t.p("fast_gap", 100.0), t.p("fast_speed", 100 / 3.6)
    out.min_gap = max(out.min_gap, (slow or 50.0) + 5.0)
    out.headway = max(out.headway, (fast or 100.0) / (v_fast or 100 / 3.6) + 0.2)


@_limit("yellow_light")
def _yellow(out: RuleLimits, t: _Tick) -> None:
    out.comfort_decel = t.p("comfort_decel", 3.0) or 3.0


def _generic(out: RuleLimits, t: _Tick) -> None:
    """Any other rule: its max_speed (or speed_limit) param caps the speed, below its visibility_threshold if it has one."""
    out.cap(t.cap)


def rule_limits(view: Mapping[str, Any], ignore: frozenset[str] = frozenset()) -> RuleLimits:
    """RuleLimits for the current tick from view["rules"] (meta.rules) and the scene in the objects view;
    the rules in `ignore` are skipped (the ablated expert), and ignoring safe_distance also drops the default gap."""
    out = RuleLimits()
    if "safe_distance" in ignore:
        out.min_gap, out.headway = 1.5, 0.6
    env = view.get("environment") or {}
    vis = float(env.get("fog_visual_range", 1e5))
    zones = view.get("zones") or []
    for rule in view.get("rules") or []:
        rid = str(rule.get("id", "") if isinstance(rule, Mapping) else rule)
        if rid in ignore:
            continue
        params = (rule.get("params") if isinstance(rule, Mapping) else None) or {}
        _LIMITS.get(rid, _generic)(out, _Tick(rid, params, env, vis, zones))
    return out
