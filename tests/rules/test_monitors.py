"""Every rule's monitor on a satisfied, a violated and a boundary hand-built trace."""

from __future__ import annotations

import math

import pytest

from roadtest.rules.catalogue_model import load_catalogue
from roadtest.rules.evaluate import evaluate_rules
from roadtest.sim.api import Environment, Event, Trace, WorldState
from .synth import TICK, const, crossing_tick, drive, ego, invasion, other, segments

CAT = load_catalogue()
KMH = 1 / 3.6


def meta(rule: str, country: str = "CN", **scene) -> dict:
    return {"country": country, "driving_side": "left" if country == "JP" else "right",
            "rules": [{"id": rule, "params": {}}], "scene": scene}


def verdict(trace: Trace, m: dict, rule: str | None = None) -> str:
    res = {r.id: r for r in evaluate_rules(trace, m, CAT)}
    return res[rule or m["rules"][0]["id"]].verdict


def lead_at(gap: float, speed: float, lane: int = -1):
    return lambda i, x: [other("lead", "car", x + 4.0 + gap, -1.75, speed=speed, lane=lane)]


def with_lead_speed(gap0: float, v_lead: float):
    return lambda i, x: [other("lead", "car", gap0 + 4.0 + v_lead * i * TICK, -1.75, speed=v_lead)]


# ------------------------------------------------------------------ builders: name -> (trace, meta)

def speed_limit(case):
    lim = 50 * KMH
    v = {"satisfied": 13.0, "violated": 16.0, "boundary": lim + 2 * KMH}[case]
    return drive(const(v, 30)), meta("speed_limit", speed_limit=lim)


def school_zone_speed(case):
    zone = [{"kind": "school_zone", "road": "0", "s_start": 50, "s_end": 150}]
    inside = {"satisfied": 8.0, "violated": 12.0, "boundary": 32 * KMH}[case]
    tr = drive(lambda i, x: inside if 45 <= x <= 155 else 12.0, x0=20, n=200)
    return tr, meta("school_zone_speed", zones=zone)


def work_zone_speed(case):
    limit = 30 * KMH if case == "violated" else 40 * KMH
    zone = [{"kind": "work_zone", "road": "0", "s_start": 50, "s_end": 150, "speed_limit": limit}]
    inside = {"satisfied": 10.0, "violated": 10.0, "boundary": 42 * KMH}[case]
    return drive(lambda i, x: inside if 45 <= x <= 155 else 14.0, x0=20, n=200), meta("work_zone_speed", zones=zone)


def fog_speed_limit(case):
    vis, v = {"satisfied": (50.0, 8.0), "violated": (50.0, 12.0), "boundary": (52.0, 20.0)}[case]
    return drive(const(v, 30), env=lambda i: Environment(fog_visual_range=vis)), meta("fog_speed_limit")


def fog_expressway(case):
    vis, gap = {"satisfied": (150.0, 120.0), "violated": (150.0, 80.0), "boundary": (200.0, 30.0)}[case]
    v = 16.0 if case != "boundary" else 30.0
    return drive(const(v, 30), env=lambda i: Environment(fog_visual_range=vis), others=lead_at(gap, v)), meta("fog_expressway")


def night_speed(case):
    elev, v = {"satisfied": (-0.2, 28.0), "violated": (-0.2, 32.0), "boundary": (0.0, 32.0)}[case]
    return drive(const(v, 30), env=lambda i: Environment(sun_elevation=elev)), meta("night_speed", "US")


STOP_SCENE = {"signs": [{"id": "stop", "road": "0", "s": 50.0}], "stop_lines": [{"road": "0", "s": 50.0}]}


def stop_sign(case):
    if case == "violated":
        speeds = const(8.0, 60)
    else:
        low = 0.0 if case == "satisfied" else 0.1
        speeds = segments((8.0, 32), (low, 10), (8.0, 40))  # front reaches 47 m (3 m before the line), stops, goes
    return drive(speeds, x0=20.2), meta("stop_sign", **STOP_SCENE)


LIGHT_SCENE = {"lights": [{"id": "L1", "road": "0", "s": 50.0}], "stop_lines": [{"road": "0", "s": 50.0}]}


def red_light(case):
    if case == "satisfied":
        return drive(segments((8.0, 32), (0.0, 30), (8.0, 30)), x0=20.2,
                     signals=lambda i: {"L1": "red" if i < 50 else "green"}), meta("red_light", **LIGHT_SCENE)
    speeds = const(8.0, 60)
    k = crossing_tick(drive(speeds, x0=20.2), 50.0)
    green_from = k if case == "boundary" else 10_000
    tr = drive(speeds, x0=20.2, signals=lambda i: {"L1": "green" if i >= green_from else "red"})
    return tr, meta("red_light", **LIGHT_SCENE)


def yellow_light(case):
    # constant 12 m/s; at tick 10 the front is 24 m before the line (x0 = 12): braking distance at 3 m/s^2 is 24 m
    x0 = {"satisfied": 30.0, "violated": 0.0, "boundary": 12.0}[case]
    tr = drive(const(12.0, 60), x0=x0, signals=lambda i: {"L1": "green" if i < 10 else "yellow"})
    return tr, meta("yellow_light", **LIGHT_SCENE)


def no_overtaking_solid_line(case):
    ev = {"satisfied": None, "violated": invasion(False), "boundary": invasion(True, "broken")}[case]
    return drive(const(10.0, 30), events=lambda i: ev if (ev and i == 15) else ()), meta("no_overtaking_solid_line")


def no_lane_change_tunnel(case):
    zone = [{"kind": "tunnel", "road": "0", "s_start": 50, "s_end": 150}]
    at = {"satisfied": 30.0, "violated": 100.0, "boundary": 150.5}[case]
    tr = drive(const(10.0, 200), x0=0.0, lanes=lambda i: -1 if i * 1.0 < at else -2)
    return tr, meta("no_lane_change_tunnel", zones=zone)


def safe_distance(case):
    gap = {"satisfied": 20.0, "violated": 12.0, "boundary": 17.0}[case]  # CN: 1.5 s * 10 m/s + 2 m = 17 m
    return drive(const(10.0, 30), others=lead_at(gap, 10.0)), meta("safe_distance")


CW_SCENE = {"crosswalks": [{"road": "0", "s_start": 48.0, "s_end": 52.0}]}


def _ped(until_tick: int):
    return lambda i, x: [other("ped", "pedestrian", 50.0, -1.75 if i < until_tick else -9.0, speed=1.2, h=math.pi / 2,
                               lane=None, length=0.5, width=0.6)]


def yield_pedestrian_crosswalk(case):
    if case == "violated":
        return drive(const(8.0, 60), x0=20.0, others=_ped(10_000)), meta("yield_pedestrian_crosswalk", **CW_SCENE)
    stop_x = {"satisfied": 40.0, "boundary": 46.0}[case]  # boundary: front exactly at the crosswalk's start
    tr = drive(segments((8.0, 33), (0.0, 40), (8.0, 40)), x0=stop_x - 0.8 * 32, others=_ped(62))
    return tr, meta("yield_pedestrian_crosswalk", **CW_SCENE)


def _ev(i, x):
    return [other("amb", "emergency", x - 14.0, -1.75, speed=10.0, siren=True)]


def yield_emergency_vehicle(case):
    move_at = {"satisfied": 50, "violated": 10_000, "boundary": 150}[case]
    return drive(const(10.0, 250), lanes=lambda i: -1 if i < move_at else -2, others=_ev), meta("yield_emergency_vehicle")


def no_stopping(case):
    if case == "satisfied":  # stands 10 s behind a stopped lead
        return drive(const(0.0, 100), others=lambda i, x: [other("lead", "car", x + 12.0, -1.75)]), meta("no_stopping")
    stand = {"violated": 100, "boundary": 50}[case]
    return drive(segments((10.0, 10), (0.0, stand), (10.0, 10))), meta("no_stopping")


def _cross_car(dist: float):
    return lambda i, x: [other("cross", "car", x, -1.75 - dist, speed=10.0, h=math.pi / 2, lane=None)]


def _junction(rule: str, case: str, scene: dict, by_road: bool):
    dist = {"satisfied": 60.0, "violated": 15.0, "boundary": 33.0}[case]  # boundary: (33 - 3) m at 10 m/s = 3 s
    roads = (lambda i: "0" if i < 30 else "J") if by_road else None
    return drive(const(10.0, 40), x0=20.0, roads=roads, others=_cross_car(dist)), meta(rule, **scene)


def right_of_way_unsignalised(case):
    return _junction("right_of_way_unsignalised", case, {}, by_road=True)


def give_way_sign(case):
    return _junction("give_way_sign", case, {"signs": [{"id": "give_way", "road": "0", "s": 40.0}]}, by_road=False)


def no_u_turn(case):
    states = []
    for i in range(40):
        back = i >= 20
        x = 2.0 * i if not back else 40.0 - 2.0 * (i - 20)
        road = "1" if (back and case == "boundary") else "0"
        e = ego(x, 10.0, lane=1 if back and case == "violated" else -1, h=math.pi if back else 0.0, road=road)
        if case == "satisfied":
            e = ego(2.0 * i, 10.0)
        states.append(WorldState(time=i * TICK, frame=i, actors=(e,)))
    return Trace(states=states, tick=TICK), meta("no_u_turn")


def driving_side(case):
    lane = -1 if case == "satisfied" else 1
    country = "JP" if case == "boundary" else "CN"  # lane +1 along +s is the correct side in left-hand traffic
    return drive(const(10.0, 30), lanes=lambda i: lane), meta("driving_side", country)


def min_speed_expressway(case):
    v = {"satisfied": 20.0, "violated": 12.0, "boundary": 58 * KMH}[case]  # CN: 60 km/h minus 2 km/h tolerance
    return drive(const(v, 30)), meta("min_speed_expressway")


def merge_give_way(case):
    gap = {"satisfied": 30.0, "violated": 5.0, "boundary": 15.0}[case]  # boundary: 15 m at 15 m/s = 1 s
    rear = lambda i, x: [other("rear", "car", x - 4.0 - gap, -5.25, speed=15.0, lane=-2)]  # noqa: E731
    return drive(const(15.0, 30), lanes=lambda i: -1 if i < 10 else -2, others=rear), meta("merge_give_way")


def vru_lateral_clearance(case):
    dy = {"satisfied": 3.0, "violated": 2.0, "boundary": 2.3}[case]  # clearance = dy - (2.0 + 0.6) / 2
    bike = lambda i, x: [other("bike", "bicycle", x, -1.75 - dy, speed=5.0, lane=None, length=1.8, width=0.6)]  # noqa: E731
    return drive(const(10.0, 30), others=bike), meta("vru_lateral_clearance")


def no_entry(case):
    scene = {"signs": [{"id": "no_entry", "road": "0", "s": 50.0}]}
    if case == "boundary":  # the same drive on another road: the sign does not apply
        return drive(const(8.0, 60), x0=20.0, roads=lambda i: "1"), meta("no_entry", **scene)
    speeds = const(8.0, 60) if case == "violated" else segments((8.0, 30), (0.0, 30))
    return drive(speeds, x0=20.0), meta("no_entry", **scene)


def officer_signal(case):
    scene = {**LIGHT_SCENE, "actors": [{"id": "cop", "kind": "police_officer"}]}
    if case == "violated":  # green light, officer says stop, ego goes
        sig = lambda i: {"L1": "green", "cop": "stop"}  # noqa: E731
        return drive(const(8.0, 60), x0=20.2, signals=sig), meta("officer_signal", **scene)
    speeds = const(8.0, 60)
    k = crossing_tick(drive(speeds, x0=20.2), 50.0)
    go_from = k if case == "boundary" else k - 5
    sig = lambda i: {"L1": "red", "cop": "go" if i >= go_from else "stop"}  # noqa: E731
    return drive(speeds, x0=20.2, signals=sig), meta("officer_signal", **scene)


def time_to_collision(case):
    if case == "boundary":  # 10 m gap closing at 5 m/s: exactly 2 s
        return drive(const(15.0, 1), others=lead_at(10.0, 10.0)), meta("time_to_collision")
    gap0 = {"satisfied": 20.0, "violated": 8.0}[case]
    return drive(const(15.0, 10), others=with_lead_speed(gap0, 10.0)), meta("time_to_collision")


def _collision(kind: str, rule: str, case: str):
    speed = 0.0 if case == "boundary" else 8.0  # boundary: hit while standing still
    ev = (Event("collision", "hero", "x1", {"other_kind": kind, "relative_speed": 3.0}),)
    return drive(const(speed, 20), events=lambda i: ev if (case != "satisfied" and i == 10) else ()), meta(rule)


def no_collision_vru(case):
    return _collision("pedestrian", "no_collision_vru", case)


def no_collision_vehicle(case):
    return _collision("car", "no_collision_vehicle", case)


def expressway_distance(case):
    v, gap = {"satisfied": (30.0, 120.0), "violated": (30.0, 80.0), "boundary": (25.0, 50.0)}[case]
    return drive(const(v, 20), others=lead_at(gap, v)), meta("expressway_distance")


def solid_line_exception(case):
    ev = invasion(False)
    if case == "satisfied":  # crossing to clear the way for an ambulance right behind
        return drive(const(10.0, 30), others=_ev, events=lambda i: ev if i == 15 else ()), meta("solid_line_exception")
    gap = 12.0 if case == "violated" else 15.0  # a crawling lead 15 m ahead is the boundary of "blocked"
    speed = 2.0 if case == "violated" else 0.5
    lead = lambda i, x: [other("lead", "car", x + 4.0 + gap, -1.75, speed=speed)]  # noqa: E731
    return drive(const(1.0, 30), others=lead, events=lambda i: ev if i == 15 else ()), meta("solid_line_exception")


BUILDERS = {f.__name__: f for f in [
    speed_limit, school_zone_speed, work_zone_speed, fog_speed_limit, fog_expressway, night_speed, stop_sign,
    red_light, yellow_light, no_overtaking_solid_line, no_lane_change_tunnel, safe_distance,
    yield_pedestrian_crosswalk, yield_emergency_vehicle, no_stopping, right_of_way_unsignalised, give_way_sign,
    no_u_turn, driving_side, min_speed_expressway, merge_give_way, vru_lateral_clearance, no_entry, officer_signal,
    time_to_collision, solid_line_exception, no_collision_vru, no_collision_vehicle, expressway_distance,
]}
EXPECT = {"satisfied": "satisfied", "violated": "violated", "boundary": "satisfied"}
# boundary cases that sit just outside the rule's context: the rule was never in force
NOT_IN_FORCE = {
    ("fog_expressway", "boundary"),  # visibility 200 m is not below vis1 = 200 m
    ("fog_speed_limit", "boundary"),  # 52 m is not below the 50 m threshold (+ 1 m margin)
    ("night_speed", "boundary"),  # sun exactly on the horizon is not night
    ("no_entry", "boundary"),  # the sign stands on another road
}


def test_every_rule_has_three_cases():
    assert set(BUILDERS) == set(CAT), set(CAT) ^ set(BUILDERS)


@pytest.mark.parametrize("case", ["satisfied", "violated", "boundary"])
@pytest.mark.parametrize("rule", sorted(BUILDERS))
def test_monitor(rule, case):
    trace, m = BUILDERS[rule](case)
    assert verdict(trace, m) == ("not_applicable" if (rule, case) in NOT_IN_FORCE else EXPECT[case])
