"""planView geometries against closed-form values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from roadtest.sim.road.geometry import Arc, Line, ParamPoly3, Poly3, Spiral


def test_line_end_point_and_heading():
    x, y, h = Line(0, 1.0, 2.0, math.pi / 6, 10.0).eval(np.array([10.0]))
    assert x[0] == pytest.approx(1 + 10 * math.cos(math.pi / 6)) and y[0] == pytest.approx(2 + 5.0)
    assert h[0] == pytest.approx(math.pi / 6)


@pytest.mark.parametrize("k", [0.01, -0.05, 0.2])
def test_arc_end_point_is_on_the_circle(k):
    L = 0.5 * math.pi / abs(k)  # a quarter circle
    x, y, h = Arc(0, 0.0, 0.0, 0.0, L, k=k).eval(np.array([L]))
    r = 1 / k
    assert x[0] == pytest.approx(abs(r), abs=1e-9) and y[0] == pytest.approx(r, abs=1e-9)
    assert h[0] == pytest.approx(math.copysign(math.pi / 2, k))


@pytest.mark.parametrize("k0,k1", [(0.0, 0.1), (0.02, -0.03), (-0.1, 0.0)])
def test_clothoid_curvature_grows_linearly_and_matches_numeric_integration(k0, k1):
    L = 40.0
    g = Spiral(0, 5.0, -3.0, 0.3, L, curv_start=k0, curv_end=k1)
    s = np.linspace(0, L, 401)
    x, y, h = g.eval(s)
    assert np.allclose(np.diff(g.curvature(s), 2), 0.0, atol=1e-12)
    # heading is the integral of curvature; position the integral of heading (trapezoid, fine grid)
    assert np.allclose(h, 0.3 + k0 * s + 0.5 * (k1 - k0) / L * s**2, atol=1e-9)
    ss = np.linspace(0, L, 40001)
    hh = 0.3 + k0 * ss + 0.5 * (k1 - k0) / L * ss**2
    xn = 5.0 + np.trapezoid(np.cos(hh), ss)
    yn = -3.0 + np.trapezoid(np.sin(hh), ss)
    assert x[-1] == pytest.approx(xn, abs=1e-5) and y[-1] == pytest.approx(yn, abs=1e-5)
    # numerical heading from positions agrees with the analytic heading
    hn = np.arctan2(np.diff(y), np.diff(x))
    assert np.allclose(hn, 0.5 * (h[1:] + h[:-1]), atol=1e-4)


def test_param_poly3_both_ranges_trace_the_same_curve():
    # a quarter of a circle of radius 10 approximated by a cubic Bezier, in both parameterisations
    L, c = 15.70796, 0.5522847498 * 10
    # Bezier P0=(0,0) P1=(c,0) P2=(10,10-c) P3=(10,10) -> power basis in p in [0, 1]
    aU, bU, cU, dU = 0.0, 3 * c, 3 * (10 - 2 * c), 10 + 3 * (c - 10)
    aV, bV, cV, dV = 0.0, 0.0, 3 * (10 - c), 10 - 3 * (10 - c)
    norm = ParamPoly3(0, 0, 0, 0, L, aU=aU, bU=bU, cU=cU, dU=dU, aV=aV, bV=bV, cV=cV, dV=dV, normalized=True)
    f = 1 / L  # p_arc = L * p_norm: coefficients scale by powers of 1/L
    arcl = ParamPoly3(0, 0, 0, 0, L, aU=aU, bU=bU * f, cU=cU * f**2, dU=dU * f**3, aV=aV, bV=bV * f,
                      cV=cV * f**2, dV=dV * f**3, normalized=False)
    s = np.linspace(0, L, 50)
    for g in (norm, arcl):
        x, y, h = g.eval(s)
        assert x[-1] == pytest.approx(10.0, abs=1e-9) and y[-1] == pytest.approx(10.0, abs=1e-9)
        assert h[-1] == pytest.approx(math.pi / 2, abs=1e-6)
        assert np.allclose(np.hypot(x - 0, y - 10), 10.0, atol=0.03)  # stays on the circle
        # re-parameterised by arc length: equal steps in s are equal distances
        d = np.hypot(np.diff(x), np.diff(y))
        assert np.allclose(d, d.mean(), rtol=2e-3)
    assert np.allclose(np.column_stack(norm.eval(s)), np.column_stack(arcl.eval(s)), atol=1e-9)


def test_poly3_follows_its_cubic():
    g = Poly3(0, 0, 0, 0, 20.0, a=0.0, b=0.0, c=0.01, d=0.0)
    x, y, h = g.eval(np.linspace(0, 20, 21))
    assert np.allclose(y, 0.01 * x**2, atol=1e-9)
    assert np.allclose(h, np.arctan(0.02 * x), atol=1e-9)
    seg = np.hypot(np.diff(x), np.diff(y)).sum()
    assert seg == pytest.approx(20.0, rel=1e-4)
