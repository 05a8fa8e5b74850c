"""Per-tick rule signals from a Trace and its meta.json; every monitor reads these.

Each signal is one small function of the tick, registered with `@signal(name)` beside its VOCABULARY entry;
the facts several signals share (the light in play, the lead, the reasons to stand) are worked out once per
tick on `_Tick`, and what carries from tick to tick (latches, timers) lives on `_Run`.

Discrete facts are ±1 (+1 true), margins are in SI units. "Front" is the ego's front bumper along
its direction of travel; distances along the road are measured on the ego's road from lane s, so
scene features (meta.scene) on the ego's road are found without a map. Features whose `road`
differs from the ego's current road are ignored; a feature without `road` matches any road.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from roadtest.kinds import RULE_NON_VEHICLES, RULE_VRUS
from roadtest.limits import scene_limits, sign_limit
from roadtest.sim.api import ActorState, Trace, WorldState
from roadtest.sim.route_path import wrap_angle

__all__ = ["VOCABULARY", "NONE", "Signals", "extract_signals", "signal", "STOP_ZONE", "LINE_MATCH"]

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
VRUS = RULE_VRUS  # pedestrians and cyclists: never a lead vehicle
NON_VEHICLES = RULE_NON_VEHICLES

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


class _once:
    """A fact of the tick worked out when first asked for, then kept on the instance (a lock-free cached_property)."""

    def __init__(self, fn: Callable[[Any], Any]):
        self.fn, self.name = fn, fn.__name__
        self.__doc__ = fn.__doc__

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


class _Run:
    """What a signal remembers from one tick to the next (latches, timers, the direction of travel)."""

    def __init__(self, meta: Mapping[str, Any], tick: float):
        self.side = str(meta.get("driving_side") or "right")
        self.sc = _Scene(meta)
        self.limits = scene_limits(meta)
        self.tick = tick
        self.prev: ActorState | None = None
        self.motion_dir, self.first_dir, self.start_road = 0, 0, None
        self.stop_min = NONE
        self.ev_time = self.idle_time = self.go_wait = 0.0
        self.light_prev_state: dict[str, str] = {}
        self.yellow_latch: dict[str, tuple[float, float]] = {}
        self.limit_sign: float | None = None
        self.goal_seen = False
        self.leg = 0


class _Tick:
    """One tick as every signal reads it: the ego's place on its road and, computed once when first asked for,
    the facts several signals share (the light in play, the lead, the crosswalk, the reasons to stand)."""

    def __init__(self, st: WorldState, e: ActorState, run: _Run):
        self.st, self.e, self.run, self.sc = st, e, run, run.sc
        prev = run.prev
        ln = self.ln = e.lane
        road = self.road = str(ln.road) if ln else ""
        if ln is not None and prev is not None and prev.lane is not None and str(prev.lane.road) == road:
            ds = ln.s - prev.lane.s
            if abs(ds) > 1e-4:
                run.motion_dir = 1 if ds > 0 else -1
        d = self.d = run.motion_dir or (_travel_dir(ln.lane, run.side) if ln else 1)
        if ln is not None and run.start_road is None:
            run.start_road = road
        if run.motion_dir and not run.first_dir and road == run.start_road:
            run.first_dir = run.motion_dir
        s_c = self.s_c = ln.s if ln else 0.0
        self.front = s_c + d * e.length / 2
        self.same_prev = prev is not None and prev.lane is not None and ln is not None and str(prev.lane.road) == road
        self.front0 = (prev.lane.s + d * prev.length / 2) if self.same_prev else self.front

    def on_road(self, r: Any) -> bool:
        return _road_ok({"road": r}, self.road)

    def crossed(self, s: float) -> bool:
        """The ego's front passed s along its road this tick."""
        return self.same_prev and _crossed(s, self.front0, self.front, self.d)

    @_once
    def zones(self) -> tuple[bool, set[str], float]:
        """(any part of the ego in a no-stopping zone, kinds of the zones its centre is in, least zone limit)."""
        e, ln, s_c = self.e, self.ln, self.s_c
        in_no_stopping, inside, zone_limit = False, set(), NONE
        for z in self.sc.zones:
            if z.get("kind") == "no_stopping" and ln is not None and _road_ok(z, self.road) and \
                    float(z.get("s_start", 0)) < s_c + e.length / 2 and s_c - e.length / 2 < float(z.get("s_end", 0)):
                in_no_stopping = True
            if ln is not None and _road_ok(z, self.road) and float(z.get("s_start", 0)) <= s_c <= float(z.get("s_end", 0)):
                inside.add(str(z.get("kind")))
                if z.get("speed_limit"):
                    zone_limit = min(zone_limit, float(z["speed_limit"]))
        return in_no_stopping, inside, zone_limit

    @_once
    def stop_lines(self) -> tuple[list[float], bool, float]:
        """(stop-sign lines ahead, one crossed this tick, lowest speed within STOP_ZONE of the next; NONE before it)."""
        run = self.run
        ahead = [s for r, s in self.sc.stop_lines if self.on_road(r) and self.d * (s - self.front0) > 0]
        crossed = any(self.crossed(s) for r, s in self.sc.stop_lines if self.on_road(r))
        zone_min = NONE
        if ahead or crossed:
            nxt = min(ahead, key=lambda s: self.d * (s - self.front0)) if ahead else None
            if nxt is not None and 0.0 <= self.d * (nxt - self.front) <= STOP_ZONE or crossed:
                run.stop_min = min(run.stop_min, abs(self.e.speed))
            zone_min = run.stop_min
        if crossed:
            run.stop_min = NONE
        return ahead, crossed, zone_min

    @_once
    def light(self) -> tuple[str | None, float, bool, str]:
        """(the light in play: crossed this tick, else the next ahead facing the ego's way; front to its line; crossed;
        its state), with every light's yellow onset latched on the way."""
        cur_light, cur_dist, crossed_light = None, NONE, False
        d, front, run = self.d, self.front, self.run
        for lid, r, s in self.sc.lights:
            if not self.on_road(r) or self.sc.light_dir[lid] not in (0, d):
                continue
            if self.crossed(s):
                cur_light, cur_dist, crossed_light = lid, d * (s - front), True
                break
            dist = d * (s - front)
            if 0 <= dist < cur_dist:
                cur_light, cur_dist = lid, dist
        for lid, r, s in self.sc.lights:
            state = self.sc.light_state(self.st.signals, lid)
            if state == "yellow" and (run.light_prev_state.get(lid) != "yellow" or lid not in run.yellow_latch):
                run.yellow_latch[lid] = (d * (s - front), abs(self.e.speed))
            elif state != "yellow":
                run.yellow_latch.pop(lid, None)
            run.light_prev_state[lid] = state
        return cur_light, cur_dist, crossed_light, self.sc.light_state(self.st.signals, cur_light)

    @_once
    def plain_crossed(self) -> bool:
        return any(self.crossed(s) for r, s in self.sc.plain_lines if self.on_road(r))

    @_once
    def officer(self) -> list[str]:
        sig = self.st.signals
        return [str(sig.get(o, "")).lower() for o in self.sc.officers] + [str(sig.get("officer", "")).lower()]

    @_once
    def crosswalk(self) -> tuple[float, tuple[float, float] | None]:
        """(front to the start of the next crosswalk not yet cleared, its span along the road)."""
        cw_dist, cw_span = NONE, None
        e, d = self.e, self.d
        for r, a, b in self.sc.crosswalks:
            if not self.on_road(r) or self.ln is None:
                continue
            near_edge, far_edge = (a, b) if d > 0 else (b, a)
            rear = self.s_c - d * e.length / 2
            if d * (far_edge - rear) < 0:
                continue  # cleared
            dist = d * (near_edge - self.front)
            if dist < cw_dist:
                cw_dist, cw_span = dist, (min(a, b), max(a, b))
        return cw_dist, cw_span

    @_once
    def others(self) -> tuple[float, float, bool, float, bool]:
        """(lead gap, lead speed, an emergency vehicle behind, least VRU clearance alongside, a pedestrian on the crosswalk)."""
        e, ln, d, s_c = self.e, self.ln, self.d, self.s_c
        cw_span = self.crosswalk[1]
        lead_gap, lead_speed, ev_behind, vru_gap, ped_cw = NONE, 0.0, False, NONE, False
        for o in self.st.actors:
            if o.id == e.id:
                continue
            fx, fy = _ego_frame(e, o)
            kind = o.kind.lower()
            if o.lane is not None and ln is not None and str(o.lane.road) == self.road:
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
        return lead_gap, lead_speed, ev_behind, vru_gap, ped_cw

    @_once
    def entered(self) -> bool:
        """The ego entered a junction this tick (a give-way line facing its way, a plain line, or a junction road)."""
        sc, prev = self.sc, self.run.prev
        gw_crossed = any(self.crossed(s) for (r, s), gd in zip(sc.give_way, sc.give_way_dir)
                         if self.on_road(r) and gd in (0, self.d))
        new_road = prev is not None and prev.lane is not None and self.ln is not None and not self.same_prev and (
            sc.junction_roads is None or self.road in sc.junction_roads)  # leaving a junction onto its exit arm is no entry
        return gw_crossed or self.plain_crossed or (new_road and not sc.give_way and not sc.plain_lines)

    @_once
    def lane_changed(self) -> bool:
        return self.same_prev and self.run.prev.lane.lane != self.ln.lane

    @_once
    def entered_no_entry(self) -> bool:
        return any(self.crossed(s) for r, s in self.sc.no_entry if self.on_road(r))

    @_once
    def goal_seen(self) -> bool:
        if any(ev.kind == "goal_reached" for ev in self.st.events):
            self.run.goal_seen = True
        return self.run.goal_seen

    @_once
    def collided(self) -> tuple[bool, bool]:
        """(the moving ego hit a pedestrian or cyclist, it hit a vehicle) this tick."""
        e, st = self.e, self.st
        vru = vehicle = False
        for ev in st.events:
            if ev.kind != "collision" or e.id not in (ev.actor, ev.other) or abs(e.speed) < STOPPED:
                continue
            other = ev.other if ev.actor == e.id else ev.actor
            k = str(ev.data.get("other_kind") or "") if ev.actor == e.id else ""
            if not k:
                k = next((a.kind for a in st.actors if a.id == other), "static")
            if k.lower() in VRUS:
                vru = True
            elif k.lower() not in NON_VEHICLES:
                vehicle = True
        return vru, vehicle

    @_once
    def reason_but_light(self) -> bool:
        """A reason to stand still other than a light: the goal, an EV behind, a pedestrian on the crosswalk near, a
        lead near, a stop line, give-way or plain line near, or a stop the route asks for (never in a no-stopping zone)."""
        sc, d, front = self.sc, self.d, self.front
        ahead, _, zone_min = self.stop_lines
        lead_gap, _, ev_behind, _, ped_cw = self.others
        return (self.goal_seen or ev_behind or ped_cw and self.crosswalk[0] < REASON_CROSSWALK
                or lead_gap < REASON_LEAD
                or (zone_min < NONE and ahead and min(d * (s - front) for s in ahead) < REASON_LINE)
                or any(-2.0 < d * (s - front) < REASON_LINE for r, s in sc.give_way + sc.plain_lines)
                or not self.zones[0] and any(self.on_road(r) and -REASON_LINE <= d * (self.s_c - s) <= TASK_REACH
                                             for r, s in sc.task_stops))

    @_once
    def still(self) -> bool:
        return abs(self.e.speed) < STOPPED

    @_once
    def limit_here(self) -> Any:
        """roadtest.limits' Limit here and now, after latching the last limit sign the ego's front passed."""
        for r, s, lim in self.sc.limit_signs:
            if self.on_road(r) and self.crossed(s):
                self.run.limit_sign = lim
        road = self.road if self.ln is not None else None
        return self.run.limits.in_force(road, self.s_c, self.d, self.st.environment, passed=self.run.limit_sign)


_PRODUCERS: dict[str, Callable[[_Tick], float]] = {}  # signal name -> its value at a tick


def signal(name: str) -> Callable[[Callable[[_Tick], float]], Callable[[_Tick], float]]:
    """Register the function that gives a VOCABULARY signal's value at a tick."""
    if name not in VOCABULARY:
        raise ValueError(f"signal {name!r} is not in VOCABULARY (name, unit and meaning go there first)")

    def deco(fn: Callable[[_Tick], float]) -> Callable[[_Tick], float]:
        _PRODUCERS[name] = fn
        return fn
    return deco


signal("ego_speed")(lambda t: t.e.speed)
signal("ego_accel")(lambda t: t.e.ax)
signal("visibility")(lambda t: t.st.environment.fog_visual_range)
signal("night")(lambda t: _b(t.st.environment.sun_elevation < 0.0))
signal("in_no_stopping")(lambda t: _b(t.zones[0]))
for _zone in ("tunnel", "school_zone", "work_zone"):
    signal("in_" + _zone)(lambda t, z=_zone: _b(z in t.zones[1]))
signal("zone_speed_limit")(lambda t: t.zones[2])


@signal("speed_limit")
def _speed_limit(t: _Tick) -> float:
    """The posted limit: the least of the road's limit, the last limit sign passed (latched) and the zone's."""
    return NONE if t.limit_here.posted is None else t.limit_here.posted


@signal("limit_in_force")
def _limit_in_force(t: _Tick) -> float:
    return NONE if t.limit_here.value is None else t.limit_here.value


signal("lane_change")(lambda t: _b(t.lane_changed))


@signal("solid_crossing")
def _solid_crossing(t: _Tick) -> float:
    return _b(any(ev.kind == "lane_invasion" and ev.actor == t.e.id and (
        ev.data.get("allowed") is False or ("allowed" not in ev.data and "solid" in str(ev.data.get("type", ""))))
        for ev in t.st.events))


signal("stop_zone_min_speed")(lambda t: t.stop_lines[2])
signal("stop_crossed")(lambda t: _b(t.stop_lines[1]))
signal("stop_sign_ahead")(lambda t: _b(bool(t.stop_lines[0]) or t.stop_lines[1]))
signal("light_crossed")(lambda t: _b(t.light[2]))
signal("light_ahead")(lambda t: _b(t.light[0] is not None))
signal("light_red")(lambda t: _b(t.light[3].startswith("red")))
signal("light_yellow")(lambda t: _b(t.light[3] in ("yellow", "amber")))
signal("light_dist")(lambda t: t.light[1] if t.light[0] else NONE)
signal("yellow_onset_dist")(lambda t: t.run.yellow_latch.get(t.light[0], (NONE, 0.0))[0] if t.light[0] else NONE)
signal("yellow_onset_speed")(lambda t: t.run.yellow_latch.get(t.light[0], (NONE, 0.0))[1] if t.light[0] else 0.0)
signal("line_crossed")(lambda t: _b(t.stop_lines[1] or t.light[2] or t.plain_crossed))
signal("officer_stop")(lambda t: _b(any(x in ("stop", "red") for x in t.officer)))
signal("officer_go")(lambda t: _b(any(x in ("go", "green", "proceed") for x in t.officer)))
signal("has_lead")(lambda t: _b(t.others[0] < NONE))
signal("lead_gap")(lambda t: t.others[0])
signal("lead_speed")(lambda t: t.others[1] if t.others[0] < NONE else 0.0)
signal("closing_speed")(lambda t: t.e.speed - t.others[1] if t.others[0] < NONE else 0.0)
signal("ped_on_crosswalk")(lambda t: _b(t.others[4]))
signal("crosswalk_dist")(lambda t: t.crosswalk[0])
signal("vru_lat_gap")(lambda t: t.others[3])
signal("vru_alongside")(lambda t: _b(t.others[3] < NONE))
signal("ev_behind")(lambda t: _b(t.others[2]))


@signal("ev_blocked_time")
def _ev_blocked_time(t: _Tick) -> float:
    t.run.ev_time = t.run.ev_time + t.run.tick if t.others[2] else 0.0
    return t.run.ev_time


signal("junction_entered")(lambda t: _b(t.entered))
signal("cross_tta")(lambda t: _cross_tta(t.st, t.e) if t.entered else NONE)
signal("lane_change_rear_gap")(lambda t: _rear_gap(t.st, t.e, t.ln) if t.lane_changed else NONE)


@signal("opposite_side")
def _opposite_side(t: _Tick) -> float:
    run = t.run
    against = t.ln is not None and abs(t.e.speed) > 0.5 and run.motion_dir != 0 and \
        run.motion_dir != _travel_dir(t.ln.lane, run.side)
    return _b(against and not _passing(t.st, t.e, run.side))


@signal("u_turn")
def _u_turn(t: _Tick) -> float:
    run = t.run
    return _b(abs(t.e.speed) > 0.5 and run.first_dir != 0 and t.road == run.start_road and run.motion_dir == -run.first_dir)


signal("entered_no_entry")(lambda t: _b(t.entered_no_entry))


@signal("no_entry_ahead")
def _no_entry_ahead(t: _Tick) -> float:
    """A no-entry sign passed this tick, ahead on the ego's road, or on a later leg of its route."""
    run, sc, road = t.run, t.sc, t.road
    while run.leg + 1 < len(sc.route_legs) and sc.route_legs[run.leg][0] != road and \
            road in [lg[0] for lg in sc.route_legs[run.leg + 1:]]:
        run.leg += 1  # the route leg the ego is on
    return _b(t.entered_no_entry or any(t.on_road(r) and t.d * (s - t.front) > 0 for r, s in sc.no_entry) or any(
        str(r) == lr and min(a, b) <= s <= max(a, b) for r, s in sc.no_entry for lr, a, b in sc.route_legs[run.leg + 1:]))


signal("collision_vru")(lambda t: _b(t.collided[0]))
signal("collision_vehicle")(lambda t: _b(t.collided[1]))


@signal("unreasoned_stop_time")
def _unreasoned_stop_time(t: _Tick) -> float:
    cur_light, cur_dist, _, state = t.light
    reason = (t.reason_but_light or (cur_light is not None and cur_dist < REASON_LINE and not state.startswith("green"))
              or any(x in ("stop", "red") for x in t.officer))
    t.run.idle_time = t.run.idle_time + t.run.tick if t.still and not reason else 0.0
    return t.run.idle_time


@signal("officer_go_wait")
def _officer_go_wait(t: _Tick) -> float:
    go = any(x in ("go", "green", "proceed") for x in t.officer)
    t.run.go_wait = t.run.go_wait + t.run.tick if t.still and go and not t.reason_but_light else 0.0
    return t.run.go_wait


_missing = [k for k in VOCABULARY if k not in _PRODUCERS]
if _missing:
    raise RuntimeError(f"signals without a producer: {', '.join(_missing)}")


def extract_signals(trace: Trace, meta: Mapping[str, Any] | None = None) -> Signals:
    """Every VOCABULARY signal for every tick with an ego; a pure function of (trace, meta)."""
    run = _Run(meta or {}, trace.tick)
    ticks = [(st, st.ego) for st in trace.states if st.ego is not None]
    producers = [(k, _PRODUCERS[k], []) for k in VOCABULARY]
    for st, e in ticks:
        t = _Tick(st, e, run)
        for _, fn, series in producers:
            series.append(float(fn(t)))
        run.prev = e
    return Signals(time=[st.time for st, _ in ticks], tick=trace.tick, values={k: s for k, _, s in producers})


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
