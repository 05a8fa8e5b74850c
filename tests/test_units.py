"""One table of units: the conversions are the exact definitions, and every speed a sign carries goes through it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from roadtest.sim.api import ActorState, LanePos, WorldState
from roadtest.units import UNITS, speed_si, to_si

REPO = Path(__file__).resolve().parents[1]


def test_factors_are_the_definitions():
    assert to_si(100, "km/h") == pytest.approx(100_000 / 3600)
    assert to_si(60, "mph") == pytest.approx(60 * 1609.344 / 3600)  # the international mile
    assert to_si(10, "ft") == pytest.approx(3.048)
    assert to_si(2, "km") == 2000.0 and to_si(180, "deg") == pytest.approx(3.141592653589793)
    assert to_si(5, "KPH") == to_si(5, "km/h") and to_si(5, " m/s ") == 5.0
    assert speed_si(50) == pytest.approx(50 / 3.6)  # a sign's value without a unit is km/h
    with pytest.raises(ValueError, match="furlong"):
        to_si(1, "furlong")
    with pytest.raises(ValueError, match="speed unit"):
        speed_si(1, "m")


def test_a_sign_in_mph_caps_the_minimum_speed_check_in_mph():
    from roadtest.metrics.min_speed import speed_cap

    ego = ActorState(id="hero", role="ego", kind="car", x=50.0, y=0.0, z=0.0, h=0.0, speed=10.0, vx=10.0,
                     lane=LanePos("1", -1, 50.0, 0.0))
    meta = {"scene": {"signs": [{"id": "speed_limit", "value": 30, "unit": "mph", "road": "1", "s": 10.0}]}}
    assert speed_cap(WorldState(time=0.0, frame=0, actors=(ego,)), ego, meta) == pytest.approx(30 * 0.44704)


def test_no_other_module_keeps_a_unit_table():
    """A dict literal mapping unit names to numbers anywhere but roadtest/units.py is a second table."""
    names = set(UNITS) | {"kmh", "kph", "mps"}
    tables = []
    for f in sorted((REPO / "roadtest").rglob("*.py")):
        if f.name == "units.py" and f.parent.name == "roadtest":
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                if sum(k in names and k not in ("1", "s", "m") for k in keys) >= 2:
                    tables.append(f"{f.relative_to(REPO)}:{node.lineno}")
    assert not tables, tables
