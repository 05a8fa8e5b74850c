"""Car-following and lane changing of background vehicles: IDM accelerations and MOBIL lane choices."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["IDM", "idm_accel", "mobil"]


@dataclass(frozen=True)
class IDM:
    """Intelligent Driver Model parameters (Treiber et al. 2000)."""

    a: float = 1.5  # m/s^2, maximum acceleration
    b: float = 2.0  # m/s^2, comfortable deceleration
    T: float = 1.5  # s, time headway
    s0: float = 2.0  # m, jam distance
    delta: float = 4.0
    b_safe: float = 4.0  # m/s^2, MOBIL: most braking imposed on a new follower
    politeness: float = 0.3
    threshold: float = 0.2  # m/s^2, MOBIL: least advantage worth a change
    keep_right: float = 0.1  # m/s^2, bias toward the outer lane


def idm_accel(v: float, v0: float, gap: float | None, dv: float, p: IDM) -> float:
    """IDM acceleration at speed v toward v0, with a leader `gap` m ahead closing at dv (v - v_leader)."""
    a = p.a * (1.0 - (v / v0) ** p.delta) if v0 > 0 else -p.b
    if gap is not None:
        s_star = p.s0 + max(0.0, v * p.T + v * dv / (2.0 * math.sqrt(p.a * p.b)))
        a -= p.a * (s_star / max(gap, 0.1)) ** 2
    return max(a, -9.0)



def _follower(tr, idx, road: str, lane: int, s: float, d: int, me: str) -> Any:
    best = None
    for e in idx.get((road, lane), ()):
        if e.id != me and (s - e.s) * d > 0 and (best is None or abs(s - e.s) < abs(s - best.s)):
            best = e
    return best


def _acc(tr, v_speed: float, v0: float, gap, lead_speed: float) -> float:
    return idm_accel(v_speed, v0, gap, v_speed - lead_speed, tr.p)


def mobil(tr, v, idx, lengths, a_now: float) -> int | None:
    """MOBIL (Kesting et al. 2007): the neighbour lane a vehicle moves to, across marks that permit it, or None."""
    try:
        nb = tr.net.neighbours(v.road, v.lane, v.s)
    except (KeyError, ValueError, IndexError):
        return None
    if tr._remaining(v.road, v.lane, v.s, v.dir) < 40.0:
        return None
    best, best_gain = None, 0.0
    for side in ("left", "right"):
        lane, mark = nb.get(side, (None, None))
        if lane is None or tr.net.lane_type(v.road, lane, v.s) != "driving":
            continue
        if tr.net.lane_direction(v.road, lane) != v.dir:
            continue
        outward = lane * v.lane > 0 and abs(lane) > abs(v.lane)
        if mark is not None and not mark.crossing_allowed(outward):
            continue
        if tr._remaining(v.road, lane, v.s, v.dir) < 40.0:
            continue
        gap, ls, lid = tr._leader(idx, v.road, lane, v.s, v.dir, v.id, None)
        if gap is not None:
            gap -= 0.5 * (v.length + lengths[lid])
            if gap < 1.0:
                continue
        a_new = _acc(tr, v.speed, v.v0, gap, ls)
        gain = a_new - a_now
        f = _follower(tr, idx, v.road, lane, v.s, v.dir, v.id)
        if f is not None:
            fgap = abs(v.s - f.s) - 0.5 * (v.length + f.length)
            if fgap < 1.0:
                continue
            fv0 = f.veh.v0 if f.veh else max(f.speed, 1.0)
            a_f_new = _acc(tr, f.speed, fv0, fgap, v.speed)
            if a_f_new < -tr.p.b_safe:
                continue
            gain += tr.p.politeness * (a_f_new - (f.veh.accel if f.veh else 0.0))
        bias = tr.p.keep_right if side == "right" else -tr.p.keep_right
        if gain + bias > tr.p.threshold and gain + bias > best_gain:
            best, best_gain = lane, gain + bias
    return best

