"""Route tasks in the scenario language: a U-turn (its half circle from the lanes' geometry) and an asked stop."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from roadtest.cli import main

SCENE = """\
name: t
country: {country}
road: {{kind: straight, length: 260, lanes: {{forward: {n}, backward: {n}, width: 3.5}}, speed_limit: 50}}
ego: {{lane: {lane}, s: 10, route: {{u_turn: 120, distance: 170, stop: {{s: 60, duration: 20}}}}}}
"""


def _convert(tmp_path, country="US", n=2, lane=2):
    tmp_path.mkdir(parents=True, exist_ok=True)
    f = tmp_path / "t.yaml"
    f.write_text(SCENE.format(country=country, n=n, lane=lane))
    rc = main(["convert", str(f), "-o", str(tmp_path / "b")])
    return rc, (json.loads((tmp_path / "b" / "t" / "meta.json").read_text()) if rc == 0 else None)


def test_u_turn_is_a_half_circle_between_the_two_outer_lanes(tmp_path):
    for country in ("US", "JP"):
        rc, meta = _convert(tmp_path / country, country)
        assert rc == 0
        pts = np.array(meta["route"]["waypoints"])
        # lane 2's centre is 5.25 m from the centre line, and so is lane -2's on the other side: radius 5.25 m about (120, 0)
        turn = pts[pts[:, 0] > 120.0 + 1e-6]
        assert len(turn) > 5
        assert np.allclose(np.hypot(turn[:, 0] - 120.0, turn[:, 1]), 5.25, atol=1e-3)
        assert turn[:, 0].max() == pytest.approx(125.25, abs=0.1)  # it reaches one radius past the turn's s
        # the whole route is `distance` long: 110 m out, half a circle, and the rest back
        assert meta["route"]["length"] == pytest.approx(170.0, abs=0.5)
        back = 170.0 - 110.0 - math.pi * 5.25
        assert meta["route"]["goal"]["s"] == pytest.approx(120.0 - back, abs=0.01)
        assert meta["route"]["stops"] == [{"road": "1", "s": 60.0, "duration": 20.0}]


def test_u_turn_across_a_narrow_road_is_refused(tmp_path, capsys):
    rc, _ = _convert(tmp_path, n=1, lane=1)  # lanes 1 and -1 are 3.5 m apart: no car turns in that
    assert rc == 2
    assert "ego.route.u_turn" in capsys.readouterr().err


def test_a_stop_behind_the_start_is_refused(tmp_path, capsys):
    f = tmp_path / "t.yaml"
    f.write_text(SCENE.format(country="DE", n=1, lane=1).replace("u_turn: 120, ", "").replace("s: 60, duration", "s: 5, duration"))
    assert main(["convert", str(f), "-o", str(tmp_path / "b")]) == 2
    assert "ego.route.stop.s" in capsys.readouterr().err
