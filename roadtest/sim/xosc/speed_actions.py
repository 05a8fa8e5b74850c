"""Planned longitudinal actions: SpeedProfileAction's segments, LongitudinalDistanceAction's spring, SynchronizeAction.

Both follow esmini's behaviour (the reference for the conformance corpus): a speed profile in "follow" mode joins
the straight speed ramps between its entries with constant-jerk transitions bounded by DynamicConstraints
maxAccelerationRate/maxDecelerationRate; a distance action with constraints drives a critically damped spring
whose acceleration may change by at most the jerk limits per second; a synchronization with a final speed plans
two constant-acceleration phases (or a stop) so as to arrive with the master, after an optional steady-state stretch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["LARGE", "Constraints", "constraints", "profile_segments", "profile_speed", "distance_accel", "Synchronizer"]

SMALL = 1e-6
LARGE = 1e10  # "unconstrained": finite, so that products with zero stay zero


@dataclass
class Constraints:
    """DynamicConstraints in SI units; an attribute left out takes the entity's Performance (rates: unconstrained)."""

    max_accel: float = LARGE
    max_decel: float = LARGE
    max_accel_rate: float = LARGE
    max_decel_rate: float = LARGE
    max_speed: float = LARGE


def constraints(dc: Any, e: Any) -> Constraints:
    """Constraints from a <DynamicConstraints> element (None: all unconstrained) for entity e."""
    if dc is None:
        return Constraints()

    def get(k: str, d: float) -> float:
        v = dc.get(k)
        return d if v in (None, "") else float(v)

    return Constraints(get("maxAcceleration", e.max_accel), get("maxDeceleration", e.max_decel),
                       get("maxAccelerationRate", LARGE), get("maxDecelerationRate", LARGE),
                       get("maxSpeed", e.max_speed))


def _div(a: float, b: float) -> float:
    """IEEE division: x/0 is a signed infinity and 0/0 is NaN (the plan relies on it for zero-duration entries)."""
    if b != 0:
        return a / b
    return math.nan if a == 0 else math.copysign(math.inf, a)


def _sqrt(x: float) -> float:
    return math.sqrt(x) if x >= 0 else math.nan


class _Vertex:
    """A corner of the speed profile: time, speed, slope of the ramp that leaves it, and that ramp's v-intercept."""

    def __init__(self, t: float, v: float, k: float | None = None):
        self.t, self.v, self.k = t, v, 0.0 if k is None else k
        self.m = 0.0 if k is None else v - self.k * t

    def set_k(self, k: float) -> None:
        self.k, self.m = k, self.v - k * self.t


def _vertices(entries: list[tuple[float, float]], follow: bool, c: Constraints, t0: float, v_now: float,
              a_now: float, offset: float) -> list[_Vertex]:
    """Profile corners from (speed, duration) entries (duration < 0: not given), ramps capped by the constraints."""
    first = entries[0][1]
    idx = 0
    if first > SMALL or first <= -SMALL:
        verts = [_Vertex(t0, v_now)]
    elif follow:
        verts, idx = [_Vertex(t0, v_now)], 1  # follow mode starts from the current speed
    else:
        verts = [_Vertex(t0, entries[0][0])]
    time = t0
    n = len(entries)
    for index in range(idx, n):
        spd, dt = entries[index]
        target = spd + offset
        k = _div(target - verts[-1].v, dt)
        if dt < -SMALL or k < -c.max_decel or k > c.max_accel:
            dv = target - verts[-1].v
            if abs(dv) < SMALL:
                continue
            if dt < -SMALL:
                k = min(-SMALL, -c.max_decel) if dv < 0 else max(SMALL, c.max_accel)
            else:
                k = max(k, -c.max_decel) if k < 0 else min(k, c.max_accel)
            verts[-1].t = time
            time += dv / k
        else:
            time += dt
        if index < n - 1 and dt < SMALL:
            verts[-1] = _Vertex(time, target)
            continue
        verts[-1].set_k(k)
        prev_k = verts[-2].k if index > 1 and len(verts) > 1 else a_now
        if abs(verts[-1].k - prev_k) < SMALL and index > 1 and len(verts) > 1:
            p = verts[-2]  # same slope as the ramp before: merge the two ramps
            verts[-1] = _Vertex(time, target, (target - p.v) / (time - p.t))
            continue
        verts.append(_Vertex(time, target, 0.0) if index == n - 1 else _Vertex(time, target))
    return verts


def profile_segments(entries: list[tuple[float, float]], follow: bool, c: Constraints, t0: float, v_now: float,
                     a_now: float = 0.0, offset: float = 0.0) -> list[tuple[float, float, float, float]]:
    """The speed plan as (start time, speed, acceleration, jerk) segments; a follow plan that breaks a constraint
    falls back to straight ramps between the entries ("position" mode) from there on."""
    verts = _vertices(entries, follow, c, t0, v_now, a_now, offset)
    segs: list[tuple[float, float, float, float]] = []

    def add(t: float, v: float, k: float, j: float) -> None:
        nonlocal follow
        if follow and not (-c.max_speed - SMALL <= v <= c.max_speed + SMALL and -c.max_decel - SMALL <= k <= c.max_accel + SMALL
                           and -c.max_decel_rate - SMALL <= j <= c.max_accel_rate + SMALL):
            follow = False
        segs.append((t, v, k, j))

    if len(verts) == 1:
        add(verts[0].t, verts[0].v, 0.0, 0.0)
    elif follow and len(verts) == 2:
        _single_target(verts, c, a_now, add)
    else:
        k0, k1, m1, j = a_now, 0.0, 0.0, 0.0
        vtx = verts[0]
        t3, v3 = vtx.t, 0.0
        if follow:
            if abs(vtx.k) > SMALL:
                j = -c.max_decel_rate if vtx.k - k0 < 0 else c.max_accel_rate
                add(vtx.t, vtx.v, k0, j)
                t3 = vtx.t + ((vtx.k - k0) / j if abs(j) > SMALL else 0.0)
            v3 = vtx.v + k0 * (t3 - t0) + 0.5 * j * (t3 - t0) ** 2  # the first ramp starts late, shifted down
            k1, m1 = vtx.k, v3 - vtx.k * t3
            add(t3, v3, k1, 0.0)
        for index in range(len(verts)):
            if not follow:
                vtx = verts[index]
                add(vtx.t, vtx.v, vtx.k, 0.0)
            elif index < len(verts) - 1:
                vtx = verts[index + 1]
                k0, t0_, v0, m0, k1, m1 = k1, t3, v3, m1, vtx.k, vtx.m
                j = -c.max_decel_rate if vtx.k - k0 < 0 else c.max_accel_rate
                if abs(k0 - k1) >= SMALL:
                    # the jerk starts on the old ramp and ends tangent to the next one
                    t1 = ((k0 - k1) ** 2 - 2 * j * (m0 - m1)) / (2 * j * (k0 - k1))
                    if t1 < t0_:
                        follow = False
                        continue
                    v1 = v0 + k0 * (t1 - t0_)
                    t3 = t1 + (vtx.k - k0) / j
                    v3 = v1 + k0 * (t3 - t1) + 0.5 * j * (t3 - t1) ** 2
                    add(t1, v1, k0, j)
                add(t3, v3, vtx.k, 0.0)
    return segs


def _single_target(verts: list[_Vertex], c: Constraints, k0: float, add: Any) -> None:
    """Follow mode with one target speed: jerk up, (hold), jerk down so as to arrive on time, else later."""
    j0 = -c.max_decel_rate if verts[0].k - k0 < 0 else c.max_accel_rate
    add(verts[0].t, verts[0].v, k0, j0)
    j1 = c.max_accel_rate if verts[0].k < 0 else -c.max_decel_rate
    t0, v0, t3, v3 = verts[0].t, verts[0].v, verts[1].t, verts[1].v
    k1 = t2 = v2 = 0.0

    def in_span(k: float) -> bool:
        return -c.max_decel <= k <= c.max_accel

    if abs(j1 - j0) < SMALL:
        if abs(t0 - t3) > SMALL and abs(j1 * (t0 - t3) - k0) > SMALL:
            t1 = (2 * j1 * (v0 + t0 * j1 * (t0 - t3) - v3) + k0 ** 2 + 2 * k0 * j1 * (t3 - 2 * t0)) / (2 * j1 * (j1 * (t0 - t3) - k0))
            if t1 >= 0:
                v1 = v0 + k0 * (t1 - t0) + j0 * 0.5 * (t1 - t0) ** 2
                k1 = k0 + j0 * (t1 - t0)
                t2 = k1 / j1 + t3
                if t2 >= 0:
                    v2 = v1 + k1 * (t2 - t1)
                    if -c.max_decel < k1 < c.max_accel:
                        add(t1, v1, k1, 0.0)
    else:
        factor = j0 * j1 * (2 * v0 * (j1 - j0) + k0 ** 2 + 2 * k0 * j1 * (t3 - t0) + j0 * j1 * (t0 - t3) ** 2 + 2 * v3 * (j0 - j1))
        if factor < 0.0:  # no time for a stretch of constant acceleration: arrive late
            t2 = (_sqrt(j1 * (j1 - j0) * (j0 * (2 * v3 - 2 * v0) + k0 ** 2)) + (j0 - j1) * (t0 * j0 - k0)) / (j0 * (j0 - j1))
            v2 = v0 + k0 * (t2 - t0) + j0 * 0.5 * (t2 - t0) ** 2
            k1 = k0 + j0 * (t2 - t0)
            t3 = t2 - k1 / j1
        else:
            t1 = (-_sqrt(factor) - j0 * (k0 + t3 * j1) + t0 * j0 ** 2) / (j0 * (j0 - j1))
            v1 = v0 + k0 * (t1 - t0) + j0 * 0.5 * (t1 - t0) ** 2
            k1 = k0 + j0 * (t1 - t0)
            t2 = k1 / j1 + t3
            v2 = v1 + k1 * (t2 - t1)
            if in_span(k1):
                add(t1, v1, k1, 0.0)
    if in_span(k1):
        add(t2, v2, k1, j1)
        add(t3, v3, 0.0, 0.0)
        return
    k1 = max(-c.max_decel, min(c.max_accel, k1))  # the acceleration cap stretches the transition
    t1 = t0 + (k1 - k0) / j0
    v1 = v0 + k0 * (t1 - t0) + 0.5 * j0 * (t1 - t0) ** 2
    t2 = (v3 - v1) / k1 + t1 + k1 / (2 * j1)
    v2 = v3 + k1 ** 2 / (2 * j1)
    t3 = (v3 - v1) / k1 + t1 - k1 / (2 * j1)
    add(t1, v1, k1, 0.0)
    add(t2, v2, k1, j1)
    add(t3, v3, 0.0, 0.0)


def profile_speed(segs: list[tuple[float, float, float, float]], cur: int, time: float) -> tuple[float, int]:
    """Speed of the plan at `time` and the index of the segment in force (advanced from `cur`)."""
    while cur < len(segs) - 1 and time > segs[cur + 1][0] - SMALL:
        cur += 1
    t, v, k, j = segs[cur]
    speed = v + k * (time - t) + 0.5 * j * (time - t) ** 2
    return (0.0 if abs(speed) < SMALL else speed), cur


def distance_accel(err: float, speed_diff: float, prev_acc: float, c: Constraints, dt: float) -> float:
    """Acceleration that closes a gap error (m, >0: too far behind) on a damped spring, capped and jerk-limited.

    speed_diff is own speed minus the referenced entity's; prev_acc the acceleration this action gave last tick.
    """
    k = 0.4 * (c.max_accel if err < 0.0 else c.max_decel)  # the spring is as stiff as the limit it pulls against
    acc = err * k - speed_diff * 2 * math.sqrt(k)
    if acc < 0.0:
        jerk, acc = -c.max_decel_rate, max(acc, -c.max_decel)
    else:
        jerk, acc = c.max_accel_rate, min(acc, c.max_accel)
    if jerk < 0.0 and acc < prev_acc:
        acc = max(prev_acc + jerk * dt, acc)
    elif jerk > 0.0 and acc > prev_acc:
        acc = min(prev_acc + jerk * dt, acc)
    return acc


STOP_DECEL = -8.0  # m/s^2: the hard stop of a synchronization that cannot otherwise wait for its master


class Synchronizer:
    """SynchronizeAction's speed law: reach the target when the master reaches its own, at the final speed if given.

    Modes: "none" (not yet planned), "nonlinear" (accelerate/decelerate towards an apex, then "linear" to the final
    speed), "steady" (hold the final speed over the steady-state stretch), "waiting"/"stop"/"stopped" (the master is
    not approaching, or the plan needs a stop on the way).
    """

    def __init__(self, tol: float = 0.0, tol_master: float = 0.0, steady_dist: float | None = None,
                 steady_time: float | None = None):
        self.tol, self.tol_master = tol, tol_master
        self.steady_dist, self.steady_time = steady_dist, steady_time
        self.mode, self.convex = "none", False
        self.last, self.last_master = LARGE, LARGE

    def start(self, final: float | None) -> None:
        """Fix a steady-state time as a distance at the final speed of the start."""
        if self.steady_time is not None and final is not None:
            self.steady_dist, self.steady_time = self.steady_time * final, None

    def step(self, dist: float, master_dist: float, master_speed: float, speed: float, final: float | None,
             dt: float, speed_s: float | None = None) -> tuple[float, bool]:
        """New speed and whether the action ends; distances unsigned (m), master_speed towards its target (m/s).

        Speeds are along the road's s axis where known (speed_s: this entity's), as esmini plans with them.
        """
        done = (dist < self.tol + SMALL or master_dist < self.tol_master + SMALL
                or dist > self.last or master_dist > self.last_master)  # arrived, or just passed it
        self.last, self.last_master = dist, master_dist
        dist, master_dist = max(dist - self.tol, SMALL), max(master_dist - self.tol_master, SMALL)
        t_master = LARGE
        if master_speed > SMALL:
            t_master = master_dist / master_speed
            done = done or t_master < dt
        elif self.mode != "waiting":
            self.mode, speed = "waiting", 0.0  # the master stands still: so does this one
        if done:
            return (final if final is not None else speed), True
        if final is None:
            acc = 0.0
            if master_speed > SMALL:
                self.mode = "linear"
                acc = (2 * dist / t_master - 2 * speed) / t_master
            return speed + acc * dt, False
        if self.steady_dist is not None and self.mode != "steady":
            t_ss = self.steady_dist / final
            if dist - self.steady_dist < SMALL or t_master - t_ss < SMALL:
                self.mode = "steady"
            else:
                dist, t_master = dist - self.steady_dist, t_master - t_ss
        return self._final_speed(dist, t_master, speed, speed if speed_s is None else speed_s, final, dt), False

    def _final_speed(self, s: float, t: float, speed: float, v0: float, v1: float, dt: float) -> float:
        """The speed law when a final speed is given: s metres to go in t seconds, to arrive at v1."""
        if self.mode == "steady":
            return v1
        if self.mode == "waiting":
            if t >= LARGE:
                return speed
            self.mode = "none"
        if self.mode == "stop":
            speed += STOP_DECEL * dt
            if speed < 0:
                speed, self.mode = 0.0, "waiting"
            return speed
        if self.mode == "stopped":
            if t >= 2 * s / v1:
                return 0.0
            self.mode = "linear"  # time to move again
        if self.mode == "linear":
            if t > LARGE - 1:
                return 0.0
            v_now = 2 * s / t - max(0.0, v1) if t >= 0.001 and s >= 0.001 else 0.0
            return max(0.0, v_now)
        if self.mode == "nonlinear" and t < LARGE and abs(speed - (2 * s / t - v1)) < 0.1:
            self.mode = "linear"  # on the straight ramp to the final speed: keep this speed for this tick
            return speed
        if self.mode == "none":
            self.mode, self.convex = "nonlinear", (v1 + speed) / 2 < s / t
        vx, acc = 0.0, 0.0
        if abs(v1 - v0) < SMALL:
            vx = (s - t / 2 * v0) / (t / 2)
            acc = (vx - v0) / (t / 2)
        else:
            # two constant-acceleration phases meeting at speed vx at time x: one root lies within (0, t)
            root = math.sqrt(2.0) * _sqrt(2 * s * s - 2 * (v1 + v0) * t * s + (v1 * v1 + v0 * v0) * t * t)
            x1 = -(root + 2 * s - 2 * v1 * t) / (2 * (v1 - v0))
            x2 = -(-root + 2 * s - 2 * v1 * t) / (2 * (v1 - v0))
            if 0 < x1 < t:
                vx = (2 * s - root) / (2 * t)
                acc = (vx - v0) / x1
            elif 0 < x2 < t:
                vx = (2 * s + root) / (2 * t)
                acc = (vx - v0) / x2
        if self.mode == "nonlinear" and ((not self.convex and acc > 0) or (self.convex and acc < 0)):
            self.mode, acc = "linear", 0.0  # at the apex: hold this tick, then the straight ramp
        if self.mode == "nonlinear" and vx < 0:
            # the apex would be a negative speed: brake to a stop on the way, wait, then go
            t1 = 2 * v0 * s / (v0 * v0 + v1 * v1)
            acc = -v0 / t1 if abs(t1) > SMALL else 0.0
            if t1 * v0 / 2 > s / 2:
                acc, self.mode = STOP_DECEL, "stop"
            if v0 + acc * dt < 0:
                self.mode = "stopped"
                return 0.0
        return speed + acc * dt
