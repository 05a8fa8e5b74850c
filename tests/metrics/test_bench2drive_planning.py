"""Bench2Drive comfort bounds and success; planning L2 in both conventions and plan collision rate."""

from __future__ import annotations

import math

import pytest

from metrics_synth import actor, drive, straight_meta
from roadtest.metrics import bench2drive, corrected, planning
from roadtest.sim.api import ActorState, AgentOutput, Control, Trace, WorldState

TICK = 0.05


def kinematic(acc: float = 0.0, yaw_rate: float = 0.0, v0: float = 10.0, seconds: float = 4.0) -> Trace:
    """An ego with constant longitudinal acceleration and yaw rate."""
    states, x, y, h, v = [], 0.0, 0.0, 0.0, v0
    for i in range(int(seconds / TICK) + 1):
        e = ActorState(id="hero", role="ego", kind="car", x=x, y=y, z=0.0, h=h, speed=v,
                       vx=v * math.cos(h), vy=v * math.sin(h))
        states.append(WorldState(time=i * TICK, frame=i, actors=(e,)))
        x, y = x + v * math.cos(h) * TICK, y + v * math.sin(h) * TICK
        h += yaw_rate * TICK
        v = max(v + acc * TICK, 0.0)
    return Trace(states=states, tick=TICK)


@pytest.mark.parametrize("acc,ok", [(-4.0, True), (-4.1, False), (2.35, True), (2.45, False)])
def test_comfort_longitudinal_acceleration_bounds(acc, ok):
    r = corrected.comfort(kinematic(acc=acc, v0=20.0))
    assert (r.value == 1.0) is ok
    if not ok:
        assert r.value == 0.0 and r.violations[0].kind == "lon_acc"


@pytest.mark.parametrize("rate,ok", [(0.94, True), (0.96, False)])
def test_comfort_yaw_rate_bound_in_rad_per_s(rate, ok):
    r = corrected.comfort(kinematic(yaw_rate=rate, v0=1.0))
    assert (r.value == 1.0) is ok


def test_comfort_counts_whole_20_frame_chunks():
    tr = kinematic(v0=10.0, seconds=4.0)  # 81 frames -> 4 whole chunks, the last frame dropped
    assert corrected.comfort(tr).details["chunks"] == 4
    # one hard brake inside the second chunk only
    st = tr.states
    for i in range(25, 35):
        e = st[i].ego
        v = 10.0 - 8.0 * (i - 24) * TICK
        st[i] = WorldState(time=st[i].time, frame=i, actors=(ActorState(**{**e.__dict__, "vx": v, "speed": v}),))
    r = corrected.comfort(tr)
    assert r.value == pytest.approx(0.75)
    assert r.violations[0].start == pytest.approx(1.0)


def test_success_needs_completion_and_no_infraction_but_min_speed():
    meta = straight_meta(100)
    xs = [0.5 * i for i in range(202)]
    bg = {i: [actor("b", 0.0, 30.0, role="background", speed=20.0)] for i in range(len(xs))}
    res = bench2drive.evaluate(drive(xs, [10.0] * len(xs), extra=bg), meta)
    assert res["success"] is True and res["driving_score"] == 100.0
    assert res["efficiency"] == pytest.approx(50.0)
    short = bench2drive.evaluate(drive(xs[:150]), meta)
    assert short["success"] is False


def _plan_trace(lateral: float) -> Trace:
    tr = kinematic(v0=10.0, seconds=4.0)
    plan = tuple((5.0 * k, lateral * k) for k in range(1, 7))
    tr.agent = [AgentOutput(time=0.0, control=Control(), planned=plan)]
    return tr


def test_l2_both_conventions():
    ref = kinematic(v0=10.0, seconds=4.0)
    r = planning.l2(_plan_trace(0.2), ref)
    assert r["source"] == "planned" and r["samples"] == 1
    assert r["at_horizon"]["1s"] == pytest.approx(0.4)
    assert r["average_to_horizon"]["1s"] == pytest.approx(0.3)
    assert r["at_horizon"]["3s"] == pytest.approx(1.2)
    assert r["average_to_horizon"]["3s"] == pytest.approx(0.2 * 3.5)


def test_l2_executed_path_when_no_plan():
    ref = kinematic(v0=10.0, seconds=4.0)
    slow = kinematic(v0=8.0, seconds=4.0)
    r = planning.l2(slow, ref)
    assert r["source"] == "executed"
    assert r["at_horizon"]["1s"] == pytest.approx(2.0, abs=1e-6)
    assert r["at_horizon"]["3s"] == pytest.approx(6.0, abs=1e-6)


@pytest.mark.parametrize("gap,hit_at_1s", [(10.0, True), (16.0, False)])
def test_plan_collision_rate_against_future_boxes(gap, hit_at_1s):
    tr = _plan_trace(0.0)
    parked = actor("parked", gap, 0.0)
    tr.states = [WorldState(time=s.time, frame=s.frame, actors=s.actors + (parked,)) for s in tr.states]
    r = planning.collision_rate(tr)
    assert (r["at_horizon"]["1s"] == 1.0) is hit_at_1s
    assert r["at_horizon"]["3s"] == 0.0  # 30 m ahead, past the parked car


def test_savgol_is_exact_on_a_quadratic():
    import numpy as np

    from roadtest.metrics.bench2drive import _savgol

    t = np.arange(30) * TICK
    x = 3.0 * t ** 2 - 2.0 * t + 1.0
    assert np.allclose(_savgol(x, 0, TICK), x)
    assert np.allclose(_savgol(x, 1, TICK), 6.0 * t - 2.0)


def test_savgol_matches_scipy_as_bench2drive_calls_it():
    # efficiency_smoothness_benchmark.py calls scipy.signal.savgol_filter(x, window_length=7, polyorder=2[, deriv=1,
    # delta=0.1]) with its default mode "interp"; roadtest's numpy version must give the same numbers
    import numpy as np
    from scipy.signal import savgol_filter

    from roadtest.metrics.bench2drive import _savgol

    x = np.random.default_rng(0).normal(size=20)
    assert np.allclose(_savgol(x, 0, 1.0), savgol_filter(x, window_length=7, polyorder=2))
    assert np.allclose(_savgol(x, 1, 0.1), savgol_filter(x, window_length=7, polyorder=2, deriv=1, delta=0.1))
