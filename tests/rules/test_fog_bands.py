"""fog_expressway's bands as the CN regulation (Implementing Regulations Art. 81) words them: under 200 m visibility
60 km/h and 100 m to the vehicle ahead; under 100 m, 40 km/h and 50 m (not 100 m as well)."""

from __future__ import annotations

import pytest

from roadtest.rules.catalogue_model import load_catalogue
from roadtest.rules.evaluate import evaluate_rules
from roadtest.sim.api import Environment

from .synth import const, drive, other

CAT = load_catalogue()


def _verdict(vis: float, gap: float, v: float) -> str:
    trace = drive(const(v, 30), env=lambda i: Environment(fog_visual_range=vis),
                  others=lambda i, x: [other("lead", "car", x + 4.0 + gap, -1.75, speed=v, lane=-1)])
    meta = {"country": "CN", "driving_side": "right", "rules": [{"id": "fog_expressway", "params": {}}], "scene": {}}
    return {r.id: r.verdict for r in evaluate_rules(trace, meta, CAT)}["fog_expressway"]


@pytest.mark.parametrize("vis, gap, kmh, expected", [
    (80.0, 70.0, 36.0, "satisfied"),   # under 100 m: 50 m suffices at up to 40 km/h
    (80.0, 40.0, 36.0, "violated"),    # ... but not 40 m
    (80.0, 70.0, 50.0, "violated"),    # ... nor 50 km/h
    (150.0, 70.0, 36.0, "violated"),   # under 200 m only: 100 m needed
    (150.0, 120.0, 55.0, "satisfied"),
])
def test_each_band_has_its_own_gap(vis, gap, kmh, expected):
    assert _verdict(vis, gap, kmh / 3.6) == expected
