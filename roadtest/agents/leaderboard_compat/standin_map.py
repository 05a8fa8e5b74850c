"""StandInMap: a stand-in for carla.Map, for a built-in run where the real CARLA client is not importable.

The real client builds carla.Map from the scene's OpenDRIVE without a server, and the built-in world hands agents
that one whenever it can. Without it, StandInMap answers the calls CARLA's agents (BasicAgent, BehaviorAgent,
GlobalRoutePlanner, LocalPlanner) and the leaderboard's make of a map: get_waypoint, get_waypoint_xodr,
get_topology, generate_waypoints, transform_to_geolocation, name and to_opendrive; its waypoints give
transform, road/section/lane id, s, lane width and type, lane_change, right/left_lane_marking, is_junction, junction_id, next, previous,
next_until_lane_end, previous_until_lane_start, get_left_lane and get_right_lane. They are read from roadtest's
own road network of the same file, in CARLA's frame, with CARLA's conventions (topology from each lane
section's start to the starts of its successors; left and right of the lane's driving direction). Anything else is refused by
name (NotProvided), never answered with a default.
"""

from __future__ import annotations

import enum
import math
import re
from collections import Counter
from typing import Any

from roadtest.sim.frames import EARTH_RADIUS, TM_SCALE, location_from_carla, location_to_carla, yaw_to_carla

__all__ = ["StandInMap", "StandInWaypoint", "StandInLaneMarking", "LaneType", "LaneChange", "LaneMarkingType", "PROVIDED_MAP", "PROVIDED_WAYPOINT"]

PROVIDED_MAP = ("name", "get_waypoint", "get_waypoint_xodr", "get_topology", "generate_waypoints",
                "transform_to_geolocation", "to_opendrive")
PROVIDED_WAYPOINT = ("id", "transform", "road_id", "section_id", "lane_id", "s", "lane_width", "lane_type",
                     "lane_change", "right_lane_marking", "left_lane_marking", "is_junction", "is_intersection", "junction_id", "next", "previous",
                     "next_until_lane_end", "previous_until_lane_start", "get_left_lane", "get_right_lane")


class _CarlaName:
    """str() of a CARLA enum value is its bare name, as the client prints it ("Driving", not "LaneType.Driving")."""

    def __str__(self) -> str:
        return str(self.name)


class LaneType(_CarlaName, enum.IntFlag):
    """carla.LaneType's flags, with CARLA's values."""

    NONE = 1
    Driving = 1 << 1
    Stop = 1 << 2
    Shoulder = 1 << 3
    Biking = 1 << 4
    Sidewalk = 1 << 5
    Border = 1 << 6
    Restricted = 1 << 7
    Parking = 1 << 8
    Bidirectional = 1 << 9
    Median = 1 << 10
    Special1 = 1 << 11
    Special2 = 1 << 12
    Special3 = 1 << 13
    RoadWorks = 1 << 14
    Tram = 1 << 15
    Rail = 1 << 16
    Entry = 1 << 17
    Exit = 1 << 18
    OffRamp = 1 << 19
    OnRamp = 1 << 20
    Any = (1 << 21) - 2  # every type but NONE, as CARLA's 0xFFFFFFFE


class LaneChange(_CarlaName, enum.IntFlag):
    """carla.LaneChange: which side a vehicle may change lanes to, from the marks."""

    NONE = 0
    Right = 1
    Left = 2
    Both = 3


class LaneMarkingType(_CarlaName, enum.IntEnum):
    """carla.LaneMarkingType, with CARLA's values."""

    NONE = 0
    Other = 1
    Broken = 2
    Solid = 3
    SolidSolid = 4
    SolidBroken = 5
    BrokenSolid = 6
    BrokenBroken = 7
    BottsDots = 8
    Grass = 9
    Curb = 10


_MARKS = {"none": LaneMarkingType.NONE, "broken": LaneMarkingType.Broken, "solid": LaneMarkingType.Solid,
          "solid solid": LaneMarkingType.SolidSolid, "solid broken": LaneMarkingType.SolidBroken,
          "broken solid": LaneMarkingType.BrokenSolid, "broken broken": LaneMarkingType.BrokenBroken,
          "botts dots": LaneMarkingType.BottsDots, "grass": LaneMarkingType.Grass, "curb": LaneMarkingType.Curb}


class StandInLaneMarking:
    """Stand-in for carla.LaneMarking: the mark on one side of a lane, its type, width and which way it may be
    crossed (lane_change, from the marks as roadtest reads them)."""

    def __init__(self, mark: Any, lane_change: "LaneChange"):
        self.type = _MARKS.get(str(getattr(mark, "type", "none")).lower(), LaneMarkingType.Other)
        self.width = float(getattr(mark, "width", 0.0) or 0.0)
        self.lane_change = lane_change

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _refuse(f"carla.LaneMarking.{name}")


_TYPES = {t.name.lower(): t for t in LaneType if t not in (LaneType.Any,)}
EPSILON = 2e-15  # CARLA keeps a lane's end waypoint this far inside the section (10 double epsilons)


def _refuse(what: str):
    from roadtest.agents.leaderboard_compat.world import NotProvided

    return NotProvided(what, "roadtest's stand-in map (the real CARLA client is not importable) does not provide it")


class StandInWaypoint:
    """Stand-in for carla.Waypoint: a point on a lane centre of the stand-in map (see the module)."""

    def __init__(self, cmap: "StandInMap", road: str, section: int, lane: int, s: float):
        self._map, self._road, self.section_id, self.lane_id, self.s = cmap, road, int(section), int(lane), float(s)
        self.road_id = cmap._road_int(road)
        r = cmap.net.road(road)
        self.junction_id = int(r.junction) if r.junction is not None and str(r.junction).lstrip("-").isdigit() else -1
        self.is_junction = r.junction is not None
        self.is_intersection = self.is_junction
        self.lane_type = _TYPES.get(r.sections[self.section_id].lanes[self.lane_id].type.lower(), LaneType.NONE)
        self.id = hash((road, self.section_id, self.lane_id, round(self.s, 6))) & 0xFFFFFFFFFFFFFFF

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _refuse(f"carla.Waypoint.{name}")

    def __repr__(self) -> str:
        return f"StandInWaypoint(road={self.road_id}, section={self.section_id}, lane={self.lane_id}, s={self.s:.3f})"

    @property
    def transform(self):
        c = self._map.carla
        p = self._map.net.lane_to_world(self._road, self.lane_id, self.s)
        return c.Transform(c.Location(*location_to_carla(p.x, p.y, p.z)), c.Rotation(yaw=yaw_to_carla(p.h)))

    @property
    def lane_width(self) -> float:
        return self._map.net.lane_width(self._road, self.lane_id, self.s)

    @property
    def lane_change(self) -> LaneChange:
        """Which side a vehicle in this lane may change to: the marks' own flags (a solid line forbids it where
        the file says nothing; CARLA's client then reads both)."""
        return (self.right_lane_marking.lane_change & LaneChange.Right) | \
            (self.left_lane_marking.lane_change & LaneChange.Left)

    @property
    def right_lane_marking(self) -> StandInLaneMarking:
        return self._marking("right")

    @property
    def left_lane_marking(self) -> StandInLaneMarking:
        return self._marking("left")

    def _marking(self, side: str) -> StandInLaneMarking:
        """Crossing it from this lane is `side`'s flag; from the lane beyond, the other's (CARLA's reading)."""
        nb, mark = self._map.net.neighbours(self._road, self.lane_id, self.s)[side]
        own, back = (LaneChange.Right, LaneChange.Left) if side == "right" else (LaneChange.Left, LaneChange.Right)
        if mark is None:
            return StandInLaneMarking(None, LaneChange.Both)
        outward = (nb if nb is not None else self.lane_id + (1 if mark.side >= 0 else -1)) > self.lane_id
        flags = (own if mark.allows(outward) else LaneChange.NONE) | (back if mark.allows(not outward) else LaneChange.NONE)
        return StandInLaneMarking(mark, flags)

    def next(self, distance: float) -> list["StandInWaypoint"]:
        """Waypoints `distance` m ahead in the lane's direction, on every lane it continues into."""
        return self._map._walk(self._road, self.section_id, self.lane_id, self.s, float(distance), True)

    def previous(self, distance: float) -> list["StandInWaypoint"]:
        return self._map._walk(self._road, self.section_id, self.lane_id, self.s, float(distance), False)

    def next_until_lane_end(self, distance: float) -> list["StandInWaypoint"]:
        """Every `distance` m ahead up to the end of this lane section, its last waypoint included."""
        return self._map._until_end(self, float(distance), True)

    def previous_until_lane_start(self, distance: float) -> list["StandInWaypoint"]:
        return self._map._until_end(self, float(distance), False)

    def get_left_lane(self) -> "StandInWaypoint | None":
        """The lane to the left of this lane's driving direction (under right-hand traffic, towards the centre
        line: lanes 1 and -1 are each other's left), at the same s."""
        return self._side(1)

    def get_right_lane(self) -> "StandInWaypoint | None":
        return self._side(-1)

    def _side(self, left: int) -> "StandInWaypoint | None":
        step = left * self._map._sign(self._road, self.section_id, self.lane_id)  # +1: towards higher lane ids
        lid = self.lane_id + step
        lid = lid + step if lid == 0 else lid
        return self._map._at(self._road, self.section_id, lid, self.s)


class StandInMap:
    """Stand-in for carla.Map over roadtest's road network of the scene's OpenDRIVE (see the module): used only
    where the real CARLA client cannot be imported, and refusing by name what it does not provide."""

    def __init__(self, network: Any, name: str, xodr: str, carla: Any, calls: Counter | None = None):
        self.net, self.name, self._xodr, self.carla = network, name, xodr, carla
        self._calls = calls if calls is not None else Counter()
        self._ints: dict[str, int] = {}
        lat = re.search(r"\+lat_0=([-+0-9.eE]+)", xodr)
        lon = re.search(r"\+lon_0=([-+0-9.eE]+)", xodr)
        self._geo_ref = (float(lat.group(1)) if lat else 0.0, float(lon.group(1)) if lon else 0.0)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _refuse(f"carla.Map.{name}")

    def __repr__(self) -> str:
        return f"StandInMap({self.name!r})"

    def _log(self, name: str) -> None:
        self._calls[f"Map.{name}"] += 1

    def _road_int(self, road: str) -> int:
        if road not in self._ints:
            self._ints[road] = int(road) if str(road).lstrip("-").isdigit() else 100000 + len(self._ints)
        return self._ints[road]

    def _road_str(self, road_id: int) -> str:
        for k, v in self._ints.items():
            if v == road_id:
                return k
        if str(road_id) in self.net.roads:
            return str(road_id)
        raise _refuse(f"carla.Map road {road_id}")

    # lane sections
    def _bounds(self, road: str, section: int) -> tuple[float, float]:
        r = self.net.road(road)
        end = r.sections[section + 1].s if section + 1 < len(r.sections) else r.length
        return float(r.sections[section].s), float(end)

    def _sign(self, road: str, section: int, lane: int) -> int:
        return self.net.road(road).lane_sign(lane, section)

    def _at(self, road: str, section: int, lane: int, s: float) -> StandInWaypoint | None:
        if lane == 0 or lane not in self.net.road(road).sections[section].lanes:
            return None
        return StandInWaypoint(self, road, section, lane, s)

    def _entry(self, road: str, section: int, lane: int, forward: bool) -> StandInWaypoint:
        """The waypoint where a walk forward (or backward) enters the lane section."""
        a, b = self._bounds(road, section)
        starts_low = (self._sign(road, section, lane) > 0) == forward
        return StandInWaypoint(self, road, section, lane, a + EPSILON if starts_low else b - EPSILON)

    def _walk(self, road: str, section: int, lane: int, s: float, dist: float, forward: bool) -> list:
        out: list[StandInWaypoint] = []
        stack = [(road, section, lane, s, dist, 0)]
        graph = self.net.graph.succ if forward else self.net.graph.pred
        while stack:
            rd, k, ln, s0, d, depth = stack.pop()
            a, b = self._bounds(rd, k)
            up = (self._sign(rd, k, ln) > 0) == forward
            room = (b - s0) if up else (s0 - a)
            if d <= room + 1e-9:
                out.append(StandInWaypoint(self, rd, k, ln, min(max(s0 + d if up else s0 - d, a), b)))
                continue
            if depth > 64:
                continue
            for (r2, k2, l2), _ in graph.get((rd, k, ln), []):
                e = self._entry(r2, k2, l2, forward)
                stack.append((r2, k2, l2, e.s, d - room, depth + 1))
        return out

    def _until_end(self, wp: StandInWaypoint, dist: float, forward: bool) -> list:
        a, b = self._bounds(wp._road, wp.section_id)
        up = (self._sign(wp._road, wp.section_id, wp.lane_id) > 0) == forward
        out, s = [], wp.s
        while True:
            s = s + dist if up else s - dist
            if (up and s >= b) or (not up and s <= a):
                out.append(StandInWaypoint(self, wp._road, wp.section_id, wp.lane_id, b - EPSILON if up else a + EPSILON))
                return out
            out.append(StandInWaypoint(self, wp._road, wp.section_id, wp.lane_id, s))

    def _driving_nodes(self):
        for rd in self.net.road_ids():
            r = self.net.road(rd)
            for k, sec in enumerate(r.sections):
                for ln, lane in sorted(sec.lanes.items()):
                    if ln != 0 and lane.type.lower() == "driving":
                        yield rd, k, ln

    # carla.Map
    def get_waypoint(self, location, project_to_road: bool = True, lane_type=LaneType.Driving):
        """The waypoint at the centre of the nearest lane of `lane_type` (Driving or Any), at the location's s;
        None when project_to_road is False and the location is not on such a lane."""
        self._log("get_waypoint")
        lane_type = LaneType(int(lane_type))
        if lane_type not in (LaneType.Driving, LaneType.Any):
            raise _refuse(f"carla.Map.get_waypoint(lane_type={lane_type!r})")
        x, y, _ = location_from_carla(location.x, location.y, location.z)
        m = self.net.locate(x, y, driving_only=lane_type == LaneType.Driving)
        if m is None or m.lane == 0:
            return None
        if not project_to_road and (not m.on_road or abs(m.offset) > self.net.lane_width(m.road, m.lane, m.s) / 2):
            return None
        return StandInWaypoint(self, m.road, self.net.road(m.road).section_index(m.s, m.lane), m.lane, m.s)

    def get_waypoint_xodr(self, road_id: int, lane_id: int, s: float):
        self._log("get_waypoint_xodr")
        road = self._road_str(int(road_id))
        r = self.net.road(road)
        if not 0.0 <= float(s) <= r.length:
            return None
        return self._at(road, r.section_index(float(s), int(lane_id)), int(lane_id), float(s))

    def get_topology(self) -> list[tuple[StandInWaypoint, StandInWaypoint]]:
        """(start of a driving lane section, start of each lane it continues into), or its own end at a dead end."""
        self._log("get_topology")
        out = []
        for rd, k, ln in self._driving_nodes():
            start = self._entry(rd, k, ln, True)
            nxt = [self._entry(r2, k2, l2, True) for (r2, k2, l2), _ in self.net.graph.succ.get((rd, k, ln), [])]
            out.extend((start, n) for n in nxt) if nxt else out.append((start, self._entry(rd, k, ln, False)))
        return out

    def generate_waypoints(self, distance: float) -> list[StandInWaypoint]:
        """Every driving lane's waypoints every `distance` m of its road's s, as CARLA walks them."""
        self._log("generate_waypoints")
        out = []
        for rd in self.net.road_ids():
            r = self.net.road(rd)
            s = EPSILON
            while s < r.length - EPSILON:
                k = r.section_index(s)
                for ln, lane in sorted(r.sections[k].lanes.items()):
                    if ln != 0 and lane.type.lower() == "driving":
                        out.append(StandInWaypoint(self, rd, k, ln, s))
                s += float(distance)
        return out

    def transform_to_geolocation(self, location):
        """CARLA 0.9.16's geolocation of a location: the inverse spherical transverse Mercator (k0 0.9996) around
        the file's geo-reference, +lat towards CARLA's +y (roadtest.sim.frames.location_from_carla_geolocation)."""
        self._log("transform_to_geolocation")
        lat0, lon0 = self._geo_ref
        k = TM_SCALE * EARTH_RADIUS
        d, xs = location.y / k + math.radians(lat0), location.x / k
        lat = math.degrees(math.asin(math.sin(d) / math.cosh(xs)))
        lon = lon0 + math.degrees(math.atan2(math.sinh(xs), math.cos(d)))
        return self.carla.GeoLocation(latitude=lat, longitude=lon, altitude=float(location.z))

    def to_opendrive(self) -> str:
        self._log("to_opendrive")
        return self._xodr
