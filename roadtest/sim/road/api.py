"""The narrow lane API the whole simulator, the metrics and the renderers query (contract).

This file fixes the names and shapes; roadtest/sim/road/ implements them (network.py etc.).
Coordinates: OpenDRIVE inertial frame; s along the road reference line, t lateral (left positive).
Lane ids follow OpenDRIVE: negative lanes lie right of the reference line and run with increasing s
(in right-hand traffic), positive lanes left and run against s; 0 is the centre lane.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np

__all__ = ["Pose", "RoadMark", "LaneMatch", "LaneSegment", "Signal", "RoadObject", "RoadNetworkAPI"]


@dataclass(frozen=True)
class Pose:
    x: float
    y: float
    z: float
    h: float  # rad


@dataclass(frozen=True)
class RoadMark:
    type: str  # none, solid, broken, solid solid, solid broken, broken solid, broken broken, botts dots, curb...
    color: str  # standard, white, yellow...
    weight: str = "standard"
    lane_change: str = "both"  # OpenDRIVE laneChange: both | increase | decrease | none
    # added: +1 when the mark is the outer border of a left lane or the centre lane (outward = towards
    # higher lane ids), -1 for a right lane (outward = towards lower ids)
    side: int = 1

    def crossing_allowed(self, from_inner_to_outer: bool) -> bool:
        """Whether a vehicle may cross this mark in the given direction (OpenDRIVE semantics).

        Inner/outer are relative to the reference line; for the centre lane's mark "inner" is the right
        (negative) side. The reader fills lane_change from the mark type when the attribute is absent.
        """
        return self.allows(from_inner_to_outer if self.side >= 0 else not from_inner_to_outer)

    def allows(self, towards_higher_id: bool) -> bool:
        """Whether crossing towards higher lane ids (leftwards in the road frame) is allowed."""
        if self.lane_change in ("both", "none"):
            return self.lane_change == "both"
        return (self.lane_change == "increase") == towards_higher_id


@dataclass(frozen=True)
class LaneMatch:
    """Result of locating a world point on the road network."""

    road: str
    lane: int
    s: float
    t: float  # road-frame lateral offset of the point
    offset: float  # lateral offset from the lane centre
    heading_diff: float  # point heading minus lane driving direction, wrapped to [-pi, pi]; 0 when no heading given
    lane_type: str  # driving, sidewalk, shoulder, border, ...
    on_road: bool  # inside the outer boundary of the road's lanes
    junction: str | None  # junction id when the road is a connecting road


@dataclass(frozen=True)
class LaneSegment:
    """A stretch of one lane; s_end < s_start when the lane runs against s."""

    road: str
    lane: int
    s_start: float
    s_end: float


@dataclass(frozen=True)
class Signal:
    id: str
    road: str
    s: float
    t: float
    country: str
    type: str
    subtype: str
    value: float | None
    unit: str | None
    orientation: str  # "+", "-", "none"
    dynamic: bool
    name: str
    validity: tuple[tuple[int, int], ...]  # (fromLane, toLane) pairs; empty = all lanes of its direction
    z_offset: float | None = None  # m, the face's lower edge above the road (OpenDRIVE zOffset); None: not given
    width: float | None = None  # m, the signal's width (OpenDRIVE width); None: not given
    height: float | None = None  # m, the signal's height (OpenDRIVE height); None: not given
    reference: bool = False  # a <signalReference>'s copy of a signal placed on another road


@dataclass(frozen=True)
class RoadObject:
    id: str
    road: str
    s: float
    t: float
    type: str  # crosswalk, stopLine (roadMark/ "stopLine" name), parkingSpace, pole, ...
    name: str
    length: float
    width: float
    heading: float
    outline: tuple[tuple[float, float], ...]  # world (x, y) polygon, empty when none given


class RoadNetworkAPI(Protocol):
    """What a parsed OpenDRIVE map answers. Implemented by roadtest.sim.road.RoadNetwork;
    obtained with roadtest.sim.road.load_map(path) (cached by content digest)."""

    driving_side: str  # "right" | "left"
    signals: dict[str, Signal]
    objects: list[RoadObject]

    def road_ids(self) -> list[str]: ...
    def road_length(self, road: str) -> float: ...
    def junction_of(self, road: str) -> str | None:
        """The junction id of a connecting road, None for an ordinary road."""
    def road_to_world(self, road: str, s: float, t: float = 0.0) -> Pose:
        """Point at (s, t); h is the reference-line heading (plus superelevation ignored)."""
    def lane_to_world(self, road: str, lane: int, s: float, offset: float = 0.0) -> Pose:
        """Point on the lane centre (plus offset, left positive in the road frame); h is the lane's
        driving direction (reference heading for right lanes in RHT, reversed for left lanes)."""
    def lane_width(self, road: str, lane: int, s: float) -> float: ...
    def lane_type(self, road: str, lane: int, s: float) -> str: ...
    def lane_ids(self, road: str, s: float) -> list[int]: ...
    def lane_direction(self, road: str, lane: int) -> int:
        """+1 when traffic in the lane runs with increasing s, -1 against."""
    def locate(self, x: float, y: float, h: float | None = None, hint: LaneMatch | None = None,
               driving_only: bool = False) -> LaneMatch | None:
        """Nearest lane position of a world point (spatial index); None when off every road."""
    def locate_many(self, xy: np.ndarray) -> list[LaneMatch | None]: ...
    def successors(self, road: str, lane: int) -> list[tuple[str, int]]:
        """Lanes that continue this one in its driving direction (across sections, roads, junctions)."""
    def predecessors(self, road: str, lane: int) -> list[tuple[str, int]]: ...
    def neighbours(self, road: str, lane: int, s: float) -> dict[str, tuple[int | None, RoadMark | None]]:
        """{"left": (lane id or None, mark between), "right": (...)} relative to the driving direction."""
    def route(self, start: LaneSegment | tuple[str, int, float], goal: tuple[str, int, float]) -> list[LaneSegment]:
        """Shortest route on the lane graph (lane changes allowed where marks permit)."""
    def speed_limit(self, road: str, lane: int, s: float) -> float | None:
        """m/s from lane speed records, else road type speed; None when unknown."""
    def signals_for(self, road: str, lane: int, s: float, ahead: float = 100.0) -> list[tuple[Signal, float]]:
        """Signals that govern this lane within `ahead` m in the driving direction, with their distance."""
    def lane_polyline(self, road: str, lane: int, which: str = "center", step: float = 1.0) -> np.ndarray:
        """N x 2 world points of the lane centre, or its "left"/"right" boundary."""
    def path(self, segments: Sequence[LaneSegment], step: float = 1.0) -> np.ndarray:
        """N x 4 (x, y, z, h) along a route, sampled every `step` m."""
