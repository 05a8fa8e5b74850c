"""The builtin planner (NOT a VLM): the rule catalogue applied to what the builtin perception saw.

Rules it applies: the last speed-limit sign read holds until an end sign (else an urban default, 50 km/h);
readings of one sign vote (beyond `READ_RANGE` only a lower value counts), weighted by the classifier's confidence, so one bad glance does not overrule
them; a stop sign means a full stop at the sign, held for `STOP_HOLD` s, then go; a red light, or a yellow
one it can still stop for comfortably, means a stop before it; a school-zone sign caps the speed at the
catalogue's `school_zone_speed.school_speed` for the country over the next `ZONE_LENGTH` m; a foggy image
(low contrast above the horizon) caps it at `fog_speed_limit.fog_speed`. Stop points are remembered and moved
by odometry between decisions (a sign leaves the camera's view before the car reaches it). It does not
see road users: the camera-only baseline shows what missing perception costs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from roadtest.agents.base import PLAN_DT, PLAN_STEPS

__all__ = ["RulePlanner"]

DEFAULT_LIMIT_KMH = 50.0
STOP_HOLD = 1.5  # s at standstill at a stop sign
COMFORT_DECEL = 2.0  # m/s^2, the planned braking
ACCEL = 1.5  # m/s^2
STOP_BEFORE_SIGN = 2.5  # m: the car's centre stops this far before a stop sign (its front about at the sign)
ZONE_LENGTH = 250.0  # m a school-zone cap holds after its sign (no end sign is read)
READ_RANGE = 30.0  # m: a higher speed value read farther off is not acted on (the digits are a few pixels there)
NEW_SIGN_GAP = 30.0  # m of driving between readings that makes the next reading a new sign
STOP_BEFORE_LIGHT = 3.0  # m: the car's centre stops this far before the light's reading (its front before the line)


@dataclass
class _Stop:
    distance: float  # m ahead of the car's centre
    why: str  # "stop sign" | "red light" | "yellow light"
    stopped_for: float = 0.0  # s at standstill there


def catalogue_speed(rule_id: str, param: str, country: str, default: float) -> float:
    """A speed parameter of the rule catalogue for a country, m/s."""
    try:
        from roadtest.rules.catalogue_model import load_catalogue

        return float(load_catalogue()[rule_id].params_for(country)[param])
    except Exception:  # noqa: BLE001 - a catalogue without the rule: the stated default
        return default


@dataclass
class RulePlanner:
    speed_unit_ms: float  # m/s per unit of the country's speed (km/h or mph)
    country: str = ""
    limit: float | None = None  # m/s, the posted limit read last
    votes: dict = field(default_factory=dict)  # printed value -> summed confidence, for the sign being read
    last_read_at: float = -1e9  # odometer at the last speed-sign reading
    zone_until: float = -1.0  # odometer up to which the school-zone cap holds
    foggy: bool = False
    stops: list[_Stop] = field(default_factory=list)
    done_until: float = 0.0  # odometer (m) up to which a passed stop sign is ignored
    odometer: float = 0.0
    last_t: float | None = None
    last_speed: float = 0.0

    def update(self, t: float, speed: float, signs: Sequence[Any], lamp: Any, foggy: bool = False) -> None:
        """Move remembered stops by the distance driven; take in this frame's signs and lamp."""
        if self.last_t is not None and t > self.last_t:
            moved = 0.5 * (speed + self.last_speed) * (t - self.last_t)
            self.odometer += moved
            for s in self.stops:
                s.distance -= moved
                if speed < 0.1 and s.distance < 3.0:
                    s.stopped_for += t - self.last_t
            self.stops = [s for s in self.stops if s.distance > -3.0]
            for s in [s for s in self.stops if s.why == "stop sign" and s.stopped_for >= STOP_HOLD]:
                self.stops.remove(s)
                self.done_until = self.odometer + 25.0  # the same sign, still in view while leaving, is done
        self.last_t, self.last_speed, self.foggy = t, speed, foggy
        self.stops = [s for s in self.stops if s.why == "stop sign"]  # a light is re-read every frame
        for d in signs:
            if d.sign_id == "speed_limit" and d.value is not None:
                current = self.limit if self.limit is not None else DEFAULT_LIMIT_KMH / 3.6
                if d.distance > READ_RANGE and d.value * self.speed_unit_ms >= current:
                    continue  # a far reading may only slow the car down early; a raise waits for a close look
                if self.odometer - self.last_read_at > NEW_SIGN_GAP:
                    self.votes = {}
                self.last_read_at = self.odometer
                self.votes[d.value] = self.votes.get(d.value, 0.0) + d.prob
                self.limit = max(self.votes, key=lambda v: self.votes[v]) * self.speed_unit_ms
            elif d.sign_id == "end_speed_limit" and d.distance <= READ_RANGE:  # a raise waits for a close look
                self.limit, self.votes = None, {}
            elif d.sign_id == "school_zone":
                self.zone_until = self.odometer + d.distance + ZONE_LENGTH
            elif d.sign_id == "stop" and self.odometer + d.distance > self.done_until:
                where = d.distance - STOP_BEFORE_SIGN
                near = [s for s in self.stops if abs(s.distance - where) < 8.0]
                if near:
                    near[0].distance = where  # a closer look is the better estimate
                else:
                    self.stops.append(_Stop(where, "stop sign"))
        if lamp.state in ("red", "yellow") and lamp.distance is not None:
            where = lamp.distance - STOP_BEFORE_LIGHT
            if lamp.state == "red" or speed * speed / (2.0 * max(where, 0.1)) <= COMFORT_DECEL:
                self.stops.append(_Stop(where, f"{lamp.state} light"))

    def plan(self, speed: float, route_ahead: Sequence[Sequence[float]]) -> dict[str, Any]:
        """Six waypoints along the route and a target speed (in the country's unit), with the reason."""
        limit = self.limit if self.limit is not None else DEFAULT_LIMIT_KMH / 3.6
        why = []
        if self.odometer <= self.zone_until:
            limit = min(limit, catalogue_speed("school_zone_speed", "school_speed", self.country, 30 / 3.6) - 0.5)
            why.append("school zone")
        if self.foggy:
            limit = min(limit, catalogue_speed("fog_speed_limit", "fog_speed", self.country, 30 / 3.6) - 0.5)
            why.append("fog")
        stop = min(self.stops, key=lambda s: s.distance) if self.stops else None
        path = [(0.0, 0.0)] + [(float(x), float(y)) for x, y in route_ahead]
        s, v, pts = 0.0, max(speed, 0.0), []
        sub = PLAN_DT / 5
        for _ in range(PLAN_STEPS):
            for _ in range(5):
                cap = limit
                if stop is not None:
                    cap = min(cap, math.sqrt(2.0 * COMFORT_DECEL * max(stop.distance - s, 0.0)))
                v = min(v + ACCEL * sub, cap) if v < cap else max(cap, v - 4.0 * sub)
                s += v * sub
            pts.append(_along(path, s))
        stopping = stop is not None and stop.distance - s < 1.0
        target = 0.0 if stopping else min(limit, max(v, 0.0))
        reason = (f"{stop.why} in {stop.distance:.0f} m" if stop is not None else "road clear") + \
                 f"; limit {limit / self.speed_unit_ms:.0f}" + (" (read)" if self.limit is not None else " (default)") + \
                 "".join(f", {w}" for w in why)
        return {"waypoints": [[round(x, 2), round(y, 2)] for x, y in pts],
                "target_speed": round(target / self.speed_unit_ms, 2), "reason": reason}


def _along(path: Sequence[tuple[float, float]], dist: float) -> tuple[float, float]:
    acc = 0.0
    for (x0, y0), (x1, y1) in zip(path, path[1:]):
        seg = math.hypot(x1 - x0, y1 - y0)
        if seg > 0 and acc + seg >= dist:
            f = (dist - acc) / seg
            return x0 + f * (x1 - x0), y0 + f * (y1 - y0)
        acc += seg
    if len(path) >= 2:
        (x0, y0), (x1, y1) = path[-2], path[-1]
        seg = math.hypot(x1 - x0, y1 - y0) or 1.0
        return x1 + (x1 - x0) / seg * (dist - acc), y1 + (y1 - y0) / seg * (dist - acc)
    return dist, 0.0
