"""Reacting actors (`reacts: true`, an ACCController with roadtest's obeyLimits) drive under the limit in force
as the monitors compute it (roadtest.limits), read where they are each tick; an ambulance on call is exempt.
Scenes built here: a straight 500 m road posted 60 km/h with a 40 km/h sign at s = 250 in lane 1's direction,
a reacting car set at 70 km/h from s = 60 and an ambulance (siren on) at 70 km/h in the other lane."""

from __future__ import annotations

from pathlib import Path

import pytest

from roadtest.bundle import load_bundle
from roadtest.dsl.bundle_writer import write_bundle
from roadtest.dsl.loader import load_variants
from roadtest.runner.episode import run_episode
from roadtest.sim.api import SimSettings

KMH = 1 / 3.6
SCENE = """
name: reacting-under-the-limit
country: CN
level: L1
environment: {{weather: {weather}, time: "12:00"}}
road:
  kind: straight
  length: 500
  lanes: {{forward: 2, backward: 1, width: 3.5}}
  speed_limit: 60
  markings: {{center: broken, lanes: broken_white}}
  signs:
    - {{id: speed_limit, s: 250, side: kerb, value: 40}}
ego: {{lane: 2, s: 5, speed: 10, route: {{distance: 400}}}}
actors:
  - {{id: car, kind: vehicle, place: {{lane: 1, s: 60}}, speed: 70, reacts: true, behaviours: [{{action: keep_speed}}]}}
  - {{id: amb, kind: emergency, siren: true, place: {{lane: 2, s: 40}}, speed: 70, reacts: true,
     behaviours: [{{action: keep_speed}}]}}
rules: [{rules}]
expect: {{reach_goal: true, timeout: 60}}
"""


def _trace(tmp_path: Path, weather: str = "clear", rules: str = "speed_limit"):
    src = tmp_path / "scene.yaml"
    src.write_text(SCENE.format(weather=weather, rules=rules))
    bundle = load_bundle(write_bundle(load_variants(src)[0], tmp_path / "out"))
    return run_episode(bundle, 0, "expert", SimSettings(tick=0.05, traffic=False))


def _along(trace, actor: str) -> list[tuple[float, float]]:
    """(s on its lane, speed) of an actor per tick."""
    return [(st.actor(actor).lane.s, st.actor(actor).speed) for st in trace.states if st.actor(actor).lane is not None]


def test_a_reacting_car_keeps_the_posted_limit_and_slows_for_the_sign_it_passes(tmp_path):
    trace = _trace(tmp_path)
    car = _along(trace, "car")
    # set at 70, it brakes to the road's 60 within its first 2 s (ACC: 0.7 x its accel per m/s of excess)
    assert car[0][1] == pytest.approx(70 * KMH)
    early = [v for s, v in car[40:] if s < 250.0]
    assert early and max(early) <= 60 * KMH + 1e-6 and min(early) > 55 * KMH
    # past the 40 sign (by 30 m, its braking distance) it keeps 40
    late = [v for s, v in car if s > 280.0]
    assert late and max(late) <= 40 * KMH + 1e-6 and min(late) > 38 * KMH
    amb = _along(trace, "amb")
    assert max(v for _, v in amb) == pytest.approx(70 * KMH)  # on call: exempt from the limit


def test_in_dense_fog_the_fog_cap_binds_reacting_cars_too(tmp_path):
    trace = _trace(tmp_path, weather="fog_dense", rules="fog_speed_limit")
    car = _along(trace, "car")
    # CN fog_speed_limit: 30 km/h below 50 m visibility (dense fog); under both the 60 and the 40
    assert max(v for _, v in car[60:]) <= 30 * KMH + 1e-6
