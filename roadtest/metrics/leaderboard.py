"""CARLA leaderboard 2.0 driving score: route completion, per-event infraction penalties, suite figures.

Detection follows scenario_runner's atomic_criteria (leaderboard-2.0 branch) on roadtest's WorldState
instead of CARLA sensors; where roadtest has no CARLA equivalent the function docstring says what
stands in. Factors multiply once per event, not per type (leaderboard statistics_manager.py).
The min-speed test departs from the leaderboard so that a rule-abiding driver is not charged; see min_speed.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from roadtest.metrics.base import Route, Violation, ego_states, route_from_meta, travel_direction
from roadtest.metrics.min_speed import detect_min_speed
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
    "detect_min_speed",
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
STOP_PROXIMITY = 4.0  # m
WINDOW = 2  # route points looked ahead per tick (RouteCompletionTest)
GOAL_DISTANCE = 10.0  # m
PERCENT_THRESHOLD = 99.0
OFFROAD_MAX = 30.0  # m (InRouteTest)
MIN_TIMEOUT = 300.0  # s (RouteTimeoutBehavior)
LINE_MATCH = 15.0  # m: a stop line this close to a light or stop sign is the one it governs
_VEHICLES = {"car", "truck", "bus", "emergency", "motorcycle", "bicycle", "van", "trailer", "vehicle"}
_WALKERS = {"pedestrian", "officer", "walker"}
_STATIC = {"static", "obstacle", "barrier", "cone", "prop", "traffic"}


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
    min_speed_checkpoints: tuple[float, ...] = ()  # % ego/background speed per checkpoint with data

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
    return f"(x={a.x:.1f}, y={a.y:.1f}, z={a.z:.1f})"


def route_progress(route: Route, egos: Sequence[ActorState]) -> tuple[list[float], list[int]]:
    """Route completion % and last passed point index per tick (RouteCompletionTest, 100 only near the goal).

    Departure for routes under 1 km, where "above 99 %" would mean passing a point closer than 10 m to
    the goal: 100 is also given within 10 m of the goal once less than 10 m of route is left.
    """
    total = route.length
    cur, pct, idx = 0, 0.0, -1
    out_pct, out_idx = [], []
    goal = route.points[-1]
    for e in egos:
        if pct < 100.0:
            for i in range(cur, min(cur + WINDOW + 1, len(route))):
                px, py = route.points[i]
                fx, fy = route.forward[i]
                if (e.x - px) * fx + (e.y - py) * fy > 0:
                    idx, cur = i, i
                    pct = round(100.0 * route.accum[i] / total, 2)
            left = total - (route.accum[idx] if idx >= 0 else 0.0)
            if (pct > PERCENT_THRESHOLD or left < GOAL_DISTANCE) and math.hypot(e.x - goal[0], e.y - goal[1]) < GOAL_DISTANCE:
                pct = 100.0
        out_pct.append(pct)
        out_idx.append(idx)
    return out_pct, out_idx


def _collision_key(kind: str) -> str | None:
    k = (kind or "").lower()
    if k in _WALKERS:
        return "collisions_pedestrian"
    if k in _VEHICLES or k.startswith("vehicle"):
        return "collisions_vehicle"
    if k in _STATIC or k.startswith("static"):
        return "collisions_layout"
    return None


def detect_collisions(ticks: Sequence[tuple[WorldState, ActorState]]) -> list[Violation]:
    """CollisionTest: same actor within 5 s, or within 5 m of the last counted one, or ego below 0.1 m/s: not counted."""
    out: list[Violation] = []
    last_id, last_time, last_loc = None, -math.inf, None
    for st, ego in ticks:
        if last_loc is not None and math.hypot(ego.x - last_loc[0], ego.y - last_loc[1]) > COLLISION_RADIUS:
            last_loc = None
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
            key = _collision_key(kind)
            if key is None:
                continue
            static = key == "collisions_layout"
            if not static and other == last_id and st.time < last_time + MAX_ID_TIME:
                continue
            if last_loc is not None:
                continue
            if abs(ego.speed) < EPSILON_SPEED:
                continue
            last_id, last_time, last_loc = other, st.time, (ego.x, ego.y)
            rel = float(ev.data.get("relative_speed", abs(ego.speed)))
            out.append(Violation(st.time, 0.0, rel, key,
                                 f"Agent collided against object with type={kind} and id={other} at {_at(ego)}",
                                 {"other": other, "other_kind": kind}))
    return out


def _stop_line(meta: dict, road: str, s: float) -> dict | None:
    best, best_d = None, LINE_MATCH
    for ln in (meta.get("scene") or {}).get("stop_lines") or []:
        if str(ln.get("road")) == str(road) and abs(float(ln["s"]) - s) <= best_d:
            best, best_d = ln, abs(float(ln["s"]) - s)
    return best


def _governed(item: dict, meta: dict) -> tuple[str, float, set[int] | None, int]:
    """(road, stop-line s, lanes or None for all, lane side +1/-1/0) of a light or stop sign."""
    road, s = str(item.get("road")), float(item.get("s", 0.0))
    line = _stop_line(meta, road, s)
    lanes = (line or {}).get("lanes") or item.get("lanes")
    t = float(item.get("t") or 0.0)
    return road, float(line["s"]) if line else s, {int(x) for x in lanes} if lanes else None, (t > 0) - (t < 0)


def _applies(lanes: set[int] | None, side: int, ego_lane: int) -> bool:
    if lanes is not None:
        return ego_lane in lanes
    return side == 0 or (ego_lane > 0) == (side > 0)


CARRY = 12.0  # m: how far past a road's end the ego's s on that road is extrapolated


def _positions(ticks: Sequence[tuple[WorldState, ActorState]], side: str) -> list[dict[str, tuple[int, float, int]]]:
    """Per tick {road: (lane, s, travel direction)}: the ego's lane, and, for CARRY m after it leaves a road, its s
    extrapolated along that road, so a stop line at a road's very end is still crossed by the rear."""
    out: list[dict[str, tuple[int, float, int]]] = []
    carried: dict[str, tuple[int, float, int, float]] = {}
    prev = None
    for _, e in ticks:
        step = math.hypot(e.x - prev.x, e.y - prev.y) if prev is not None else 0.0
        cur = {r: (ln, s + d * step, d, tr + step) for r, (ln, s, d, tr) in carried.items() if tr + step <= CARRY}
        if e.lane is not None:
            cur[str(e.lane.road)] = (e.lane.lane, e.lane.s, travel_direction(e.lane.lane, side), 0.0)
        carried, prev = cur, e
        out.append({r: v[:3] for r, v in cur.items()})
    return out


def detect_red_lights(ticks: Sequence[tuple[WorldState, ActorState]], meta: dict) -> list[Violation]:
    """RunningRedLightTest: the ego's rear crosses the light's stop line on its lane while the signal is red.

    Stands in for CARLA's trigger volume: the stop line is meta.scene.stop_lines' nearest line on the
    light's road (else the light's own s); the rear is the lane s minus half the length along travel.
    The light's state is WorldState.signals[signal_id] (the OpenDRIVE signal), else signals[id].
    """
    lights = (meta.get("scene") or {}).get("lights") or []
    pos = _positions(ticks, meta.get("driving_side", "right"))
    out: list[Violation] = []
    last = None
    for i in range(1, len(ticks)):
        st, e1 = ticks[i]
        length = e1.length
        for lt in lights:
            road, line, lanes, lside = _governed(lt, meta)
            if road not in pos[i - 1] or road not in pos[i]:
                continue
            (_, s0, _), (lane, s1, d) = pos[i - 1][road], pos[i][road]
            if not _applies(lanes, lside, lane):
                continue
            r0, r1 = s0 - d * length / 2, s1 - d * length / 2
            if not (d * (r0 - line) < 0 <= d * (r1 - line)):
                continue
            lid = str(lt.get("id"))
            state = st.signals.get(str(lt.get("signal_id")), st.signals.get(lid, ""))
            if str(state).lower().startswith("red") and last != lid:
                last = lid
                out.append(Violation(st.time, 0.0, abs(e1.speed), "red_light",
                                     f"Agent ran a red light {lid} at {_at(e1)}", {"light": lid}))
    return out


def _is_stop_sign(sign: dict) -> bool:
    for key in ("id", "type", "kind", "name"):
        v = str(sign.get(key) or "").lower()
        if v in ("stop", "stop_sign", "206") or (v.startswith("stop_") and v != "stop_line"):
            return True
    return False


def detect_stops(ticks: Sequence[tuple[WorldState, ActorState]], meta: dict) -> list[Violation]:
    """RunningStopTest: passing a stop line without the speed dropping below 0.1 m/s while the front is within 4 m of it."""
    signs = [s for s in (meta.get("scene") or {}).get("signs") or [] if _is_stop_sign(s)]
    pos = _positions(ticks, meta.get("driving_side", "right"))
    out: list[Violation] = []
    stopped = {i: False for i in range(len(signs))}
    closest = {i: math.inf for i in range(len(signs))}
    last = None
    for k in range(1, len(ticks)):
        st, e1 = ticks[k]
        half = e1.length / 2
        for i, sg in enumerate(signs):
            road, line, lanes, sside = _governed(sg, meta)
            if road not in pos[k - 1] or road not in pos[k]:
                continue
            (_, s0, _), (lane, s1, d) = pos[k - 1][road], pos[k][road]
            if not _applies(lanes, sside, lane):
                continue
            f0, f1 = d * (line - s0) - half, d * (line - s1) - half
            if f1 > STOP_PROXIMITY:
                stopped[i], closest[i] = False, math.inf
                continue
            if 0.0 <= f1 <= STOP_PROXIMITY:
                closest[i] = min(closest[i], abs(e1.speed))
                if abs(e1.speed) < EPSILON_SPEED:
                    stopped[i] = True
            if f0 >= 0.0 > f1:
                if not stopped[i] and last != i:
                    sid = str(sg.get("name") or sg.get("id"))
                    out.append(Violation(st.time, 0.0, min(closest[i], abs(e1.speed)), "stop_infraction",
                                         f"Agent ran a stop with id={sid} at {_at(e1)}", {"sign": i, "s": line}))
                    last = i
                stopped[i] = False
    return out


def _outside_lanes(ticks, progress_m: Sequence[float], meta: dict) -> Violation | None:
    """OutsideRouteLanesTest: route metres passed while off the driving lanes or against the route lane's direction.

    Stands in for CARLA's lane-centre distance: off-lane is a tick without a lane or with an off_road
    event; wrong-way is a lane of a route road on the other side of the centre line from the route's
    lane there. Another same-direction lane or another road (junction connectors overlap) is not counted.
    """
    sides: dict[str, int] = {}
    for ln in (meta.get("route") or {}).get("lanes") or []:
        sides[str(ln.get("road"))] = 1 if int(ln.get("lane")) > 0 else -1
    total = wrong = 0.0
    prev = 0.0
    first = None
    for (st, e), m in zip(ticks, progress_m):
        dm, prev = max(m - prev, 0.0), max(m, prev)
        off = e.lane is None or any(ev.kind == "off_road" and ev.actor == e.id for ev in st.events)
        if not off and str(e.lane.road) in sides and e.lane.lane != 0:
            off = (1 if e.lane.lane > 0 else -1) != sides[str(e.lane.road)]
        total += dm
        if off:
            wrong += dm
            if first is None and dm > 0:
                first = st.time
    if wrong <= 0 or total <= 0:
        return None
    p = round(100.0 * wrong / total, 2)
    return Violation(first or 0.0, 0.0, p, "outside_route_lanes",
                     f"Agent went outside its route lanes for about {wrong:.3f} meters ({p}% of the completed route)",
                     {"percentage": p, "meters": wrong})


def _yield_emergency(ticks) -> list[Violation]:
    """YieldToEmergencyVehicleTest: fails when, at the end, the ego is still ahead of a siren EV that came within 30 m behind it."""
    if not ticks:
        return []
    approached: set[str] = set()
    for st, e in ticks:
        for a in st.actors:
            if a.kind == "emergency" and a.siren:
                ahead = (e.x - a.x) * math.cos(a.h) + (e.y - a.y) * math.sin(a.h)
                if 0 < ahead and math.hypot(e.x - a.x, e.y - a.y) < OFFROAD_MAX:
                    approached.add(a.id)
    st, e = ticks[-1]
    out = []
    for a in st.actors:
        if a.id in approached and (e.x - a.x) * math.cos(a.h) + (e.y - a.y) * math.sin(a.h) > 0:
            out.append(Violation(st.time, 0.0, 0.0, "yield_emergency_vehicle_infractions",
                                 f"Agent failed to yield to an emergency vehicle {a.id}", {"other": a.id}))
    return out


def penalty_of(v: Violation, min_speed_penalty: bool = True) -> float:
    """The factor one event multiplies the penalty by."""
    if v.kind in PENALTY:
        return PENALTY[v.kind]
    if v.kind == "min_speed_infractions":
        return 0.7 + 0.3 * v.worst / 100.0 if min_speed_penalty else 1.0
    if v.kind == "outside_route_lanes":
        return 1.0 - v.worst / 100.0
    return 1.0


def _route_end(trace: Trace, ticks, pct, idx, route: Route, meta: dict, blocked_time: float):
    """First tick that ends the route and its event: completion, deviation, blocked or route timeout."""
    limit = float((meta.get("scene") or {}).get("speed_limit") or 50 / 3.6)
    timeout, prev_m = MIN_TIMEOUT, 0.0
    slow_since, far_m = None, 0.0
    for i, ((st, e), p, k) in enumerate(zip(ticks, pct, idx)):
        if p >= 100.0:
            return i, None
        m = route.accum[k] if k >= 0 else 0.0
        timeout += max(m - prev_m, 0.0) / (0.1 * limit)
        nxt = route.points[max(k, 0): max(k, 0) + 6]
        dist = min(math.hypot(e.x - x, e.y - y) for x, y in nxt)
        if dist >= OFFROAD_MAX / 2:
            far_m += max(m - prev_m, 0.0)
        prev_m = max(prev_m, m)
        if dist >= OFFROAD_MAX or far_m > 0.3 * route.length:
            return i, Violation(st.time, 0.0, dist, "route_dev", f"Agent deviated from the route at {_at(e)}")
        if abs(e.speed) < EPSILON_SPEED:
            slow_since = st.time if slow_since is None else slow_since
            if st.time - slow_since > blocked_time:
                return i, Violation(slow_since, st.time - slow_since, abs(e.speed), "vehicle_blocked",
                                    f"Agent got blocked at {_at(e)}")
        else:
            slow_since = None
        if st.time > timeout:
            return i, Violation(st.time, 0.0, p, "route_timeout", "Route timeout.")
    return len(ticks) - 1, None


def evaluate(trace: Trace, meta: dict, reference: Trace | None = None, *, checkpoints: int = 4,
             blocked_time: float = 180.0, min_speed_penalty: bool = True,
             min_speed_excuses: bool = True) -> LeaderboardResult:
    """Leaderboard 2.0 figures of one run; Bench2Drive's fork is checkpoints=20, blocked_time=60, min_speed_penalty=False.

    min_speed_excuses: leave out min-speed ticks behind a lead or at the limit in force (roadtest/metrics/min_speed.py).
    """
    ticks = ego_states(trace)
    notes: list[str] = []
    route = route_from_meta(meta)
    inf: dict[str, list[Violation]] = {k: [] for k in INFRACTION_KEYS}
    if not ticks:
        return LeaderboardResult(0.0, 1.0, 0.0, "Failed - no ego in trace", {}, 0.0, 0.0, notes=("no ego in trace",))
    if route is not None:
        pct, idx = route_progress(route, [e for _, e in ticks])
        end, ev = _route_end(trace, ticks, pct, idx, route, meta, blocked_time)
        if ev is not None:
            inf[ev.kind].append(ev)
        ticks, pct, idx = ticks[: end + 1], pct[: end + 1], idx[: end + 1]
        progress_m = [route.accum[k] if k >= 0 else 0.0 for k in idx]
        length = route.length
        rc = pct[-1]
    else:
        notes.append("no route in meta.json: completion is 100 when the run completed, else 0")
        rc = 100.0 if trace.termination == Termination.COMPLETED else 0.0
        pct, progress_m, length = [rc] * len(ticks), [0.0] * len(ticks), 0.0
    last_state, last_ego = ticks[-1]
    ended = {Termination.ROUTE_DEVIATION: "route_dev", Termination.BLOCKED: "vehicle_blocked",
             Termination.TIMEOUT: "route_timeout"}.get(trace.termination)
    if ended and rc < 100.0 and not any(inf[k] for k in ("route_dev", "vehicle_blocked", "route_timeout")):
        msg = {"route_dev": f"Agent deviated from the route at {_at(last_ego)}",
               "vehicle_blocked": f"Agent got blocked at {_at(last_ego)}", "route_timeout": "Route timeout."}[ended]
        inf[ended].append(Violation(last_state.time, 0.0, rc, ended, msg, {"reason": trace.reason}))
    for v in detect_collisions(ticks):
        inf[v.kind].append(v)
    inf["red_light"] += detect_red_lights(ticks, meta)
    inf["stop_infraction"] += detect_stops(ticks, meta)
    ms_events, ms_values = detect_min_speed(ticks, pct, checkpoints, meta, min_speed_excuses) if route else ([], [])
    inf["min_speed_infractions"] += ms_events
    if route is not None:
        off = _outside_lanes(ticks, progress_m, meta)
        if off:
            inf["outside_route_lanes"].append(off)
    inf["yield_emergency_vehicle_infractions"] += _yield_emergency(ticks)
    for st, _ in ticks:
        for ev in st.events:
            if ev.kind == "scenario_timeout":
                inf["scenario_timeouts"].append(Violation(st.time, 0.0, 0.0, "scenario_timeouts",
                                                          "Agent timed out a scenario", dict(ev.data)))
    penalty = 1.0
    for vs in inf.values():
        for v in vs:
            penalty *= penalty_of(v, min_speed_penalty)
    penalty = round(penalty, 6)
    composed = round(max(rc * penalty, 0.0), 6)
    any_inf = any(inf[k] for k in INFRACTION_KEYS)
    if rc >= 100.0:
        status = "Completed" if any_inf else "Perfect"
    else:
        fail = next((v.description for k in ("route_dev", "vehicle_blocked", "route_timeout") for v in inf[k]), "")
        status = "Failed" + (f" - {fail}" if fail else "")
    return LeaderboardResult(round(rc, 6), penalty, composed, status,
                             {k: tuple(v) for k, v in inf.items()}, length, last_state.time,
                             tuple(pct), tuple(notes), tuple(ms_values))


def aggregate_suite(records: Sequence[dict], total_routes: int) -> dict[str, Any]:
    """Suite figures as compute_global_statistics: means over planned routes (missing = 0), infractions per km."""
    n = max(total_routes, len(records), 1)
    keys = ("score_composed", "score_route", "score_penalty")
    vals = {k: [float((r.get("scores") or {}).get(k) or 0.0) for r in records] for k in keys}
    mean = {k: sum(vals[k]) / n for k in keys}
    std = {}
    for k in keys:
        full = vals[k] + [0.0] * (n - len(records))
        std[k] = math.sqrt(sum((x - mean[k]) ** 2 for x in full) / (n - 1)) if n > 1 else 0.0
    km = max(sum(float((r.get("meta") or {}).get("route_length") or 0.0) / 1000.0
                 * float((r.get("scores") or {}).get("score_route") or 0.0) / 100.0 for r in records), 0.001)
    per_km: dict[str, float] = {}
    for k in INFRACTION_KEYS:
        if k == "outside_route_lanes":
            metres = 0.0
            for r in records:
                for msg in (r.get("infractions") or {}).get(k, []):
                    try:
                        metres += float(str(msg).split(" ")[8])
                    except (IndexError, ValueError):
                        pass
            per_km[k] = round(metres / 1000.0, 3)
        else:
            count = sum(len((r.get("infractions") or {}).get(k, [])) for r in records)
            per_km[k] = round(count / km, 3)
    return {"scores_mean": {k: round(v, 6) for k, v in mean.items()},
            "scores_std_dev": {k: round(v, 6) for k, v in std.items()},
            "infractions_per_km": per_km, "km_driven": round(km, 6), "total_routes": n, "routes_recorded": len(records)}
