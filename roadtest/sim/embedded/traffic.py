"""Background traffic: IDM car-following, MOBIL lane changes across permitted marks, lane-graph routing
through junctions, signals obeyed, yielding at unsignalised junctions (junctions.py) and to pedestrians on
crosswalks, pedestrians on sidewalks and crosswalks (walkers.py), yielding to the scenario's pedestrians on crosswalks too; everything seeded from
meta.traffic.

Speeds obey the limit in force (roadtest.limits, as the monitors compute it: the lane's posted limit, signs
passed, zones, the scene's fog and night caps): a driver's desired speed is a share of it drawn once, 0.85 to
1.0 (a tenth of the vehicles are trucks at 0.85 of that), re-read as the vehicle moves and the weather changes,
so IDM approaches it from below. Only a scene that asks for them (`traffic: {violators: share}`) has
rule-breakers: that seeded share of vehicles desires 1.1 to 1.3 times the limit.

Per tick every actor is indexed by lane and sorted by s once; a vehicle's leader is the next entry of its lane
(the successor lane is searched only for the first of a lane), and IDM and the move along the sampled lane
centre run inline. Plain Python on purpose: at the tens of vehicles a scenario has, numpy's per-call cost
exceeds the work (a numpy version of it measured 2-3x slower at 20 vehicles)."""

from __future__ import annotations

import bisect
import itertools
import math
import operator
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

from roadtest.limits import vehicle_limit
from roadtest.sim.api import ActorState
from roadtest.sim.embedded.car_following import IDM, idm_accel, mobil
from roadtest.sim.embedded.junctions import JunctionRules
from roadtest.sim.embedded.lanes import LaneTable, actor_from_fields, make_lanepos
from roadtest.sim.embedded.walkers import CROSSING_SHARE, Walker, WalkerCrowd

__all__ = ["IDM", "idm_accel", "Obstacle", "TrafficVehicle", "Walker", "Traffic"]

LC_TIME = 3.0  # s, duration of a lane change
MOBIL_PERIOD = 1.0  # s between lane-change decisions of one vehicle
HORIZON = 150.0  # m, look-ahead for leaders and signals
SPAWN_SPACING = 20.0  # m between candidate spawn slots
REFILL_CLEAR = 80.0  # m from any non-traffic actor for a replacement vehicle to appear
SPAWN_CLEAR = 25.0  # m from any scenario actor for a vehicle to spawn
CORRIDOR_TIME = 8.0  # s: no spawn where a storyboard actor (which does not react) will drive this soon
CORRIDOR_HALF_WIDTH = 5.5  # m either side of its heading line: its lane and the next (it may change lanes)
_DEAD_END = ("", 0)  # the chosen successor of a lane that has none
SIGNAL_REFRESH = 20.0  # m travelled before the signals ahead are looked up again
DEFAULT_SPEED = 13.9  # m/s when the map and meta give no limit
LIMIT_REFRESH = 10.0  # m travelled before the limit in force at a vehicle is looked up again
VIOLATOR_DESIRE = (1.1, 1.3)  # a rule-breaker's desired speed, times the limit in force


@dataclass(frozen=True)
class Obstacle:
    """A non-traffic actor (ego, scenario entity) as traffic sees it on the lane graph."""

    id: str
    road: str
    lane: int
    s: float
    speed: float  # m/s along its lane's driving direction
    length: float
    kind: str = ""  # road-user kind ("pedestrian": background vehicles yield to it on a crosswalk)
    veh: ClassVar[None] = None  # not a background vehicle (as an entry of the lane index)


@dataclass(slots=True)
class TrafficVehicle:
    """One background vehicle, moving along lane centres."""

    id: str
    kind: str
    length: float
    width: float
    height: float
    road: str
    lane: int
    s: float
    dir: int  # +1 with increasing s
    speed: float
    v0: float
    rng: random.Random
    accel: float = 0.0
    next: tuple[str, int] | None = None
    lc_from: int | None = None
    lc_offset0: float = 0.0  # road-frame offset of the old lane centre from the new one
    lc_progress: float = 1.0
    lc_target: int | None = None  # decided this tick, applied in integrate
    mobil_clock: float = 0.0
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    h: float = 0.0
    yaw_rate: float = 0.0
    t: float = 0.0  # m, road-frame lateral offset of the centre
    sig_cache: tuple | None = None  # (road, lane, s, [(dynamic signal, distance)]) from the last look-up
    desire: float = 1.0  # desired speed / limit in force
    violator: bool = False
    limit_key: tuple | None = None  # (road, lane, s, environment) of the last limit look-up
    crashed: bool = False  # came to rest in a collision (the simulator's impact model): stays where it stopped
    alive: bool = True

    junction: dict = field(default_factory=dict)  # JunctionRules' bookkeeping: arrival time, stop made

    @property
    def veh(self) -> "TrafficVehicle":
        """Itself, as an entry of the lane index (an Obstacle's is None)."""
        return self

    @property
    def offset(self) -> float:
        return 0.0 if self.lc_progress >= 1.0 else self.lc_offset0 * 0.5 * (1.0 + math.cos(math.pi * self.lc_progress))


_BY_S_ID = operator.attrgetter("s", "id")


class _Lengths(dict):
    """Actor id -> length, built from the lane index on first use (most ticks never need it)."""

    def __init__(self, idx):
        super().__init__()
        self._idx = idx

    def __missing__(self, key):
        for lst in self._idx.values():
            for e in lst:
                self[e.id] = e.length
        return self[key]


def _in_corridor(px: float, py: float, corridor: tuple[float, float, float, float]) -> bool:
    """Whether (px, py) lies on the path an actor at (x, y, h) with speed v covers in CORRIDOR_TIME."""
    x, y, h, v = corridor
    c, s = math.cos(h), math.sin(h)
    ahead, side = (px - x) * c + (py - y) * s, -(px - x) * s + (py - y) * c
    return 0.0 <= ahead <= SPAWN_CLEAR + v * CORRIDOR_TIME and abs(side) <= CORRIDOR_HALF_WIDTH


class Traffic:
    """Background vehicles and pedestrians on a road network; decide() on a frozen snapshot, then integrate()."""

    def __init__(self, network, config: Mapping[str, Any] | None, seed: int, *, avoid: Sequence[tuple[float, float]] = (),
                 corridors: Sequence[tuple[float, float, float, float]] = (), speed_limit: float | None = None,
                 idm: IDM | None = None, limits=None, environment=None):
        self.net = network
        self.p = idm or IDM()
        cfg = dict(config or {})
        self.limits = limits  # roadtest.limits.SceneLimits of the scene, or None (the map's limits alone)
        self.environment = environment  # the tick's Environment: the simulator sets it before decide()
        self.violators = float(cfg.get("violators", 0.0) or 0.0)
        self.rng = random.Random(int(cfg.get("seed", 0)) * 1_000_003 + int(seed))
        self.default_speed = speed_limit or DEFAULT_SPEED
        self.table = LaneTable(network)
        self._tables: dict[tuple[str, int], Any] = {}  # (road, lane) -> the table's sampled lane, fetched once
        self._keys: dict[tuple[str, int], list[float]] = {}  # the s of _index's entries, per lane, this tick
        self._dyn_signals = any(getattr(s, "dynamic", False) for s in getattr(network, "signals", {}).values())
        self.vehicles: list[TrafficVehicle] = []
        self._slots: list[tuple[str, int, float]] = []
        self._count = 0  # vehicles created so far (their ids)
        self._left = 0  # vehicles that left at dead ends and wait to be replaced
        self.time = 0.0  # s since the start, for arrival order at junctions
        self.crowd = WalkerCrowd(self, float(cfg.get("crossing_share", CROSSING_SHARE)),
                                 seed=(int(cfg.get("seed", 0)) * 1_000_003 + int(seed)) ^ 0x5EED)
        self.junctions = JunctionRules(self)
        self._spawn(float(cfg.get("density", 0.0) or 0.0), cfg.get("vehicles"), int(cfg.get("pedestrians", 0) or 0), avoid,
                    corridors)

    @property
    def walkers(self) -> list[Walker]:
        """The background pedestrians (WalkerCrowd's list)."""
        return self.crowd.walkers

    # ---- lane geometry helpers -------------------------------------------------------------------
    def extent(self, road: str, lane: int) -> tuple[float, float]:
        """[s_start, s_end] where this lane id exists on its road."""
        e = self.table._extent.get((road, lane))
        return e if e is not None else self.table.extent(road, lane)

    def _remaining(self, road: str, lane: int, s: float, d: int) -> float:
        lo, hi = self.extent(road, lane)
        return hi - s if d > 0 else s - lo

    def _entry_s(self, road: str, lane: int, d: int) -> float:
        lo, hi = self.extent(road, lane)
        return lo if d > 0 else hi

    # ---- spawning --------------------------------------------------------------------------------
    def _driving_lanes(self) -> list[tuple[str, int, float, float]]:
        out = []
        for road in sorted(self.net.road_ids()):
            L = self.net.road_length(road)
            lanes = set()
            for s in (0.25 * L, 0.5 * L, 0.75 * L):
                lanes.update(self.net.lane_ids(road, s))
            for lane in sorted(lanes):
                if lane == 0:
                    continue
                lo, hi = self.extent(road, lane)
                mid = 0.5 * (lo + hi)
                if hi - lo < 1.0 or self.net.lane_type(road, lane, mid) not in ("driving",):
                    continue
                if self._in_junction(road, lane, mid):
                    continue
                out.append((road, lane, lo, hi))
        return out

    def _new_vehicle(self, road: str, lane: int, s: float) -> TrafficVehicle:
        i = self._count
        self._count += 1
        rng = random.Random(self.rng.getrandbits(64))
        truck = rng.random() < 0.1
        desire = min(rng.uniform(0.85, 1.05), 1.0) * (0.85 if truck else 1.0)
        violator = self.violators > 0.0 and rng.random() < self.violators
        if violator:
            desire = rng.uniform(*VIOLATOR_DESIRE)
        v0 = desire * self._limit_at(road, lane, s, self.net.lane_direction(road, lane))
        lo, hi = self.extent(road, lane)
        s = min(max(s + rng.uniform(-3.0, 3.0), lo), hi)
        v = TrafficVehicle(id=f"traffic_{i}", kind="truck" if truck else "car", length=8.0 if truck else 4.5,
                           width=2.5 if truck else 1.85, height=3.2 if truck else 1.5, road=road, lane=lane, s=s,
                           dir=self.net.lane_direction(road, lane), speed=0.8 * v0, v0=v0, rng=rng,
                           mobil_clock=(i % 20) * MOBIL_PERIOD / 20, desire=desire, violator=violator)
        self._pose(v)
        self.vehicles.append(v)
        return v

    def _limit_at(self, road: str, lane: int, s: float, d: int) -> float:
        """The limit in force (m/s) for a vehicle at (road, lane, s) driving direction d: the map's lane limit (or
        the scene's road limit) lowered by roadtest.limits' signs, zones and rule caps."""
        limit = vehicle_limit(self.limits, self.net.speed_limit(road, lane, s) or self.default_speed, str(road), s, d,
                              self.environment)
        return self.default_speed if limit is None else limit

    def _update_v0(self, v: TrafficVehicle) -> None:
        key = v.limit_key
        if key is not None and key[0] == v.road and key[1] == v.lane and abs(v.s - key[2]) < LIMIT_REFRESH \
                and key[3] is self.environment:
            return
        v.limit_key = (v.road, v.lane, v.s, self.environment)
        v.v0 = max(v.desire * self._limit_at(v.road, v.lane, v.s, v.dir), 0.5)

    def crash(self, vehicle_id: str) -> bool:
        """Bring a background vehicle to rest for good (it was in a collision); False when no such vehicle."""
        for v in self.vehicles:
            if v.id == vehicle_id:
                v.crashed = True
                return True
        return False

    def refill(self, avoid: Sequence[tuple[float, float]]) -> None:
        """Replace vehicles that left the network at dead ends, out of sight: REFILL_CLEAR m from every
        non-traffic actor and SPAWN_SPACING m from other vehicles in the lane (keeps the density on small maps)."""
        tries = 0
        if self._left > 0:  # nor in sight of a walker on or at a crosswalk
            avoid = list(avoid) + [(w.x, w.y) for w in self.crowd.walkers if w.mode != "walk"]
        while self._left > 0 and self._slots and tries < 20:
            tries += 1
            road, lane, s = self._slots[self.rng.randrange(len(self._slots))]
            px, py = self.table.pose(road, lane, self.extent(road, lane), s)[:2]
            if any((px - ax) ** 2 + (py - ay) ** 2 < REFILL_CLEAR ** 2 for ax, ay in avoid):
                continue
            if any(v.road == road and v.lane == lane and abs(v.s - s) < SPAWN_SPACING + 0.5 * v.length
                   for v in self.vehicles):
                continue
            self._new_vehicle(road, lane, s)
            self._left -= 1

    def _in_junction(self, road: str, lane: int, s: float) -> bool:
        junction_of = getattr(self.net, "junction_of", None)
        if junction_of is not None:
            return junction_of(road) is not None
        pose = self.net.lane_to_world(road, lane, s)
        m = self.net.locate(pose.x, pose.y)
        return m is not None and m.junction is not None

    def _spawn(self, density: float, count, pedestrians: int, avoid, corridors=()) -> None:
        lanes = self._driving_lanes() if density > 0 or count else []
        km = sum(hi - lo for _, _, lo, hi in lanes) / 1000.0
        n = int(count) if count is not None else int(round(density * km))
        slots = []
        for road, lane, lo, hi in lanes:
            k = int((hi - lo - SPAWN_SPACING) // SPAWN_SPACING)
            slots += [(road, lane, lo + 0.5 * SPAWN_SPACING + i * SPAWN_SPACING) for i in range(k + 1)
                      if lo + 0.5 * SPAWN_SPACING + i * SPAWN_SPACING <= hi - 5.0]
        self.rng.shuffle(slots)
        chosen = []
        for road, lane, s in slots:
            if len(chosen) >= n:
                break
            px, py = self.table.pose(road, lane, self.extent(road, lane), s)[:2]
            if all((px - ax) ** 2 + (py - ay) ** 2 > SPAWN_CLEAR ** 2 for ax, ay in avoid) and not any(
                    _in_corridor(px, py, c) for c in corridors):
                chosen.append((road, lane, s))
        chosen.sort()
        self._slots = sorted(slots)
        for road, lane, s in chosen:
            self._new_vehicle(road, lane, s)
        self.crowd.spawn(pedestrians)

    # ---- decision on a frozen snapshot -----------------------------------------------------------
    def _index(self, others: Sequence[Obstacle]) -> dict[tuple[str, int], list]:
        """Every actor by lane, ordered by (s, id): vehicles and obstacles themselves (both have s, id, speed,
        length and veh), so building it allocates nothing per actor."""
        idx: dict[tuple[str, int], list] = {}
        for v in self.vehicles:
            idx.setdefault((v.road, v.lane), []).append(v)
            if v.lc_from is not None and v.lc_progress < 0.5:
                idx.setdefault((v.road, v.lc_from), []).append(v)
        for o in others:
            idx.setdefault((o.road, o.lane), []).append(o)
        for lst in idx.values():
            if len(lst) > 1:
                lst.sort(key=_BY_S_ID)
        self._keys = {}  # filled lazily by _leader
        return idx

    def _next_lane(self, v: TrafficVehicle) -> tuple[str, int] | None:
        if v.next is None:
            succ = sorted(self.net.successors(v.road, v.lane))
            v.next = succ[v.rng.randrange(len(succ))] if succ else _DEAD_END
        return None if v.next is _DEAD_END else v.next

    def _leader(self, idx, road: str, lane: int, s: float, d: int, me: str, nxt) -> tuple[float | None, float, str | None]:
        """(gap to the leader's rear or None, leader speed, leader id) ahead in this lane and its successor."""
        lst = idx.get((road, lane), ())
        keys = self._keys.get((road, lane)) if lst else ()
        if keys is None or len(keys) != len(lst):  # not looked up yet this tick
            keys = self._keys[(road, lane)] = [e.s for e in lst]
        if d > 0:
            cand = itertools.islice(lst, bisect.bisect_left(keys, s), None)
        else:
            cand = (lst[i] for i in range(bisect.bisect_right(keys, s) - 1, -1, -1))
        for e in cand:
            if e.id != me and (e.s - s) * d >= 0:
                return abs(e.s - s), e.speed, e.id
        if nxt is not None:
            rem = self._remaining(road, lane, s, d)
            d2 = self.net.lane_direction(*nxt)
            s2 = self._entry_s(nxt[0], nxt[1], d2)
            best = None
            for e in idx.get(nxt, ()):
                dist = (e.s - s2) * d2
                if e.id != me and dist >= 0 and (best is None or dist < best[0]):
                    best = (dist, e)
            if best is not None and rem + best[0] < HORIZON:
                return rem + best[0], best[1].speed, best[1].id
        return None, 0.0, None

    def decide(self, others: Sequence[Obstacle], signals: Mapping[str, str], dt: float) -> None:
        """Accelerations and lane-change choices of every vehicle from one frozen snapshot."""
        idx = self._index(others)
        lengths = _Lengths(idx)
        # Leaders by lane order: the next entry along the driving direction in the vehicle's own lane.
        lead: dict[str, Any] = {}
        for (road, lane), lst in idx.items():
            last = len(lst) - 1
            for k, e in enumerate(lst):
                v = e.veh
                if v is None or v.lane != lane or v.road != road:
                    continue
                if v.dir > 0:
                    if k < last:
                        lead[v.id] = lst[k + 1]
                elif k > 0:
                    lead[v.id] = lst[k - 1]
        stops: dict[str, float] = {}
        if self._dyn_signals:
            for v in self.vehicles:
                g = self._signal_gap(v, signals)
                if g is not None:
                    stops[v.id] = g
        self.junctions.stops(idx, others, stops)
        self.crowd.vehicle_stops(self.vehicles, stops)
        self.crowd.scenario_pedestrian_stops(self.vehicles, others, stops)
        p = self.p
        pa, pdelta, s0, T, inv2sqrt = p.a, p.delta, p.s0, p.T, 1.0 / (2.0 * math.sqrt(p.a * p.b))
        for v in self.vehicles:
            if v.crashed:
                v.accel, v.lc_target = -v.speed / dt, None  # at rest from this tick on
                continue
            self._update_v0(v)
            e = lead.get(v.id)
            if e is not None:
                gap, ls = abs(e.s - v.s) - 0.5 * (v.length + e.length), e.speed
            else:
                nxt = v.next if v.next is not None and v.next is not _DEAD_END else self._next_lane(v)
                gap, ls, lid = self._leader(idx, v.road, v.lane, v.s, v.dir, v.id, nxt) if nxt is not None \
                    else (None, 0.0, None)
                if gap is not None:
                    gap -= 0.5 * (v.length + lengths[lid])
            stop = stops.get(v.id) if stops else None
            if stop is not None and (gap is None or stop < gap):
                gap, ls = stop, 0.0
            sp = v.speed
            a = pa * (1.0 - (sp / v.v0) ** pdelta)
            if gap is not None:
                s_star = sp * (T + (sp - ls) * inv2sqrt)
                s_star = s0 + (s_star if s_star > 0.0 else 0.0)
                a -= pa * (s_star / (gap if gap > 0.1 else 0.1)) ** 2
            v.accel = a if a > -9.0 else -9.0
            v.lc_target = None
            v.mobil_clock += dt
            if v.mobil_clock >= MOBIL_PERIOD and v.lc_progress >= 1.0:
                v.mobil_clock -= MOBIL_PERIOD
                v.lc_target = mobil(self, v, idx, lengths, v.accel)
        self.crowd.decide(idx, others, dt)

    def _signal_gap(self, v: TrafficVehicle, signals: Mapping[str, str]) -> float | None:
        if not self._dyn_signals:
            return None
        c = v.sig_cache
        if c is None or c[0] != v.road or c[1] != v.lane or abs(v.s - c[2]) > SIGNAL_REFRESH:
            found = [(sig, d) for sig, d in self.net.signals_for(v.road, v.lane, v.s, ahead=HORIZON) if sig.dynamic]
            c = v.sig_cache = (v.road, v.lane, v.s, found)
        moved = abs(v.s - c[2])
        for sig, d0 in c[3]:
            dist = d0 - moved
            state = str(signals.get(sig.id, "")).lower()
            if dist > -1.0 and ("red" in state or ("yellow" in state and dist > v.speed ** 2 / (2 * self.p.b_safe))):
                return max(0.1, dist - 0.5 * v.length - 1.0)
        return None

    # ---- integration -----------------------------------------------------------------------------
    def integrate(self, dt: float) -> None:
        """Move every vehicle and walker one tick along its lane; leave the network at dead ends."""
        tables, lane_table = self._tables, self._lane_table
        sin, cos, remainder, tau, half_dt, lc_step = math.sin, math.cos, math.remainder, math.tau, 0.5 * dt, dt / LC_TIME
        dead = False
        for v in self.vehicles:
            if v.lc_target is not None:
                self._start_lane_change(v)
            v0 = v.speed
            speed = v0 + v.accel * dt
            if speed < 0.0:
                speed = 0.0
            v.accel = (speed - v0) / dt
            v.speed = speed
            s = v.s = v.s + v.dir * (v0 + speed) * half_dt
            lcp = v.lc_progress
            if lcp < 1.0:
                lcp = v.lc_progress = lcp + lc_step if lcp + lc_step < 1.0 else 1.0
                if lcp >= 1.0:
                    v.lc_from = None
            ln, first, per_m, last, lo, hi = tables.get((v.road, v.lane)) or lane_table(v.road, v.lane)
            if (s > hi) if v.dir > 0 else (s < lo):
                if not self._cross_lane_end(v, s - hi if v.dir > 0 else lo - s):
                    dead = True
                    continue
                s, lcp = v.s, 1.0
                ln, first, per_m, last, lo, hi = tables.get((v.road, v.lane)) or lane_table(v.road, v.lane)
            # The pose: the table's samples are evenly spaced (LaneTable samples a linspace), one division finds them.
            f = (s - first) * per_m
            i = int(f)
            i = 0 if i < 0 else last if i > last else i
            u = f - i
            u = 0.0 if u < 0.0 else 1.0 if u > 1.0 else u
            lx, ly, lz, lh, lt = ln.x, ln.y, ln.z, ln.h, ln.t
            x = lx[i] + u * (lx[i + 1] - lx[i])
            y = ly[i] + u * (ly[i + 1] - ly[i])
            h = lh[i] + u * (lh[i + 1] - lh[i])
            t = lt[i] + u * (lt[i + 1] - lt[i])
            if lcp < 1.0:
                off = v.lc_offset0 * 0.5 * (1.0 + cos(math.pi * lcp))
                k = off * ln.dir
                x -= k * sin(h)
                y += k * cos(h)
                t += off
                # Lateral speed of the cosine profile turned into a heading offset from the lane direction.
                dlat = -v.lc_offset0 * 0.5 * math.pi * sin(math.pi * lcp) / LC_TIME * v.dir
                h += math.atan2(dlat, speed if speed > 0.1 else 0.1)
            h = remainder(h, tau)
            v.yaw_rate = remainder(h - v.h, tau) / dt
            v.x, v.y, v.z, v.h, v.t = x, y, lz[i] + u * (lz[i + 1] - lz[i]), h, t
        if dead:
            alive = [v for v in self.vehicles if v.alive]
            self._left += len(self.vehicles) - len(alive)
            self.vehicles = alive
        self.crowd.integrate(dt)
        self.time += dt

    def _start_lane_change(self, v: TrafficVehicle) -> None:
        w = 0.5 * (self.net.lane_width(v.road, v.lane, v.s) + self.net.lane_width(v.road, v.lc_target, v.s))
        left_of_old = v.lc_target == self.net.neighbours(v.road, v.lane, v.s).get("left", (None,))[0]
        # Offset of the old centre from the new one, in the road frame (left positive).
        v.lc_offset0 = (-w if left_of_old else w) * v.dir
        v.lc_from, v.lane, v.lc_progress, v.next = v.lane, v.lc_target, 0.0, None
        v.lc_target = None

    def _cross_lane_end(self, v: TrafficVehicle, over: float) -> bool:
        """Carry a vehicle `over` m past its lane's end onto its chosen successors; False when it left the network."""
        while over > 0:
            nxt = self._next_lane(v)
            if nxt is None:
                v.alive = False
                return False
            d2 = self.net.lane_direction(*nxt)
            v.road, v.lane, v.dir, v.next = nxt[0], nxt[1], d2, None
            v.s = self._entry_s(nxt[0], nxt[1], d2) + d2 * over
            v.lc_progress, v.lc_from = 1.0, None
            over = -self._remaining(v.road, v.lane, v.s, v.dir)
        return True

    def _lane_table(self, road: str, lane: int):
        """(sampled lane, first s, samples per m, last segment index, s_start, s_end) of a lane, fetched once."""
        key = (road, lane)
        got = self._tables.get(key)
        if got is None:
            lo, hi = self.extent(road, lane)
            ln = self.table.lane(road, lane, (lo, hi))
            n = len(ln.s)
            got = self._tables[key] = (ln, ln.s[0], (n - 1) / ((ln.s[-1] - ln.s[0]) or 1.0), n - 2, lo, hi)
        return got

    def _pose(self, v: TrafficVehicle) -> None:
        """A vehicle's pose on its lane centre, standing (at spawn)."""
        x, y, z, h, t = self.table.pose(v.road, v.lane, self.extent(v.road, v.lane), v.s)
        v.x, v.y, v.z, v.h, v.t, v.yaw_rate = x, y, z, h, t, 0.0

    def actor_states(self) -> list[ActorState]:
        """The WorldState view of every background actor, with exact lane positions."""
        out = []
        for v in self.vehicles:
            c, s = math.cos(v.h), math.sin(v.h)
            out.append(actor_from_fields({
                "id": v.id, "role": "background", "kind": v.kind, "x": v.x, "y": v.y, "z": v.z, "h": v.h,
                "speed": v.speed, "vx": v.speed * c, "vy": v.speed * s, "ax": v.accel, "ay": v.speed * v.yaw_rate,
                "yaw_rate": v.yaw_rate, "length": v.length, "width": v.width, "height": v.height,
                "lane": make_lanepos(v.road, v.lane, v.s, v.t), "siren": False, "visible": True}))
        out.extend(self.crowd.actor_states())
        return out
