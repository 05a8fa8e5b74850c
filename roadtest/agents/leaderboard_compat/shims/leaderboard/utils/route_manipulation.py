"""Route helpers of the leaderboard that agents import: GPS conversion and downsampling."""

from __future__ import annotations

from agents.navigation.local_planner import RoadOption

from roadtest.sim.frames import gnss_from_carla_location

__all__ = ["location_route_to_gps", "downsample_route"]

_LANE_CHANGES = (RoadOption.CHANGELANELEFT, RoadOption.CHANGELANERIGHT)


def _location_to_gps(lat_ref, lon_ref, location):
    """{'lat', 'lon', 'z'} of a carla.Location around the map's geo-reference."""
    lat, lon, z = gnss_from_carla_location(location.x, location.y, location.z, lat_ref, lon_ref)
    return {"lat": lat, "lon": lon, "z": z}


def location_route_to_gps(route, lat_ref, lon_ref):
    """[(gps dict, RoadOption)] for [(carla.Transform, RoadOption)]."""
    return [(_location_to_gps(lat_ref, lon_ref, transform.location), option) for transform, option in route]


def downsample_route(route, sample_factor):
    """Indices kept from [(transform, RoadOption)]: every lane change, the first point after a change of option
    (unless it follows a lane change), a point once more than `sample_factor` m were travelled, and the last."""
    keep = []
    prev = None
    travelled = 0.0
    last = len(route) - 1
    for i, (transform, option) in enumerate(route):
        starts = option in _LANE_CHANGES or (option != prev and prev not in _LANE_CHANGES)
        if starts or travelled > sample_factor or i == last:
            keep.append(i)
            travelled = 0.0
        else:
            travelled += transform.location.distance(route[i - 1][0].location)
        prev = option
    return keep
