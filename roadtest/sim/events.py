"""Per-tick events: oriented-box collisions (each pair once), off-road and lane invasions with the mark crossed."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from roadtest.sim.api import Event

if TYPE_CHECKING:
    from roadtest.sim.road.api import RoadNetworkAPI

__all__ = ["Box", "make_box", "boxes_overlap", "overlapping_pairs", "EventDetector", "DRIVABLE", "HYST", "MIN_WIDTH"]

DRIVABLE = frozenset({"driving", "entry", "exit", "onramp", "offramp", "connectingramp", "bidirectional",
                      "parking", "stop", "shoulder", "biking", "restricted", "median", "roadworks"})


@dataclass(frozen=True)
class Box:
    """An actor's footprint: oriented rectangle centred on (x, y), with its velocity for relative speed."""

    id: str
    x: float
    y: float
    h: float
    length: float
    width: float
    vx: float = 0.0
    vy: float = 0.0
    kind: str = "car"


def make_box(id: str, x: float, y: float, h: float, length: float, width: float, vx: float = 0.0, vy: float = 0.0,
             kind: str = "car") -> Box:
    """A Box built without the frozen dataclass's per-field __setattr__ (every actor, every tick)."""
    b = object.__new__(Box)
    object.__setattr__(b, "__dict__", {"id": id, "x": x, "y": y, "h": h, "length": length, "width": width,
                                        "vx": vx, "vy": vy, "kind": kind})
    return b


def _corners(b: Box) -> list[tuple[float, float]]:
    c, s = math.cos(b.h), math.sin(b.h)
    hl, hw = 0.5 * b.length, 0.5 * b.width
    return [(b.x + c * lx - s * ly, b.y + s * lx + c * ly) for lx, ly in ((hl, hw), (-hl, hw), (-hl, -hw), (hl, -hw))]


def boxes_overlap(a: Box, b: Box) -> bool:
    """Separating-axis test of two oriented rectangles (touching counts as overlap)."""
    ca, cb = _corners(a), _corners(b)
    for h in (a.h, b.h):
        c, s = math.cos(h), math.sin(h)
        for ux, uy in ((c, s), (-s, c)):
            pa = [x * ux + y * uy for x, y in ca]
            pb = [x * ux + y * uy for x, y in cb]
            if max(pa) < min(pb) or max(pb) < min(pa):
                return False
    return True


def _extents(b: Box) -> tuple[float, float]:
    """Half extents of a box's axis-aligned bounds, padded so that rounding never drops a touching pair."""
    c, s = abs(math.cos(b.h)), abs(math.sin(b.h))
    hl, hw = 0.5 * b.length, 0.5 * b.width
    return c * hl + s * hw + 1e-6, s * hl + c * hw + 1e-6


def overlapping_pairs(boxes: Sequence[Box]) -> list[tuple[int, int]]:
    """Index pairs (i < j) whose boxes overlap: a sweep along x over bounding circles, axis-aligned bounds for
    the pairs that pass, then the exact test."""
    n = len(boxes)
    if n < 2:
        return []
    hypot = math.hypot
    r = [0.5 * hypot(b.length, b.width) + 1e-6 for b in boxes]
    xs = [b.x for b in boxes]
    order = sorted(range(n), key=xs.__getitem__)
    xo = [xs[i] for i in order]
    rmax = max(r)
    ext: dict[int, tuple[float, float]] = {}
    out = []
    for a_pos in range(n - 1):
        xi = xo[a_pos]
        i = order[a_pos]
        ri = r[i]
        bound = ri + rmax
        if not xo[a_pos + 1] - xi > bound:  # the common case (no neighbour within reach) costs this one test
            bi = boxes[i]
            for p in range(a_pos + 1, n):
                dx = xo[p] - xi
                if dx > bound:
                    break
                j = order[p]
                bj = boxes[j]
                dy = bj.y - bi.y
                reach = ri + r[j]
                if dx * dx + dy * dy > reach * reach:
                    continue
                ei = ext.get(i) or ext.setdefault(i, _extents(bi))
                ej = ext.get(j) or ext.setdefault(j, _extents(bj))
                if dx <= ei[0] + ej[0] and abs(dy) <= ei[1] + ej[1] and boxes_overlap(bi, bj):
                    out.append((i, j) if i < j else (j, i))
    return sorted(out)


HYST = 0.05  # m, a touched line must be cleared by this much before touching it again is a new crossing
MIN_WIDTH = 0.01  # m, narrower lanes (a lane opening or closing) are no lane: their two borders are one line


def _bounds_fast(net: RoadNetworkAPI, road: str, s: float) -> dict[int, tuple[float, float]] | None:
    """{lane id: (inner t, outer t)} at s from the parsed road's exact bounds (one call for every lane), or None
    when the map is not a RoadNetwork (the contract-only walk then serves)."""
    get = getattr(net, "road", None)
    if get is None:
        return None
    try:
        r = get(road)
        return r.bounds_at(r.section_index(s), s)
    except Exception:  # noqa: BLE001 - not a parsed road: fall back to the lane API
        return None


def _lanes_across_fast(net: RoadNetworkAPI, road: str, s: float) -> list[tuple[int, float, float]] | None:
    """(lane id, t low, t high) of every lane at s in road-frame t order (lane id order), or None off a
    RoadNetwork."""
    b = _bounds_fast(net, road, s)
    return None if b is None else _ordered(b)


def _ordered(b: dict[int, tuple[float, float]]) -> list[tuple[int, float, float]]:
    """Road bounds as (lane id, t low, t high) in t order, the centre lane left out."""
    return [(lid, a, c) if a <= c else (lid, c, a) for lid, (a, c) in sorted(b.items()) if lid != 0]


def _lanes_across(net: RoadNetworkAPI, match) -> list[tuple[int, float, float]]:
    """Every lane at the match's s in t order, by lane widths only (RoadNetworkAPI), placed so that the matched
    lane's centre lies where the match says (t - offset)."""
    road, s = match.road, match.s
    ids = sorted(i for i in net.lane_ids(road, s) if i != 0)
    widths = {i: float(net.lane_width(road, i, s)) for i in ids}
    bounds: dict[int, tuple[float, float]] = {}
    top = 0.0
    for i in (i for i in ids if i > 0):
        bounds[i] = (top, top + widths[i])
        top += widths[i]
    bot = 0.0
    for i in sorted((i for i in ids if i < 0), reverse=True):
        bounds[i] = (bot - widths[i], bot)
        bot -= widths[i]
    lo, hi = bounds.get(match.lane, (0.0, 0.0))
    shift = (match.t - match.offset) - 0.5 * (lo + hi)
    return [(i, bounds[i][0] + shift, bounds[i][1] + shift) for i in ids]


class _Line:
    """A marking line between two lanes in road-frame terms: below/above lane ids and its lateral t."""

    __slots__ = ("below", "above", "t")

    def __init__(self, below: int, above: int, t: float):
        self.below, self.above, self.t = below, above, t


def _lines(lanes: list[tuple[int, float, float]]) -> tuple[list[_Line], list[int]]:
    """The lines between consecutive lanes wider than MIN_WIDTH, and those lanes' ids in t order."""
    real = [x for x in lanes if x[2] - x[1] > MIN_WIDTH]
    return [_Line(a[0], b[0], 0.5 * (a[2] + b[1])) for a, b in zip(real, real[1:])], [x[0] for x in real]


def _towards_higher_allowed(mark, towards_higher: bool, origin: int, dest: int) -> bool:
    """Whether the mark lets a vehicle cross from lane origin to dest (no mark: yes); RoadMark.allows when the
    mark has it, else the contract's crossing_allowed(outward)."""
    if mark is None:
        return True
    allows = getattr(mark, "allows", None)
    if allows is not None:
        return bool(allows(towards_higher))
    outward = origin * dest > 0 and abs(dest) > abs(origin)
    return bool(mark.crossing_allowed(outward))


class EventDetector:
    """Turns successive snapshots into events: a collision when a pair starts touching, off-road when the
    watched actor leaves the drivable area, a lane invasion when its box starts to touch a marking line."""

    def __init__(self, network: RoadNetworkAPI | None = None, watch: Iterable[str] = ()):
        self.network = network
        self.watch = tuple(watch)
        self.contacts: set[tuple[str, str]] = set()
        self._off: dict[str, bool] = {}
        # per actor: (road, lane, t low, t high, touched lines, driving direction of its lane); a touched line
        # (below, above) holds its slot, whether the box heads to its left (driving frame) and whether the
        # centre has got over it
        self._held: dict[str, tuple[str, int, float, float, dict[tuple[int, int], tuple[int, bool, bool]], int]] = {}

    def collisions(self, boxes: Sequence[Box], first: str | None = None) -> tuple[list[Event], list[Event]]:
        """(new contacts this tick, all current contacts); `first` (the ego) is named as `actor` when involved.

        Any objects with Box's fields serve (the simulator passes its ActorStates).
        """
        now: set[tuple[str, str]] = set()
        new: list[Event] = []
        current: list[Event] = []
        for i, j in overlapping_pairs(boxes):
            a, b = boxes[i], boxes[j]
            if b.id == first or (a.id != first and b.id < a.id):
                a, b = b, a
            key = (a.id, b.id)
            now.add(key)
            rel = math.hypot(a.vx - b.vx, a.vy - b.vy)
            ev = Event("collision", a.id, b.id, {"relative_speed": rel, "other_kind": b.kind, "actor_kind": a.kind})
            current.append(ev)
            if key not in self.contacts:
                new.append(ev)
        self.contacts = now
        key_of = lambda e: (e.actor, e.other or "")  # noqa: E731
        return sorted(new, key=key_of), sorted(current, key=key_of)

    def road_events(self, actor: str, match, length: float = 0.0, width: float = 0.0,
                    curvature: float = 0.0) -> list[Event]:
        """Off-road (on leaving the drivable area) and lane-invasion events of one actor from its LaneMatch, its
        box size (0 x 0: its centre point) and the lane's curvature there (1/m, positive towards +t)."""
        out: list[Event] = []
        off = match is None or not match.on_road or match.lane_type not in DRIVABLE
        if off and not self._off.get(actor, False):
            out.append(Event("off_road", actor, data={"lane_type": match.lane_type if match else None}))
        self._off[actor] = off
        if match is None or self.network is None:
            self._held.pop(actor, None)
            return out
        out.extend(self._invasions(actor, match, length, width, curvature))
        return out

    def _invasions(self, actor: str, match, length: float, width: float, curvature: float) -> list[Event]:
        """Marking lines the box's lateral extent (or its sweep since the last tick) reaches and did not touch
        before; a line stays touched until the box is HYST clear of it, so a straddle is one crossing, and a
        centre that gets over the line and back while the box still touches it crosses it once more."""
        net, road = self.network, match.road
        c, s = abs(math.cos(match.heading_diff)), abs(math.sin(match.heading_diff))
        e = 0.5 * (length * s + width * c)
        lo, hi = match.t - e, match.t + e
        if curvature:
            # on a curve the box's ends stand out of the bend: a chord of half length r sags r^2 k / 2 in t
            r = 0.5 * (length * c + width * s)
            sag = 0.5 * r * r * curvature
            lo, hi = (lo - sag, hi) if sag > 0 else (lo, hi - sag)
        prev = self._held.get(actor)
        same = prev is not None and prev[0] == road
        slo, shi = (min(lo, prev[2]), max(hi, prev[3])) if same else (lo, hi)
        bounds = _bounds_fast(net, road, match.s)
        if bounds is not None and same and not prev[4] and match.lane in bounds:
            a, c = bounds[match.lane]
            if (a < slo and shi < c) if a < c else (c < slo and shi < a):
                # the common case: inside its own lane's lines, as it was
                self._held[actor] = (road, match.lane, lo, hi, prev[4], prev[5])
                return []
        try:
            d = 1 if net.lane_direction(road, match.lane) >= 0 else -1
            lanes = _ordered(bounds) if bounds is not None else _lanes_across(net, match)
        except Exception:  # noqa: BLE001 - a lane the map does not know here: no lines to cross
            self._held.pop(actor, None)
            return []
        lines, order = _lines(lanes)
        if match.lane not in order:
            self._held.pop(actor, None)
            return []
        j = order.index(match.lane)
        held: dict[tuple[int, int], tuple[int, bool, bool]] = {}
        self._held[actor] = (road, match.lane, lo, hi, held, d)
        if prev is None:
            # first sight (or back on the map): the box did not cross what it already touches
            for k, ln in enumerate(lines):
                if lo <= ln.t <= hi:
                    held[(ln.below, ln.above)] = ((2 * (k - j) + 1) * d, (match.t < ln.t) == (d > 0), False)
            return []
        before = prev[4]
        by_slot = {v[0]: v for v in before.values()}
        d_ref = prev[5] if same else d  # the driving frame the touched lines' directions were stored in
        k_prev = order.index(prev[1]) if same and prev[1] in order else j
        c_prev = 0.5 * (prev[2] + prev[3]) if same else match.t
        out: list[tuple[float, Event]] = []
        for k, ln in enumerate(lines):
            # line k lies between lanes k and k + 1 of `order`; its slot counts half lanes from the actor's lane,
            # positive to the left of its driving direction (what survives a change of road)
            key, slot = (ln.below, ln.above), (2 * (k - j) + 1) * d
            st = before.get(key) if same else by_slot.get(slot)
            ct = match.t - ln.t
            side = 1 if ct > HYST else -1 if ct < -HYST else 0  # the centre above (+t) or below the line
            if st is not None:
                up, crossed = st[1] == (d_ref > 0), st[2]
                if side == (1 if up else -1):
                    crossed = True
                elif side and crossed:
                    # the centre came back over the line it had crossed: a crossing the other way
                    out.append((abs(ln.t - c_prev), self._invasion(actor, match, ln, from_below=not up)))
                    up = not up
                if lo - HYST <= ln.t <= hi + HYST:
                    held[key] = (slot, up == (d > 0), crossed)
                continue
            if not slo <= ln.t <= shi:
                continue
            from_below = k_prev <= k
            out.append((abs(ln.t - c_prev), self._invasion(actor, match, ln, from_below)))
            if lo <= ln.t <= hi:
                held[key] = (slot, from_below == (d > 0), side == (1 if from_below else -1))
        return [ev for _, ev in sorted(out, key=lambda p: p[0])]  # in the order the lines were reached

    def _invasion(self, actor: str, match, ln: _Line, from_below: bool) -> Event:
        """The event for a line newly touched, crossing it away from the side the actor's centre came from."""
        origin, dest = (ln.below, ln.above) if from_below else (ln.above, ln.below)
        net, road = self.network, match.road
        mark = None
        side = ""
        try:
            d_origin = net.lane_direction(road, origin)
            # towards +t is the origin lane's left when it runs along s
            side = "left" if (d_origin > 0) == from_below else "right"
            mark = net.neighbours(road, origin, match.s).get(side, (None, None))[1]
        except Exception:  # noqa: BLE001 - the lane ends here: the line has no mark record
            pass
        return Event("lane_invasion", actor, data={
            "road": road, "lane": origin, "to_lane": dest, "side": side,
            "type": mark.type if mark else "none", "color": mark.color if mark else "",
            "lane_change": getattr(mark, "lane_change", "both") if mark else "both",
            "allowed": _towards_higher_allowed(mark, from_below, origin, dest),
            "centre_across": match.lane == dest, "s": match.s, "t_line": ln.t})
