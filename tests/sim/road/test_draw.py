"""`roadtest map` draws lanes, marks and objects where the road model puts them."""

from __future__ import annotations

import numpy as np
import pytest

from roadtest.cli import main
from roadtest.sim.road import RoadNetwork
from roadtest.sim.road.draw import LANE_COLORS, MapView, render_map

from .samples import two_lane_junction


def test_map_command_writes_a_png_with_lanes_and_marks(tmp_path, capsys):
    import cv2

    src = tmp_path / "j.xodr"
    src.write_bytes(two_lane_junction())
    out = tmp_path / "sub" / "map.png"
    assert main(["map", str(src), "-o", str(out)]) == 0
    img = cv2.imread(str(out))
    assert img is not None and img.shape[1] > 1000
    net = RoadNetwork(two_lane_junction(), str(src))
    drawn = render_map(net)
    assert drawn.shape == img.shape
    # rebuild the same view to look up pixels of known world points
    strips_lo = np.array([-5.0, -12.0])
    view = MapView(strips_lo, np.array([215.0, 12.0]))
    u, v = view.px([50.0, -5.25])[0] // 4  # centre of lane -2 (driving)
    assert tuple(int(c) for c in img[v, u]) == pytest.approx(LANE_COLORS["driving"], abs=3)
    u, v = view.px([50.0, 0.0])[0] // 4  # solid yellow centre line
    b, g, r = (int(c) for c in img[v, u])
    assert r > 200 and g > 150 and b < 80
    u, v = view.px([95.0, -1.0])[0] // 4  # crosswalk blended towards white
    assert int(img[v, u].mean()) > 150


def test_map_command_reports_a_broken_file_with_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.xodr"
    bad.write_bytes(two_lane_junction().replace(b'<line/>', b'<spline/>', 1))
    assert main(["map", str(bad), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "bad.xodr:" in err and "unsupported geometry" in err and "Traceback" not in err
