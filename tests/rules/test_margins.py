"""Each rule's quantitative margin on hand-built traces, against values worked out by hand from the trace.

The synthetic ego (tests/rules/synth.py) drives along +x on road "0", lane -1, s = x, box 4 m x 2 m, tick 0.1 s;
at tick i it has the speed given for i and has moved by that speed times the tick since tick i - 1.
"""

from __future__ import annotations

import math

import pytest

from roadtest.rules.catalogue_model import load_catalogue
from roadtest.rules.evaluate import evaluate_rules
from roadtest.rules.margins import MARGINS
from roadtest.sim.api import Trace, WorldState
from .synth import TICK, const, drive, ego, segments
from .test_monitors import BUILDERS, LIGHT_SCENE, meta

CAT = load_catalogue()
KMH = 1 / 3.6


def result(trace: Trace, m: dict):
    return {r.id: r for r in evaluate_rules(trace, m, CAT)}[m["rules"][0]["id"]]


def test_every_margin_is_described_in_its_catalogue_entry():
    described = {rid for rid, r in CAT.items() if r.monitor.margin}
    assert described == set(MARGINS)
    for rid in MARGINS:
        unit = CAT[rid].monitor.margin.split(":")[0]
        assert unit in ("m", "s", "m/s"), (rid, unit)


@pytest.mark.parametrize("case", ["satisfied", "violated", "boundary"])
@pytest.mark.parametrize("rule", sorted(MARGINS))
def test_margin_keeps_the_sign_of_the_verdict(rule, case):
    res = result(*BUILDERS[rule](case))
    if res.verdict == "not_applicable":
        assert res.margin is None
    elif res.margin is not None:
        assert (res.margin < 0) == (res.verdict == "violated"), (res.verdict, res.margin)


SIGN_SCENE = {"speed_limit": 50 * KMH, "signs": [{"id": "speed_limit", "road": "0", "s": 50.0, "value": 30, "unit": "km/h"}]}


def test_speed_limit_kept_is_how_far_before_the_sign_it_was_slow_enough():
    # 12 m/s while the centre is before 38 m: x = 20 + 1.2 i up to tick 15 (x = 38), then 8 m/s (under 30 + 2 km/h
    # = 8.89 m/s) from tick 16 (x = 38.8); the front (x + 2) passes the sign at 50 m on tick 28 (x = 48.4):
    # 48.4 - 38.8 = 9.6 m driven at the new limit before it took force
    tr = drive(lambda i, x: 12.0 if x < 38.0 else 8.0, x0=20.0, n=60)
    res = result(tr, meta("speed_limit", **SIGN_SCENE))
    assert res.verdict == "satisfied" and res.margin == pytest.approx(9.6)


def test_speed_limit_broken_is_minus_the_distance_driven_too_fast():
    # 12 m/s throughout: x = 20 + 1.2 i; the front passes 50 m on tick 24 (x = 48.8); ticks 24..29 are over
    # 8.89 m/s: 6 ticks of 1.2 m
    res = result(drive(const(12.0, 30), x0=20.0), meta("speed_limit", **SIGN_SCENE))
    assert res.verdict == "violated" and res.margin == pytest.approx(-7.2)


def test_speed_limit_has_a_slope_in_where_the_ego_slowed():
    slow_at = [30.0, 34.0, 38.0, 42.0]
    margins = [result(drive(lambda i, x, a=a: 12.0 if x < a else 8.0, x0=20.0, n=60),
                      meta("speed_limit", **SIGN_SCENE)).margin for a in slow_at]
    assert margins == sorted(margins, reverse=True) and len(set(margins)) == len(margins)


def test_red_light_kept_is_the_distance_it_stopped_before_the_line():
    # 8 m/s for ticks 1..31 from x = 20: x = 44.8, front 46.8: stopped 3.2 m before the line at 50 m while red
    tr = drive(segments((8.0, 32), (0.0, 30), (8.0, 30)), x0=20.0, signals=lambda i: {"L1": "red" if i < 50 else "green"})
    res = result(tr, meta("red_light", **LIGHT_SCENE))
    assert res.verdict == "satisfied" and res.margin == pytest.approx(3.2)


def test_red_light_broken_is_minus_the_distance_driven_on_red():
    # 8 m/s from x = 20.2: the front passes 50 m on tick 35; red to the end (tick 59): 25 ticks of 0.8 m
    tr = drive(const(8.0, 60), x0=20.2, signals=lambda i: {"L1": "red"})
    res = result(tr, meta("red_light", **LIGHT_SCENE))
    assert res.verdict == "violated" and res.margin == pytest.approx(-20.0)


def test_no_entry_kept_and_broken():
    scene = {"signs": [{"id": "no_entry", "road": "0", "s": 50.0}]}
    stopped = result(drive(segments((8.0, 30), (0.0, 30)), x0=20.0), meta("no_entry", **scene))
    assert stopped.verdict == "satisfied" and stopped.margin == pytest.approx(50.0 - (20.0 + 29 * 0.8 + 2.0))  # 4.8 m
    through = result(drive(const(8.0, 60), x0=20.2), meta("no_entry", **scene))
    assert through.verdict == "violated" and through.margin == pytest.approx(-25 * 0.8)  # front 22.2 + 0.8 i passes 50 m on tick 35; ticks 35..59


def test_driving_side_kept_is_the_clearance_to_the_centre_line():
    # lane -1 centre 1.75 m right of the reference line, box 2 m wide: 0.75 m to the line
    kept = result(drive(const(10.0, 30)), meta("driving_side"))
    assert kept.verdict == "satisfied" and kept.margin == pytest.approx(0.75)
    left = result(drive(const(10.0, 30), lanes=lambda i: 1), meta("driving_side", "JP"))
    assert left.verdict == "satisfied" and left.margin == pytest.approx(0.75)


def test_driving_side_broken_is_minus_the_distance_driven_on_the_wrong_side():
    # lane +1 along +s in right-hand traffic: wrong from tick 1 (the direction of travel needs one step): 29 m
    res = result(drive(const(10.0, 30), lanes=lambda i: 1), meta("driving_side"))
    assert res.verdict == "violated" and res.margin == pytest.approx(-29.0)


def _u_turn(turn_speed: float | None) -> Trace:
    """2 m per tick along +x for 20 ticks; then, unless None, back along -x at turn_speed m/s."""
    states = []
    for i in range(40):
        back = turn_speed is not None and i >= 20
        x = 2.0 * min(i, 20) - (turn_speed * TICK * (i - 20) if back else 0.0) if turn_speed is not None else 2.0 * i
        e = ego(x, turn_speed if back else 20.0, lane=1 if back else -1, h=math.pi if back else 0.0)
        states.append(WorldState(time=i * TICK, frame=i, actors=(e,)))
    return Trace(states=states, tick=TICK)


def test_no_u_turn_margin_is_the_speed_along_the_first_direction():
    kept = result(_u_turn(None), meta("no_u_turn"))
    assert kept.verdict == "satisfied" and kept.margin == pytest.approx(20.0)  # 2 m per 0.1 s
    back = result(_u_turn(6.0), meta("no_u_turn"))
    assert back.verdict == "violated" and back.margin == pytest.approx(-6.0)


@pytest.mark.parametrize("at, verdict, expected", [(30.0, "satisfied", 20.0), (100.0, "violated", -50.0),
                                                    (140.0, "violated", -10.0), (151.0, "satisfied", 1.0)])
def test_no_lane_change_tunnel_margin_is_the_distance_to_the_tunnel(at, verdict, expected):
    # 1 m per tick from x = 0, so the change is at x = at; the tunnel spans 50..150 m
    zone = [{"kind": "tunnel", "road": "0", "s_start": 50, "s_end": 150}]
    res = result(drive(const(10.0, 200), lanes=lambda i: -1 if i < at else -2), meta("no_lane_change_tunnel", zones=zone))
    assert res.verdict == verdict and res.margin == pytest.approx(expected)
