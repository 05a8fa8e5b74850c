"""roadtest's Environment as CARLA weather: scenario_runner's own mapping, or roadtest's richer one.

"scenario_runner" reproduces what scenario_runner 0.9.16 makes of an OpenSCENARIO 1.0 EnvironmentAction
(OpenScenarioParser.get_weather_from_env_action): cloudiness from the sun's intensity, fog all or nothing at a
1 km visual range, rain as precipitation, wetness and full puddles, snow ignored, wind 30.
"roadtest" uses everything the Environment holds: cloud cover, fog density graded with the visual range,
puddles and wetness from the road's wetness or the rain, snow as a wet road, the sun from the date and time.
The fog curve is not calibrated against CARLA's renderer (no server here): it is stated in `fog_density`.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from roadtest.errors import UserError
from roadtest.sim.api import Environment

__all__ = ["MAPPINGS", "weather_parameters", "weather_values", "fog_density", "solar_elevation_azimuth"]

MAPPINGS = ("roadtest", "scenario_runner")
FOG_CLEAR_RANGE = 10000.0  # m: at or beyond this visual range roadtest draws no fog
FOG_FULL_RANGE = 20.0  # m: at or below it, CARLA's densest fog (100)


def fog_density(visual_range: float) -> float:
    """CARLA fog_density (0..100) for a meteorological visual range (m): 0 at 10 km, 100 at 20 m, linear in
    log(range) between (a denser fog halves the range for each equal step of density)."""
    if visual_range >= FOG_CLEAR_RANGE:
        return 0.0
    if visual_range <= FOG_FULL_RANGE:
        return 100.0
    return 100.0 * math.log(FOG_CLEAR_RANGE / visual_range) / math.log(FOG_CLEAR_RANGE / FOG_FULL_RANGE)


def solar_elevation_azimuth(when: str, lat: float = 0.0, lon: float = 0.0) -> tuple[float, float]:
    """Sun elevation and azimuth (degrees; azimuth clockwise from north) at an ISO date-time taken as UTC, at
    latitude/longitude `lat`, `lon` (degrees): the NOAA low-precision formulas (declination, equation of time,
    hour angle), good to about half a degree; CARLA towns sit at lat 0, lon 0."""
    try:
        t = dt.datetime.fromisoformat(str(when)[:19])
    except ValueError as e:
        raise UserError(f"environment time_of_day {when!r}: expected an ISO date-time YYYY-MM-DDTHH:MM:SS") from e
    day = t.timetuple().tm_yday
    hour = t.hour + t.minute / 60 + t.second / 3600
    g = 2 * math.pi / 365 * (day - 1 + (hour - 12) / 24)  # fractional year, rad
    eqtime = 229.18 * (0.000075 + 0.001868 * math.cos(g) - 0.032077 * math.sin(g) - 0.014615 * math.cos(2 * g)
                       - 0.040849 * math.sin(2 * g))  # min
    decl = (0.006918 - 0.399912 * math.cos(g) + 0.070257 * math.sin(g) - 0.006758 * math.cos(2 * g)
            + 0.000907 * math.sin(2 * g) - 0.002697 * math.cos(3 * g) + 0.00148 * math.sin(3 * g))  # rad
    solar_min = hour * 60 + eqtime + 4 * lon
    ha = math.radians(solar_min / 4 - 180)  # hour angle
    phi = math.radians(lat)
    cos_zen = math.sin(phi) * math.sin(decl) + math.cos(phi) * math.cos(decl) * math.cos(ha)
    zen = math.acos(max(-1.0, min(1.0, cos_zen)))
    az = math.degrees(math.atan2(math.sin(ha), math.cos(ha) * math.sin(phi) - math.tan(decl) * math.cos(phi))) + 180
    return 90.0 - math.degrees(zen), az % 360.0


def _scenario_runner(env: Environment) -> dict[str, float]:
    rain = env.precipitation == "rain"
    fog = env.fog_visual_range
    return {"cloudiness": 100.0 - 100.0 * env.sun_intensity,
            "precipitation": 100.0 * env.precipitation_intensity if rain else 0.0,
            "precipitation_deposits": 100.0 if rain else 0.0,
            "wetness": 100.0 * env.precipitation_intensity if rain else 0.0,
            "wind_intensity": 30.0,
            "sun_azimuth_angle": math.degrees(env.sun_azimuth), "sun_altitude_angle": math.degrees(env.sun_elevation),
            "fog_density": 100.0 if fog < 1000.0 else 0.0, "fog_distance": fog}


def _roadtest(env: Environment, sun_from_time: bool, lat: float, lon: float) -> dict[str, float]:
    wet = max(env.wetness, env.precipitation_intensity if env.precipitation in ("rain", "snow") else 0.0)
    if sun_from_time:
        altitude, azimuth = solar_elevation_azimuth(env.time_of_day, lat, lon)
    else:
        altitude, azimuth = math.degrees(env.sun_elevation), math.degrees(env.sun_azimuth) % 360.0
    return {"cloudiness": 100.0 * env.cloudiness,
            "precipitation": 100.0 * env.precipitation_intensity if env.precipitation == "rain" else 0.0,
            "precipitation_deposits": 100.0 * wet, "wetness": 100.0 * wet, "wind_intensity": 0.0,
            "sun_azimuth_angle": azimuth, "sun_altitude_angle": max(-90.0, min(90.0, altitude)),
            "fog_density": fog_density(env.fog_visual_range), "fog_distance": 0.0,
            "fog_falloff": 1.0 if env.fog_visual_range < FOG_CLEAR_RANGE else 0.0,
            "scattering_intensity": 1.0, "mie_scattering_scale": 0.03, "rayleigh_scattering_scale": 0.0331}


def weather_values(env: Environment, mapping: str = "roadtest", sun_from_time: bool = True, lat: float = 0.0,
                   lon: float = 0.0) -> dict[str, float]:
    """The carla.WeatherParameters fields (CARLA's units: percent, degrees, m) for an Environment."""
    if mapping == "scenario_runner":
        return _scenario_runner(env)
    if mapping == "roadtest":
        return _roadtest(env, sun_from_time, lat, lon)
    raise UserError(f"CARLA weather mapping {mapping!r}: expected one of {', '.join(MAPPINGS)}")


def weather_parameters(carla: Any, env: Environment, mapping: str = "roadtest", **kw: Any):
    """A carla.WeatherParameters for an Environment (see weather_values); `carla` is the imported client module."""
    w = carla.WeatherParameters()
    for name, value in weather_values(env, mapping, **kw).items():
        setattr(w, name, float(value))
    return w
