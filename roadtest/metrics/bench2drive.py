"""Bench2Drive figures of one run as its tools compute them (Thinklab-SJTU/Bench2Drive 0.0.4).

Sources: tools/merge_route_json.py (success), tools/efficiency_smoothness_benchmark.py (efficiency,
comfort) and the fork's leaderboard and scenario_runner (20 min-speed checkpoints, every checkpoint
written as an event, no min-speed penalty, 60 s blocked). Quirks kept, so that a published number and
roadtest's number for the same driving agree:
- comfort reads CARLA's get_angular_velocity() z, which is in deg/s, against nuPlan's rad/s bounds;
- comfort's "yaw acceleration" is the Savitzky-Golay smoothed yaw rate itself, not a derivative;
- jerks are derivatives with delta = 0.1 s whatever the logging rate; agents log every 0.05 s tick, which halves them;
- each 20-frame chunk is filtered on its own (a trailing partial chunk is dropped);
- efficiency parses every checkpoint message, 100 % for a checkpoint without background traffic included.
Bench2Drive's TickRuntime crash after 4000 ticks is not reproduced. roadtest's corrected comfort and
efficiency are in roadtest/metrics/corrected.py.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

import numpy as np

from roadtest.findings import MetricResult, Violation
from roadtest.metrics import leaderboard
from roadtest.metrics.base import ego_states, suite_line, suite_means
from roadtest.sim.api import Trace

__all__ = ["COMFORT_BOUNDS", "COMFORT_WINDOW", "B2D_DELTA", "success", "efficiency", "comfort", "carla_signals",
           "fork_evaluate", "evaluate", "suite_figures", "summary_lines"]

COMFORT_BOUNDS: dict[str, tuple[float, float]] = {  # nuPlan ego_*_statistics bounds, open interval
    "lon_acc": (-4.05, 2.40),  # m/s^2
    "lat_acc": (-4.89, 4.89),  # m/s^2
    "jerk": (-8.37, 8.37),  # m/s^3, of the acceleration magnitude
    "lon_jerk": (-4.13, 4.13),  # m/s^3
    "yaw_rate": (-0.95, 0.95),  # rad/s
    "yaw_acc": (-1.93, 1.93),  # rad/s^2
}
COMFORT_WINDOW = 20  # frames per chunk
B2D_DELTA = 0.1  # s, the derivative step efficiency_smoothness_benchmark.py uses
_SG_WINDOW, _SG_ORDER = 7, 2
_PERCENT = re.compile(r"\b\d+\.?\d*%")


def success(lb: leaderboard.LeaderboardResult) -> bool:
    """Completed or Perfect with no infraction other than min speed (merge_route_json.py)."""
    if lb.status not in ("Completed", "Perfect"):
        return False
    return all(not v for k, v in lb.infractions.items() if k != "min_speed_infractions")


def fork_evaluate(trace: Trace, meta: dict) -> leaderboard.LeaderboardResult:
    """The leaderboard as Bench2Drive's fork runs it (route_scenario.py, statistics_manager.py, atomic_criteria.py)."""
    return leaderboard.evaluate(trace, meta, checkpoints=20, blocked_time=60.0, min_speed_penalty=False,
                                min_speed_all_events=True)


def efficiency(lb: leaderboard.LeaderboardResult) -> MetricResult:
    """Mean of the percentages parsed from the route's min-speed messages, values over 1000 dropped (read_from_json)."""
    msgs = [v.description for v in lb.infractions.get("min_speed_infractions", ())]
    if not msgs:
        return MetricResult("efficiency", "%", None, details={"note": "no min-speed checkpoint: route left out"})
    vals = [float(_PERCENT.search(m).group().rstrip("%")) for m in msgs]
    vals = [v for v in vals if not v > 1000]
    if not vals:
        return MetricResult("efficiency", "%", None, details={"note": "every checkpoint above 1000 %"})
    return MetricResult("efficiency", "%", sum(vals) / len(vals), details={"checkpoints": vals})


def _savgol(x: np.ndarray, deriv: int, delta: float) -> np.ndarray:
    """Savitzky-Golay smoothing or derivative (window 7, order 2, polynomial fits at the ends as scipy's mode="interp").

    Written with numpy because importing scipy.signal costs seconds in every worker process. Under 7 samples
    the window is the largest odd count that fits (scipy would take an even 4 or 6; only 4- or 6-frame episodes differ).
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


def carla_signals(trace: Trace) -> dict[str, np.ndarray]:
    """Per tick what an agent's get_metric_info() logs: world acceleration (m/s^2), yaw rate as CARLA's deg/s
    (left-handed, so clockwise positive), forward and right vectors.

    The backend's own acceleration and yaw rate are used when the trace has them; otherwise (the built-in
    simulator leaves them 0) they are finite differences of the world velocity and the heading.
    """
    ticks = ego_states(trace)
    dt = trace.tick
    n = len(ticks)
    h = np.unwrap(np.array([e.h for _, e in ticks])) if n else np.zeros(0)
    ax_v = np.array([e.ax for _, e in ticks])
    ay_v = np.array([e.ay for _, e in ticks])
    if n and (np.any(ax_v) or np.any(ay_v)):
        ax = ax_v * np.cos(h) - ay_v * np.sin(h)
        ay = ax_v * np.sin(h) + ay_v * np.cos(h)
    elif n > 1:
        vx = np.array([e.vx for _, e in ticks])
        vy = np.array([e.vy for _, e in ticks])
        if not (np.any(vx) or np.any(vy)):
            sp = np.array([e.speed for _, e in ticks])
            vx, vy = sp * np.cos(h), sp * np.sin(h)
        ax, ay = np.gradient(vx, dt), np.gradient(vy, dt)
    else:
        ax = ay = np.zeros(n)
    rate = np.array([e.yaw_rate for _, e in ticks])
    if n > 1 and not np.any(rate):
        rate = np.gradient(h, dt)
    return {"acc": np.stack([ax, ay], axis=1) if n else np.zeros((0, 2)), "yaw_rate_rad": rate,
            "angular_z_deg": -np.degrees(rate), "forward": np.stack([np.cos(h), np.sin(h)], axis=1) if n else np.zeros((0, 2)),
            "right": np.stack([np.sin(h), -np.cos(h)], axis=1) if n else np.zeros((0, 2))}


def _phase_unwrap(x: np.ndarray) -> np.ndarray:
    """efficiency_smoothness_benchmark.py _phase_unwrap: steps larger than pi removed in multiples of 2 pi."""
    adj = np.zeros_like(x)
    adj[1:] = np.cumsum(np.round(np.diff(x) / (2 * np.pi)))
    return x - 2 * np.pi * adj


def _chunk_signals(acc, z, fwd, right) -> dict[str, np.ndarray]:
    """compute_comfort_metric's six signals over one chunk, each filtered within the chunk."""
    yaw = _phase_unwrap(z)
    lon = np.einsum("ij,ij->i", acc, fwd)
    lat = np.einsum("ij,ij->i", acc, right)
    mag = np.hypot(acc[:, 0], acc[:, 1])
    lon_s, mag_s = _savgol(lon, 0, 1.0), _savgol(mag, 0, 1.0)
    return {"lon_acc": lon_s, "lat_acc": _savgol(lat, 0, 1.0), "jerk": _savgol(mag_s, 1, B2D_DELTA),
            "lon_jerk": _savgol(lon_s, 1, B2D_DELTA), "yaw_rate": _savgol(yaw, 0, 1.0), "yaw_acc": _savgol(yaw, 0, 1.0)}


def _worst(sig: dict[str, np.ndarray]) -> tuple[str, float]:
    """(signal, excess) of the bound a chunk breaks most, ("", 0) if all lie strictly inside their bounds."""
    name, worst = "", 0.0
    for k, (lo, hi) in COMFORT_BOUNDS.items():
        excess = max(float(np.max(sig[k])) - hi, lo - float(np.min(sig[k])))
        if excess >= 0 and (not name or excess > worst):
            name, worst = k, excess
    return name, worst


def comfort(trace: Trace, meta: dict | None = None, window: int = COMFORT_WINDOW) -> MetricResult:
    """seg_compute_comfort_metric: share of whole `window`-frame chunks within nuPlan's bounds; 1 or 0 when shorter."""
    c = carla_signals(trace)
    n = len(c["angular_z_deg"])
    if n < _SG_ORDER + 1:
        return MetricResult("comfort", "1", None, details={"note": "fewer than 3 ego frames"})
    return chunked_comfort(trace, n, window, " (Bench2Drive units)", lambda a, b: _worst(_chunk_signals(
        c["acc"][a:b], c["angular_z_deg"][a:b], c["forward"][a:b], c["right"][a:b])))


def chunked_comfort(trace: Trace, n: int, window: int, unit_note: str, worst) -> MetricResult:
    """Share of whole `window`-frame chunks of `n` ego frames (the whole episode when shorter) whose signals lie
    inside nuPlan's bounds; `worst(a, b)` gives the (signal, excess) of frames a..b, ("", 0) when inside."""
    chunks = [(0, n)] if n <= window else [(i * window, (i + 1) * window) for i in range(n // window)]
    times = [st.time for st, _ in ego_states(trace)]
    passed, bad = 0, []
    for a, b in chunks:
        name, excess = worst(a, b)
        if name:
            bad.append(Violation(times[a], times[b - 1] - times[a] + trace.tick, excess, name,
                                 f"{name} outside nuPlan bounds by {excess:.3f}{unit_note}"))
        else:
            passed += 1
    return MetricResult("comfort", "1", passed / len(chunks), tuple(bad), {"chunks": len(chunks), "window": window})


def evaluate(trace: Trace, meta: dict, reference: Trace | None = None) -> dict[str, Any]:
    """success, driving score, efficiency (%) and comfort (0..1) as Bench2Drive's tools compute them."""
    lb = fork_evaluate(trace, meta)
    eff = efficiency(lb)
    com = comfort(trace, meta)
    return {
        "success": success(lb),
        "status": lb.status,
        "driving_score": lb.score_composed,
        "efficiency": eff.value,
        "comfort": com.value,
        "comfort_violations": [v.to_dict() for v in com.violations],
        "notes": [x for x in (eff.details.get("note"), com.details.get("note")) if x],
    }


def suite_figures(values: Sequence[Mapping[str, Any] | None], planned: int) -> dict[str, Any]:
    """Bench2Drive's suite figures: driving score and success rate over the planned runs (a run without figures counts
    0), efficiency and comfort over the runs that have them."""
    return suite_means(values, planned, {"driving_score": "driving_score", "success_rate": "success"},
                       ("efficiency", "comfort"))


def summary_lines(b2d: Mapping[str, Any]) -> list[str]:
    """The console line of suite_figures."""
    return [suite_line("Bench2Drive", b2d)]
