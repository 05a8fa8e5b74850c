"""The one place where roadtest's frame meets CARLA's: pure functions, no `carla` import.

roadtest (OpenDRIVE/OpenSCENARIO inertial frame): x east, y north, z up, right-handed, heading in radians
counter-clockwise from x. CARLA (Unreal): x, y = -north, z up, left-handed, yaw in degrees clockwise seen from
above. So a point or a vector flips y; a yaw flips sign and becomes degrees; an angular velocity (a pseudovector
under the y mirror) flips x and z. Roll and pitch are passed through unchanged, as scenario_runner does when it
reads a non-CARLA OpenSCENARIO file. The vehicle frames follow the same rule: roadtest's x forward, y left;
CARLA's x forward, y right. The compass is CARLA's IMU compass: radians clockwise from north, in [0, 2 pi).
"""

from __future__ import annotations

import math

__all__ = ["location_to_carla", "location_from_carla", "yaw_to_carla", "yaw_from_carla", "vector_to_carla",
           "vector_from_carla", "angular_velocity_to_carla", "compass_from_heading", "heading_from_compass", "gnss_from_carla_location",
           "location_from_carla_geolocation", "gnss_from_carla_fix", "EARTH_RADIUS", "TM_SCALE"]


def location_to_carla(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """A point (m) in roadtest's frame as a CARLA location (m)."""
    return float(x), -float(y), float(z)


def location_from_carla(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """A CARLA location (m) as a point in roadtest's frame (m)."""
    return float(x), -float(y), float(z)


def yaw_to_carla(h: float) -> float:
    """A heading (rad, counter-clockwise from east) as CARLA's yaw (degrees, clockwise from +x)."""
    return -math.degrees(h)


def yaw_from_carla(yaw_deg: float) -> float:
    """CARLA's yaw (degrees) as a heading in radians counter-clockwise from east, in [-pi, pi]."""
    return math.remainder(-math.radians(yaw_deg), math.tau)


def vector_to_carla(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """A vector (velocity, acceleration; world or vehicle frame) in CARLA's axes."""
    return float(x), -float(y), float(z)


def vector_from_carla(x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
    """A CARLA vector in roadtest's axes."""
    return float(x), -float(y), float(z)


def angular_velocity_to_carla(wx: float, wy: float, wz: float) -> tuple[float, float, float]:
    """An angular velocity (rad/s, right-handed) in CARLA's left-handed axes: a counter-clockwise yaw rate
    (left turn) reads negative on CARLA's gyroscope z."""
    return -float(wx), float(wy), -float(wz)


def compass_from_heading(h: float) -> float:
    """CARLA's IMU compass (rad clockwise from north, [0, 2 pi)) for a heading counter-clockwise from east."""
    return (0.5 * math.pi - h) % math.tau


def heading_from_compass(compass: float) -> float:
    """The heading (rad counter-clockwise from east, [-pi, pi]) that a CARLA compass reading means."""
    return math.remainder(0.5 * math.pi - compass, math.tau)


EARTH_RADIUS = 6378137.0  # m, WGS84 equatorial, as CARLA's GNSS and the leaderboard's route GPS


def gnss_from_carla_location(x: float, y: float, z: float = 0.0, lat_ref: float = 0.0,
                             lon_ref: float = 0.0) -> tuple[float, float, float]:
    """(latitude, longitude in degrees, altitude m) of a CARLA location: the Mercator projection around the map's
    geo-reference that CARLA's GNSS sensor and the leaderboard's route GPS use."""
    scale = math.cos(math.radians(lat_ref))
    mx = scale * math.radians(lon_ref) * EARTH_RADIUS + x
    my = scale * EARTH_RADIUS * math.log(math.tan(math.radians(90.0 + lat_ref) / 2.0)) - y
    lon = math.degrees(mx / (EARTH_RADIUS * scale))
    lat = math.degrees(2.0 * math.atan(math.exp(my / (EARTH_RADIUS * scale)))) - 90.0
    return lat, lon, float(z)


TM_SCALE = 0.9996  # k0 of the spherical transverse Mercator in CARLA 0.9.16's geom::GeoLocation


def location_from_carla_geolocation(lat: float, lon: float, alt: float = 0.0, lat_ref: float = 0.0,
                                    lon_ref: float = 0.0) -> tuple[float, float, float]:
    """The CARLA location whose geolocation CARLA 0.9.16 gives as (lat, lon, alt): the forward spherical
    transverse Mercator (k0 = 0.9996) of its geom::GeoLocation, whose north is CARLA's +y (carla.Map's
    geolocation_to_transform; its transform_to_geolocation and the 0.9.16 server's GNSS sensor are the inverse)."""
    phi, dlam, phi0 = math.radians(lat), math.radians(lon - lon_ref), math.radians(lat_ref)
    b = math.cos(phi) * math.sin(dlam)
    x = 0.5 * EARTH_RADIUS * TM_SCALE * math.log((1.0 + b) / (1.0 - b))
    y = TM_SCALE * EARTH_RADIUS * (math.atan2(math.tan(phi), math.cos(dlam)) - phi0)
    return x, y, float(alt)


def gnss_from_carla_fix(lat: float, lon: float, alt: float = 0.0, lat_ref: float = 0.0,
                        lon_ref: float = 0.0) -> tuple[float, float, float]:
    """A CARLA 0.9.16 server GNSS fix re-expressed as roadtest's GNSS (gnss_from_carla_location): the fix's
    location, then the leaderboard's Mercator. 0.9.16 projects with +lat towards CARLA's +y (south in roadtest's
    frame) where earlier servers, the leaderboard's route GPS and the agents written for them use -y; both
    backends give this one reading."""
    return gnss_from_carla_location(*location_from_carla_geolocation(lat, lon, alt, lat_ref, lon_ref), lat_ref, lon_ref)
