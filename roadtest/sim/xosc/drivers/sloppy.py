"""esmini's SloppyDriverController: speed and lane-offset noise on top of the scenario's actions, seeded like esmini.

The noise is drawn from one Mersenne Twister (mt19937) per run, seeded with the run's seed, through
libstdc++'s uniform_real_distribution: the same stream esmini draws from, so a run with esmini's
seed reproduces its run. While the driver perturbs the speed, a SpeedAction on its entity works as
esmini's does: it steps from the entity's actual speed within the Performance limits, holds its
progress while the speed is off its profile, and ends only once the speed is within 1e-6 of the
target (roadtest's own SpeedAction is open-loop: under the default controller both are the same).
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any

from roadtest.sim.xosc.drivers.base import DriverModel
from roadtest.sim.xosc.storyboard import RUNNING

if TYPE_CHECKING:
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["MT19937", "EsminiRand", "SloppyDriver", "esmini_rand"]

SMALL = 1e-6  # esmini's SMALL_NUMBER
SPEED_PERIOD, LATERAL_PERIOD = 3.0, 1.5  # mean seconds between new speed / lane-offset targets
_RANDS: "weakref.WeakKeyDictionary[Any, EsminiRand]" = weakref.WeakKeyDictionary()
_CLOCKS: "weakref.WeakKeyDictionary[Any, dict[Any, float]]" = weakref.WeakKeyDictionary()  # engine -> controller -> s active


class MT19937:
    """The 32-bit Mersenne Twister (std::mt19937), seeded as std::mt19937(seed)."""

    def __init__(self, seed: int):
        mt = [seed & 0xFFFFFFFF]
        for i in range(1, 624):
            mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xFFFFFFFF)
        self.mt, self.i = mt, 624

    def _twist(self) -> None:
        mt = self.mt
        for k in range(624):
            y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
            mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self.i = 0

    def next_u32(self) -> int:
        if self.i >= 624:
            self._twist()
        y = self.mt[self.i]
        self.i += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)


class EsminiRand:
    """esmini's SE_Rand: doubles in [lo, hi) the way libstdc++ makes them from mt19937 (two 32-bit draws each)."""

    def __init__(self, seed: int):
        self.gen = MT19937(seed)

    def canonical(self) -> float:
        lo, hi = self.gen.next_u32(), self.gen.next_u32()
        r = (float(lo) + float(hi) * 4294967296.0) / 18446744073709551616.0
        return r if r < 1.0 else math.nextafter(1.0, 0.0)

    def between(self, lo: float, hi: float) -> float:
        return self.canonical() * (hi - lo) + lo


def esmini_rand(engine: ScenarioEngine) -> EsminiRand:
    """The run's one noise stream (esmini has one for all its controllers), seeded with the run's seed."""
    r = _RANDS.get(engine)
    if r is None:
        r = _RANDS[engine] = EsminiRand(int(getattr(engine, "seed", 0)))
    return r


class _Transition:
    """esmini's speed transition for one SpeedAction: a parameter (s) running to its target, scaled by Performance."""

    def __init__(self, ra: Any, e: Any, v0: float):
        dyn = ra.el.find("SpeedActionDynamics")
        dyn = dyn if dyn is not None else ra.el.find("TransitionDynamics")
        self.shape = dyn.get("dynamicsShape", "step") if dyn is not None else "step"
        dim = dyn.get("dynamicsDimension", "time") if dyn is not None else "time"
        val = abs(float(dyn.get("value", "0"))) if dyn is not None else 0.0
        self.v0, self.v1, self.p, self.rate_dim = v0, ra.v1, 0.0, dim == "rate"
        dv = self.v1 - v0
        k = {"linear": 1.0, "sinusoidal": math.pi / 2, "cubic": 1.5}.get(self.shape, 0.0)
        if self.shape == "step":
            self.pt = 0.0
        elif dim == "rate":
            self.pt = max(k * abs(dv) / val, SMALL) if val > SMALL and abs(dv) > 0 else SMALL
        elif dim == "distance":
            self.pt = 0.0 if abs(dv) < SMALL else 2 * val / max(abs(v0 + self.v1), SMALL)
        else:
            self.pt = val
        if self.shape == "step" or (not self.rate_dim and self.pt < SMALL):
            peak = 1e10
        elif self.rate_dim:
            peak = val
        else:
            peak = k * abs(dv) / max(self.pt, SMALL)
        limit = e.max_accel if self.v1 > v0 else e.max_decel
        self.scale = peak / max(limit, SMALL) if limit > 0 and peak > limit else 1.0
        self.reached = False

    def value(self) -> float:
        if self.shape == "step" or (not self.rate_dim and self.pt < SMALL):
            return self.v1
        f, dv = self.p / max(self.pt, SMALL), self.v1 - self.v0
        if self.shape == "sinusoidal":
            return self.v0 - dv * (math.cos(math.pi * f) - 1) / 2
        if self.shape == "cubic":
            return self.v0 + dv * f * f * (3 - 2 * f)
        return self.v0 + self.p * dv / max(self.pt, SMALL)

    def advance(self, d: float) -> None:
        self.p = min(max(self.p + d / self.scale, 0.0), self.pt)

    def step(self, e: Any, v: float, target: float, dt: float) -> float:
        """The speed after one tick from speed v; marks `reached` when the action is done."""
        self.v1 = max(-e.max_speed, min(e.max_speed, target))
        if self.pt > 0.0 and self.p > self.pt - SMALL:
            acc = max(-e.max_decel, min(e.max_accel, (target - v) / dt))
            new = max(-e.max_speed, min(e.max_speed, v + acc * dt))
        else:
            self.advance(dt)
            new = self.value()
            need = (new - v) / dt
            if need > e.max_accel + SMALL or need < -(e.max_decel + SMALL):
                new = max(-e.max_speed, min(e.max_speed, v + max(-e.max_decel, min(e.max_accel, need)) * dt))
                self.advance(-(dt - (new - v) / need))
        if self.p > self.pt - SMALL and abs(new - self.v1) < SMALL:
            self.reached = True
            new = max(-e.max_speed, min(e.max_speed, target))
        return new


class SloppyDriver(DriverModel):
    """esmini's sloppy driver: every ~3 s a new speed factor (±35 % × sloppiness), every ~1.5 s a new lane-offset target."""

    kind = "SloppyDriverController"

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)
        try:
            self.sloppiness = float(self.props.get("sloppiness", "0.5"))
        except ValueError:
            raise engine.error(ctrl, "Property.sloppiness", f"expected a number, got {self.props['sloppiness']!r}") from None
        self.mode = self.props.get("mode", "override")
        if self.mode not in ("override", "additive"):
            raise engine.error(ctrl, "Property.mode", f"expected override or additive, got {self.mode!r}")
        self.rand = esmini_rand(engine)
        v = engine.entities[name].speed
        # esmini's controller keeps its clock across (de)activations while its timers restart from 0
        self.clock = _CLOCKS.setdefault(engine, {})
        self.time = self.clock.get(ctrl, 0.0)
        self.sp_start, self.sp_len, self.factor = 0.0, SPEED_PERIOD, 1.0
        self.cur = self.init_speed = self.ref = v
        self.lat_start, self.lat_len = 0.0, LATERAL_PERIOD
        self.fuzz0 = self.fuzz1 = self.t = self.h = 0.0
        self.actions: dict[Any, _Transition] = {}  # the running SpeedAction(s) on the entity -> esmini's transition

    def _speed_action(self, engine: ScenarioEngine, e: Any, v_prev: float) -> None:
        """esmini's closed-loop step of the SpeedAction running on this entity (see the module docstring).

        It reads the engine's running actions (RuntimeAction: el, v0, v1, continuous) and owns their ``done``:
        set once esmini's action would end, cleared while roadtest's open-loop profile says done but the speed is off.
        """
        live = [ra for el, ra in engine.running if ra.actor == self.name and ra.name == "SpeedAction"
                and (not ra.done if el is None else el.state == RUNNING)]
        if self.mode == "override":  # esmini: a controller overriding the speed ends speed actions at once
            for ra in live:
                ra.done = True
            e.speed = v_prev
            return
        keep = {}
        for ra in live:
            tr = self.actions.get(ra)
            v = v_prev
            if tr is None:
                tr = _Transition(ra, e, ra.v0)
                v = tr.value()  # esmini sets the start of the profile at once (a step: its target)
            keep[ra] = tr
            e.speed = tr.step(e, v, ra.v1, engine.tick)
            ra.done = tr.reached and not getattr(ra, "continuous", False)
        self.actions = keep

    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        """One tick of esmini's sloppy driver after the actions: blend toward the drawn speed, steer toward the drawn offset."""
        e, m, dt = engine.entities[self.name], engine.motions[self.name], engine.tick
        if self.longitudinal:
            self._speed_action(engine, e, engine.snap[self.name].speed)
        self.time += dt
        self.clock[self.ctrl] = self.time
        v_obj = e.speed  # the speed the actions (or the default controller) left
        if abs(v_obj - self.cur) > 1e-3:
            self.ref = v_obj  # someone else set the speed: that is the new reference
        self.cur = v_obj
        moved = abs(v_obj) > SMALL
        dist = v_obj * dt if moved and self.mode == "additive" or not self.longitudinal else 0.0
        if self.longitudinal:
            if self.time - self.sp_start > self.sp_len - SMALL:
                self.sp_start, self.sp_len = self.time, SPEED_PERIOD * self.rand.between(0.5, 1.5)
                self.init_speed = self.ref * self.factor
                self.factor = 1.0 + self.sloppiness * self.rand.between(-0.35, 0.35)
            w = (self.time - self.sp_start) / self.sp_len
            self.cur = max(self.init_speed * (1 - w) + self.factor * self.ref * w, 0.0)
            if self.mode == "override":
                dist, v_obj = self.cur * dt, self.cur
            elif moved:
                dist += (self.cur - self.ref) * dt
            if abs(v_obj) <= SMALL:
                dist = 0.0
        if self.lateral:
            if self.time - self.lat_start > self.lat_len - SMALL:
                s = self.sloppiness
                self.fuzz0, self.fuzz1 = self.fuzz1, 5.0 * s * min(s, 1.0) * self.rand.between(0.5, 1.5)
                self.lat_start, self.lat_len = self.time, LATERAL_PERIOD * self.rand.between(0.5, 1.5)
            fuzz = self.fuzz0 + (self.fuzz1 - self.fuzz0) * (self.time - self.lat_start) / self.lat_len
            dh = (-0.02 * (self.t + fuzz) - 0.05 * self.h) * dt * v_obj
            dlat = v_obj * dt * math.sin(self.h + dh)
            if v_obj > SMALL:
                m.offset += dlat
                self.t += dlat
                self.h += dh
        e.speed = dist / dt
        self.default(engine, t_next)
        e.speed = self.cur if self.longitudinal else v_obj
        if self.lateral and m.road is not None and m.path is None:
            e.h += self.h
