"""Stand-in `carla` for running leaderboard agents without CARLA: the value types agents build and read.

Not the CARLA client: no World, no Client, no sensors. Map and Waypoint are roadtest's stand-in map
(roadtest.agents.leaderboard_compat.standin_map), Actor and TrafficLight the built-in world's classes, so that
CARLA's own agents (isinstance checks, type hints) import and run over the built-in world. Imported as `carla` only when the real package is
absent (roadtest.agents.leaderboard_compat.install; its is_compat tells the two apart). Semantics follow
CARLA's Python API (left-handed frame, degrees in Rotation).
"""

from __future__ import annotations

import math

import enum

__all__ = ["Vector2D", "Vector3D", "Location", "Rotation", "Transform", "GeoLocation",
           "VehicleControl", "BoundingBox", "TrafficLightState", "LaneType", "LaneChange", "LaneMarkingType", "LaneMarking", "Map", "Waypoint",
           "Actor", "Vehicle", "Walker", "TrafficLight"]

class Vector2D:
    def __init__(self, x: float = 0.0, y: float = 0.0):
        self.x, self.y = float(x), float(y)

    def length(self) -> float:
        return math.hypot(self.x, self.y)

    def __eq__(self, other) -> bool:
        return isinstance(other, Vector2D) and (self.x, self.y) == (other.x, other.y)

    def __repr__(self) -> str:
        return f"Vector2D(x={self.x:.6f}, y={self.y:.6f})"


class Vector3D:
    def __init__(self, x=0.0, y: float = 0.0, z: float = 0.0):
        if isinstance(x, Vector3D):  # carla.Location(vector), as CARLA's constructors take
            x, y, z = x.x, x.y, x.z
        self.x, self.y, self.z = float(x), float(y), float(z)

    def _new(self, x: float, y: float, z: float):
        return type(self)(x, y, z)

    def __add__(self, o):
        return self._new(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        return self._new(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, k: float):
        return self._new(self.x * k, self.y * k, self.z * k)

    __rmul__ = __mul__

    def __truediv__(self, k: float):
        return self._new(self.x / k, self.y / k, self.z / k)

    def __eq__(self, o) -> bool:
        return isinstance(o, Vector3D) and (self.x, self.y, self.z) == (o.x, o.y, o.z)

    def length(self) -> float:
        return math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z)

    def squared_length(self) -> float:
        return self.x * self.x + self.y * self.y + self.z * self.z

    def dot(self, o) -> float:
        return self.x * o.x + self.y * o.y + self.z * o.z

    def cross(self, o):
        return self._new(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)

    def make_unit_vector(self):
        n = self.length()
        return self._new(self.x / n, self.y / n, self.z / n) if n > 0 else self._new(0.0, 0.0, 0.0)

    def distance(self, o) -> float:
        return math.sqrt((self.x - o.x) ** 2 + (self.y - o.y) ** 2 + (self.z - o.z) ** 2)

    def distance_2d(self, o) -> float:
        return math.hypot(self.x - o.x, self.y - o.y)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(x={self.x:.6f}, y={self.y:.6f}, z={self.z:.6f})"


class Location(Vector3D):
    """A point in CARLA's frame (m)."""


class Rotation:
    """Pitch, yaw, roll in degrees, as CARLA's (yaw clockwise seen from above)."""

    def __init__(self, pitch: float = 0.0, yaw: float = 0.0, roll: float = 0.0):
        self.pitch, self.yaw, self.roll = float(pitch), float(yaw), float(roll)

    def _trig(self):
        p, y, r = (math.radians(a) for a in (self.pitch, self.yaw, self.roll))
        return math.cos(p), math.sin(p), math.cos(y), math.sin(y), math.cos(r), math.sin(r)

    def get_forward_vector(self) -> Vector3D:
        cp, sp, cy, sy, _, _ = self._trig()
        return Vector3D(cp * cy, cp * sy, sp)

    def get_right_vector(self) -> Vector3D:
        cp, sp, cy, sy, cr, sr = self._trig()
        return Vector3D(cy * sp * sr - sy * cr, sy * sp * sr + cy * cr, -cp * sr)

    def get_up_vector(self) -> Vector3D:
        cp, sp, cy, sy, cr, sr = self._trig()
        return Vector3D(-cy * sp * cr - sy * sr, -sy * sp * cr + cy * sr, cp * cr)

    def __eq__(self, o) -> bool:
        return isinstance(o, Rotation) and (self.pitch, self.yaw, self.roll) == (o.pitch, o.yaw, o.roll)

    def __repr__(self) -> str:
        return f"Rotation(pitch={self.pitch:.6f}, yaw={self.yaw:.6f}, roll={self.roll:.6f})"


class Transform:
    """A location and a rotation in CARLA's frame."""

    def __init__(self, location: Location | None = None, rotation: Rotation | None = None):
        self.location = location if location is not None else Location()
        self.rotation = rotation if rotation is not None else Rotation()

    def get_forward_vector(self) -> Vector3D:
        return self.rotation.get_forward_vector()

    def get_right_vector(self) -> Vector3D:
        return self.rotation.get_right_vector()

    def get_up_vector(self) -> Vector3D:
        return self.rotation.get_up_vector()

    def transform(self, point: Vector3D) -> Location:
        """A point given in this transform's local frame, in world coordinates."""
        f, r, u = self.get_forward_vector(), self.get_right_vector(), self.get_up_vector()
        return Location(self.location.x + f.x * point.x + r.x * point.y + u.x * point.z,
                        self.location.y + f.y * point.x + r.y * point.y + u.y * point.z,
                        self.location.z + f.z * point.x + r.z * point.y + u.z * point.z)

    def __eq__(self, o) -> bool:
        return isinstance(o, Transform) and self.location == o.location and self.rotation == o.rotation

    def __repr__(self) -> str:
        return f"Transform({self.location!r}, {self.rotation!r})"


class GeoLocation:
    def __init__(self, latitude: float = 0.0, longitude: float = 0.0, altitude: float = 0.0):
        self.latitude, self.longitude, self.altitude = float(latitude), float(longitude), float(altitude)

    def __repr__(self) -> str:
        return f"GeoLocation(latitude={self.latitude:.6f}, longitude={self.longitude:.6f}, altitude={self.altitude:.6f})"


class VehicleControl:
    """What run_step returns: throttle 0..1, steer -1..1 (right positive), brake 0..1, and flags."""

    def __init__(self, throttle: float = 0.0, steer: float = 0.0, brake: float = 0.0, hand_brake: bool = False,
                 reverse: bool = False, manual_gear_shift: bool = False, gear: int = 0):
        self.throttle, self.steer, self.brake = float(throttle), float(steer), float(brake)
        self.hand_brake, self.reverse, self.manual_gear_shift, self.gear = bool(hand_brake), bool(reverse), \
            bool(manual_gear_shift), int(gear)

    def __eq__(self, o) -> bool:
        return isinstance(o, VehicleControl) and vars(self) == vars(o)

    def __repr__(self) -> str:
        return (f"VehicleControl(throttle={self.throttle:.6f}, steer={self.steer:.6f}, brake={self.brake:.6f}, "
                f"hand_brake={self.hand_brake}, reverse={self.reverse}, manual_gear_shift={self.manual_gear_shift}, "
                f"gear={self.gear})")


class BoundingBox:
    """A box: its centre (location, in the owner's frame), half sizes (extent) and rotation."""

    def __init__(self, location: Location | None = None, extent: Vector3D | None = None,
                 rotation: Rotation | None = None):
        self.location = location if location is not None else Location()
        self.extent = extent if extent is not None else Vector3D()
        self.rotation = rotation if rotation is not None else Rotation()

    def __repr__(self) -> str:
        return f"BoundingBox({self.location!r}, {self.extent!r}, {self.rotation!r})"


class TrafficLightState(enum.IntEnum):
    """carla.TrafficLightState, with CARLA's values."""

    Red = 0
    Yellow = 1
    Green = 2
    Off = 3
    Unknown = 4


_ELSEWHERE = {"LaneType": ("standin_map", "LaneType"), "LaneChange": ("standin_map", "LaneChange"),
              "LaneMarkingType": ("standin_map", "LaneMarkingType"), "LaneMarking": ("standin_map", "StandInLaneMarking"),
              "Map": ("standin_map", "StandInMap"), "Waypoint": ("standin_map", "StandInWaypoint"),
              "Actor": ("world", "Actor"), "Vehicle": ("world", "Actor"), "Walker": ("world", "Actor"),
              "TrafficLight": ("world", "TrafficLight")}


def __getattr__(name: str):
    if name in _ELSEWHERE:
        import importlib

        module, attr = _ELSEWHERE[name]
        return getattr(importlib.import_module(f"roadtest.agents.leaderboard_compat.{module}"), attr)
    raise AttributeError(f"carla.{name}: CARLA is not installed; roadtest's stand-in `carla` provides only the value "
                         f"types leaderboard agents build ({', '.join(__all__)}); install the `carla` extra for the rest")
