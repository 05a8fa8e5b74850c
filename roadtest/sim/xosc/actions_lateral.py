"""Lateral OpenSCENARIO actions (lane change, lane offset, lateral distance) of RuntimeAction."""

from __future__ import annotations

import math
from typing import Any

from roadtest.sim.xosc.motion import LateralProfile
from roadtest.sim.xosc.parser import attr_float as _f

__all__ = ["LateralActions"]


def _after(a: Any, b: Any) -> bool:
    """True when element a comes after element b in the same scenario document."""
    if a is None or b is None or a.getroottree().getroot() is not b.getroottree().getroot():
        return False
    if a.sourceline != b.sourceline:
        return (a.sourceline or 0) > (b.sourceline or 0)
    return False


class LateralActions:
    """The _start_/_step_ methods of the lateral actions (mixed into RuntimeAction)."""

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
        # the standard gives no value for a missing maxLateralAcc: esmini's 0.5 m/s2 (ScenarioReader.cpp,
        # parseOSCLateralAction: "Using default"), not a jump
        shape, amax = dyn.get("dynamicsShape", "cubic"), _f(dyn, "maxLateralAcc", 0.5)
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
        entity_frame = self.el.get("coordinateSystem", "entity") == "entity"  # the standard's default
        rigid = not math.isfinite(self.max_lat_speed) and not math.isfinite(self.max_lat_acc)
        if self.first and not (entity_frame and rigid):
            # the road frame's first tick only takes the measure (esmini LatDistanceAction::Step, MoveState::INIT)
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
        if rigid and entity_frame:
            # esmini (LatDistanceAction::Step, CS_ENTITY): the jump to the line at the distance is part of the
            # tick's path, v*dt; only what it leaves goes on along the lane
            m.side_step, m.side_linear = err, True
            if not cont:
                self.done = True
            return
        if rigid:
            m.offset += err  # road frame: the jump, and the whole step along the lane
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
