"""Background traffic obeys the limit in force as the monitors compute it (roadtest.limits): in the dense-fog
scene (CN, fog_speed_limit 30 km/h, visual range 50 m, road limit 60 km/h) every background car stays at or
under 30 km/h; only a scene that asks for rule-breakers gets them, in its seeded share."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadtest.bundle import load_bundle
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.loader import load_variants
from roadtest.dsl.model import Scenario
from roadtest.runner.episode import run_episode
from roadtest.sim.api import SimSettings

ROOT = Path(__file__).resolve().parents[3]
FOG = ROOT / "scenarios" / "fog_truck_solid_line.yaml"
KMH = 1 / 3.6



def _raw(path=None) -> dict:
    """The fog scene's YAML as written (km/h at the surface): re-validating a dumped model would convert twice."""
    import yaml

    return yaml.safe_load(Path(path or FOG).read_text(encoding="utf-8"))

def _bundle(tmp_path: Path, traffic: dict | None = None, seconds: float | None = None):
    variant = load_variants(FOG)[0]
    sc = variant.scenario
    if traffic is not None or seconds is not None:
        data = _raw()
        data["traffic"] = {**data.get("traffic", {}), **(traffic or {})}
        if seconds is not None:
            data["expect"] = {**data.get("expect", {}), "timeout": seconds}
        variant = type(variant)(scenario=Scenario.model_validate(data), id=variant.id, seed=variant.seed,
                                sweep=variant.sweep, source=variant.source)
    return load_bundle(write_bundle(variant, tmp_path))


def _background_speeds(trace):
    return [a.speed for st in trace.states for a in st.actors if a.role == "background" and a.kind in ("car", "truck")]


def test_background_cars_in_dense_fog_stay_at_or_under_the_fog_limit(tmp_path):
    bundle = _bundle(tmp_path)
    assert bundle.meta["scene"]["speed_limit"] == pytest.approx(60 * KMH)
    trace = run_episode(bundle, 0, "expert", SimSettings(tick=0.05))
    speeds = _background_speeds(trace)
    assert len(speeds) > 100, "the scene has background traffic"
    assert max(speeds) <= 30 * KMH + 1e-6
    assert max(speeds) > 20 * KMH  # they drive, near the limit, not crawl


def _run_traffic(cfg: dict, env, seconds: float = 30.0):
    """Background traffic alone on a free 2 km three-lane road (map limit 20 m/s) under the fog scene's rules."""
    from embedded_fakes import FakeStraightRoads

    from roadtest.limits import SceneLimits
    from roadtest.sim.embedded.traffic import Traffic

    limits = SceneLimits.from_meta({"scene": {"speed_limit": 60 * KMH}, "rules": [
        {"id": "fog_speed_limit", "params": {"fog_speed": 30 * KMH, "visibility_threshold": 50.0}}]})
    tr = Traffic(FakeStraightRoads(length=2000.0, nr=3), cfg, seed=1, limits=limits, environment=env)
    top = []
    for _ in range(int(seconds / 0.05)):
        tr.decide((), {}, 0.05)
        tr.integrate(0.05)
        top.append(max(v.speed for v in tr.vehicles))
    return tr, top


def test_traffic_follows_the_limit_in_force_as_the_weather_changes():
    from roadtest.sim.api import Environment

    clear, fog = Environment(fog_visual_range=1e5), Environment(fog_visual_range=50.0)
    tr, top = _run_traffic({"density": 10}, clear, 20.0)
    assert 50 * KMH < max(top[-20:]) <= 60 * KMH + 1e-6  # the road's 60 km/h, under the map's 72 km/h
    tr.environment = fog   # the fog comes down: IDM brakes to the new desired speed
    for _ in range(int(15 / 0.05)):
        tr.decide((), {}, 0.05)
        tr.integrate(0.05)
    assert max(v.speed for v in tr.vehicles) <= 30 * KMH + 0.05


def test_violators_only_where_the_scene_asks_and_seeded(tmp_path):
    from roadtest.sim.api import Environment

    fog = Environment(fog_visual_range=50.0)
    obedient, top0 = _run_traffic({"density": 10}, fog)
    assert max(top0) <= 30 * KMH + 1e-6 and not any(v.violator for v in obedient.vehicles)
    tr, top = _run_traffic({"density": 10, "violators": 0.3}, fog)
    share = sum(v.violator for v in tr.vehicles) / len(tr.vehicles)
    assert 0.1 <= share <= 0.5 and len(tr.vehicles) > 40
    assert 33 * KMH < max(top) <= 1.3 * 30 * KMH + 1e-6  # 1.1 to 1.3 times the 30 km/h fog limit
    again, top2 = _run_traffic({"density": 10, "violators": 0.3}, fog)
    assert top2 == top and [v.violator for v in again.vehicles] == [v.violator for v in tr.vehicles]
    bundle = _bundle(tmp_path / "a", {"violators": 0.1})
    assert bundle.meta["traffic"]["violators"] == 0.1
    assert "violators" not in _bundle(tmp_path / "b").meta["traffic"]


def test_violators_share_is_validated():
    data = _raw()
    data["traffic"]["violators"] = 1.5
    with pytest.raises(Exception, match="violators"):
        Scenario.model_validate(data)
