"""Actors' lamps follow what the actor does: brake lights when decelerating, the indicator on the side it moves
to across the lanes, blinking at 1.5 Hz, the emergency light bar only with the siren on."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import render_scene as rs

from roadtest.sim.api import ActorState, LanePos
from roadtest.sim.embedded.render.dynamic import build_dynamic

CAR = ActorState(id="car", role="scenario", kind="car", x=60.0, y=-5.25, z=0.0, h=0.0, speed=10.0,
                 lane=LanePos("1", -2, 60.0, -5.25))


def _lit(verts: np.ndarray, rgb) -> int:
    """Vertices of lit lamps (emissive 1) of one colour."""
    return int(((verts[:, 9] > 0.5) & (np.abs(verts[:, 6:9] - rgb).max(axis=1) < 1e-3)).sum())


def _frame(renderer, actors, time=0.0, history=None):
    st = rs.state(actors, time=time)
    verts, _ = build_dynamic(renderer.scene, st, renderer.network, False, False, np.zeros(3), history)
    return verts


BRAKE, AMBER, BAR_RED, BAR_BLUE = (0.9, 0.05, 0.05), (1.0, 0.55, 0.0), (1.0, 0.05, 0.05), (0.1, 0.2, 1.0)


def test_brake_lights_when_decelerating_not_when_cruising():
    r = rs.renderer()
    assert _lit(_frame(r, [CAR]), BRAKE) == 0
    assert _lit(_frame(r, [replace(CAR, ax=-2.0)]), BRAKE) == 2 * 36  # two lamp boxes of 36 vertices


def test_indicator_on_the_side_the_car_moves_to_and_blinking():
    r = rs.renderer()
    history: dict = {}
    _frame(r, [CAR], 0.0, history)
    left = replace(CAR, y=-5.0, lane=LanePos("1", -2, 60.5, -5.0))  # 0.25 m towards +t (its left) in 0.1 s
    verts = _frame(r, [left], 0.1, history)
    assert _lit(verts, AMBER) == 2 * 36  # front and rear lamp on the left side
    left_y = verts[(verts[:, 9] > 0.5) & (np.abs(verts[:, 6:9] - AMBER).max(axis=1) < 1e-3), 1].mean()
    assert left_y + r.scene.origin[1] > left.y  # on the car's left (+y when heading east)
    off = _frame(r, [replace(left, y=-4.75, lane=LanePos("1", -2, 61.0, -4.75))], 0.45, history)  # 0.675 s into 1/1.5 s
    assert _lit(off, AMBER) == 0


def test_light_bar_flashes_only_with_the_siren():
    r = rs.renderer()
    em = replace(CAR, kind="emergency")
    assert _lit(_frame(r, [em]), BAR_RED) + _lit(_frame(r, [em]), BAR_BLUE) == 0
    on = replace(em, siren=True)
    a, b = _frame(r, [on], 0.0), _frame(r, [on], 0.3)  # 2 Hz: the colours swap every 0.25 s
    assert (_lit(a, BAR_RED), _lit(a, BAR_BLUE)) == (36, 0) and (_lit(b, BAR_RED), _lit(b, BAR_BLUE)) == (0, 36)
