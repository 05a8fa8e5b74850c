"""The clip panel names the light as the scene wrote it: dusk at time: dusk, not night."""

from __future__ import annotations

import math

import pytest

from roadtest.dsl.model import TIME_PRESETS, sun_elevation
from roadtest.report.overlays import _weather, light_name
from roadtest.sim.api import Environment


@pytest.mark.parametrize("preset,expected", [("dawn", "dawn"), ("day", "day"), ("dusk", "dusk"), ("night", "night")])
def test_time_presets_are_named_as_written(preset, expected):
    hhmm = TIME_PRESETS[preset]
    env = Environment(sun_elevation=sun_elevation(hhmm), time_of_day=f"2026-06-21T{hhmm}:00")
    assert light_name(env) == expected
    assert _weather(env).endswith(expected)


def test_civil_twilight_bounds():
    # dusk 18:20: 60 deg * sin(pi * 12.33 / 12) = -5.2 deg, inside civil twilight (0 to -6 deg)
    assert math.degrees(sun_elevation("18:20")) == pytest.approx(-5.23, abs=0.01)
    at = lambda deg, t="19:00": light_name(Environment(sun_elevation=math.radians(deg), time_of_day=f"2026-06-21T{t}:00"))  # noqa: E731
    assert (at(-6.5), at(-5.9), at(5.9), at(6.1), at(3.0, "06:30")) == ("night", "dusk", "dusk", "day", "dawn")
