"""What the L2..L5 suites cover beyond L1: every catalogue rule alongside others, L4 under adverse conditions,
L5 a conflict between each pair of adjacent priority classes where one can occur. The expectations are
written by hand from the priority order, not read from the composer."""

from __future__ import annotations

import json

import pytest
import yaml

from roadtest.dsl.suite import expand_target
from roadtest.rules.catalogue_model import load_catalogue

CAT = load_catalogue()
LEVELS = ["L2", "L3", "L4", "L5"]

# rules that cannot share a scene with any other rule, and why; none today (speed_limit has no context to clash with)
CANNOT_COEXIST: dict[str, str] = {}

ORDER = ["pedestrian_safety", "emergency_vehicles", "command_personnel", "traffic_lights", "traffic_signs",
         "road_markings", "right_of_way", "defensive_driving", "emergency_exceptions"]

# adjacent pair (higher, lower) -> the L5 scene file and its (governing, yielding) rules
L5_SCENES = {
    ("pedestrian_safety", "emergency_vehicles"):
        ("yield_pedestrian_crosswalk_yield_emergency_vehicle.yaml", "yield_pedestrian_crosswalk", "yield_emergency_vehicle"),
    ("emergency_vehicles", "command_personnel"):
        ("yield_emergency_vehicle_officer_signal.yaml", "yield_emergency_vehicle", "officer_signal"),
    ("command_personnel", "traffic_lights"): ("red_light_officer_signal.yaml", "officer_signal", "red_light"),
    ("traffic_lights", "traffic_signs"): ("red_light_min_speed_expressway.yaml", "red_light", "min_speed_expressway"),
}
# adjacent pairs with no L5 scene, and why
NO_SCENE = {
    ("traffic_signs", "road_markings"):
        "no sign rule of the catalogue demands crossing a marking or leaving the driving side: sign rules cap speed, "
        "forbid entering, turning or changing lanes, or ask for a stop, all kept without touching a mark",
    ("road_markings", "right_of_way"):
        "right-of-way rules only ask the ego to wait for a gap; waiting never crosses a mark nor leaves the driving side",
    ("right_of_way", "defensive_driving"):
        "giving way at a junction is a wait at its line, which no_stopping counts as a reason, and a wait keeps the "
        "distance rules; only standing at the end of an acceleration lane for a gap could clash with no_stopping, "
        "a scene (dense main-lane traffic the merging expert waits out) not built yet",
    ("defensive_driving", "emergency_exceptions"):
        "solid_line_exception is a permission (cross a solid line only for an emergency vehicle or a blocked lane); "
        "no defensive-driving rule forces a crossing, so the permission never has to give way",
}


def _levels_rules(repo_root):
    out = {}
    for lv in LEVELS:
        out[lv] = {r.id for v in expand_target(repo_root / "scenarios" / "suites" / f"{lv}.yaml") for r in v.scenario.rules}
    return out


def test_l2_to_l5_cover_every_catalogue_rule(repo_root):
    covered = set().union(*_levels_rules(repo_root).values())
    assert set(CAT) - covered == set(CANNOT_COEXIST)
    assert covered <= set(CAT)


def test_the_weather_and_night_rules_are_in_l4(repo_root):
    l4 = _levels_rules(repo_root)["L4"]
    assert {"fog_expressway", "night_speed", "fog_speed_limit", "expressway_distance"} <= l4


def test_every_adjacent_pair_of_classes_has_a_scene_or_a_reason():
    adjacent = list(zip(ORDER, ORDER[1:]))
    assert len(adjacent) == 8
    assert set(L5_SCENES) | set(NO_SCENE) == set(adjacent)
    assert not set(L5_SCENES) & set(NO_SCENE)
    assert ORDER == [c for c in ORDER if c in {r.priority_class for r in CAT.values()}]  # every class has a rule


@pytest.mark.parametrize("pair", sorted(L5_SCENES))
def test_l5_scene_governs_across_the_adjacent_pair(repo_root, tmp_path, pair):
    """The composed scene lists both rules, meta.json names the higher one governing, and the catalogue's
    classes of the two are the pair written above."""
    from roadtest.dsl.bundle_writer import write_bundle

    fname, gov, lower = L5_SCENES[pair]
    path = repo_root / "scenarios" / "composed" / "L5" / fname
    scene = yaml.safe_load(path.read_text())
    assert {gov, lower} <= set(scene["rules"]) and scene["level"] == "L5"
    variants = expand_target(path)
    assert len({v.scenario.country for v in variants}) >= 3
    meta = json.loads((write_bundle(variants[0], tmp_path) / "meta.json").read_text())
    assert meta["governing"] == gov
    classes = {r["id"]: r["priority_class"] for r in meta["rules"]}
    assert (classes[gov], classes[lower]) == pair
    listed = {r["id"]: set(r["conflicts_with"]) for r in meta["rules"]}
    assert lower in listed[gov] or gov in listed[lower]


def test_l4_scenes_have_three_rules_under_fog_rain_or_night(repo_root):
    files = sorted((repo_root / "scenarios" / "composed" / "L4").glob("*.yaml"))
    assert len(files) >= 7
    for f in files:
        variants = expand_target(f)
        assert variants, f
        for v in variants:
            env = v.scenario.environment
            assert len(v.scenario.rules) >= 3, v.id
            night = env.sun_elevation < 0
            assert night or env.fog_visual_range <= 200 or env.precipitation != "none", v.id


def test_red_light_excuses_dropping_below_the_minimum_speed(repo_root, tmp_path):
    """The light is red for its first 12 s and the ego, at 70 km/h, would reach the line within them; stopping there
    takes it below the 60 km/h minimum with no vehicle ahead: min_speed_expressway is broken, and excused."""
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.runner.coverage import run_variant

    path = repo_root / "scenarios" / "composed" / "L5" / "red_light_min_speed_expressway.yaml"
    scene = yaml.safe_load(path.read_text())
    plan = scene["road"]["signal_plan"]  # two phases: the ego's green, yellow, all-red, then the cross arms'
    cycle = plan["green"] + plan["cross_green"] + 2 * (plan["yellow"] + plan["all_red"])
    red_first = cycle - plan["offset"]  # the ego's approach starts this far before its green
    line_s = scene["road"]["length"] - 3  # the generated heads stand 3 m before the junction
    assert (line_s - scene["ego"]["s"]) / (scene["ego"]["speed"] / 3.6) < red_first
    assert not scene.get("actors")
    bundle = load_bundle(write_bundle([v for v in expand_target(path) if v.scenario.country == "DE"][0], tmp_path))
    row = run_variant(str(bundle.root), tick=0.05, lane_follower=False)
    assert row["expert"]["termination"] == "completed"
    assert row["expert"]["verdicts"] == {"red_light": "satisfied", "min_speed_expressway": "excused"}
    assert row["feasible"]
    assert row["ignoring"]["red_light"]["verdicts"]["red_light"] == "violated"


def test_ambulance_outranks_the_officers_stop(repo_root, tmp_path):
    """The officer holds the ego's approach for longer than the 15 s an ambulance may stay blocked, so an ego that
    waits at the line in the ambulance's lane breaks yield_emergency_vehicle; the expert moves to the free lane
    before the line and keeps both; the expert ignoring the officer crosses during the stop."""
    from roadtest.bundle import load_bundle
    from roadtest.dsl.bundle_writer import write_bundle
    from roadtest.runner.coverage import run_variant

    path = repo_root / "scenarios" / "composed" / "L5" / "yield_emergency_vehicle_officer_signal.yaml"
    scene = yaml.safe_load(path.read_text())
    officer = next(a for a in scene["actors"] if a["kind"] == "police_officer")
    assert officer["signal"][0]["state"] == "stop"
    assert officer["signal"][0]["duration"] > CAT["yield_emergency_vehicle"].params["max_block_time"].value
    assert scene["road"]["lanes"]["forward"] == 2  # a lane to make room in
    assert next(a for a in scene["actors"] if a["kind"] == "emergency")["reacts"] is True
    bundle = load_bundle(write_bundle([v for v in expand_target(path) if v.scenario.country == "US"][0], tmp_path))
    row = run_variant(str(bundle.root), tick=0.05, lane_follower=False)
    assert row["expert"]["verdicts"] == {"yield_emergency_vehicle": "satisfied", "officer_signal": "satisfied"}
    assert row["feasible"]
    assert row["ignoring"]["yield_emergency_vehicle"]["verdicts"]["yield_emergency_vehicle"] == "violated"
    assert row["ignoring"]["officer_signal"]["verdicts"]["officer_signal"] == "violated"
