"""Light and weather for the shader from OpenSCENARIO's Environment: sun, sky, ambient, fog, rain, snow, night."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from roadtest.sim.api import Environment

__all__ = ["Look", "look_of", "FOG_CONTRAST"]

FOG_CONTRAST = 0.05  # the contrast threshold that defines the meteorological visual range (WMO/CIE, Koschmieder)
_DAY_ZENITH, _DAY_HORIZON = np.array([0.30, 0.52, 0.85]), np.array([0.72, 0.82, 0.93])
_GREY_ZENITH, _GREY_HORIZON = np.array([0.55, 0.57, 0.6]), np.array([0.72, 0.73, 0.75])
_NIGHT_ZENITH, _NIGHT_HORIZON = np.array([0.01, 0.015, 0.04]), np.array([0.03, 0.04, 0.07])
_DUSK_HORIZON = np.array([0.95, 0.55, 0.3])


@dataclass(frozen=True)
class Look:
    """Everything the shader needs about light and weather (linear-ish rgb in 0..1)."""

    sun_dir: tuple[float, float, float]  # unit vector towards the sun (x east, y north, z up)
    sun_rgb: tuple[float, float, float]
    ambient: tuple[float, float, float]
    sky_zenith: tuple[float, float, float]
    sky_horizon: tuple[float, float, float]
    fog_density: float  # 1/m: exp(-density * distance) of contrast left
    fog_rgb: tuple[float, float, float]
    wet: float  # 0..1: darker road with highlights
    rain: float  # 0..1 streak density
    snow: float  # 0..1 flakes and whitened ground
    dark: bool  # night: street lights on
    headlights: bool  # vehicles' headlights on (night or fog)


def _t(v) -> tuple[float, float, float]:
    return tuple(float(c) for c in np.clip(v, 0.0, 4.0))


def look_of(env: Environment) -> Look:
    """The scene's light from an Environment.

    Sun azimuth follows OpenSCENARIO (clockwise from north), elevation above the horizon; the daylight factor
    falls with the sun's elevation below 10 degrees, direct sun with its intensity and cloud; fog density is ln(1/0.05) / visual range,
    so at the visual range exactly 5 % of an object's contrast is left (Koschmieder's law)."""
    el, az = float(env.sun_elevation), float(env.sun_azimuth)
    sun_dir = np.array([math.sin(az) * math.cos(el), math.cos(az) * math.cos(el), math.sin(el)])
    cloud = min(max(float(env.cloudiness), 0.0), 1.0)
    day = min(max((el + math.radians(4)) / math.radians(14), 0.0), 1.0)
    direct = day * min(max(float(env.sun_intensity), 0.0) / 0.9, 1.0) * (1.0 - 0.5 * cloud)
    warm = 1.0 - min(max(el / math.radians(20), 0.0), 1.0)  # low sun: orange light
    sun_rgb = direct * (np.array([1.0, 0.95, 0.85]) * (1 - warm) + np.array([1.0, 0.65, 0.4]) * warm)
    zenith = _NIGHT_ZENITH + day * ((1 - cloud) * _DAY_ZENITH + cloud * _GREY_ZENITH - _NIGHT_ZENITH)
    horizon = _NIGHT_HORIZON + day * ((1 - cloud) * _DAY_HORIZON + cloud * _GREY_HORIZON - _NIGHT_HORIZON)
    horizon = horizon * (1 - 0.5 * warm * (1 - cloud) * day) + _DUSK_HORIZON * 0.5 * warm * (1 - cloud) * day
    ambient = 0.03 + day * (0.45 + 0.2 * cloud) * np.array([0.95, 1.0, 1.08])
    precip = str(env.precipitation).lower()
    amount = min(max(float(env.precipitation_intensity), 0.0), 1.0)
    rain = amount if precip == "rain" else 0.0
    snow = amount if precip == "snow" else 0.0
    wet = max(min(max(float(env.wetness), 0.0), 1.0), min(1.0, 0.4 + rain) if rain else 0.0)
    vis = max(float(env.fog_visual_range), 1.0)
    density = math.log(1.0 / FOG_CONTRAST) / vis
    fog = np.clip(horizon * 0.55 + ambient * 0.6, 0, 1) if vis < 3000 else horizon
    dark = day < 0.35
    return Look(sun_dir=tuple(float(c) for c in sun_dir), sun_rgb=_t(sun_rgb), ambient=_t(ambient), sky_zenith=_t(zenith),
                sky_horizon=_t(horizon), fog_density=density, fog_rgb=_t(fog), wet=wet, rain=rain, snow=snow,
                dark=dark, headlights=dark or vis < 150.0)
