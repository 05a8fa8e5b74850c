"""The expert's look behind (merge_give_way) and the solid-line exception's pass decision, on hand-built objects
views: expected values are hand calculations from the positions and speeds written here."""

from __future__ import annotations

import pytest

from roadtest.agents.lane_gap import HALF_CHANGE, MARGIN, alongside, needed_gap, rear_blocker
from roadtest.agents.overtake import PULL_OUT_ROOM, WAIT, Overtaker

EGO = {"length": 4.8, "width": 2.0, "route_s": 40.0, "route_length": 400.0}


def _car(rs: float, speed: float, d: float = -3.5, length: float = 4.7) -> dict:
    return {"id": "car", "kind": "vehicle", "route_s": rs, "route_d": d, "speed": speed, "length": length, "width": 1.9}


def _rules(*ids, **params) -> list[dict]:
    return [{"id": r, "params": params.get(r, {})} for r in ids]


def test_needed_gap_is_the_rules_plus_margin():
    assert needed_gap({"rules": []}) == pytest.approx(1.0 + MARGIN)  # the catalogue's 1.0 s where the rule is absent
    view = {"rules": _rules("merge_give_way", merge_give_way={"min_rear_gap": 2.0})}
    assert needed_gap(view) == pytest.approx(2.0 + MARGIN)


@pytest.mark.parametrize("rs, v, blocked", [
    (-20.0, 20.0, True),  # bumper gap 20 - 4.75 = 15.25 m, closing 10 m/s for 1.5 s: 0.25 m left, 0.01 s
    (-60.0, 20.0, False),  # 55.25 - 15 = 40.25 m at 20 m/s: 2.0 s >= 1.3 s
    (-40.0, 30.0, True),  # 35.25 - 30 = 5.25 m at 30 m/s: 0.18 s
    (-25.0, 5.0, False),  # a slower car 20.25 m behind at 5 m/s: 4 s, and it falls back
])
def test_rear_blocker_time_gap(rs, v, blocked):
    view = {"rules": [], "actors": [_car(rs, v)]}
    got = rear_blocker(view, EGO, -3.5, speed=10.0)
    assert (got is not None) == blocked
    assert HALF_CHANGE == 1.5  # the hand calculations above assume it


def test_rear_range_only_when_pulling_out():
    view = {"rules": [], "actors": [_car(-25.0, 5.0)]}  # 4 s behind: no short gap, but within 30 m
    assert rear_blocker(view, EGO, -3.5, 10.0) is None
    assert rear_blocker(view, EGO, -3.5, 10.0, within=30.0) is not None


def test_alongside_and_other_lanes():
    view = {"actors": [_car(3.0, 10.0)]}  # centres 3 m apart: the boxes overlap
    assert alongside(view, EGO, -3.5) is not None
    assert alongside(view, EGO, 3.5) is None  # the lane on the other side is free
    assert alongside({"actors": [_car(12.0, 10.0)]}, EGO, -3.5) is None  # 12 > 2.4 + 2.35 + 1


def _view(lead_speed: float, lead_gap: float, rules: list[dict], crossing: bool = False) -> dict:
    rs = lead_gap + 4.8 / 2 + 8.5 / 2  # bumper gap -> centre distance
    truck = {"id": "truck", "kind": "truck", "route_s": rs, "route_d": 0.0, "speed": lead_speed, "length": 8.5, "width": 2.5}
    return {"driving_side": "right", "actors": [truck], "rules": rules, "zones": [], "junctions": [],
            "lane": {"width": 3.5, "left": {"lane": -1, "crossing_allowed": crossing}}}


def _decide(view: dict, ignore=()) -> float | None:
    ot = Overtaker(frozenset(ignore))
    ot.want(view, EGO, 4.0, 13.8, 0.0)
    return ot.want(view, EGO, 4.0, 13.8, WAIT + 0.1)


EXC = _rules("solid_line_exception")


def test_exception_passes_a_standing_truck_within_blocked_gap():
    assert _decide(_view(0.0, 8.0, EXC)) == pytest.approx(3.5)  # a full lane to the left
    assert _decide(_view(0.0, 20.0, EXC)) is None  # 20 m > blocked_gap 15 m: not yet blocked, drive up first
    assert _decide(_view(0.0, 20.0, EXC), ignore=["solid_line_exception"]) == pytest.approx(3.5)  # limits dropped


def test_exception_never_for_a_moving_truck():
    assert _decide(_view(4.2, 8.0, EXC)) is None  # slow (4.2 < 0.7 * 13.8) but moving: the solid line holds
    assert _decide(_view(4.2, 8.0, EXC), ignore=["solid_line_exception"]) == pytest.approx(3.5)
    assert _decide(_view(4.2, 8.0, [])) is None  # without the exception, ignoring it changes nothing:
    assert _decide(_view(4.2, 8.0, []), ignore=["solid_line_exception"]) is None
    assert _decide(_view(4.2, 8.0, []), ignore=["no_overtaking_solid_line"]) == pytest.approx(3.5)  # the ban dropped


def test_no_exception_where_the_ban_is_listed_or_not_granted():
    assert _decide(_view(0.0, 8.0, [])) is None
    assert _decide(_view(0.0, 8.0, _rules("solid_line_exception", "no_overtaking_solid_line"))) is None


def test_wait_counts_from_when_it_stands():
    ot = Overtaker(frozenset())
    assert ot.want(_view(4.2, 10.0, EXC), EGO, 4.0, 13.8, 0.0) is None  # following it while it moves
    assert ot.want(_view(0.0, 8.0, EXC), EGO, 0.0, 13.8, 20.0) is None  # it has just stopped
    assert ot.want(_view(0.0, 8.0, EXC), EGO, 0.0, 13.8, 20.0 + WAIT - 0.1) is None
    assert ot.want(_view(0.0, 8.0, EXC), EGO, 0.0, 13.8, 20.0 + WAIT + 0.1) == pytest.approx(3.5)


def test_room_to_pull_out_only_under_the_exception():
    truck = _view(0.0, 8.0, EXC)["actors"][0]
    assert Overtaker(frozenset()).room(_view(0.0, 8.0, EXC), truck) == PULL_OUT_ROOM
    assert Overtaker(frozenset()).room(_view(0.0, 8.0, []), truck) == 0.0


def test_rear_car_stops_the_pull_out_unless_merge_give_way_is_ignored():
    view = _view(4.2, 10.0, [], crossing=True)
    assert _decide(view) == pytest.approx(3.5)  # broken line, free road: it passes
    view["actors"].append(_car(-25.0, 14.0, d=3.5))  # a car 20.25 m behind in the passing lane at 14 m/s
    assert _decide(view) is None
    assert _decide(view, ignore=["merge_give_way"]) == pytest.approx(3.5)
