"""Country parameters, conflict resolution and the rulebook on hand-built traces."""

from __future__ import annotations

from roadtest.rules.evaluate import evaluate_rules, governing_rule, rulebook_score
from roadtest.rules.rulebook import compare, level_weights
from roadtest.rules.signals import VOCABULARY, extract_signals
from roadtest.sim.api import Environment
from .synth import const, crossing_tick, drive, other
from .test_monitors import CAT, LIGHT_SCENE, lead_at, meta, verdict


def test_country_parameters_change_the_verdict():
    fog = drive(const(12.0, 30), env=lambda i: Environment(fog_visual_range=40.0))  # 43 km/h in 40 m fog
    assert verdict(fog, meta("fog_speed_limit", "CN")) == "violated"  # 30 km/h (RTSL-IR Art. 46)
    assert verdict(fog, meta("fog_speed_limit", "DE")) == "satisfied"  # 50 km/h (StVO §3(1))
    follow = drive(const(10.0, 30), others=lead_at(17.0, 10.0))
    assert verdict(follow, meta("safe_distance", "CN")) == "satisfied"  # 1.5 s
    assert verdict(follow, meta("safe_distance", "DE")) == "violated"  # 1.8 s


def test_meta_params_override_the_catalogue():
    tr = drive(const(14.0, 20))
    m = meta("speed_limit", speed_limit=13.0)
    assert verdict(tr, m) == "violated"
    m["rules"][0]["params"] = {"tolerance": 1.5}
    assert verdict(tr, m) == "satisfied"


def test_slow_behind_a_close_lead_is_not_below_minimum_speed():
    tr = drive(const(12.0, 30), others=lead_at(40.0, 12.0))
    assert verdict(tr, meta("min_speed_expressway")) == "satisfied"


def test_officer_waving_through_a_red_light_excuses_it():
    speeds = const(8.0, 60)
    k = crossing_tick(drive(speeds, x0=20.2), 50.0)
    tr = drive(speeds, x0=20.2, signals=lambda i: {"L1": "red", "cop": "go" if i >= k - 5 else "stop"})
    m = meta("red_light", **LIGHT_SCENE, actors=[{"id": "cop", "kind": "police_officer"}])
    assert verdict(tr, m) == "violated"  # the light alone
    m["rules"] = [{"id": "red_light"}, {"id": "officer_signal"}]
    res = {r.id: r for r in evaluate_rules(tr, m, CAT)}
    assert res["officer_signal"].verdict == "satisfied"
    assert res["red_light"].verdict == "excused" and res["red_light"].excused_by == "officer_signal"
    # ignoring the officer's stop is not excused
    tr2 = drive(speeds, x0=20.2, signals=lambda i: {"L1": "red", "cop": "stop"})
    res2 = {r.id: r.verdict for r in evaluate_rules(tr2, m, CAT)}
    assert res2 == {"red_light": "violated", "officer_signal": "violated"}


def test_governing_rule_follows_priority_class():
    gov, conflicts = governing_rule(["no_overtaking_solid_line", "yield_emergency_vehicle"], CAT)
    assert gov == "yield_emergency_vehicle"
    assert conflicts == [{"governs": "yield_emergency_vehicle", "yields": "no_overtaking_solid_line",
                          "reason": "emergency_vehicles outranks road_markings"}]
    assert governing_rule(["speed_limit", "safe_distance"], CAT) == (None, [])


def test_rulebook_levels_outweigh_everything_below():
    assert level_weights([1, 2, 1]) == [6, 2, 1]
    tr = drive(const(16.0, 30), others=lead_at(5.0, 16.0))  # speeding and tailgating
    m = meta("speed_limit", speed_limit=13.0)
    m["rules"] = [{"id": r} for r in ("speed_limit", "safe_distance", "time_to_collision", "yield_pedestrian_crosswalk")]
    res = evaluate_rules(tr, m, CAT)
    score = rulebook_score(res)
    assert score.vector[4] == 1 and score.vector[7] == 1 and score.vector[0] == 0  # traffic_signs, defensive_driving
    # one traffic-sign violation outweighs both defensive-driving rules violated together
    only_defensive = [r for r in res if r.id != "speed_limit"]
    assert score.scalar > 0 and rulebook_score(only_defensive).scalar < score.scalar
    assert compare((0, 0, 0, 0, 1, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0, 2, 0)) == 1
    assert compare(score.vector, score.vector) == 0
    assert 0 < score.normalized <= 1


def test_signals_cover_the_vocabulary_and_align_with_ticks():
    tr = drive(const(5.0, 12), others=lambda i, x: [other("amb", "emergency", x - 10, -1.75, 5.0, siren=True)])
    sig = extract_signals(tr, {})
    assert set(sig.values) == set(VOCABULARY)
    assert all(len(v) == 12 for v in sig.values.values())
    assert sig["ev_behind"][0] == 1.0 and abs(sig["ev_blocked_time"][-1] - 1.2) < 1e-9


def test_episodes_have_start_duration_and_worst():
    speeds = const(10.0, 10) + const(15.0, 5) + const(10.0, 10) + const(14.0, 3)
    res = evaluate_rules(drive(speeds), meta("speed_limit", speed_limit=12.0), CAT)[0]
    assert [round(e.start, 2) for e in res.episodes] == [1.0, 2.5]
    assert [round(e.duration, 2) for e in res.episodes] == [0.5, 0.3]
    assert round(res.episodes[0].worst, 3) == round(12.0 + 2 / 3.6 - 15.0, 3)
    assert res.first_violation == res.episodes[0].start


def test_light_state_is_read_by_its_opendrive_signal_id():
    scene = {"lights": [{"id": "tl_main", "signal_id": "2000", "road": "0", "s": 50.0}],
             "stop_lines": [{"road": "0", "s": 50.0}]}
    tr = drive(const(8.0, 60), x0=20.2, signals=lambda i: {"2000": "red"})
    assert verdict(tr, meta("red_light", **scene)) == "violated"
    tr = drive(const(8.0, 60), x0=20.2, signals=lambda i: {"2000": "green"})
    assert verdict(tr, meta("red_light", **scene)) == "satisfied"


def test_a_silent_officer_excuses_nothing():
    """The officer stands there but never signals: running the red light stays a violation."""
    tr = drive(const(8.0, 60), x0=20.2, signals=lambda i: {"L1": "red"})
    m = meta("red_light", **LIGHT_SCENE, actors=[{"id": "cop", "kind": "police_officer"}])
    m["rules"] = [{"id": "red_light"}, {"id": "officer_signal"}]
    assert {r.id: r.verdict for r in evaluate_rules(tr, m, CAT)} == {"red_light": "violated", "officer_signal": "not_applicable"}


def test_crossing_a_solid_line_for_an_ambulance_is_excused_only_while_it_is_behind():
    from .synth import invasion
    from .test_monitors import _ev

    m = meta("no_overtaking_solid_line")
    m["rules"] = [{"id": "no_overtaking_solid_line"}, {"id": "yield_emergency_vehicle"}]
    tr = drive(const(10.0, 60), lanes=lambda i: -1 if i < 30 else -2, others=_ev,
               events=lambda i: invasion(False) if i == 30 else ())
    res = {r.id: r.verdict for r in evaluate_rules(tr, m, CAT)}
    assert res == {"no_overtaking_solid_line": "excused", "yield_emergency_vehicle": "satisfied"}
    no_ev = drive(const(10.0, 60), events=lambda i: invasion(False) if i == 30 else ())
    res = {r.id: r.verdict for r in evaluate_rules(no_ev, m, CAT)}
    assert res["no_overtaking_solid_line"] == "violated"


def test_a_lead_pulling_away_after_overtaking_is_exempt_from_safe_distance():
    close_fast = drive(const(10.0, 20), others=lambda i, x: [other("amb", "emergency", x + 9.0 + 0.5 * i, -1.75, 15.0)])
    # 5 m gap, but it leaves at +5 m/s: the rule is never in force (its context exempts a lead pulling away)
    assert verdict(close_fast, meta("safe_distance")) == "not_applicable"
    close_slow = drive(const(10.0, 20), others=lambda i, x: [other("car", "car", x + 9.0 + 0.1 * i, -1.75, 11.0)])
    assert verdict(close_slow, meta("safe_distance")) == "violated"  # 5 m gap, leaving at only +1 m/s


def test_crossing_back_after_the_ambulance_passed_is_part_of_the_excused_manoeuvre():
    """Pull over across the solid line for the ambulance, rejoin once it is gone: excused; a third crossing is not."""
    from .synth import invasion

    m = meta("no_overtaking_solid_line")
    m["rules"] = [{"id": "no_overtaking_solid_line"}, {"id": "yield_emergency_vehicle"}]

    def ev_until(i, x):  # the ambulance is behind for the first 4 s (40 ticks of 0.1 s), then gone
        return [other("amb", "emergency", x - 14.0, -1.75, speed=10.0, siren=True)] if i < 40 else []

    def run(crossings):
        return drive(const(10.0, 400), others=ev_until, events=lambda i: invasion(False) if i in crossings else ())

    res = {r.id: r.verdict for r in evaluate_rules(run({30, 150}), m, CAT)}
    assert res["no_overtaking_solid_line"] == "excused"
    res = {r.id: r.verdict for r in evaluate_rules(run({30, 150, 250}), m, CAT)}
    assert res["no_overtaking_solid_line"] == "violated"
    # moved over where it was allowed, rejoined across the line after the ambulance passed: excused
    res = {r.id: r.verdict for r in evaluate_rules(run({150}), m, CAT)}
    assert res["no_overtaking_solid_line"] == "excused"
    # long after the ambulance has gone, crossing is no longer part of yielding
    res = {r.id: r.verdict for r in evaluate_rules(run({300}), m, CAT)}
    assert res["no_overtaking_solid_line"] == "violated"


def test_school_zone_sign_without_a_zone_is_not_applicable():
    # a JP curve with a school-zone sign at s = 60 but no school-zone section; the ego passes it at 44 km/h
    tr = drive(const(44 / 3.6, 80), x0=20.0)
    signs = [{"id": "school", "road": "0", "s": 60.0, "side": "kerb", "direction": "forward"}]
    m = meta("school_zone_speed", "JP", signs=signs)
    (res,) = evaluate_rules(tr, m, CAT)
    assert res.verdict == "not_applicable" and res.in_force_time == 0.0 and res.to_dict()["worst"] is None
    # the same drive through a zone from s = 50 to 150: 44 km/h > 30 + 2 km/h inside it
    m = meta("school_zone_speed", "JP", signs=signs, zones=[{"kind": "school_zone", "road": "0", "s_start": 50, "s_end": 150}])
    (res,) = evaluate_rules(tr, m, CAT)
    # robustness of A -> B is max(-A, B): the +1 of "inside the zone" bounds it at -1 (B alone is (32 - 44) / 3.6)
    assert res.verdict == "violated" and res.worst == -1.0 and res.first_violation is not None


def test_merge_give_way_without_a_lane_change_is_not_applicable():
    # the ego keeps lane -1 at 15 m/s with a car 5 m behind it in lane -2 the whole run: it never merged
    behind = lambda i, x: [other("car", "car", x - 9.0, -5.25, speed=15.0, lane=-2)]  # noqa: E731
    tr = drive(const(15.0, 40), others=behind)
    (res,) = evaluate_rules(tr, meta("merge_give_way"), CAT)
    assert res.verdict == "not_applicable", (res.verdict, res.worst)
    # moving into lane -2 at tick 20: the car behind is 5 m (9 m centre to centre minus 4 m) at 15 m/s = 0.33 s < 1 s
    tr = drive(const(15.0, 40), others=behind, lanes=lambda i: -2 if i >= 20 else -1)
    (res,) = evaluate_rules(tr, meta("merge_give_way"), CAT)
    assert res.verdict == "violated" and abs(res.worst - (5.0 / 15.0 - 1.0)) < 1e-6 and res.in_force_time > 0
