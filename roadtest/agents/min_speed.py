"""The expert's minimum speed: on a road where min_speed_expressway is in force it cruises at least a little above
the rule's minimum, never above the maximum in force.

Without it (the ablated expert) nothing lifts its cruise: where no maximum is posted (an Autobahn stretch) it
keeps its cautious default of 50 km/h, below a 60 km/h minimum. Caps for safety (fog, bends, zones, a lead)
still apply after this floor, so the floor only ever raises the free-road choice.
"""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.agents.constraints import keeps
from roadtest.agents.rules import param_si

__all__ = ["MIN_MARGIN", "minimum_speed", "raise_to_minimum"]
keeps(__name__, "min_speed_expressway")

MIN_MARGIN = 0.5  # m/s kept above the minimum


def minimum_speed(view: Mapping[str, Any], ignore: frozenset[str] = frozenset()) -> float | None:
    """The minimum speed (m/s) the rules in view["rules"] ask for, or None (no such rule, or it is ignored)."""
    if "min_speed_expressway" in ignore:
        return None
    for rule in view.get("rules") or []:
        if isinstance(rule, Mapping) and rule.get("id") == "min_speed_expressway":
            return param_si(rule.get("params") or {}, "min_speed", 60 / 3.6)
    return None


def raise_to_minimum(v: float, view: Mapping[str, Any], ignore: frozenset[str], limit: float | None, margin: float) -> float:
    """The cruise speed `v` lifted to the minimum plus MIN_MARGIN, but not above the limit in force (less `margin`)."""
    low = minimum_speed(view, ignore)
    if low is None or v >= low + MIN_MARGIN:
        return v
    v = low + MIN_MARGIN
    return v if limit is None else min(v, float(limit) - margin)
