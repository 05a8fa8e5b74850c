"""opposite_side and unreasoned_stop_time on hand-built traces: the ego in the oncoming lane is on the wrong side,
except while it passes a road user going its way; a stop the route asks for is a reason to stand, except in a
no-stopping zone."""

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


def _standing_at(x_stop: float, zone: tuple[float, float] | None):
    """Drive at 10 m/s to x_stop, stand 10 s, with a stop asked at x = 100 and maybe a no-stopping zone."""
    from roadtest.rules.signals import extract_signals

    tr = drive(lambda i, x: 10.0 if x < x_stop else 0.0, n=200)
    meta = {"route": {"stops": [{"road": "0", "s": 100.0, "duration": 10.0}]},
            "scene": {"zones": [{"kind": "no_stopping", "road": "0", "s_start": zone[0], "s_end": zone[1]}] if zone else []}}
    sig = extract_signals(tr, meta)
    return max(sig["unreasoned_stop_time"]), sig["in_no_stopping"][-1]  # the second: where it stands


def test_an_asked_stop_is_a_reason_only_outside_a_no_stopping_zone():
    assert _standing_at(100.0, None) == (0.0, -1.0)  # where it was asked, no zone: a reason
    t, inside = _standing_at(100.0, (80.0, 120.0))
    assert inside > 0 and t > 5.0  # the same stop inside the zone: none (longer than no_stopping's 5 s)
    assert _standing_at(124.0, (80.0, 120.0)) == (0.0, -1.0)  # just past the zone (rear at 122): a reason again
    t, _ = _standing_at(100.0 + 45.0, None)
    assert t > 5.0  # far past the asked spot (TASK_REACH 40 m): no reason
