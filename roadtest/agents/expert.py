"""The privileged, rule-aware expert: the reference driver whose score must be 100 and whose plan is L2's reference.

It reads the route, its speed and the `roadtest.objects` sensor; follows the route with pure pursuit;
chooses an acceleration as the minimum over constraints (speed limits now and ahead, visibility,
rule parameters, the lead actor, stop lines, lights, a police officer's stop and go (roadtest.agents.officer),
crosswalks, giving way at unsignalised junctions (roadtest.agents.junction_yield)); yields to emergency vehicles by
moving aside within what the marks allow; passes a slow road user where marks, tunnels and oncoming
traffic allow (roadtest.agents.overtake); moves into another lane (merging from an acceleration lane, passing,
making way) only with the time gap behind that merge_give_way asks (roadtest.agents.lane_gap), slowing to let a
faster vehicle by; and plans 3 s ahead with the same model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping

import numpy as np

from roadtest.agents.constraints import keeps
from roadtest.agents.base import PLAN_DT, PLAN_STEPS, AutonomousAgent, sensor_data, sensor_spec
from roadtest.agents.bend_line import BendLine, signed_curvature
from roadtest.agents.controller import VehicleParams, accel_to_control, idm_accel, pure_pursuit_steer
from roadtest.agents.lane_gap import LANE_END_MARGIN, gap_gate, lane_taken
from roadtest.agents.junction_yield import junction_hold
from roadtest.agents.officer import officer_command
from roadtest.agents.min_speed import raise_to_minimum
from roadtest.agents.overtake import Overtaker
from roadtest.agents.route_law import RouteLaw
from roadtest.agents.rules import RuleLimits, rule_limits
from roadtest.agents.task_stop import TaskStops
from roadtest.sim.route_path import RoutePath, to_ego_frame

__all__ = ["ExpertAgent", "Obstacle"]
keeps(__name__, "yield_emergency_vehicle", "speed_limit", "school_zone_speed", "work_zone_speed", "no_collision_vehicle",
      "no_collision_vru", "vru_lateral_clearance", "red_light", "yellow_light", "yield_pedestrian_crosswalk", "stop_sign",
      "time_to_collision")

COMFORT_DECEL = 3.0  # m/s^2, planned braking
MAX_DECEL = 7.0  # m/s^2, emergency braking the expert allows itself
STOP_DECEL = 2.5  # m/s^2, the profile it brakes along towards a stop point
STOP_EASE = 2.0  # m/s, how softly that profile ends (larger: gentler, slower last metres)
MAX_ACCEL = 2.0  # m/s^2, within nuPlan's comfort bound of 2.40
ROLLING = 0.15  # m/s^2, coasting deceleration the pedals make up for
LAT_ACCEL = 2.0  # m/s^2, in bends
JERK_UP, JERK_DOWN = 2.5, 3.5  # m/s^3, comfort limits on the commanded acceleration
REACTION = 1.0  # s, for the visibility speed
DEFAULT_SPEED = 50 / 3.6  # m/s when no limit is known


@dataclass(frozen=True)
class Obstacle:
    """Something to stop behind: `gap` m from the ego's front bumper to where the ego must stop, moving at `speed`."""

    gap: float
    speed: float
    why: str
    s0: float = 2.0
    actor: bool = False  # a road user (kept at a time gap), not a stop point


class _Rolling:
    """A mutable Obstacle for the plan's roll-out, so each sub-step moves gaps in place instead of rebuilding."""

    __slots__ = ("gap", "speed", "why", "s0", "actor")

    def __init__(self, gap: float, speed: float, why: str, s0: float, actor: bool):
        self.gap, self.speed, self.why, self.s0, self.actor = gap, speed, why, s0, actor


class ExpertAgent(AutonomousAgent):
    """Rule-aware privileged driver (see the module docstring)."""

    track = "MAP"
    defaults = {"cruise_speed": DEFAULT_SPEED, "free_speed": 90 / 3.6, "ignore": (), "limit_margin": 0.1, "stop_hold": 1.0, "lookahead": 5.0,
                "wheelbase": 2.7, "max_wheel_angle": 0.6, "max_accel": 4.0, "max_decel": 8.0}

    def setup(self, path_to_conf_file: Any) -> None:
        super().setup(path_to_conf_file)
        c = self.config
        ignore = c["ignore"]
        ignore = [ignore] if isinstance(ignore, str) else list(ignore or [])
        if ignore:  # the ablated expert (roadtest.agents.ablation): drop these rules' constraints
            from roadtest.agents.ablation import check_ignored
            from roadtest.rules.catalogue_model import load_catalogue

            check_ignored(ignore, load_catalogue())
        self.ignore = frozenset(ignore)
        self.overtaker = Overtaker(self.ignore)
        self.bend_line = BendLine(self.ignore)
        self.task_stops = TaskStops(self.ignore)
        self.route_law = RouteLaw(self.ignore)
        self.v_des = DEFAULT_SPEED
        self.time = 0.0
        self.params = VehicleParams(wheelbase=float(c["wheelbase"]), max_wheel_angle=float(c["max_wheel_angle"]),
                                    max_accel=float(c["max_accel"]), max_decel=float(c["max_decel"]))
        self.route: RoutePath | None = None
        self.kappa: np.ndarray | None = None  # 1/m, route curvature at each route point
        self.stops_done: list[float] = []  # route positions of stop lines already stopped at
        self.stopped_since: float | None = None
        self.offset = 0.0  # m, current lateral offset from the route (left positive)
        self.placed = False  # whether the offset has been set from where the ego starts (beside its route: merging)
        self.merge_cap: float | None = None  # m/s while waiting to move into another lane (the gap behind too short)
        self.lane_end: float | None = None  # m ahead to the end of the lane the ego waits in, when within sight
        self.ev_mode: str | None = None  # "change" | "pullover" | "back" while making way for an emergency vehicle
        self.yielding: set[str] = set()  # emergency vehicles being let past
        self.ev_plan: tuple[float, str] | None = None  # (offset, mode) chosen when the yielding began
        self.ev_passing_speed: float | None = None  # m/s of an emergency vehicle now passing the ego
        self.prev_speed: float | None = None
        self.prev_control = None
        self.prev_accel = 0.0
        self.dt = 0.05
        self.prev_time: float | None = None

    def sensors(self) -> list[dict[str, Any]]:
        return [sensor_spec("sensor.speedometer", "speed"), sensor_spec("roadtest.pose", "pose"),
                sensor_spec("roadtest.route", "route"), sensor_spec("roadtest.objects", "objects")]

    # ----------------------------------------------------------------- step
    def run_step(self, input_data: Mapping[str, Any], timestamp: float) -> Any:
        speed = float((sensor_data(input_data, "speed") or {}).get("speed", 0.0))
        view = sensor_data(input_data, "objects") or {}
        ego = dict(view.get("ego") or {})
        pose = sensor_data(input_data, "pose")
        if pose:
            ego.update({k: float(pose[k]) for k in ("x", "y", "h") if k in pose})
        if self.prev_time is not None and timestamp > self.prev_time:
            self.dt = timestamp - self.prev_time
        self.prev_time, self.time = timestamp, timestamp
        if self.route is None:
            pts = sensor_data(input_data, "route") or self.global_plan
            if pts and len(pts) >= 2:
                self.route = RoutePath(pts)
                self.kappa = _curvature(self.route)
        if "x" not in ego:
            return accel_to_control(-COMFORT_DECEL, speed, 0.0, self.params)
        ego_s = 0.0
        if self.route is not None:
            given = ego.get("route_s")
            ego_s = float(given) if given is not None else self.route.project(ego["x"], ego["y"])[0]
        half = float(ego.get("length", 4.5)) / 2.0
        limits = rule_limits(view, self.ignore)
        if not self.placed:
            self.placed, d0 = True, float(ego.get("route_d") or 0.0)
            self.offset = d0 if abs(d0) > 0.5 else 0.0  # starting in an acceleration lane: merge from there
        self._update_offset(view, ego, speed)
        v_des = self.v_des = self._desired_speed(view, speed, half, limits)
        if self.merge_cap is not None:
            v_des = min(v_des, self.merge_cap)
        if self.ev_mode == "pullover":  # keep rolling while moving aside (a standing car cannot), then wait there
            aside = self.ev_plan is not None and abs(float(ego.get("route_d") or 0.0) - self.ev_plan[0]) < 0.25
            v_des = 0.0 if aside else min(v_des, 5.0)
        elif self.ev_passing_speed is not None:
            v_des = min(v_des, 0.7 * self.ev_passing_speed)  # let it open a safe gap before moving back
        obstacles = self._obstacles(view, ego, ego_s, speed, half, timestamp, limits)
        accel = self._accel(speed, v_des, obstacles, limits)
        steer = self._steer(view, ego, ego_s, speed)
        binding = min(obstacles, key=lambda o: o.gap) if obstacles else None
        if binding is not None and binding.gap - binding.s0 < 0.3 and speed < 0.4 and not binding.actor:
            accel = min(accel, -0.6)  # at the stop point: settle instead of creeping
        accel = self._smooth(accel)
        self._learn(speed, 0.0 if speed < 0.05 and accel <= 0.0 else accel)
        self.planned = self._plan(ego, ego_s, speed, v_des, obstacles, limits)
        self.text = f"v_des {v_des:.1f} m/s" + (f"; stop for {binding.why} in {binding.gap:.1f} m" if binding else "")
        control = accel_to_control(accel, speed, steer, self.params, rolling=ROLLING)
        self.prev_control = control
        return control

    def _smooth(self, accel: float) -> float:
        """Limit jerk (nuPlan's comfort bound is 4.13 m/s^3) unless a hard brake is needed now."""
        prev = self.prev_accel
        accel = min(accel, MAX_ACCEL)
        if accel < prev and accel < -4.0:  # an emergency: brake now
            step = 12.0 * self.dt
        else:
            step = (JERK_UP if accel > prev else JERK_DOWN) * self.dt
        return prev + max(-step, min(step, accel - prev))

    def _learn(self, speed: float, accel: float) -> None:
        """Learn the car's acceleration per unit of throttle and of brake from what the last pedals achieved."""
        c = self.prev_control
        if self.prev_speed is not None and c is not None and speed > 0.5 and self.prev_speed > 0.5:
            achieved = (speed - self.prev_speed) / max(self.dt, 1e-3)
            p = self.params
            if c.throttle > 0.05:
                est = min(max((achieved + ROLLING) / c.throttle, 1.0), 15.0)
                self.params = replace(p, max_accel=p.max_accel + 0.1 * (est - p.max_accel))
            elif c.brake > 0.05:
                est = min(max((ROLLING - achieved) / c.brake, 2.0), 15.0)
                self.params = replace(p, max_decel=p.max_decel + 0.1 * (est - p.max_decel))
        self.prev_speed, self.prev_accel = speed, accel

    # ------------------------------------------------------------ lateral
    def _update_offset(self, view: Mapping[str, Any], ego: Mapping[str, Any], speed: float) -> None:
        """Move aside for an emergency vehicle with its siren on behind; come back once it has passed.

        A free same-direction lane whose mark may be crossed is used (the driving side first); otherwise
        the expert pulls over within its own lane and stops.
        """
        want, self.ev_mode, self.ev_passing_speed = 0.0, None, None
        right_hand = view.get("driving_side", "right") == "right"
        lane = view.get("lane") or {}
        width = float(lane.get("width") or 3.5)
        own = lane.get("lane")
        for a in view.get("actors") or []:
            if not a.get("siren") or a.get("route_s") is None or "yield_emergency_vehicle" in self.ignore:
                continue
            in_way = abs(a["route_d"]) < width * 0.75 or abs(a["route_d"] - self.offset) < width * 0.75
            behind = -80.0 <= a["route_s"] <= 2.0 and float(a.get("speed", 0.0)) > max(2.0, 0.5 * speed)  # coming up
            clear = float(a.get("length", 5.0)) / 2.0 + float(ego.get("length", 4.5)) / 2.0 + 3.0 + 1.6 * speed
            passing = a["id"] in self.yielding and a["route_s"] < clear  # back only a safe time gap behind it
            if passing and a["route_s"] > 0.0:
                self.ev_passing_speed = float(a.get("speed", 0.0))
            left = float(ego.get("route_length") or 1e9) - float(ego.get("route_s") or 0.0)
            if passing and left < 3.5 * speed + 15.0:
                passing = False  # the goal is near: back to the route lane now
            if not (in_way and (behind or passing)):
                self.yielding.discard(a["id"])
                continue
            self.yielding.add(a["id"])
            if self.ev_plan is not None:  # keep the side chosen when the yielding began
                want, self.ev_mode = self.ev_plan
                break
            for side, sign in (("right", -1.0), ("left", 1.0)) if right_hand else (("left", 1.0), ("right", -1.0)):
                nb = lane.get(side) or {}
                same_dir = nb.get("lane") is not None and own is not None and (nb["lane"] > 0) == (own > 0)
                if same_dir and nb.get("crossing_allowed") and not lane_taken(view, ego, speed, sign * width, self.ignore):
                    want, self.ev_mode = sign * width, "change"
                    break
            else:
                sign = -1.0 if right_hand else 1.0
                inside = max(0.0, width / 2.0 - float(ego.get("width", 1.8)) / 2.0 - 0.1)
                if _governs_yield(view):  # yielding outranks staying in lane: clear the vehicle's path entirely
                    clear = float(a.get("width", 2.0)) / 2.0 + float(ego.get("width", 1.8)) / 2.0 + 0.6
                    inside = max(inside, clear - sign * float(a["route_d"]))
                want, self.ev_mode = sign * inside, "pullover"
            self.ev_plan = (want, self.ev_mode)
            break
        if not self.yielding:
            self.ev_plan = None
            passing = self.overtaker.want(view, ego, speed, self.v_des, self.time)
            if passing is not None:
                want, self.ev_mode = passing, "overtake"
            else:
                cut = self.bend_line.want(view, self.route, float(ego.get("route_s") or 0.0))
                if cut is not None:
                    want, self.ev_mode = cut, "bend"
        if self.ev_mode is None and abs(self.offset) > 0.05:
            self.ev_mode = "back"
        want, self.merge_cap, self.lane_end = gap_gate(view, ego, speed, want, self.offset, self.ignore)
        rate = (1.5 if self.ev_mode == "pullover" else 1.2) * self.dt  # m per tick: a 3 s lane change
        self.offset += max(-rate, min(rate, want - self.offset))

    def _steer(self, view: Mapping[str, Any], ego: Mapping[str, Any], ego_s: float, speed: float) -> float:
        h = float(ego["h"])
        rx = ego["x"] - math.cos(h) * self.params.wheelbase / 2.0
        ry = ego["y"] - math.sin(h) * self.params.wheelbase / 2.0
        lookahead = max(float(self.config["lookahead"]), 0.45 * speed + 2.0)
        if self.route is not None:
            tx, ty, th = self.route.point_at(ego_s + lookahead - self.params.wheelbase / 2.0)
            tx, ty = tx - math.sin(th) * self.offset, ty + math.cos(th) * self.offset
            return pure_pursuit_steer(*to_ego_frame(rx, ry, h, tx, ty), self.params)
        centre = (view.get("lane") or {}).get("centerline") or []
        from roadtest.agents.controller import lookahead_point

        point = lookahead_point(centre, lookahead)
        return pure_pursuit_steer(*point, self.params) if point else 0.0

    # ------------------------------------------------------- longitudinal
    def _desired_speed(self, view: Mapping[str, Any], speed: float, half: float, limits: RuleLimits) -> float:
        margin = float(self.config["limit_margin"])
        limit = view.get("speed_limit")
        ahead = list(view.get("speed_limits_ahead") or [])
        zones_ignored = {k for r, k in (("school_zone_speed", "school_zone"), ("work_zone_speed", "work_zone")) if r in self.ignore}
        if zones_ignored:
            limit, ahead = _without_zones(view, zones_ignored)
        if "speed_limit" in self.ignore:
            limit, ahead = None, []
        cruise = self.config["free_speed" if "speed_limit" in self.ignore else "cruise_speed"]
        v = float(cruise) if limit is None else float(limit) - margin
        v = raise_to_minimum(v, view, self.ignore, limit, margin)
        if limits.max_speed is not None:
            v = min(v, limits.max_speed - margin)
        vis = float((view.get("environment") or {}).get("fog_visual_range", 1e5))
        if vis < 1000.0:
            b = COMFORT_DECEL
            v = min(v, math.sqrt((b * REACTION) ** 2 + 2.0 * b * vis) - b * REACTION)
        ahead += limits.ahead
        if self.route is not None and self.kappa is not None:
            ego_s = float((view.get("ego") or {}).get("route_s") or 0.0)
            lo, hi = np.searchsorted(self.route.cum, [ego_s - half, ego_s + 60.0])
            for s_k, k in zip(self.route.cum[lo:hi], self.kappa[lo:hi]):
                if k > 1e-3:  # a bend: lateral acceleration at most LAT_ACCEL, reached before the front gets there
                    ahead.append((float(s_k - ego_s) + half + 3.0, math.sqrt(LAT_ACCEL / k)))
        for dist, lim in ahead:
            d = max(float(dist) - half - 3.0 - 1.2 * speed, 0.0)  # at the new limit before the front passes it
            v = min(v, math.sqrt(max(float(lim) - margin, 0.0) ** 2 + 2.0 * 1.5 * d))
        return max(v, 0.0)

    def _obstacles(self, view: Mapping[str, Any], ego: Mapping[str, Any], ego_s: float, speed: float, half: float,
                   t: float, limits: RuleLimits) -> list[Obstacle]:
        out: list[Obstacle] = []
        lane_w = float((view.get("lane") or {}).get("width") or 3.5)
        ego_w = float(ego.get("width", 1.8))
        for a in view.get("actors") or []:
            rs, rd = a.get("route_s"), a.get("route_d")
            if rs is None:  # no route (a foreign .xosc): the ego frame stands in for the route frame
                rs, rd = a.get("x", 0.0), a.get("y", 0.0)
            ahead = rs - a.get("length", 4.5) / 2.0 - half
            if rs <= 0.0 or ahead > 100.0:
                continue
            vru = a.get("kind") in ("pedestrian", "bicycle", "officer")
            if ("no_collision_vru" if vru else "no_collision_vehicle") in self.ignore:
                continue
            margin = 0.8 if vru and "vru_lateral_clearance" not in self.ignore else 0.4
            corridor = ego_w / 2.0 + a.get("width", 1.8) / 2.0 + margin
            lat_v = float(a.get("vy", 0.0))
            future = [rd + lat_v * k for k in (0.0, 0.75, 1.5)] if abs(lat_v) > 0.2 else [rd]
            if any(abs(d - self.offset - 0.0) < corridor for d in future):
                rel_h = a.get("route_heading", a.get("h", 0.0))
                along = a.get("speed", 0.0) * math.cos(rel_h)
                if abs(rd - self.offset) >= corridor and abs(math.cos(rel_h)) < 0.7:
                    along = 0.0  # crossing the path: treat as standing there; a merging car keeps its speed
                s0 = limits.min_gap if a.get("kind") not in ("pedestrian",) else 3.0
                out.append(Obstacle(gap=ahead, speed=max(along, 0.0), why=f"{a.get('kind')} {a.get('id')}",
                                    s0=max(s0, self.overtaker.room(view, a)), actor=True))
        out += self._stop_lines(view, ego_s, speed, half, t)
        hold = junction_hold(view, ego, speed, self.ignore)
        if hold is not None:
            out.append(Obstacle(gap=hold.gap, speed=0.0, why=f"give way to {hold.vehicle} ({hold.rule})", s0=0.5))
        officer = officer_command(view, half, self.ignore)  # outranks the lights at its line
        if officer is not None and officer.state == "stop" and officer.line - half >= -0.5:
            out.append(Obstacle(gap=officer.line - half, speed=0.0, why=f"officer {officer.id} signals stop", s0=1.0))
        out += [Obstacle(gap=gap, speed=0.0, why=why, s0=0.0) for gap, why in self.task_stops.obstacles(view, ego_s, speed, half, t)
                + self.route_law.obstacles(view, self.route, ego_s, half)]
        for lt in view.get("lights") or []:
            state = str(lt.get("state", "")).lower()
            gap = float(lt["stop_distance"]) - half
            if gap < -0.5 or officer is not None and officer.overrules(lt):
                continue
            if state == "red" and "red_light" in self.ignore or state in ("yellow", "amber") and "yellow_light" in self.ignore:
                continue
            if state == "red" or (state in ("yellow", "amber") and speed * speed / (2.0 * max(gap - 1.0, 0.1)) <= limits.comfort_decel):
                out.append(Obstacle(gap=gap, speed=0.0, why=f"{state} light {lt.get('id')}", s0=1.0))
        peds = [a for a in view.get("actors") or [] if a.get("kind") in ("pedestrian", "bicycle") and a.get("route_s") is not None]
        for cw in [] if "yield_pedestrian_crosswalk" in self.ignore else view.get("crosswalks") or []:
            gap = float(cw["distance_start"]) - half
            if gap < -1.0:
                continue
            for p in peds:
                on = cw["distance_start"] - 2.0 <= p["route_s"] <= cw["distance_end"] + 2.0
                near = abs(p["route_d"]) < lane_w * 1.5 + 1.0 or (abs(p["route_d"]) < lane_w * 2.5 + 2.0 and p["route_d"] * p.get("vy", 0.0) < -0.05)
                if on and near:
                    out.append(Obstacle(gap=gap, speed=0.0, why=f"pedestrian {p.get('id')} at crosswalk", s0=1.5))
                    break
        if self.lane_end is not None:  # the lane ends before the gap behind opens: stop short of its taper
            out.append(Obstacle(gap=self.lane_end - half - LANE_END_MARGIN, speed=0.0, why="end of lane", s0=1.0))
        route_len = ego.get("route_length") or (self.route.length if self.route else None)
        if route_len and ego_s > float(route_len) - 3.0:  # the simulator ends the run at the goal; past it, stop
            out.append(Obstacle(gap=float(route_len) - ego_s - half + 12.0, speed=0.0, why="goal", s0=1.0))
        return out

    def _stop_lines(self, view: Mapping[str, Any], ego_s: float, speed: float, half: float, t: float) -> list[Obstacle]:
        out: list[Obstacle] = []
        if "stop_sign" in self.ignore:
            return out
        for sl in view.get("stop_lines") or []:
            if not sl.get("stop_sign"):
                continue
            where = ego_s + float(sl["distance"])
            if any(abs(where - w) < 3.0 for w in self.stops_done):
                continue
            gap = float(sl["distance"]) - half
            if gap < -2.0:
                continue
            if speed < 0.05 and gap < 3.0:
                self.stopped_since = t if self.stopped_since is None else self.stopped_since
                if t - self.stopped_since >= float(self.config["stop_hold"]):
                    self.stops_done.append(where)
                    self.stopped_since = None
                    continue
            else:
                self.stopped_since = None
            out.append(Obstacle(gap=gap, speed=0.0, why="stop sign", s0=0.6))
        return out

    def _accel(self, speed: float, v_des: float, obstacles: list[Obstacle], limits: RuleLimits) -> float:
        a = _free(speed, v_des)
        for o in obstacles:
            if not o.actor:  # a stop point: follow a constant-deceleration profile down to it
                a = min(a, _stop_profile(speed, max(o.gap - o.s0, 0.0)))
            elif o.speed < 0.5:  # a standing road user: IDM's gentle approach
                a = min(a, idm_accel(speed, v_des, gap=o.gap, lead_speed=o.speed, s0=o.s0, headway=limits.headway, b=COMFORT_DECEL))
            elif "time_to_collision" in self.ignore:
                a = min(a, _follow_late(speed, v_des, o))
            else:
                a = min(a, _follow(speed, v_des, o, limits.headway))
        return max(a, -MAX_DECEL)

    # ------------------------------------------------------------- plan
    def _plan(self, ego: Mapping[str, Any], ego_s: float, speed: float, v_des: float, obstacles: list[Obstacle],
              limits: RuleLimits) -> tuple[tuple[float, float], ...]:
        """The same longitudinal model rolled out 3 s along the route, in the ego frame."""
        if self.route is None:
            return tuple((speed * PLAN_DT * (k + 1), 0.0) for k in range(PLAN_STEPS))
        sub, dt = 5, PLAN_DT / 5
        s, v, pts = 0.0, speed, []
        obs = [_Rolling(o.gap, o.speed, o.why, o.s0, o.actor) for o in obstacles]
        for _ in range(PLAN_STEPS):
            for _ in range(sub):
                a = self._accel(v, v_des, obs, limits)  # type: ignore[arg-type] - _Rolling reads as an Obstacle
                if v < 0.05 and a <= 0.0:
                    a = 0.0
                v = max(v + a * dt, 0.0)
                s += v * dt
                for o in obs:
                    o.gap = o.gap - (v - o.speed) * dt
            x, y, th = self.route.point_at(ego_s + s)
            x, y = x - math.sin(th) * self.offset, y + math.cos(th) * self.offset
            pts.append(to_ego_frame(ego["x"], ego["y"], ego["h"], x, y))
        return tuple((float(px), float(py)) for px, py in pts)


def _free(speed: float, v_des: float) -> float:
    """Free-road acceleration: IDM's smooth approach from below, a firm pull down from above."""
    if v_des < 0.05:
        return -COMFORT_DECEL if speed > 0.0 else 0.0
    if speed <= v_des:
        return MAX_ACCEL * (1.0 - (speed / v_des) ** 4)
    return -min(COMFORT_DECEL, 1.5 * (speed - v_des))


def _stop_profile(speed: float, room: float) -> float:
    """Acceleration along v(r) = sqrt(2 b r + c^2) - c: STOP_DECEL far out, easing to zero at the stop point,
    so the car neither creeps nor jerks when it comes to rest."""
    c = STOP_EASE
    root = math.sqrt(2.0 * STOP_DECEL * room + c * c)
    v_allow = root - c
    a_profile = -STOP_DECEL * (1.0 - c / root)
    return a_profile + 1.5 * (v_allow - speed)


def _follow(speed: float, v_des: float, lead: Obstacle, headway: float) -> float:
    """Car following without IDM's over-reaction to a cut-in: match the lead's speed, restore the time gap
    at 0.25 m/s per metre missing, and brake at least what avoids closing below s0 (constant-acceleration bound)."""
    s_safe = lead.s0 + headway * lead.speed
    v_target = min(max(lead.speed + 0.25 * (lead.gap - s_safe), 0.7 * lead.speed), v_des)
    a = max(1.0 * (v_target - speed), -2.0)  # opening a gap is no emergency: the bound below is
    if speed > lead.speed:
        a = min(a, -(speed - lead.speed) ** 2 / (2.0 * max(lead.gap - 1.0, 0.1)))
    if lead.gap < lead.s0:
        a = -MAX_DECEL
    return a


def _follow_late(speed: float, v_des: float, lead: Obstacle) -> float:
    """Car following without the gentle approach (the expert ignoring time_to_collision): keep the free speed
    until stopping the closing speed within the gap left needs 4 m/s^2, then brake at what it needs."""
    if lead.gap < lead.s0:
        return -MAX_DECEL
    if speed > lead.speed:
        need = (speed - lead.speed) ** 2 / (2.0 * max(lead.gap - lead.s0, 0.1))
        return -need if need >= 4.0 else _free(speed, v_des)
    return min(_free(speed, v_des), lead.speed - speed + 0.25 * (lead.gap - lead.s0 - 1.6 * lead.speed))


def _without_zones(view: Mapping[str, Any], kinds: set[str]) -> tuple[float | None, list]:
    """The limit in force and the limits ahead as if the zones of these kinds had no limits of their own."""
    zones = view.get("zones") or []
    base = view.get("base_speed_limit")
    now = [float(base)] if base is not None else []
    now += [float(z["speed_limit"]) for z in zones if z["inside"] and z.get("speed_limit") and z.get("kind") not in kinds]
    dropped = {(float(z["distance_start"]), float(z["speed_limit"])) for z in zones
               if z.get("kind") in kinds and z.get("speed_limit") and not z["inside"]}
    ahead = [x for x in view.get("speed_limits_ahead") or [] if (float(x[0]), float(x[1])) not in dropped]
    return (min(now) if now else view.get("speed_limit") if base is None else None), ahead


def _curvature(route: RoutePath) -> np.ndarray:
    """Unsigned curvature at each route point from the heading change over about +-3 m."""
    return np.abs(signed_curvature(route))


def _governs_yield(view: Mapping[str, Any]) -> bool:
    """Whether meta.governing makes yielding to emergency vehicles outrank the lane rules."""
    gov = view.get("governing")
    ids = [gov] if isinstance(gov, str) else list(gov or []) if isinstance(gov, (list, tuple)) else []
    return any("emergency" in str(g) for g in ids)
