"""Trace and route helpers shared by the metric modules, so each stays a short pure function (their result types
are in roadtest.findings)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from roadtest.sim.api import ActorState, Trace, WorldState

__all__ = [
    "ego_states",
    "ego_id",
    "mean6",
    "suite_means",
    "suite_line",
    "Route",
    "route_from_meta",
    "travel_direction",
    "project_on_route",
]


def ego_id(trace: Trace) -> str | None:
    """The ego's actor id (role "ego"), or None for a trace without one."""
    for st in trace.states:
        e = st.ego
        if e is not None:
            return e.id
    return None


def mean6(xs: Sequence[float]) -> float | None:
    """The mean rounded to 6 places, None for no values (a suite figure over the runs that have one)."""
    return round(statistics.fmean(xs), 6) if xs else None


def suite_means(values: Sequence[Mapping[str, Any] | None], planned: int, over_planned: Mapping[str, str],
                over_present: Sequence[str]) -> dict[str, Any]:
    """Suite figures of per-run blocks as the leaderboard averages them: each `over_planned` figure (name: run field)
    over the planned runs, a run without the block or the field counting 0 (a true/false field counts 1/0); each
    `over_present` field over the runs that have it."""
    rows = [v or {} for v in values]
    n = max(planned, 1)
    out: dict[str, Any] = {name: round(sum(float(r.get(field) or 0.0) for r in rows) / n, 6)
                           for name, field in over_planned.items()}
    out.update({f: mean6([r[f] for r in rows if r.get(f) is not None]) for f in over_present})
    return out


def suite_line(title: str, figures: Mapping[str, Any]) -> str:
    """One console line of suite figures: rates in percent, scores to 2 places, other figures as they are ("-" for
    none)."""
    def part(key: str, v: Any) -> str:
        label = key.replace("_", " ")
        if key.endswith("_rate"):
            return f"{label} {100 * v:.1f} %"
        if key in ("driving_score", "route_completion"):
            return f"{label} {v:.2f}"
        return f"{label} {'-' if v is None else v}"

    return f"{title}: " + "  ".join(part(k, v) for k, v in figures.items())


def ego_states(trace: Trace) -> list[tuple[WorldState, ActorState]]:
    """(state, ego) for every tick where the ego exists."""
    out = []
    for st in trace.states:
        e = st.ego
        if e is not None:
            out.append((st, e))
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
