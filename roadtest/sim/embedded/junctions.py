"""Junction rules for background traffic (signs, arrival order, right before left): who enters, who waits.

A vehicle within APPROACH m (more when fast) of a junction, not held by a red light, enters only when no actor
inside the junction, or too close to stop before it (unless it is too), drives a connecting lane that crosses
or merges into its own, and no other approaching actor with a crossing path has priority. Priority, in this order: a stop or yield sign
on one's approach loses to none; an arrival more than ARRIVAL_TIE s earlier wins; then the actor from the
right wins (from the left where the map drives on the left); then the earlier arrival, then the smaller id.
When every waiting actor of a junction has stood still for DEADLOCK s with nobody inside, the side rule is
dropped so the arrival order decides. A stop sign also means a full stop at the line before any of this.
Lights come first: a vehicle its red light holds takes no part; one on green still yields (permissive turns).
Junctions whose approaches all meet at narrow angles (motorway merges and splits) are left to car-following.
"""

from __future__ import annotations

import math

__all__ = ["APPROACH", "ARRIVAL_TIE", "DEADLOCK", "JunctionRules", "sign_level"]

APPROACH = 40.0  # m before a junction where the rules apply
ARRIVAL_TIE = 1.0  # s: arrivals closer than this are simultaneous
DEADLOCK = 3.0  # s all waiting actors stood still before the side rule is dropped
STOPPED = 0.3  # m/s: a stop at a stop sign
MOVING = 2.0  # m/s: a non-traffic actor on an approach with a light is taken to have green above this
CONFLICT_GAP = 1.5  # m: connecting lanes whose centres come this close conflict
_STOP_TYPES = {"206", "stop", "stop_sign"}
_YIELD_TYPES = {"205", "yield", "give_way"}


def sign_level(signals) -> int:
    """2 for a stop sign, 1 for a yield sign, 0 for none among (signal, distance) pairs."""
    level = 0
    for sig, _ in signals:
        if getattr(sig, "dynamic", False):
            continue
        names = {str(sig.type).lower(), str(getattr(sig, "name", "")).lower()}
        if names & _STOP_TYPES:
            level = 2
        elif names & _YIELD_TYPES:
            level = max(level, 1)
    return level


class _Approach:
    """One actor near or in a junction, as the rules see it."""

    __slots__ = ("id", "junction", "lanes", "rem", "speed", "level", "arrive", "heading", "inside", "veh", "src",
                 "committed")

    def __init__(self, id, junction, lanes, rem, speed, level, arrive, heading, inside, veh=None, src=None):
        self.id, self.junction, self.lanes, self.rem, self.speed = id, junction, lanes, rem, speed
        self.level, self.arrive, self.heading, self.inside, self.veh = level, arrive, heading, inside, veh
        self.src = src  # the approach lane
        self.committed = False  # too close to stop before the line


class JunctionRules:
    """Yield rules of background vehicles at junctions (see the module docstring); lights hold vehicles first."""

    def __init__(self, traffic):
        self.tr = traffic
        self.net = traffic.net
        self.left_hand = str(getattr(self.net, "driving_side", "right")).lower() == "left"
        junction_of = getattr(self.net, "junction_of", None)
        self._junction = {r: junction_of(r) for r in self.net.road_ids()} if junction_of else {}
        self.active = any(j is not None for j in self._junction.values())
        self._approach: dict[tuple[str, int], tuple[bool, int, float]] = {}  # lane -> (has a light, sign, heading)
        self._conflict: dict[tuple, bool] = {}
        self._arrivals: dict[str, float] = {}  # non-traffic actor id -> arrival time
        self._still: dict[str, float] = {}  # actor id -> time since it stands waiting
        self._kind: dict[str, bool] = {}  # junction -> whether streams cross in it (not a merge or a split)

    def junction_of(self, road: str) -> str | None:
        return self._junction.get(road)

    # ---- map facts, cached -----------------------------------------------------------------------
    def _approach_info(self, road: str, lane: int) -> tuple[bool, int, float]:
        """(a traffic light governs it, sign level, driving heading at its end) of an approach lane."""
        got = self._approach.get((road, lane))
        if got is None:
            tr = self.tr
            lo, hi = tr.extent(road, lane)
            d = self.net.lane_direction(road, lane)
            end = hi if d > 0 else lo
            start = max(lo, end - APPROACH - 10.0) if d > 0 else min(hi, end + APPROACH + 10.0)
            try:
                found = self.net.signals_for(road, lane, start, ahead=APPROACH + 15.0)
            except (KeyError, ValueError, IndexError):
                found = []
            light = any(getattr(sig, "dynamic", False) for sig, _ in found)
            h = tr.table.pose(road, lane, (lo, hi), end)[3]
            got = self._approach[(road, lane)] = (light, sign_level(found), h)
        return got

    def crossing_junction(self, j: str) -> bool:
        """Whether two approaches of junction j meet at a wide angle: a crossing, not a motorway merge or split,
        where the through road keeps its priority and vehicles just follow their leaders."""
        got = self._kind.get(j)
        if got is None:
            heads = []
            for road in sorted(r for r, jj in self._junction.items() if jj == j):
                L = self.net.road_length(road)
                for lane in self.net.lane_ids(road, 0.5 * L):
                    if lane == 0 or self.net.lane_type(road, lane, 0.5 * L) != "driving":
                        continue
                    for pred in self.net.predecessors(road, lane):
                        if self._junction.get(pred[0]) is None:
                            try:
                                heads.append(self._approach_info(*pred)[2])
                            except (KeyError, ValueError, IndexError):
                                pass
            got = self._kind[j] = any(abs(math.sin(a - b)) > 0.7 for a in heads for b in heads)
        return got

    def _path(self, road: str, lane: int):
        ln = self.tr.table.lane(road, lane, self.tr.extent(road, lane))
        pts = list(zip(ln.x, ln.y))
        return pts if ln.dir > 0 else pts[::-1]

    def conflicts(self, a: tuple[str, int], b: tuple[str, int]) -> bool:
        """Whether two connecting lanes cross or merge (lanes from the same start only diverge)."""
        if a == b:
            return False
        key = (a, b) if a <= b else (b, a)
        got = self._conflict.get(key)
        if got is None:
            from shapely.geometry import LineString

            pa, pb = self._path(*a), self._path(*b)
            got = math.dist(pa[0], pb[0]) >= 1.0 and LineString(pa).distance(LineString(pb)) < CONFLICT_GAP
            self._conflict[key] = got
        return got

    # ---- the rule --------------------------------------------------------------------------------
    def _gather(self, others, held) -> list[_Approach]:
        tr, now, out = self.tr, self.tr.time, []
        seen: set[str] = set()
        for v in tr.vehicles:
            j = self._junction.get(v.road)
            if j is not None:
                out.append(_Approach(v.id, j, ((v.road, v.lane),), 0.0, v.speed, 0, v.junction.get("arrive", now),
                                     v.h, True, v))
                continue
            rem = tr._remaining(v.road, v.lane, v.s, v.dir)
            if rem > max(APPROACH, v.speed ** 2 / (2.0 * tr.p.b) + 10.0):
                if v.junction:
                    v.junction = {}
                continue
            nxt = tr._next_lane(v)
            j = self._junction.get(nxt[0]) if nxt is not None else None
            if j is None or not self.crossing_junction(j):
                continue
            light, level, h = self._approach_info(v.road, v.lane)
            if light and v.id in held:
                continue  # waiting at its red light: not going in
            st = v.junction
            if st.get("j") != j:
                st.clear()
                st.update(j=j, arrive=now, stopped=False)
            a = _Approach(v.id, j, (nxt,), rem, v.speed, level, st["arrive"], h, False, v, (v.road, v.lane))
            a.committed = v.speed ** 2 / (2.0 * tr.p.b_safe) > rem - 0.5 * v.length
            out.append(a)
        for o in others:
            seen.add(o.id)
            j = self._junction.get(o.road)
            if j is not None:
                out.append(_Approach(o.id, j, ((o.road, o.lane),), 0.0, o.speed, 0,
                                     self._arrivals.setdefault(o.id, now), 0.0, True))
                continue
            try:
                lo, hi = tr.extent(o.road, o.lane)
                d = self.net.lane_direction(o.road, o.lane)
            except (KeyError, ValueError, IndexError):
                continue
            rem = hi - o.s if d > 0 else o.s - lo
            if not 0.0 <= rem <= max(APPROACH, o.speed ** 2 / (2.0 * tr.p.b) + 10.0) or \
                    self.net.lane_type(o.road, o.lane, o.s) != "driving":
                self._arrivals.pop(o.id, None)  # far off, or a pedestrian on the sidewalk: no arrival to rank
                continue
            succ = [n for n in self.net.successors(o.road, o.lane) if self._junction.get(n[0]) is not None
                    and self.crossing_junction(self._junction[n[0]])]
            if not succ:
                self._arrivals.pop(o.id, None)
                continue
            light, level, h = self._approach_info(o.road, o.lane)
            committed = o.speed ** 2 / (2.0 * tr.p.b_safe) > rem - 0.5 * o.length
            if light and o.speed < MOVING and not committed:
                continue  # standing at its light, presumably red
            a = _Approach(o.id, self._junction[succ[0][0]], tuple(succ), rem, o.speed, level,
                          self._arrivals.setdefault(o.id, now), h, False, None, (o.road, o.lane))
            a.committed = committed
            out.append(a)
        for gone in [k for k in self._arrivals if k not in seen]:
            del self._arrivals[gone]
        return out

    def _crossing(self, a: _Approach, b: _Approach) -> bool:
        return any(self.conflicts(x, y) for x in a.lanes for y in b.lanes)

    def _has_priority(self, b: _Approach, a: _Approach, deadlock: bool) -> bool:
        """Whether approaching b goes before approaching a."""
        if b.level != a.level:
            return b.level < a.level
        if abs(b.arrive - a.arrive) > ARRIVAL_TIE:
            return b.arrive < a.arrive
        if not deadlock:
            side = math.sin(b.heading - a.heading)  # > 0: b crosses from a's right to its left
            if abs(side) > 0.7:
                return (side > 0) != self.left_hand
        return (b.arrive, b.id) < (a.arrive, a.id)

    def stops(self, idx, others, stops: dict[str, float]) -> None:
        """Add stop gaps (vehicle id -> m) for vehicles that must wait before a junction."""
        if not self.active:
            return
        actors = self._gather(others, set(stops))  # the stops so far are red and yellow lights
        if not actors:
            self._still.clear()
            return
        now = self.tr.time
        by_j: dict[str, list[_Approach]] = {}
        for a in actors:
            by_j.setdefault(a.junction, []).append(a)
            if not a.inside and a.speed < STOPPED:
                self._still.setdefault(a.id, now)
            else:
                self._still.pop(a.id, None)
        for group in by_j.values():
            # Only the first actor of each approach lane negotiates; the ones behind follow it (IDM).
            front: dict = {}
            for a in group:
                if not a.inside and (a.src not in front or a.rem < front[a.src].rem):
                    front[a.src] = a
            waiting = list(front.values())
            group = [a for a in group if a.inside] + waiting
            deadlock = not any(a.inside for a in group) and len(waiting) > 1 and all(
                now - self._still.get(a.id, now) >= DEADLOCK for a in waiting)
            for a in waiting:
                v = a.veh
                if v is None:
                    continue
                line = max(0.1, a.rem - 0.5 * v.length - 1.0)
                if a.level == 2 and not v.junction.get("stopped"):
                    if v.speed < STOPPED and a.rem < 0.5 * v.length + 5.0:
                        v.junction["stopped"] = True
                    else:
                        stops[v.id] = min(stops.get(v.id, math.inf), line)
                        continue
                for b in group:
                    if b is a or not self._crossing(a, b):
                        continue
                    if b.inside or b.committed and not a.committed or \
                            b.committed == a.committed and self._has_priority(b, a, deadlock):
                        stops[v.id] = min(stops.get(v.id, math.inf), line)
                        break
        for gone in [k for k in self._still if k not in {a.id for a in actors}]:
            del self._still[gone]
