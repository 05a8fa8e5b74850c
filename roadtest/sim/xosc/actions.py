"""OpenSCENARIO actions: checked at load, started by events, stepped each tick until done."""

from __future__ import annotations

import math
from typing import Any

from roadtest.errors import UnsupportedError
from roadtest.sim.xosc import speed_actions as SA
from roadtest.sim.xosc.motion import LateralProfile, place, shape_fn
from roadtest.sim.xosc.positions import locate, parse_position, resolve

__all__ = ["RuntimeAction", "make_action", "PRIVATE", "GLOBAL"]

PRIVATE = ("TeleportAction", "SpeedAction", "LaneChangeAction", "LaneOffsetAction", "LongitudinalDistanceAction",
           "LateralDistanceAction", "AssignRouteAction", "FollowTrajectoryAction", "AcquirePositionAction",
           "SynchronizeAction", "AssignControllerAction", "ActivateControllerAction", "VisibilityAction",
           "SpeedProfileAction", "LightStateAction", "ConnectTrailerAction", "DisconnectTrailerAction")
GLOBAL = ("EnvironmentAction", "AddEntityAction", "DeleteEntityAction", "ParameterSetAction", "ParameterModifyAction",
          "VariableSetAction", "VariableModifyAction", "TrafficSignalStateAction", "TrafficSignalControllerAction",
          "TrafficSwarmAction", "TrafficStopAction")
_WRAPPERS = {"PrivateAction", "GlobalAction", "LongitudinalAction", "LateralAction", "RoutingAction", "ControllerAction",
             "EntityAction", "ParameterAction", "VariableAction", "InfrastructureAction", "TrafficSignalAction",
             "AppearanceAction", "TrailerAction", "TrafficAction"}


def _leaf(el: Any) -> tuple[Any, str]:
    """The concrete action element under the wrappers, and its name (ParameterAction/SetAction -> ParameterSetAction)."""
    parent_tag = ""
    while el.tag in _WRAPPERS and len(el):
        parent_tag = el.tag
        el = el[0]
    name = el.tag
    if parent_tag in ("ParameterAction", "VariableAction") and name in ("SetAction", "ModifyAction"):
        name = parent_tag.replace("Action", "") + name
    if parent_tag == "EntityAction" and name in ("AddEntityAction", "DeleteEntityAction"):
        pass
    return el, name


def _f(el: Any, k: str, d: float = 0.0) -> float:
    v = el.get(k) if el is not None else None
    return d if v in (None, "") else float(v)


def _vel_s(c: Any, e: Any) -> float:
    """e's speed along its road's s axis (signed as its speed); its plain speed off the road network."""
    if e.lane is None or c.network is None:
        return e.speed
    try:
        h = c.network.road_to_world(e.lane.road, e.lane.s, e.lane.t).h
    except Exception:  # noqa: BLE001 - a road the network cannot place: fall back to the plain speed
        return e.speed
    return math.copysign(abs(e.speed * math.cos(e.h - h)), e.speed)


def _after(a: Any, b: Any) -> bool:
    """True when element a comes after element b in the same scenario document."""
    if a is None or b is None or a.getroottree().getroot() is not b.getroottree().getroot():
        return False
    if a.sourceline != b.sourceline:
        return (a.sourceline or 0) > (b.sourceline or 0)
    return False


class RuntimeAction:
    """One action on one actor (or a global action); `domains` say which motion it owns."""

    domains: frozenset[str] = frozenset()

    def __init__(self, el: Any, name: str, actor: str | None, eb: Any):
        self.el, self.name, self.actor, self.eb = el, name, actor, eb
        self.done = False
        self.started_at = 0.0
        self.stepped_at: float | None = None

    def start(self, c: Any) -> None:
        self.started_at = c.time
        getattr(self, "_start_" + self.name)(c)

    def step(self, c: Any, dt: float) -> None:
        fn = getattr(self, "_step_" + self.name, None)
        if fn is not None and not self.done:
            self.stepped_at = c.time
            fn(c, dt)

    def post(self, c: Any) -> None:
        """After motion: lateral and trajectory actions end on the tick their motion completes."""
        if self.done or not self.actor:
            return
        m = c.motions.get(self.actor)
        if self.name in ("LaneChangeAction", "LaneOffsetAction"):
            prof = getattr(self, "profile", None)
            if prof is not None and (prof.done or m.lat is not prof):
                self.done = True
        elif self.name == "FollowTrajectoryAction" and m.path is not getattr(self, "path", None):
            self.done = True

    def stop(self, c: Any) -> None:
        """Overridden by a newer action or stopped with its event."""
        self.done = True
        m = c.motions.get(self.actor) if self.actor else None
        if m is not None:
            if "lat" in self.domains and m.lat is getattr(self, "profile", None):
                m.lat = None
            if "path" in self.domains and m.path is getattr(self, "path", None):
                m.path = None

    # ------------------------------------------------------------------ instant actions
    def _start_TeleportAction(self, c: Any) -> None:
        m = c.motions[self.actor]
        place(c.entities[self.actor], m, resolve(self.pos, c.net, c.entities), c.net)
        if c.time > 1e-9:  # (at time 0 esmini teleports in its zero-length first frame: the first tick moves it)
            m.teleported_at = c.time  # esmini moves nothing on the tick it teleports it
        self.done = True

    def _start_VisibilityAction(self, c: Any) -> None:
        c.entities[self.actor].visible = self.el.get("graphics", "true").lower() == "true"
        self.done = True

    def _start_LightStateAction(self, c: Any) -> None:
        lt = self.el.find("LightType")
        kind = lt[0].get("vehicleLightType") or lt[0].get("userDefinedLightType") if lt is not None and len(lt) else "light"
        st = self.el.find("LightState")
        c.entities[self.actor].properties[f"light.{kind}"] = st.get("mode", "") if st is not None else ""
        self.done = True

    def _start_ConnectTrailerAction(self, c: Any) -> None:
        c.connect_trailer(self.actor, self.el.get("trailerRef"))
        self.done = True

    def _start_DisconnectTrailerAction(self, c: Any) -> None:
        c.connect_trailer(self.actor, None)
        self.done = True

    def _start_AssignControllerAction(self, c: Any) -> None:
        c.assign_controller(self.actor, self.el.find("Controller"),
                            self.el.get("activateLateral"), self.el.get("activateLongitudinal"))
        self.done = True

    def _start_ActivateControllerAction(self, c: Any) -> None:
        c.activate_controller(self.actor, self.el.get("lateral"), self.el.get("longitudinal"))
        self.done = True

    def _start_AssignRouteAction(self, c: Any) -> None:
        c.motions[self.actor].route = c.route_waypoints(self.el.find("Route"), self.actor)
        self.done = True

    def _start_AcquirePositionAction(self, c: Any) -> None:
        r = resolve(self.pos, c.net, c.entities)
        c.motions[self.actor].route = [(r.lane.road, r.lane.lane)] if r.lane is not None else []
        self.done = True

    def _start_EnvironmentAction(self, c: Any) -> None:
        c.set_environment(self.el.find("Environment"))
        self.done = True

    def _start_AddEntityAction(self, c: Any) -> None:
        e = c.entities[self.el.getparent().get("entityRef")]
        e.active = True
        place(e, c.motions[e.name], resolve(self.pos, c.net, c.entities), c.net)
        self.done = True

    def _start_DeleteEntityAction(self, c: Any) -> None:
        c.entities[self.el.getparent().get("entityRef")].active = False
        self.done = True

    def _start_ParameterSetAction(self, c: Any) -> None:
        c.set_param(self.el.getparent().get("parameterRef"), self.el.get("value"), "params")
        self.done = True

    def _start_VariableSetAction(self, c: Any) -> None:
        c.set_param(self.el.getparent().get("variableRef"), self.el.get("value"), "variables")
        self.done = True

    def _modify(self, c: Any, ref: str, store: str) -> None:
        rule = self.el.find("Rule")
        op = rule[0] if rule is not None and len(rule) else None
        try:
            cur = float(getattr(c, store).get(ref, 0.0))
        except (TypeError, ValueError):
            raise c.error(self.el, f"{self.name}.parameterRef", f"{ref!r} is not a number, cannot modify it") from None
        v = _f(op, "value")
        c.set_param(ref, cur + v if op is not None and op.tag == "AddValue" else cur * v, store)
        self.done = True

    def _start_ParameterModifyAction(self, c: Any) -> None:
        self._modify(c, self.el.getparent().get("parameterRef"), "params")

    def _start_VariableModifyAction(self, c: Any) -> None:
        self._modify(c, self.el.getparent().get("variableRef"), "variables")

    def _start_TrafficSwarmAction(self, c: Any) -> None:
        c.start_swarm(self.el)
        self.done = True

    def _start_TrafficStopAction(self, c: Any) -> None:
        c.stop_traffic(self.el.getparent().get("trafficName"))
        self.done = True

    def _start_TrafficSignalStateAction(self, c: Any) -> None:
        c.signals[self.el.get("name")] = self.el.get("state")
        self.done = True

    def _start_TrafficSignalControllerAction(self, c: Any) -> None:
        c.set_controller_phase(self.el.get("trafficSignalControllerRef"), self.el.get("phase"))
        self.done = True

    # ------------------------------------------------------------------ longitudinal
    def _target_speed(self, c: Any) -> float:
        t = self.el.find("SpeedActionTarget")
        a = t.find("AbsoluteTargetSpeed")
        if a is not None:
            return _f(a, "value")
        r = t.find("RelativeTargetSpeed")
        ref = c.entities[r.get("entityRef")].speed
        v = _f(r, "value")
        return ref + v if r.get("speedTargetValueType", "delta") == "delta" else ref * v

    def _start_SpeedAction(self, c: Any) -> None:
        e = c.entities[self.actor]
        dyn = self.el.find("SpeedActionDynamics")
        dyn = dyn if dyn is not None else self.el.find("TransitionDynamics")
        self.shape = dyn.get("dynamicsShape", "step")
        dim, val = dyn.get("dynamicsDimension", "time"), _f(dyn, "value")
        self.v0, self.v1 = e.speed, self._clamp(e, self._target_speed(c))
        rel = self.el.find("SpeedActionTarget/RelativeTargetSpeed")
        self.continuous = rel is not None and rel.get("continuous", "false").lower() == "true"
        dv = abs(self.v1 - self.v0)
        val = abs(val)  # a rate is often written negative for braking
        k = {"linear": 1.0, "cubic": 1.5, "sinusoidal": math.pi / 2}.get(self.shape, 1.0)  # peak rate / mean rate
        if self.shape == "step" or val <= 0:
            self.T = 0.0
        elif dim == "time":
            self.T = val
        elif dim == "rate":
            self.T = k * dv / val
        else:  # distance: the shapes are symmetric, so the mean speed is the midpoint
            self.T = 2 * val / max(abs(self.v0 + self.v1), 1e-6)
        if self.T > 0 and dv > 0:
            # the entity's Performance caps the peak acceleration: a too-quick transition is stretched
            limit = e.max_accel if self.v1 > self.v0 else e.max_decel
            peak = k * dv / self.T
            if limit > 0 and peak > limit:
                self.T *= peak / limit
        self.elapsed = 0.0

    @staticmethod
    def _clamp(e: Any, v: float) -> float:
        return max(-e.max_speed, min(e.max_speed, v))

    def _step_SpeedAction(self, c: Any, dt: float) -> None:
        e = c.entities[self.actor]
        if self.continuous:
            self.v1 = self._clamp(e, self._target_speed(c))
        self.elapsed += dt
        if self.T <= 1e-9 or self.elapsed >= self.T - 1e-9:
            e.speed = self.v1
            self.done = not self.continuous
            return
        e.speed = self.v0 + (self.v1 - self.v0) * shape_fn(self.shape)(self.elapsed / self.T)

    def _start_SpeedProfileAction(self, c: Any) -> None:
        e = c.entities[self.actor]
        self.entries = [(_f(x, "speed"), _f(x, "time", -1.0)) for x in self.el.findall("SpeedProfileEntry")]
        ref = self.el.find("EntityRef")
        offset = c.entities[ref.get("entityRef")].speed if ref is not None else 0.0
        follow = self.el.get("followingMode", "position") == "follow"
        lim = SA.constraints(self.el.find("DynamicConstraints"), e)
        self.segments = SA.profile_segments(self.entries, follow, lim, c.time, e.speed, e.accel, offset) if self.entries else []
        self.seg, self.v = 0, e.speed
        if not self.segments:
            self.done = True

    def _step_SpeedProfileAction(self, c: Any, dt: float) -> None:
        e = c.entities[self.actor]
        time, last = c.time + dt, self.segments[-1]
        if time < last[0] + 10 and not (time > last[0] and abs(self.v - last[1]) < SA.SMALL):
            self.v, self.seg = SA.profile_speed(self.segments, self.seg, time)
        if self.seg >= len(self.entries) - 1 and abs(self.v - last[1]) < SA.SMALL:
            self.v, self.done = last[1], True
        e.speed = self.v

    def _start_LongitudinalDistanceAction(self, c: Any) -> None:
        dc = self.el.find("DynamicConstraints")
        self.limits = SA.constraints(dc, c.entities[self.actor]) if dc is not None else None
        self.acc = 0.0
        disp = self.el.get("displacement", "trailingReferencedEntity")
        if disp == "any":  # the side it starts on
            from roadtest.sim.xosc.conditions import rel_distance

            o, e = c.entities[self.el.get("entityRef")], c.entities[self.actor]
            fs = self.el.get("freespace", "false").lower() == "true"
            ahead = rel_distance(c, o, e, "longitudinal", fs, self.el.get("coordinateSystem", "entity")) > 0
            disp = "leadingReferencedEntity" if ahead else "trailingReferencedEntity"
        self.leading = disp == "leadingReferencedEntity"

    def _step_LongitudinalDistanceAction(self, c: Any, dt: float) -> None:
        from roadtest.sim.xosc.conditions import rel_distance

        e, o = c.entities[self.actor], c.entities[self.el.get("entityRef")]
        fs = self.el.get("freespace", "false").lower() == "true"
        cs = self.el.get("coordinateSystem", "entity")
        gap = rel_distance(c, o, e, "longitudinal", fs, cs)  # >0: e ahead of o
        want = _f(self.el, "distance") if self.el.get("distance") else _f(self.el, "timeGap") * abs(o.speed)
        if not self.leading:
            want = -want
        err = gap - want  # >0: too far ahead (slow down); <0: too far behind (speed up)
        if self.el.get("continuous", "false").lower() != "true" and abs(err) < 0.1:
            self.done = True
        lim = self.limits
        if lim is None or (lim.max_accel >= SA.LARGE and lim.max_decel >= SA.LARGE):
            # no constraints: keep the gap exactly, as a rigid link (players move the entity there directly)
            e.speed = o.speed
            m = c.motions[self.actor]
            if m.road is not None:
                m.s -= err * m.sdir
                if dt <= 0 and c.net is not None:  # in Init nothing moves afterwards: it is there from the start
                    p = c.net.lane_to_world(m.road, m.lane, m.s, m.offset)
                    e.x, e.y, e.z = p.x, p.y, p.z
                    e.lane = locate(c.net, e.x, e.y, e.z, e.h).lane
        else:
            self.acc = SA.distance_accel(-err, e.speed - o.speed, self.acc, lim, dt)
            e.speed = max(-lim.max_speed, min(lim.max_speed, e.speed + self.acc * dt))

    def _start_SynchronizeAction(self, c: Any) -> None:
        self.target = parse_position(self.el.find("TargetPosition"), c.file)
        self.master = parse_position(self.el.find("TargetPositionMaster"), c.file)
        self.mref = self.el.get("masterEntityRef")
        fs = self.el.find("FinalSpeed")
        self.final = fs[0] if fs is not None and len(fs) else None
        ss = self.final[0] if self.final is not None and len(self.final) else None
        ss_dist = _f(ss, "distance") if ss is not None and ss.tag == "TargetDistanceSteadyState" else None
        ss_time = _f(ss, "time") if ss is not None and ss.tag == "TargetTimeSteadyState" else None
        self.sync = SA.Synchronizer(_f(self.el, "targetTolerance"), _f(self.el, "targetToleranceMaster"), ss_dist, ss_time)
        self.p_self = resolve(self.target, c.net, c.entities)
        self.p_master = resolve(self.master, c.net, c.entities)
        if ss is not None and ss.tag == "TargetPositionSteadyState":
            p_ss = resolve(parse_position(ss.find("Position") if ss.find("Position") is not None else ss, c.file), c.net, c.entities)
            self.sync.steady_dist = abs(self.p_self.lane.s - p_ss.lane.s) if self.p_self.lane and p_ss.lane else math.hypot(
                self.p_self.x - p_ss.x, self.p_self.y - p_ss.y)
        self.sync.start(self._final_speed(c))
        self._first = True  # before its first step

    def _final_speed(self, c: Any) -> float | None:
        """FinalSpeed now: absolute, or relative to the master's current speed (delta or factor)."""
        f = self.final
        if f is None:
            return None
        if f.tag == "AbsoluteSpeed":
            return _f(f, "value")
        ms = c.entities[self.mref].speed
        return ms * _f(f, "value") if f.get("speedTargetValueType", "delta") == "factor" else ms + _f(f, "value")

    def _step_SynchronizeAction(self, c: Any, dt: float) -> None:
        e, m = c.entities[self.actor], c.entities[self.mref]
        dm = c.distance_along(m, self.p_master)
        ds = c.distance_along(e, self.p_self)
        toward = _vel_s(c, m) if dm >= 0 else -_vel_s(c, m)  # the master's speed towards its target
        if self._first and self._trajectory_pending(c, self.mref):
            # esmini measures a master whose trajectory is not yet in place along the road network, which reads as
            # not approaching here: the entity waits this step, then plans from the waiting mode (pedestrian_traj_synch)
            toward = 0.0
        self._first = False
        e.speed, self.done = self.sync.step(abs(ds), abs(dm), toward, e.speed, self._final_speed(c), dt, _vel_s(c, e))

    @staticmethod
    def _trajectory_pending(c: Any, name: str) -> bool:
        """True when `name` runs a FollowTrajectoryAction that has not yet made its first step."""
        return any(ra.actor == name and ra.name == "FollowTrajectoryAction" and not ra.done and ra.stepped_at is None
                   for _, ra in c.running)

    # ------------------------------------------------------------------ lateral
    def _start_LaneChangeAction(self, c: Any) -> None:
        e, m = c.entities[self.actor], c.motions[self.actor]
        if m.road is None:
            self.done = True
            return
        tgt = self.el.find("LaneChangeTarget")
        rel, ab = tgt.find("RelativeTargetLane"), tgt.find("AbsoluteTargetLane")
        net = c.net
        if ab is not None:
            lane = int(float(ab.get("value")))
        else:
            ref = c.entities[rel.get("entityRef")]
            rl = ref.lane.lane if ref.lane is not None else m.lane
            d = c.motions[ref.name].sdir if ref.lane is not None else m.sdir
            v = int(float(rel.get("value")))
            lane = rl + v * d
            if lane * rl <= 0 and v:
                lane += d if v > 0 else -d
        dyn = self.el.find("LaneChangeActionDynamics")
        cur_t = e.lane.t if e.lane is not None else 0.0
        from roadtest.sim.xosc.positions import _lane_pose
        centre = _lane_pose(net, m.road, lane, m.s, 0.0).lane.t
        start = cur_t - centre
        self.profile = LateralProfile(start, _f(self.el, "targetLaneOffset") * m.sdir, dyn.get("dynamicsShape", "step"),
                                      dyn.get("dynamicsDimension", "time"), _f(dyn, "value"), from_lane=m.lane)
        m.lane, m.offset, m.lat = lane, start, self.profile

    def _step_LaneChangeAction(self, c: Any, dt: float) -> None:
        m = c.motions[self.actor]
        if self.profile.done or m.lat is not self.profile:
            self.done = True
            return
        # esmini moves a changing lane in this action's own step, in storyboard order: a speed action written after
        # it has not yet changed this tick's speed
        later = any(ra.actor == self.actor and "long" in ra.domains and (not ra.done or ra.stepped_at == c.time)
                    and _after(ra.el, self.el) for _, ra in c.running)
        m.lat_speed = c.snap[self.actor].speed if later and self.actor in getattr(c, "snap", {}) else None

    def _start_LaneOffsetAction(self, c: Any) -> None:
        m = c.motions[self.actor]
        tgt = self.el.find("LaneOffsetTarget")
        ab, rel = tgt.find("AbsoluteTargetLaneOffset"), tgt.find("RelativeTargetLaneOffset")
        if ab is not None:
            target = _f(ab, "value") * m.sdir
        else:
            target = c.motions[rel.get("entityRef")].offset + _f(rel, "value") * m.sdir
        dyn = self.el.find("LaneOffsetActionDynamics")
        shape, amax = dyn.get("dynamicsShape", "cubic"), _f(dyn, "maxLateralAcc", 0.0)
        dist = abs(target - m.offset)
        if amax <= 0 or shape == "step" or dist < 1e-9:
            T = 0.0
        elif shape == "sinusoidal":
            T = math.pi * math.sqrt(dist / (2 * amax))
        elif shape == "cubic":
            T = math.sqrt(6 * dist / amax)
        else:
            T = math.sqrt(4 * dist / amax)
        self.profile = LateralProfile(m.offset, target, shape, "time", T, lane_offset=True)
        m.lat = self.profile

    def _step_LaneOffsetAction(self, c: Any, dt: float) -> None:
        m = c.motions[self.actor]
        # esmini ends even a continuous lane offset once it has reached an absolute target
        if self.profile.done or m.lat is not self.profile:
            self.done = True

    def _start_LateralDistanceAction(self, c: Any) -> None:
        dc = self.el.find("DynamicConstraints")
        self.max_lat_speed = _f(dc, "maxSpeed", math.inf) if dc is not None else math.inf
        self.max_lat_acc = _f(dc, "maxAcceleration", math.inf) if dc is not None else math.inf
        self.lat_v = 0.0
        self.first = True
        self.ref_xy: tuple[float, float] | None = None

    def _ref_lat_speed(self, o: Any, dt: float) -> float:
        """The referenced entity's sideways speed over the last tick, in its own frame (left positive)."""
        prev, self.ref_xy = self.ref_xy, (o.x, o.y)
        if prev is None:
            return 0.0
        vx, vy = (o.x - prev[0]) / dt, (o.y - prev[1]) / dt
        return -vx * math.sin(o.h) + vy * math.cos(o.h)

    def _step_LateralDistanceAction(self, c: Any, dt: float) -> None:
        """Road-frame lateral gap to the referenced entity: rigid, rate-limited, or a critically damped spring.

        The constrained moves keep the entity's speed: the sideways metres come out of its progress along the lane.
        """
        e, o = c.entities[self.actor], c.entities[self.el.get("entityRef")]
        m, mo = c.motions[self.actor], c.motions[o.name]
        if m.road is None or e.lane is None or o.lane is None or dt <= 0:
            return
        ref_v = self._ref_lat_speed(o, dt)
        if self.first:  # the first tick only takes the measure, as players do
            self.first = False
            return
        want = _f(self.el, "distance")
        if self.el.get("freespace", "false").lower() == "true":
            want += (e.width + o.width) / 2
        disp = self.el.get("displacement", "any")
        rel = (e.lane.t - o.lane.t) * mo.sdir  # > 0: left of the reference, in its driving direction
        side = 1.0 if disp == "leftToReferencedEntity" else -1.0 if disp == "rightToReferencedEntity" else (1.0 if rel >= 0 else -1.0)
        err = (side * want - rel) * mo.sdir  # road-frame metres still to move (left positive)
        cont = self.el.get("continuous", "false").lower() == "true"
        if not math.isfinite(self.max_lat_speed) and not math.isfinite(self.max_lat_acc):
            m.offset += err  # rigid
            if not cont:
                self.done = True
            return
        vmax = max(min(self.max_lat_speed, abs(e.speed)) - 1e-6, 0.0)  # some speed stays for going along the lane
        if math.isfinite(self.max_lat_acc):
            # the spring damps the speed relative to the reference's own sideways speed, as esmini's does
            k = 0.4 * self.max_lat_acc  # spring stiffness from the acceleration limit, critically damped
            a = k * err - 2 * math.sqrt(k) * (self.lat_v - ref_v * mo.sdir)
            a = max(-self.max_lat_acc, min(self.max_lat_acc, a))
            self.lat_v = max(-vmax, min(vmax, self.lat_v + a * dt))
            move = self.lat_v * dt
            done = abs(err) < 0.01
        else:
            move = math.copysign(min(vmax * dt, abs(err)), err)
            done = abs(move - err) < 1e-9
        m.side_step = move
        if done and not cont:
            self.done = True

    # ------------------------------------------------------------------ trajectories
    def _start_FollowTrajectoryAction(self, c: Any) -> None:
        e, m = c.entities[self.actor], c.motions[self.actor]
        traj = self.el.find("Trajectory")
        if traj is None:
            tr = self.el.find("TrajectoryRef")
            traj = tr.find("Trajectory") if tr is not None else None
        self.path = c.build_path(traj, self.el.find("TimeReference/Timing"), self.actor)
        mode = self.el.find("TrajectoryFollowingMode")
        shape = traj.find("Shape")
        if (self.path.times is not None and mode is not None and mode.get("followingMode") == "follow"
                and shape is not None and len(shape) and shape[0].tag == "Polyline"):
            self.path.follow_speeds(e.speed)
        off = _f(self.el, "initialDistanceOffset")
        self.path.s = off
        m.path = self.path
        m.path_done = self._path_done
        # the entity starts where the trajectory does (esmini puts it there on start; Init may give no other position)
        e.x, e.y, e.z, e.h = self.path.pose(off)
        e.lane = locate(c.net, e.x, e.y, e.z, e.h).lane

    def _path_done(self) -> None:
        self.done = True

    def _step_FollowTrajectoryAction(self, c: Any, dt: float) -> None:
        if c.motions[self.actor].path is not self.path:
            self.done = True


def _check_private(el: Any, name: str, eb: Any) -> Any:
    """Load-time checks; returns a parsed position for positional actions."""
    if name in ("TeleportAction", "AcquirePositionAction"):
        return parse_position(el.find("Position"), eb.file)
    if name == "AddEntityAction":
        return parse_position(el.find("Position"), eb.file)
    if name == "FollowTrajectoryAction":
        traj = el.find("Trajectory")
        if traj is None and el.find("TrajectoryRef") is not None:
            traj = el.find("TrajectoryRef/Trajectory")
        if traj is None:
            raise UnsupportedError("FollowTrajectoryAction", *eb.where(el), "no Trajectory")
        shape = traj.find("Shape")
        if shape is None or not len(shape) or shape[0].tag not in ("Polyline", "Clothoid", "ClothoidSpline", "Nurbs"):
            raise UnsupportedError(shape[0].tag if shape is not None and len(shape) else "Shape", *eb.where(traj))
    if name == "SpeedAction":
        t = el.find("SpeedActionTarget")
        if t is None or (t.find("AbsoluteTargetSpeed") is None and t.find("RelativeTargetSpeed") is None):
            raise eb.error(el, "SpeedAction.SpeedActionTarget", "expected AbsoluteTargetSpeed or RelativeTargetSpeed")
    return None


def make_action(action_xml: Any, actors: list[str], eb: Any) -> list[RuntimeAction]:
    """Runtime actions for an <Action> (or an Init <PrivateAction>/<GlobalAction>), checked at load."""
    inner = action_xml
    if inner.tag == "Action":
        kids = [k for k in inner if isinstance(k.tag, str)]
        if not kids:
            return []  # an empty placeholder action (scenario_runner writes them): it completes at once
        inner = kids[0]
    if inner.tag in ("UserDefinedAction", "CustomCommandAction"):
        raise UnsupportedError(inner.tag, *eb.where(inner))
    leaf, name = _leaf(inner)
    if inner.tag == "PrivateAction" or name in PRIVATE:
        if name not in PRIVATE:
            raise UnsupportedError(name, *eb.where(leaf))
        pos = _check_private(leaf, name, eb)
        out = []
        for a in actors:
            ra = RuntimeAction(leaf, name, a, eb)
            ra.pos = pos
            ra.domains = _domains(name, leaf)
            out.append(ra)
        return out
    if name not in GLOBAL:
        raise UnsupportedError(name, *eb.where(leaf))
    ra = RuntimeAction(leaf, name, None, eb)
    ra.pos = _check_private(leaf, name, eb)
    if name in ("AddEntityAction", "DeleteEntityAction"):
        ref = leaf.getparent().get("entityRef")
        if ref not in eb.entity_names:
            raise eb.error(leaf.getparent(), "EntityAction.entityRef", f"unknown entity {ref!r}")
    return [ra]


def _domains(name: str, el: Any) -> frozenset[str]:
    if name in ("SpeedAction", "LongitudinalDistanceAction", "SynchronizeAction", "SpeedProfileAction"):
        return frozenset({"long"})
    if name in ("LaneChangeAction", "LaneOffsetAction", "LateralDistanceAction"):
        return frozenset({"lat"})
    if name == "FollowTrajectoryAction":
        timed = el.find("TimeReference/Timing") is not None
        return frozenset({"lat", "path", "long"} if timed else {"lat", "path"})
    return frozenset()

