"""Criteria that the leaderboard attaches to one scenario of a route: yield to an emergency vehicle, scenario timeout.

Upstream these criteria run only while their scenario is active (leaderboard-2.0 route_scenario.py
`_create_criterion_tree`), and the scenario's own behaviour tree decides when it ends. roadtest has no
scenario behaviour trees; each function's docstring says which stand-in gives the active period.
"""

from __future__ import annotations

import math
from typing import Sequence

from roadtest.findings import Violation
from roadtest.kinds import LEADERBOARD_STATIC
from roadtest.metrics.base import Route, project_on_route
from roadtest.sim.api import ActorState, WorldState

__all__ = ["EV_TRIGGER_DISTANCE", "EV_IDLE_TIME", "EV_END_DISTANCE", "SCENARIO_TIMEOUT", "OBSTACLE_KINDS",
           "OBSTACLE_TRIGGER", "yield_emergency", "obstacle_windows", "scenario_timeouts"]

# srunner/scenarios/yield_to_emergency_vehicle.py: the scenario ends 10 s after the EV came within 50 m
# of the ego, or once the EV, in front of the ego, has driven 50 m more.
EV_TRIGGER_DISTANCE = 50.0  # m
EV_IDLE_TIME = 10.0  # s
EV_END_DISTANCE = 50.0  # m
SCENARIO_TIMEOUT = 240.0  # s, ScenarioTimeout(duration) in every route-blocking scenario
OBSTACLE_KINDS = LEADERBOARD_STATIC  # props and road furniture (roadtest.kinds)
OBSTACLE_TRIGGER = 30.0  # m: stand-in for a blocking scenario's trigger point, this far before the obstacle
ROUTE_HALF_WIDTH = 2.0  # m: an obstacle this close to the route polyline blocks it


def _ahead_of(ego: ActorState, ev: ActorState) -> bool:
    """YieldToEmergencyVehicleTest's failure test: ev_forward . (ego - ev) > 0."""
    return (ego.x - ev.x) * math.cos(ev.h) + (ego.y - ev.y) * math.sin(ev.h) > 0


def yield_emergency(ticks: Sequence[tuple[WorldState, ActorState]]) -> list[Violation]:
    """YieldToEmergencyVehicleTest: one event when the ego is ahead of the EV on the scenario's last tick.

    Stand-in for the scenario's end: the YieldToEmergencyVehicle scenario's own end conditions
    (EV_IDLE_TIME after the EV first came within EV_TRIGGER_DISTANCE of the ego, or EV_END_DISTANCE driven
    by the EV after it got in front of the ego), else the EV's last tick, else the route's end. A siren EV
    (kind "emergency", siren on) opens the scenario on its first tick in the trace.
    """
    out: list[Violation] = []
    seen: dict[str, dict] = {}
    for st, ego in ticks:
        for a in st.actors:
            if a.kind != "emergency" or not a.siren or a.role == "ego":
                continue
            s = seen.setdefault(a.id, {"near": None, "front_at": None, "driven": 0.0, "prev": None, "done": False,
                                       "ahead": False, "time": st.time})
            if s["done"]:
                continue
            if s["prev"] is not None and s["front_at"] is not None:
                s["driven"] += math.hypot(a.x - s["prev"][0], a.y - s["prev"][1])
            s["prev"] = (a.x, a.y)
            s["ahead"], s["time"] = _ahead_of(ego, a), st.time
            if s["near"] is None and math.hypot(a.x - ego.x, a.y - ego.y) < EV_TRIGGER_DISTANCE:
                s["near"] = st.time
            if s["front_at"] is None and not s["ahead"]:
                s["front_at"] = st.time
            if (s["near"] is not None and st.time - s["near"] > EV_IDLE_TIME) or s["driven"] > EV_END_DISTANCE:
                s["done"] = True
    for aid, s in seen.items():
        if s["ahead"]:
            out.append(Violation(s["time"], 0.0, 0.0, "yield_emergency_vehicle_infractions",
                                 "Agent failed to yield to an emergency vehicle", {"other": aid}))
    return out


def obstacle_windows(ticks: Sequence[tuple[WorldState, ActorState]], route: Route) -> list[tuple[str, float, float | None]]:
    """(obstacle id, start, end or None) of each route-blocking scenario, as roadtest's stand-in for them.

    Stand-in: a static obstacle (OBSTACLE_KINDS) within ROUTE_HALF_WIDTH of the route is a blocking
    scenario; it starts when the ego's route position comes within OBSTACLE_TRIGGER of it and ends when the
    ego's rear has passed the obstacle's far end.
    """
    if not ticks:
        return []
    obstacles: dict[str, tuple[float, float]] = {}
    for a in ticks[0][0].actors:
        if a.kind in OBSTACLE_KINDS and a.role != "ego":
            s, d = project_on_route(route, a.x, a.y)
            if d <= ROUTE_HALF_WIDTH:
                obstacles[a.id] = (s, a.length / 2)
    out = []
    for oid, (s_obs, half) in obstacles.items():
        start = end = None
        s_ego = 0.0
        for st, ego in ticks:
            s_ego, _ = project_on_route(route, ego.x, ego.y, s_ego - 10.0, s_ego + 50.0)
            if start is None and s_obs - s_ego <= OBSTACLE_TRIGGER:
                start = st.time
            if start is not None and s_ego - ego.length / 2 > s_obs + half:
                end = st.time
                break
        if start is not None:
            out.append((oid, start, end))
    return out


def scenario_timeouts(windows: Sequence[tuple[str, float, float | None]], end_time: float) -> list[Violation]:
    """ScenarioTimeoutTest: one event per blocking scenario still running SCENARIO_TIMEOUT s after it started."""
    out = []
    for oid, start, end in windows:
        stop = end if end is not None else end_time
        if stop - start > SCENARIO_TIMEOUT:
            out.append(Violation(start + SCENARIO_TIMEOUT, 0.0, SCENARIO_TIMEOUT, "scenario_timeouts",
                                 "Agent timed out a scenario", {"obstacle": oid}))
    return out
