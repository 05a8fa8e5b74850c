"""Shared result types and trace helpers, so each metric module stays a short pure function."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from roadtest.sim.api import ActorState, Trace, WorldState

__all__ = [
    "Violation",
    "MetricResult",
    "ego_states",
    "ego_id",
    "episodes",
    "Route",
    "route_from_meta",
    "travel_direction",
    "project_on_route",
]


@dataclass(frozen=True)
class Violation:
    """One episode of a metric going wrong: when it started, how long it lasted, how bad it got."""

    start: float  # s
    duration: float  # s; 0 for an instantaneous event
    worst: float  # in the metric's unit
    kind: str = ""  # leaderboard infraction key, e.g. "collisions_vehicle"
    description: str = ""  # text as the leaderboard writes it
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "duration": self.duration, "worst": self.worst, "kind": self.kind,
                "description": self.description, "data": dict(self.data)}


@dataclass(frozen=True)
class MetricResult:
    """A metric's value for one run, with its unit and the violations behind it."""

    name: str
    unit: str  # "%", "m", "1" (ratio), ...
    value: float | None  # None: not computable for this run (the reason is in details["note"])
    violations: tuple[Violation, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "unit": self.unit, "value": self.value,
                "violations": [v.to_dict() for v in self.violations], "details": dict(self.details)}


def ego_id(trace: Trace) -> str | None:
    """The ego's actor id (role "ego"), or None for a trace without one."""
    for st in trace.states:
        e = st.ego
        if e is not None:
            return e.id
    return None


def ego_states(trace: Trace) -> list[tuple[WorldState, ActorState]]:
    """(state, ego) for every tick where the ego exists."""
    out = []
    for st in trace.states:
        e = st.ego
        if e is not None:
            out.append((st, e))
    return out


def episodes(times: Sequence[float], flags: Sequence[bool], values: Sequence[float], tick: float,
             kind: str = "", describe=None) -> list[Violation]:
    """Group consecutive flagged ticks into violations; worst is the largest value in each run."""
    out: list[Violation] = []
    start = None
    worst = -math.inf
    last = None
    for t, f, v in zip(times, flags, values):
        if f:
            if start is None:
                start, worst = t, v
            worst = max(worst, v)
            last = t
        elif start is not None:
            out.append(Violation(start, last - start + tick, worst, kind, describe(start, worst) if describe else ""))
            start = None
    if start is not None:
        out.append(Violation(start, last - start + tick, worst, kind, describe(start, worst) if describe else ""))
    return out


@dataclass(frozen=True)
class Route:
    """The ego's route as points with cumulative arc length and unit forward vectors."""

    points: tuple[tuple[float, float], ...]
    accum: tuple[float, ...]  # m from the first point
    forward: tuple[tuple[float, float], ...]

    @property
    def length(self) -> float:
        return self.accum[-1] if self.accum else 0.0

    def __len__(self) -> int:
        return len(self.points)


def route_from_meta(meta: dict, hop: float | None = 1.0) -> Route | None:
    """meta.route.waypoints as a Route, points inserted every `hop` m as the leaderboard interpolates; None under two points."""
    wps = (meta.get("route") or {}).get("waypoints") or []
    pts: list[tuple[float, float]] = []
    for p in wps:
        xy = (float(p[0]), float(p[1]))
        if pts and hop and math.dist(pts[-1], xy) > hop:
            a, n = pts[-1], math.ceil(math.dist(pts[-1], xy) / hop)
            pts.extend((a[0] + (xy[0] - a[0]) * k / n, a[1] + (xy[1] - a[1]) * k / n) for k in range(1, n))
        if not pts or math.dist(pts[-1], xy) > 1e-9:
            pts.append(xy)
    if len(pts) < 2:
        return None
    accum = [0.0]
    for a, b in zip(pts, pts[1:]):
        accum.append(accum[-1] + math.dist(a, b))
    fwd = []
    for i in range(len(pts)):
        a, b = (pts[i], pts[i + 1]) if i + 1 < len(pts) else (pts[i - 1], pts[i])
        d = math.dist(a, b)
        fwd.append(((b[0] - a[0]) / d, (b[1] - a[1]) / d))
    return Route(tuple(pts), tuple(accum), tuple(fwd))


def travel_direction(lane: int, driving_side: str = "right") -> int:
    """+1 when traffic in this OpenDRIVE lane moves with increasing s, -1 against it."""
    forward = lane < 0 if driving_side != "left" else lane > 0
    return 1 if forward else -1


def project_on_route(route: Route, x: float, y: float, s_lo: float = -math.inf, s_hi: float = math.inf) -> tuple[float, float]:
    """(arc length, distance) of the nearest point of the route between arc lengths s_lo and s_hi."""
    acc = np.asarray(route.accum)
    lo = max(int(np.searchsorted(acc, s_lo, side="right")) - 1, 0)
    hi = min(int(np.searchsorted(acc, s_hi, side="left")) + 1, len(acc) - 1)
    p = np.asarray(route.points[lo:hi + 1])
    a, b = p[:-1], p[1:]
    d = b - a
    seg = np.hypot(d[:, 0], d[:, 1])
    u = np.clip(((x - a[:, 0]) * d[:, 0] + (y - a[:, 1]) * d[:, 1]) / np.maximum(seg * seg, 1e-12), 0.0, 1.0)
    dist = np.hypot(a[:, 0] + u * d[:, 0] - x, a[:, 1] + u * d[:, 1] - y)
    k = int(np.argmin(dist))
    return float(acc[lo + k] + u[k] * seg[k]), float(dist[k])
