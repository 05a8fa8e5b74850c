"""The expert's line through bends on a hand-built route and objects view: the lane's centre while it keeps to
its side; ignoring driving_side, a lane across toward the oncoming lanes in a bend that turns that way."""

from __future__ import annotations

import math

import numpy as np
import pytest

from roadtest.agents.bend_line import BendLine, signed_curvature
from roadtest.sim.route_path import RoutePath

R = 80.0  # m, radius of the bend


def _route(turn: float) -> RoutePath:
    """100 m straight along +x, then a quarter circle of radius R turning left (+1) or right (-1), then 100 m straight."""
    pts = [(x, 0.0) for x in np.arange(0.0, 100.0, 1.0)]
    for a in np.linspace(0.0, math.pi / 2, 126):
        pts.append((100.0 + R * math.sin(a), turn * R * (1.0 - math.cos(a))))
    end_x, end_y = pts[-1]
    pts += [(end_x, end_y + turn * d) for d in np.arange(1.0, 100.0, 1.0)]
    return RoutePath(pts)


def _view(side: str, actors=()):
    own, other = (-1, 1) if side == "right" else (1, -1)
    nb = "left" if side == "right" else "right"
    return {"driving_side": side, "actors": list(actors), "junctions": [],
            "lane": {"lane": own, "width": 3.5, nb: {"lane": other, "crossing_allowed": True}}}


MID = 100.0 + R * math.pi / 4  # route s of the bend's middle


def test_signed_curvature_is_one_over_the_radius():
    route = _route(+1.0)
    k = signed_curvature(route)
    i = int(np.searchsorted(route.cum, MID))
    assert k[i] == pytest.approx(1.0 / R, rel=0.02)
    assert abs(k[int(np.searchsorted(route.cum, 50.0))]) < 1e-9  # on the straight
    assert signed_curvature(_route(-1.0))[i] == pytest.approx(-1.0 / R, rel=0.02)


@pytest.mark.parametrize("side, turn", [("right", 1.0), ("left", -1.0)])  # a bend toward the oncoming lanes
def test_ignoring_driving_side_cuts_a_lane_across(side, turn):
    cut = BendLine(frozenset({"driving_side"})).want(_view(side), _route(turn), MID)
    assert cut == pytest.approx(turn * 3.5)  # the oncoming lane's centre: one lane width toward the bend's inside
    assert BendLine(frozenset()).want(_view(side), _route(turn), MID) is None  # the full expert keeps its lane


@pytest.mark.parametrize("side, turn", [("right", -1.0), ("left", 1.0)])
def test_no_cut_where_the_inside_is_the_kerb(side, turn):
    assert BendLine(frozenset({"driving_side"})).want(_view(side), _route(turn), MID) is None


def test_waits_for_oncoming_traffic_and_a_crossable_mark():
    oncoming = {"id": "car", "kind": "vehicle", "route_s": 90.0, "route_d": 3.5, "route_heading": math.pi}
    line = BendLine(frozenset({"driving_side"}))
    assert line.want(_view("right", [oncoming]), _route(1.0), MID) is None
    solid = _view("right")
    solid["lane"]["left"]["crossing_allowed"] = False
    assert line.want(solid, _route(1.0), MID) is None
    assert line.want(_view("right"), _route(1.0), 30.0) is None  # the bend starts 70 m ahead: too far to matter yet
