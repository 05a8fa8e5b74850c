"""The expert's pass decision on a hand-built objects view: slow cyclist ahead, broken centre line, free road."""

from __future__ import annotations

import pytest

from roadtest.agents.overtake import WAIT, Overtaker


def _view(junctions):
    cyclist = {"id": "cyclist", "kind": "bicycle", "route_s": 20.0, "route_d": 0.0, "speed": 3.9, "width": 0.6}
    return {"driving_side": "right", "actors": [cyclist], "rules": [], "zones": [], "junctions": junctions,
            "lane": {"width": 3.25, "left": {"lane": 1, "crossing_allowed": True}}}


def _decide(view):
    ego = {"length": 4.8, "width": 2.0, "route_s": 40.0, "route_length": 400.0}
    ot = Overtaker(frozenset())
    ot.want(view, ego, 3.9, 11.1, 0.0)  # starts the wait behind the cyclist
    return ot.want(view, ego, 3.9, 11.1, WAIT + 0.1)


def test_passes_a_slow_cyclist_on_free_road():
    off = _decide(_view([]))
    # half the cyclist (0.3) + half the ego (1.0) + the 1.0 m default clearance + 0.3 + 0.1 margin, to the left
    assert off == pytest.approx(2.7)


@pytest.mark.parametrize("junction", [
    {"id": "7", "distance_start": 65.0, "distance_end": 118.0, "inside": False},  # roundabout entry 65 m ahead
    {"id": "7", "distance_start": -3.0, "distance_end": 30.0, "inside": True},  # already on its connecting road
])
def test_never_passes_into_a_junction(junction):
    # a pass takes 130 m of road: one that ends inside a junction puts the ego on its wrong side there
    assert _decide(_view([junction])) is None
