"""CARLA leaderboard 2.0 driving score as its code computes it: route completion, per-event penalties, suite figures.

Sources: carla-simulator/leaderboard branch leaderboard-2.0 (utils/statistics_manager.py,
scenarios/route_scenario.py) and carla-simulator/scenario_runner branch leaderboard-2.0
(scenarioatomics/atomic_criteria.py, timer.py), quirks included. Detection runs on roadtest's
WorldState instead of CARLA sensors; where a criterion needs CARLA's map, its docstring names the
stand-in. roadtest's own corrected figures live in roadtest/metrics/corrected.py, never here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from roadtest.findings import Violation
from roadtest.kinds import LEADERBOARD_STATIC, LEADERBOARD_VEHICLES, LEADERBOARD_WALKERS
from roadtest.metrics.base import Route, ego_states, route_from_meta
from roadtest.metrics.min_speed import leaderboard_min_speed
from roadtest.metrics.scenario_criteria import SCENARIO_TIMEOUT, obstacle_windows, scenario_timeouts, yield_emergency
from roadtest.metrics.traffic_control import detect_red_lights, detect_stops
from roadtest.sim.api import ActorState, Termination, Trace, WorldState

__all__ = [
    "PENALTY",
    "INFRACTION_KEYS",
    "LeaderboardResult",
    "evaluate",
    "route_progress",
    "detect_collisions",
    "detect_red_lights",
    "detect_stops",
    "leaderboard_min_speed",
    "frames",
    "outside_lanes",
    "FRAME_RATE",
    "penalty_of",
    "aggregate_suite",
]

PENALTY = {
    "collisions_pedestrian": 0.50,
    "collisions_vehicle": 0.60,
    "collisions_layout": 0.65,
    "red_light": 0.70,
    "stop_infraction": 0.80,
    "scenario_timeouts": 0.70,
    "yield_emergency_vehicle_infractions": 0.70,
}
INFRACTION_KEYS = (
    "collisions_layout", "collisions_pedestrian", "collisions_vehicle", "red_light", "stop_infraction",
    "outside_route_lanes", "min_speed_infractions", "yield_emergency_vehicle_infractions", "scenario_timeouts",
    "route_dev", "vehicle_blocked", "route_timeout",
)
COLLISION_RADIUS = 5.0  # m
MAX_ID_TIME = 5.0  # s
EPSILON_SPEED = 0.1  # m/s
WINDOW = 2  # route points looked ahead per tick (RouteCompletionTest, MinimumSpeedRouteTest)
LANES_WINDOW = 3  # route points looked ahead per tick (OutsideRouteLanesTest)
GOAL_DISTANCE = 10.0  # m
PERCENT_THRESHOLD = 99.0
OFFROAD_MAX = 30.0  # m (InRouteTest)
MIN_TIMEOUT = 300.0  # s (RouteTimeoutBehavior)
FRAME_RATE = 20.0  # Hz, leaderboard_evaluator.py: coarser traces are evaluated at interpolated 20 Hz positions
FAILURES = {"route_dev": "Agent deviated from the route", "vehicle_blocked": "Agent got blocked",
            "route_timeout": "Agent timed out"}
_VEHICLES = LEADERBOARD_VEHICLES  # a bicycle is a vehicle here, as CARLA reports it (roadtest.kinds)
_WALKERS = LEADERBOARD_WALKERS
_STATIC = LEADERBOARD_STATIC
LAYOUT_ID = "0"  # CARLA gives the map layout id 0; a collision event without another actor is the layout


@dataclass(frozen=True)
class LeaderboardResult:
    """Per-route leaderboard figures and the infraction events behind them."""

    score_route: float  # %, route completion
    score_penalty: float  # infraction penalty, 0..1
    score_composed: float  # driving score, 0..100
    status: str  # Perfect | Completed | Failed[ - message]
    infractions: dict[str, tuple[Violation, ...]]
    route_length: float  # m
    end_time: float  # s, when the route ended (completion, deviation, blocked, timeout or end of trace)
    progress: tuple[float, ...] = ()  # % per tick up to end_time
    notes: tuple[str, ...] = ()
    min_speed_checkpoints: tuple[float, ...] = ()  # % ego/background speed per checkpoint (100 without traffic)

    def to_dict(self) -> dict[str, Any]:
        """The leaderboard's record layout: scores, infractions as message lists, and roadtest's events."""
        return {
            "status": self.status,
            "scores": {"score_route": self.score_route, "score_penalty": self.score_penalty,
                       "score_composed": self.score_composed},
            "infractions": {k: [v.description for v in self.infractions.get(k, ())] for k in INFRACTION_KEYS},
            "events": {k: [v.to_dict() for v in vs] for k, vs in self.infractions.items() if vs},
            "meta": {"route_length": self.route_length, "duration_game": self.end_time},
            "notes": list(self.notes),
        }


def _at(a: ActorState) -> str:
    return f"(x={round(a.x, 3)}, y={round(a.y, 3)}, z={round(a.z, 3)})"


def frames(ticks: Sequence[tuple[WorldState, ActorState]], tick: float) -> list[tuple[int, float, float]]:
    """(tick index, x, y) of the ego at the leaderboard's 20 Hz: positions between coarser ticks are interpolated.

    The route criteria look only WINDOW points ahead per frame, so evaluating them per tick would make
    route completion depend on the simulator's tick.
    """
    n = max(1, math.ceil(tick * FRAME_RATE - 1e-9))
    out: list[tuple[int, float, float]] = []
    prev = None
    for i, (_, e) in enumerate(ticks):
        if prev is None or n == 1:
            out.append((i, e.x, e.y))
        else:
            out.extend((i, prev.x + (e.x - prev.x) * k / n, prev.y + (e.y - prev.y) * k / n) for k in range(1, n + 1))
        prev = e
    return out


def _passed(route: Route, i: int, x: float, y: float) -> bool:
    px, py = route.points[i]
    fx, fy = route.forward[i]
    return (x - px) * fx + (y - py) * fy > 0


def route_progress(route: Route, positions: Sequence[tuple[float, float]]) -> tuple[list[float], list[int], int | None]:
    """RouteCompletionTest per frame: (completion %, last passed point, frame of success or None).

    atomic_criteria.py RouteCompletionTest.update: a point in [index, index + 2] is passed when
    (ego - point) . forward > 0; the value is the point's cumulative share rounded to 2 decimals; it becomes
    100 (success, the route ends) only when above 99 % and within 10 m of the last point.
    """
    perc = [100.0 * a / route.length for a in route.accum]
    goal = route.points[-1]
    index, value, success = 0, 0.0, None
    out_pct, out_idx = [], []
    for j, (x, y) in enumerate(positions):
        if success is None:
            for i in range(index, min(index + WINDOW + 1, len(route))):
                if _passed(route, i, x, y):
                    index, value = i, perc[i]
            value = round(value, 2)
            if value > PERCENT_THRESHOLD and math.hypot(x - goal[0], y - goal[1]) < GOAL_DISTANCE:
                success, value = j, 100.0
        out_pct.append(value)
        out_idx.append(index)
    return out_pct, out_idx, success


def _collision_key(kind: str) -> str | None:
    k = (kind or "").lower()
    if k in _STATIC or k.startswith("static"):
        return "collisions_layout"
    if k in _VEHICLES or k.startswith("vehicle"):
        return "collisions_vehicle"
    if k in _WALKERS:
        return "collisions_pedestrian"
    return None


def detect_collisions(ticks: Sequence[tuple[WorldState, ActorState]]) -> list[Violation]:
    """CollisionTest (atomic_criteria.py `_count_collisions` and `update`), in its order of checks.

    A contact is ignored when it is the last counted actor (its id is forgotten once more than 5 s have
    passed at an update), when the ego is within 5 m of the last counted contact (forgotten once more than
    5 m away), or when the ego is below 0.1 m/s. The map layout (id 0) is never remembered by id. A contact
    is remembered before it is classified, so an unclassified one still masks the next. Events of a tick
    are handled before that tick's update, as the sensor callback runs before the criteria tick.
    """
    out: list[Violation] = []
    last_id, last_time, last_loc = None, 0.0, None
    for st, ego in ticks:
        for ev in st.events:
            if ev.kind != "collision" or ego.id not in (ev.actor, ev.other):
                continue
            other = ev.other if ev.actor == ego.id else ev.actor
            kind = ev.data.get("other_kind") if ev.actor == ego.id else None
            if not kind:
                try:
                    kind = st.actor(other).kind if other else "static"
                except KeyError:
                    kind = "static"
            other = str(other) if other not in (None, "") else LAYOUT_ID
            if other == last_id:
                continue
            if last_loc is not None and math.hypot(ego.x - last_loc[0], ego.y - last_loc[1]) <= COLLISION_RADIUS:
                continue
            if abs(ego.speed) < EPSILON_SPEED:
                continue
            last_time, last_loc = st.time, (ego.x, ego.y)
            if other != LAYOUT_ID:
                last_id = other
            key = _collision_key(kind)
            if key is None:
                continue
            rel = float(ev.data.get("relative_speed", abs(ego.speed)))
            out.append(Violation(st.time, 0.0, rel, key,
                                 f"Agent collided against object with type={kind} and id={other} at {_at(ego)}",
                                 {"other": other, "other_kind": kind}))
        if last_loc is not None and math.hypot(ego.x - last_loc[0], ego.y - last_loc[1]) > COLLISION_RADIUS:
            last_loc = None
        if last_id is not None and st.time - last_time > MAX_ID_TIME:
            last_id = None
    return out


def _off_lanes(st: WorldState, e: ActorState, sides: dict[str, int]) -> bool:
    """Stand-in for CARLA's lane-centre distance and wrong-lane tests: no lane or an off_road event is outside;
    a lane of a route road on the other side of the centre line from the route's lane there is a wrong lane."""
    if e.lane is None or any(ev.kind == "off_road" and ev.actor == e.id for ev in st.events):
        return True
    if str(e.lane.road) in sides and e.lane.lane != 0:
        return (1 if e.lane.lane > 0 else -1) != sides[str(e.lane.road)]
    return False


def outside_lanes(ticks, route: Route, meta: dict, tick: float) -> Violation | None:
    """OutsideRouteLanesTest: route distance passed while outside the lanes or in a wrong lane, as % of that passed.

    atomic_criteria.py OutsideRouteLanesTest.update: points current+1 .. current+3 are checked each frame;
    each passed point adds its distance from the previous one, to the wrong distance as well when the ego
    is off. The factor uses the unrounded share; the message rounds metres to 3 and the share to 2 decimals.
    """
    sides = {str(ln.get("road")): 1 if int(ln.get("lane")) > 0 else -1
             for ln in (meta.get("route") or {}).get("lanes") or []}
    off = [_off_lanes(st, e, sides) for st, e in ticks]
    current, total, wrong, first = 0, 0.0, 0.0, None
    for i, x, y in frames(ticks, tick):
        for k in range(current + 1, min(current + LANES_WINDOW + 1, len(route))):
            if _passed(route, k, x, y):
                d = math.dist(route.points[current], route.points[k])
                total += d
                if off[i]:
                    wrong += d
                    first = ticks[i][0].time if first is None else first
                current = k
    if wrong <= 0:
        return None
    p = wrong / total * 100
    return Violation(first or 0.0, 0.0, p, "outside_route_lanes",
                     f"Agent went outside its route lanes for about {round(wrong, 3)} meters "
                     f"({round(p, 2)}% of the completed route)", {"percentage": p, "meters": wrong})


def penalty_of(v: Violation, min_speed_penalty: bool = True) -> float:
    """The factor one event multiplies the penalty by (statistics_manager.py PENALTY_VALUE_DICT, PENALTY_PERC_DICT)."""
    if v.kind in PENALTY:
        return PENALTY[v.kind]
    if v.kind == "min_speed_infractions":
        return 1 - (1 - 0.7) * (1 - v.worst / 100) if min_speed_penalty else 1.0
    if v.kind == "outside_route_lanes":
        return 1 - (1 - 0) * v.worst / 100
    return 1.0


def _route_end(ticks, pct, idx, route: Route, meta: dict, blocked_time: float, success_end: int | None,
               windows: Sequence[tuple[str, float, float | None]]):
    """First tick that ends the route and its event: completion, deviation, blocked or route timeout.

    ActorBlockedTest (atomic_criteria.py) fires once the speed has stayed below 0.1 m/s for more than
    blocked_time since the last tick at or above it; it is off while a blocking scenario's timeout runs
    (AC_SwitchActorBlockedTest), and each switch restarts its clock. RouteTimeoutBehavior (timer.py) adds
    1 / (0.1 * limit) s per metre passed; meta.scene.speed_limit stands in for CARLA's speed limit at the ego.
    """
    limit = float((meta.get("scene") or {}).get("speed_limit") or 50 / 3.6)
    timeout, prev_m = MIN_TIMEOUT, 0.0
    last_valid, far_m, active = None, 0.0, True
    for i, ((st, e), p, k) in enumerate(zip(ticks, pct, idx)):
        if success_end is not None and i >= success_end:
            return i, None
        m = route.accum[k]
        timeout += max(m - prev_m, 0.0) / (0.1 * limit)
        nxt = route.points[k: k + 6]
        dist = min(math.hypot(e.x - x, e.y - y) for x, y in nxt)
        if dist >= OFFROAD_MAX / 2:
            far_m += max(m - prev_m, 0.0)
        prev_m = max(prev_m, m)
        if dist >= OFFROAD_MAX or far_m > 0.3 * route.length:
            return i, Violation(st.time, 0.0, dist, "route_dev", f"Agent deviated from the route at {_at(e)}")
        running = any(s <= st.time < min(end if end is not None else math.inf, s + SCENARIO_TIMEOUT) for _, s, end in windows)
        if running == active:
            active, last_valid = not running, st.time
        if active:
            if abs(e.speed) < EPSILON_SPEED and last_valid is not None:
                if st.time - last_valid > blocked_time:
                    return i, Violation(last_valid, st.time - last_valid, abs(e.speed), "vehicle_blocked",
                                        f"Agent got blocked at {_at(e)}")
            else:
                last_valid = st.time
        if st.time > timeout:
            return i, Violation(st.time, 0.0, p, "route_timeout", "Route timeout.")
    return len(ticks) - 1, None


def evaluate(trace: Trace, meta: dict, reference: Trace | None = None, *, checkpoints: int = 4,
             blocked_time: float = 180.0, min_speed_penalty: bool = True,
             min_speed_all_events: bool = False) -> LeaderboardResult:
    """Leaderboard 2.0 figures of one run; Bench2Drive's fork is checkpoints=20, blocked_time=60,
    min_speed_penalty=False, min_speed_all_events=True."""
    ticks = ego_states(trace)
    notes: list[str] = []
    route = route_from_meta(meta)
    inf: dict[str, list[Violation]] = {k: [] for k in INFRACTION_KEYS}
    if not ticks:
        return LeaderboardResult(0.0, 1.0, 0.0, "Failed", {}, 0.0, 0.0, notes=("no ego in trace",))
    ms_values: list[float] = []
    if route is not None:
        fr = frames(ticks, trace.tick)
        f_pct, f_idx, success = route_progress(route, [(x, y) for _, x, y in fr])
        last = {i: j for j, (i, _, _) in enumerate(fr)}
        pct, idx = [f_pct[last[i]] for i in range(len(ticks))], [f_idx[last[i]] for i in range(len(ticks))]
        # the criteria Parallel returns SUCCESS on the frame after RouteCompletionTest succeeded
        success_end = None if success is None else fr[min(success + 1, len(fr) - 1)][0]
        windows = obstacle_windows(ticks, route)
        end, ev = _route_end(ticks, pct, idx, route, meta, blocked_time, success_end, windows)
        if ev is not None:
            inf[ev.kind].append(ev)
        ticks, pct, idx = ticks[: end + 1], pct[: end + 1], idx[: end + 1]
        rc = pct[-1]
        length = round(route.length, 3)
        ms_events, ms_values = leaderboard_min_speed(ticks, idx, route.accum, checkpoints, min_speed_all_events)
        inf["min_speed_infractions"] += ms_events
        off = outside_lanes(ticks, route, meta, trace.tick)
        if off:
            inf["outside_route_lanes"].append(off)
        inf["scenario_timeouts"] += scenario_timeouts(windows, ticks[-1][0].time)
    else:
        notes.append("no route in meta.json: completion is 100 when the run completed, else 0")
        rc = 100.0 if trace.termination == Termination.COMPLETED else 0.0
        length = 0.0
    last_state, last_ego = ticks[-1]
    ended = {Termination.ROUTE_DEVIATION: "route_dev", Termination.BLOCKED: "vehicle_blocked",
             Termination.TIMEOUT: "route_timeout"}.get(trace.termination)
    if ended and rc < 100.0 and not any(inf[k] for k in FAILURES):
        msg = {"route_dev": f"Agent deviated from the route at {_at(last_ego)}",
               "vehicle_blocked": f"Agent got blocked at {_at(last_ego)}", "route_timeout": "Route timeout."}[ended]
        inf[ended].append(Violation(last_state.time, 0.0, rc, ended, msg, {"reason": trace.reason}))
    for v in detect_collisions(ticks):
        inf[v.kind].append(v)
    inf["red_light"] += detect_red_lights(ticks, meta)
    inf["stop_infraction"] += detect_stops(ticks, meta)
    inf["yield_emergency_vehicle_infractions"] += yield_emergency(ticks)
    penalty = 1.0
    for vs in inf.values():
        for v in vs:
            penalty *= penalty_of(v, min_speed_penalty)
    composed = round(max(rc * penalty, 0.0), 6)
    if rc >= 100:
        status = "Completed" if any(inf[k] for k in INFRACTION_KEYS) else "Perfect"
    else:
        # statistics_manager.py sets the message per criterion in tree order, so the last one set wins
        fail = next((FAILURES[k] for k in ("vehicle_blocked", "route_dev", "route_timeout") if inf[k]), "")
        status = "Failed" + (f" - {fail}" if fail else "")
    return LeaderboardResult(round(rc, 6), round(penalty, 6), composed, status,
                             {k: tuple(v) for k, v in inf.items()}, length, last_state.time,
                             tuple(pct) if route is not None else (), tuple(notes), tuple(ms_values))


def aggregate_suite(records: Sequence[dict], total_routes: int) -> dict[str, Any]:
    """Suite figures as compute_global_statistics (statistics_manager.py).

    Means are over the planned routes (a route without a record adds 0), rounded to 6 digits; the
    standard deviation sums over the recorded routes only, around the rounded mean, divides by
    planned - 1 and rounds to 3; infractions per driven km round to 3, and outside_route_lanes is the
    km driven off lane, read from the first message's ninth word.
    """
    n = max(total_routes, len(records), 1)
    keys = ("score_composed", "score_route", "score_penalty")
    vals = {k: [float((r.get("scores") or {}).get(k) or 0.0) for r in records] for k in keys}
    mean = {k: round(sum(v / n for v in vals[k]), 6) for k in keys}
    if n == 1:
        std = {k: 0 for k in keys}
    else:
        std = {k: round(math.sqrt(sum((x - mean[k]) ** 2 for x in vals[k]) / float(n - 1)), 3) for k in keys}
    km = sum(float((r.get("meta") or {}).get("route_length") or 0.0) / 1000
             * float((r.get("scores") or {}).get("score_route") or 0.0) / 100 for r in records)
    km = max(km, 0.001)
    per_km: dict[str, float] = {}
    for k in INFRACTION_KEYS:
        if k == "outside_route_lanes":
            total = 0.0
            for r in records:
                msgs = (r.get("infractions") or {}).get(k) or []
                if msgs:
                    total += float(str(msgs[0]).split(" ")[8]) / 1000
            per_km[k] = round(total, 3)
        else:
            per_km[k] = round(sum(len((r.get("infractions") or {}).get(k, [])) for r in records) / km, 3)
    return {"scores_mean": mean, "scores_std_dev": std, "infractions_per_km": per_km, "km_driven": round(km, 6),
            "total_routes": n, "routes_recorded": len(records)}
