"""NURBS vertex times: each control point's time belongs where its basis function peaks, linear in between (as esmini)."""

from __future__ import annotations

import numpy as np
import pytest
from lxml import etree

from roadtest.sim.xosc.entities import EntityState
from roadtest.sim.xosc.trajectory import build_path


def _nurbs_trajectory(points: list[tuple[float, float, float]], knots: list[float], order: int = 3):
    cps = "".join(f'<ControlPoint time="{t}" weight="1"><Position><WorldPosition x="{x}" y="{y}" z="0" h="0"/>'
                  f"</Position></ControlPoint>" for x, y, t in points)
    ks = "".join(f'<Knot value="{k}"/>' for k in knots)
    return etree.fromstring(f'<Trajectory name="n" closed="false"><Shape><Nurbs order="{order}">{cps}{ks}</Nurbs>'
                            f"</Shape></Trajectory>")


def _timed_path(points, knots, order=3):
    ego = EntityState(name="E", category="car", role="scenario", length=4.0, width=2.0, height=1.5, bbox_cx=0.0,
                      x=0.0, y=0.0, h=0.0, speed=0.0)
    timing = etree.fromstring('<Timing domainAbsoluteRelative="absolute" scale="1" offset="0"/>')
    path = build_path(_nurbs_trajectory(points, knots, order), timing, ego, 0.0, None, {"E": ego}, "t.xosc")
    assert path.times is not None
    return path


def _time_at_x(path, x: float) -> float:
    return float(np.interp(x, path.xy[:, 0], path.times))


def test_bezier_times_sit_at_basis_peaks_not_blended_like_coordinates():
    # a quadratic Bezier on a line: basis peaks at u = 0, 0.5, 1; x(u) = 20u, so x = 10 is u = 0.5 and x = 5 is u = 0.25
    path = _timed_path([(0, 0, 0.0), (10, 0, 2.0), (20, 0, 10.0)], [0, 0, 0, 1, 1, 1])
    assert path.times[0] == pytest.approx(0.0) and path.times[-1] == pytest.approx(10.0)
    assert _time_at_x(path, 10.0) == pytest.approx(2.0, abs=0.05)  # blended like x: 3.5 (0.05: the kink lies between samples)
    assert _time_at_x(path, 5.0) == pytest.approx(1.0, abs=0.02)  # halfway between the first two peaks (blended: 1.375)
    assert _time_at_x(path, 15.0) == pytest.approx(6.0, abs=0.05)  # halfway between the last two peaks


def test_interior_knots_keep_each_control_point_time_at_its_peak():
    # knots 0,0,0,.5,1,1,1: on [0, .5] N0 = (1-2u)^2, N2 = 2u^2, N1 = 4u - 6u^2 peaks at u = 1/3, where
    # x = 10 * 6/9 + 20 * 2/9 = 100/9; by symmetry N2 peaks at u = 2/3, x = 30 - 100/9
    pts = [(0, 0, 0.0), (10, 0, 1.0), (20, 0, 7.0), (30, 0, 8.0)]
    path = _timed_path(pts, [0, 0, 0, 0.5, 1, 1, 1])
    assert _time_at_x(path, 100 / 9) == pytest.approx(1.0, abs=0.03)  # blended like x: 6/9 + 7 * 2/9 = 2.22
    assert _time_at_x(path, 30 - 100 / 9) == pytest.approx(7.0, abs=0.03)
    assert np.all(np.diff(path.times) >= 0)


def test_untimed_control_points_leave_the_path_untimed():
    ego = EntityState(name="E", category="car", role="scenario", length=4.0, width=2.0, height=1.5, bbox_cx=0.0,
                      x=0.0, y=0.0, h=0.0, speed=0.0)
    traj = etree.fromstring('<Trajectory name="n" closed="false"><Shape><Nurbs order="2">'
                            + "".join(f'<ControlPoint><Position><WorldPosition x="{x}" y="0"/></Position></ControlPoint>'
                                      for x in (0, 5, 10))
                            + "".join(f'<Knot value="{k}"/>' for k in (0, 0, 0.5, 1, 1)) + "</Nurbs></Shape></Trajectory>")
    timing = etree.fromstring('<Timing domainAbsoluteRelative="absolute" scale="1" offset="0"/>')
    path = build_path(traj, timing, ego, 0.0, None, {"E": ego}, "t.xosc")
    assert path.times is None
    assert path.xy[-1, 0] == pytest.approx(10.0)


def test_trajectory_test_nurbs_target_follows_esmini(conformance_dir):
    from esmini_corpus import corpus_rows, run_corpus_file

    rows = [r for r in corpus_rows(conformance_dir) if r["xosc_path"].endswith("/trajectory-test.xosc")]
    if not rows:
        pytest.skip("trajectory-test.xosc is not in this conformance corpus")
    res = run_corpus_file(conformance_dir, rows[0])
    assert res.matches, res.detail
    assert res.max_diff["Target"] < 2.0  # 24.3 m when NURBS times were blended like coordinates
