"""solid_line_exception allows the crossing back after a pass: a crossing within 15 s of the ego being blocked by a
standing road user is part of the same manoeuvre; later, or with no such moment before, it is a violation."""

from __future__ import annotations

import pytest

from .synth import TICK, const, drive, invasion, other
from .test_monitors import meta, verdict


def _pass(back_after: float, blocked: bool = True):
    """Ego at 1 m/s; a standing car 8 m ahead (bumper to bumper) until tick 20, when the ego is past it; solid
    crossings at tick 10 (out) and `back_after` s after tick 19 (back)."""
    back = 19 + round(back_after / TICK)
    n = back + 5
    ev = invasion(False)

    def others(i, x):
        if i >= 20:
            return []
        return [other("car", "car", x + 8.0 + 4.0, -1.75, speed=0.0 if blocked else 3.0)]

    return drive(const(1.0, n), others=others, events=lambda i: ev if i in (10, back) else ()), meta("solid_line_exception")


@pytest.mark.parametrize("back_after, expected", [(5.0, "satisfied"), (14.5, "satisfied"), (16.0, "violated")])
def test_crossing_back_within_the_window(back_after, expected):
    assert verdict(*_pass(back_after)) == expected


def test_no_standing_obstacle_no_window():
    assert verdict(*_pass(5.0, blocked=False)) == "violated"  # a car moving at 3 m/s never blocked the lane
