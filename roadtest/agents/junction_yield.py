"""The expert's giving way at an unsignalised junction: it holds before the junction while a crossing vehicle with
priority would reach it too soon, and goes once every such vehicle needs at least the rule's time gap.

Who has priority over the ego: every crossing vehicle when a give-way (or stop) sign faces the ego on its
approach (give_way_sign); without signs or lights, a crossing vehicle from the ego's right, from its left
where traffic drives on the left (right_of_way_unsignalised). A traffic light ahead, or a priority-road sign
on the ego's approach, leaves the junction to the other constraints. "Would reach it" is the rule monitor's
measure (rules/signals.py cross_tta): distance to the ego over speed, for a moving vehicle heading toward it,
taken at the moment the ego would cross the line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from roadtest.agents.constraints import keeps
from roadtest.agents.rules import rule_param
from roadtest.kinds import RULE_NON_VEHICLES as NON_VEHICLES  # what the monitor's cross_tta does not count

__all__ = ["GIVE_WAY", "RIGHT_OF_WAY", "JunctionHold", "junction_hold", "priority_over_ego"]

GIVE_WAY, RIGHT_OF_WAY = "give_way_sign", "right_of_way_unsignalised"
keeps(__name__, GIVE_WAY, RIGHT_OF_WAY)
DEFAULT_GAP = 3.0  # s, both rules' catalogue min_time_gap
MARGIN = 1.5  # s kept above the rule's gap: the ego still moves between deciding and crossing the line
LINE_MATCH = 15.0  # m: a stop line this close to the give-way sign is the one it governs (as the monitor)
JUNCTION_REACH = 40.0  # m: a sign or line this far before the junction belongs to it
CROSSING = 0.7  # |sin| of the relative heading above which a vehicle crosses the ego's path
COMMITTED_DECEL = 4.0  # m/s^2: when stopping before the line needs more, the ego is committed and goes on
_PRIORITY_SIGNS = ("priority_road",)


@dataclass(frozen=True)
class JunctionHold:
    """Where to wait (gap m from the ego's front to the line) and for whom."""

    gap: float
    vehicle: str
    rule: str


def _kind(sign: Mapping[str, Any]) -> str:
    return str(sign.get("kind") or sign.get("id") or "").lower()


def priority_over_ego(actor: Mapping[str, Any], rule: str, left_hand: bool) -> bool:
    """Whether a moving vehicle (objects-sensor entry, ego frame) crosses toward the ego with priority under `rule`."""
    if str(actor.get("kind", "")).lower() in NON_VEHICLES or float(actor.get("speed", 0.0)) < 0.5:
        return False
    h, x, y = float(actor.get("h", 0.0)), float(actor.get("x", 0.0)), float(actor.get("y", 0.0))
    if abs(math.sin(h)) < CROSSING:
        return False
    if -x * math.cos(h) - y * math.sin(h) <= 0.0:  # heading away from the ego: it has passed
        return False
    if rule == RIGHT_OF_WAY:  # from the right it moves leftward (sin h > 0) on the ego's right (y < 0)
        from_right = math.sin(h) > 0.0 and y < 0.0
        from_left = math.sin(h) < 0.0 and y > 0.0
        return from_left if left_hand else from_right
    return True


def _tta(actor: Mapping[str, Any], ego_width: float) -> float:
    gap = math.hypot(float(actor["x"]), float(actor["y"])) - (float(actor.get("length", 4.5)) + ego_width) / 2.0
    return max(gap, 0.0) / max(float(actor.get("speed", 0.0)), 0.1)


def junction_hold(view: Mapping[str, Any], ego: Mapping[str, Any], speed: float, ignore: frozenset[str]) -> JunctionHold | None:
    """The hold before the next unsignalised junction, or None (no junction ahead, lights there, the ego has
    priority or is committed, nobody with priority is near enough, or the rule that asks for it is ignored)."""
    half = float(ego.get("length", 4.5)) / 2.0
    ahead = [j for j in view.get("junctions") or [] if not j.get("inside") and float(j["distance_start"]) > 0.0]
    if not ahead:
        return None
    start = min(float(j["distance_start"]) for j in ahead)
    if any(-1.0 <= float(lt.get("distance", 1e9)) <= start + 5.0 for lt in view.get("lights") or []):
        return None
    signs = [sg for sg in view.get("signs") or [] if start - JUNCTION_REACH <= float(sg["distance"]) <= start + 1.0]
    if any(any(p in _kind(sg) for p in _PRIORITY_SIGNS) for sg in signs):
        return None
    give_way = [sg for sg in signs if _kind(sg).startswith(("yield", "give_way", "stop")) or _kind(sg) in ("205", "206")]
    rule = GIVE_WAY if give_way else RIGHT_OF_WAY
    if rule in ignore:
        return None
    if give_way:
        at = min(float(sg["distance"]) for sg in give_way)
        lines = [float(sl["distance"]) for sl in view.get("stop_lines") or [] if abs(float(sl["distance"]) - at) <= LINE_MATCH]
        line = min(lines, key=lambda d: abs(d - at)) if lines else at
    else:
        line = start
    gap = line - half  # from the front bumper, which the monitor's give-way line is crossed by
    if gap < 0.0 or speed * speed / (2.0 * max(gap, 0.05)) > COMMITTED_DECEL:
        return None
    t_line = gap / max(speed, 1.0) if speed > 1.0 else math.sqrt(2.0 * max(gap, 0.0) / 1.5)
    need = (rule_param(view, rule, "min_time_gap") or DEFAULT_GAP) + MARGIN + t_line
    left_hand = str(view.get("driving_side", "right")) == "left"
    width = float(ego.get("width", 1.8))
    for a in view.get("actors") or []:
        if priority_over_ego(a, rule, left_hand) and _tta(a, width) < need:
            return JunctionHold(gap=gap, vehicle=str(a.get("id")), rule=rule)
    return None
