"""The expert's line through bends: the lane's centre, because it keeps to its own half of the road.

A driver who does not keep to its side (the expert ignoring driving_side) takes the shorter, straighter line a
bend offers and cuts its inside: where the bend turns toward the oncoming lanes (a left bend in right-hand
traffic, a right bend in JP), the centre mark may be crossed and no oncoming vehicle is in sight, it moves up to
one lane across. It still waits for oncoming traffic to pass, crosses no solid line and cuts nowhere near a
junction: only the side of the road is dropped.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from roadtest.agents.constraints import keeps
from roadtest.sim.route_path import RoutePath

__all__ = ["BendLine", "signed_curvature", "FULL_CUT_CURVATURE", "WINDOW"]
keeps(__name__, "driving_side")

FULL_CUT_CURVATURE = 1.0 / 250.0  # 1/m: a bend this sharp (mean over WINDOW) is cut by a whole lane
WINDOW = (-10.0, 40.0)  # m of route around the ego whose mean curvature sets the cut (it moves over before the bend)
ONCOMING_SIGHT = 120.0  # m: an oncoming vehicle this close ahead (as far as the objects sensor sees) keeps it on its own side


def signed_curvature(route: RoutePath) -> np.ndarray:
    """Signed curvature (1/m, left positive) at each route point from the heading change over about +-3 m."""
    n = len(route.pts)
    out = np.zeros(n)
    if n < 3:
        return out
    heading = np.unwrap(np.arctan2(route.seg_dir[:, 1], route.seg_dir[:, 0]))
    seg_h = np.r_[heading, heading[-1]]
    for i in range(n):
        j0 = int(np.searchsorted(route.cum, route.cum[i] - 3.0))
        j1 = int(min(np.searchsorted(route.cum, route.cum[i] + 3.0), n - 1))
        ds = route.cum[j1] - route.cum[j0]
        if ds > 0.5:
            out[i] = (seg_h[min(j1, n - 2)] - seg_h[j0]) / ds
    return out


class BendLine:
    """`want` gives the lateral offset (m, left positive) of the line through the bend ahead, or None (lane centre)."""

    def __init__(self, ignore: frozenset[str]):
        self.keep_side = "driving_side" not in ignore
        self.kappa: np.ndarray | None = None
        self.cutting = False

    def want(self, view: Mapping[str, Any], route: RoutePath | None, ego_s: float) -> float | None:
        if self.keep_side or route is None:
            return None  # its own half: the lane's centre, as everywhere
        if self.kappa is None:
            self.kappa = signed_curvature(route)
        lo, hi = np.searchsorted(route.cum, [ego_s + WINDOW[0], ego_s + WINDOW[1]])
        mean = float(np.mean(self.kappa[lo:hi])) if hi > lo else 0.0
        far = 1.0 if view.get("driving_side", "right") == "right" else -1.0  # the oncoming side: left in right-hand traffic
        share = min(1.0, max(0.0, far * mean) / FULL_CUT_CURVATURE)
        lane = view.get("lane") or {}
        width = float(lane.get("width") or 3.5)
        if share <= 0.0 or _oncoming(view) or _junction_near(view):
            self.cutting = False
            return None
        if not self.cutting:  # start a cut only from its own lane, across a mark it may cross into an oncoming lane
            nb = lane.get("left" if far > 0 else "right") or {}
            own = lane.get("lane")
            if nb.get("lane") is None or own is None or (nb["lane"] > 0) == (own > 0) or not nb.get("crossing_allowed"):
                return None
            self.cutting = True
        return far * width * share


def _oncoming(view: Mapping[str, Any]) -> bool:
    """Whether a vehicle coming the other way is in sight ahead (or alongside)."""
    for a in view.get("actors") or []:
        if a.get("route_s") is None or a.get("kind") in ("pedestrian", "static", "cone", "barrier"):
            continue
        if -10.0 <= a["route_s"] <= ONCOMING_SIGHT and math.cos(float(a.get("route_heading", a.get("h", 0.0)))) < -0.5:
            return True
    return False


def _junction_near(view: Mapping[str, Any]) -> bool:
    return any(j.get("inside") or float(j.get("distance_start", 1e9)) < 60.0 for j in view.get("junctions") or [])
