"""The expert's overtaking: after following a slow road user for a while, pass it in the neighbouring lane where
the marks, the tunnel rule and oncoming traffic allow, keeping the lateral clearance a cyclist or pedestrian needs.

The rules it keeps (no_overtaking_solid_line, no_lane_change_tunnel, vru_lateral_clearance) are the constraints
the ablated expert drops one at a time.
"""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.agents.rules import param_si

__all__ = ["Overtaker"]

WAIT = 5.0  # s behind a slow road user before passing it
SLOW = 0.7  # a lead slower than this share of the desired speed is worth passing
NEEDED_ROAD = 130.0  # m of route (and of tunnel-free road) a pass takes
PASSED = 8.0  # m clear in front of the passed road user before moving back
VRUS = ("bicycle", "pedestrian")


def _rule_param(view: Mapping[str, Any], rule_id: str, key: str) -> float | None:
    for r in view.get("rules") or []:
        if isinstance(r, Mapping) and r.get("id") == rule_id:
            return param_si(r.get("params") or {}, key)
    return None


class Overtaker:
    """Decides the lateral offset of a pass; `want` returns it (m, left positive) or None when not passing."""

    def __init__(self, ignore: frozenset[str]):
        self.ignore = ignore
        self.blocked_since: float | None = None
        self.target: str | None = None
        self.offset = 0.0

    def want(self, view: Mapping[str, Any], ego: Mapping[str, Any], speed: float, v_des: float, t: float) -> float | None:
        half = float(ego.get("length", 4.5)) / 2.0
        actors = [a for a in view.get("actors") or [] if a.get("route_s") is not None]
        if self.target is not None:
            a = next((x for x in actors if x.get("id") == self.target), None)
            if a is None or a["route_s"] < -(float(a.get("length", 4.5)) / 2.0 + half + PASSED):
                self.target, self.blocked_since = None, None
                return None
            return self.offset
        lead = min((a for a in actors if 0.0 < a["route_s"] < 60.0 and abs(a["route_d"]) < 1.5
                    and a.get("kind") not in ("static", "officer") and not a.get("siren") and self._sees(a)),
                   key=lambda a: a["route_s"], default=None)
        if lead is None or float(lead.get("speed", 0.0)) > SLOW * v_des or float(lead.get("speed", 0.0)) < 0.5:
            self.blocked_since = None
            return None
        self.blocked_since = t if self.blocked_since is None else self.blocked_since
        if t - self.blocked_since < WAIT or not self._may_pass(view, ego, lead):
            return None
        self.target, self.offset = str(lead.get("id")), self._offset(view, ego, lead)
        return self.offset

    def _sees(self, a: Mapping[str, Any]) -> bool:
        """Whether the expert takes this road user as an obstacle (the ablated expert may not)."""
        return ("no_collision_vru" if a.get("kind") in VRUS else "no_collision_vehicle") not in self.ignore

    def _side(self, view: Mapping[str, Any]) -> tuple[str, float]:
        return ("left", 1.0) if view.get("driving_side", "right") == "right" else ("right", -1.0)

    def _offset(self, view: Mapping[str, Any], ego: Mapping[str, Any], lead: Mapping[str, Any]) -> float:
        """A full lane to the passing side; for a cyclist or pedestrian, at least the clearance the rule asks."""
        _, sign = self._side(view)
        width = float((view.get("lane") or {}).get("width") or 3.5)
        if lead.get("kind") not in VRUS:
            return sign * width
        keep = 0.4 if "vru_lateral_clearance" in self.ignore else \
            (_rule_param(view, "vru_lateral_clearance", "min_clearance") or 1.0) + 0.3
        need = float(lead.get("width", 0.6)) / 2.0 + float(ego.get("width", 1.8)) / 2.0 + keep + 0.1
        return sign * (need + sign * float(lead["route_d"]))

    def _may_pass(self, view: Mapping[str, Any], ego: Mapping[str, Any], lead: Mapping[str, Any]) -> bool:
        side, sign = self._side(view)
        lane = view.get("lane") or {}
        nb = lane.get(side) or {}
        if nb.get("lane") is None:
            return False
        if not nb.get("crossing_allowed") and "no_overtaking_solid_line" not in self.ignore:
            return False
        left = float(ego.get("route_length") or 0.0) - float(ego.get("route_s") or 0.0)
        if left < NEEDED_ROAD:
            return False
        if "no_lane_change_tunnel" not in self.ignore:
            for z in view.get("zones") or []:
                if z.get("kind") == "tunnel" and (z.get("inside") or float(z.get("distance_start", 1e9)) < NEEDED_ROAD):
                    return False
        width = float(lane.get("width") or 3.5)
        for a in view.get("actors") or []:  # the passing lane clear: 30 m behind to 200 m ahead
            if a is lead or a.get("route_s") is None:
                continue
            if -30.0 <= a["route_s"] <= 200.0 and abs(a["route_d"] - sign * width) < 2.5:
                return False
        return True
