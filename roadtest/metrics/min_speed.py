"""Minimum speed: the leaderboard's MinimumSpeedRouteTest as its code runs, and roadtest's fairer version beside it.

`leaderboard_min_speed` is scenario_runner's test (leaderboard-2.0 atomic_criteria.py): every background
vehicle counts, and a checkpoint fires on the tick where the route distance since the last one is
strictly more than L/N, tested before the tick's sample is added, so checkpoints drift.
`detect_min_speed` is roadtest's (reported under `roadtest.min_speed`): fixed boundaries at k*L/N, and
three departures so that a driver obeying the rules is not charged:
  - traffic: only background vehicles heading the ego's way (within 90 degrees) and within
    TRAFFIC_RADIUS of it; oncoming or far-away traffic says nothing about how fast the ego could go;
  - lead: a tick is left out when a vehicle is ahead of the ego in its lane within the safe gap
    (LEAD_HEADWAY s at the ego's speed plus LEAD_STANDSTILL m), e.g. behind a truck it may not pass;
  - cap: a tick is left out when the ego drives within CAP_MARGIN of the limit in force (roadtest.limits:
    road limit, last speed-limit sign passed, zone limit, and the fog, night and zone rules' caps).
"""

from __future__ import annotations

import math
from typing import Sequence

from roadtest.findings import Violation
from roadtest.kinds import NOT_TRAFFIC
from roadtest.limits import scene_limits, travel_direction
from roadtest.sim.api import ActorState, WorldState

__all__ = ["leaderboard_min_speed", "TRAFFIC_RADIUS", "LEAD_HEADWAY", "LEAD_STANDSTILL", "LEAD_HALF_WIDTH", "CAP_MARGIN",
           "detect_min_speed", "speed_cap", "excused"]

TRAFFIC_RADIUS = 60.0  # m
LEAD_HEADWAY = 3.0  # s
LEAD_STANDSTILL = 10.0  # m
LEAD_HALF_WIDTH = 2.0  # m, lateral offset in the ego frame still counted as the ego's lane
CAP_MARGIN = 1.0  # m/s
_NOT_VEHICLES = NOT_TRAFFIC  # walkers and props; a bicycle counts as traffic, as in the leaderboard
FINAL_SHARE = 0.95  # the last checkpoint is taken at the end when more than this share of the route was passed


def _message(value: float) -> str:
    return f"Average speed is {value}% of the surrounding traffic's one"


def leaderboard_min_speed(ticks: Sequence[tuple[WorldState, ActorState]], index: Sequence[int],
                          accum: Sequence[float], checkpoints: int,
                          emit_all: bool = False) -> tuple[list[Violation], list[float]]:
    """MinimumSpeedRouteTest: (events, checkpoint values); index[i] is the route point passed at tick i.

    emit_all=True is Bench2Drive's fork, which writes an event for every checkpoint, 100 % included.
    """
    events: list[Violation] = []
    values: list[float] = []
    step = accum[-1] / checkpoints
    state = {"ego": 0.0, "bg": 0.0, "n": 0, "current": 0.0}

    def fire(t: float) -> None:
        if state["n"] > 0 and state["bg"]:
            bg, me = state["bg"] / state["n"], state["ego"] / state["n"]
            value = round(me / bg * 100, 2)
        else:
            value = 100
        values.append(value)
        if value < 100 or emit_all:
            events.append(Violation(t, 0.0, float(value), "min_speed_infractions", _message(value), {"percentage": value}))

    k = 0
    for (st, ego), k in zip(ticks, index):
        if accum[k] - state["current"] > step:
            fire(st.time)
            state.update(ego=0.0, bg=0.0, n=0, current=accum[k])
        bg = [abs(a.speed) for a in st.actors if a.role == "background" and a.kind not in _NOT_VEHICLES]
        if bg:
            state["bg"] += sum(bg) / len(bg)
            state["ego"] += abs(ego.speed)
            state["n"] += 1
    if ticks and accum[k] / accum[-1] > FINAL_SHARE:
        fire(ticks[-1][0].time)
    return events, values


def speed_cap(st: WorldState, ego: ActorState, meta: dict) -> float | None:
    """Lowest speed limit in force at the ego (m/s), roadtest.limits' one computation; None if none is known."""
    ln = ego.lane
    road, s = (str(ln.road), ln.s) if ln is not None else (None, 0.0)
    d = travel_direction(ln.lane, str(meta.get("driving_side") or "right")) if ln is not None else 1
    return scene_limits(meta).in_force(road, s, d, st.environment).value


def excused(st: WorldState, ego: ActorState, meta: dict) -> bool:
    """True when a lead vehicle within the safe gap or a limit in force keeps the ego from going faster."""
    reach = LEAD_HEADWAY * max(abs(ego.speed), 0.0) + LEAD_STANDSTILL + (ego.length / 2)
    c, s = math.cos(ego.h), math.sin(ego.h)
    for a in st.actors:
        if a.role == "ego" or a.kind in _NOT_VEHICLES:
            continue
        dx, dy = a.x - ego.x, a.y - ego.y
        lon, lat = dx * c + dy * s, -dx * s + dy * c
        if 0.0 < lon - a.length / 2 <= reach and abs(lat) <= LEAD_HALF_WIDTH:
            return True
    cap = speed_cap(st, ego, meta)
    return cap is not None and abs(ego.speed) >= cap - CAP_MARGIN


def detect_min_speed(ticks: Sequence[tuple[WorldState, ActorState]], progress: Sequence[float],
                     checkpoints: int = 4, meta: dict | None = None,
                     excuse: bool = True) -> tuple[list[Violation], list[float]]:
    """roadtest's min speed: ego speed over mean nearby same-direction traffic per fixed route piece; an event below 100 %.

    excuse=False counts every tick with traffic (Bench2Drive's efficiency ratio, which is no infraction).
    """
    events: list[Violation] = []
    values: list[float] = []
    ego_sum = bg_sum = 0.0
    have = False
    k = 0

    def close(t: float) -> None:
        nonlocal ego_sum, bg_sum, have
        v = 100.0
        if have and bg_sum > 0:
            v = round(ego_sum / bg_sum * 100.0, 2)
            values.append(v)
        if v < 100.0:
            events.append(Violation(t, 0.0, v, "min_speed_infractions", _message(v), {"percentage": v}))
        ego_sum = bg_sum = 0.0
        have = False

    for (st, ego), p in zip(ticks, progress):
        bg = [abs(a.speed) for a in st.actors if a.role == "background" and a.kind not in _NOT_VEHICLES
              and math.cos(a.h - ego.h) > 0 and math.hypot(a.x - ego.x, a.y - ego.y) <= TRAFFIC_RADIUS]
        if bg and not (excuse and excused(st, ego, meta or {})):
            ego_sum += abs(ego.speed)
            bg_sum += sum(bg) / len(bg)
            have = True
        while k < checkpoints - 1 and p >= 100.0 * (k + 1) / checkpoints:
            close(st.time)
            k += 1
    if ticks and k == checkpoints - 1 and progress and progress[-1] > 95.0:
        close(ticks[-1][0].time)
    return events, values
