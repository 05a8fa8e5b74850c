"""Bench2Drive figures of one run: success, efficiency and comfort (Thinklab-SJTU/Bench2Drive 0.0.4 tools).

Departures of Bench2Drive's own scripts that roadtest does not copy, because they are unit slips:
- comfort: `efficiency_smoothness_benchmark.py` reads CARLA's `get_angular_velocity()`, which is in
  deg/s, and compares it with nuPlan's rad/s bounds (0.95 rad/s yaw rate, 1.93 rad/s^2 yaw
  acceleration); roadtest uses rad/s throughout.
- comfort: the script differentiates with `delta = 0.1` s although the agent logs at 20 Hz (0.05 s),
  which halves every jerk and yaw acceleration; roadtest differentiates with the trace's own tick.
- efficiency: a checkpoint without background vehicles is written as 100 % by Bench2Drive's fork;
  roadtest leaves such checkpoints out (no surrounding traffic, no ratio) and says so in a note.
- Bench2Drive's TickRuntime crash after 4000 ticks is not reproduced.
- efficiency keeps every tick with nearby same-direction traffic; the leaderboard min-speed test's
  excuses (behind a lead, at the limit in force) apply to the infraction only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from roadtest.metrics import leaderboard
from roadtest.metrics.base import MetricResult, Violation, ego_states
from roadtest.sim.api import Trace

__all__ = ["COMFORT_BOUNDS", "COMFORT_WINDOW", "success", "efficiency", "comfort", "comfort_signals", "evaluate"]

COMFORT_BOUNDS: dict[str, tuple[float, float]] = {  # nuPlan ego_*_statistics bounds, open interval
    "lon_acc": (-4.05, 2.40),  # m/s^2
    "lat_acc": (-4.89, 4.89),  # m/s^2
    "jerk": (-8.37, 8.37),  # m/s^3, of the acceleration magnitude
    "lon_jerk": (-4.13, 4.13),  # m/s^3
    "yaw_rate": (-0.95, 0.95),  # rad/s
    "yaw_acc": (-1.93, 1.93),  # rad/s^2
}
COMFORT_WINDOW = 20  # frames per chunk
_SG_WINDOW, _SG_ORDER = 7, 2


def success(lb: leaderboard.LeaderboardResult) -> bool:
    """Completed or Perfect with no infraction other than min speed (merge_route_json.py)."""
    if lb.status not in ("Completed", "Perfect"):
        return False
    return all(not v for k, v in lb.infractions.items() if k != "min_speed_infractions")


def efficiency(trace: Trace, meta: dict, lb: leaderboard.LeaderboardResult | None = None) -> MetricResult:
    """Mean over 20 route checkpoints of ego speed / mean background speed, in % (values over 1000 dropped)."""
    lb = lb or leaderboard.evaluate(trace, meta, checkpoints=20, blocked_time=60.0, min_speed_penalty=False,
                                    min_speed_excuses=False)
    vals = [v for v in lb.min_speed_checkpoints if v <= 1000.0]
    if not vals:
        return MetricResult("efficiency", "%", None, details={"note": "no background vehicles on any checkpoint"})
    return MetricResult("efficiency", "%", round(sum(vals) / len(vals), 2), details={"checkpoints": vals})


def _savgol(x: np.ndarray, deriv: int, delta: float) -> np.ndarray:
    """Savitzky-Golay smoothing or derivative (window 7, order 2, polynomial fits at the ends as scipy's mode="interp").

    Written with numpy because importing scipy.signal costs seconds in every worker process.
    """
    n = len(x)
    win = min(_SG_WINDOW, n if n % 2 else n - 1)
    if win <= _SG_ORDER:
        return np.gradient(x, delta) if deriv and n > 1 else (np.zeros_like(x) if deriv else x.copy())
    half = win // 2
    pinv = np.linalg.pinv(np.vander(np.arange(-half, half + 1, dtype=float), _SG_ORDER + 1, increasing=True))
    scale = math.factorial(deriv) / delta ** deriv
    y = np.empty(n)
    y[half:n - half] = np.correlate(x, pinv[deriv] * scale, mode="valid")
    P = np.polynomial.polynomial
    for lo, ts, idx in ((0, np.arange(-half, 0.0), slice(0, half)), (n - win, np.arange(1.0, half + 1), slice(n - half, n))):
        c = pinv @ x[lo:lo + win]
        y[idx] = P.polyval(ts, P.polyder(c, deriv)) / delta ** deriv if deriv else P.polyval(ts, c)
    return y


def comfort_signals(trace: Trace) -> dict[str, np.ndarray]:
    """Ego lon/lat acceleration, jerk, lon jerk, yaw rate and yaw acceleration per tick, S-G smoothed as Bench2Drive."""
    ticks = ego_states(trace)
    dt = trace.tick
    if len(ticks) < 2:
        return {k: np.zeros(len(ticks)) for k in COMFORT_BOUNDS}
    h = np.unwrap(np.array([e.h for _, e in ticks]))
    vx = np.array([e.vx for _, e in ticks])
    vy = np.array([e.vy for _, e in ticks])
    if not (np.any(vx) or np.any(vy)):
        sp = np.array([e.speed for _, e in ticks])
        vx, vy = sp * np.cos(h), sp * np.sin(h)
    ax, ay = np.gradient(vx, dt), np.gradient(vy, dt)
    lon = ax * np.cos(h) + ay * np.sin(h)
    lat = -ax * np.sin(h) + ay * np.cos(h)
    yaw_rate = np.gradient(h, dt)
    mag = np.hypot(ax, ay)
    return {
        "lon_acc": _savgol(lon, 0, dt),
        "lat_acc": _savgol(lat, 0, dt),
        "jerk": _savgol(mag, 1, dt),
        "lon_jerk": _savgol(lon, 1, dt),
        "yaw_rate": _savgol(yaw_rate, 0, dt),
        "yaw_acc": _savgol(yaw_rate, 1, dt),
    }


def comfort(trace: Trace, meta: dict | None = None, window: int = COMFORT_WINDOW) -> MetricResult:
    """Share of whole `window`-frame chunks whose six signals all lie strictly inside nuPlan's bounds."""
    sig = comfort_signals(trace)
    n = len(next(iter(sig.values()))) if sig else 0
    if n == 0:
        return MetricResult("comfort", "1", None, details={"note": "no ego in trace"})
    chunks = [(0, n)] if n <= window else [(i, i + window) for i in range(0, n - window + 1, window)]
    times = [st.time for st, _ in ego_states(trace)]
    passed, bad = 0, []
    for a, b in chunks:
        worst_name, worst_excess = "", 0.0
        for name, (lo, hi) in COMFORT_BOUNDS.items():
            seg = sig[name][a:b]
            excess = max(float(np.max(seg)) - hi, lo - float(np.min(seg)))
            if excess >= 0 and (not worst_name or excess > worst_excess):
                worst_name, worst_excess = name, excess
        if worst_name:
            bad.append(Violation(times[a], times[b - 1] - times[a] + trace.tick, worst_excess, worst_name,
                                 f"{worst_name} outside nuPlan bounds by {worst_excess:.3f}"))
        else:
            passed += 1
    return MetricResult("comfort", "1", passed / len(chunks), tuple(bad),
                        {"chunks": len(chunks), "window": window, "bounds": COMFORT_BOUNDS})


def evaluate(trace: Trace, meta: dict, reference: Trace | None = None) -> dict[str, Any]:
    """success, efficiency (%), comfort (0..1) with Bench2Drive's fork settings (20 checkpoints, 60 s blocked, no min-speed factor)."""
    lb = leaderboard.evaluate(trace, meta, checkpoints=20, blocked_time=60.0, min_speed_penalty=False,
                              min_speed_excuses=False)
    eff = efficiency(trace, meta, lb)
    com = comfort(trace, meta)
    return {
        "success": success(lb),
        "driving_score": lb.score_composed,
        "efficiency": eff.value,
        "comfort": None if com.value is None or math.isnan(com.value) else round(com.value, 6),
        "comfort_violations": [v.to_dict() for v in com.violations],
        "notes": [x for x in (eff.details.get("note"), com.details.get("note")) if x],
    }
