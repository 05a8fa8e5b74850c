"""Longitudinal OpenSCENARIO actions (speed, speed profile, longitudinal distance, synchronize) of RuntimeAction."""

from __future__ import annotations

import math
from typing import Any

from roadtest.sim.xosc import speed_actions as SA
from roadtest.sim.xosc.motion import shape_fn
from roadtest.sim.xosc.parser import attr_float as _f
from roadtest.sim.xosc.positions import locate, parse_position, resolve

__all__ = ["LongitudinalActions"]


def _vel_s(c: Any, e: Any) -> float:
    """e's speed along its road's s axis (signed as its speed); its plain speed off the road network."""
    if e.lane is None or c.network is None:
        return e.speed
    try:
        h = c.network.road_to_world(e.lane.road, e.lane.s, e.lane.t).h
    except Exception:  # noqa: BLE001 - a road the network cannot place: fall back to the plain speed
        return e.speed
    return math.copysign(abs(e.speed * math.cos(e.h - h)), e.speed)


class LongitudinalActions:
    """The _start_/_step_ methods of the longitudinal actions (mixed into RuntimeAction)."""

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
        # scenario_runner's ChangeActorTargetSpeed keeps a step change running for its dynamics' time or distance
        # (its parser passes `value` as the atomic's duration or distance whatever the shape); a file written for it
        # ends such an action there, where the standard ends it at once
        dialect = getattr(getattr(c, "sc", None), "srunner_dialect", False)
        self.hold = (dim, val) if self.shape == "step" and val > 0 and dialect else None
        self.held = 0.0
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
        self.elapsed, self.stepped = 0.0, False

    @staticmethod
    def _clamp(e: Any, v: float) -> float:
        return max(-e.max_speed, min(e.max_speed, v))

    def _step_SpeedAction(self, c: Any, dt: float) -> None:
        e = c.entities[self.actor]
        if self.continuous:
            self.v1 = self._clamp(e, self._target_speed(c))
        self.elapsed += dt
        first, self.stepped = not self.stepped, True
        at_end = self.T <= 1e-9 or self.elapsed >= self.T - 1e-9
        v = self.v1 if at_end else self.v0 + (self.v1 - self.v0) * shape_fn(self.shape)(self.elapsed / self.T)
        if not first and dt > 0:
            # after its start a speed action moves the speed no faster than the entity's Performance allows
            # (esmini's LongSpeedAction::Step): a continuous target that jumps is followed at maxDeceleration.
            # Under a driver (a ghost-following controller) the action's speed is its own last output, not the entity's.
            base = self.v_out if self.actor in getattr(c, "drivers", {}) else e.speed
            v = base + max(-e.max_decel * dt, min(e.max_accel * dt, v - base))
        e.speed = self.v_out = v
        if self.hold is not None:
            self.held += abs(v) * dt if self.hold[0] == "distance" else dt
            if self.held < self.hold[1] - 1e-9:
                return
        if at_end and abs(v - self.v1) < 1e-9:
            self.done = not self.continuous

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
