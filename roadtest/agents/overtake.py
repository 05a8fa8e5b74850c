"""The expert's overtaking: after following a slow road user for a while, pass it in the neighbouring lane where
the marks, the tunnel rule and oncoming traffic allow and no junction lies within the pass, keeping the lateral clearance a cyclist or pedestrian needs.

A solid line is never crossed (no_overtaking_solid_line), except where the scene lists solid_line_exception and
not no_overtaking_solid_line (whose ban has no exception, and markings outrank the emergency exceptions): then the
expert passes a road user that stands still within the rule's blocked_gap, stopping PULL_OUT_ROOM behind it to
have room to pull out, and still never a moving one. The rules it keeps (no_overtaking_solid_line,
solid_line_exception's limits, no_lane_change_tunnel, vru_lateral_clearance, and merge_give_way's look behind
through roadtest.agents.lane_gap) are the constraints the ablated expert drops one at a time.
"""

from __future__ import annotations

from typing import Any, Mapping

from roadtest import kinds
from roadtest.agents.constraints import keeps
from roadtest.agents.lane_gap import REAR_RANGE, alongside, rear_blocker
from roadtest.agents.rules import listed, rule_param

__all__ = ["Overtaker"]
keeps(__name__, "solid_line_exception", "no_overtaking_solid_line", "no_lane_change_tunnel", "vru_lateral_clearance",
      "no_collision_vehicle", "no_collision_vru")

WAIT = 5.0  # s behind a slow road user before passing it
SLOW = 0.7  # a lead slower than this share of the desired speed is worth passing
NEEDED_ROAD = 130.0  # m of route (and of tunnel-free road) a pass takes
PASSED = 8.0  # m clear in front of the passed road user before moving back
VRUS = kinds.VRUS
EXCEPTION = "solid_line_exception"
STANDING = 0.5  # m/s: a road user slower than this stands still (the exception's `standing` where it is listed)
BLOCKED_GAP = 15.0  # m: the exception's default blocked_gap
PULL_OUT_ROOM = 8.0  # m kept behind a road user the exception may let the expert pass, to steer round it


def exception_in_use(view: Mapping[str, Any]) -> bool:
    """Whether solid_line_exception may let the expert cross a solid line (see the module docstring)."""
    return listed(view, EXCEPTION) and not listed(view, "no_overtaking_solid_line")


class Overtaker:
    """Decides the lateral offset of a pass; `want` returns it (m, left positive) or None when not passing."""

    def __init__(self, ignore: frozenset[str]):
        self.ignore = ignore
        self.blocked_since: float | None = None
        self.standing_since: float | None = None  # s: since when the lead has stood within blocked_gap
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
        v_lead = float(lead.get("speed", 0.0)) if lead is not None else 0.0
        standing = lead is not None and v_lead < (rule_param(view, EXCEPTION, "standing") or STANDING)
        if lead is None or v_lead > SLOW * v_des or (standing and not self._may_pass_standing(view, ego, lead)):
            self.blocked_since = self.standing_since = None
            return None
        if standing:  # the wait starts when it stands: a road user that stops is not yet broken down
            self.blocked_since = None
            self.standing_since = t if self.standing_since is None else self.standing_since
            since = self.standing_since
        else:
            self.standing_since = None
            self.blocked_since = t if self.blocked_since is None else self.blocked_since
            since = self.blocked_since
        if t - since < WAIT or not self._may_pass(view, ego, lead, standing, speed):
            return None
        self.target, self.offset = str(lead.get("id")), self._offset(view, ego, lead)
        return self.offset

    def _may_pass_standing(self, view: Mapping[str, Any], ego: Mapping[str, Any], lead: Mapping[str, Any]) -> bool:
        """Whether a standing road user is one to pass: only under the exception, within its blocked_gap (the
        expert ignoring solid_line_exception drops the gap, as it drops the standing)."""
        if not exception_in_use(view):
            return False
        gap = float(lead["route_s"]) - float(lead.get("length", 4.5)) / 2.0 - float(ego.get("length", 4.5)) / 2.0
        return EXCEPTION in self.ignore or gap <= (rule_param(view, EXCEPTION, "blocked_gap") or BLOCKED_GAP)

    def room(self, view: Mapping[str, Any], a: Mapping[str, Any]) -> float:
        """Standstill gap (m) the expert keeps behind road user `a`: PULL_OUT_ROOM behind a vehicle in its lane
        that the exception may let it pass, else 0 (the expert's own gap applies)."""
        if not exception_in_use(view) or a.get("kind") in VRUS | kinds.STATIC or abs(float(a.get("route_d") or 0.0)) > 1.5:
            return 0.0
        return PULL_OUT_ROOM

    def _may_cross(self, view: Mapping[str, Any], standing: bool) -> bool:
        """Whether a solid line may be crossed for this pass."""
        if "no_overtaking_solid_line" in self.ignore:  # the mark's ban dropped
            return True
        return exception_in_use(view) and (standing or EXCEPTION in self.ignore)  # the exception, or it unlimited

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
            (rule_param(view, "vru_lateral_clearance", "min_clearance") or 1.0) + 0.3
        need = float(lead.get("width", 0.6)) / 2.0 + float(ego.get("width", 1.8)) / 2.0 + keep + 0.1
        return sign * (need + sign * float(lead["route_d"]))

    def _may_pass(self, view: Mapping[str, Any], ego: Mapping[str, Any], lead: Mapping[str, Any], standing: bool,
                  speed: float) -> bool:
        side, sign = self._side(view)
        lane = view.get("lane") or {}
        nb = lane.get(side) or {}
        if nb.get("lane") is None:
            return False
        if not nb.get("crossing_allowed") and not self._may_cross(view, standing):
            return False
        left = float(ego.get("route_length") or 0.0) - float(ego.get("route_s") or 0.0)
        if left < NEEDED_ROAD:
            return False
        if "no_lane_change_tunnel" not in self.ignore:
            for z in view.get("zones") or []:
                if z.get("kind") == "tunnel" and (z.get("inside") or float(z.get("distance_start", 1e9)) < NEEDED_ROAD):
                    return False
        for j in view.get("junctions") or []:  # never pass into a junction or roundabout: it is no one's lane to borrow
            if j.get("inside") or float(j.get("distance_start", 1e9)) < NEEDED_ROAD:
                return False
        width = float(lane.get("width") or 3.5)
        for a in view.get("actors") or []:  # the passing lane clear ahead (200 m: oncoming traffic) ...
            if a is lead or a.get("route_s") is None:
                continue
            if 0.0 <= a["route_s"] <= 200.0 and abs(a["route_d"] - sign * width) < 2.5:
                return False
        if alongside(view, ego, sign * width):  # ... and beside and behind (lane_gap)
            return False
        return "merge_give_way" in self.ignore or rear_blocker(view, ego, sign * width, speed, within=REAR_RANGE) is None
