"""Per-tick events: oriented-box collisions (each pair once), off-road and lane invasions with the mark crossed."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from roadtest.sim.api import Event

__all__ = ["Box", "make_box", "boxes_overlap", "overlapping_pairs", "EventDetector", "DRIVABLE"]

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
    radius: dict[tuple[float, float], float] = {}
    r = []
    for b in boxes:
        key = (b.length, b.width)
        rb = radius.get(key)
        if rb is None:
            rb = radius[key] = 0.5 * math.hypot(b.length, b.width) + 1e-6
        r.append(rb)
    xs = [b.x for b in boxes]
    order = sorted(range(n), key=xs.__getitem__)
    rmax = max(r)
    ext: dict[int, tuple[float, float]] = {}
    out = []
    for a_pos, i in enumerate(order):
        bi, ri, xi = boxes[i], r[i], xs[i]
        for j in order[a_pos + 1:]:
            dx = xs[j] - xi
            if dx > ri + rmax:
                break
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


class EventDetector:
    """Turns successive snapshots into events: a collision when a pair starts touching, off-road when the
    watched actor leaves the drivable area, lane invasion when it changes lane across a mark."""

    def __init__(self, network=None, watch: Iterable[str] = ()):
        self.network = network
        self.watch = tuple(watch)
        self.contacts: set[tuple[str, str]] = set()
        self._off: dict[str, bool] = {}
        self._lane: dict[str, tuple[str, int, float]] = {}

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

    def road_events(self, actor: str, match) -> list[Event]:
        """Off-road (on leaving the drivable area) and lane-invasion events of one actor from its LaneMatch."""
        out: list[Event] = []
        off = match is None or not match.on_road or match.lane_type not in DRIVABLE
        if off and not self._off.get(actor, False):
            out.append(Event("off_road", actor, data={"lane_type": match.lane_type if match else None}))
        self._off[actor] = off
        if match is None:
            self._lane.pop(actor, None)
            return out
        prev = self._lane.get(actor)
        self._lane[actor] = (match.road, match.lane, match.s)
        if prev is None or self.network is None or prev[0] != match.road or prev[1] == match.lane:
            return out
        try:
            nb = self.network.neighbours(prev[0], prev[1], prev[2])
        except Exception:  # lane vanished at a section boundary: not an invasion
            return out
        for side in ("left", "right"):
            lane_id, mark = nb.get(side, (None, None))
            if lane_id is None:
                continue
            toward = (match.lane - prev[1]) * (lane_id - prev[1]) > 0 or lane_id == match.lane
            if not toward:
                continue
            outward = prev[1] * lane_id > 0 and abs(lane_id) > abs(prev[1])
            allowed = True if mark is None else bool(mark.crossing_allowed(outward))
            out.append(Event("lane_invasion", actor, data={
                "road": prev[0], "lane": prev[1], "to_lane": match.lane, "side": side,
                "type": mark.type if mark else "none", "color": mark.color if mark else "",
                "allowed": allowed}))
            break
        return out
