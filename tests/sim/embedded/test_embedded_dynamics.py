"""Kinematic bicycle: limits from Performance/Axles, steering sign and rate, braking never reverses."""

import math

import pytest

from roadtest.sim.api import Control
from roadtest.sim.embedded.dynamics import BicycleParams, BicycleState, params_from_entity, step_bicycle

from embedded_fakes import FakeEntity

DT = 0.05
P = BicycleParams(wheelbase=2.8, max_steer=0.5, max_steer_rate=1.0, max_speed=30.0, max_accel=3.0, max_decel=9.0)


def run(state, control, n, p=P):
    for _ in range(n):
        state = step_bicycle(state, control, p, DT)
    return state


def test_full_throttle_from_rest_accelerates_at_the_performance_limit_and_saturates_below_max_speed():
    st = step_bicycle(BicycleState(0, 0, 0, 0.0), Control(throttle=1.0), P, DT)
    assert st.speed == pytest.approx(P.max_accel * DT, rel=1e-6)
    st = run(st, Control(throttle=1.0), 2000)
    assert 25.0 < st.speed <= P.max_speed
    assert st.y == pytest.approx(0.0) and st.h == pytest.approx(0.0)


def test_full_brake_stops_within_the_deceleration_limit_and_never_reverses():
    st = BicycleState(0, 0, 0, 20.0)
    n = 0
    while st.speed > 0 and n < 1000:
        st = step_bicycle(st, Control(brake=1.0), P, DT)
        n += 1
    assert st.speed == 0.0
    # dv/dt = -(b + c_rr g + k v^2), b = 9, c_rr = 0.015, k = rho C_d A / (2 m) = 1.225 * 0.3 * 2.2 / (2 * 1845)
    c, k = P.max_decel + 0.015 * 9.81, 1.225 * 0.3 * 2.2 / (2 * 1845.0)
    assert n * DT == pytest.approx(math.atan(20.0 * math.sqrt(k / c)) / math.sqrt(k * c), abs=2 * DT)
    assert run(st, Control(brake=1.0), 20).speed == 0.0
    assert st.x == pytest.approx(math.log((c + k * 20.0 ** 2) / c) / (2 * k), rel=0.02)


def test_positive_steer_turns_right_clockwise_as_carla():
    st = run(BicycleState(0, 0, 0, 10.0), Control(throttle=0.3, steer=0.5), 20)
    assert st.yaw_rate < 0 and st.h < 0 and st.y < 0


def test_steering_angle_moves_at_the_rate_limit():
    st = step_bicycle(BicycleState(0, 0, 0, 5.0), Control(steer=-1.0), P, DT)
    assert st.steer == pytest.approx(P.max_steer_rate * DT)
    st = run(st, Control(steer=-1.0), 100)
    assert st.steer == pytest.approx(P.max_steer)


def test_constant_steer_drives_a_circle_of_the_kinematic_radius():
    p = BicycleParams(wheelbase=2.8, max_steer=0.3, max_steer_rate=100.0, max_speed=30.0)
    st = BicycleState(0, 0, 0, 8.0, steer=-0.3 * 0.5)
    beta = math.atan(0.5 * math.tan(st.steer))
    radius = p.wheelbase / (math.cos(beta) * math.tan(abs(st.steer)))
    pts = []
    for _ in range(400):
        # throttle that holds 8 m/s against rolling resistance
        st = step_bicycle(st, Control(steer=0.5, throttle=0.0), p, DT)
        st = BicycleState(st.x, st.y, st.h, 8.0, st.steer)
        pts.append((st.x, st.y))
    cx, cy = 0.0, 0.0
    # the centre lies to the right of the start heading (clockwise turn), offset by the slip angle
    cx, cy = radius * math.sin(beta), -radius * math.cos(beta)
    d = [math.hypot(x - cx, y - cy) for x, y in pts]
    assert max(d) - min(d) < 0.02 * radius
    assert sum(d) / len(d) == pytest.approx(radius, rel=0.02)


def test_reverse_backs_up_slowly_and_hand_brake_stops():
    st = run(BicycleState(0, 0, 0, 0.0), Control(throttle=1.0, reverse=True), 200)
    assert -5.0 <= st.speed < -4.0 and st.x < 0
    st = run(st, Control(hand_brake=True), 20)
    assert st.speed == 0.0


def test_low_friction_limits_acceleration():
    p = BicycleParams(max_accel=8.0, friction=0.2)
    st = step_bicycle(BicycleState(0, 0, 0, 0.0), Control(throttle=1.0), p, DT)
    assert st.speed == pytest.approx(0.2 * 9.81 * DT)


def test_params_come_from_the_entity_with_defaults_for_missing_values():
    e = FakeEntity("hero", max_speed=40.0, max_accel=3.0, max_decel=6.0, wheelbase=3.1, max_steer=0.7)
    p = params_from_entity(e, friction=0.5)
    assert (p.max_speed, p.max_accel, p.max_decel, p.wheelbase, p.max_steer, p.friction) == (40.0, 3.0, 6.0, 3.1, 0.7, 0.5)
    # Performance limits above the car's own (launch 4.5 m/s^2, brakes 8 m/s^2) do not make it stronger
    e.max_accel, e.max_decel = 10.0, 10.0
    assert (params_from_entity(e).max_accel, params_from_entity(e).max_decel) == (4.5, 8.0)
    e.wheelbase = 0.0
    assert params_from_entity(e).wheelbase == BicycleParams().wheelbase


def test_a_steering_limit_written_in_degrees_is_read_as_degrees():
    assert params_from_entity(FakeEntity("hero", max_steer=30.0)).max_steer == pytest.approx(math.radians(30.0))
    assert params_from_entity(FakeEntity("hero", max_steer=400.0)).max_steer == BicycleParams().max_steer
