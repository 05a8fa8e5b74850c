"""The RSS and FSM (JRC fuzzy safety model) variants of esmini's ALKS_R157SM_Controller (see alks_models)."""

from __future__ import annotations

from roadtest.sim.xosc.drivers.alks_models import (
    CUT_IN, DECELERATION, LARGE, SMALL, TARGET_IN_SIGHT, G, Model, ObjectInfo, Regulation,
    ReferenceDriver, sign_of,
)

__all__ = ["RSS", "FSM", "MODELS"]


class RSS(Model):
    """Responsibility-Sensitive Safety: brake when closer than the RSS safe longitudinal distance."""

    name = "RSS"
    reaction_time, max_dec, max_range = 0.75, 0.774 * G, 100.0
    mu = 0.3

    def check_safety(self, info: ObjectInfo) -> bool:
        if info.obj is None or info.dist_lat == LARGE:
            return True
        if info.dist_lat < SMALL or info.dlane == 0:
            info.action = DECELERATION
            return False
        vl, a, rt = abs(self.world.v_t(info.obj)), self.max_acc_lat, self.rt
        safe_lat = self.mu + abs((2.0 * vl + a * rt) * rt / 2.0) + (vl + a * rt) ** 2 / (2 * a)
        if abs(info.dist_lat) < safe_lat:
            info.action = CUT_IN
            return False
        return True

    def check_critical(self) -> bool:
        f = self.focus
        if self.no_target():
            return False
        if f.dv_s > 0.0 and f.dist_long > 0:
            v, rt, a, d = self.v, self.rt, self.max_acc, self.max_dec
            safe = v * rt + a * rt ** 2 / 2 + (v + rt * a) ** 2 / (2 * d) - self.world.speed(f.obj) ** 2 / (2 * d)
            if f.dist_long < safe:
                self.enter_critical()
                return True
        self.set_mode(TARGET_IN_SIGHT)
        return False

    def react_critical(self) -> float:
        waiting = self.reacting()
        if waiting is not None:
            return waiting
        # esmini bounds this with +max_dec (no bound at all); roadtest stops the ramp at -max_dec
        self.acc = max(self.acc - 12.65 * self.dt, -self.max_dec)
        return max(self.v + self.acc * self.dt, 0.0)

    def min_dist(self) -> float:
        v, rt, a, d = self.v, self.rt, self.max_acc, self.max_dec
        return (v * rt * rt + a * rt ** 2 / 2 + (v + rt * a) ** 2 / (2 * d)
                - max(v - rt * a * d, 0.0) ** 2 / (2 * d) + d * rt ** 2 / 2)


class FSM(Model):
    """JRC Fuzzy Safety Model: proactive (PFS) and critical (CFS) fuzzy surrogates scale the braking."""

    name = "FSM"
    reaction_time, max_dec, max_range = 0.75, 0.774 * G, 46.0
    br_min, br_max, bl, margin, margin_safe = 4.0, 6.0, 7.0, 2.0, 2.0

    def __init__(self) -> None:
        super().__init__()
        self.cfs = self.pfs = 0.0

    def min_dist(self) -> float:
        lead = self.world.speed(self.focus.obj) if self.focus.obj else 0.0
        v = self.v
        return self.margin + v * self.rt + v * v / (2 * self.br_min) - lead ** 2 / (2 * self.bl) + self.margin_safe

    def _pfs(self, dist: float, vr: float, vl: float) -> float:
        dist -= self.margin
        safe = vr * self.rt + vr ** 2 / (2 * self.br_min) - vl ** 2 / (2 * self.bl) + self.margin_safe
        if dist > safe:
            return 0.0
        unsafe = vr * self.rt + vr ** 2 / (2 * self.br_max) - vl ** 2 / (2 * self.bl)
        return 1.0 if dist < unsafe else (dist - safe) / (unsafe - safe)

    def _cfs(self, dist: float, vr: float, vl: float, acc: float) -> float:
        ar = max(acc, -self.br_min)
        rt = self.rt
        if vr <= vl:
            return 0.0
        if vr + rt * ar < vl:
            return 1.0 if dist < (vr - vl) ** 2 / abs(acc * 2) else 0.0
        safe = (vr + ar * rt / 2 - vl) * rt + (vr + ar * rt - vl) ** 2 / (self.br_min * 2)
        if dist > safe:
            return 0.0
        unsafe = (vr + ar * rt / 2 - vl) * rt + (vr + ar * rt - vl) ** 2 / (self.br_max * 2)
        return 1.0 if dist < unsafe else (dist - safe) / (unsafe - safe)

    def check_safety(self, info: ObjectInfo) -> bool:
        if info.obj is None or info.dist_lat == LARGE:
            return True
        if info.dlane == 0:
            info.action = DECELERATION
            return False
        if info.dist_lat > -SMALL:
            cut_in = -sign_of(info.dlane) * self.world.v_t(info.obj)
            if cut_in <= 0:
                return True
            lat = abs(info.dist_lat) / cut_in
            lon = abs(info.dist_long) / max(SMALL, self.v - self.world.speed(info.obj))
            if lat > lon + 0.1:
                return True
        info.action = CUT_IN
        return False

    def check_critical(self) -> bool:
        f = self.focus
        if self.no_target():
            return False
        if self.dt > SMALL and f.dv_s > 0.0 and f.dist_long > 0:
            vl = self.world.speed(f.obj)
            self.cfs = self._cfs(f.dist_long, self.v, vl, self.world.ego.acc_s)
            self.pfs = self._pfs(f.dist_long, self.v, vl)
            if self.cfs + self.pfs < SMALL:
                self.set_mode(TARGET_IN_SIGHT)
                return False
            self.enter_critical()
            return True
        self.set_mode(TARGET_IN_SIGHT)
        return False

    def react_critical(self) -> float:
        waiting = self.reacting()
        if waiting is not None:
            return waiting
        acc = self.cfs * (self.br_max - self.br_min) + self.br_min if self.cfs > SMALL else self.pfs * self.br_min
        self.acc = max(max(self.acc - 12.65 * self.dt, -self.max_dec), -acc)
        return max(self.v + self.acc * self.dt, 0.0)


MODELS: dict[str, type[Model]] = {m.name: m for m in (Regulation, ReferenceDriver, RSS, FSM)}
