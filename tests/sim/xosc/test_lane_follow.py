"""The vectorised lane-following step: hand-worked poses, the same result as the default controller's `advance`,
and the cases it leaves to `advance`."""

from __future__ import annotations

import copy
import math

import pytest

from roadtest.sim.road.network import RoadNetwork
from roadtest.sim.xosc import lane_follow as LF
from roadtest.sim.xosc.entities import EntityState
from roadtest.sim.xosc.motion import LaneCache, LateralProfile, Motion, advance

from xosc_docs import straight_road

DT = 0.05


def _net(arc: float | None = None) -> RoadNetwork:
    xodr = straight_road(length=500.0)
    if arc is not None:
        xodr = xodr.replace("<line/>", f'<arc curvature="{arc}"/>')
    return RoadNetwork.from_bytes(xodr.encode())


def _car(speed: float, h: float = 0.0) -> EntityState:
    return EntityState(name="c", category="car", role="scenario", length=4.5, width=1.8, height=1.5, speed=speed, h=h)


@pytest.fixture(autouse=True)
def _batch_of_one(monkeypatch):
    monkeypatch.setattr(LF, "MIN_BATCH", 1)  # these tests step a few entities; the engine batches from MIN_BATCH


def test_a_step_along_a_straight_lane_by_hand():
    net = _net()
    flat = LF.FlatLanes(LaneCache(net))
    fwd, back = _car(20.0), _car(10.0, h=math.pi)
    mf = Motion(road="1", lane=-1, s=100.0, sdir=1)
    mb = Motion(road="1", lane=1, s=200.0, sdir=-1)  # lane 1 runs against s: it drives towards s = 0
    out = LF.plan(flat, [("f", fwd, mf), ("b", back, mb)], DT)
    LF.apply(fwd, mf, out["f"], DT)
    LF.apply(back, mb, out["b"], DT)
    # 20 m/s for 0.05 s: 1 m along +x in the right lane, whose centre is 1.75 m right of the reference line
    assert (mf.s, fwd.x, fwd.y, fwd.h) == (pytest.approx(101.0), pytest.approx(101.0), pytest.approx(-1.75), 0.0)
    assert (fwd.lane.road, fwd.lane.lane, fwd.lane.s, fwd.lane.t) == ("1", -1, pytest.approx(101.0), pytest.approx(-1.75))
    assert mf.odometer == pytest.approx(1.0)
    # 10 m/s the other way: 0.5 m towards s = 0, facing -x
    assert (mb.s, back.x, back.y) == (pytest.approx(199.5), pytest.approx(199.5), pytest.approx(1.75))
    assert abs(back.h) == pytest.approx(math.pi)


@pytest.mark.parametrize("arc", [None, 0.004])
def test_the_same_pose_as_advance_tick_after_tick(arc):
    net = _net(arc)
    cache = LaneCache(net)
    flat = LF.FlatLanes(cache)
    cars = [(_car(v), Motion(road="1", lane=lane, s=s, sdir=1, offset=off))
            for v, lane, s, off in ((25.0, -1, 30.0, 0.0), (13.0, -2, 80.0, 0.4), (0.0, -1, 250.0, 0.0))]
    twins = [(copy.deepcopy(e), copy.deepcopy(m)) for e, m in cars]
    for k in range(200):  # 10 s: the first car covers 250 m, round a quarter of the arc's circle
        t = (k + 1) * DT
        out = LF.plan(flat, [(str(i), e, m) for i, (e, m) in enumerate(cars)], DT)
        assert set(out) == {"0", "1", "2"}
        for i, (e, m) in enumerate(cars):
            LF.apply(e, m, out[str(i)], DT)
        for e, m in twins:
            advance(net, e, m, DT, t, cache)
        for (e, m), (e2, m2) in zip(cars, twins):
            assert (e.x, e.y, e.z, e.h, e.speed) == pytest.approx((e2.x, e2.y, e2.z, e2.h, e2.speed), abs=1e-9)
            assert (m.s, m.odometer, m.standstill, m.end_of_road) == pytest.approx(
                (m2.s, m2.odometer, m2.standstill, m2.end_of_road), abs=1e-9)
            assert (e.lane.road, e.lane.lane) == (e2.lane.road, e2.lane.lane)
            assert (e.lane.s, e.lane.t) == pytest.approx((e2.lane.s, e2.lane.t), abs=1e-9)
    assert cars[2][1].standstill == pytest.approx(200 * DT)  # the standing car counts its standstill time


def test_what_it_leaves_to_advance():
    flat = LF.FlatLanes(LaneCache(_net()))
    at_end = (_car(20.0), Motion(road="1", lane=-1, s=499.5, sdir=1))  # its step leaves the road: a road end
    changing = (_car(20.0), Motion(road="1", lane=-1, s=100.0, sdir=1,
                                   lat=LateralProfile(start=0.0, target=3.5, shape="sinusoidal", dimension="time", value=3.0)))
    side = (_car(20.0), Motion(road="1", lane=-1, s=100.0, sdir=1, side_step=0.5))
    off_road = (_car(20.0), Motion(road=None))
    plain = (_car(20.0), Motion(road="1", lane=-1, s=100.0, sdir=1))
    items = [(n, e, m) for n, (e, m) in zip(("end", "lat", "side", "off", "plain"), (at_end, changing, side, off_road, plain))]
    assert set(LF.plan(flat, items, DT)) == {"plain"}


def test_fewer_candidates_than_a_batch_are_left_to_advance(monkeypatch):
    monkeypatch.setattr(LF, "MIN_BATCH", 3)
    flat = LF.FlatLanes(LaneCache(_net()))
    items = [(str(i), _car(20.0), Motion(road="1", lane=-1, s=100.0 + 10 * i, sdir=1)) for i in range(3)]
    assert LF.plan(flat, items[:2], DT) == {}
    assert set(LF.plan(flat, items, DT)) == {"0", "1", "2"}
