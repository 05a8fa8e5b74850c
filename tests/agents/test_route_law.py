"""Where the expert stops when its route breaks a sign: before the junction that leads past a no-entry sign,
before the turn of a U-turn a no-U-turn sign forbids; the ablated expert keeps going."""

from __future__ import annotations

import math

import pytest

from roadtest.agents.route_law import SHORT_OF, RouteLaw, turn_back_at
from roadtest.sim.route_path import RoutePath

HALF = 2.4


def _u_turn_route(at: float = 120.0, r: float = 5.25) -> RoutePath:
    pts = [(float(x), -r) for x in range(0, int(at) + 1)]
    pts += [(at + r * math.sin(a), -r * math.cos(a)) for a in (math.pi * k / 16 for k in range(1, 16))]
    pts += [(float(x), r) for x in range(int(at), 40, -1)]
    return RoutePath(pts)


def test_turn_back_found_where_the_half_circle_begins():
    assert turn_back_at(_u_turn_route()) == pytest.approx(120.0, abs=1.0)
    assert turn_back_at(RoutePath([(0.0, 0.0), (50.0, 0.0), (50.0, 50.0)])) is None  # a right-angle turn is no U-turn


def test_stops_before_the_junction_leading_past_a_no_entry_sign():
    view = {"signs": [{"kind": "no_entry", "distance": 60.0}],
            "junctions": [{"id": "0", "distance_start": 45.0, "distance_end": 55.0, "inside": False}]}
    (gap, why), = RouteLaw(frozenset()).obstacles(view, None, 0.0, HALF)
    assert gap == pytest.approx(45.0 - SHORT_OF - HALF)  # the front 1 m short of the junction's entry
    assert RouteLaw(frozenset({"no_entry"})).obstacles(view, None, 0.0, HALF) == []


def test_stops_before_a_banned_u_turn_only():
    route = _u_turn_route()
    sign = {"kind": "no_u_turn", "distance": 50.0}
    (gap, _), = RouteLaw(frozenset()).obstacles({"signs": [sign]}, route, 10.0, HALF)
    assert gap == pytest.approx(120.0 - 10.0 - HALF - SHORT_OF, abs=1.0)
    assert RouteLaw(frozenset()).obstacles({"signs": []}, route, 10.0, HALF) == []  # no sign: the U-turn is allowed
    assert RouteLaw(frozenset({"no_u_turn"})).obstacles({"signs": [sign]}, route, 10.0, HALF) == []
