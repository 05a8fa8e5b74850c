"""esmini's NaturalDriver as a roadtest driver model: IDM car following plus MOBIL-style lane changes.

Behaviour learnt from esmini v3.6 (ControllerNaturalDriver): the longitudinal command is the Intelligent Driver
Model towards desiredSpeed behind the lead in the lane; a lane change to an adjacent driving lane is taken when it
imposes no more than maxImposedBraking on the new follower and either reaches the `route` lane or gains more than
laneChangeAccGain (politeness weighs what the followers lose). The lane change runs as a sinusoidal LaneChangeAction
of laneChangeDuration seconds, with the speed held; laneChangeDelay seconds pass before the next one.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from roadtest.sim.xosc.drivers.acc import LARGE, Delta, _f, _seen, mode_of, predicted, road_delta
from roadtest.sim.xosc.drivers.base import DriverModel

if TYPE_CHECKING:
    from roadtest.sim.xosc.engine import ScenarioEngine

__all__ = ["NaturalDriver"]

SMALL = 1e-6
DRIVING_TYPES = frozenset({"driving", "entry", "exit", "onRamp", "offRamp", "connectingRamp", "bidirectional"})
LEAD, FOLLOWING, LEFT_LEAD, LEFT_FOLLOW, RIGHT_LEAD, RIGHT_FOLLOW = range(6)


class NaturalDriver(DriverModel):
    """IDM longitudinal control with lane changes on the longitudinal domain (esmini's NaturalDriver)."""

    kind = "NaturalDriver"

    def __init__(self, engine: ScenarioEngine, name: str, ctrl: Any, lateral: bool, longitudinal: bool):
        super().__init__(engine, name, ctrl, lateral, longitudinal)
        p = self.props
        self.s0 = _f(p, "desiredDistance", 20.0)  # m, IDM jam distance
        self.v0 = _f(p, "desiredSpeed", 15.0)  # m/s
        self.lc_duration = _f(p, "laneChangeDuration", 3.0)  # s
        self.lookahead = _f(p, "lookAheadDistance", 115.0)  # m, also behind
        self.max_dec = _f(p, "maxDec", -3.0)  # m/s^2, negative
        self.max_acc = _f(p, "maxAcc", 3.0)  # m/s^2
        self.lc_delay = _f(p, "laneChangeDelay", 1.0)  # s
        self.thw = _f(p, "thw", 2.0)  # s, IDM time headway
        self.max_imposed = _f(p, "maxImposedBraking", 3.0)  # m/s^2
        self.route = int(float(p.get("route") or -1))  # lane id the driver prefers
        self.acc_gain = _f(p, "laneChangeAccGain", 0.2)  # m/s^2
        self.politeness = _f(p, "politeness", 0.5)
        self.mode = mode_of(p, "override")
        self.current = engine.entities[name].speed
        self.changing = False  # esmini's CHANGE_LANE state: speed held
        self.injected = False  # a lane change is running or cooling down
        self.cooldown = self.lc_duration + self.lc_delay
        self.target_lane = 0
        self.pending: list[int] = []  # [lane, controller steps until its lateral motion starts]
        self.first = True
        self.available = (0, 0)
        self._pos: dict[str, Any] = {}
        self._voi: dict[int, tuple[Any, Delta]] = {}

    def overrides(self, domain: str) -> bool:
        """True when scenario actions on this domain ("long"/"lat") are not applied (esmini's override mode)."""
        return domain == "long" and self.longitudinal and self.mode == "override"

    # ------------------------------------------------------------------ tick
    def drive(self, engine: ScenarioEngine, t_next: float) -> None:
        e = engine.entities[self.name]
        if not self.longitudinal:
            self.default(engine, t_next)
            return
        if self.mode == "additive" and abs(e.speed - self.current) > 1e-3:
            self.current = e.speed  # an action set the speed: it is respected
        if self.first:
            # esmini's player runs one zero-length frame after Init (Frame(0.0)): the controller decides on the
            # initial positions without changing its speed; a lane change chosen then starts a tick earlier
            self.first = False
            self._decide(engine, e, 0.0)
        self._decide(engine, e, engine.tick)
        e.speed = self.current
        if self.pending and self.pending[1] <= 0:
            self._start_lane_change(engine, self.pending[0])
            self.pending = []
        self.default(engine, t_next)

    def _decide(self, engine: ScenarioEngine, e: Any, dt: float) -> None:
        """One esmini controller step of dt seconds: IDM acceleration, lane-change choice, cooldown, new speed."""
        self._survey(engine, e, moved=dt > 0)
        if self.pending:
            self.pending[1] -= 1
        acc = 0.0
        initiate = False
        if not self.changing:
            acc = max(self._accel(engine, e, self._vehicle(LEAD)), self.max_dec)
            if not self.injected and self._adjacent(engine, e):
                for lane in self.available:
                    if lane:
                        initiate = self._possible(engine, e, lane)
                        if initiate and e.speed > 0:
                            self.target_lane, self.changing = lane, True
                            break
        if initiate:
            if self._abort(engine, e):
                self.target_lane, self.changing = 0, False
            else:
                # esmini injects a LaneChangeAction: started next frame, it first moves the entity the frame after
                self.pending = [self.target_lane, 2]
                self.injected = True
        if self.injected:
            self.cooldown -= dt
            if self.changing and self.cooldown <= self.lc_delay:
                self.target_lane, self.changing = 0, False
            if self.cooldown < 0.0:
                self.cooldown = self.lc_delay + self.lc_duration
                self.injected = False
        self.current += acc * dt
        if self.current >= self.v0:
            self.current = self.v0
        elif self.current > e.max_speed:
            self.current = e.max_speed
        elif self.current < 0.0:
            self.current = 0.0

    def _start_lane_change(self, engine: ScenarioEngine, lane: int) -> None:
        """Run a sinusoidal LaneChangeAction to `lane` through the engine, as esmini's injected action."""
        from lxml import etree

        from roadtest.sim.xosc.actions import make_action

        el = etree.fromstring(
            "<PrivateAction><LateralAction><LaneChangeAction>"
            f'<LaneChangeActionDynamics dynamicsShape="sinusoidal" dynamicsDimension="time" value="{self.lc_duration}"/>'
            f'<LaneChangeTarget><AbsoluteTargetLane value="{lane}"/></LaneChangeTarget>'
            "</LaneChangeAction></LateralAction></PrivateAction>")
        for ra in make_action(el, [self.name], engine):
            engine.inject_action(ra)  # a running lateral action on the entity ends: esmini's newer action wins

    # ------------------------------------------------------------------ surroundings
    def _survey(self, engine: ScenarioEngine, e: Any, moved: bool = True) -> None:
        """The nearest vehicle ahead and behind in this lane and the adjacent ones (esmini's vehicles of interest)."""
        self._pos = {n: predicted(engine, self.name, n) if moved else _seen(engine.entities[n]) for n in engine.entities}
        self._voi = {}
        here = self._pos[self.name]
        lane = here.lane
        side = -1 if lane < 0 else 1
        for n, o in engine.entities.items():
            if n == self.name or not o.active:
                continue
            if math.hypot(self._pos[n].x - here.x, self._pos[n].y - here.y) > self.lookahead:
                continue
            d = road_delta(engine, e, here, o, self._pos[n], True, self.lookahead) or Delta(LARGE, LARGE, 0, True)
            rel = d.dlane * -side
            if d.dlane == 0:
                kinds = (LEAD, FOLLOWING)
            elif rel == 1:
                kinds = (LEFT_LEAD, LEFT_FOLLOW)
            elif rel == -1:
                kinds = (RIGHT_LEAD, RIGHT_FOLLOW)
            else:
                continue
            ahead, behind = kinds
            if d.ds >= 0:
                cur = self._voi.get(ahead)
                if cur is None or d.ds < cur[1].ds:
                    self._voi[ahead] = (o, d)
            else:
                cur = self._voi.get(behind)
                if cur is None or d.ds > cur[1].ds:
                    self._voi[behind] = (o, d)

    def _vehicle(self, kind: int) -> Any:
        v = self._voi.get(kind)
        return v[0] if v is not None else None

    def _adjacent(self, engine: ScenarioEngine, e: Any) -> bool:
        """Which neighbouring lanes (left, right; 0 when none) are driving lanes; False when this side has one lane."""
        net, lp = engine.network, e.lane
        self.available = (0, 0)
        if net is None or lp is None or not lp.lane:
            return False
        lane, sign = lp.lane, (1 if lp.lane > 0 else -1)
        ids = set(net.lane_ids(lp.road, lp.s))

        def driving(i: int) -> bool:
            return i != 0 and i in ids and (i > 0) == (lane > 0) and net.lane_type(lp.road, i, lp.s) in DRIVING_TYPES

        if sum(1 for i in ids if driving(i)) <= 1:
            return False
        left, right = lane - sign, lane + sign
        self.available = (left if driving(left) else 0, right if driving(right) else 0)
        return True

    # ------------------------------------------------------------------ IDM and lane-change rules
    def _gap_wanted(self, v_follow: float, v_lead: float) -> float:
        ab = -self.max_acc * self.max_dec
        return self.s0 + max(0.0, v_follow * self.thw + v_follow * (v_follow - v_lead) / (2 * math.sqrt(ab)))

    def _freespace(self, follow: Any, lead: Any, ds: float) -> float:
        if math.cos(follow.h - lead.h) <= 0:
            return ds  # opposite headings: reference points, as esmini
        ext = (follow.length / 2 + follow.bbox_cx) + (lead.length / 2 - lead.bbox_cx)
        if ds > 0:
            return max(ds - ext, 0.0)
        return min(ds + ext, 0.0)

    def _accel(self, engine: ScenarioEngine, follow: Any, lead: Any) -> float:
        """IDM acceleration of `follow` behind `lead` with this driver's parameters (0 without a follower)."""
        if follow is None:
            return 0.0
        v = follow.speed
        acc = self.max_acc * (1 - (v / self.v0) ** 4)
        if lead is not None:
            d = road_delta(engine, follow, self._pos[follow.name], lead, self._pos[lead.name], False, self.lookahead)
            free = self._freespace(follow, lead, d.ds if d is not None else LARGE)
            if free == 0:
                free = SMALL
            acc -= self.max_acc * (self._gap_wanted(v, lead.speed) / free) ** 2
        return acc

    def _possible(self, engine: ScenarioEngine, e: Any, lane: int) -> bool:
        if self.injected:
            return False
        lead_k, follow_k = (LEFT_LEAD, LEFT_FOLLOW) if lane == self.available[0] else (RIGHT_LEAD, RIGHT_FOLLOW)
        adj_lead, adj_follow = self._vehicle(lead_k), self._vehicle(follow_k)
        new_follow_pred = self._accel(engine, adj_follow, e)
        if new_follow_pred < -self.max_imposed:
            return False
        mine_pred = self._accel(engine, e, adj_lead)
        if lane == self.route:
            return mine_pred >= -self.max_imposed
        lead, following = self._vehicle(LEAD), self._vehicle(FOLLOWING)
        mine = self._accel(engine, e, lead)
        old_follow = self._accel(engine, following, e)
        old_follow_pred = self._accel(engine, following, lead)
        new_follow = self._accel(engine, adj_follow, adj_lead)
        gain = mine_pred - mine + self.politeness * (new_follow_pred - new_follow + old_follow_pred - old_follow)
        return gain > self.acc_gain + SMALL

    def _abort(self, engine: ScenarioEngine, e: Any) -> bool:
        """Another natural driver close by is already changing into the same lane."""
        for n, other in engine.drivers.items():
            if n == self.name or not isinstance(other, NaturalDriver) or not other.longitudinal:
                continue
            o = engine.entities[n]
            here = self._pos[self.name]
            if math.hypot(self._pos[n].x - here.x, self._pos[n].y - here.y) > self.lookahead:
                continue
            known = next((d for v, d in self._voi.values() if v is o), None)
            d = known or road_delta(engine, e, here, o, self._pos[n], True, self.lookahead)
            free = self._freespace(e, o, d.ds if d is not None else LARGE)
            same_lane = o.lane is not None and e.lane is not None and o.lane.lane == e.lane.lane
            if (0 <= free < self._gap_wanted(o.speed, self.current) and other.injected
                    and other.target_lane == self.target_lane and not same_lane):
                return True
        return False
