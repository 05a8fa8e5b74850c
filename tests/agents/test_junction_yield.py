"""Giving way at unsignalised junctions: who has priority over the ego, where it waits and until when (hand-made
objects views), and a car with priority that brakes for an ego crossing its path (closed loop)."""

from __future__ import annotations

import math

import pytest

from roadtest.agents.junction_yield import GIVE_WAY, RIGHT_OF_WAY, junction_hold, priority_over_ego

EGO = {"length": 4.8, "width": 2.0}


def car(x: float, y: float, h: float, speed: float = 10.0, **kw) -> dict:
    return {"id": "c", "kind": "car", "x": x, "y": y, "h": h, "speed": speed, "length": 4.5, **kw}


FROM_RIGHT = car(20.0, -30.0, math.pi / 2)  # on the ego's right, driving leftward across its path
FROM_LEFT = car(20.0, 30.0, -math.pi / 2)
PASSED = car(20.0, 30.0, math.pi / 2)  # crossed already: on the left, still moving leftward
ONCOMING = car(40.0, 1.75, math.pi)


@pytest.mark.parametrize("actor, rule, left_hand, expected", [
    (FROM_RIGHT, RIGHT_OF_WAY, False, True), (FROM_RIGHT, RIGHT_OF_WAY, True, False),
    (FROM_LEFT, RIGHT_OF_WAY, False, False), (FROM_LEFT, RIGHT_OF_WAY, True, True),
    (FROM_LEFT, GIVE_WAY, False, True), (FROM_RIGHT, GIVE_WAY, True, True),
    (PASSED, GIVE_WAY, False, False), (ONCOMING, GIVE_WAY, False, False),
    ({**FROM_RIGHT, "kind": "pedestrian"}, GIVE_WAY, False, False), ({**FROM_RIGHT, "speed": 0.2}, GIVE_WAY, False, False),
])
def test_who_has_priority_over_the_ego(actor, rule, left_hand, expected):
    assert priority_over_ego(actor, rule, left_hand) is expected


def view(actors, signs=({"kind": "yield", "distance": 15.0},), lights=(), side="right"):
    return {"junctions": [{"id": "1", "distance_start": 20.0, "distance_end": 40.0, "inside": False}],
            "signs": list(signs), "lights": list(lights), "stop_lines": [], "actors": list(actors), "driving_side": side,
            "rules": [{"id": GIVE_WAY, "params": {"min_time_gap": 3.0}}]}


def test_waits_at_the_give_way_line_while_a_crossing_car_is_too_close():
    # ego front 15 - 2.4 = 12.6 m before the line at 5 m/s: it would cross in 12.6 / 5 = 2.52 s, so a car needing
    # less than 3 + 1.5 + 2.52 = 7.02 s to reach it is too close. The car: 36.06 m away, minus half its length and
    # half the ego's width (3.25 m), is 32.81 m out
    hold = junction_hold(view([FROM_RIGHT]), EGO, 5.0, frozenset())
    assert hold is not None and hold.rule == GIVE_WAY and hold.gap == pytest.approx(12.6)
    # at 10 m/s it needs 3.28 s: wait; at 4 m/s it needs 8.2 s: go
    assert junction_hold(view([{**FROM_RIGHT, "speed": 4.0}]), EGO, 5.0, frozenset()) is None
    # the ablated expert, a light at the junction, or a priority-road sign on the approach: no wait
    assert junction_hold(view([FROM_RIGHT]), EGO, 5.0, frozenset({GIVE_WAY})) is None
    assert junction_hold(view([FROM_RIGHT], lights=[{"distance": 18.0}]), EGO, 5.0, frozenset()) is None
    assert junction_hold(view([FROM_RIGHT], signs=[{"kind": "priority_road", "distance": 10.0}]), EGO, 5.0,
                         frozenset()) is None
    # too fast to stop before the line at 4 m/s^2 (12^2 / (2 * 12.6) = 5.7): committed, it goes on
    assert junction_hold(view([FROM_RIGHT]), EGO, 12.0, frozenset()) is None


def test_without_signs_only_the_car_from_the_right_is_waited_for():
    # no sign: the hold line is the junction's start, 20 - 2.4 = 17.6 m from the front
    hold = junction_hold(view([FROM_RIGHT], signs=()), EGO, 5.0, frozenset())
    assert hold is not None and hold.rule == RIGHT_OF_WAY and hold.gap == pytest.approx(17.6)
    assert junction_hold(view([FROM_LEFT], signs=()), EGO, 5.0, frozenset()) is None
    assert junction_hold(view([FROM_LEFT], signs=(), side="left"), EGO, 5.0, frozenset()) is not None
    assert junction_hold(view([FROM_RIGHT], signs=()), EGO, 5.0, frozenset({RIGHT_OF_WAY})) is None


CROSSING = """\
name: crossing-brake
country: DE
road: {kind: intersection, length: 130, lanes: {forward: 1, backward: 1}, speed_limit: 50}
ego: {lane: 1, s: 100, speed: 20, route: {exit: straight}}
actors:
  - {id: cross, kind: vehicle, place: {lane: 1, s: 66, arm: left}, speed: 40, REACTS behaviours: [{action: keep_speed}]}
expect: {timeout: 12}
"""


@pytest.mark.parametrize("reacts", [True, False])
def test_a_reacting_car_brakes_for_an_ego_crossing_its_path(tmp_path, reacts):
    """The ego keeps 20 km/h straight across (its storyboard, no agent); the car from the left at 40 km/h would
    meet it: the ego's centre passes the car's lane (y = -1.75) after (39.5 - 1.75) / 5.56 = 6.8 s, the car's centre
    reaches the ego's lane (x = 1.75) after (73 + 1.75) / 11.1 = 6.7 s. Reacting, the car brakes and lets it pass."""
    from roadtest.bundle import load_bundle
    from roadtest.dsl.convert import convert_command
    from roadtest.runner.episode import run_episode
    from roadtest.sim.api import SimSettings

    f = tmp_path / "c.yaml"
    f.write_text(CROSSING.replace("REACTS ", "reacts: true, " if reacts else ""))
    convert_command(str(f), str(tmp_path / "b"))
    (bundle,) = (tmp_path / "b").iterdir()
    trace = run_episode(load_bundle(bundle), 0, None, SimSettings(tick=0.05))
    hits = [st.time for st in trace.states for ev in st.events if ev.kind == "collision"]
    slowest = min(a.speed for st in trace.states for a in st.actors if a.id == "cross")
    if reacts:
        assert not hits and slowest < 5.0
        # and it brakes as a car can, not by a jump: never more than 8 m/s^2 between ticks
        speeds = [a.speed for st in trace.states for a in st.actors if a.id == "cross"]
        assert max(p - q for p, q in zip(speeds, speeds[1:])) <= 8.0 * 0.05 + 1e-6
    else:
        assert hits and slowest == pytest.approx(40 / 3.6)
