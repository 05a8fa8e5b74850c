"""Where the route handed to the expert breaks the law: it leads past a no-entry sign, or turns back where a
no-U-turn sign stands. The expert refuses that manoeuvre: it stops short of it (before the junction that leads
past the sign, or before the turn) and waits there; it knows only the route it was given, so it does not re-plan.

Without the constraint (the expert ignoring no_entry or no_u_turn) it follows the route as navigation says.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from roadtest.agents.constraints import keeps
from roadtest.sim.route_path import RoutePath

__all__ = ["RouteLaw", "turn_back_at", "SHORT_OF"]
keeps(__name__, "no_entry", "no_u_turn")

SHORT_OF = 1.0  # m between the ego's front and the junction's entry (or the turn) where it stops
TURN_BACK = 2.5  # rad: a heading change this large ...
TURN_SPAN = 40.0  # m: ... within this much route is a U-turn


def turn_back_at(route: RoutePath) -> float | None:
    """Route position (m) where the route begins to turn back on itself (a U-turn), or None."""
    if len(route.pts) < 3:
        return None
    heading = np.unwrap(np.arctan2(route.seg_dir[:, 1], route.seg_dir[:, 0]))
    start = route.cum[:-1]
    for i in range(len(heading)):
        j = int(np.searchsorted(start, start[i] + TURN_SPAN))
        span = np.abs(heading[i:max(j, i + 1)] - heading[i])
        if span.size and float(np.max(span)) > TURN_BACK:
            return float(start[i + int(np.argmax(span > 0.05))])  # where the heading starts to change
    return None


class RouteLaw:
    """`obstacles` gives the stop points [(gap from the ego's front to where the front must stop, why)]."""

    def __init__(self, ignore: frozenset[str]):
        self.no_entry = "no_entry" not in ignore
        self.no_u_turn = "no_u_turn" not in ignore
        self.turn: float | None = None
        self.turn_known = False

    def obstacles(self, view: Mapping[str, Any], route: RoutePath | None, ego_s: float, half: float) -> list[tuple[float, str]]:
        out = []
        signs = view.get("signs") or []
        if self.no_entry:
            for sg in signs:
                if "no_entry" not in str(sg.get("kind", "")) or float(sg["distance"]) < -half:
                    continue
                where = float(sg["distance"]) - SHORT_OF
                for j in view.get("junctions") or []:  # the junction that leads past it: stop at its entry
                    if float(j["distance_start"]) <= float(sg["distance"]) and not j.get("inside"):
                        where = min(where, float(j["distance_start"]) - SHORT_OF)
                out.append((where - half, "no entry on the route"))
        if self.no_u_turn and route is not None:
            if not self.turn_known:
                self.turn, self.turn_known = turn_back_at(route), True
            banned = any("no_u_turn" in str(sg.get("kind", "")) and float(sg["distance"]) <= (self.turn or 0.0) - ego_s
                         for sg in signs)
            if self.turn is not None and banned and self.turn - ego_s > -half:
                out.append((self.turn - ego_s - half - SHORT_OF, "no U-turn on the route"))
        return out
