"""One extraction of per-tick rule signals from a Trace and its meta.json; every monitor reads these.

Discrete facts are ±1 (+1 true), margins are in SI units. "Front" is the ego's front bumper along
its direction of travel; distances along the road are measured on the ego's road from lane s, so
scene features (meta.scene) on the ego's road are found without a map. Features whose `road`
differs from the ego's current road are ignored; a feature without `road` matches any road.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from roadtest.limits import scene_limits, sign_limit
from roadtest.sim.api import ActorState, Trace, WorldState
from roadtest.sim.route_path import wrap_angle
from roadtest.units import speed_si

__all__ = ["VOCABULARY", "NONE", "Signals", "extract_signals", "STOP_ZONE", "LINE_MATCH"]

NONE = 1000.0  # value of a distance/time/speed signal when there is nothing to measure
STOP_ZONE = 4.0  # m before a stop line where a stop counts (scenario_runner RunningStopTest)
LINE_MATCH = 15.0  # m: a stop line this close to a light or sign is the one it governs
STOPPED = 0.1  # m/s
LEAD_RANGE = 200.0  # m
EV_RANGE = 30.0  # m behind the ego that counts as blocking an emergency vehicle
SAME_LANE = 1.75  # m lateral offset (ego frame) that counts as the same lane when lane ids are unknown
PATH_HALF = 3.0  # m lateral from the ego's centre line that counts as "in the ego's path" for pedestrians
REASON_LEAD = 15.0  # m: a stopped lead this close is a reason to stand still
REASON_LINE = 8.0  # m: a stop line, red light or give-way line this close is a reason
REASON_CROSSWALK = 20.0  # m
TASK_REACH = 40.0  # m past an asked stop's spot (a no-stopping zone's length moves it) where standing serves that stop
PASS_AHEAD, PASS_BEHIND = 40.0, 15.0  # m between bumpers: a road user going the ego's way this close is being passed
VRUS = frozenset({"pedestrian", "bicycle", "officer", "police_officer", "walker", "cyclist"})
NON_VEHICLES = VRUS | frozenset({"static", "cone", "barrier", "prop"})

VOCABULARY: dict[str, tuple[str, str]] = {
    "ego_speed": ("m/s", "ego speed along its heading"),
    "ego_accel": ("m/s^2", "ego longitudinal acceleration"),
    "speed_limit": ("m/s", "limit in force: road limit, last speed sign passed, zone limit (min); NONE if unknown"),
    "limit_in_force": ("m/s", "roadtest.limits: speed_limit lowered by the caps of the scene's rules (fog, night, "
                              "school and work zones) in force now; NONE if unknown"),
    "zone_speed_limit": ("m/s", "limit of the zone the ego is in; NONE outside or when the zone has none"),
    "visibility": ("m", "fog visual range"),
    "night": ("±1", "sun below the horizon"),
    "in_tunnel": ("±1", "ego centre inside a tunnel zone"),
    "in_school_zone": ("±1", "ego centre inside a school zone"),
    "in_work_zone": ("±1", "ego centre inside a work zone"),
    "lane_change": ("±1", "ego lane id changed this tick on the same road"),
    "solid_crossing": ("±1", "ego crossed a marking it may not cross this tick (lane_invasion allowed=false)"),
    "stop_crossed": ("±1", "ego front crossed a stop-sign line this tick"),
    "stop_sign_ahead": ("±1", "a stop-sign line ahead on the ego's road, or crossed this tick"),
    "stop_zone_min_speed": ("m/s", "lowest speed within STOP_ZONE before the next stop-sign line; NONE before the zone"),
    "light_crossed": ("±1", "ego front crossed a traffic light's stop line this tick"),
    "light_ahead": ("±1", "a traffic light's stop line ahead on the ego's road, or crossed this tick"),
    "light_red": ("±1", "the light just crossed, else the next ahead, shows red (or red-yellow)"),
    "light_yellow": ("±1", "the same light shows yellow"),
    "light_dist": ("m", "front to the next light's stop line; NONE when none ahead"),
    "yellow_onset_dist": ("m", "front to that line when its light turned yellow (latched while yellow)"),
    "yellow_onset_speed": ("m/s", "ego speed when it turned yellow (latched while yellow)"),
    "line_crossed": ("±1", "ego front crossed any stop line (sign, light or plain) this tick"),
    "officer_stop": ("±1", "an officer signals stop (WorldState.signals[officer id] in stop/red)"),
    "officer_go": ("±1", "an officer signals go"),
    "officer_go_wait": ("s", "how long the ego has stood still while an officer signals go, with no reason to but a "
                             "light (lead, stop sign, line, pedestrian, EV, goal)"),
    "has_lead": ("±1", "a vehicle ahead in the ego's lane within LEAD_RANGE"),
    "lead_gap": ("m", "bumper-to-bumper gap to it; NONE without one"),
    "lead_speed": ("m/s", "its speed along the ego's heading"),
    "closing_speed": ("m/s", "ego speed minus lead speed; 0 without a lead"),
    "ped_on_crosswalk": ("±1", "a pedestrian within the next crosswalk's span and within PATH_HALF of the ego's path"),
    "crosswalk_dist": ("m", "front to the start of the next crosswalk not yet cleared; negative while on it; NONE"),
    "ev_behind": ("±1", "an emergency vehicle with siren within EV_RANGE behind in the ego's lane"),
    "ev_blocked_time": ("s", "how long it has been so, reset when it is not"),
    "unreasoned_stop_time": ("s", "how long the ego has stood still with no reason (lead, line, light, pedestrian, EV, goal, "
                                  "or a stop the route asks for within TASK_REACH past its spot, but never in a no-stopping zone)"),
    "in_no_stopping": ("±1", "some part of the ego inside a no-stopping zone"),
    "junction_entered": ("±1", "ego front crossed a give-way line, or entered a junction's road this tick (any new road "
                               "when meta.map has no junction_roads)"),
    "cross_tta": ("s", "at that tick, least time for crossing traffic to reach the ego; NONE otherwise"),
    "lane_change_rear_gap": ("s", "at a lane change, least time gap of a vehicle behind in the new lane; NONE otherwise"),
    "vru_lat_gap": ("m", "least lateral clearance to a moving pedestrian or cyclist alongside; NONE"),
    "vru_alongside": ("±1", "a moving pedestrian or cyclist alongside (vru_lat_gap is measured)"),
    "opposite_side": ("±1", "ego moving against its lane's direction of traffic (country's driving side), not while "
                            "passing a road user going its way or standing (PASS_AHEAD ahead to PASS_BEHIND behind, on its kerb side)"),
    "entered_no_entry": ("±1", "ego front passed a no-entry sign this tick"),
    "no_entry_ahead": ("±1", "a no-entry sign ahead on the ego's road or on a road its route (meta.route.lanes) leads to, or passed this tick"),
    "u_turn": ("±1", "ego moving against its initial direction of travel on its starting road"),
    "collision_vru": ("±1", "ego, moving, collided with a pedestrian or cyclist this tick"),
    "collision_vehicle": ("±1", "ego, moving, collided with a vehicle this tick"),
}


@dataclass
class Signals:
    """Per-tick signal series (index-aligned with trace.states that have an ego) and the tick."""

    time: list[float]
    tick: float
    values: dict[str, list[float]] = field(default_factory=dict)

    def __getitem__(self, name: str) -> list[float]:
        return self.values[name]

    def __len__(self) -> int:
        return len(self.time)


def _b(x: bool) -> float:
    return 1.0 if x else -1.0


def _kind(d: Mapping[str, Any]) -> str:
    return str(d.get("kind") or d.get("type") or d.get("id") or "").lower()


def _is_stop_sign(sg: Mapping[str, Any]) -> bool:
    k = _kind(sg)
    return k in ("stop", "stop_sign", "206") or (k.startswith("stop_") and k != "stop_line")


def _is_give_way(sg: Mapping[str, Any]) -> bool:
    k = _kind(sg)
    return k in ("give_way", "yield", "205") or k.startswith("give_way") or k.startswith("yield")


def _road_ok(feature: Mapping[str, Any], road: str) -> bool:
    r = feature.get("road")
    return r is None or str(r) == road


def _line_for(item: Mapping[str, Any], lines: Sequence[Mapping[str, Any]]) -> tuple[Any, float]:
    """(road, s) of the stop line governing a light or sign: the nearest line within LINE_MATCH, else its own s."""
    s = float(item.get("s", 0.0))
    best, best_d = None, LINE_MATCH
    for ln in lines:
        if (item.get("road") is None or ln.get("road") is None or str(ln.get("road")) == str(item.get("road"))) \
                and abs(float(ln["s"]) - s) <= best_d:
            best, best_d = ln, abs(float(ln["s"]) - s)
    return item.get("road"), float(best["s"]) if best else s


def _travel_dir(lane: int, side: str) -> int:
    return 1 if ((lane < 0) if side != "left" else (lane > 0)) else -1


def _ego_frame(e: ActorState, o: ActorState) -> tuple[float, float]:
    dx, dy = o.x - e.x, o.y - e.y
    c, s = math.cos(e.h), math.sin(e.h)
    return c * dx + s * dy, -s * dx + c * dy


class _Scene:
    """meta.scene features resolved once: lines by role, zones, crosswalks, signs."""

    def __init__(self, meta: Mapping[str, Any]):
        sc = meta.get("scene") or {}
        self.road_limit = float(sc["speed_limit"]) if sc.get("speed_limit") else None
        lines = list(sc.get("stop_lines") or [])
        signs = list(sc.get("signs") or [])
        every_light = [(str(lt.get("id")), *_line_for(lt, lines)) for lt in sc.get("lights") or []]
        # a light governs only traffic driving the way of the lanes it faces (an arm's incoming lanes; none listed:
        # either way), whichever lane the ego is in, and a turn arrow only an ego whose route takes that turn
        # (meta.route.exit; unknown: every head counts)
        exit_ = (meta.get("route") or {}).get("exit")
        self.lights = [light for light, lt in zip(every_light, sc.get("lights") or [])
                       if lt.get("turn") in (None, "all") or exit_ is None or lt.get("turn") == exit_]
        side = str(meta.get("driving_side") or "right")
        self.light_dir = {str(lt.get("id")): _travel_dir(int(lt["lanes"][0]), side) if lt.get("lanes") else 0
                          for lt in sc.get("lights") or []}
        # WorldState.signals is keyed by the OpenDRIVE signal id where the bundle has one, else by the light id
        self.light_keys = {str(lt.get("id")): [str(k) for k in (lt.get("signal_id"), lt.get("id")) if k is not None]
                           for lt in sc.get("lights") or []}
        self.stop_lines = [_line_for(sg, lines) for sg in signs if _is_stop_sign(sg)]
        # a give-way sign governs traffic moving the way it faces along its road (+1 with s, -1 against, 0 unknown)
        self.give_way_dir = [{"forward": 1, "backward": -1}.get(str(sg.get("direction")), 0) for sg in signs if _is_give_way(sg)]
        self.give_way = [_line_for(sg, lines) for sg in signs if _is_give_way(sg)]
        taken = {(str(r), round(s, 3)) for _, r, s in every_light} | {(str(r), round(s, 3)) for r, s in self.stop_lines}
        self.plain_lines = [(ln.get("road"), float(ln["s"])) for ln in lines
                            if (str(ln.get("road")), round(float(ln["s"]), 3)) not in taken]
        self.limit_signs = [(sg.get("road"), float(sg.get("s", 0.0)), v) for sg in signs if (v := sign_limit(sg)) is not None]
        self.no_entry = [(sg.get("road"), float(sg.get("s", 0.0))) for sg in signs if "no_entry" in _kind(sg) or _kind(sg) == "267"]
        self.zones = [dict(z) for z in sc.get("zones") or []]
        self.crosswalks = [(cw.get("road"), float(cw["s_start"]), float(cw["s_end"])) for cw in sc.get("crosswalks") or []]
        legs = (meta.get("route") or {}).get("lanes") or []
        self.route_legs = [(str(lg.get("road")), float(lg.get("s_start", 0.0)), float(lg.get("s_end", 0.0))) for lg in legs]
        self.task_stops = [(st.get("road"), float(st.get("s", 0.0))) for st in (meta.get("route") or {}).get("stops") or []]
        self.officers = [str(a.get("id")) for a in sc.get("actors") or [] if "officer" in str(a.get("kind", ""))]
        roads = (meta.get("map") or {}).get("junction_roads")
        self.junction_roads = None if roads is None else {str(r) for r in roads}  # None: unknown, any new road counts

    def light_state(self, signals: Mapping[str, str], light_id: str | None) -> str:
        """The state of a light, looked up by signal id, then light id; "" when unknown."""
        for k in self.light_keys.get(light_id or "", []):
            if k in signals:
                return str(signals[k]).lower()
        return ""


def _crossed(line_s: float, f0: float, f1: float, d: int) -> bool:
    return d * (line_s - f0) > 0 >= d * (line_s - f1)


def extract_signals(trace: Trace, meta: Mapping[str, Any] | None = None) -> Signals:
    """Every VOCABULARY signal for every tick with an ego; a pure function of (trace, meta)."""
    meta = meta or {}
    side = str(meta.get("driving_side") or "right")
    sc = _Scene(meta)
    limits = scene_limits(meta)
    ticks: list[tuple[WorldState, ActorState]] = [(st, st.ego) for st in trace.states if st.ego is not None]
    out: dict[str, list[float]] = {k: [] for k in VOCABULARY}
    times = [st.time for st, _ in ticks]
    prev: ActorState | None = None
    motion_dir, first_dir, start_road = 0, 0, None
    stop_min = NONE
    ev_time = idle_time = go_wait = 0.0
    light_prev_state: dict[str, str] = {}
    yellow_latch: dict[str, tuple[float, float]] = {}
    limit_sign: float | None = None
    goal_seen = False
    leg = 0
    for st, e in ticks:
        v = {k: -1.0 for k in VOCABULARY}
        ln = e.lane
        road = str(ln.road) if ln else ""
        if ln is not None and prev is not None and prev.lane is not None and str(prev.lane.road) == road:
            ds = ln.s - prev.lane.s
            if abs(ds) > 1e-4:
                motion_dir = 1 if ds > 0 else -1
        d = motion_dir or (_travel_dir(ln.lane, side) if ln else 1)
        if ln is not None and start_road is None:
            start_road = road
        if motion_dir and not first_dir and road == start_road:
            first_dir = motion_dir
        s_c = ln.s if ln else 0.0
        front = s_c + d * e.length / 2
        same_prev = prev is not None and prev.lane is not None and ln is not None and str(prev.lane.road) == road
        front0 = (prev.lane.s + d * prev.length / 2) if same_prev else front
        v["ego_speed"], v["ego_accel"] = e.speed, e.ax
        v["visibility"] = st.environment.fog_visual_range
        v["night"] = _b(st.environment.sun_elevation < 0.0)
        # zones and limits
        zone_limit = NONE
        for z in sc.zones:
            if z.get("kind") == "no_stopping" and ln is not None and _road_ok(z, road) and \
                    float(z.get("s_start", 0)) < s_c + e.length / 2 and s_c - e.length / 2 < float(z.get("s_end", 0)):
                v["in_no_stopping"] = 1.0
            if ln is not None and _road_ok(z, road) and float(z.get("s_start", 0)) <= s_c <= float(z.get("s_end", 0)):
                k = str(z.get("kind"))
                if k in ("tunnel", "school_zone", "work_zone"):
                    v["in_" + k] = 1.0
                if z.get("speed_limit"):
                    zone_limit = min(zone_limit, float(z["speed_limit"]))
        for r, s, lim in sc.limit_signs:
            if same_prev and _road_ok({"road": r}, road) and _crossed(s, front0, front, d):
                limit_sign = lim
        here = limits.in_force(road if ln is not None else None, s_c, d, st.environment, passed=limit_sign)
        v["speed_limit"], v["zone_speed_limit"] = NONE if here.posted is None else here.posted, zone_limit
        v["limit_in_force"] = NONE if here.value is None else here.value
        # lane changes and markings
        v["lane_change"] = _b(same_prev and prev.lane.lane != ln.lane)
        v["solid_crossing"] = _b(any(ev.kind == "lane_invasion" and ev.actor == e.id and (
            ev.data.get("allowed") is False or ("allowed" not in ev.data and "solid" in str(ev.data.get("type", ""))))
            for ev in st.events))
        # stop-sign lines
        ahead = [s for r, s in sc.stop_lines if _road_ok({"road": r}, road) and d * (s - front0) > 0]
        v["stop_zone_min_speed"] = NONE
        crossed_stop = same_prev and any(_crossed(s, front0, front, d) for r, s in sc.stop_lines if _road_ok({"road": r}, road))
        if ahead or crossed_stop:
            nxt = min(ahead, key=lambda s: d * (s - front0)) if ahead else None
            if nxt is not None and 0.0 <= d * (nxt - front) <= STOP_ZONE or crossed_stop:
                stop_min = min(stop_min, abs(e.speed))
            v["stop_zone_min_speed"] = stop_min
        v["stop_crossed"] = _b(crossed_stop)
        v["stop_sign_ahead"] = _b(bool(ahead) or crossed_stop)
        if crossed_stop:
            stop_min = NONE
        # lights
        cur_light, cur_dist, crossed_light = None, NONE, False
        for lid, r, s in sc.lights:
            if not _road_ok({"road": r}, road) or sc.light_dir[lid] not in (0, d):
                continue
            if same_prev and _crossed(s, front0, front, d):
                cur_light, cur_dist, crossed_light = lid, d * (s - front), True
                break
            dist = d * (s - front)
            if 0 <= dist < cur_dist:
                cur_light, cur_dist = lid, dist
        for lid, r, s in sc.lights:
            state = sc.light_state(st.signals, lid)
            if state == "yellow" and (light_prev_state.get(lid) != "yellow" or lid not in yellow_latch):
                yellow_latch[lid] = (d * (s - front), abs(e.speed))
            elif state != "yellow":
                yellow_latch.pop(lid, None)
            light_prev_state[lid] = state
        state = sc.light_state(st.signals, cur_light)
        v["light_crossed"] = _b(crossed_light)
        v["light_ahead"] = _b(cur_light is not None)
        v["light_red"] = _b(state.startswith("red"))
        v["light_yellow"] = _b(state in ("yellow", "amber"))
        v["light_dist"] = cur_dist if cur_light else NONE
        v["yellow_onset_dist"], v["yellow_onset_speed"] = yellow_latch.get(cur_light, (NONE, 0.0)) if cur_light else (NONE, 0.0)
        plain_crossed = same_prev and any(_crossed(s, front0, front, d) for r, s in sc.plain_lines if _road_ok({"road": r}, road))
        v["line_crossed"] = _b(crossed_stop or crossed_light or plain_crossed)
        off = [str(st.signals.get(o, "")).lower() for o in sc.officers] + [str(st.signals.get("officer", "")).lower()]
        v["officer_stop"] = _b(any(x in ("stop", "red") for x in off))
        v["officer_go"] = _b(any(x in ("go", "green", "proceed") for x in off))
        # other actors
        lead_gap, lead_speed, ev_behind, vru_gap, ped_cw = NONE, 0.0, False, NONE, False
        cw_dist, cw_span = NONE, None
        for r, a, b in sc.crosswalks:
            if not _road_ok({"road": r}, road) or ln is None:
                continue
            near_edge, far_edge = (a, b) if d > 0 else (b, a)
            rear = s_c - d * e.length / 2
            if d * (far_edge - rear) < 0:
                continue  # cleared
            dist = d * (near_edge - front)
            if dist < cw_dist:
                cw_dist, cw_span = dist, (min(a, b), max(a, b))
        for o in st.actors:
            if o.id == e.id:
                continue
            fx, fy = _ego_frame(e, o)
            kind = o.kind.lower()
            if o.lane is not None and ln is not None and str(o.lane.road) == road:
                same = o.lane.lane == ln.lane
                along = d * (o.lane.s - s_c)
            else:
                same, along = abs(fy) < SAME_LANE, fx
            gap = abs(along) - (e.length + o.length) / 2
            if kind in VRUS:
                if cw_span is not None and abs(fy) <= PATH_HALF + o.width / 2 and kind != "bicycle":
                    ps = s_c + d * fx
                    if cw_span[0] - 0.5 <= ps <= cw_span[1] + 0.5:
                        ped_cw = True
                dh = abs(wrap_angle(o.h - e.h))
                if abs(o.speed) > 0.5 and (dh < math.pi / 4) and abs(fx) <= (e.length + o.length) / 2:
                    vru_gap = min(vru_gap, abs(fy) - (e.width + o.width) / 2)
                continue
            if kind in NON_VEHICLES:
                continue
            if same and along > 0 and gap < LEAD_RANGE and gap < lead_gap:
                lead_gap, lead_speed = gap, o.speed * math.cos(wrap_angle(o.h - e.h))
            if same and along < 0 and kind == "emergency" and o.siren and gap <= EV_RANGE:
                ev_behind = True
        v["has_lead"] = _b(lead_gap < NONE)
        v["lead_gap"], v["lead_speed"] = lead_gap, lead_speed if lead_gap < NONE else 0.0
        v["closing_speed"] = e.speed - lead_speed if lead_gap < NONE else 0.0
        v["ped_on_crosswalk"], v["crosswalk_dist"] = _b(ped_cw), cw_dist
        v["vru_lat_gap"] = vru_gap
        v["vru_alongside"] = _b(vru_gap < NONE)
        ev_time = ev_time + trace.tick if ev_behind else 0.0
        v["ev_behind"], v["ev_blocked_time"] = _b(ev_behind), ev_time
        # junction entry and lane-change gaps
        gw_crossed = same_prev and any(_crossed(s, front0, front, d) for (r, s), gd in zip(sc.give_way, sc.give_way_dir)
                                       if _road_ok({"road": r}, road) and gd in (0, d))
        new_road = prev is not None and prev.lane is not None and ln is not None and not same_prev and (
            sc.junction_roads is None or road in sc.junction_roads)  # leaving a junction onto its exit arm is no entry
        entered = gw_crossed or plain_crossed or (new_road and not sc.give_way and not sc.plain_lines)
        v["junction_entered"] = _b(entered)
        v["cross_tta"] = _cross_tta(st, e) if entered else NONE
        v["lane_change_rear_gap"] = _rear_gap(st, e, ln) if v["lane_change"] > 0 else NONE
        # direction
        moving = abs(e.speed) > 0.5
        against = ln is not None and moving and motion_dir != 0 and motion_dir != _travel_dir(ln.lane, side)
        v["opposite_side"] = _b(against and not _passing(st, e, side))
        v["u_turn"] = _b(moving and first_dir != 0 and road == start_road and motion_dir == -first_dir)
        v["entered_no_entry"] = _b(same_prev and any(_crossed(s, front0, front, d) for r, s in sc.no_entry if _road_ok({"road": r}, road)))
        while leg + 1 < len(sc.route_legs) and sc.route_legs[leg][0] != road and road in [lg[0] for lg in sc.route_legs[leg + 1:]]:
            leg += 1  # the route leg the ego is on
        v["no_entry_ahead"] = _b(v["entered_no_entry"] > 0 or any(
            _road_ok({"road": r}, road) and d * (s - front) > 0 for r, s in sc.no_entry) or any(
            str(r) == lr and min(a, b) <= s <= max(a, b) for r, s in sc.no_entry for lr, a, b in sc.route_legs[leg + 1:]))
        # collisions
        for ev in st.events:
            if ev.kind == "goal_reached":
                goal_seen = True
            if ev.kind != "collision" or e.id not in (ev.actor, ev.other) or abs(e.speed) < STOPPED:
                continue
            other = ev.other if ev.actor == e.id else ev.actor
            k = str(ev.data.get("other_kind") or "") if ev.actor == e.id else ""
            if not k:
                k = next((a.kind for a in st.actors if a.id == other), "static")
            if k.lower() in VRUS:
                v["collision_vru"] = 1.0
            elif k.lower() not in NON_VEHICLES:
                v["collision_vehicle"] = 1.0
        # standing still without reason
        not_light = (goal_seen or ev_behind or ped_cw and cw_dist < REASON_CROSSWALK
                     or lead_gap < REASON_LEAD
                     or (v["stop_zone_min_speed"] < NONE and ahead and min(d * (s - front) for s in ahead) < REASON_LINE)
                     or any(-2.0 < d * (s - front) < REASON_LINE for r, s in sc.give_way + sc.plain_lines)
                     or v["in_no_stopping"] < 0 and any(_road_ok({"road": r}, road) and -REASON_LINE <= d * (s_c - s) <= TASK_REACH
                                                        for r, s in sc.task_stops))
        reason = (not_light or (cur_light is not None and cur_dist < REASON_LINE and not state.startswith("green"))
                  or v["officer_stop"] > 0)
        still = abs(e.speed) < STOPPED
        idle_time = idle_time + trace.tick if still and not reason else 0.0
        v["unreasoned_stop_time"] = idle_time
        go_wait = go_wait + trace.tick if still and v["officer_go"] > 0 and not not_light else 0.0
        v["officer_go_wait"] = go_wait
        for k in VOCABULARY:
            out[k].append(float(v[k]))
        prev = e
    return Signals(time=times, tick=trace.tick, values=out)


def _passing(st: WorldState, e: ActorState, side: str) -> bool:
    """Whether the ego is passing a road user that goes its way or stands: one on its kerb side, within PASS_AHEAD
    ahead to PASS_BEHIND behind (bumper to bumper), a lane or so across (an overtake may use the oncoming lanes)."""
    kerb = -1.0 if side != "left" else 1.0  # the passed road user is on the ego's right in right-hand traffic
    for o in st.actors:
        if o.id == e.id or abs(o.speed) > 0.5 and abs(wrap_angle(o.h - e.h)) > math.pi / 4:
            continue  # an oncoming or crossing road user is not passed (one standing still is, whatever its heading)
        fx, fy = _ego_frame(e, o)
        reach = (e.length + o.length) / 2
        if -reach - PASS_BEHIND <= fx <= reach + PASS_AHEAD and 1.0 <= kerb * fy <= 6.0:
            return True
    return False


def _cross_tta(st: WorldState, e: ActorState) -> float:
    """Least time for a moving crossing vehicle heading toward the ego to reach it."""
    best = NONE
    for o in st.actors:
        if o.id == e.id or o.kind.lower() in NON_VEHICLES or abs(o.speed) < 0.5:
            continue
        if abs(wrap_angle(o.h - e.h)) < 0.5 or abs(wrap_angle(o.h - e.h)) > math.pi - 0.5:
            continue
        dx, dy = e.x - o.x, e.y - o.y
        toward = dx * math.cos(o.h) + dy * math.sin(o.h)
        if toward <= 0:
            continue
        best = min(best, max(0.0, math.hypot(dx, dy) - (o.length + e.width) / 2) / abs(o.speed))
    return best


def _rear_gap(st: WorldState, e: ActorState, ln: Any) -> float:
    """Least time gap of a vehicle behind the ego in its (new) lane."""
    best = NONE
    for o in st.actors:
        if o.id == e.id or o.kind.lower() in NON_VEHICLES:
            continue
        fx, fy = _ego_frame(e, o)
        same = (o.lane.lane == ln.lane and str(o.lane.road) == str(ln.road)) if (o.lane and ln) else abs(fy) < SAME_LANE
        if not same or fx >= 0:
            continue
        gap = -fx - (e.length + o.length) / 2
        closing = max(o.speed, 0.1)
        best = min(best, max(gap, 0.0) / closing)
    return best
