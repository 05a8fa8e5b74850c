"""roadtest's own figures, reported under `roadtest` beside the leaderboard's and Bench2Drive's, never under their names.

- route_completion: the furthest projection of the ego on the route, between ticks as well, so it does
  not depend on the tick; 100 once the simulator reports the goal reached or the centre passes the last
  point (the leaderboard's rule, above 99 % and within 10 m, misjudges short routes);
- min_speed: against same-direction traffic within 60 m, excused behind a lead or at the limit in force,
  at fixed boundaries k*L/N (roadtest/metrics/min_speed.py);
- efficiency: the same ratio at 20 fixed boundaries, checkpoints without traffic left out;
- comfort: rad/s throughout, a true yaw acceleration, derivatives with the trace's own tick, the whole
  episode filtered and then cut into 20-frame chunks;
- score_penalty and driving_score: the leaderboard's events with roadtest's min speed in place of its own,
  times roadtest's route completion.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from roadtest.findings import MetricResult
from roadtest.metrics import bench2drive as b2d
from roadtest.metrics.base import ego_states, project_on_route, route_from_meta, suite_line, suite_means
from roadtest.metrics.leaderboard import LeaderboardResult, penalty_of
from roadtest.metrics.min_speed import detect_min_speed
from roadtest.sim.api import Trace

__all__ = ["route_completion", "comfort", "comfort_signals", "evaluate", "suite_figures", "summary_lines"]

SEARCH_BACK = 10.0  # m of route behind the last projection searched again (a route may pass near itself)


def route_completion(trace: Trace, meta: dict) -> tuple[float | None, bool, list[float]]:
    """(completion %, goal reached, % per tick): the furthest route position reached, which a coarser tick cannot lower.

    Between two ticks the ego moves along a segment whose projection on a straight route piece is linear,
    so its furthest point is at a tick; the search window follows the distance moved, so no tick skips route.
    """
    route = route_from_meta(meta, hop=None)
    ticks = ego_states(trace)
    reached = any(ev.kind == "goal_reached" for st in trace.states for ev in st.events)
    if route is None or not ticks:
        return (100.0 if reached else None), reached, []
    best, prev, out = 0.0, None, []
    for _, e in ticks:
        moved = math.hypot(e.x - prev[0], e.y - prev[1]) if prev is not None else route.length
        best = max(best, project_on_route(route, e.x, e.y, best - SEARCH_BACK, best + moved + SEARCH_BACK)[0])
        prev = (e.x, e.y)
        out.append(min(100.0, 100.0 * best / route.length))
    reached = reached or best >= route.length - 1e-9
    return (100.0 if reached else round(out[-1], 2)), reached, out


def comfort_signals(trace: Trace) -> dict[str, np.ndarray]:
    """Lon/lat acceleration, jerk, lon jerk, yaw rate (rad/s) and yaw acceleration (rad/s^2), whole episode S-G smoothed."""
    c = b2d.carla_signals(trace)
    dt = trace.tick
    lon = np.einsum("ij,ij->i", c["acc"], c["forward"])
    lat = np.einsum("ij,ij->i", c["acc"], c["right"])
    mag = np.hypot(c["acc"][:, 0], c["acc"][:, 1])
    rate = c["yaw_rate_rad"]
    return {"lon_acc": b2d._savgol(lon, 0, dt), "lat_acc": b2d._savgol(lat, 0, dt), "jerk": b2d._savgol(mag, 1, dt),
            "lon_jerk": b2d._savgol(lon, 1, dt), "yaw_rate": b2d._savgol(rate, 0, dt),
            "yaw_acc": b2d._savgol(rate, 1, dt)}


def comfort(trace: Trace, window: int = b2d.COMFORT_WINDOW) -> MetricResult:
    """Share of whole `window`-frame chunks of the whole-episode signals that lie strictly inside nuPlan's bounds."""
    sig = comfort_signals(trace)
    n = len(sig["yaw_rate"])
    if n < 2:
        return MetricResult("comfort", "1", None, details={"note": "fewer than 2 ego frames"})
    return b2d.chunked_comfort(trace, n, window, "", lambda a, b: b2d._worst({k: v[a:b] for k, v in sig.items()}))


def evaluate(trace: Trace, meta: dict, leaderboard: LeaderboardResult) -> dict[str, Any]:
    """The `roadtest` block of a score record."""
    lb = leaderboard
    rc, reached, progress = route_completion(trace, meta)
    ticks = ego_states(trace)[: len(progress)] if progress else []
    ms, _ = detect_min_speed(ticks, progress, 4, meta, True) if progress else ([], [])
    _, eff = detect_min_speed(ticks, progress, 20, meta, False) if progress else ([], [])
    events = [v for k, vs in lb.infractions.items() if k != "min_speed_infractions" for v in vs] + ms
    penalty = 1.0
    for v in events:
        penalty *= penalty_of(v)
    com = comfort(trace)
    others = any(vs for k, vs in lb.infractions.items() if k != "min_speed_infractions")
    return {
        "route_completion": rc,
        "goal_reached": reached,
        "score_penalty": round(penalty, 6),
        "driving_score": None if rc is None else round(rc * penalty, 6),
        "success": bool(reached and not others),
        "min_speed": [v.to_dict() for v in ms],
        "efficiency": round(sum(eff) / len(eff), 2) if eff else None,
        "comfort": com.value,
        "comfort_violations": [v.to_dict() for v in com.violations],
    }


def suite_figures(values: Sequence[Mapping[str, Any] | None], planned: int) -> dict[str, Any]:
    """Suite means of the `roadtest` blocks: route completion, driving score and success over the planned runs (a
    run without the block counts 0), efficiency and comfort over the runs that have them."""
    return suite_means(values, planned, {"route_completion": "route_completion", "driving_score": "driving_score",
                                         "success_rate": "success"}, ("efficiency", "comfort"))


def summary_lines(own: Mapping[str, Any]) -> list[str]:
    """The console line of suite_figures."""
    return [suite_line("roadtest's own", own)]
