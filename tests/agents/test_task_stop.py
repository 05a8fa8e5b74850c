"""Where the expert stands for a stop the task asks for: there, or just past a no-stopping zone that covers it."""

from __future__ import annotations

import pytest

from roadtest.agents.task_stop import PAST_ZONE, TaskStops, stop_spot

HALF = 2.4  # m, half the ego's length
ZONE = {"kind": "no_stopping", "distance_start": 30.0, "distance_end": 90.0}


def test_a_spot_inside_the_zone_moves_past_its_end():
    # the ego's rear bumper PAST_ZONE beyond the zone's end: centre at 90 + 2.4 + 1.0
    assert stop_spot(60.0, [ZONE], HALF, keep_zones=True) == pytest.approx(90.0 + HALF + PAST_ZONE)
    assert stop_spot(28.0, [ZONE], HALF, keep_zones=True) == pytest.approx(93.4)  # its front would reach into the zone


def test_a_spot_clear_of_the_zone_or_an_ignored_rule_stays():
    assert stop_spot(20.0, [ZONE], HALF, keep_zones=True) == 20.0
    assert stop_spot(60.0, [{**ZONE, "kind": "school_zone"}], HALF, keep_zones=True) == 60.0
    assert stop_spot(60.0, [ZONE], HALF, keep_zones=False) == 60.0


def test_stands_for_the_asked_time_then_goes():
    stops = TaskStops(frozenset())
    view = {"route_stops": [{"distance": 0.5, "duration": 20.0}], "zones": []}
    assert stops.obstacles(view, 100.0, 0.0, HALF, 0.0) == [(0.5, "asked stop")]
    assert stops.obstacles(view, 100.0, 0.0, HALF, 19.9)  # still standing
    assert stops.obstacles(view, 100.0, 0.0, HALF, 20.0) == []  # served
    assert stops.obstacles(view, 100.0, 0.0, HALF, 25.0) == []
