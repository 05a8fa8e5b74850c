"""The scenario's weather reaches the built-in simulator's WorldState, its trace and its renderer's input, read
once for every backend by sim.environment.environment_of."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadtest.bundle import load_bundle
from roadtest.sim.api import SimSettings, Trace
from roadtest.sim.embedded import run_bundle
from roadtest.sim.environment import environment_of

REPO = Path(__file__).resolve().parents[2]
WET = REPO / "scenarios" / "curve_wet_motorcycle.yaml"


def _bundle(yaml_path: Path, out: Path):
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.dsl.suite import expand_target

    [variant] = expand_target(yaml_path)
    return load_bundle(write_bundle(variant, out))


def _short_run(bundle) -> Trace:
    return run_bundle(bundle, 0, SimSettings(max_time=0.5, traffic=False))


def test_built_in_trace_of_the_wet_preset_carries_its_wetness(tmp_path):
    from roadtest.sim.embedded.render.weather import look_of

    assert "weather: wet" in WET.read_text()  # the preset whose road wetness is 0.7 (dsl.model.WEATHER_PRESETS)
    bundle = _bundle(WET, tmp_path)
    assert bundle.meta["environment"]["wetness"] == 0.7
    trace = _short_run(bundle)
    assert len(trace.states) > 5 and {st.environment.wetness for st in trace.states} == {0.7}
    trace.save(tmp_path / "trace.json.gz")
    saved = Trace.load(tmp_path / "trace.json.gz")
    assert saved.states[-1].environment.wetness == 0.7
    assert look_of(trace.states[0].environment).wet == pytest.approx(0.7)  # the renderer draws a wet road


def test_an_explicit_wetness_in_the_yaml_reaches_world_state(tmp_path):
    src = tmp_path / "wet_035.yaml"
    src.write_text(WET.read_text().replace("environment: {weather: wet,", "environment: {weather: wet, wetness: 0.35,"))
    trace = _short_run(_bundle(src, tmp_path / "out"))
    assert trace.states[0].environment.wetness == 0.35 and trace.states[-1].environment.wetness == 0.35


def test_the_file_says_what_it_can_and_meta_only_the_wetness(tmp_path):
    bundle = _bundle(WET, tmp_path)
    meta = {"environment": {"wetness": 0.5, "fog_visual_range": 7.0, "cloudiness": 0.33, "precipitation": "none"}}
    env = environment_of(bundle.xosc, meta)
    assert env.wetness == 0.5
    assert env.fog_visual_range == 100000.0  # the file's <Fog visualRange="100000">, not meta's 7 m
    assert env.cloudiness == 0.5  # the file's cloudState "cloudy" for the wet preset's 0.5 cover
    assert env.precipitation == "dry" and env.time_of_day.endswith("T11:00:00")
    assert environment_of(bundle.xosc, None).wetness == 0.0  # a file alone cannot say the road is wet
