"""The stops a task asks for on the way (a drop-off, meta.route.stops): the expert stands there for the asked time,
but never inside a no-stopping zone: a spot the zone covers moves to just past the zone's end.

Without that constraint (the expert ignoring no_stopping) it stops where it is asked, zone or not, as a driver
who does not read the no-stopping sign would.
"""

from __future__ import annotations

from typing import Any, Mapping

from roadtest.agents.constraints import keeps

__all__ = ["TaskStops", "stop_spot", "PAST_ZONE"]
keeps(__name__, "no_stopping")

PAST_ZONE = 1.0  # m between the zone's end and the ego's rear bumper where a moved stop ends up
AT_SPOT = 1.5  # m from the spot that counts as standing there
SERVED = 3.0  # m: a stop already served is recognised within this of its route position


def stop_spot(distance: float, zones: list[Mapping[str, Any]], half: float, keep_zones: bool) -> float:
    """Where the ego's centre stops for a stop asked `distance` m ahead: there, or, when the ego's body standing there
    would be inside a no-stopping zone, half a car and PAST_ZONE beyond that zone's end."""
    if not keep_zones:
        return distance
    for z in sorted(zones, key=lambda z: float(z.get("distance_start", 0.0))):
        if z.get("kind") != "no_stopping":
            continue
        a, b = float(z["distance_start"]), float(z["distance_end"])
        if distance + half > a and distance - half < b:
            distance = b + half + PAST_ZONE
    return distance


class TaskStops:
    """`obstacles` gives the expert's stop points [(gap from its front to where the front must stop, why)]."""

    def __init__(self, ignore: frozenset[str]):
        self.keep_zones = "no_stopping" not in ignore
        self.served: list[float] = []  # route positions of the asked spots already served
        self.since: float | None = None

    def obstacles(self, view: Mapping[str, Any], ego_s: float, speed: float, half: float, t: float) -> list[tuple[float, str]]:
        out = []
        for stop in view.get("route_stops") or []:
            asked = float(stop["distance"])
            if any(abs(ego_s + asked - w) < SERVED for w in self.served):
                continue
            gap = stop_spot(asked, view.get("zones") or [], half, self.keep_zones)
            if gap < -AT_SPOT:
                continue  # passed without stopping (it started past it): nothing to do
            if speed < 0.05 and abs(gap) < AT_SPOT:
                self.since = t if self.since is None else self.since
                if t - self.since >= float(stop.get("duration", 0.0)):
                    self.served.append(ego_s + asked)
                    self.since = None
                    continue
            out.append((gap, "asked stop" if gap == asked else "asked stop, moved past the no-stopping zone"))
        return out
