"""The pedals through the powertrain model, against hand calculations and a sedan's real-world figures.

Hand model (documented in roadtest/sim/powertrain.py), per kg: a = u_t min(a_L, p / v) - u_b b - (r + k v^2),
r = 0.015 * 9.81, k = 1.225 * 0.3 * 2.2 / (2 * 1845), p = v_max (r + k v_max^2). The expected values below
are computed here from those constants with scipy (quad, brentq) or in closed form, not read from roadtest.
"""

import math

import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from roadtest.sim.api import Control
from roadtest.sim.embedded.dynamics import BicycleState, params_from_entity, step_bicycle

from embedded_fakes import FakeEntity

DT = 0.05
R = 0.015 * 9.81
K = 1.225 * 0.3 * 2.2 / (2 * 1845.0)
VMAX = 70.0  # m/s, the Performance maxSpeed roadtest's scenarios declare (with maxAcceleration/Deceleration 10)
P = VMAX * (R + K * VMAX ** 2)
A_LAUNCH, B = 4.5, 8.0
CAR = params_from_entity(FakeEntity("hero", max_speed=VMAX, max_accel=10.0, max_decel=10.0))
KMH = 1 / 3.6


def drive(v0: float, control: Control, until, max_s: float = 600.0, p=CAR) -> tuple[float, float, float]:
    """(time, speed, distance) when until(speed) first holds (or at max_s)."""
    st, t = BicycleState(0.0, 0.0, 0.0, v0), 0.0
    while not until(st.speed) and t < max_s:
        st = step_bicycle(st, control, p, DT)
        t += DT
    return t, st.speed, st.x


def test_full_throttle_0_to_100_kmh_takes_a_sedans_7_seconds():
    v1 = P / A_LAUNCH  # where the launch limit gives way to constant power
    t_launch = quad(lambda v: 1.0 / (A_LAUNCH - R - K * v * v), 0.0, v1)[0]
    t_power = quad(lambda v: 1.0 / (P / v - R - K * v * v), v1, 100 * KMH)[0]
    hand = t_launch + t_power
    t, _, _ = drive(0.0, Control(throttle=1.0), lambda v: v >= 100 * KMH)
    assert t == pytest.approx(hand, abs=2 * DT)
    assert 6.0 <= t <= 10.0  # a Lincoln MKZ / Tesla Model 3 class car: 6 to 8 s


def test_half_throttle_holds_its_own_top_speed_and_45_kmh_does_not_become_167_in_9_s():
    v_top = brentq(lambda v: 0.5 * P / v - R - K * v * v, 1.0, VMAX)
    _, v, _ = drive(v_top - 5.0, Control(throttle=0.5), lambda v: False, max_s=300.0)
    assert v == pytest.approx(v_top, abs=0.05)
    assert v < VMAX
    # 45 km/h, half throttle, 9 s: the hand integral of dv / a(v)
    t_of = lambda v_end: quad(lambda v: 1.0 / (0.5 * min(A_LAUNCH, P / v) - R - K * v * v), 45 * KMH, v_end)[0]
    v9 = brentq(lambda v: t_of(v) - 9.0, 45 * KMH + 0.1, v_top - 0.1)
    _, v, _ = drive(45 * KMH, Control(throttle=0.5), lambda v: False, max_s=9.0 - DT / 2)
    assert v == pytest.approx(v9, abs=0.1)
    assert v / KMH < 110.0  # was 167 km/h with the old linear pedal map


def test_full_throttle_never_passes_the_performance_top_speed():
    slow = params_from_entity(FakeEntity("hero", max_speed=20.0, max_accel=10.0, max_decel=10.0))
    _, v, _ = drive(0.0, Control(throttle=1.0), lambda v: False, max_s=120.0, p=slow)
    assert 19.5 <= v <= 20.0


def test_full_brake_from_100_kmh_decelerates_at_8_to_9_m_s2():
    v0 = 100 * KMH
    c = B + R
    t, v, x = drive(v0, Control(brake=1.0), lambda v: v <= 0.0)
    assert v == 0.0
    assert t == pytest.approx(math.atan(v0 * math.sqrt(K / c)) / math.sqrt(K * c), abs=2 * DT)
    assert x == pytest.approx(math.log((c + K * v0 * v0) / c) / (2 * K), rel=0.02)
    assert 8.0 <= v0 / t <= 9.0


def test_coasting_slows_by_rolling_resistance_and_drag():
    v0, T = 100 * KMH, 10.0
    root = math.sqrt(R / K)  # dv/dt = -(R + K v^2): v(t) = root * tan(atan(v0 / root) - sqrt(R K) t)
    hand = root * math.tan(math.atan(v0 / root) - math.sqrt(R * K) * T)
    _, v, _ = drive(v0, Control(), lambda v: False, max_s=T - DT / 2)
    assert v == pytest.approx(hand, abs=0.02)
