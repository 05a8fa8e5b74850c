"""CARLA weather from an Environment, built as real carla.WeatherParameters; expected values from
scenario_runner 0.9.16's get_weather_from_env_action (read in its source) and from hand calculations."""

from __future__ import annotations

import math

import pytest

from roadtest.errors import UserError
from roadtest.sim.api import Environment
from roadtest.sim.carla import weather



@pytest.fixture()
def carla(real_carla):
    return real_carla

RAINY_FOG = Environment(cloudiness=0.75, precipitation="rain", precipitation_intensity=0.4, fog_visual_range=200.0,
                        sun_elevation=math.radians(30.0), sun_azimuth=math.radians(120.0), sun_intensity=0.6,
                        time_of_day="2026-03-20T12:00:00")


def test_scenario_runner_mapping_matches_its_parser(carla):
    w = weather.weather_parameters(carla, RAINY_FOG, "scenario_runner")
    assert isinstance(w, carla.WeatherParameters)
    # scenario_runner: cloudiness = 100 - 100*intensity; fog density 100 below 1 km; rain -> deposits 100
    assert w.cloudiness == pytest.approx(40.0)
    assert w.precipitation == pytest.approx(40.0) and w.wetness == pytest.approx(40.0)
    assert w.precipitation_deposits == pytest.approx(100.0)
    assert w.fog_density == pytest.approx(100.0) and w.fog_distance == pytest.approx(200.0)
    assert w.wind_intensity == pytest.approx(30.0)
    assert w.sun_altitude_angle == pytest.approx(30.0, abs=1e-4) and w.sun_azimuth_angle == pytest.approx(120.0, abs=1e-4)
    clear = weather.weather_parameters(carla, Environment(fog_visual_range=1500.0), "scenario_runner")
    assert clear.fog_density == 0.0  # all or nothing at 1000 m
    snow = weather.weather_parameters(carla, Environment(precipitation="snow", precipitation_intensity=1.0),
                                      "scenario_runner")
    assert snow.precipitation == 0.0 and snow.wetness == 0.0  # its snow test reads a wrong attribute: nothing


def test_roadtest_mapping_uses_cloud_cover_graded_fog_and_the_sun_from_the_time(carla):
    w = weather.weather_parameters(carla, RAINY_FOG, "roadtest")
    assert w.cloudiness == pytest.approx(75.0)  # the cloud cover itself, not the sun's intensity
    assert w.precipitation == pytest.approx(40.0) and w.precipitation_deposits == pytest.approx(40.0)
    # fog: 100 * ln(10000/200) / ln(10000/20) = 100 * 3.912 / 6.215
    assert w.fog_density == pytest.approx(100 * math.log(50) / math.log(500), abs=1e-3)
    assert w.fog_distance == 0.0
    # equinox noon at lat 0, lon 0: the sun near the zenith (equation of time -7.5 min: about 1.9 deg off)
    assert w.sun_altitude_angle == pytest.approx(88.0, abs=1.0)
    # 21 June 12:00 UTC at lat 0: elevation 90 - 23.44 = 66.56 deg, the sun to the north (azimuth about 0)
    june = weather.weather_parameters(carla, Environment(time_of_day="2026-06-21T12:00:00"), "roadtest")
    assert june.sun_altitude_angle == pytest.approx(66.56, abs=0.6)
    assert min(june.sun_azimuth_angle, 360 - june.sun_azimuth_angle) < 5.0
    night = weather.weather_parameters(carla, Environment(time_of_day="2026-06-21T00:00:00"), "roadtest")
    assert night.sun_altitude_angle == pytest.approx(-66.56, abs=0.6)
    fixed = weather.weather_parameters(carla, RAINY_FOG, "roadtest", sun_from_time=False)
    assert fixed.sun_altitude_angle == pytest.approx(30.0, abs=1e-4)


def test_fog_density_ends():
    assert weather.fog_density(20000.0) == 0.0 and weather.fog_density(10.0) == 100.0
    assert weather.fog_density(100.0) > weather.fog_density(1000.0) > 0.0


def test_unknown_mapping_and_time_are_user_errors():
    with pytest.raises(UserError, match="expected one of roadtest, scenario_runner"):
        weather.weather_values(Environment(), "esmini")
    with pytest.raises(UserError, match="ISO date-time"):
        weather.weather_values(Environment(time_of_day="dawn"))
