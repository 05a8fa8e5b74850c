"""Analytic reference lines (lines and arcs) that the OpenDRIVE emitter and meta.json's route share."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["Segment", "RefLine", "LaneSpec", "RoadPiece", "LinkSpec", "wrap_angle"]


def wrap_angle(a: float) -> float:
    """Angle wrapped to (-pi, pi]."""
    return math.atan2(math.sin(a), math.cos(a))


_GAUSS = (  # 8-point Gauss-Legendre nodes and weights on [-1, 1]
    (-0.9602898564975363, 0.1012285362903763), (-0.7966664774136267, 0.2223810344533745),
    (-0.5255324099163290, 0.3137066458778873), (-0.1834346424956498, 0.3626837833783620),
    (0.1834346424956498, 0.3626837833783620), (0.5255324099163290, 0.3137066458778873),
    (0.7966664774136267, 0.2223810344533745), (0.9602898564975363, 0.1012285362903763),
)


@dataclass(frozen=True)
class Segment:
    """One planView geometry: a line, an arc, or a spiral (curvature linear from curvature to curvature_end)."""

    x: float
    y: float
    h: float  # rad
    length: float  # m
    curvature: float = 0.0  # 1/m at the start, positive turns left
    curvature_end: float | None = None  # 1/m at the end: set for a spiral (clothoid)

    @property
    def is_spiral(self) -> bool:
        return self.curvature_end is not None

    def heading(self, ds: float) -> float:
        if self.curvature_end is None:
            return self.h + self.curvature * ds
        dk = (self.curvature_end - self.curvature) / self.length
        return self.h + self.curvature * ds + 0.5 * dk * ds * ds

    def at(self, ds: float) -> tuple[float, float, float]:
        """Pose after ds metres along this segment."""
        k = self.curvature
        if self.curvature_end is not None:
            # Fresnel-type integral of (cos h, sin h): Gauss-Legendre on 1 m pieces, exact to ~1e-12 m
            n = max(1, math.ceil(ds))
            x, y, step = self.x, self.y, ds / n
            for i in range(n):
                a = i * step
                for node, w in _GAUSS:
                    hh = self.heading(a + step * (node + 1) / 2)
                    x += w * step / 2 * math.cos(hh)
                    y += w * step / 2 * math.sin(hh)
            return x, y, self.heading(ds)
        if abs(k) < 1e-12:
            return self.x + ds * math.cos(self.h), self.y + ds * math.sin(self.h), self.h
        h = self.h + k * ds
        return (self.x + (math.sin(h) - math.sin(self.h)) / k,
                self.y - (math.cos(h) - math.cos(self.h)) / k, h)

    def end(self) -> tuple[float, float, float]:
        return self.at(self.length)


@dataclass
class RefLine:
    """A chain of segments; pose(s) and point(s, t) in the inertial frame (t left positive)."""

    segments: list[Segment] = field(default_factory=list)

    @classmethod
    def start(cls, x: float, y: float, h: float) -> "RefLine":
        line = cls()
        line._cursor = (x, y, h)
        return line

    def _next_start(self) -> tuple[float, float, float]:
        return self.segments[-1].end() if self.segments else self._cursor

    def line(self, length: float) -> "RefLine":
        x, y, h = self._next_start()
        self.segments.append(Segment(x, y, h, length, 0.0))
        return self

    def arc(self, length: float, curvature: float) -> "RefLine":
        x, y, h = self._next_start()
        self.segments.append(Segment(x, y, h, length, curvature))
        return self

    def spiral(self, length: float, curvature_start: float, curvature_end: float) -> "RefLine":
        x, y, h = self._next_start()
        self.segments.append(Segment(x, y, h, length, curvature_start, curvature_end))
        return self

    @property
    def length(self) -> float:
        return sum(g.length for g in self.segments)

    def s_starts(self) -> list[float]:
        out, s = [], 0.0
        for g in self.segments:
            out.append(s)
            s += g.length
        return out

    def pose(self, s: float) -> tuple[float, float, float]:
        """(x, y, heading) on the reference line at s (clamped to the line)."""
        s = min(max(s, 0.0), self.length)
        acc = 0.0
        for g in self.segments:
            if s <= acc + g.length or g is self.segments[-1]:
                return g.at(s - acc)
            acc += g.length
        raise ValueError("empty reference line")

    def point(self, s: float, t: float = 0.0) -> tuple[float, float, float]:
        """(x, y, heading of the reference line) at lateral offset t from the reference line."""
        x, y, h = self.pose(s)
        return x - t * math.sin(h), y + t * math.cos(h), h

    def end(self) -> tuple[float, float, float]:
        return self.segments[-1].end()


@dataclass
class LaneSpec:
    """One lane of a road piece: OpenDRIVE id, type, width (linear taper allowed) and its outer mark."""

    id: int
    type: str = "driving"  # driving | sidewalk | shoulder | border
    width: float = 3.5  # m at the section start
    width_end: float | None = None  # m at the section end; None = constant
    mark: str = "solid"  # OpenDRIVE roadMark type of the lane's outer boundary: solid, broken, "solid solid", none...
    color: str = "white"
    speed: float | None = None  # m/s
    predecessor: int | None = None
    successor: int | None = None


@dataclass(frozen=True)
class LinkSpec:
    """A road's predecessor/successor: a road (with contact point) or a junction."""

    element: str  # road | junction
    id: int
    contact: str | None = None  # start | end (roads only)


@dataclass
class RoadPiece:
    """One OpenDRIVE road: reference line, lane sections, links and what stands on it."""

    id: int
    name: str
    ref: RefLine
    sections: list[tuple[float, list[LaneSpec]]]  # (s start, lanes with ids != 0)
    center_mark: str = "solid"
    center_color: str = "white"
    junction: int = -1
    predecessor: LinkSpec | None = None
    successor: LinkSpec | None = None
    speed: float | None = None  # m/s for <type><speed>
    signals: list[dict] = field(default_factory=list)
    objects: list[dict] = field(default_factory=list)
    tunnels: list[tuple[float, float]] = field(default_factory=list)  # (s, length)
    bridges: list[tuple[float, float]] = field(default_factory=list)

    @property
    def length(self) -> float:
        return self.ref.length

    def lanes_at(self, s: float) -> list[LaneSpec]:
        lanes = self.sections[0][1]
        for s0, ls in self.sections:
            if s0 <= s + 1e-9:
                lanes = ls
        return lanes

    def lane_center_t(self, lane_id: int, s: float) -> float:
        """Lateral offset of a lane's centre line at s (constant-width lanes; tapers use the start width)."""
        lanes = self.lanes_at(s)
        by_id = {ln.id: ln for ln in lanes}
        sign = 1 if lane_id > 0 else -1
        t = 0.0
        for k in range(1, abs(lane_id)):
            t += by_id[sign * k].width
        return sign * (t + by_id[lane_id].width / 2)
