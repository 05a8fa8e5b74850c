"""Planning L2 and collision rate at 1, 2 and 3 s, in both conventions of the literature, labelled.

Conventions: "at_horizon" is UniAD's (the error at the step that ends the horizon); "average_to_horizon"
is ST-P3's and VAD's (the mean over the 0.5 s steps up to it). Trajectories are compared as nuScenes
does open-loop: each relative to its own vehicle's pose at the sample time, in that vehicle's frame
(x forward, y left), so the agent's plan is judged against what the expert did from where the expert
was. Samples lacking the future a horizon needs are left out of that horizon (as VAD's fut_valid_flag).
Collision steps where the reference itself collides are not excluded (departure from ST-P3).
"""

from __future__ import annotations

import math
from typing import Any

from roadtest.findings import MetricResult
from roadtest.metrics.base import ego_states
from roadtest.sim.api import ActorState, Trace, WorldState

__all__ = ["HORIZONS", "STEP", "l2", "collision_rate", "evaluate"]

HORIZONS = (1.0, 2.0, 3.0)  # s
STEP = 0.5  # s between waypoints


def _by_time(trace: Trace) -> dict[int, tuple[WorldState, ActorState]]:
    return {round(st.time / trace.tick): (st, e) for st, e in ego_states(trace)}


def _to_frame(pose: ActorState, x: float, y: float) -> tuple[float, float]:
    dx, dy = x - pose.x, y - pose.y
    c, s = math.cos(pose.h), math.sin(pose.h)
    return dx * c + dy * s, -dx * s + dy * c


def _to_world(pose: ActorState, x: float, y: float) -> tuple[float, float]:
    c, s = math.cos(pose.h), math.sin(pose.h)
    return pose.x + x * c - y * s, pose.y + x * s + y * c


def _samples(trace: Trace) -> list[tuple[float, list[tuple[float, float]] | None]]:
    """(t0, planned points) for agent outputs on the 0.5 s grid; (t0, None) every 0.5 s when the agent plans nothing."""
    if any(a.planned for a in trace.agent):
        out, seen = [], set()
        for a in trace.agent:
            k = round(a.time / STEP)
            if a.planned and abs(a.time - k * STEP) < trace.tick / 2 and k not in seen:
                seen.add(k)
                out.append((k * STEP, [(float(p[0]), float(p[1])) for p in a.planned]))
        return out
    if not trace.states:
        return []
    return [(k * STEP, None) for k in range(int(trace.states[-1].time / STEP + 1e-9) + 1)]


def _path(idx: dict, tick: float, t0: float, steps: int) -> list[tuple[float, float]] | None:
    base = idx.get(round(t0 / tick))
    if base is None:
        return None
    pts = []
    for j in range(1, steps + 1):
        st = idx.get(round((t0 + j * STEP) / tick))
        if st is None:
            return pts or None
        pts.append(_to_frame(base[1], st[1].x, st[1].y))
    return pts


def l2(trace: Trace, reference: Trace) -> dict[str, Any]:
    """L2 (m) between the agent's plan (or executed path) and the reference's path at 1/2/3 s, both conventions."""
    idx_a, idx_r = _by_time(trace), _by_time(reference)
    steps = int(round(max(HORIZONS) / STEP))
    errors: list[list[float]] = []
    samples = _samples(trace)
    source = "planned" if samples and samples[0][1] is not None else "executed"
    for t0, planned in samples:
        pred = planned[:steps] if planned is not None else _path(idx_a, trace.tick, t0, steps)
        gt = _path(idx_r, reference.tick, t0, steps)
        if not pred or not gt:
            continue
        n = min(len(pred), len(gt))
        errors.append([math.dist(pred[j], gt[j]) for j in range(n)])
    return _conventions(errors, "m") | {"source": source, "frame": "each path in its own vehicle frame at the sample time"}


def _conventions(per_sample: list[list[float]], unit: str) -> dict[str, Any]:
    at, avg = {}, {}
    for hz in HORIZONS:
        n = int(round(hz / STEP))
        ok = [e for e in per_sample if len(e) >= n]
        key = f"{hz:g}s"
        at[key] = round(sum(e[n - 1] for e in ok) / len(ok), 6) if ok else None
        avg[key] = round(sum(sum(e[:n]) / n for e in ok) / len(ok), 6) if ok else None
    return {"unit": unit, "at_horizon": at, "average_to_horizon": avg, "samples": len(per_sample)}


def _box(x: float, y: float, h: float, length: float, width: float):
    from shapely.geometry import Polygon

    c, s = math.cos(h), math.sin(h)
    pts = [(x + dx * c - dy * s, y + dx * s + dy * c)
           for dx, dy in ((length / 2, width / 2), (-length / 2, width / 2), (-length / 2, -width / 2), (length / 2, -width / 2))]
    return Polygon(pts)


def collision_rate(trace: Trace) -> dict[str, Any]:
    """Share of samples whose planned (or executed) ego box overlaps another actor's actual box at each step."""
    idx = _by_time(trace)
    steps = int(round(max(HORIZONS) / STEP))
    per_sample: list[list[float]] = []
    for t0, planned in _samples(trace):
        base = idx.get(round(t0 / trace.tick))
        if base is None:
            continue
        ego = base[1]
        pts = planned[:steps] if planned is not None else _path(idx, trace.tick, t0, steps)
        if not pts:
            continue
        hits = []
        prev = (0.0, 0.0)
        for j, p in enumerate(pts, start=1):
            fut = idx.get(round((t0 + j * STEP) / trace.tick))
            if fut is None:
                break
            wx, wy = _to_world(ego, *p)
            h = ego.h + (math.atan2(p[1] - prev[1], p[0] - prev[0]) if math.dist(p, prev) > 1e-3 else 0.0)
            prev = p
            me, reach = None, 0.5 * math.hypot(ego.length, ego.width)
            hit = False
            for a in fut[0].actors:
                if a.role == "ego" or not a.visible:
                    continue
                # boxes whose centres are further apart than their half-diagonals together cannot overlap
                if math.hypot(a.x - wx, a.y - wy) > reach + 0.5 * math.hypot(a.length, a.width) + 1e-9:
                    continue
                me = me or _box(wx, wy, h, ego.length, ego.width)
                if me.intersects(_box(a.x, a.y, a.h, a.length, a.width)):
                    hit = True
                    break
            hits.append(1.0 if hit else 0.0)
        if hits:
            per_sample.append(hits)
    out = _conventions(per_sample, "1")
    return out


def evaluate(trace: Trace, meta: dict, reference: Trace | None) -> MetricResult:
    """L2 against the reference (when given) and the plan collision rate; value = L2 averaged to 3 s."""
    details: dict[str, Any] = {"collision_rate": collision_rate(trace)}
    if reference is None:
        details["note"] = "no reference (expert) trace: L2 not computed"
        return MetricResult("planning_l2", "m", None, details=details)
    details["l2"] = l2(trace, reference)
    return MetricResult("planning_l2", "m", details["l2"]["average_to_horizon"]["3s"], details=details)
