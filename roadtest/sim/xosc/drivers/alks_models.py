"""UN Regulation 157 ALKS safety models (Regulation, ReferenceDriver) that pick a speed each tick; RSS and FSM in alks_rss_fsm.

Behaviour follows esmini's ALKS_R157SM_Controller (itself after JRC-FSM): find the object to focus
on, decide whether the situation is critical, brake if so, otherwise cruise (optionally following a
lead). Distances and speeds come from a Perception (alks_r157.py) in the ego's driving frame:
s forward along the road, t to the ego's left.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

__all__ = ["ObjectInfo", "Model", "Regulation", "ReferenceDriver", "SMALL", "LARGE", "G", "sign_of", "NONE", "CUT_IN", "DECELERATION",
           "CRITICAL", "TARGET_IN_SIGHT", "NO_TARGET"]

SMALL = 1e-6  # esmini's SMALL_NUMBER
LARGE = 1e10
G = 9.81

NONE, CUT_IN, CUT_OUT, DECELERATION = "None", "CutIn", "CutOut", "Deceleration"
CRITICAL, TARGET_IN_SIGHT, NO_TARGET = "CRITICAL", "TARGET_IN_SIGHT", "NO_TARGET"
INACTIVE, PERCEIVE, REACT, BRAKE_REF = "INACTIVE", "PERCEIVE", "REACT", "BRAKE_REF"


def sign_of(x: float) -> int:
    return -1 if x < 0 else 1


@dataclass
class ObjectInfo:
    """What the model measured of one object (freespace distances, relative speeds, TTC, headway)."""

    obj: str | None = None
    cut_out_vehicle: str | None = None
    dist_long: float = LARGE  # m, freespace along s
    dist_lat: float = LARGE  # m, freespace across s, positive when the object is to the left
    dv_s: float = 0.0  # m/s, closing speed along s
    dv_t: float = 0.0  # m/s, closing speed across s
    ttc: float = LARGE  # s
    thw: float = LARGE  # s
    dlane: int = 0  # lanes to the object, left positive
    action: str = NONE  # CutIn | CutOut | Deceleration | None


class Model:
    """Shared flow: detect, check criticality, react or cruise; subclasses give the criteria."""

    name = ""
    reaction_time, max_dec, max_range = 0.75, 0.774 * G, 100.0

    def __init__(self) -> None:
        self.rt = self.reaction_time
        self.rt_counter = 0.0
        self.acc = 0.0
        self.set_speed = 0.0
        self.dt = 0.05
        self.cruise_on, self.full_stop, self.always_trig = True, False, False
        self.cruise_comfort_acc, self.cruise_comfort_dec = 2.0, 2.0
        self.cruise_max_acc, self.cruise_max_dec = 3.0, 4.0
        self.max_acc, self.max_acc_lat = 3.0, 1.0
        self.mode = NO_TARGET
        self.scenario = NONE
        self.focus = ObjectInfo()
        self.world: Any = None
        self.log: list[str] = []  # mode and phase transitions, for the trace

    # -- the flow
    def step(self, world: Any, dt: float) -> float:
        """The speed for the next tick, given what the perception sees now."""
        self.dt, self.world = dt, world
        if self.focus.obj and self.holds_focus():
            world.process(self.focus, self.max_range)  # keep measuring the object already reacted to
        else:
            self.detect()
        if self.check_critical():
            return self.react_critical()
        return self.cruise()

    def holds_focus(self) -> bool:
        return False

    @property
    def v(self) -> float:
        return self.world.ego.speed

    def detect(self) -> None:
        """Focus on the closest threat ahead (an object beyond a cutting-out vehicle when it is nearer in time)."""
        w, cand, tmp = self.world, ObjectInfo(), ObjectInfo()
        for name in w.names():
            tmp.obj = name
            if not w.process(tmp, self.max_range) or self.check_safety(tmp):
                continue
            vehicle = w.kind(name) == "vehicle"
            beyond_cut_out = (tmp.dlane == 0 and cand.obj is not None and w.kind(cand.obj) == "vehicle"
                              and cand.action == CUT_OUT)
            if tmp.dist_long < cand.dist_long or beyond_cut_out:
                if vehicle and tmp.action == CUT_OUT and cand.obj and cand.dlane == 0:
                    if tmp.ttc < cand.ttc:
                        cand = copy.copy(tmp)
                elif beyond_cut_out:
                    if tmp.ttc < cand.ttc:
                        cut_out = cand.obj
                        cand = copy.copy(tmp)
                        cand.cut_out_vehicle, cand.action = cut_out, CUT_OUT
                else:
                    cand = copy.copy(tmp)
        if cand.obj and cand.action != NONE and (cand.obj != self.focus.obj or cand.action != self.focus.action):
            self.scenario = cand.action
            self.note(f"detected {cand.obj}: {cand.action}")
        self.focus = cand

    def cruise(self) -> float:
        """No critical situation: keep the set speed, or follow the object in focus at the model's distance."""
        f, v = self.focus, self.v
        if self.cruise_on:
            if f.obj is None:
                self.set_mode(NO_TARGET)
                self.acc = 0.0 if abs(v - self.set_speed) < SMALL else (
                    -self.cruise_comfort_dec if v > self.set_speed else self.cruise_comfort_acc)
                return min(max(v + self.acc * self.dt, 0.0), self.set_speed)
            if f.dist_long > 0 and f.ttc > f.dv_s / 12.0 + 0.35:
                self.set_mode(TARGET_IN_SIGHT)
                if abs(v) < SMALL:
                    self.acc = 0.0  # come to a stop: release the brake
                else:
                    self.acc = -2.0 * f.dv_s + 1.0 * (f.dist_long - self.min_dist())
                    self.acc = min(max(self.acc, -self.cruise_max_dec), self.cruise_max_acc)
                return min(max(v + self.acc * self.dt, 0.0), self.set_speed)
        self.acc = 0.0
        return v

    def set_mode(self, mode: str) -> None:
        if mode != self.mode:
            self.note(f"mode {self.mode} -> {mode}")
            self.mode = mode

    def no_target(self) -> bool:
        """True, in mode NO_TARGET, when nothing is in focus."""
        if self.focus.obj is None:
            self.set_mode(NO_TARGET)
            return True
        return False

    def enter_critical(self) -> None:
        """Critical from now on; the reaction time starts counting when it was not critical already."""
        if self.mode != CRITICAL:
            self.rt_counter = self.rt
        self.set_mode(CRITICAL)

    def reacting(self) -> float | None:
        """Within the reaction time the model only stops accelerating: this tick's speed then, else None."""
        if self.rt_counter > 0.0:
            self.acc = min(self.acc, 0.0)
            self.rt_counter -= self.dt
            return self.v + self.acc * self.dt
        return None

    def note(self, msg: str) -> None:
        self.log.append(f"{self.world.time:.2f}s {self.name}: {msg}" if self.world is not None else msg)

    # -- model specific
    def check_safety(self, info: ObjectInfo) -> bool:
        """True when the object is no threat (not in, nor entering, the ego lane)."""
        return True

    def check_critical(self) -> bool:
        return False

    def react_critical(self) -> float:
        raise NotImplementedError

    def min_dist(self) -> float:
        raise NotImplementedError


class Regulation(Model):
    """R157 5.2.5: brake at 6 m/s^2 when TTC drops below v_rel / (2 * 6) + 0.35 s (+0.1 s margin)."""

    name = "Regulation"
    reaction_time, max_dec, max_range = 0.35, 6.0, 46.0

    def min_dist(self) -> float:
        v = self.v
        gap = 1.0 + (max(2.0, v) - 2.0) / 7.8 if v * 3.6 < 10.0 else 1.0 + v * 3.6 / 100.0  # R157 5.2.3.3
        return max(v * gap, 2.0)

    def check_safety(self, info: ObjectInfo) -> bool:
        if info.obj is None or info.dist_lat == LARGE:
            return True
        if info.dlane == 0:
            info.action = DECELERATION
            return False
        if info.dist_lat > -SMALL:  # only objects on the left are checked, as esmini does
            # the front wheel on the side towards the ego is 0.3 m inside the ego lane
            if self.world.wheel_intrusion(info.obj, info.dlane) > 0.3:
                info.action = CUT_IN
                return False
        return True

    def check_critical(self) -> bool:
        f = self.focus
        if self.no_target():
            return False
        if self.mode == CRITICAL and self.full_stop:
            return True
        if f.dv_s > 0.0 and f.dist_long > 0 and f.ttc < f.dv_s / (2 * self.max_dec) + self.rt + 0.1:
            self.set_mode(CRITICAL)
            return True
        self.set_mode(TARGET_IN_SIGHT)
        return False

    def react_critical(self) -> float:
        self.acc = -self.max_dec
        return max(0.0, self.v + self.acc * self.dt)


class ReferenceDriver(Model):
    """R157 Annex 3 reference driver: perceive (0.4 s or 0.72 m), react (0.75 s), brake with jerk; AEB on top."""

    name = "ReferenceDriver"
    reaction_time, max_dec, max_range = 0.75, 0.774 * G, 100.0

    def __init__(self) -> None:
        super().__init__()
        self.min_jerk = 12.65
        self.release_dec = 0.4
        self.critical_ttc = self.critical_thw = 2.0
        self.phase = INACTIVE
        self.timer = 0.0
        self.delay_mode = "Dist"  # Dist | Time
        self.perception_dist, self.perception_time = 0.72, 0.4
        self.wandering = 0.375
        self.overlap_tolerance = 0.1
        self.ped_eval_time = 0.4
        self.perception_t = 0.0
        self.aeb_ttc, self.aeb_dec, self.aeb_available, self.aeb_active = 1.5, 0.85 * G, True, False
        self.lateral_trigger: float | None = None  # lateralTrigDistance; None: the wandering threshold
        self.trig_obj: str | None = None
        self.trig_t0 = 0.0
        self.trig_threshold = 0.0

    def holds_focus(self) -> bool:
        return self.phase != INACTIVE and self.full_stop

    def min_dist(self) -> float:
        return 2.0 + self.v * 2.0

    def set_phase(self, phase: str) -> None:
        if phase != self.phase:
            self.note(f"phase {self.phase} -> {phase}")
            self.phase = phase

    def reset(self) -> None:
        self.set_phase(INACTIVE)
        self.scenario = NONE

    # -- lateral trigger: the object moved a threshold towards the ego since it started to
    def _update_trigger(self, info: ObjectInfo) -> None:
        w = self.world
        if info.obj is None or info.dv_t < SMALL:
            self.trig_obj, self.trig_t0 = None, 0.0
            return
        if info.obj != self.trig_obj:
            self.trig_obj, self.trig_t0 = info.obj, w.t(info.obj)
            if self.lateral_trigger is not None:
                self.trig_threshold = self.lateral_trigger
                return
            self.trig_threshold = self.wandering
            off, mc = w.offset(info.obj), w.category(info.obj) == "motorbike"
            t_obj, t_ego = w.t(info.obj), w.ego.t
            if (t_obj > t_ego and off > 0) or (t_obj < t_ego and off < 0):
                self.trig_threshold += abs(off)  # beyond its lane centre: wander back to it first
            elif not mc:
                self.trig_threshold = max(0.0, self.trig_threshold - abs(off))

    def _trigger_fired(self) -> bool:
        return self.trig_obj is not None and abs(self.world.t(self.trig_obj) - self.trig_t0) > self.trig_threshold

    def check_safety(self, info: ObjectInfo) -> bool:
        if info.obj is None or info.dist_lat == LARGE:
            return True
        w = self.world
        self._update_trigger(info)
        if w.kind(info.obj) == "pedestrian":
            if info.dv_t > SMALL:
                info.action = CUT_IN
                return False  # a pedestrian walking towards the ego lane
        elif info.dlane == 0:
            if abs(w.centre_offset(info.obj)) > self.wandering and info.dv_t < -SMALL:
                info.action = CUT_OUT
            elif w.acc_s(info.obj) < -5.0 + SMALL:
                info.action = DECELERATION
            return False
        else:
            if self._trigger_fired():
                info.action = CUT_IN
                return False
            if info.action == CUT_IN:
                info.action = NONE
        return True

    def _perceived(self) -> bool:
        """Whether the focus scenario has been perceived (perception delay over)."""
        f, w = self.focus, self.world
        if self.scenario == CUT_IN:
            ped = f.obj is not None and w.kind(f.obj) == "pedestrian"
            if self.phase == INACTIVE:
                if ped and f.dv_s > SMALL:
                    self.timer = self.ped_eval_time
                    self.set_phase(PERCEIVE)
                elif self._trigger_fired():
                    self.perception_t = w.t(f.obj) if f.obj else 0.0
                    if self.delay_mode == "Dist":
                        self.perception_dist = 0.72  # R157 3.4.1
                    else:
                        self.timer = self.perception_time
                    self.set_phase(PERCEIVE)
            elif self.phase == PERCEIVE:
                if ped:
                    if f.dv_s > SMALL:
                        self.timer -= self.dt
                        if self.timer < SMALL:
                            self.set_phase(REACT)
                elif self.delay_mode == "Dist":
                    if f.obj is not None:
                        t, te = w.t(f.obj), w.ego.t
                        if (t > te and t < self.perception_t - self.perception_dist) or (
                                t < te and t > self.perception_t + self.perception_dist):
                            self.set_phase(REACT)
                else:
                    self.timer -= self.dt
                    if self.timer < SMALL:
                        self.set_phase(REACT)
                if self.phase == REACT:
                    self.timer = self.rt
                    return True
            return False
        if self.scenario in (CUT_OUT, DECELERATION):
            if self.phase == INACTIVE:
                start = f.dv_s > SMALL if self.scenario == CUT_OUT else (f.obj is not None and w.acc_s(f.obj) < -5.0)
                if start:
                    self.set_phase(PERCEIVE)
                    self.timer = self.perception_time
            elif self.phase == PERCEIVE:
                self.timer -= self.dt
                return self.timer < SMALL
        return False

    def _critical_condition(self) -> bool:
        f = self.focus
        if self.scenario == NONE:
            return False
        close = f.ttc < self.critical_ttc if self.scenario == CUT_IN else f.thw < self.critical_thw
        if self.always_trig or close:
            if self.phase == REACT and self.timer < SMALL:
                self.set_mode(CRITICAL)
                return True
        elif self.phase == REACT:
            self.reset()  # perceived, but not critical
        elif self.mode == CRITICAL and f.dist_long > self.min_dist():
            self.set_mode(TARGET_IN_SIGHT if f.obj else NO_TARGET)
            if f.dv_s < SMALL:
                self.reset()  # the gap opens: the scenario is over
        return False

    def _overlap_front(self) -> bool:
        return self.world.overlapping_front(self.focus.obj, self.overlap_tolerance) > 1  # INSIDE or FULL

    def check_critical(self) -> bool:
        f = self.focus
        if self.phase in (INACTIVE, PERCEIVE):
            if self._perceived():
                self.set_phase(REACT)
                self.timer = self.rt
        elif self.phase == REACT:
            self.timer -= self.dt
        if self.mode == NO_TARGET and f.obj:
            self.set_mode(TARGET_IN_SIGHT)
        if self.full_stop and self.mode == CRITICAL:
            if self.v < SMALL:  # out of the critical mode only at a full stop
                self.reset()
                self.set_mode(TARGET_IN_SIGHT if f.obj else NO_TARGET)
        elif not f.obj:
            self.reset()
            self.set_mode(NO_TARGET)
        elif (self.v > SMALL and f.dist_long > 0) or self.full_stop:
            self._critical_condition()
        if (f.obj and self.aeb_available and not self.aeb_active and f.ttc < self.aeb_ttc
                and self._overlap_front()):
            self.note(f"AEB at TTC {f.ttc:.2f}")
            self.aeb_active = True
        return self.mode == CRITICAL or self.aeb_active

    def react_critical(self) -> float:
        if self.phase == REACT and self.timer < SMALL:
            self.set_phase(BRAKE_REF)
        if (self.phase == BRAKE_REF or self.aeb_active) and self.v < SMALL:
            self.set_phase(INACTIVE)
            self.aeb_active, self.timer = False, 0.0
        if self.phase == REACT:
            self.acc = min(-self.release_dec, self.acc)  # foot off the accelerator
        elif self.phase == BRAKE_REF:
            self.acc -= self.dt * self.max_dec / 0.6
        if self.aeb_active:
            self.acc -= self.dt * self.aeb_dec / 0.6
        self.acc = max(self.acc, -(self.aeb_dec if self.aeb_active else self.max_dec))
        return max(0.0, self.v + self.acc * self.dt)
