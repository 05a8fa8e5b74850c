"""opposite_side on hand-built traces: the ego in the oncoming lane is on the wrong side, except while it
passes a road user going its way (an overtake may use the oncoming lanes)."""

from __future__ import annotations

from roadtest.rules.signals import PASS_AHEAD, extract_signals
from .synth import const, drive, other

# right-hand traffic: the ego drives +x; lane -1 goes its way, lane 1 (y = +1.75) is the oncoming lane


def _opposite(others=None):
    tr = drive(const(10.0, 30), lanes=lambda i: 1, others=others)
    return extract_signals(tr, {"driving_side": "right"})["opposite_side"]


def test_in_the_oncoming_lane_alone_is_the_wrong_side():
    assert all(v > 0 for v in _opposite()[1:])  # from the first tick it is seen moving


def test_passing_a_slow_car_is_not():
    # a car at 4 m/s in the ego's own lane (y = -1.75), 3.5 m to its right, 10 m ahead of it at the start
    car = lambda i, x: [other("slow", "vehicle", 10.0 + 4.0 * i * 0.1, -1.75, speed=4.0)]
    assert all(v < 0 for v in _opposite(car))


def test_a_car_far_ahead_or_oncoming_is_no_pass():
    far = lambda i, x: [other("far", "vehicle", x + 2 * PASS_AHEAD, -1.75, speed=4.0)]
    assert all(v > 0 for v in _opposite(far)[1:])
    oncoming = lambda i, x: [other("onc", "vehicle", x + 20.0, -1.75, speed=8.0, h=3.14159)]
    assert all(v > 0 for v in _opposite(oncoming)[1:])
